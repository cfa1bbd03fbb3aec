// linear_shapes against a built GPTModel, and thop's counts for the four GPT-2 sizes (the values
// tests/goldens/flops_reference.py's thop re-implementation gives, NOTES in its docstring).
#include <catch2/catch.hpp>

#include <vector>

#include "llmfs/nn/flops.hpp"

using namespace llmfs;

TEST_CASE("linear_shapes lists a built GPTModel's nn.Linear modules, in order") {
    GPTConfig cfg;
    cfg.vocab_size = 50;
    cfg.context_length = 8;
    cfg.emb_dim = 16;
    cfg.n_heads = 2;
    cfg.n_layers = 3;
    for (const bool qkv_bias : {false, true}) {
        cfg.qkv_bias = qkv_bias;
        Generator gen;
        const GPTModel model(gen, cfg, Init::zeros);
        std::vector<const Linear*> built;
        for (const TransformerBlock& block : model.trf_blocks)
            for (const Linear* l : {&block.att.W_query, &block.att.W_key, &block.att.W_value, &block.att.out_proj,
                                    &block.ff.fc1, &block.ff.fc2})
                built.push_back(l);
        built.push_back(&model.out_head);
        const std::vector<LinearShape> shapes = linear_shapes(cfg);
        REQUIRE(shapes.size() == built.size());
        for (std::size_t i = 0; i < shapes.size(); ++i) {
            INFO(shapes[i].name);
            CHECK(shapes[i].in_features == built[i]->in_features());
            CHECK(shapes[i].out_features == built[i]->out_features());
            CHECK(shapes[i].bias == static_cast<bool>(built[i]->bias));
        }
        CHECK(shapes.front().name == "trf_blocks.0.att.W_query");
        CHECK(shapes[5].name == "trf_blocks.0.ff.layers.2");
    }
}

TEST_CASE("thop's multiply-adds for GPT-2's four sizes, batch 2 x 1024 tokens") {
    CHECK(thop_macs(GPTConfig::gpt2_small(), 2, 1024) == 252993601536.0);
    CHECK(thop_macs(GPTConfig::gpt2_medium(), 2, 1024) == 723871858688.0);
    CHECK(thop_macs(GPTConfig::gpt2_large(), 2, 1024) == 1581297172480.0);
    CHECK(thop_macs(GPTConfig::gpt2_xl(), 2, 1024) == 3184581017600.0);
}
