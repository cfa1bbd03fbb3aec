#include "llmfs/nn/kv_cache_optimized.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include <xtensor/xview.hpp>

#include "llmfs/nn/kv_cache.hpp"

namespace llmfs {

namespace {

std::vector<Array<4>> zero_slots(const GPTConfig& cfg, std::size_t batch, std::size_t window) {
    // torch.zeros(b, self.num_heads, self.window_size, self.head_dim) per layer
    return std::vector<Array<4>>(cfg.n_layers, Array<4>(xt::zeros<float>({batch, cfg.n_heads, window, cfg.emb_dim / cfg.n_heads})));
}

}  // namespace

WindowKVCache::WindowKVCache(const GPTConfig& cfg, std::size_t batch, std::size_t window_) : window(window_) {
    if (window == 0) throw std::invalid_argument("KV cache: a window of 0 slots");
    if (batch == 0) throw std::invalid_argument("KV cache: a batch of 0 sequences");
    keys = zero_slots(cfg, batch, window);
    values = zero_slots(cfg, batch, window);
}

Array<3> forward_window(const GPTModel& model, const IdArray<2>& in_idx, WindowKVCache& cache, bool last_only) {
    const std::size_t B = in_idx.shape()[0], n = in_idx.shape()[1], W = cache.window;
    if (n > W)  // assert num_tokens <= self.window_size
        throw std::invalid_argument("Input chunk size (" + std::to_string(n) + ") exceeds KV cache window size (" +
                                    std::to_string(W) + "): feed the tokens in chunks of at most " + std::to_string(W));
    if (cache.ptr_current_pos + n > model.cfg.context_length)  // the script's "Position embedding overflow"
        throw std::invalid_argument("Position embedding overflow: want to read position " +
                                    std::to_string(cache.ptr_current_pos + n) + ", past the context length " +
                                    std::to_string(model.cfg.context_length) + " (reset the cache)");
    if (B != cache.batch()) {  // if self.cache_k is None or self.cache_k.size(0) != b: allocate, ptr_cur = 0
        cache.keys = zero_slots(model.cfg, B, W);
        cache.values = zero_slots(model.cfg, B, W);
        cache.ptr_cur = 0;
    }
    if (cache.ptr_cur + n > W) {  // overflow: drop the oldest slots, move the rest to the front
        const std::size_t overflow = cache.ptr_cur + n - W;
        for (auto* slots : {&cache.keys, &cache.values}) {
            for (Array<4>& layer : *slots) {
                // self.cache_k[:, :, :-overflow, :] = self.cache_k[:, :, overflow:, :].clone()
                const Array<4> kept = xt::view(layer, xt::all(), xt::all(), xt::range(overflow, W), xt::all());
                xt::view(layer, xt::all(), xt::all(), xt::range(0, W - overflow), xt::all()) = kept;
            }
        }
        cache.ptr_cur -= overflow;
    }
    // self.cache_k[:, :, self.ptr_cur:self.ptr_cur + num_tokens, :] = keys_new (and the positions
    // self.ptr_current_pos .. + num_tokens for the embeddings)
    Array<3> logits = forward_cached_at(model, in_idx, cache.keys, cache.values, cache.ptr_current_pos, cache.ptr_cur, last_only);
    cache.ptr_cur += n;
    cache.ptr_current_pos += n;
    return logits;
}

IdArray<2> generate_text_simple_cached_window(const GPTModel& model, IdArray<2> idx, std::size_t max_new_tokens,
                                              std::size_t window, std::optional<std::size_t> context_size, bool use_cache,
                                              const std::function<void(std::size_t, const WindowKVCache&)>& after_forward) {
    const std::size_t ctx_len = context_size.value_or(model.cfg.context_length);  // context_size or num_embeddings
    if (ctx_len == 0 || ctx_len > model.cfg.context_length)
        throw std::invalid_argument("generate: context_size " + std::to_string(ctx_len) +
                                    " must be between 1 and the model's context length " + std::to_string(model.cfg.context_length));
    if (!use_cache) return generate_text_simple(model, std::move(idx), max_new_tokens, ctx_len);

    WindowKVCache cache(model.cfg, idx.shape()[0], window);  // model.reset_kv_cache()
    const IdArray<2> input_tokens = last_tokens(idx, ctx_len);  // idx[:, -ctx_len:]
    const std::size_t input_len = input_tokens.shape()[1];
    if (input_len == 0) throw std::invalid_argument("generate: an empty prompt");
    auto forward = [&](const IdArray<2>& tokens) {
        Array<3> logits = forward_window(model, tokens, cache, /*last_only=*/true);  // [B, 1, V]
        if (after_forward) after_forward(tokens.shape()[1], cache);
        return logits;
    };
    Array<3> logits;
    for (std::size_t i = 0; i < input_len; i += window)  // chunked prefill: only the last chunk's logits are used
        logits = forward(xt::eval(xt::view(input_tokens, xt::all(), xt::range(i, std::min(i + window, input_len)))));

    max_new_tokens = std::min(max_new_tokens, ctx_len - input_len);  // positions never pass the context
    const std::size_t vocab = logits.shape()[2];
    Generator unused;  // greedy decoding draws nothing
    for (std::size_t step = 0; step < max_new_tokens; ++step) {
        // next_idx = logits[:, -1].argmax(dim=-1, keepdim=True)
        const IdArray<2> next_idx = next_token_ids(logits.data(), logits.shape()[0], vocab, vocab, SamplingOptions{}, unused);
        idx = xt::concatenate(xt::xtuple(idx, next_idx), 1);  // torch.cat([idx, next_idx], dim=1)
        logits = forward(next_idx);                           // model(next_idx, use_cache=True)
    }
    return idx;
}

}  // namespace llmfs
