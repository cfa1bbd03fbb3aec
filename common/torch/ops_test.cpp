// The fast paths (BLAS gemm, PyTorch-order reductions) against their naive references, and the
// grad_fn / shape-error behaviour of the ops.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "llmfs/torch/ops.hpp"
#include "llmfs/torch/rng.hpp"

using namespace llmfs;

namespace {
std::vector<float> random_floats(std::size_t n, unsigned seed) {
    std::mt19937 engine(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (auto& x : v) x = dist(engine);
    return v;
}
}  // namespace

TEST_CASE("gemm agrees with the naive triple loop") {
    for (auto [m, k, n] : {std::array<std::size_t, 3>{1, 1, 1}, {6, 3, 2}, {7, 33, 5}, {64, 768, 17}}) {
        for (bool b_transposed : {false, true}) {
            for (bool accumulate : {false, true}) {
                DYNAMIC_SECTION(m << "x" << k << "x" << n << (b_transposed ? " B^T" : "") << (accumulate ? " +=" : "")) {
                    const auto a = random_floats(m * k, 1), b = random_floats(k * n, 2), c0 = random_floats(m * n, 3);
                    auto fast = c0, slow = c0;
                    gemm(a.data(), b.data(), fast.data(), m, k, n, b_transposed, accumulate);
                    gemm_naive(a.data(), b.data(), slow.data(), m, k, n, b_transposed, accumulate);
                    for (std::size_t i = 0; i < fast.size(); ++i) REQUIRE(fast[i] == Approx(slow[i]).margin(1e-5 * k));
                }
            }
        }
    }
}

TEST_CASE("reduce_sum: PyTorch's order, equal to the plain sum up to rounding") {
    for (std::size_t n : {1, 5, 6, 7, 8, 9, 31, 32, 33, 100, 768, 4096, 100000}) {
        DYNAMIC_SECTION("n = " << n) {
            const auto x = random_floats(n, static_cast<unsigned>(n));
            const double exact = std::accumulate(x.begin(), x.end(), 0.0);
            REQUIRE(reduce_sum(x.data(), n) == Approx(exact).margin(1e-6 * static_cast<double>(n)));
        }
    }
    SECTION("fewer than 8 floats: row_sum's 4 interleaved accumulators, as PyTorch") {
        // softmax_naive's weights in 3.3.1: PyTorch sums them to exactly 1 (a left-to-right sum
        // gives 1.0000001), so the notebook prints `Sum: tensor(1.)`.
        const std::uint32_t bits[6] = {0x3e0ddf6b, 0x3e7399c9, 0x3e6edf65, 0x3dfdef4e, 0x3ddd8e76, 0x3e21e889};
        float x[6];
        std::memcpy(x, bits, sizeof x);
        REQUIRE(reduce_sum(x, 6) == 1.0f);
        REQUIRE(reduce_sum(x, 6) == ((((x[0] + x[4]) + x[5]) + x[1]) + x[2]) + x[3]);
    }
    SECTION("strided") {
        const float x[6] = {1, 100, 2, 100, 3, 100};
        REQUIRE(reduce_sum(x, 3, 2) == 6.0f);
    }
}

TEST_CASE("softmax rows sum to one and match exp(x) / sum(exp(x))") {
    for (std::size_t n : {1, 6, 8, 13, 1024}) {
        DYNAMIC_SECTION("n = " << n) {
            const auto x = random_floats(n, 7);
            std::vector<float> y(n);
            softmax_row(x.data(), y.data(), n);
            double total = 0;
            for (float v : x) total += std::exp(static_cast<double>(v));
            for (std::size_t i = 0; i < n; ++i) REQUIRE(y[i] == Approx(std::exp(static_cast<double>(x[i])) / total).epsilon(1e-5));
        }
    }
    SECTION("-inf entries get weight zero") {
        const Tensor<2> scores = Array<2>{{0.5f, kNegInf}, {0.2f, 0.3f}};
        const auto w = softmax(scores, -1);
        REQUIRE(w.data(0, 0) == 1.0f);
        REQUIRE(w.data(0, 1) == 0.0f);
    }
}

TEST_CASE("grad_fn follows PyTorch's autograd node names") {
    const Tensor<2> plain = Array<2>{{1, 2}, {3, 4}};
    const auto param = Tensor<2>::parameter(Array<2>{{1, 0}, {0, 1}});
    CHECK(matmul(plain, plain).grad_fn.empty());
    CHECK(matmul(plain, param).grad_fn == "MmBackward0");
    CHECK(softmax(param, -1).grad_fn == "SoftmaxBackward0");
    CHECK((param * plain).grad_fn == "MulBackward0");
    CHECK((param / 2.0).grad_fn == "DivBackward0");
    CHECK(masked_fill(param, causal_mask(2), kNegInf).grad_fn == "MaskedFillBackward0");
    const Tensor<3> batch = Array<3>{{{1, 2}, {3, 4}}};
    const auto tracked = Tensor<3>::parameter(batch.data);
    CHECK(matmul(tracked, batch).grad_fn == "UnsafeViewBackward0");
    CHECK(cat_lastdim<3>({batch, tracked}).grad_fn == "CatBackward0");
    CHECK(repr(matmul(plain, param)) == "tensor([[1., 2.],\n        [3., 4.]], grad_fn=<MmBackward0>)");
}

TEST_CASE("shape mismatches throw ShapeError naming both shapes") {
    const Tensor<2> a = Array<2>(xt::zeros<float>({6, 3}));
    const Tensor<2> b = Array<2>(xt::zeros<float>({2, 3}));
    REQUIRE_THROWS_AS(matmul(a, b), ShapeError);
    REQUIRE_THROWS_WITH(matmul(a, b), Catch::Contains("[6, 3]") && Catch::Contains("[2, 3]"));
    REQUIRE_THROWS_WITH(a * b, Catch::Contains("[6, 3]") && Catch::Contains("[2, 3]"));
    REQUIRE_THROWS_WITH((view<2>(a, {4, 4})), Catch::Contains("[6, 3]") && Catch::Contains("[4, 4]"));
    const Tensor<3> x = Array<3>(xt::zeros<float>({2, 6, 3}));
    const Tensor<3> y = Array<3>(xt::zeros<float>({2, 2, 6}));
    REQUIRE_THROWS_WITH(matmul(x, y), Catch::Contains("[2, 6, 3]") && Catch::Contains("[2, 2, 6]"));
    REQUIRE_THROWS_AS(masked_fill(x, causal_mask(4), 0.0f), ShapeError);
    REQUIRE_THROWS_AS(softmax(x, 0), std::invalid_argument);
}

TEST_CASE("masks, transpose, view, cat, stack") {
    CHECK((tril(ones(3, 3)).data == Array<2>{{1, 0, 0}, {1, 1, 0}, {1, 1, 1}}));
    CHECK((causal_mask(3) == BoolArray<2>{{false, true, true}, {false, false, true}, {false, false, false}}));
    CHECK((causal_mask(17) == to_bool(triu(ones(17, 17), 1))));  // the direct build equals the notebook's recipe
    const Tensor<3> x = Array<3>{{{1, 2, 3}, {4, 5, 6}}};  // [1, 2, 3]
    CHECK((transpose(x, 1, 2).data == Array<3>{{{1, 4}, {2, 5}, {3, 6}}}));
    CHECK(((view<2>(x, {3, 2})).data == Array<2>{{1, 2}, {3, 4}, {5, 6}}));
    CHECK((cat_lastdim<3>({x, x}).data == Array<3>{{{1, 2, 3, 1, 2, 3}, {4, 5, 6, 4, 5, 6}}}));
    CHECK(stack<3>({x, x}).shape() == Shape{2, 1, 2, 3});
    CHECK((sum(x, -1).data == Array<2>{{6, 15}}));
    CHECK((sum_keepdim(x, 1).data == Array<3>{{{5, 7, 9}}}));
}

TEST_CASE("sum_columns_range: any split of the columns gives sum_columns' bits, 8 columns a pass or one") {
    Generator gen(BernoulliKernel::standard);
    gen.manual_seed(5);
    for (const auto& [rows, cols] : std::vector<std::pair<std::size_t, std::size_t>>{{1, 1}, {3, 5}, {17, 7}, {300, 8}, {512, 768},
                                                                                     {70, 45}, {1000, 100}, {9, 3077}}) {
        INFO(rows << " x " << cols);
        std::vector<float> x(rows * cols), want(cols), got(cols, -1.0f);
        gen.normal_(x.data(), x.size(), 0.0, 1.0);
        sum_columns(x.data(), rows, cols, want.data());
        const std::size_t cut1 = cols / 3, cut2 = cut1 + (cols - cut1) / 2 + 1;  // ragged ranges
        sum_columns_range(x.data(), rows, cols, 0, cut1, got.data());
        sum_columns_range(x.data(), rows, cols, cut1, std::min(cut2, cols), got.data());
        sum_columns_range(x.data(), rows, cols, std::min(cut2, cols), cols, got.data());
        CHECK(std::memcmp(want.data(), got.data(), cols * sizeof(float)) == 0);
    }
}
