// The book's optimized KV cache (ch04/03_kv-cache, gpt_with_kv_cache_optimized.py): the cache is
// preallocated once with a fixed number of slots, the window W = kv_window_size, instead of
// growing by torch.cat. When a chunk would not fit, the oldest keys and values are shifted out
// (the window slides), and a prompt longer than W is fed in chunks of W tokens (chunked prefill).
// Position ids keep counting from the start of the text while the window slides, so with
// W < the sequence length each token attends to the last W keys only: a sliding-window attention,
// which gives other tokens than full attention (kv_cache_optimized_test.cpp shows both). With
// W >= the sequence length nothing slides, and the tokens are generate_text_simple's.
//
// The forward pass is kv_cache.hpp's forward_cached_at (the fast kernels), with each token's
// position and its cache slot apart.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "llmfs/nn/gpt.hpp"

namespace llmfs {

struct WindowKVCache {
    std::size_t window;               // kv_window_size W: slots per layer
    std::vector<Array<4>> keys;       // per layer [B, NH, W, hs]: self.cache_k = torch.zeros(b, H, W, hd)
    std::vector<Array<4>> values;     // per layer [B, NH, W, hs]: self.cache_v
    std::size_t ptr_cur = 0;          // MultiHeadAttention.ptr_cur: slots in use (the same in every layer)
    std::size_t ptr_current_pos = 0;  // GPTModel.ptr_current_pos: the position of the next token

    // window >= 1 (GPTModel's kv_window_size, default context_length; it may exceed the context
    // length, as in tests.py's overflow case: the positions are checked, not the slots).
    WindowKVCache(const GPTConfig& cfg, std::size_t batch, std::size_t window);
    std::size_t batch() const { return keys.front().shape()[0]; }
    void reset() { ptr_cur = 0, ptr_current_pos = 0; }  // model.reset_kv_cache()
};

// model(in_idx, use_cache=True) for in_idx [B, n], n <= W: makes room by shifting the oldest
// ptr_cur + n - W slots out, writes the n new keys and values after the kept ones, and lets token i
// attend to the kept slots and the new ones up to i. Returns the logits [B, n, V], or [B, 1, V]
// with last_only. A batch of another size reallocates the cache (ptr_cur = 0), as the script does.
Array<3> forward_window(const GPTModel& model, const IdArray<2>& in_idx, WindowKVCache& cache, bool last_only = false);

// generate_text_simple_cached(model, idx, max_new_tokens, context_size=None, use_cache=True):
// greedy decoding. context_size nullopt = the model's context length. With the cache: reset, feed
// the last context_size tokens of idx in chunks of W, then at most context_size - prompt tokens
// (positions never pass the context), one forward per new token. Without: generate_text_simple.
// after_forward(n, cache) after each cached forward of n tokens (for tests and traces).
IdArray<2> generate_text_simple_cached_window(
    const GPTModel& model, IdArray<2> idx, std::size_t max_new_tokens, std::size_t window,
    std::optional<std::size_t> context_size = std::nullopt, bool use_cache = true,
    const std::function<void(std::size_t, const WindowKVCache&)>& after_forward = {});

}  // namespace llmfs
