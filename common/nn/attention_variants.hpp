// The attention layers of the book's chapter-4 bonus folders, each a GPT attention with its own
// KV cache (the scripts run one sequence, batch 1, so x is [T, C] here):
//
//   MultiHeadAttentionKV    04_gqa/gpt_with_kv_mha.py MultiHeadAttention, and with a window
//                           06_swa/gpt_with_kv_swa.py MultiHeadAttentionWithSWA
//   GroupedQueryAttention   04_gqa/gpt_with_kv_gqa.py: NH query heads share G key/value heads
//   MultiHeadLatentAttention 05_mla/gpt_with_kv_mla.py: caches one latent per token, from which
//                           every call recomputes all keys and values (a decode step by default
//                           in the absorbed form, forward_absorbed: the same attention, cheaper)
//
// Dimension letters: T tokens in this call, Tk keys attended, C = d_out, NH heads, hs = C / NH
// head size, G key/value heads (GQA), L latent size (MLA). Parameters are drawn in the order each
// script's __init__ creates them. Dropout is 0 in these scripts and left out.
//
// All three share attend(): the scaled, masked softmax attention of
//     attn_scores = queries @ keys.transpose(2, 3)
//     attn_scores.masked_fill_(mask_bool, -torch.inf)       # causal (+ sliding window) by absolute positions
//     attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
//     context_vec = (attn_weights @ values).transpose(1, 2)
// computed with the fast kernels (kernels.hpp): the generation tests require the script's tokens.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "llmfs/nn/layers.hpp"

namespace llmfs {

// Keys or values as attend() reads them, head-major: key/value head g's row t (hs floats) starts at
// data + g * head_stride + t * hs. Head-major only, so that every caller's products are the same BLAS
// calls with the same arguments (a row's leading dimension among them): OpenBLAS's AVX-512 kernels
// round a product with another leading dimension differently, so token-major rows are copied
// head-major first (attend's second form) rather than read in place.
struct HeadRows {
    const float* data;
    std::size_t head_stride;
};

// The attention every variant computes, per query head h on key/value head h / (NH / G):
// q [T, NH * hs] at absolute positions q_start.., k and v Tk rows of G heads at k_start..; a query
// at position p sees keys at p - window + 1 .. p (window: none = all earlier keys). -> [T, NH * hs]
std::vector<float> attend(const float* q, HeadRows k, HeadRows v, std::size_t T, std::size_t Tk, std::size_t NH,
                          std::size_t G, std::size_t hs, std::int64_t q_start, std::int64_t k_start,
                          std::optional<std::int64_t> window);
// The same with k and v token-major, [Tk, G * hs]: copied head-major (HeadMajorCache), then the above.
std::vector<float> attend(const float* q, const float* k, const float* v, std::size_t T, std::size_t Tk, std::size_t NH,
                          std::size_t G, std::size_t hs, std::int64_t q_start, std::int64_t k_start,
                          std::optional<std::int64_t> window);

// A layer's cached keys (or values), head-major as chapter 4's KVCache: G heads of [capacity, hs],
// positions start .. start + size() of each holding the script's self.cache_k[:, :, g] (which it
// keeps token-major, [T_cached, G * hs]: the same numbers). Each head then reads one stream of
// rows, where token-major it would read hs floats out of every G * hs.
class HeadMajorCache {
public:
    HeadMajorCache(std::size_t heads, std::size_t head_dim) : G(heads), hs(head_dim) {}
    void reserve(std::size_t tokens);                    // room for this many, so that appending does not move it
    void append(const float* rows, std::size_t T);       // rows [T, G * hs]: torch.cat([cache, rows], dim=1)
    void keep_last(std::size_t n);                       // cache[:, -n:] (n <= size())
    void clear() { start = size_ = 0; }
    std::size_t size() const { return size_; }          // T_cached
    std::size_t bytes() const { return size_ * G * hs * sizeof(float); }
    // the cached rows from position `from` on (0: the oldest), for attend()
    HeadRows rows(std::size_t from = 0) const { return {data.data() + (start + from) * hs, capacity * hs}; }

private:
    void move_to(std::size_t new_capacity);  // the rows to positions 0 .. size() of a new buffer
    std::size_t G, hs;              // heads, head size
    std::size_t capacity = 0, start = 0, size_ = 0;
    std::vector<float> data;        // [G, capacity, hs]
};

// A layer of attention with its KV cache, as the bonus scripts' GPTModel calls it.
class KVAttention {
public:
    virtual ~KVAttention() = default;
    // forward(x, use_cache): x [T, C] -> [T, C]. With use_cache the T tokens follow the cached
    // ones; without, they are the whole sequence (positions from 0) and the cache is not used.
    virtual Array<2> forward(const Array<2>& x, bool use_cache) = 0;
    virtual void reset_cache() = 0;
    // Room for this many tokens, so that the cache does not move while it grows (no PyTorch line).
    virtual void reserve(std::size_t tokens) = 0;
    // Bytes the cache holds now (float32): what memory_estimator_*.py predicts.
    virtual std::size_t cache_bytes() const = 0;
    virtual std::size_t num_parameters() const = 0;
};

// MultiHeadAttention (sliding_window_size none) / MultiHeadAttentionWithSWA
class MultiHeadAttentionKV : public KVAttention {
public:
    std::size_t d_out, num_heads, head_dim;            // C, NH, hs
    std::optional<std::int64_t> sliding_window_size;   // W: a query sees its last W positions
    Linear W_query, W_key, W_value;                    // C -> C, bias qkv_bias
    Linear out_proj;                                   // C -> C, with bias

