#include "llmfs/nn/attention_variants.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <cblas.h>

#include "llmfs/fast/kernels.hpp"
#include "llmfs/nn/memory_estimate.hpp"

namespace llmfs {

namespace {

// nn.Linear on T rows: x [T, in] -> [T, out]
std::vector<float> project(const Linear& lin, const float* x, std::size_t T) {
    std::vector<float> y(T * lin.out_features());
    lin.forward_rows(x, T, y.data());
    return y;
}

// Several nn.Linear on the same T rows x: [T, out] each; for one token, all in one pass of the pool.
template <std::size_t N>
std::array<std::vector<float>, N> project_each(const float* x, std::size_t T, const std::array<const Linear*, N>& layers) {
    std::array<std::vector<float>, N> ys;
    std::vector<std::pair<const Linear*, float*>> outputs;
    for (std::size_t i = 0; i < N; ++i) {
        ys[i].resize(T * layers[i]->out_features());
        outputs.emplace_back(layers[i], ys[i].data());
    }
    Linear::forward_rows_each(x, T, outputs);
    return ys;
}

void check_input(const Array<2>& x, std::size_t d_in, const char* layer) {
    if (x.shape()[1] != d_in)
        throw ShapeError(std::string(layer) + ": input [" + std::to_string(x.shape()[0]) + ", " + std::to_string(x.shape()[1]) +
                         "] for d_in " + std::to_string(d_in));
}

// assert d_out % num_heads == 0, "d_out must be divisible by num_heads" (before anything is drawn)
bool check_heads(std::size_t d_out, std::size_t num_heads) {
    if (num_heads == 0) throw PythonError("ZeroDivisionError: integer modulo by zero");
    if (d_out % num_heads != 0) throw PythonError("AssertionError: d_out must be divisible by num_heads");
    return true;
}

// How many of n items x[-min(n, count):] keeps in Python: the last count of them, all for a count
// of 0 (x[-0:] is the whole of x), all but the first -count for a negative one.
std::size_t python_tail(std::size_t n, std::int64_t count) {
    const std::int64_t keep = std::min<std::int64_t>(static_cast<std::int64_t>(n), count);
    if (keep > 0) return static_cast<std::size_t>(keep);
    if (keep == 0) return n;
    return n - std::min<std::size_t>(n, static_cast<std::size_t>(-keep));
}

// torch.cat([cache, new], dim=1) for MLA's latent cache, token-major [T_cached, L]
void append(std::vector<float>& cache, const std::vector<float>& rows) { cache.insert(cache.end(), rows.begin(), rows.end()); }

Array<2> to_rows(std::vector<float> data, std::size_t T, std::size_t C) {
    Array<2> out = Array<2>::from_shape({T, C});
    std::copy(data.begin(), data.end(), out.begin());
    return out;
}

}  // namespace

// ---- HeadMajorCache ----------------------------------------------------------------------------

void HeadMajorCache::reserve(std::size_t tokens) {
    if (tokens > capacity) move_to(tokens);
}

void HeadMajorCache::move_to(std::size_t new_capacity) {
    std::vector<float> moved(G * new_capacity * hs);
    for (std::size_t g = 0; g < G; ++g) {
        const float* from = data.data() + (g * capacity + start) * hs;
        std::copy(from, from + size_ * hs, moved.data() + g * new_capacity * hs);
    }
    data = std::move(moved);
    capacity = new_capacity;
    start = 0;
}

void HeadMajorCache::append(const float* rows, std::size_t T) {
    if (start + size_ + T > capacity) {
        // The positions dropped at the front are room enough: move the rows there. Otherwise twice the room.
        move_to(size_ + T <= capacity ? capacity : std::max(size_ + T, 2 * capacity));
    }
    for (std::size_t t = 0; t < T; ++t) {
        for (std::size_t g = 0; g < G; ++g) {  // rows[t, g*hs:(g+1)*hs] -> head g, position size + t
            const float* row = rows + (t * G + g) * hs;
            std::copy(row, row + hs, data.data() + (g * capacity + start + size_ + t) * hs);
        }
    }
    size_ += T;
}

void HeadMajorCache::keep_last(std::size_t n) {
    if (n > size_) throw std::logic_error("HeadMajorCache::keep_last: " + std::to_string(n) + " of " + std::to_string(size_) + " rows");
    start += size_ - n;
    size_ = n;
}

// ---- attend --------------------------------------------------------------------------------------

std::vector<float> attend(const float* q, const float* k, const float* v, std::size_t T, std::size_t Tk, std::size_t NH,
                          std::size_t G, std::size_t hs, std::int64_t q_start, std::int64_t k_start,
                          std::optional<std::int64_t> window) {
    HeadMajorCache keys(G, hs), values(G, hs);  // [G, Tk, hs] each
    keys.reserve(Tk);
    values.reserve(Tk);
    keys.append(k, Tk);
    values.append(v, Tk);
    return attend(q, keys.rows(), values.rows(), T, Tk, NH, G, hs, q_start, k_start, window);
}

std::vector<float> attend(const float* q, HeadRows k, HeadRows v, std::size_t T, std::size_t Tk, std::size_t NH,
                          std::size_t G, std::size_t hs, std::int64_t q_start, std::int64_t k_start,
                          std::optional<std::int64_t> window) {
    std::vector<float> ctx(T * NH * hs, 0.0f);  // [T, NH * hs]
    if (T == 0 || hs == 0) return ctx;
    const std::size_t group_size = NH / G, ldq = NH * hs, ldkv = hs;
    const std::int64_t offset = q_start - k_start;
    // W = num_tokens_K + 1 if self.sliding_window_size is None else int(self.sliding_window_size)
    const std::int64_t W = window ? *window : static_cast<std::int64_t>(Tk) + 1;
    // Causal over a prefix of the keys (every query sees keys 0 .. offset + i): the fast kernel.
    const bool prefix = offset >= 0 && static_cast<std::size_t>(offset) + T == Tk && offset + static_cast<std::int64_t>(T) <= W;
    const std::size_t macs = NH * T * Tk * hs;
    if (prefix) {
        for_each_head(NH, macs, [&](std::size_t h, std::vector<float>& scratch) {
            const std::size_t g = h / group_size;  // repeat_interleave: head h uses K/V group h // group_size
            causal_attention_head(q + h * hs, ldq, k.data + g * k.head_stride, v.data + g * v.head_stride, ldkv, ctx.data() + h * hs, ldq, T,
                                  static_cast<std::size_t>(offset), hs, scratch);
        });
        return ctx;
    }
    // Any other mask: whole rows of Tk scores, the masked ones -inf, as PyTorch computes them.
    const auto divisor = static_cast<float>(std::pow(static_cast<double>(hs), 0.5));  // keys.shape[-1]**0.5
    for_each_head(NH, macs, [&](std::size_t h, std::vector<float>& scratch) {
        scratch.resize(2 * Tk);
        float* scores = scratch.data();      // [Tk]
        float* weights = scores + Tk;        // [Tk]
        const std::size_t g = h / group_size;
        for (std::size_t i = 0; i < T; ++i) {
            // attn_scores = queries @ keys.transpose(2, 3): one row
            cblas_sgemv(CblasRowMajor, CblasNoTrans, static_cast<int>(Tk), static_cast<int>(hs), 1.0f, k.data + g * k.head_stride,
                        static_cast<int>(ldkv), q + i * ldq + h * hs, 1, 0.0f, scores, 1);
            for (std::size_t j = 0; j < Tk; ++j) {
                // diff = q_positions - k_positions; mask_bool = (diff < 0) | (diff >= W)
                const std::int64_t diff = (q_start + static_cast<std::int64_t>(i)) - (k_start + static_cast<std::int64_t>(j));
                if (diff < 0 || diff >= W) scores[j] = -std::numeric_limits<float>::infinity();
            }
            causal_softmax_row(scores, weights, Tk, Tk, divisor);
            // context_vec = attn_weights @ values: one row
            cblas_sgemv(CblasRowMajor, CblasTrans, static_cast<int>(Tk), static_cast<int>(hs), 1.0f, v.data + g * v.head_stride,
                        static_cast<int>(ldkv), weights, 1, 0.0f, ctx.data() + i * ldq + h * hs, 1);
        }
    });
    return ctx;
}

// ---- MultiHeadAttention / MultiHeadAttentionWithSWA ----------------------------------------------

MultiHeadAttentionKV::MultiHeadAttentionKV(Generator& gen, std::size_t d_in, std::size_t d_out_, std::size_t num_heads_,
                                           bool qkv_bias, std::optional<std::int64_t> window)
    : d_out(d_out_), num_heads(num_heads_), head_dim(num_heads_ ? d_out_ / num_heads_ : 0), sliding_window_size(window),
      W_query(gen, d_in, d_out_, qkv_bias), W_key(gen, d_in, d_out_, qkv_bias), W_value(gen, d_in, d_out_, qkv_bias),
      out_proj(gen, d_out_, d_out_), cache_k(num_heads, head_dim), cache_v(num_heads, head_dim) {
    check_heads(d_out, num_heads);
}

void MultiHeadAttentionKV::reserve(std::size_t tokens) {
    // With a window the cache holds its last W tokens and the new ones: twice W is room for a prompt
    // of W tokens, then for W steps before the rows move to the front.
    if (sliding_window_size && *sliding_window_size > 0) tokens = std::min(tokens, 2 * static_cast<std::size_t>(*sliding_window_size));
    cache_k.reserve(tokens);
    cache_v.reserve(tokens);
}

Array<2> MultiHeadAttentionKV::forward(const Array<2>& x, bool use_cache) {
    check_input(x, W_query.in_features(), "MultiHeadAttention");
    const std::size_t T = x.shape()[0], C = d_out;
    // self.W_key(x), self.W_value(x), self.W_query(x): [T, C] = [T, NH, hs] each
    auto [keys_new, values_new, queries] = project_each<3>(x.data(), T, {&W_key, &W_value, &W_query});

    std::vector<float> ctx;
    if (use_cache) {
        const std::size_t old_len = cache_k.size();
        cache_k.append(keys_new.data(), T);  // combined_k = torch.cat([old_cache_k, keys_new], dim=1)
        cache_v.append(values_new.data(), T);
        const std::size_t combined = old_len + T;
        std::size_t attn_keep = combined;
        if (sliding_window_size) {
            // attn_keep = min(keys.size(1), W + num_tokens - 1); keys = keys[:, -attn_keep:]
            attn_keep = python_tail(combined, *sliding_window_size + static_cast<std::int64_t>(T) - 1);
        }
        const std::size_t dropped = combined - attn_keep;
        // k_start_pos_abs = (self.ptr_current_pos - old_len) + dropped; q_start_pos_abs = self.ptr_current_pos
        const std::int64_t k_start = ptr_current_pos - static_cast<std::int64_t>(old_len) + static_cast<std::int64_t>(dropped);
        ctx = attend(queries.data(), cache_k.rows(dropped), cache_v.rows(dropped), T, attn_keep, num_heads, num_heads,
                     head_dim, ptr_current_pos, k_start, sliding_window_size);
        ptr_current_pos += static_cast<std::int64_t>(T);
        if (sliding_window_size) {
            // cache_keep = min(combined_k.size(1), W); self.cache_k = combined_k[:, -cache_keep:]
            const std::size_t cache_keep = python_tail(combined, *sliding_window_size);
            cache_k.keep_last(cache_keep);
            cache_v.keep_last(cache_keep);
        }
    } else {
        ctx = attend(queries.data(), keys_new.data(), values_new.data(), T, T, num_heads, num_heads, head_dim, 0, 0,
                     sliding_window_size);
        ptr_current_pos = 0;
    }
    return to_rows(project(out_proj, ctx.data(), T), T, C);  // self.out_proj(context_vec)
}

void MultiHeadAttentionKV::reset_cache() {
    cache_k.clear();
    cache_v.clear();
    ptr_current_pos = 0;
}

// ---- GroupedQueryAttention -----------------------------------------------------------------------

GroupedQueryAttention::GroupedQueryAttention(Generator& gen, std::size_t d_in, std::size_t d_out_, std::size_t num_heads_,
                                             std::size_t num_kv_groups_, bool qkv_bias)
    : d_out(d_out_), num_heads(num_heads_), num_kv_groups(num_kv_groups_),
      head_dim(num_heads_ ? d_out_ / num_heads_ : 0), group_size(num_kv_groups_ ? num_heads_ / num_kv_groups_ : 0),
      // the checks come first in the script: nothing is drawn when they fail
      W_key(!check_heads(d_out_, num_heads_) ? throw std::logic_error("unreachable")
                : num_kv_groups_ == 0 ? throw PythonError("ZeroDivisionError: integer modulo by zero")
                : num_heads_ % num_kv_groups_ != 0 ? throw PythonError("AssertionError: num_heads must be divisible by num_kv_groups")
                : gen, d_in, num_kv_groups_ * (d_out_ / num_heads_), qkv_bias),
      W_value(gen, d_in, num_kv_groups_ * head_dim, qkv_bias), W_query(gen, d_in, d_out_, qkv_bias),
      out_proj(gen, d_out_, d_out_, false), cache_k(num_kv_groups, head_dim), cache_v(num_kv_groups, head_dim) {}

Array<2> GroupedQueryAttention::forward(const Array<2>& x, bool use_cache) {
    check_input(x, W_query.in_features(), "GroupedQueryAttention");
    const std::size_t T = x.shape()[0], C = d_out, G = num_kv_groups;
    // queries [T, NH * hs], keys and values [T, G * hs]
    auto [queries, keys, values] = project_each<3>(x.data(), T, {&W_query, &W_key, &W_value});
    std::vector<float> ctx;
    if (use_cache) {
        cache_k.append(keys.data(), T);  // self.cache_k = torch.cat([self.cache_k, keys], dim=2)
        cache_v.append(values.data(), T);
        // q_positions = arange(ptr, ptr + T), k_positions = arange(T_k): the cache starts at position 0
        ctx = attend(queries.data(), cache_k.rows(), cache_v.rows(), T, cache_k.size(), num_heads, G, head_dim,
                     ptr_current_pos, 0, std::nullopt);
        ptr_current_pos += static_cast<std::int64_t>(T);
    } else {
        reset_cache();  // the uncached call also clears the cache
        ctx = attend(queries.data(), keys.data(), values.data(), T, T, num_heads, G, head_dim, 0, 0, std::nullopt);
    }
    return to_rows(project(out_proj, ctx.data(), T), T, C);
}

void GroupedQueryAttention::reset_cache() {
    cache_k.clear();
    cache_v.clear();
    ptr_current_pos = 0;
}

// ---- MultiHeadLatentAttention --------------------------------------------------------------------

MultiHeadLatentAttention::MultiHeadLatentAttention(Generator& gen, std::size_t d_in, std::size_t d_out_,
                                                   std::size_t num_heads_, std::size_t latent_dim_, bool qkv_bias)
    : d_out(d_out_), num_heads(num_heads_), head_dim(num_heads_ ? d_out_ / num_heads_ : 0), latent_dim(latent_dim_),
      W_query(!check_heads(d_out_, num_heads_) ? throw std::logic_error("unreachable") : gen, d_in, d_out_, qkv_bias),
      W_DKV(gen, d_in, latent_dim_, qkv_bias), W_UK(gen, latent_dim_, d_out_, qkv_bias), W_UV(gen, latent_dim_, d_out_, qkv_bias),
      out_proj(gen, d_out_, d_out_) {}

Array<2> MultiHeadLatentAttention::forward(const Array<2>& x, bool use_cache) {
    check_input(x, W_query.in_features(), "MultiHeadLatentAttention");
    const std::size_t T = x.shape()[0], C = d_out, L = latent_dim;
    if (use_cache && T == 1 && absorbed_decode && L > 0 && head_dim > 0) return forward_absorbed(x);
    auto [queries, latent_new] = project_each<2>(x.data(), T, {&W_query, &W_DKV});  // [T, C], [T, L]
    std::int64_t q_start = 0;
    const std::vector<float>* latent_total = &latent_new;
    if (use_cache) {
        append(cache_c_kv, latent_new);  // latent_total = torch.cat([self.cache_c_kv, latent_new], dim=1)
        latent_total = &cache_c_kv;
        q_start = ptr_current_pos;
    }
    const std::size_t Tk = L ? latent_total->size() / L : (use_cache ? static_cast<std::size_t>(ptr_current_pos) + T : T);
    // keys = self.W_UK(latent_total), values = self.W_UV(latent_total): [Tk, C], for every token, each call
    const std::vector<float> keys = project(W_UK, latent_total->data(), Tk);
    const std::vector<float> values = project(W_UV, latent_total->data(), Tk);
    const std::vector<float> ctx = attend(queries.data(), keys.data(), values.data(), T, Tk, num_heads, num_heads,
                                          head_dim, q_start, 0, std::nullopt);
    ptr_current_pos = use_cache ? ptr_current_pos + static_cast<std::int64_t>(T) : 0;
    return to_rows(project(out_proj, ctx.data(), T), T, C);
}

Array<2> MultiHeadLatentAttention::forward_absorbed(const Array<2>& x) {
    check_input(x, W_query.in_features(), "MultiHeadLatentAttention");
    if (x.shape()[0] != 1)
        throw ShapeError("MultiHeadLatentAttention::forward_absorbed: input [" + std::to_string(x.shape()[0]) + ", " +
                         std::to_string(x.shape()[1]) + "] for one token [1, " + std::to_string(x.shape()[1]) + "]");
    const std::size_t C = d_out, L = latent_dim, hs = head_dim;
    if (L == 0 || hs == 0) throw ShapeError("MultiHeadLatentAttention::forward_absorbed: latent_dim " + std::to_string(L) +
                                            " and head_dim " + std::to_string(hs) + " must not be 0 (use forward)");
    // (not a structured binding: C++17 lambdas, as the heads' below, cannot capture one; clang refuses)
    const auto projected = project_each<2>(x.data(), 1, {&W_query, &W_DKV});
    const std::vector<float>& query = projected[0];                                  // [C] = [NH, hs]
    append(cache_c_kv, projected[1]);                                                // latent_new [L]: the script's cache update
    const std::size_t Tk = cache_c_kv.size() / L;                                    // every cached token
    const float* c = cache_c_kv.data();                                              // [Tk, L]
    const auto divisor = static_cast<float>(std::pow(static_cast<double>(hs), 0.5)); // keys.shape[-1]**0.5
    std::vector<float> ctx(C, 0.0f);                                                 // [NH * hs]
    const auto L_ = static_cast<int>(L), hs_ = static_cast<int>(hs), Tk_ = static_cast<int>(Tk);
    for_each_head(num_heads, num_heads * (hs + Tk) * L, [&](std::size_t h, std::vector<float>& scratch) {
        scratch.resize(2 * L + 2 * Tk);
        float* q_lat = scratch.data();    // [L]  W_UK_h^T q_h
        float* c_bar = q_lat + L;         // [L]  sum_t a_t c_t
        float* scores = c_bar + L;        // [Tk]
        float* weights = scores + Tk;     // [Tk]
        const float* q_h = query.data() + h * hs;
        cblas_sgemv(CblasRowMajor, CblasTrans, hs_, L_, 1.0f, W_UK.weight.data.data() + h * hs * L, L_, q_h, 1, 0.0f, q_lat, 1);
        cblas_sgemv(CblasRowMajor, CblasNoTrans, Tk_, L_, 1.0f, c, L_, q_lat, 1, 0.0f, scores, 1);
        if (W_UK.bias) {
            const float q_dot_b = cblas_sdot(hs_, q_h, 1, W_UK.bias->data.data() + h * hs, 1);
            for (std::size_t t = 0; t < Tk; ++t) scores[t] += q_dot_b;
        }
        causal_softmax_row(scores, weights, Tk, Tk, divisor);  // every cached key is visible to the newest token
        cblas_sgemv(CblasRowMajor, CblasTrans, Tk_, L_, 1.0f, c, L_, weights, 1, 0.0f, c_bar, 1);
        float* ctx_h = ctx.data() + h * hs;
        if (W_UV.bias) std::copy_n(W_UV.bias->data.data() + h * hs, hs, ctx_h);
        cblas_sgemv(CblasRowMajor, CblasNoTrans, hs_, L_, 1.0f, W_UV.weight.data.data() + h * hs * L, L_, c_bar, 1,
                    W_UV.bias ? 1.0f : 0.0f, ctx_h, 1);
    });
    ptr_current_pos += 1;
    return to_rows(project(out_proj, ctx.data(), 1), 1, C);  // self.out_proj(context_vec)
}

void MultiHeadLatentAttention::reset_cache() {
    cache_c_kv.clear();
    ptr_current_pos = 0;
}

}  // namespace llmfs
