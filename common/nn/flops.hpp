// Counting a GPT's work without running it: the first cell of the book's bonus
// ch04/02_performance-analysis/flops-analysis.ipynb, which calls thop's profile() on GPTModel.
//
// What thop 0.1.1 (the notebook's "0.1.1-2209072238": Lyken17/pytorch-OpCounter at 43c064a) counts:
// it hooks only modules whose *exact* type is in its table (thop/profile.py register_hooks), and
// sums their own counts over the module tree (dfs_count). For the book's GPTModel:
//   - nn.Linear (W_query, W_key, W_value, out_proj, ff.layers[0] and [2], out_head):
//     in_features * output.numel() multiply-adds (count_linear; the bias is not counted);
//   - nn.Dropout, nn.Sequential: registered, zero;
//   - nn.Embedding, the book's own LayerNorm and GELU, MultiHeadAttention, TransformerBlock,
//     FeedForward, GPTModel: not in the table, so nothing for their own code (their nn.Linear
//     children still count);
//   - functional code (the attention matmuls, softmax, masked_fill_, the residual adds): not modules,
//     never seen.
// So MACs = B*T*(12*L*C^2 + C*V) for B sequences of T tokens, and the notebook prints
// FLOPs = 2 * MACs ("MACS are typically counted as two FLOPS").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "llmfs/nn/gpt.hpp"

namespace llmfs {

// One nn.Linear of GPTModel(cfg), by its PyTorch name (model.named_modules()).
struct LinearShape {
    std::string name;  // e.g. "trf_blocks.0.att.W_query"
    std::size_t in_features = 0, out_features = 0;
    bool bias = false;
};

// GPTModel(cfg)'s nn.Linear modules in model.modules() order, from the configuration alone (so the
// four GPT-2 sizes need not be built; flops_test.cpp checks the list against a built model).
std::vector<LinearShape> linear_shapes(const GPTConfig& cfg);

// macs, params = thop.profile(model, inputs=(x,)) for x [batch, tokens]: the macs, summed in
// float64 as thop does (exact below 2^53).
double thop_macs(const GPTConfig& cfg, std::size_t batch, std::size_t tokens);

}  // namespace llmfs