    MultiHeadAttentionKV(Generator& gen, std::size_t d_in, std::size_t d_out, std::size_t num_heads, bool qkv_bias,
                         std::optional<std::int64_t> sliding_window_size = std::nullopt);
    Array<2> forward(const Array<2>& x, bool use_cache) override;
    void reset_cache() override;
    void reserve(std::size_t tokens) override;
    std::size_t cache_bytes() const override { return cache_k.bytes() + cache_v.bytes(); }
    std::size_t num_parameters() const override {
        return W_query.num_parameters() + W_key.num_parameters() + W_value.num_parameters() + out_proj.num_parameters();
    }

private:
    HeadMajorCache cache_k, cache_v;      // [NH, T_cached, hs]: self.cache_k, self.cache_v
    std::int64_t ptr_current_pos = 0;     // absolute position of the next token
};

// GroupedQueryAttention: W_key and W_value project to G = num_kv_groups heads only.
class GroupedQueryAttention : public KVAttention {
public:
    std::size_t d_out, num_heads, num_kv_groups, head_dim, group_size;  // C, NH, G, hs, NH / G
    Linear W_key, W_value;  // C -> G * hs, created first
    Linear W_query;         // C -> C
    Linear out_proj;        // C -> C, no bias

    // Throws PythonError as the script asserts: "num_heads must be divisible by num_kv_groups".
    GroupedQueryAttention(Generator& gen, std::size_t d_in, std::size_t d_out, std::size_t num_heads,
                          std::size_t num_kv_groups, bool qkv_bias);
    Array<2> forward(const Array<2>& x, bool use_cache) override;
    void reset_cache() override;
    void reserve(std::size_t tokens) override {
        cache_k.reserve(tokens);
        cache_v.reserve(tokens);
    }
    std::size_t cache_bytes() const override { return cache_k.bytes() + cache_v.bytes(); }
    std::size_t num_parameters() const override {
        return W_key.num_parameters() + W_value.num_parameters() + W_query.num_parameters() + out_proj.num_parameters();
    }

private:
    HeadMajorCache cache_k, cache_v;  // [G, T_cached, hs]
    std::int64_t ptr_current_pos = 0;
};

// MultiHeadLatentAttention: the cache holds c_kv = W_DKV(x) [T_cached, L]; keys and values of
// every cached token are W_UK(c_kv), W_UV(c_kv), recomputed at each call.
class MultiHeadLatentAttention : public KVAttention {
public:
    std::size_t d_out, num_heads, head_dim, latent_dim;  // C, NH, hs, L
    Linear W_query;        // C -> C, bias qkv_bias
    Linear W_DKV;          // C -> L, down-projection to the latent, bias qkv_bias
    Linear W_UK, W_UV;     // L -> C, up-projections to keys and values, bias qkv_bias
    Linear out_proj;       // C -> C, with bias
    // Decode steps (one token after the cache) in the absorbed form (forward_absorbed) rather than
    // the script's; the generation tests prove the tokens the same. false: always the script's form.
    bool absorbed_decode = true;

    MultiHeadLatentAttention(Generator& gen, std::size_t d_in, std::size_t d_out, std::size_t num_heads,
                             std::size_t latent_dim, bool qkv_bias);
    Array<2> forward(const Array<2>& x, bool use_cache) override;
    // One new token x [1, C] after the cache, with the up-projections absorbed into the query and the
    // context (DeepSeek-V2's inference form) instead of recomputing every cached key and value. Per
    // head h, with W_UK_h = W_UK.weight[h*hs:(h+1)*hs, :] [hs, L] and c_t the cached latents [Tk, L]:
    //   q_h . (W_UK_h c_t + b_UK_h) = (W_UK_h^T q_h) . c_t + q_h . b_UK_h           scores [Tk]
    //   sum_t a_t (W_UV_h c_t + b_UV_h) = W_UV_h (sum_t a_t c_t) + b_UV_h             context [hs]
    // about 2 NH (hs + Tk) L multiply-adds where the script's form takes 2 Tk C L. The same attention
    // as forward's in another float order: its last bits differ. Appends to the cache as forward does.
    Array<2> forward_absorbed(const Array<2>& x);
    void reset_cache() override;
    void reserve(std::size_t tokens) override { cache_c_kv.reserve(tokens * latent_dim); }
    std::size_t cache_bytes() const override { return cache_c_kv.size() * sizeof(float); }
    std::size_t num_parameters() const override {
        return W_query.num_parameters() + W_DKV.num_parameters() + W_UK.num_parameters() + W_UV.num_parameters() +
               out_proj.num_parameters();
    }

private:
    std::vector<float> cache_c_kv;  // [T_cached, L]
    std::int64_t ptr_current_pos = 0;
};

}  // namespace llmfs
