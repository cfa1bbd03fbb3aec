// Chapter 3's MultiHeadAttention in eval mode through the fast kernels (llmfs-bench mha's fast
// path). Chapter programs never print what it computes; fast_multihead_attention_test.cpp proves it
// equal to the class within float rounding.
#pragma once

#include <optional>

#include "llmfs/nn/attention.hpp"

namespace llmfs {

// MultiHeadAttention::forward in eval mode (no dropout) with the fast kernels: one GEMM for the
// three projections (W_query, W_key, W_value stacked), causal_attention_head per (batch, head)
// straight on that GEMM's output, heads on for_each_head, then out_proj.
struct FastMultiHeadAttention {
    const MultiHeadAttention& mha;
    Array<2> w_qkv;                 // [3 * d_out, d_in]
    std::optional<Array<1>> b_qkv;  // [3 * d_out]
    explicit FastMultiHeadAttention(const MultiHeadAttention& mha);
    Array<3> forward(const Array<3>& x) const;  // x [B, T, d_in] -> [B, T, d_out]
};

}  // namespace llmfs
