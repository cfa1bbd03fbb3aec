// The KV cache, and the fast no-cache path, against the no-cache teaching path: the same logits
// (within rounding) and the same generated tokens, token for token, at several lengths, including
// past the context length where the no-cache path crops. Tiny configurations keep it fast;
// tests/generate_test.cpp checks the full-size models against PyTorch's tokens on every path.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include <xtensor/xrandom.hpp>

#include "llmfs/nn/kv_cache.hpp"
#include "llmfs/nn/tiny_gpt_test_support.hpp"

using namespace llmfs;
using testing::EvalModel;

namespace {

GPTConfig tiny(std::size_t context_length = 16) {
    return testing::tiny_gpt(context_length, /*qkv_bias=*/true);  // exercise the bias path too
}

}  // namespace

TEST_CASE("cached logits equal the full forward pass, prompt at once or token by token") {
    const EvalModel m(123, tiny());
    const GPTModel& model = m.model;
    const IdArray<2> ids = testing::random_prompt(2, 11, 1, 50);
    const Array<3> expected = model.forward(ids).data;  // [2, 11, V]

    KVCache cache(model.cfg, 2, 16);
    CHECK(xt::allclose(forward_cached(model, ids, cache), expected, 1e-5, 1e-5));
    CHECK(cache.current_pos == 11);

    cache.reset();
    const Array<3> first = forward_cached(model, xt::view(ids, xt::all(), xt::range(0, 6)), cache);
    CHECK(xt::allclose(first, xt::view(expected, xt::all(), xt::range(0, 6)), 1e-5, 1e-5));
    for (std::size_t t = 6; t < 11; ++t) {
        const Array<3> step = forward_cached(model, xt::view(ids, xt::all(), xt::range(t, t + 1)), cache, true);
        INFO("position " << t);
        CHECK(xt::allclose(step, xt::view(expected, xt::all(), xt::range(t, t + 1)), 1e-5, 1e-5));
    }
}

TEST_CASE("cached and fast no-cache generation give exactly the teaching path's tokens") {
    const std::size_t context = 16;
    for (std::uint64_t seed : {1, 2, 3}) {
        const EvalModel m(seed, tiny(context));
        const GPTModel& model = m.model;
        // prompt length x new tokens: short, filling the context exactly, one past it, far past it,
        // and a prompt longer than the context.
        for (auto [length, new_tokens] : std::vector<std::pair<std::size_t, std::size_t>>{
                 {1, 1}, {3, 5}, {4, 12}, {4, 13}, {5, 40}, {16, 3}, {20, 7}}) {
            for (std::size_t batch : {1, 2}) {
                const IdArray<2> ids = testing::random_prompt(batch, length, seed * 100 + length, model.cfg.vocab_size);
                DYNAMIC_SECTION("seed " << seed << ", batch " << batch << ", " << length << " + " << new_tokens << " tokens") {
                    const auto uncached = generate_text_simple(model, ids, new_tokens, context);
                    const auto cached = generate_text_simple_cached(model, ids, new_tokens, context);
                    const auto fast = generate_text_simple_fast(model, ids, new_tokens, context);
                    REQUIRE(cached.shape() == uncached.shape());
                    CHECK((cached == uncached));
                    REQUIRE(fast.shape() == uncached.shape());
                    CHECK((fast == uncached));
                }
            }
        }
    }
}

TEST_CASE("a context_size below the model's crops the same way with and without the cache") {
    const EvalModel m(5, tiny());
    const GPTModel& model = m.model;
    const IdArray<2> ids = testing::random_prompt(1, 3, 9, 50);
    const auto uncached = generate_text_simple(model, ids, 20, 6);
    CHECK((generate_text_simple_cached(model, ids, 20, 6) == uncached));
    CHECK((generate_text_simple_fast(model, ids, 20, 6) == uncached));
}

TEST_CASE("generate_greedy runs the path it names") {
    const EvalModel m(5, tiny());
    const GPTModel& model = m.model;
    const IdArray<2> ids = testing::random_prompt(1, 3, 9, 50);
    const auto expected = generate_text_simple(model, ids, 20, 6);
    for (const DecodePath path : {DecodePath::fast, DecodePath::kv_cache, DecodePath::teaching}) {
        DYNAMIC_SECTION(describe(path)) {
            std::size_t steps = 0;
            CHECK((generate_greedy(path, model, ids, 20, 6, [&](std::size_t step) { steps = step; }) == expected));
            CHECK(steps == 20);
        }
    }
    CHECK(std::string(describe(DecodePath::kv_cache)) == "KV cache");
    CHECK_THROWS_WITH(generate_greedy(DecodePath::fast, model, ids, 3, 0), Catch::Contains("context"));
}

