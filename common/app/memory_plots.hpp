// The figures of the book's chapter-4 bonus folders (plot_memory_estimates_{gqa,mla,swa,moe}.py
// and 08_deltanet/plot_memory_estimates_gated_deltanet.py): the same curves, labels and titles,
// computed as each script computes them (its own formulas where it has them, the estimators'
// where it imports them), for plot_lines (plot.hpp).
#pragma once

#include <cstdint>
#include <string>

#include "llmfs/app/plot.hpp"

namespace llmfs {

// 04_gqa: KV cache vs context length (256 .. 131072) for MHA and GQA with 4, 8, 12, 24 heads per
// K/V head: n_heads 24, emb_dim 2048, 48 layers, batch 1, bf16; values rounded to 0.01 GB.
LineChart gqa_memory_chart();
// 05_mla: MHA and MLA with latent sizes 1024, 512, 256, 64, same model.
LineChart mla_memory_chart();

struct SwaPlotArgs {
    std::int64_t emb_dim = 0, n_heads = 0, n_layers = 0, batch_size = 1;
    std::string dtype = "bf16";
    std::int64_t sliding_window_size = 0;
    std::string swa_ratio = "5:1";
};
// 06_swa: MHA, GQA (4 heads per K/V head, when n_heads allows) and both with SWA layers in the
// ratio a:b (round(n_layers * a / (a + b)) of them, window W even past the context length).
// skipped: set to the script's note when GQA is left out.
LineChart swa_memory_chart(const SwaPlotArgs& args, std::string* skipped = nullptr);

struct MoEPlotArgs {
    std::int64_t emb_dim = 0, hidden_dim = 0;
    std::string ffn_type = "swiglu";
    std::int64_t top_k = 2, max_experts = 512;
    bool log_y = true, match_dense = true;
};
// 07_moe: active and total parameters per token for 1 .. 512 experts, the dense FFN as a line.
LineChart moe_params_chart(const MoEPlotArgs& args);

struct DeltaNetPlotArgs {
    std::int64_t batch = 1, emb_dim = 2048, n_heads = 16, n_layers = 48;
    std::string dtype = "bf16";
    std::int64_t min_ctx = 128, max_ctx = 131072;
};
// 08_deltanet: the KV cache of full attention against Gated DeltaNet's constant state, and a 3:1 mix.
LineChart deltanet_memory_chart(const DeltaNetPlotArgs& args);

}  // namespace llmfs
