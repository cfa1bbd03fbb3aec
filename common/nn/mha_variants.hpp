// The bonus notebook "Comparing Efficient Multi-Head Attention Implementations"
// (ch03/02_bonus_efficient-multihead-attention/mha-implementations.ipynb): the same causal
// multi-head attention written several ways. Chapter 3's wrapper and class and the combined-QKV
// variant are in attention.hpp; here are the others that mean something on a CPU, each as small
// as the notebook's class. All run as the notebook runs them: dropout 0.0, no bias in the
// projections of queries, keys and values. mha_variants_test.cpp copies one set of weights into
// all of them and checks chapter 3's output (the notebook's tolerance, atol 1e-5).
//
// Not here: FlexAttention (9: PyTorch >= 2.5 on CUDA only) and torch.compile (11.4: a CUDA timing);
// PyTorch's FlashAttention kernel behind scaled_dot_product_attention is CUDA-only too, so on a
// CPU variants 5 and 6 run its "math" path, which is what sdpa_math does.
#pragma once

#include <cstddef>

#include "llmfs/nn/attention.hpp"

namespace llmfs {

// 4) MHAEinsum: the projections as raw [d_in, d_out] parameters (the transpose of a Linear's
// weight) applied by torch.einsum; the scores are scaled before masking.
struct MHAEinsum {
    std::size_t d_out, num_heads, head_dim;
    Tensor<2> W_query, W_key, W_value;  // [d_in, d_out] each: nn.Parameter(torch.randn(d_in, d_out)), then kaiming
    Linear out_proj;                    // d_out -> d_out, with bias
    BoolArray<2> mask;                  // [context_length, context_length], true above the diagonal

    MHAEinsum(Generator& gen, std::size_t d_in, std::size_t d_out, std::size_t context_length, std::size_t num_heads);
    Tensor<3> forward(const Tensor<3>& x) const;  // x [B, T, d_in] -> [B, T, d_out]
};

// F.scaled_dot_product_attention's math path (the CPU's): q and k each scaled by the square root of
// 1/sqrt(hs), q @ k^T, the mask added as 0 / -inf, softmax, @ v. attend [T, T]: true where a query
// may see a key (SDPA's convention for a boolean mask, the opposite of masked_fill's).
// queries, keys, values [B, NH, T, hs] -> [B, NH, T, hs]
Tensor<4> sdpa_math(const Tensor<4>& queries, const Tensor<4>& keys, const Tensor<4>& values, const BoolArray<2>& attend);

// 5) MHAPyTorchScaledDotProduct and 6) MHAPyTorchSDPAWithoutFlash: combined QKV weights, then SDPA,
// either with is_causal=True (SDPA builds the lower-triangular mask itself) or with an explicit
// boolean mask (which rules out FlashAttention on a GPU). The explicit mask is passed inverted,
// ~mask: the book's notebook (as of commit 28c65cd) passes its masked_fill-style mask as is, which
// SDPA reads the other way round (every query attends to the later keys only); fixed upstream by
// rasbt/LLMs-from-scratch PR #1062 ("Fix causal mask in SDPA attention").
struct MHAPyTorchSDPA {
    enum class Mask { is_causal, explicit_mask };
    std::size_t d_out, num_heads, head_dim;
    Mask mask_kind;
    Linear qkv;         // d_in -> 3 * d_out: rows [W_query; W_key; W_value]
    Linear proj;        // d_out -> d_out, with bias
    BoolArray<2> mask;  // [context_length, context_length] (explicit_mask): true above the diagonal

    MHAPyTorchSDPA(Generator& gen, std::size_t d_in, std::size_t d_out, std::size_t num_heads, std::size_t context_length,
                   Mask mask_kind);
    Tensor<3> forward(const Tensor<3>& x) const;  // x [B, T, d_in] -> [B, T, d_out]
};

// 8) MHAPyTorchClass with need_weights=False: nn.MultiheadAttention's layout (one in_proj_weight
// for queries, keys and values, and its own out_proj, without bias as bias=qkv_bias=False), then
// the notebook class's proj: two output projections in a row. With need_weights=False PyTorch 2.x
// runs scaled_dot_product_attention inside; the mask is the class's boolean one, true = not allowed.
struct MHAPyTorchClass {
    std::size_t d_out, num_heads, head_dim;
    Tensor<2> in_proj_weight;  // [3 * d_out, d_in]: [W_q; W_k; W_v] (xavier_uniform_)
    Linear out_proj;           // multihead_attn.out_proj: d_out -> d_out, no bias
    Linear proj;               // the notebook class's own projection: d_out -> d_out, with bias
    BoolArray<2> mask;         // [context_length, context_length], true above the diagonal

    MHAPyTorchClass(Generator& gen, std::size_t d_in, std::size_t d_out, std::size_t num_heads, std::size_t context_length);
    Tensor<3> forward(const Tensor<3>& x) const;  // x [B, T, d_in] -> [B, T, d_out]
};

}  // namespace llmfs