TEST_CASE("the cache reports misuse") {
    const EvalModel m(0, tiny());
    const GPTModel& model = m.model;
    CHECK_THROWS_WITH(KVCache(model.cfg, 1, 17), Catch::Contains("context length"));
    KVCache cache(model.cfg, 1, 4);
    CHECK_THROWS_WITH(forward_cached(model, testing::random_prompt(1, 5, 1, 50), cache), Catch::Contains("reset the cache"));
    CHECK_THROWS_WITH(forward_cached(model, testing::random_prompt(2, 2, 1, 50), cache), Catch::Contains("batch"));
    CHECK_THROWS_WITH(generate_text_simple_cached(model, testing::random_prompt(1, 2, 1, 50), 3, 17), Catch::Contains("context"));
    CHECK(generate_text_simple_cached(model, testing::random_prompt(1, 2, 1, 50), 0, 16).shape()[1] == 2);
    CHECK_THROWS_WITH(generate_text_simple_fast(model, testing::random_prompt(1, 2, 1, 50), 3, 0), Catch::Contains("context"));
    CHECK(generate_text_simple_fast(model, testing::random_prompt(1, 2, 1, 50), 0, 16).shape()[1] == 2);
}

TEST_CASE("sampled generation gives the same tokens on all three paths, for several seeds, temperatures and top_k") {
    const std::size_t context = 16;
    const EvalModel m(7, tiny(context));
    const GPTModel& model = m.model;
    for (const std::uint64_t seed : {123, 1, 42}) {
        for (const double temperature : {0.0, 0.7, 1.0, 1.4, 5.0}) {
            for (const std::optional<std::size_t> top_k : {std::optional<std::size_t>{}, std::optional<std::size_t>{1},
                                                           std::optional<std::size_t>{3}, std::optional<std::size_t>{25}}) {
                for (const std::size_t batch : {1, 2}) {
                    SamplingOptions options;
                    options.temperature = temperature;
                    options.top_k = top_k;
                    const IdArray<2> ids = testing::random_prompt(batch, 3, seed, model.cfg.vocab_size);
                    DYNAMIC_SECTION("seed " << seed << " T " << temperature << " top_k " << (top_k ? std::to_string(*top_k) : "none")
                                            << " batch " << batch) {
                        // 3 + 20 tokens: past the context, where the cached path rebuilds its cache
                        std::vector<IdArray<2>> outs;
                        std::vector<std::uint32_t> next_words;
                        for (const DecodePath path : {DecodePath::teaching, DecodePath::fast, DecodePath::kv_cache}) {
                            Generator gen;
                            gen.manual_seed(seed);
                            outs.push_back(generate(path, model, ids, 20, context, options, gen));
                            next_words.push_back(gen.random());  // the paths drew alike
                        }
                        REQUIRE(outs[0].shape()[1] == 23);
                        CHECK((outs[1] == outs[0]));
                        CHECK((outs[2] == outs[0]));
                        CHECK(next_words[1] == next_words[0]);
                        CHECK(next_words[2] == next_words[0]);
                        if (temperature == 0.0) CHECK((outs[0] == generate_text_simple(model, ids, 20, context)));
                    }
                }
            }
        }
    }
}

TEST_CASE("generation stops before eos_id on every path, and checks its options") {
    const EvalModel m(7, tiny());
    const GPTModel& model = m.model;
    const IdArray<2> ids = testing::random_prompt(1, 3, 5, model.cfg.vocab_size);
    SamplingOptions options;
    options.temperature = 1.0;
    Generator gen;
    gen.manual_seed(3);
    const IdArray<2> free_run = generate(DecodePath::teaching, model, ids, 30, 16, options, gen);
    // the token sampled at step 5 as eos: every path stops right before it
    options.eos_id = free_run(0, 3 + 5);
    std::size_t stop = 0;
    while (free_run(0, 3 + stop) != *options.eos_id) ++stop;
    for (const DecodePath path : {DecodePath::teaching, DecodePath::fast, DecodePath::kv_cache}) {
        DYNAMIC_SECTION(describe(path)) {
            gen.manual_seed(3);
            std::size_t steps = 0;
            const IdArray<2> out = generate(path, model, ids, 30, 16, options, gen, [&](std::size_t step) { steps = step; });
            CHECK(out.shape()[1] == 3 + stop);
            CHECK((out == xt::view(free_run, xt::all(), xt::range(0, 3 + stop))));
            CHECK(steps == stop);

            SamplingOptions bad;
            bad.temperature = -1;
            CHECK_THROWS_WITH(generate(path, model, ids, 3, 16, bad, gen), Catch::Contains("temperature"));
            bad.temperature = 1;
            bad.top_k = 51;
            CHECK_THROWS_WITH(generate(path, model, ids, 3, 16, bad, gen), Catch::Contains("top_k 51"));
            bad.top_k.reset();
            bad.eos_id = 50;
            CHECK_THROWS_WITH(generate(path, model, ids, 3, 16, bad, gen), Catch::Contains("eos_id 50"));
            bad.eos_id = 0;
            CHECK_THROWS_WITH(generate(path, model, testing::random_prompt(2, 3, 5, 50), 3, 16, bad, gen), Catch::Contains("batch"));
        }
    }
}
