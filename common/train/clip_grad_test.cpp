// clip_grad_norm_ and the notebook's find_highest_gradient against PyTorch 1.13
// (data/tests/appendix_d_cases.txt, tests/goldens/appendix_d_reference.py): each gradient's norm,
// the total, the clipped gradients' bits, sizes from 3 to GPT-2's output head, tails of 1 to 7.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "llmfs/torch/rng.hpp"
#include "llmfs/train/clip_grad.hpp"
#include "test_support.hpp"

using namespace llmfs;
using llmfs::testing::fnv1a64;
using llmfs::testing::hex32;

namespace {

// vector_norm2 without the lanes: one running sum in double, for a loose check of the fast order
double norm_naive(const std::vector<float>& x) {
    double s = 0;
    for (float v : x) s += static_cast<double>(v) * v;
    return std::sqrt(s);
}

}  // namespace

TEST_CASE("clip_grad_norm_: PyTorch's norms, total and clipped gradients, bit for bit", "[train][appendix_d]") {
    const auto cases = llmfs::testing::field_cases(LLMFS_TEST_DATA_DIR "/appendix_d_cases.txt", "clip");
    REQUIRE(cases.size() >= 5);
    for (const auto& c : cases) {
        INFO(c.name);
        Generator gen(BernoulliKernel::standard);
        gen.manual_seed(c.number("seed"));
        const auto scale = static_cast<float>(std::stod(c.at("scale")));
        std::vector<std::vector<float>> grads;  // torch.randn(n) * scale, in order
        for (const auto& n : c.indices("sizes")) {
            std::vector<float> g(static_cast<std::size_t>(n));
            gen.normal_(g.data(), g.size(), 0.0, 1.0);
            for (float& x : g) x *= scale;
            grads.push_back(std::move(g));
        }
        std::vector<GradView> views;
        for (auto& g : grads) views.push_back({g.data(), g.size()});
        const auto norms = c.words("norms");
        REQUIRE(norms.size() == grads.size());
        for (std::size_t i = 0; i < grads.size(); ++i) {
            CHECK(hex32(vector_norm2(grads[i].data(), grads[i].size())) == norms[i]);
            CHECK(vector_norm2(grads[i].data(), grads[i].size()) == Approx(norm_naive(grads[i])).epsilon(1e-5));
        }
        CHECK(hex32(find_highest_gradient(views)) == c.at("highest_before"));
        const float total = clip_grad_norm_(views, std::stod(c.at("max_norm")));
        CHECK(hex32(total) == c.at("total"));
        CHECK(hex32(find_highest_gradient(views)) == c.at("highest_after"));
        std::vector<float> all;
        for (const auto& g : grads) all.insert(all.end(), g.begin(), g.end());
        CHECK(fnv1a64(all) == c.at("clipped_fnv1a64"));
    }
}

TEST_CASE("clip_grad_norm_: no gradients, and a NaN gradient", "[train][appendix_d]") {
    CHECK(clip_grad_norm_({}, 1.0) == 0.0f);
    std::vector<float> g = {1.0f, std::numeric_limits<float>::quiet_NaN(), 2.0f};
    const float total = clip_grad_norm_({{g.data(), g.size()}}, 1.0);
    CHECK(std::isnan(total));
    CHECK(std::isnan(g[0]));  // PyTorch scales by the NaN coefficient too (error_if_nonfinite=False)
    CHECK_THROWS(find_highest_gradient({}));
}
