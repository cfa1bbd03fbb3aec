#include "llmfs/nn/kv_cache.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "llmfs/fast/kernels.hpp"

namespace llmfs {

KVCache::KVCache(const GPTConfig& cfg, std::size_t batch, std::size_t capacity_) : capacity(capacity_) {
    if (capacity == 0 || capacity > cfg.context_length)
        throw std::invalid_argument("KV cache: capacity " + std::to_string(capacity) + " must be between 1 and the context length " +
                                    std::to_string(cfg.context_length));
    const std::size_t head_dim = cfg.emb_dim / cfg.n_heads;
    for (std::size_t l = 0; l < cfg.n_layers; ++l) {
        keys.push_back(Array<4>::from_shape({batch, cfg.n_heads, capacity, head_dim}));
        values.push_back(Array<4>::from_shape({batch, cfg.n_heads, capacity, head_dim}));
    }
}

namespace {

// Buffers one forward pass needs, [rows, C] unless noted.
struct Scratch {
    std::vector<float> h, q, k, v, ctx, a, f;  // f: [rows, 4C]
    Scratch(std::size_t rows, std::size_t C)
        : h(rows * C), q(rows * C), k(rows * C), v(rows * C), ctx(rows * C), a(rows * C), f(rows * 4 * C) {}
};

// TransformerBlock.forward(x, use_cache=True) on x [B, T, C], in place; keys and values of the T
// new tokens go to the cache at positions pos0 .. pos0 + T - 1.
void block_cached(const TransformerBlock& blk, float* x, std::size_t B, std::size_t T, Array<4>& cache_k,
                  Array<4>& cache_v, std::size_t pos0, Scratch& s) {
    const MultiHeadAttention& att = blk.att;
    const std::size_t C = att.d_out, NH = att.num_heads, hs = att.head_dim, rows = B * T;
    // shortcut = x; x = self.norm1(x)
    std::copy(x, x + rows * C, s.h.begin());
    blk.norm1.forward_rows(s.h.data(), rows);
    // queries, keys, values = W_query(x), W_key(x), W_value(x): [B, T, NH * hs] each
    Linear::forward_rows_each(s.h.data(), rows, {{&att.W_query, s.q.data()}, {&att.W_key, s.k.data()}, {&att.W_value, s.v.data()}});
    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t t = 0; t < T; ++t) {
            const std::size_t row = (b * T + t) * C;
            for (std::size_t h = 0; h < NH; ++h) {  // self.cache_k = torch.cat([self.cache_k, keys_new], dim=1)
                std::copy_n(s.k.data() + row + h * hs, hs, &cache_k(b, h, pos0 + t, 0));
                std::copy_n(s.v.data() + row + h * hs, hs, &cache_v(b, h, pos0 + t, 0));
            }
        }
    }
    // softmax(Q K^T / sqrt(hs), masked) @ V, head by head: T queries against pos0 + T keys each
    for_each_head(B * NH, B * NH * T * (pos0 + T) * hs, [&](std::size_t i, std::vector<float>& scratch) {
        const std::size_t b = i / NH, h = i % NH;
        causal_attention_head(s.q.data() + b * T * C + h * hs, C, &cache_k(b, h, 0, 0), &cache_v(b, h, 0, 0), hs,
                              s.ctx.data() + b * T * C + h * hs, C, T, pos0, hs, scratch);
    });
    att.out_proj.forward_rows(s.ctx.data(), rows, s.a.data());
    for (std::size_t i = 0; i < rows * C; ++i) x[i] += s.a[i];  // x = x + shortcut (dropout off)

    std::copy(x, x + rows * C, s.h.begin());
    blk.norm2.forward_rows(s.h.data(), rows);
    blk.ff.fc1.forward_rows(s.h.data(), rows, s.f.data(), gelu_inplace);  // GELU(fc1(x)), piece by piece
    blk.ff.fc2.forward_rows(s.f.data(), rows, s.a.data());
    for (std::size_t i = 0; i < rows * C; ++i) x[i] += s.a[i];
}

}  // namespace

