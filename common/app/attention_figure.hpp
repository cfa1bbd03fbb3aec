// --figure DIR on the chapter-3 programs (beyond the book): the attention weights each program
// computes, drawn as heatmaps with the tokens of "Your journey starts with one step" on both axes
// and the value in each cell, so that the causal mask's triangle is seen rather than read. Nothing
// is drawn unless --figure is given; the printed output is the same either way.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "llmfs/app/cli.hpp"
#include "llmfs/app/plot.hpp"
#include "llmfs/torch/tensor.hpp"

namespace llmfs {

// The six tokens of the running example, for the axes.
const std::vector<std::string>& your_journey_tokens();

// weights [rows, T] as a heatmap: columns are the keys (tokens 0 .. T-1), rows the queries
// first_query, first_query + 1, ... (a single row for 3.3.1's attn_weights_2, query "journey").
Heatmap attention_heatmap(const std::string& title, const Tensor<2>& weights, std::size_t first_query = 0);

class AttentionFigures {
public:
    void add_option(CLI::App& app);  // --figure DIR
    bool wanted() const { return !dir_.empty(); }
    // Writes DIR/file_name (PNG), the heatmaps side by side, and names it on stderr. Does nothing
    // without --figure. A folder that cannot be created or written: std::runtime_error (exit 1).
    void write(const std::string& file_name, const std::vector<Heatmap>& panels) const;

private:
    std::filesystem::path dir_;
};

}  // namespace llmfs
