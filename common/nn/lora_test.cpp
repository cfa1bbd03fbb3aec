// Appendix E's LoRA adapters: where their draws come from, the trainable counts the notebook
// prints, print(model) and the forward (self.linear(x) + self.lora(x)). The training against
// PyTorch is common/train/classifier_test.cpp's; the backward by finite differences,
// common/train/attention_backward_test.cpp's.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "llmfs/nn/lora.hpp"
#include "llmfs/nn/module.hpp"
#include "test_support.hpp"

using namespace llmfs;

namespace {

GPTConfig tiny() {
    GPTConfig cfg;
    cfg.context_length = 16;
    cfg.emb_dim = 12;
    cfg.n_heads = 2;
    cfg.n_layers = 2;
    cfg.drop_rate = 0.0;
    cfg.qkv_bias = true;
    return cfg;
}

}  // namespace

TEST_CASE("lora: A is kaiming_uniform_ over fan_in = rank, drawn layer by layer in named_children order, B zeros") {
    Generator gen(BernoulliKernel::standard);
    gen.manual_seed(123);
    GPTModel model(gen, tiny());
    gen.manual_seed(7);
    replace_linear_with_lora(model, gen, 16, 16.0);
    Generator replay(BernoulliKernel::standard);
    replay.manual_seed(7);
    const auto linears = named_linears(model);
    REQUIRE(linears.size() == 2 * 6 + 1);
    CHECK(linears[1].first == "trf_blocks.0.att.W_key");
    CHECK(linears[4].first == "trf_blocks.0.ff.layers.0");
    CHECK(linears.back().first == "out_head");
    const double bound = std::sqrt(3.0) * (std::sqrt(2.0 / (1.0 + 5.0)) / std::sqrt(16.0));  // kaiming_uniform_(a=sqrt(5))
    for (const auto& [name, linear] : linears) {
        INFO(name);
        const LoRA& lora = *linear->lora;
        REQUIRE(lora.A.data.shape()[0] == linear->in_features());
        REQUIRE(lora.A.data.shape()[1] == 16);
        std::vector<float> expected(lora.A.data.size());
        replay.uniform_(expected.data(), expected.size(), -bound, bound);
        CHECK(std::vector<float>(lora.A.data.begin(), lora.A.data.end()) == expected);
        for (float b : lora.B.data) CHECK(b == 0.0f);
    }
    CHECK_THROWS_WITH(replace_linear_with_lora(model, gen, 16, 16.0), Catch::Contains("already has a LoRA adapter"));
    CHECK_THROWS_WITH(replace_linear_with_lora(model, gen, 0, 16.0), Catch::Contains("rank must be positive"));
}

TEST_CASE("lora: the notebook's trainable counts (GPT-2 124M with the two-class head: 124,441,346, then 2,666,528)") {
    // 124M's shapes without its 163M draws: the counts follow from the shapes alone
    GPTConfig cfg = GPTConfig::gpt2_small();
    cfg.context_length = 1024;
    cfg.qkv_bias = true;
    Generator gen(BernoulliKernel::standard);
    GPTModel model(gen, cfg, Init::zeros);
    model.out_head = Linear(gen, cfg.emb_dim, 2, true, Init::zeros);
    CHECK(model.num_parameters() == 124441346);
    replace_linear_with_lora(model, gen, 16, 16.0);
    CHECK(lora_parameter_count(model) == 2666528);
    CHECK(model.num_parameters() == 124441346 + 2666528);
}

TEST_CASE("lora: print(model) shows LinearWithLoRA(linear, lora), and the forward adds the adapter's product") {
    Generator gen(BernoulliKernel::standard);
    gen.manual_seed(1);
    Linear plain(gen, 3, 2, true);
    Linear adapted = plain;
    adapted.lora.emplace(gen, 3, 2, 4, 2.0);
    CHECK(repr(module_repr(adapted)) ==
          "LinearWithLoRA(\n  (linear): Linear(in_features=3, out_features=2, bias=True)\n  (lora): LoRALayer()\n)");
    Tensor<2> x(Array<2>{{1.0f, -2.0f, 0.5f}, {0.25f, 3.0f, -1.0f}});
    const bool unchanged = adapted(x).data == plain(x).data;  // B = 0: the base layer's output, bit for bit
    CHECK(unchanged);
    adapted.lora->B.data(1, 1) = 0.5f;
    const Array<2> y = adapted(x).data, base = plain(x).data;
    for (std::size_t i = 0; i < 2; ++i) {
        float t = 0.0f;  // (x @ A)[i] @ B[:, 1] with B's only nonzero entry at row 1
        t = x.data(i, 0) * adapted.lora->A.data(0, 1) + x.data(i, 1) * adapted.lora->A.data(1, 1) + x.data(i, 2) * adapted.lora->A.data(2, 1);
        CHECK(y(i, 0) == base(i, 0));
        CHECK(y(i, 1) == Approx(base(i, 1) + 0.5f * (t * 0.5f)).epsilon(1e-6));
    }
    CHECK_THROWS_AS(adapted.forward_rows(x.data.data(), 2, nullptr), std::logic_error);
}

TEST_CASE("lora: the bonus script's lora_alternative merges out_head only, x times W + alpha * (A @ B).T") {
    Generator gen(BernoulliKernel::standard);
    gen.manual_seed(123);
    GPTModel model(gen, tiny());
    replace_linear_with_lora(model, gen, 2, 8.0, LoRAScaling::alpha, LoRAForm::merged);
    for (const auto& [name, linear] : named_linears(model)) {  // the script does not pass `alternative` down its recursion
        INFO(name);
        CHECK((linear->lora->form == LoRAForm::merged) == (name == "out_head"));
    }
    CHECK(repr(module_repr(model.out_head)).rfind("LinearWithLoRAMerged(\n  (linear): Linear(", 0) == 0);
    // the merged weight, element by element: W[o][i] + (A @ B)[i][o] * alpha
    Linear& head = model.out_head;
    for (std::size_t i = 0; i < head.lora->B.data.size(); ++i) head.lora->B.data.data()[i] = 0.01f * static_cast<float>(i % 7) - 0.02f;
    std::vector<float> merged(head.weight.data.size());
    head.lora->merged_weight(head.weight.data.data(), merged.data());
    const std::size_t in = head.in_features(), out = head.out_features(), r = head.lora->rank;
    for (std::size_t o = 0; o < out; o += 997)
        for (std::size_t i = 0; i < in; ++i) {
            double ab = 0.0;
            for (std::size_t j = 0; j < r; ++j) ab += static_cast<double>(head.lora->A.data(i, j)) * head.lora->B.data(j, o);
            CHECK(merged[o * in + i] == Approx(head.weight.data(o, i) + 8.0 * ab).margin(1e-6));
        }
    // the forward multiplies x by the merged weight: one product
    Tensor<3> x(xt::eval(randn<3>(gen, {1, 3, in})));
    const Array<3> y = head(x).data;
    for (std::size_t o = 0; o < out; o += 4999) {
        double expect = head.bias ? head.bias->data(o) : 0.0;
        for (std::size_t i = 0; i < in; ++i) expect += static_cast<double>(x.data(0, 2, i)) * merged[o * in + i];
        CHECK(y(0, 2, o) == Approx(expect).margin(1e-5));
    }
}