Array<3> forward_cached_at(const GPTModel& model, const IdArray<2>& in_idx, std::vector<Array<4>>& keys,
                           std::vector<Array<4>>& values, std::size_t first_position, std::size_t first_slot, bool last_only) {
    const std::size_t B = in_idx.shape()[0], T = in_idx.shape()[1], C = model.cfg.emb_dim;
    if (T == 0) throw std::invalid_argument("forward_cached: no tokens");
    if (keys.size() != model.trf_blocks.size() || values.size() != keys.size())
        throw ShapeError("forward_cached: a cache of " + std::to_string(keys.size()) + " layers for a model of " +
                         std::to_string(model.trf_blocks.size()));
    const auto& slots = keys.front().shape();  // [B, NH, slots, hs]
    if (B != slots[0])
        throw ShapeError("forward_cached: a batch of " + std::to_string(B) + " sequences for a cache made for " +
                         std::to_string(slots[0]) + " (reset or rebuild the cache)");
    if (first_slot + T > slots[2])
        throw std::invalid_argument("forward_cached: " + std::to_string(first_slot) + " cached + " + std::to_string(T) +
                                    " new tokens exceed the cache's " + std::to_string(slots[2]) +
                                    " positions (reset the cache)");
    if (first_position + T > model.cfg.context_length)
        throw std::invalid_argument("forward_cached: positions up to " + std::to_string(first_position + T) +
                                    " exceed the context length " + std::to_string(model.cfg.context_length));
    // pos_ids = torch.arange(self.current_pos, self.current_pos + seq_len)
    const IdArray<1> pos_ids = xt::arange<std::int64_t>(static_cast<std::int64_t>(first_position),
                                                        static_cast<std::int64_t>(first_position + T));
    Array<3> x = xt::eval(model.tok_emb(in_idx).data + model.pos_emb(pos_ids).data);  // [B, T, C] + [T, C]

    Scratch scratch(B * T, C);
    for (std::size_t l = 0; l < model.trf_blocks.size(); ++l)
        block_cached(model.trf_blocks[l], x.data(), B, T, keys[l], values[l], first_slot, scratch);

    const std::size_t t_out = last_only ? 1 : T;
    Array<2> h = Array<2>::from_shape({B * t_out, C});  // the rows that get logits
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < t_out; ++t) std::copy_n(&x(b, T - t_out + t, 0), C, &h(b * t_out + t, 0));
    model.final_norm.forward_rows(h.data(), B * t_out);
    Array<3> logits = Array<3>::from_shape({B, t_out, model.out_head.out_features()});
    model.out_head.forward_rows(h.data(), B * t_out, logits.data());
    return logits;
}

Array<3> forward_cached(const GPTModel& model, const IdArray<2>& in_idx, KVCache& cache, bool last_only) {
    // This cache never slides: a token's slot is its position.
    Array<3> logits = forward_cached_at(model, in_idx, cache.keys, cache.values, cache.current_pos, cache.current_pos, last_only);
    cache.current_pos += in_idx.shape()[1];
    return logits;
}

namespace {

void check_context_size(const GPTModel& model, std::size_t context_size) {
    if (context_size == 0 || context_size > model.cfg.context_length)
        throw std::invalid_argument("generate: context_size " + std::to_string(context_size) +
                                    " must be between 1 and the model's context length " +
                                    std::to_string(model.cfg.context_length));
}

// idx_next [B, 1] from last-position logits [B, 1, V] (next_token_ids: greedy or sampled).
IdArray<2> choose_next(const Array<3>& logits, const SamplingOptions& options, Generator& gen) {
    const std::size_t vocab = logits.shape()[2];
    return next_token_ids(logits.data(), logits.shape()[0], vocab, vocab, options, gen);
}

}  // namespace

IdArray<2> generate_fast(const GPTModel& model, IdArray<2> idx, std::size_t max_new_tokens, std::size_t context_size,
                         const SamplingOptions& options, Generator& gen, const std::function<void(std::size_t)>& on_token) {
    check_context_size(model, context_size);
    check_generate_options(options, idx.shape()[0], model.cfg.vocab_size);
    if (max_new_tokens == 0) return idx;
    // A cache used as scratch only: reset before every step, so nothing carries over.
    KVCache scratch(model.cfg, idx.shape()[0], std::min(context_size, idx.shape()[1] + max_new_tokens));
    for (std::size_t step = 0; step < max_new_tokens; ++step) {
        scratch.reset();
        const Array<3> logits = forward_cached(model, last_tokens(idx, context_size), scratch, /*last_only=*/true);
        const IdArray<2> next = choose_next(logits, options, gen);
        if (is_eos(next, options)) break;                  // if idx_next == eos_id: break
        idx = xt::concatenate(xt::xtuple(idx, next), 1);  // torch.cat((idx, idx_next), dim=1)
        if (on_token) on_token(step + 1);
    }
    return idx;
}

