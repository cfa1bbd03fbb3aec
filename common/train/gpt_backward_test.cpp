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
        const Generator before_dropout = gen;  // the model's dropouts draw from gen: each run starts from here
        for (const StepKernels kernels : {StepKernels::reference, StepKernels::fast}) {
            INFO((kernels == StepKernels::fast ? "fast" : "reference"));
            gen = before_dropout;
            GPTSaved saved;
            gpt_forward(model, xt::adapt(inputs, std::array<std::size_t, 2>{B, T}), saved, kernels);
            GPTGrads grads;
            const float loss = gpt_loss_backward(model, saved, targets.data(), grads, kernels);
            if (!exact) {
                CHECK(loss == Approx(detail::float_of(static_cast<std::uint32_t>(std::stoul(c.at("loss"), nullptr, 16)))).epsilon(1e-4));
                continue;
            }
            CHECK(fnv1a64(saved.logits) == c.at("logits_fnv1a64"));
            CHECK(hex32(loss) == c.at("loss"));
            for (const auto& [name, grad] : named_gradients(grads)) {
                INFO(name);
                CHECK(fnv1a64(*grad) == c.at(name + "_fnv1a64"));
            }
        }
    }
}

// The fast step against the reference step, bit for bit, where the fast one takes its other paths:
// attention heads on the pool (T <= 256) and not (T > 256), several rows and columns per pool chunk,
// dropout on and off, qkv_bias on and off. Both run on this CPU's OpenBLAS kernel, so this holds
// under every kernel (tests/blas_kernels.sh).
TEST_CASE("gpt_forward and gpt_loss_backward: the fast kernels give the reference's logits, loss and gradients bit for bit") {
    struct Case {
        GPTConfig cfg;  // V, context, C, NH, L, dropout, qkv_bias
        std::size_t B, T;
    };
    for (const Case& k : {Case{{300, 256, 128, 2, 2, 0.1, false}, 2, 256}, Case{{97, 40, 64, 4, 1, 0.0, true}, 3, 40},
                          Case{{50, 300, 32, 1, 1, 0.2, true}, 1, 300}}) {
        const GPTConfig& cfg = k.cfg;
        INFO("V " << cfg.vocab_size << " C " << cfg.emb_dim << " NH " << cfg.n_heads << " L " << cfg.n_layers << " B " << k.B << " T " << k.T);
        Generator gen(BernoulliKernel::standard);
        gen.manual_seed(2);
        GPTModel model(gen, cfg);
        model.train(true);
        const std::vector<std::int64_t> inputs = gen.randint(0, static_cast<std::int64_t>(cfg.vocab_size), k.B * k.T);
        const std::vector<std::int64_t> targets = gen.randint(0, static_cast<std::int64_t>(cfg.vocab_size), k.B * k.T);
        const Generator before_dropout = gen;
        std::vector<std::string> hashes[2];
        for (const StepKernels kernels : {StepKernels::reference, StepKernels::fast}) {
            gen = before_dropout;
            GPTSaved saved;
            gpt_forward(model, xt::adapt(inputs, std::array<std::size_t, 2>{k.B, k.T}), saved, kernels);
            GPTGrads grads;
            const float loss = gpt_loss_backward(model, saved, targets.data(), grads, kernels);
            auto& h = hashes[kernels == StepKernels::fast];
            h.push_back(fnv1a64(saved.logits));
            h.push_back(hex32(loss));
            for (const auto& [name, grad] : named_gradients(grads)) h.push_back(name + " " + fnv1a64(*grad));
        }
        REQUIRE(hashes[0].size() == hashes[1].size());
        for (std::size_t i = 0; i < hashes[0].size(); ++i) CHECK(hashes[1][i] == hashes[0][i]);
    }
}
