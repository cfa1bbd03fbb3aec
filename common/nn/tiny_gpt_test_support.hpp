// What the KV-cache unit tests share: a tiny GPT configuration, a model built as the book builds
// one (seed, then GPTModel, then eval), and random prompts. Test code only.
#pragma once

#include <cstdint>

#include <xtensor/xrandom.hpp>

#include "llmfs/nn/gpt.hpp"

namespace llmfs::testing {

// vocab 50, emb_dim 16, 2 heads (hs 8), 2 layers
inline GPTConfig tiny_gpt(std::size_t context_length = 16, bool qkv_bias = false) {
    GPTConfig c;
    c.vocab_size = 50;
    c.context_length = context_length;
    c.emb_dim = 16;
    c.n_heads = 2;
    c.n_layers = 2;
    c.qkv_bias = qkv_bias;
    return c;
}

// torch.manual_seed(seed); model = GPTModel(cfg); model.eval()
struct EvalModel {
    Generator gen;
    GPTModel model;
    EvalModel(std::uint64_t seed, const GPTConfig& cfg) : model((gen.manual_seed(seed), gen), cfg) { model.train(false); }
};

// [batch, length] ids below vocab, from xtensor's generator seeded with seed
inline IdArray<2> random_prompt(std::size_t batch, std::size_t length, std::uint64_t seed, std::size_t vocab) {
    xt::random::seed(seed);
    return xt::random::randint<std::int64_t>({batch, length}, 0, static_cast<std::int64_t>(vocab));
}

}  // namespace llmfs::testing
