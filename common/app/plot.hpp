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

}  // namespace llmfs
