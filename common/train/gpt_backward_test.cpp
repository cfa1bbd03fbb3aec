// The whole GPTModel's training step before the optimizer: forward in training mode, loss and
// backward, against PyTorch's bits for every parameter (data/tests/train_cases.txt, made by
// tests/goldens/make_train_goldens.py: the book's GPTModel, 1 and 2 layers, dropout 0 to 0.5,
// with and without qkv_bias, vocabularies of 97 to 50257).
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include <xtensor/xadapt.hpp>

#include "llmfs/torch/blas.hpp"
#include "llmfs/train/gpt_backward.hpp"
#include "test_support.hpp"

using namespace llmfs;
using llmfs::testing::fnv1a64;
using llmfs::testing::hex32;

// Tagged [blas]: exact under the goldens' kernel; elsewhere the loss is checked close.
TEST_CASE("gpt_forward and gpt_loss_backward: PyTorch's logits, loss and every parameter's gradient bits", "[blas]") {
    const bool exact = blas_kernel() == golden_blas_kernel();
    for (const auto& c : llmfs::testing::field_cases(LLMFS_TEST_DATA_DIR "/train_cases.txt", "gpt")) {
        INFO(c.name);
        GPTConfig cfg;
        cfg.vocab_size = c.number("V");
        cfg.context_length = c.number("context");
        cfg.emb_dim = c.number("C");
        cfg.n_heads = c.number("NH");
        cfg.n_layers = c.number("L");
        cfg.drop_rate = std::stod(c.at("p"));
        cfg.qkv_bias = c.number("qkv_bias") == 1;
        const std::size_t B = c.number("B"), T = c.number("T");
        // torch.manual_seed(seed); model = GPTModel(cfg); model.train(); inputs, targets = torch.randint(0, V, (B, T))
        Generator gen(BernoulliKernel::standard);
        gen.manual_seed(c.number("seed"));
        GPTModel model(gen, cfg);
        model.train(true);
        const std::vector<std::int64_t> inputs = gen.randint(0, static_cast<std::int64_t>(cfg.vocab_size), B * T);
        const std::vector<std::int64_t> targets = gen.randint(0, static_cast<std::int64_t>(cfg.vocab_size), B * T);
        GPTSaved saved;
        const Tensor<3> logits = gpt_forward(model, xt::adapt(inputs, std::array<std::size_t, 2>{B, T}), saved);
        GPTGrads grads;
        const float loss = gpt_loss_backward(model, saved, targets.data(), grads);
        if (!exact) {
            CHECK(loss == Approx(detail::float_of(static_cast<std::uint32_t>(std::stoul(c.at("loss"), nullptr, 16)))).epsilon(1e-4));
            continue;
        }
        CHECK(fnv1a64(std::vector<float>(logits.data.begin(), logits.data.end())) == c.at("logits_fnv1a64"));
        CHECK(hex32(loss) == c.at("loss"));
        for (const auto& [name, grad] : named_gradients(grads)) {
            INFO(name);
            CHECK(fnv1a64(*grad) == c.at(name + "_fnv1a64"));
        }
    }
}
