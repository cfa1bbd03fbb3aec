// Chapter 3's MultiHeadAttention (the book's GPT's attention) forward in training mode, keeping
// what its backward needs, and the backward, as autograd computes them on a CPU. Letters: B batch,
// T tokens, C = d_out channels, NH heads, hs = C / NH head size.
//
// Forward (the book's lines; the bits of MultiHeadAttention::forward):
//   keys, queries, values = W_key(x), W_query(x), W_value(x)          -> [B, NH, T, hs] each
//   attn_scores = queries @ keys.transpose(2, 3)                       [B, NH, T, T]
//   attn_scores.masked_fill_(mask_bool, -torch.inf)
//   attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)      y, kept
//   attn_weights = self.dropout(attn_weights)                          y * noise, the noise kept
//   context_vec = (attn_weights @ values).transpose(1, 2).reshape(b, T, C)       kept
//   out_proj(context_vec)
// Backward, nodes in reverse creation order:
//   out_proj (linear_backward); BmmBackward0 of attn_weights @ values: dA = dC @ V^T, dV = A^T @ dC;
//   dropout's MulBackward0: dA * noise; SoftmaxBackward0: (g - dot) * y with dot = sum(g * y) in
//   8 lanes, the first product rounded then fused multiply-adds, PyTorch's reduction tree;
//   DivBackward0: / float(sqrt(hs)); MaskedFillBackward0: masked entries 0; BmmBackward0 of
//   queries @ K^T: dQ = dS @ K, dK^T = Q^T @ dS; W_value, W_query, W_key (reverse creation), x's
//   gradient (dV's + dQ's) + dK's. Each bmm per (batch, head) as PyTorch's: a plain loop below
//   400 multiply-adds a matrix, else OpenBLAS with PyTorch's arguments (docs/pytorch-cpu-training.md).
#pragma once

#include <cstddef>
#include <vector>

#include "llmfs/nn/attention.hpp"

namespace llmfs {

struct AttentionSaved {
    std::size_t B = 0, T = 0, NH = 0, hs = 0;
    std::vector<float> x;        // [B*T, C] the input
    std::vector<float> q, k, v;  // [B, NH, T, hs] each, contiguous
    std::vector<float> y;        // [B, NH, T, T] softmax's output
    std::vector<float> noise;    // [B, NH, T, T] dropout's mask; empty without dropout
    std::vector<float> a;        // [B, NH, T, T] the weights after dropout (y when none)
    std::vector<float> ctx;      // [B*T, C] out_proj's input
};

struct LinearGrads {
    std::vector<float> weight, bias;  // [O, C], [O] (empty without a bias, or for a LoRA layer: frozen)
    std::vector<float> lora_A, lora_B;  // [C, r], [r, O]: a LinearWithLoRA's only gradients (else empty)
};

// layer's backward (linear_backward) for its input x [N, C] and output gradient dy [N, O]: dx
// [N, C] set (or nullptr), g's weight and bias set.
// A layer with a LoRA adapter (appendix E: every other parameter frozen before the adapters are
// added) gets only the adapter's gradients, as autograd runs LinearWithLoRA's nodes, the adapter's
// first (they were created last):
//   MulBackward0 (alpha / rank *)   gs = dy * scale
//   MmBackward0 (t @ B)             dB = t^T @ gs     sgemm('N','T', O, r, N, 1, gs, O, t, r, 0, dB, O)
//                                   dt = gs @ B^T     sgemm('T','N', r, N, O, 1, B, O, gs, O, 0, dt, r)
//   MmBackward0 (x @ A)             dA = x^T @ dt     sgemm('N','T', r, C, N, 1, dt, r, x, C, 0, dA, r)
//                                   x gets dt @ A^T   sgemm('T','N', C, N, r, 1, A, r, dt, r, 0, ., C)
//   the frozen linear               x gets dy @ W     (linear_backward's dx)
// with t = x @ A recomputed as the forward computed it; dx = the adapter's + the linear's.
void linear_layer_backward(const Linear& layer, const float* x, const float* dy, std::size_t N, float* dx, LinearGrads& g);
// The same, x's gradients added onto dx in their arrival order: dx = (dx + the adapter's) + the
// linear's (without an adapter: dx + the linear's). For an input used by several layers.
void linear_layer_backward_add(const Linear& layer, const float* x, const float* dy, std::size_t N, float* dx, LinearGrads& g);

struct AttentionGrads {
    LinearGrads W_query, W_key, W_value, out_proj;
};

// mha's forward on x [B, T, C] (dropout as mha.dropout is set: training mode draws its mask from
// its generator), filling `saved`. -> [B, T, C], the bits of mha.forward(x).
Tensor<3> attention_forward(const MultiHeadAttention& mha, const Tensor<3>& x, AttentionSaved& saved);

// dy [B*T, C] -> dx [B*T, d_in] (set) and every parameter's gradient (set). dx nullptr: x needs no
// gradient (appendix E's first block, its input frozen): the products for it are skipped.
void attention_backward(const MultiHeadAttention& mha, const AttentionSaved& saved, const float* dy, float* dx, AttentionGrads& grads);

// The fast versions: the same float operations, so the same bits (gpt_backward_test compares them
// with the ones above). Each head's elementwise work (copies, transposes, softmax and its backward,
// dropout) runs on compute_pool(), the heads side by side; the products stay one after the other on
// OpenBLAS's own threads, as PyTorch calls them (under Haswell's kernel a product's bits depend on
// its thread count). The forward's softmax is causal_softmax_row (fast/kernels.hpp: the teaching
// masked_fill, divide and softmax's bits); buffers are saved's own or kept by the calling thread,
// reused from call to call. x [B*T, d_in] -> out [B*T, C].
void attention_forward_fast(const MultiHeadAttention& mha, const float* x, std::size_t B, std::size_t T, AttentionSaved& saved, float* out);
void attention_backward_fast(const MultiHeadAttention& mha, const AttentionSaved& saved, const float* dy, float* dx, AttentionGrads& grads);

// layer(x) on rows x [rows, in] -> y [rows, out]: Linear::operator()'s bits (the bias copied into y,
// then one sgemm adding the product onto it).
void linear_forward(const Linear& layer, const float* x, std::size_t rows, float* y);

}  // namespace llmfs
