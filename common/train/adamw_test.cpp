// AdamW's step against real PyTorch 1.13 (data/tests/train_cases.txt, made by
// tests/goldens/make_train_goldens.py: one parameter over up to 1300 steps, past step 1270 where
// math.sqrt and ** 0.5 first differ), and the two versions' formulas against each other.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "llmfs/torch/rng.hpp"
#include "llmfs/train/adamw.hpp"
#include "test_support.hpp"

using namespace llmfs;
using llmfs::testing::fnv1a64;

namespace {

struct Checkpoint {
    std::size_t step;
    std::string param, exp_avg;
};

std::vector<Checkpoint> checkpoints_of(const std::string& text) {  // "1 P M | 2 P M | ..."
    std::vector<Checkpoint> out;
    std::istringstream in(text);
    for (std::string step, param, exp_avg, bar; in >> step >> param >> exp_avg; in >> bar) out.push_back({std::stoul(step), param, exp_avg});
    return out;
}

// The case's run: p = randn(n) * 0.02; each step p.grad = randn(n) * gscale; opt.step()
void replay(const llmfs::testing::FieldCase& c, PyTorchVersion version) {
    const std::size_t n = c.number("n");
    Generator gen(BernoulliKernel::standard);
    gen.manual_seed(c.number("seed"));
    std::vector<float> p(n), grad(n);
    gen.normal_(p.data(), n, 0.0, 1.0);
    for (float& x : p) x *= 0.02f;
    AdamWOptions options;
    options.lr = std::stod(c.at("lr"));
    options.weight_decay = std::stod(c.at("wd"));
    options.version = version;
    const auto gscale = static_cast<float>(std::stod(c.at("gscale")));
    AdamWState state;
    const auto checkpoints = checkpoints_of(c.at("at"));
    REQUIRE(!checkpoints.empty());
    std::size_t next = 0;
    for (std::size_t step = 1; step <= c.number("steps"); ++step) {
        gen.normal_(grad.data(), n, 0.0, 1.0);
        for (float& g : grad) g *= gscale;
        adamw_step(p.data(), grad.data(), n, state, options);
        if (next < checkpoints.size() && checkpoints[next].step == step) {
            INFO("step " << step);
            CHECK(fnv1a64(p) == checkpoints[next].param);
            CHECK(fnv1a64(state.exp_avg) == checkpoints[next].exp_avg);
            ++next;
        }
    }
    CHECK(next == checkpoints.size());
}

}  // namespace

TEST_CASE("adamw_step --pytorch 1.13: real PyTorch 1.13's parameters and exp_avg bit for bit, up to 1300 steps") {
    for (const auto& c : llmfs::testing::field_cases(LLMFS_TEST_DATA_DIR "/train_cases.txt", "adamw/1.13")) {
        INFO(c.name);
        replay(c, PyTorchVersion::v1_13);
    }
}

TEST_CASE("adamw_step: 2.x's lerp_ and ** 0.5 against 1.13's mul_/add_ and math.sqrt, close, and the flag's spelling") {
    std::vector<float> p1(64), p2(64), grad(64);
    Generator gen(BernoulliKernel::standard);
    gen.manual_seed(3);
    gen.normal_(p1.data(), p1.size(), 0.0, 1.0);
    p2 = p1;
    AdamWState s1, s2;
    AdamWOptions o1, o2;
    o1.version = PyTorchVersion::v1_13;
    o2.version = PyTorchVersion::v2;
    for (int step = 0; step < 50; ++step) {
        gen.normal_(grad.data(), grad.size(), 0.0, 0.01);
        adamw_step(p1.data(), grad.data(), p1.size(), s1, o1);
        adamw_step(p2.data(), grad.data(), p2.size(), s2, o2);
    }
    for (std::size_t i = 0; i < p1.size(); ++i) CHECK(p1[i] == Approx(p2[i]).epsilon(1e-5));
    CHECK(parse_pytorch_version("2") == PyTorchVersion::v2);
    CHECK(parse_pytorch_version("1.13") == PyTorchVersion::v1_13);
    CHECK(!parse_pytorch_version("2.9"));
    CHECK(to_string(PyTorchVersion::v1_13) == "1.13");
    // the bias correction's square root: the two spellings first differ at step 1270 (measured in Python)
    int first = 0;
    for (int t = 1; t <= 2000 && first == 0; ++t) {
        const double bc2 = 1.0 - std::pow(0.999, static_cast<double>(t));
        if (std::sqrt(bc2) != std::pow(bc2, 0.5)) first = t;
    }
    CHECK(first == 1270);
}

TEST_CASE("adamw_update: the vector kernel on the pool gives the naive loop's bits, both versions, ragged sizes") {
    Generator gen(BernoulliKernel::standard);
    gen.manual_seed(11);
    for (const std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{1000}, std::size_t{3} * 65536 + 13}) {
        for (const PyTorchVersion version : {PyTorchVersion::v2, PyTorchVersion::v1_13}) {
            for (const bool plus_zero : {false, true}) {
                INFO("n " << n << " version " << to_string(version) << " 0 + grad " << plus_zero);
                std::vector<float> param(n), grad(n), m(n), v(n);
                gen.normal_(param.data(), n, 0.0, 0.02);
                gen.normal_(grad.data(), n, 0.0, 0.01);
                gen.normal_(m.data(), n, 0.0, 0.001);
                gen.normal_(v.data(), n, 0.0, 1e-5);
                for (std::size_t i = 0; i < n; ++i) {
                    v[i] = v[i] * v[i];
                    if (i % 5 == 0) grad[i] = -0.0f;  // 1.13's 0 + grad makes it +0
                    if (i % 7 == 0) v[i] = 0.0f;
                }
                const AdamWScalars s{0.99995f, 0.9f, 0.1f, 0.999f, 0.001f, 0.0447f, 1e-8f, -0.005f, version, plus_zero};
                auto p1 = param, m1 = m, v1 = v;
                adamw_update_naive(p1.data(), grad.data(), m1.data(), v1.data(), n, s);
                adamw_update(param.data(), grad.data(), m.data(), v.data(), n, s);
                CHECK(fnv1a64(param) == fnv1a64(p1));
                CHECK(fnv1a64(m) == fnv1a64(m1));
                CHECK(fnv1a64(v) == fnv1a64(v1));
            }
        }
    }
}
