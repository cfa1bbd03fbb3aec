// Line plots written to PNG with cairo: the notebook's matplotlib figures, drawn simply.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace llmfs {

struct Panel {
    std::string title;   // "GELU activation function"
    std::string ylabel;  // "GELU(x)"
    std::vector<float> y;
};

// Where a program writes a figure it draws without being asked (file_name, e.g. "gelu_relu.png"),
// never into the current folder: $LLMFS_FIGURE_DIR if set; else the build tree's figures/ (beside
// bin/, for a program in a build tree); else $XDG_CACHE_HOME/llmfs/figures or
// ~/.cache/llmfs/figures (an installed program). The folder is created.
std::filesystem::path default_figure_path(const std::string& file_name);

// Panels side by side sharing x (plt.subplot(1, n, i) with plt.plot(x, y), a grid, "x" below),
// each width_px x height_px. Throws std::runtime_error naming the path if it cannot be written.
void plot_panels(const std::filesystem::path& png, const std::vector<float>& x, const std::vector<Panel>& panels,
                 int width_px = 400, int height_px = 300);

// One matrix drawn as a heatmap: rows (queries) down, columns (keys) across, each cell coloured
// by its value (matplotlib's viridis, 0 = dark violet .. `vmax` = yellow) with the value written in.
struct Heatmap {
    std::string title;                    // "Causal attention weights"
    std::size_t rows = 0, cols = 0;
    std::vector<float> values;            // [rows, cols], row-major
    std::vector<std::string> row_labels;  // one per row, left of it ("Your", "journey", ...)
    std::vector<std::string> col_labels;  // one per column, below it
    std::string row_axis = "query", col_axis = "key";
};

// Heatmaps side by side, one colour scale for all: 0 .. max(1, largest value). Throws
// std::invalid_argument if a heatmap's values or labels do not match its shape, and
// std::runtime_error naming the path if it cannot be written.
void plot_heatmaps(const std::filesystem::path& png, const std::vector<Heatmap>& panels, int cell_px = 56);

// A horizontal bar chart, one row per label and one bar per series in each row (the MHA notebook's
// chart of forward times): series[i].values[j] is label j's value in series i; NaN = no bar
// ("n/a"). Each bar is labelled with its value and the unit.
struct BarSeries {
    std::string name;  // "llmfs", "PyTorch 1.13"
    std::vector<double> values;
};
void plot_bars(const std::filesystem::path& png, const std::string& title, const std::string& unit,
               const std::vector<std::string>& labels, const std::vector<BarSeries>& series);

// What a test checks of a written figure: its size, and how many different colours it has (a
// blank image has one). Throws std::runtime_error if the file is not a readable PNG.
struct ImageSummary {
    int width = 0, height = 0;
    std::size_t colours = 0;
};
ImageSummary summarize_png(const std::filesystem::path& png);

}  // namespace llmfs
