// The book's bonus KV cache (ch04/03_kv-cache, gpt_with_kv_cache.py) for GPTModel: each attention
// layer keeps the keys and values of the tokens it has seen, so a decoding step runs one new token
// through the model instead of the whole sequence. The cache is preallocated for its capacity
// (at most the context length) instead of growing by torch.cat.
//
// The cached forward uses the fast kernels of kernels.hpp (gemv for single rows, causal attention
// that skips the masked half); its last bits may differ from GPTModel::forward's, which is why
// kv_cache_test.cpp and tests/generate_test.cpp prove the generated tokens identical to
// generate_text_simple's. Dropout is off, as after model.eval().
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "llmfs/nn/gpt.hpp"

namespace llmfs {

struct KVCache {
    std::size_t capacity;          // positions it can hold (<= context_length)
    std::vector<Array<4>> keys;    // per layer [B, NH, capacity, hs]: self.cache_k, head-major
    std::vector<Array<4>> values;  // per layer [B, NH, capacity, hs]: self.cache_v
    std::size_t current_pos = 0;   // self.current_pos: tokens cached so far

    KVCache(const GPTConfig& cfg, std::size_t batch, std::size_t capacity);
    void reset() { current_pos = 0; }  // model.reset_kv_cache()
    std::size_t batch() const { return keys.empty() ? 0 : keys.front().shape()[0]; }
};

// model(in_idx, use_cache=True): runs in_idx [B, T] at positions current_pos .. current_pos + T - 1
// against the cached keys and values, appends its own, and returns the logits [B, T, V], or with
// last_only just those of the last position, [B, 1, V] (all that generation needs).
Array<3> forward_cached(const GPTModel& model, const IdArray<2>& in_idx, KVCache& cache, bool last_only = false);

// The forward pass behind forward_cached, with a token's position and its cache slot apart (the
// optimized cache of kv_cache_optimized.hpp slides its window, so the two differ): in_idx [B, T]
// gets the position embeddings of first_position .. first_position + T - 1, its keys and values go
// to slots first_slot .. first_slot + T - 1 of keys[l] / values[l] [B, NH, slots, hs], and token t
// attends to slots 0 .. first_slot + t. Logits [B, T, V], or [B, 1, V] with last_only.
Array<3> forward_cached_at(const GPTModel& model, const IdArray<2>& in_idx, std::vector<Array<4>>& keys,
                           std::vector<Array<4>>& values, std::size_t first_position, std::size_t first_slot,
                           bool last_only);

// generate_text_simple_fast: the no-cache algorithm of generate_text_simple (every step runs the
// whole window idx[:, -context_size:] through the model), but through the fast kernels, with the
// LM head applied to the last position only (all greedy decoding reads). The tokens are
// generate_text_simple's (tests/generate_test.cpp, kv_cache_test.cpp); only the last bits of the
// logits may differ. on_token(step) after each new token.
IdArray<2> generate_text_simple_fast(const GPTModel& model, IdArray<2> idx, std::size_t max_new_tokens,
                                     std::size_t context_size, const std::function<void(std::size_t)>& on_token = {});

// generate_text_simple_cached: greedy decoding with the cache, token for token what
// generate_text_simple(model, idx, max_new_tokens, context_size) returns. Past context_size
// tokens the no-cache path crops to the last context_size ones, which moves every position, so
// there the cache is rebuilt from that window at each step. on_token(step) after each new token.
IdArray<2> generate_text_simple_cached(const GPTModel& model, IdArray<2> idx, std::size_t max_new_tokens,
                                       std::size_t context_size,
                                       const std::function<void(std::size_t)>& on_token = {});

// The book's generate() (5.3.3: top-k, temperature, multinomial from gen, stop at eos_id; gpt.hpp)
// by the algorithms above: the same tokens as generate(model, ...), whose logits they reproduce
// closely enough for the same choices (kv_cache_test.cpp). Greedy at temperature 0.
IdArray<2> generate_fast(const GPTModel& model, IdArray<2> idx, std::size_t max_new_tokens, std::size_t context_size,
                         const SamplingOptions& options, Generator& gen, const std::function<void(std::size_t)>& on_token = {});
IdArray<2> generate_cached(const GPTModel& model, IdArray<2> idx, std::size_t max_new_tokens, std::size_t context_size,
                           const SamplingOptions& options, Generator& gen, const std::function<void(std::size_t)>& on_token = {});

// The three ways llmfs-generate and llmfs-bench generate, all giving generate_text_simple's tokens
// (generate()'s with sampling options):
enum class DecodePath {
    fast,      // generate_text_simple_fast (the default)
    kv_cache,  // generate_text_simple_cached (--kv-cache)
    teaching,  // generate_text_simple, GPTModel::forward at every step (--teaching)
};
const char* describe(DecodePath path);  // "no cache, fast kernels", "KV cache", "no cache, teaching path"
IdArray<2> generate(DecodePath path, const GPTModel& model, IdArray<2> idx, std::size_t max_new_tokens, std::size_t context_size,
                    const SamplingOptions& options, Generator& gen, const std::function<void(std::size_t)>& on_token = {});
IdArray<2> generate_greedy(DecodePath path, const GPTModel& model, IdArray<2> idx, std::size_t max_new_tokens,
                           std::size_t context_size, const std::function<void(std::size_t)>& on_token = {});

}  // namespace llmfs
