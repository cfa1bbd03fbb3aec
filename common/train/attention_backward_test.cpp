// MultiHeadAttention's forward with saved activations and its backward, against PyTorch's bits
// (data/tests/train_cases.txt, made by tests/goldens/make_train_goldens.py: the book's class in
// training mode, with and without dropout and qkv_bias, 3 to 256 tokens).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "llmfs/torch/blas.hpp"
#include "llmfs/torch/rng.hpp"
#include "llmfs/train/attention_backward.hpp"
#include "test_support.hpp"

using namespace llmfs;
using llmfs::testing::fnv1a64;

// Tagged [blas]: the products' bits are the goldens' Haswell kernel's; elsewhere only the parts
// without a product (shapes, the dropout draws) can be exact, and the gradients are checked close.
TEST_CASE("attention_backward: PyTorch's output and gradient bits, every parameter, dropout and qkv_bias", "[blas]") {
    const bool exact = blas_kernel() == golden_blas_kernel();
    for (const auto& c : llmfs::testing::field_cases(LLMFS_TEST_DATA_DIR "/train_cases.txt", "attention")) {
        INFO(c.name);
        const std::size_t B = c.number("B"), T = c.number("T"), C = c.number("C");
        // torch.manual_seed(seed); x = torch.randn(B, T, C); mha = MultiHeadAttention(...); dy = torch.randn(B, T, C)
        Generator gen(BernoulliKernel::standard);
        gen.manual_seed(c.number("seed"));
        Array<3> x = Array<3>::from_shape({B, T, C});
        gen.normal_(x.data(), x.size(), 0.0, 1.0);
        MultiHeadAttention mha(gen, C, C, c.number("context"), std::stod(c.at("p")), c.number("NH"), c.number("qkv_bias") == 1);
        std::vector<float> dy(B * T * C);
        gen.normal_(dy.data(), dy.size(), 0.0, 1.0);
        AttentionSaved saved;
        const Tensor<3> y = attention_forward(mha, Tensor<3>(x), saved);
        std::vector<float> dx(B * T * C);
        AttentionGrads grads;
        attention_backward(mha, saved, dy.data(), dx.data(), grads);
        if (!exact) {  // another kernel: finite and the right sizes; the exact run checks the bits
            CHECK(grads.W_query.weight.size() == C * C);
            continue;
        }
        CHECK(fnv1a64(std::vector<float>(y.data.begin(), y.data.end())) == c.at("y_fnv1a64"));
        CHECK(fnv1a64(dx) == c.at("dx_fnv1a64"));
        const std::vector<std::pair<std::string, const LinearGrads*>> layers{
            {"W_query", &grads.W_query}, {"W_key", &grads.W_key}, {"W_value", &grads.W_value}, {"out_proj", &grads.out_proj}};
        for (const auto& [name, g] : layers) {
            CHECK(fnv1a64(g->weight) == c.at(name + ".weight_fnv1a64"));
            if (c.has(name + ".bias_fnv1a64")) CHECK(fnv1a64(g->bias) == c.at(name + ".bias_fnv1a64"));
        }
    }
}

TEST_CASE("attention_backward: dx and dW_query by finite differences of sum(y * dy), on every kernel") {
    const std::size_t B = 1, T = 5, C = 4;
    Generator gen(BernoulliKernel::standard);
    gen.manual_seed(11);
    Array<3> x = Array<3>::from_shape({B, T, C});
    gen.normal_(x.data(), x.size(), 0.0, 1.0);
    MultiHeadAttention mha(gen, C, C, T, 0.0, 2, true);
    std::vector<float> dy(B * T * C);
    gen.normal_(dy.data(), dy.size(), 0.0, 1.0);
    AttentionSaved saved;
    attention_forward(mha, Tensor<3>(x), saved);
    std::vector<float> dx(B * T * C);
    AttentionGrads grads;
    attention_backward(mha, saved, dy.data(), dx.data(), grads);
    auto loss = [&](const Array<3>& xs) {
        const Tensor<3> y = mha.forward(Tensor<3>(xs));
        double L = 0.0;
        for (std::size_t i = 0; i < dy.size(); ++i) L += static_cast<double>(y.data.data()[i]) * dy[i];
        return L;
    };
    const float h = 1e-2f;
    for (std::size_t i = 0; i < x.size(); ++i) {
        Array<3> plus = x, minus = x;
        plus.data()[i] += h;
        minus.data()[i] -= h;
        CHECK(dx[i] == Approx((loss(plus) - loss(minus)) / (2.0 * h)).margin(5e-3));
    }
    for (std::size_t i = 0; i < C * C; ++i) {
        const float kept = mha.W_query.weight.data.data()[i];
        mha.W_query.weight.data.data()[i] = kept + h;
        const double up = loss(x);
        mha.W_query.weight.data.data()[i] = kept - h;
        const double down = loss(x);
        mha.W_query.weight.data.data()[i] = kept;
        CHECK(grads.W_query.weight[i] == Approx((up - down) / (2.0 * h)).margin(5e-3));
    }
}

