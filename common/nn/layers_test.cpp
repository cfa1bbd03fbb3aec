// Each layer and op against PyTorch (data/tests/layer_cases.txt, made by
// tests/goldens/make_layer_goldens.py): the same seed, the same draws in the same order, and
// print() must give PyTorch's text. Dropout uses the default kernel, as Debian's PyTorch does.
#include <catch2/catch.hpp>

#include <fstream>
#include <functional>
#include <map>
#include <string>

#include "llmfs/nn/gpt.hpp"
#include "test_support.hpp"

using namespace llmfs;

namespace {

std::map<std::string, std::string> load_cases() { return testing::load_cases(LLMFS_TEST_DATA_DIR "/layer_cases.txt"); }

GPTConfig tiny() {  // TINY in make_layer_goldens.py
    GPTConfig c;
    c.vocab_size = 60;
    c.context_length = 8;
    c.emb_dim = 16;
    c.n_heads = 2;
    c.n_layers = 2;
    c.drop_rate = 0.1;
    return c;
}

// What each case prints, drawing from a generator seeded as the Python case is.
const std::map<std::string, std::function<std::string(Generator&)>> kCases = {
    {"linear_2d", [](Generator& g) { const Linear lin(g, 7, 5); return repr(lin(Tensor<2>(randn<2>(g, {4, 7})))); }},
    {"linear_3d_nobias", [](Generator& g) { const Linear lin(g, 16, 9, false); return repr(lin(Tensor<3>(rand<3>(g, {2, 3, 16})))); }},
    {"linear_3d_bias", [](Generator& g) { const Linear lin(g, 16, 9); return repr(lin(Tensor<3>(rand<3>(g, {2, 3, 16})))); }},
    {"layer_norm", [](Generator& g) { const Tensor<3> x = Tensor<3>(randn<3>(g, {2, 3, 10})) * 3.0 + 1.0; return repr(LayerNorm(10)(x)); }},
    {"gelu", [](Generator& g) { return repr(gelu(Tensor<2>(randn<2>(g, {5, 20})) * 2.0)); }},
    {"softmax", [](Generator& g) { return repr(softmax(Tensor<2>(randn<2>(g, {3, 9})) * 4.0, -1)); }},
    {"sum_mean_var", [](Generator& g) {
         const Tensor<2> x = Tensor<2>(randn<2>(g, {3, 9})) * 4.0;
         return repr(cat_lastdim<2>({sum_keepdim(x, -1), mean_keepdim(x, -1), var_keepdim(x, -1), var_keepdim(x, -1, false)}));
     }},
    {"embedding", [](Generator& g) { const Embedding emb(g, 20, 6); return repr(emb(IdArray<2>{{3, 0, 19}, {7, 7, 1}})); }},
    {"multihead_attention", [](Generator& g) {
         const Tensor<3> x = rand<3>(g, {2, 5, 8});
         const MultiHeadAttention mha(g, 8, 12, 5, 0.0, 3, /*qkv_bias=*/true);
         return repr(mha.forward(x));
     }},
    {"causal_attention_dropout", [](Generator& g) {
         const Tensor<3> x = rand<3>(g, {2, 6, 4});
         const CausalAttention ca(g, 4, 3, 6, 0.3);
         return repr(ca.forward(x));
     }},
    {"transformer_block", [](Generator& g) {
         const Tensor<3> x = rand<3>(g, {2, 6, 16});
         const TransformerBlock block(g, tiny());
         return repr(block(x));
     }},
    {"gpt_tiny_train", [](Generator& g) {
         const GPTModel model(g, tiny());
         return repr(model.forward(IdArray<2>{{5, 9, 59, 0, 1}, {2, 2, 2, 2, 2}}));
     }},
};

}  // namespace

TEST_CASE("the layer goldens hold a case for every layer and seed") {
    const auto golden = load_cases();
    CHECK(golden.size() == 2 * kCases.size());
    for (const auto& [name, run] : kCases)
        for (const char* seed : {"_seed1", "_seed5"}) CHECK(golden.count(name + seed) == 1);
}

TEST_CASE("layers print what PyTorch prints", "[blas]") {
    const auto golden = load_cases();
    REQUIRE(golden.size() == 2 * kCases.size());
    for (const auto& [name, run] : kCases) {
        for (int seed : {1, 5}) {
            const std::string key = name + "_seed" + std::to_string(seed);
            DYNAMIC_SECTION(key) {
                REQUIRE(golden.count(key) == 1);
                Generator gen(BernoulliKernel::standard);
                gen.manual_seed(static_cast<std::uint64_t>(seed));
                llmfs::testing::check_printed(key, run(gen), golden.at(key));
            }
        }
    }
}
