// cross_entropy, log_softmax and nll_loss against real PyTorch's bits (data/tests/train_cases.txt,
// made by tests/goldens/make_train_goldens.py), and the fused cross_entropy against log_softmax_rows
// followed by nll_loss_mean (the naive reference beside it); the pooled backward against the plain one.
#include <catch2/catch.hpp>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "llmfs/fast/thread_pool.hpp"
#include "llmfs/torch/loss.hpp"
#include "llmfs/torch/rng.hpp"
#include "test_support.hpp"

using namespace llmfs;
using llmfs::testing::fnv1a64;
using llmfs::testing::hex32;

namespace {

struct Inputs {
    std::size_t N, V;
    std::vector<float> logits;          // [N, V]
    std::vector<std::int64_t> targets;  // [N]
};

// torch.manual_seed(seed); logits = torch.randn(N, V) * scale; targets = torch.randint(0, V, (N,))
Inputs inputs_of(const llmfs::testing::FieldCase& c) {
    Inputs in{c.number("N"), c.number("V"), {}, {}};
    Generator gen(BernoulliKernel::standard);
    gen.manual_seed(c.number("seed"));
    in.logits.resize(in.N * in.V);
    gen.normal_(in.logits.data(), in.logits.size(), 0.0, 1.0);
    const auto scale = static_cast<float>(std::stod(c.at("scale")));
    for (float& x : in.logits) x *= scale;
    in.targets = gen.randint(0, static_cast<std::int64_t>(in.V), in.N);
    return in;
}

}  // namespace

TEST_CASE("cross_entropy and its backward: PyTorch's loss and gradient bits, from 1 row to 1030, vocabularies of 1 to 50257") {
    for (const auto& c : llmfs::testing::field_cases(LLMFS_TEST_DATA_DIR "/train_cases.txt", "cross_entropy")) {
        INFO(c.name);
        const Inputs in = inputs_of(c);
        REQUIRE(fnv1a64(in.logits) == c.at("logits_fnv1a64"));
        REQUIRE(in.targets == c.indices("targets"));
        // Every target ignored: PyTorch's mean is 0/0, the CPU's default NaN, whose sign is the
        // CPU's (x86, where the goldens were made: ffc00000; ARM: 7fc00000). Expected as this CPU's.
        volatile float zero = 0.0f;
        const bool all_ignored = c.at("loss") == "ffc00000";
        const std::string loss = all_ignored ? hex32(zero / zero) : c.at("loss");
        CHECK(hex32(cross_entropy(in.logits.data(), in.N, in.V, in.targets.data())) == loss);
        std::vector<float> log_probs(in.logits.size());
        log_softmax_rows(in.logits.data(), log_probs.data(), in.N, in.V);
        CHECK(fnv1a64(log_probs) == c.at("log_softmax_fnv1a64"));
        // the fused loss is the naive one: log_softmax over every row, then nll_loss
        CHECK(hex32(nll_loss_mean(log_probs.data(), in.N, in.V, in.targets.data())) == c.at("loss"));
        std::vector<float> grad(in.logits.size());
        CHECK(hex32(cross_entropy_backward(in.logits.data(), in.N, in.V, in.targets.data(), grad.data())) == c.at("loss"));
        std::string head;
        for (std::size_t i = 0; i < std::min<std::size_t>(8, grad.size()); ++i) head += (i ? " " : "") + hex32(grad[i]);
        CHECK(head == c.at("grad_head"));
        CHECK(fnv1a64(grad) == c.at("grad_fnv1a64"));
        // the fast one, its rows on the pool: the same loss and gradient
        std::vector<float> fast(in.logits.size());
        const RowRunner on_pool = [](std::size_t n, const std::function<void(std::size_t)>& fn) { compute_pool().run(n, fn); };
        CHECK(hex32(cross_entropy_backward(in.logits.data(), in.N, in.V, in.targets.data(), fast.data(), on_pool)) == c.at("loss"));
        CHECK(fnv1a64(fast) == c.at("grad_fnv1a64"));
    }
}

