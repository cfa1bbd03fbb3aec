// Line plots written to PNG with cairo: the notebook's matplotlib figures, drawn simply.
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <vector>

namespace llmfs {

struct Panel {
    std::string title;   // "GELU activation function"
    std::string ylabel;  // "GELU(x)"
    std::vector<float> y;
};

// Where a program writes a file under its default name (file_name: a figure, e.g. "gelu_relu.png",
// or a notebook's torch.save file, "review_classifier.pth"). One rule for every program: such a
// path, given or default, is relative to the current folder, as the book's savefig and torch.save;
// only $LLMFS_FIGURE_DIR, if set, moves the default-named files (llmfs-nbcheck and llmfs-exercise
// grade set it to keep a check from writing into the user's folder). That folder is created.
std::filesystem::path default_output_path(const std::string& file_name);

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

// A chart of lines against x (plt.plot per series, plt.axhline), as the book's plot scripts draw:
// linear or log axes, a grid (on log axes also at 2..9 x 10^k), a legend in the corner that hides
// the fewest points (matplotlib's loc="best", simply), a title
// of one or more lines. Colours: matplotlib's defaults, kC0.. below.
struct LineSeries {
    std::string label;
    std::vector<double> x, y;
    std::array<double, 3> rgb;  // 0..1
    bool dashed = false;        // linestyle="--"
    char marker = 0;            // 'o', 's' or 0 (none)
};
struct HorizontalLine {
    double y;
    std::string label;
    std::array<double, 3> rgb;
    bool dotted = true;  // linestyle=":"
};
struct LineChart {
    std::string title;  // lines separated by '\n'
    double title_size = 12;
    std::string xlabel, ylabel;
    bool log_x = false, log_y = false, grid = true;
    std::vector<LineSeries> series;
    std::vector<HorizontalLine> hlines;
    // ax.twiny(): a second x axis along the top, labelled top_xlabel, whose ticks span top_x's
    // values (nothing is drawn against it, as matplotlib's ax2.plot(tokens_seen, ..., alpha=0)).
    std::string top_xlabel;
    std::vector<double> top_x;
    bool legend_upper_right = false;      // legend(loc="upper right"); else loc="best"
    int width_px = 640, height_px = 480;  // figsize x dpi
    double scale = 1;                     // dpi / 100: fonts, lines and markers grow with it
};
inline constexpr std::array<double, 3> kC0{0.122, 0.467, 0.706}, kC1{1.0, 0.498, 0.055}, kC2{0.173, 0.627, 0.173},
    kC3{0.839, 0.153, 0.157}, kC4{0.580, 0.404, 0.741}, kGray{0.5, 0.5, 0.5};
// Written as a PDF when path ends in .pdf (as the scripts' savefig), else as a PNG.
// Throws std::invalid_argument for a series whose x and y differ in length or a non-positive value
// on a log axis, std::runtime_error naming the path if it cannot be written.
void plot_lines(const std::filesystem::path& path, const LineChart& chart);

// The book's plot_losses(epochs_seen, tokens_seen, train_losses, val_losses) (ch05 5.2 and
// gpt_train.py): both losses against epochs (torch.linspace(0, num_epochs, len(train_losses))),
// tokens seen on a second x axis at the top. Written beside `path` and renamed over it, so a failed
// write leaves no half a figure.
void plot_losses(const std::filesystem::path& path, std::size_t num_epochs, const std::vector<double>& train_losses,
                 const std::vector<double>& val_losses, const std::vector<std::size_t>& tokens_seen);

// The book's plot_values(epochs_seen, examples_seen, train_values, val_values, label) (ch06 6.7,
// gpt_class_finetune.py, appendix E), which saves f"{label}-plot.pdf": "Training {label}" and
// "Validation {label}" against epochs (torch.linspace(0, num_epochs, len(train_values))), the
// legend where it fits best, label.capitalize() on the y axis, "Examples seen" along the top
// (torch.linspace(0, examples_seen, len(train_values))). Written as plot_losses writes.
void plot_values(const std::filesystem::path& path, std::size_t num_epochs, std::size_t examples_seen,
                 const std::vector<double>& train_values, const std::vector<double>& val_values, const std::string& label);

// What a test checks of a written figure: its size, and how many different colours it has (a
// blank image has one). Throws std::runtime_error if the file is not a readable PNG.
struct ImageSummary {
    int width = 0, height = 0;
    std::size_t colours = 0;
};
ImageSummary summarize_png(const std::filesystem::path& png);

}  // namespace llmfs