IdArray<2> generate_cached(const GPTModel& model, IdArray<2> idx, std::size_t max_new_tokens, std::size_t context_size,
                           const SamplingOptions& options, Generator& gen, const std::function<void(std::size_t)>& on_token) {
    check_context_size(model, context_size);
    check_generate_options(options, idx.shape()[0], model.cfg.vocab_size);
    if (max_new_tokens == 0) return idx;
    KVCache cache(model.cfg, idx.shape()[0], std::min(context_size, idx.shape()[1] + max_new_tokens));
    Array<3> logits = forward_cached(model, last_tokens(idx, context_size), cache, /*last_only=*/true);  // init the cache with the prompt
    for (std::size_t step = 0;; ++step) {
        const IdArray<2> next = choose_next(logits, options, gen);
        if (is_eos(next, options)) return idx;             // if idx_next == eos_id: break
        idx = xt::concatenate(xt::xtuple(idx, next), 1);  // torch.cat([idx, next_idx], dim=1)
        if (on_token) on_token(step + 1);
        if (step + 1 == max_new_tokens) return idx;
        if (cache.current_pos < cache.capacity) {
            logits = forward_cached(model, next, cache, true);  // logits = model(next_idx, use_cache=True)
        } else {  // the window slides: every position moves, so rebuild the cache from it
            cache.reset();
            logits = forward_cached(model, last_tokens(idx, context_size), cache, true);
        }
    }
}

IdArray<2> generate_text_simple_fast(const GPTModel& model, IdArray<2> idx, std::size_t max_new_tokens,
                                     std::size_t context_size, const std::function<void(std::size_t)>& on_token) {
    Generator unused;  // greedy decoding draws nothing
    return generate_fast(model, std::move(idx), max_new_tokens, context_size, SamplingOptions{}, unused, on_token);
}

IdArray<2> generate_text_simple_cached(const GPTModel& model, IdArray<2> idx, std::size_t max_new_tokens,
                                       std::size_t context_size, const std::function<void(std::size_t)>& on_token) {
    Generator unused;  // greedy decoding draws nothing
    return generate_cached(model, std::move(idx), max_new_tokens, context_size, SamplingOptions{}, unused, on_token);
}

const char* describe(DecodePath path) {
    switch (path) {
        case DecodePath::fast: return "no cache, fast kernels";
        case DecodePath::kv_cache: return "KV cache";
        case DecodePath::teaching: return "no cache, teaching path";
    }
    throw std::invalid_argument("describe: unknown DecodePath");
}

IdArray<2> generate(DecodePath path, const GPTModel& model, IdArray<2> idx, std::size_t max_new_tokens, std::size_t context_size,
                    const SamplingOptions& options, Generator& gen, const std::function<void(std::size_t)>& on_token) {
    switch (path) {
        case DecodePath::fast: return generate_fast(model, std::move(idx), max_new_tokens, context_size, options, gen, on_token);
        case DecodePath::kv_cache: return generate_cached(model, std::move(idx), max_new_tokens, context_size, options, gen, on_token);
        case DecodePath::teaching: return generate(model, std::move(idx), max_new_tokens, context_size, options, gen, on_token);
    }
    throw std::invalid_argument("generate: unknown DecodePath");
}

IdArray<2> generate_greedy(DecodePath path, const GPTModel& model, IdArray<2> idx, std::size_t max_new_tokens,
                           std::size_t context_size, const std::function<void(std::size_t)>& on_token) {
    Generator unused;  // greedy decoding draws nothing
    return generate(path, model, std::move(idx), max_new_tokens, context_size, SamplingOptions{}, unused, on_token);
}

}  // namespace llmfs