TEST_CASE("cross_entropy with ignore_index -100 (chapter 7's padding): PyTorch's loss and gradient bits") {
    const RowRunner serial = [](std::size_t n, const std::function<void(std::size_t)>& fn) {
        for (std::size_t i = 0; i < n; ++i) fn(i);
    };
    for (const auto& c : llmfs::testing::field_cases(LLMFS_TEST_DATA_DIR "/ignore_index_cases.txt", "cross_entropy_ignore")) {
        INFO(c.name);
        Inputs in = inputs_of(c);
        REQUIRE(fnv1a64(in.logits) == c.at("logits_fnv1a64"));
        const std::size_t every = c.number("every"), phase = c.number("phase"), tail = c.number("tail");
        for (std::size_t i = 0; i < in.N; ++i)
            if (i % every == phase || i + tail >= in.N) in.targets[i] = kIgnoreIndex;
        REQUIRE(in.targets == c.indices("targets"));
        // Every target ignored: PyTorch's mean is 0/0, the CPU's default NaN, whose sign is the
        // CPU's (x86, where the goldens were made: ffc00000; ARM: 7fc00000). Expected as this CPU's.
        volatile float zero = 0.0f;
        const bool all_ignored = c.at("loss") == "ffc00000";
        const std::string loss = all_ignored ? hex32(zero / zero) : c.at("loss");
        CHECK(hex32(cross_entropy(in.logits.data(), in.N, in.V, in.targets.data())) == loss);
        std::vector<float> log_probs(in.logits.size());
        log_softmax_rows(in.logits.data(), log_probs.data(), in.N, in.V);
        CHECK(hex32(nll_loss_mean(log_probs.data(), in.N, in.V, in.targets.data())) == loss);
        std::vector<float> grad(in.logits.size()), pooled(in.logits.size());
        CHECK(hex32(cross_entropy_backward(in.logits.data(), in.N, in.V, in.targets.data(), grad.data())) == loss);
        CHECK(fnv1a64(grad) == c.at("grad_fnv1a64"));
        CHECK(hex32(cross_entropy_backward(in.logits.data(), in.N, in.V, in.targets.data(), pooled.data(), serial)) == loss);
        CHECK(fnv1a64(pooled) == c.at("grad_fnv1a64"));
    }
}

TEST_CASE("cross_entropy with ignore_index a label (the bonus script's --ignore_index 0 or 1): PyTorch's loss and gradient bits") {
    for (const auto& c : llmfs::testing::field_cases(LLMFS_TEST_DATA_DIR "/ignore_index_cases.txt", "cross_entropy_ignore_label")) {
        INFO(c.name);
        const Inputs in = inputs_of(c);
        REQUIRE(fnv1a64(in.logits) == c.at("logits_fnv1a64"));
        REQUIRE(in.targets == c.indices("targets"));
        const auto ignore_index = static_cast<std::int64_t>(c.number("ignore_index"));
        volatile float zero = 0.0f;  // every row ignored: 0 / 0, this CPU's NaN (see above)
        const std::string loss = c.at("loss") == "ffc00000" ? hex32(zero / zero) : c.at("loss");
        CHECK(hex32(cross_entropy(in.logits.data(), in.N, in.V, in.targets.data(), ignore_index)) == loss);
        std::vector<float> grad(in.logits.size());
        CHECK(hex32(cross_entropy_backward(in.logits.data(), in.N, in.V, in.targets.data(), grad.data(), 1.0f, ignore_index)) == loss);
        CHECK(fnv1a64(grad) == c.at("grad_fnv1a64"));
    }
}

TEST_CASE("cross_entropy: a target outside the vocabulary and an empty batch are refused") {
    const std::vector<float> logits{0.5f, 1.5f, -1.0f};
    const std::vector<std::int64_t> bad{3}, negative{-1};
    CHECK_THROWS_WITH(cross_entropy(logits.data(), 1, 3, bad.data()), Catch::Contains("target 3") && Catch::Contains("3 classes"));
    CHECK_THROWS_AS(cross_entropy(logits.data(), 1, 3, negative.data()), std::invalid_argument);
    CHECK_THROWS_AS(nll_loss_mean(logits.data(), 0, 3, bad.data()), std::invalid_argument);
    std::vector<float> grad(3);
    const RowRunner serial = [](std::size_t n, const std::function<void(std::size_t)>& fn) {
        for (std::size_t i = 0; i < n; ++i) fn(i);
    };
    CHECK_THROWS_WITH(cross_entropy_backward(logits.data(), 1, 3, bad.data(), grad.data(), serial), Catch::Contains("target 3"));
}
