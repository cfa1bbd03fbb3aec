// print(module) against PyTorch (data/tests/module_cases.txt, made by
// tests/goldens/make_module_goldens.py with PyTorch 2.x's ModuleList rule).
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <string>

#include "llmfs/nn/module.hpp"
#include "test_support.hpp"

using namespace llmfs;

namespace {

std::map<std::string, std::string> load_cases() { return testing::load_cases(LLMFS_TEST_DATA_DIR "/module_cases.txt"); }

GPTConfig tiny() {  // TINY in make_module_goldens.py
    GPTConfig c;
    c.vocab_size = 10;
    c.context_length = 4;
    c.emb_dim = 4;
    c.n_heads = 2;
    c.n_layers = 2;
    c.drop_rate = 0.0;
    c.qkv_bias = true;
    return c;
}

const std::map<std::string, std::function<ModuleRepr(Generator&)>> kCases = {
    {"causal_attention", [](Generator& g) { return module_repr(CausalAttention(g, 3, 2, 6, 0.5)); }},
    {"wrapper_two_heads", [](Generator& g) { return module_repr(MultiHeadAttentionWrapper(g, 3, 2, 6, 0.0, 2)); }},
    {"wrapper_one_head", [](Generator& g) { return module_repr(MultiHeadAttentionWrapper(g, 3, 2, 6, 0.1, 1)); }},
    {"multihead_attention", [](Generator& g) { return module_repr(MultiHeadAttention(g, 8, 8, 5, 0.25, 2, true)); }},
    {"feed_forward", [](Generator& g) { return module_repr(FeedForward(g, tiny())); }},
    {"transformer_block_124M", [](Generator& g) { return module_repr(TransformerBlock(g, GPTConfig::gpt2_small())); }},
    {"gpt_tiny", [](Generator& g) { return module_repr(GPTModel(g, tiny())); }},
};

}  // namespace

TEST_CASE("print(module) prints what PyTorch prints for each case") {
    const auto cases = load_cases();
    REQUIRE(cases.size() == kCases.size());
    for (const auto& [name, make] : kCases) {
        INFO("case " << name);
        REQUIRE(cases.count(name) == 1);
        Generator gen;
        CHECK(repr(make(gen)) == cases.at(name));
    }
}

TEST_CASE("ModuleList groups only equal consecutive children (PyTorch 2.x)") {
    const ModuleRepr a{"Linear", "in_features=1, out_features=1, bias=True", {}, false};
    const ModuleRepr b{"Dropout", "p=0.5, inplace=False", {}, false};
    const ModuleRepr list{"ModuleList", {}, {{"0", a}, {"1", a}, {"2", b}, {"3", a}}, true};
    CHECK(repr(list) ==
          "ModuleList(\n"
          "  (0-1): 2 x Linear(in_features=1, out_features=1, bias=True)\n"
          "  (2): Dropout(p=0.5, inplace=False)\n"
          "  (3): Linear(in_features=1, out_features=1, bias=True)\n"
          ")");
    CHECK(repr(ModuleRepr{"ModuleList", {}, {}, true}) == "ModuleList()");
}

TEST_CASE("A module with a one-line extra_repr and no children prints on one line") {
    CHECK(repr(ModuleRepr{"GELU", {}, {}, false}) == "GELU()");
    CHECK(repr(ModuleRepr{"Embedding", "10, 4", {}, false}) == "Embedding(10, 4)");
    // several extra_repr lines are listed like children
    CHECK(repr(ModuleRepr{"M", "a=1\nb=2", {}, false}) == "M(\n  a=1\n  b=2\n)");
}
