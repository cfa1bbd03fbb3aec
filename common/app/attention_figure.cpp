#include "llmfs/app/attention_figure.hpp"

#include <iostream>
#include <stdexcept>
#include <system_error>

#include <CLI/CLI.hpp>

#include "llmfs/torch/ops.hpp"

namespace llmfs {

const std::vector<std::string>& your_journey_tokens() {
    static const std::vector<std::string> tokens = {"Your", "journey", "starts", "with", "one", "step"};
    return tokens;
}

Heatmap attention_heatmap(const std::string& title, const Tensor<2>& weights, std::size_t first_query) {
    const std::size_t rows = weights.size(0), cols = weights.size(1);
    const auto& tokens = your_journey_tokens();
    if (cols > tokens.size() || first_query + rows > tokens.size())
        throw ShapeError("attention_heatmap: weights [" + std::to_string(rows) + ", " + std::to_string(cols) +
                         "] from query " + std::to_string(first_query) + " for " + std::to_string(tokens.size()) + " tokens");
    Heatmap map;
    map.title = title;
    map.rows = rows;
    map.cols = cols;
    map.values.assign(weights.data.begin(), weights.data.end());
    map.row_labels.assign(tokens.begin() + static_cast<std::ptrdiff_t>(first_query),
                          tokens.begin() + static_cast<std::ptrdiff_t>(first_query + rows));
    map.col_labels.assign(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(cols));
    return map;
}

void AttentionFigures::add_option(CLI::App& app) {
    app.add_option("--figure", dir_,
                   "also draw the attention weights this program computes as PNG heatmaps into this folder "
                   "(created if missing)");
}

void AttentionFigures::write(const std::string& file_name, const std::vector<Heatmap>& panels) const {
    if (dir_.empty()) return;
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) throw std::runtime_error("cannot create the figure folder " + dir_.string() + ": " + ec.message());
    const std::filesystem::path png = dir_ / file_name;
    plot_heatmaps(png, panels);
    std::cerr << "attention figure written to " << png.string() << "\n";
}

}  // namespace llmfs
