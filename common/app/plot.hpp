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

// Panels side by side sharing x (plt.subplot(1, n, i) with plt.plot(x, y), a grid, "x" below),
// each width_px x height_px. Throws std::runtime_error naming the path if it cannot be written.
void plot_panels(const std::filesystem::path& png, const std::vector<float>& x, const std::vector<Panel>& panels,
                 int width_px = 400, int height_px = 300);

}  // namespace llmfs