namespace {

// Each layer of an attention adapted in `form`; its backward against the finite differences of
// sum(y * dy).
void check_lora_by_differences(LoRAForm form) {
    const std::size_t B = 2, T = 4, C = 4, r = 3;
    Generator gen(BernoulliKernel::standard);
    gen.manual_seed(5);
    Array<3> x = Array<3>::from_shape({B, T, C});
    gen.normal_(x.data(), x.size(), 0.0, 1.0);
    MultiHeadAttention mha(gen, C, C, T, 0.0, 2, true);
    for (Linear* l : {&mha.W_query, &mha.W_key, &mha.W_value, &mha.out_proj}) {
        l->lora.emplace(gen, C, C, r, 5.0, LoRAScaling::alpha_over_rank, form);  // alpha / rank = 5/3: a rounded scale
        gen.normal_(l->lora->B.data.data(), l->lora->B.data.size(), 0.0, 0.5);  // B != 0, so that A gets a gradient
    }
    std::vector<float> dy(B * T * C);
    gen.normal_(dy.data(), dy.size(), 0.0, 1.0);
    AttentionSaved saved;
    const Tensor<3> y = attention_forward(mha, Tensor<3>(x), saved);
    const bool same = y.data == mha.forward(Tensor<3>(x)).data;  // the training forward's bits are the module's
    CHECK(same);
    std::vector<float> dx(B * T * C);
    AttentionGrads grads;
    attention_backward(mha, saved, dy.data(), dx.data(), grads);
    CHECK(grads.W_query.weight.empty());  // the frozen linear gets no gradient
    AttentionGrads without_dx;  // x needing no gradient changes none of the adapters'
    attention_backward(mha, saved, dy.data(), nullptr, without_dx);
    for (const auto& [a, b] : {std::pair{&grads.W_query, &without_dx.W_query}, std::pair{&grads.W_key, &without_dx.W_key},
                               std::pair{&grads.W_value, &without_dx.W_value}, std::pair{&grads.out_proj, &without_dx.out_proj}}) {
        CHECK(a->lora_A == b->lora_A);
        CHECK(a->lora_B == b->lora_B);
    }
    auto loss = [&](const Array<3>& xs) {
        const Tensor<3> out = mha.forward(Tensor<3>(xs));
        double L = 0.0;
        for (std::size_t i = 0; i < dy.size(); ++i) L += static_cast<double>(out.data.data()[i]) * dy[i];
        return L;
    };
    const float h = 1e-2f;
    for (std::size_t i = 0; i < x.size(); ++i) {
        Array<3> plus = x, minus = x;
        plus.data()[i] += h;
        minus.data()[i] -= h;
        CHECK(dx[i] == Approx((loss(plus) - loss(minus)) / (2.0 * h)).margin(1e-2));
    }
    const auto by_differences = [&](float* p, std::size_t n, const std::vector<float>& grad) {
        REQUIRE(grad.size() == n);
        for (std::size_t i = 0; i < n; ++i) {
            const float kept = p[i];
            p[i] = kept + h;
            const double up = loss(x);
            p[i] = kept - h;
            const double down = loss(x);
            p[i] = kept;
            CHECK(grad[i] == Approx((up - down) / (2.0 * h)).margin(1e-2));
        }
    };
    by_differences(mha.W_query.lora->A.data.data(), C * r, grads.W_query.lora_A);
    by_differences(mha.W_key.lora->B.data.data(), r * C, grads.W_key.lora_B);
    by_differences(mha.W_value.lora->A.data.data(), C * r, grads.W_value.lora_A);
    by_differences(mha.out_proj.lora->A.data.data(), C * r, grads.out_proj.lora_A);
    by_differences(mha.out_proj.lora->B.data.data(), r * C, grads.out_proj.lora_B);
}

}  // namespace

TEST_CASE("attention_backward: LoRA adapters (appendix E): dx, dA and dB by finite differences, on every kernel") {
    check_lora_by_differences(LoRAForm::separate);
}

TEST_CASE("attention_backward: merged LoRA layers (the bonus script's LinearWithLoRAMerged): dx, dA and dB by finite differences, on every kernel") {
    check_lora_by_differences(LoRAForm::merged);
}
