// GPT model pieces on a tiny configuration: context cropping in generation, parameter counts,
// LayerNorm statistics, errors. The full-size model is checked against PyTorch by the ch04_*
// golden tests and tests/generate_test.
#include <catch2/catch.hpp>

#include <xtensor/xadapt.hpp>

#include "llmfs/nn/gpt.hpp"
#include "llmfs/nn/safetensors.hpp"

using namespace llmfs;

namespace {
GPTConfig tiny() {
    GPTConfig c;
    c.vocab_size = 50;
    c.context_length = 4;
    c.emb_dim = 8;
    c.n_heads = 2;
    c.n_layers = 2;
    return c;
}
}  // namespace

TEST_CASE("parameter count follows the architecture") {
    Generator gen;
    const GPTConfig c = tiny();
    const GPTModel model(gen, c);
    const std::size_t C = c.emb_dim;
    const std::size_t per_block = 3 * C * C + (C * C + C) + (C * 4 * C + 4 * C) + (4 * C * C + C) + 4 * C;
    CHECK(model.num_parameters() == c.vocab_size * C + c.context_length * C + c.n_layers * per_block + 2 * C + C * c.vocab_size);
}

TEST_CASE("generation crops the context to its last context_size tokens") {
    Generator gen;
    gen.manual_seed(1);
    GPTModel model(gen, tiny());
    model.train(false);
    const IdArray<2> long_prompt = {{1, 2, 3, 4, 5, 6}};
    const IdArray<2> last_four = {{3, 4, 5, 6}};
    const auto from_long = generate_text_simple(model, long_prompt, 3, 4);
    const auto from_short = generate_text_simple(model, last_four, 3, 4);
    REQUIRE(from_long.shape()[1] == 9);
    CHECK((xt::view(from_long, xt::all(), xt::range(0, 6)) == long_prompt));
    CHECK((xt::view(from_long, xt::all(), xt::range(6, 9)) == xt::view(from_short, xt::all(), xt::range(4, 7))));
    CHECK_THROWS_AS(model.forward(long_prompt), std::invalid_argument);  // longer than the context
}

TEST_CASE("eval mode is deterministic, training mode draws dropout masks") {
    Generator gen;
    gen.manual_seed(2);
    GPTModel model(gen, tiny());
    const IdArray<2> ids = {{7, 8, 9}};
    const auto a = model.forward(ids), b = model.forward(ids);
    CHECK_FALSE((a.data == b.data));
    model.train(false);
    CHECK((model.forward(ids).data == model.forward(ids).data));
    CHECK(a.grad_fn == "UnsafeViewBackward0");
}

TEST_CASE("LayerNorm normalises the last dim to mean 0, variance 1") {
    const LayerNorm ln(5);
    const Tensor<2> x = Array<2>{{1, 2, 3, 4, 10}, {-1, 0, 0, 0, 1}};
    const auto y = ln(x);
    for (std::size_t r = 0; r < 2; ++r) {
        CHECK(mean_keepdim(y, -1).data(r, 0) == Approx(0).margin(1e-6));
        CHECK(var_keepdim(y, -1, false).data(r, 0) == Approx(1).epsilon(1e-4));
    }
}

TEST_CASE("GPT-2's sizes: by_name and the named configs read the one table, as the book's model_configs") {
    // model_configs of ch05's 5.5: emb_dim, n_layers, n_heads
    CHECK(GPTConfig::by_name("gpt2-small").emb_dim == 768);
    CHECK(GPTConfig::by_name("gpt2-small").n_heads == GPTConfig::gpt2_small().n_heads);
    for (const Gpt2Size& size : kGpt2Sizes) {
        const GPTConfig c = GPTConfig::by_name(size.name);
        CHECK(c.emb_dim == size.emb_dim);
        CHECK(c.n_layers == size.n_layers);
        CHECK(c.n_heads == size.n_heads);
        CHECK(c.context_length == 1024);
        CHECK(c.vocab_size == 50257);
    }
    CHECK(GPTConfig::gpt2_medium().n_heads == 16);
    CHECK(GPTConfig::gpt2_large().emb_dim == 1280);
    CHECK(GPTConfig::gpt2_xl().n_layers == 48);
    CHECK(gpt2_n_heads("f", 1600, 48, std::nullopt) == 25);
}

TEST_CASE("bad input is reported, not crashed on") {
    Generator gen;
    CHECK_THROWS_AS(GPTConfig::by_name("gpt5"), std::invalid_argument);
    const Embedding emb(gen, 10, 4);
    CHECK_THROWS_WITH(emb(IdArray<1>{3, 10}), Catch::Contains("10"));
    GPTConfig bad = tiny();
    bad.n_heads = 3;
    CHECK_THROWS_WITH(GPTModel(gen, bad), Catch::Contains("divisible"));
}
