#include "llmfs/nn/flops.hpp"

namespace llmfs {

std::vector<LinearShape> linear_shapes(const GPTConfig& cfg) {
    const std::size_t C = cfg.emb_dim;
    std::vector<LinearShape> out;
    for (std::size_t b = 0; b < cfg.n_layers; ++b) {
        const std::string block = "trf_blocks." + std::to_string(b) + ".";
        // MultiHeadAttention.__init__: W_query, W_key, W_value (qkv_bias), out_proj (bias)
        for (const char* name : {"att.W_query", "att.W_key", "att.W_value"}) out.push_back({block + name, C, C, cfg.qkv_bias});
        out.push_back({block + "att.out_proj", C, C, true});
        // FeedForward.layers = nn.Sequential(nn.Linear(C, 4C), GELU(), nn.Linear(4C, C))
        out.push_back({block + "ff.layers.0", C, 4 * C, true});
        out.push_back({block + "ff.layers.2", 4 * C, C, true});
    }
    out.push_back({"out_head", C, cfg.vocab_size, false});  // nn.Linear(C, V, bias=False)
    return out;
}

double thop_macs(const GPTConfig& cfg, std::size_t batch, std::size_t tokens) {
    double macs = 0;  // thop's total_ops buffers are float64
    for (const LinearShape& linear : linear_shapes(cfg))
        // count_linear: m.in_features * y.numel(), y = [batch, tokens, out_features]
        macs += static_cast<double>(linear.in_features) * static_cast<double>(batch * tokens * linear.out_features);
    return macs;
}

}  // namespace llmfs
