// Chapter 3's attention classes, in the order the chapter builds them. Each mirrors the
// notebook's nn.Module: parameters are drawn in __init__ order from the generator passed in.
#pragma once

#include <cstddef>
#include <vector>

#include "llmfs/nn/layers.hpp"

namespace llmfs {

// The running example of 3.3: embeddings of "Your journey starts with one step".  [6, 3]
Tensor<2> your_journey_inputs();

// 3.4.2: trainable weights as raw parameters, W ~ torch.rand(d_in, d_out)
struct SelfAttention_v1 {
    Tensor<2> W_query, W_key, W_value;  // [d_in, d_out] each
    SelfAttention_v1(Generator& gen, std::size_t d_in, std::size_t d_out);
    Tensor<2> forward(const Tensor<2>& x) const;  // x [T, d_in] -> [T, d_out]
};

// 3.4.2: the same with nn.Linear projections
struct SelfAttention_v2 {
    Linear W_query, W_key, W_value;  // d_in -> d_out each
    SelfAttention_v2(Generator& gen, std::size_t d_in, std::size_t d_out, bool qkv_bias = false);
    Tensor<2> forward(const Tensor<2>& x) const;  // x [T, d_in] -> [T, d_out]
};

// 3.5.1: the causal attention weights of `sa`'s queries and keys: scores masked with -inf above
// the diagonal, then the scaled softmax.  x [T, d_in] -> [T, T]
Tensor<2> causal_attention_weights(const SelfAttention_v2& sa, const Tensor<2>& x);

// 3.5.3: causal mask and dropout on the attention weights, batched input
struct CausalAttention {
    std::size_t d_out;
    Linear W_query, W_key, W_value;  // d_in -> d_out each
    Dropout dropout;
    BoolArray<2> mask;  // [context_length, context_length], true above the diagonal

    CausalAttention(Generator& gen, std::size_t d_in, std::size_t d_out, std::size_t context_length,
                    double dropout, bool qkv_bias = false);
    Tensor<3> forward(const Tensor<3>& x) const;  // x [B, T, d_in] -> [B, T, d_out]
    // The same, also handing out the attention weights [B, T, T] it used (after dropout).
    Tensor<3> forward(const Tensor<3>& x, Tensor<3>& attn_weights) const;
};

// CausalAttention.forward's body for any projections and mask [>= T, >= T] (true = masked): the
// buffers notebook's classes (buffers.hpp) run it with their float mask's .bool().
// attn_weights_out, if given, receives the weights [B, T, T] (after dropout).
Tensor<3> causal_attention_forward(const Linear& W_query, const Linear& W_key, const Linear& W_value, const Dropout& dropout,
                                   const BoolArray<2>& mask, const Tensor<3>& x, Tensor<3>* attn_weights_out = nullptr);

// 3.6.1: several CausalAttention heads, outputs concatenated
struct MultiHeadAttentionWrapper {
    std::vector<CausalAttention> heads;
    MultiHeadAttentionWrapper(Generator& gen, std::size_t d_in, std::size_t d_out, std::size_t context_length,
                              double dropout, std::size_t num_heads, bool qkv_bias = false);
    Tensor<3> forward(const Tensor<3>& x) const;  // x [B, T, d_in] -> [B, T, NH * d_out]
};

// The core of the multi-head classes, per head: softmax((Q K^T).masked_fill(mask, -inf) / sqrt(hs))
// with dropout, then @ V.  queries, keys, values [B, NH, T, hs] -> [B, NH, T, hs]
// attn_weights_out, if given, receives the weights [B, NH, T, T] (after dropout).
Tensor<4> causal_attention(const Tensor<4>& queries, const Tensor<4>& keys, const Tensor<4>& values,
                           const BoolArray<2>& mask, const Dropout& dropout, Tensor<4>* attn_weights_out = nullptr);

// 3.6.2: one set of projections split into heads, then an output projection
struct MultiHeadAttention {
    std::size_t d_out, num_heads, head_dim;  // d_out = NH * hs
    Linear W_query, W_key, W_value;          // d_in -> d_out each
    Linear out_proj;                         // d_out -> d_out, with bias
    Dropout dropout;
    BoolArray<2> mask;  // [context_length, context_length]
    bool causal = true;  // false: the ch06 bonus script's disable_causal_mask (mask all false: nothing masked)

    MultiHeadAttention(Generator& gen, std::size_t d_in, std::size_t d_out, std::size_t context_length,
                       double dropout, std::size_t num_heads, bool qkv_bias = false, Init init = Init::draw);
    // MultiHeadAttention(..., disable_causal_mask=True) of additional_experiments.py's
    // previous_chapters.py: every token attends to every token.
    void disable_causal_mask();
    Tensor<3> forward(const Tensor<3>& x) const;  // x [B, T, d_in] -> [B, T, d_out]
    // The same, also handing out each head's attention weights [B, NH, T, T] (after dropout).
    Tensor<3> forward(const Tensor<3>& x, Tensor<4>& attn_weights) const;
    void train(bool on) { dropout.train(on); }
    std::size_t num_parameters() const;
};

// The bonus notebook "Comparing Efficient Multi-Head Attention Implementations"
// (ch03/02_bonus_efficient-multihead-attention): queries, keys and values from one Linear.
struct MultiHeadAttentionCombinedQKV {
    std::size_t d_out, num_heads, head_dim;
    Linear qkv;   // d_in -> 3 * d_out
    Linear proj;  // d_out -> d_out, with bias
    Dropout dropout;
    BoolArray<2> mask;  // [context_length, context_length]

    MultiHeadAttentionCombinedQKV(Generator& gen, std::size_t d_in, std::size_t d_out, std::size_t num_heads,
                                  std::size_t context_length, double dropout = 0.0, bool qkv_bias = false);
    Tensor<3> forward(const Tensor<3>& x) const;  // x [B, T, d_in] -> [B, T, d_out]
    void train(bool on) { dropout.train(on); }
};

}  // namespace llmfs
