// Each layer's backward against PyTorch's gradient bits (data/tests/train_cases.txt, made by
// tests/goldens/make_train_goldens.py) and against finite differences of its forward.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "llmfs/torch/blas.hpp"
#include "llmfs/torch/ops.hpp"
#include "llmfs/torch/rng.hpp"
#include "llmfs/train/backward.hpp"
#include "test_support.hpp"

using namespace llmfs;
using llmfs::testing::fnv1a64;
using llmfs::testing::hex32;

namespace {

std::string head(const std::vector<float>& v, std::size_t n) {
    std::string out;
    for (std::size_t i = 0; i < std::min(n, v.size()); ++i) out += (i ? " " : "") + hex32(v[i]);
    return out;
}

// y = x W^T + b in double, row r column j
double linear_at(const std::vector<float>& x, const std::vector<float>& W, const std::vector<float>& b, std::size_t r, std::size_t j,
                 std::size_t C) {
    double y = b.empty() ? 0.0 : b[j];
    for (std::size_t k = 0; k < C; ++k) y += static_cast<double>(x[r * C + k]) * W[j * C + k];
    return y;
}

}  // namespace

// Tagged [blas]: exact under the goldens' OpenBLAS kernel (CMake runs it there), close elsewhere.
TEST_CASE("linear_backward: PyTorch's dx, dW and db bits (AddmmBackward0, MmBackward0), 1 to 1030 rows, up to 50257 outputs", "[blas]") {
    for (const auto& c : llmfs::testing::field_cases(LLMFS_TEST_DATA_DIR "/train_cases.txt", "linear")) {
        INFO(c.name);
        const std::size_t N = c.number("N"), C = c.number("in"), O = c.number("out");
        const bool bias = c.number("bias") == 1;
        // torch.manual_seed(seed); x = torch.randn(N, in); layer = nn.Linear(in, out, bias); dy = torch.randn(N, out)
        Generator gen(BernoulliKernel::standard);
        gen.manual_seed(c.number("seed"));
        std::vector<float> x(N * C), W(O * C), b(bias ? O : 0), dy(N * O);
        gen.normal_(x.data(), x.size(), 0.0, 1.0);
        init_linear_(gen, W.data(), O, C, bias ? b.data() : nullptr);
        gen.normal_(dy.data(), dy.size(), 0.0, 1.0);
        std::vector<float> dx(N * C), dW(O * C), db(O);
        linear_backward(x.data(), W.data(), dy.data(), N, C, O, dx.data(), dW.data(), bias ? db.data() : nullptr);
        if (blas_kernel() == golden_blas_kernel()) {  // the products' bits are the goldens' kernel's
            CHECK(fnv1a64(dx) == c.at("dx_fnv1a64"));
            CHECK(head(dW, 4) == c.at("dw_head"));
            CHECK(fnv1a64(dW) == c.at("dw_fnv1a64"));
        } else {  // another kernel rounds the products otherwise: 64 elements of each against double sums
            for (std::size_t s = 0; s < 64; ++s) {
                const std::size_t r = (s * 7919) % N, k = (s * 104729) % C, j = (s * 1299709) % O;
                double want_dx = 0.0, want_dw = 0.0;
                for (std::size_t q = 0; q < O; ++q) want_dx += static_cast<double>(dy[r * O + q]) * W[q * C + k];
                for (std::size_t q = 0; q < N; ++q) want_dw += static_cast<double>(dy[q * O + j]) * x[q * C + k];
                CHECK(dx[r * C + k] == Approx(want_dx).epsilon(1e-4).margin(1e-4));
                CHECK(dW[j * C + k] == Approx(want_dw).epsilon(1e-4).margin(1e-4));
            }
        }
        if (bias) {  // no product: the goldens' bits on every kernel
            CHECK(head(db, 4) == c.at("db_head"));
            CHECK(fnv1a64(db) == c.at("db_fnv1a64"));
        }
    }
}

TEST_CASE("linear_backward: the gradients of sum(y * dy), by finite differences") {
    const std::size_t N = 3, C = 4, O = 2;
    Generator gen(BernoulliKernel::standard);
    gen.manual_seed(9);
    std::vector<float> x(N * C), W(O * C), b(O), dy(N * O);
    gen.normal_(x.data(), x.size(), 0.0, 1.0);
    init_linear_(gen, W.data(), O, C, b.data());
    gen.normal_(dy.data(), dy.size(), 0.0, 1.0);
    std::vector<float> dx(N * C), dW(O * C), db(O);
    linear_backward(x.data(), W.data(), dy.data(), N, C, O, dx.data(), dW.data(), db.data());
    // L = sum(y * dy); dL/dp by central differences in double
    auto loss = [&](const std::vector<float>& xs, const std::vector<float>& Ws, const std::vector<float>& bs) {
        double L = 0.0;
        for (std::size_t r = 0; r < N; ++r)
            for (std::size_t j = 0; j < O; ++j) L += linear_at(xs, Ws, bs, r, j, C) * dy[r * O + j];
        return L;
    };
    const float h = 1e-2f;
    for (std::size_t i = 0; i < x.size(); ++i) {
        auto plus = x, minus = x;
        plus[i] += h;
        minus[i] -= h;
        CHECK(dx[i] == Approx((loss(plus, W, b) - loss(minus, W, b)) / (2.0 * h)).margin(1e-4));
    }
    for (std::size_t i = 0; i < W.size(); ++i) {
        auto plus = W, minus = W;
        plus[i] += h;
        minus[i] -= h;
        CHECK(dW[i] == Approx((loss(x, plus, b) - loss(x, minus, b)) / (2.0 * h)).margin(1e-4));
    }
    for (std::size_t j = 0; j < O; ++j) {
        auto plus = b, minus = b;
        plus[j] += h;
        minus[j] -= h;
        CHECK(db[j] == Approx((loss(x, W, plus) - loss(x, W, minus)) / (2.0 * h)).margin(1e-4));
    }
}

TEST_CASE("embedding_backward and position_embedding_backward: PyTorch's gradient bits, repeated ids, B of 1 to 9") {
    for (const auto& c : llmfs::testing::field_cases(LLMFS_TEST_DATA_DIR "/train_cases.txt", "embedding")) {
        INFO(c.name);
        const std::size_t V = c.number("V"), C = c.number("C"), context = c.number("context"), B = c.number("B"), T = c.number("T");
        // torch.manual_seed(seed); tok = nn.Embedding(V, C); pos = nn.Embedding(context, C)
        // ids = torch.randint(0, V, (B, T)); dy = torch.randn(B, T, C)
        Generator gen(BernoulliKernel::standard);
        gen.manual_seed(c.number("seed"));
        std::vector<float> tok(V * C), pos(context * C), dy(B * T * C);
        init_embedding_(gen, tok.data(), V, C);
        init_embedding_(gen, pos.data(), context, C);
        const std::vector<std::int64_t> ids = gen.randint(0, static_cast<std::int64_t>(V), B * T);
        REQUIRE(ids == c.indices("ids"));
        gen.normal_(dy.data(), dy.size(), 0.0, 1.0);
        std::vector<float> dtok(V * C), dpos(context * C);
        embedding_backward(ids.data(), dy.data(), B * T, V, C, dtok.data());
        position_embedding_backward(dy.data(), B, T, C, context, dpos.data());
        CHECK(head(std::vector<float>(dtok.begin() + ids[0] * static_cast<std::ptrdiff_t>(C), dtok.begin() + (ids[0] + 1) * static_cast<std::ptrdiff_t>(C)), 4) ==
              c.at("tok_head"));
        CHECK(fnv1a64(dtok) == c.at("tok_fnv1a64"));
        CHECK(head(dpos, std::min<std::size_t>(4, C)) == c.at("pos_head"));  // pos.weight.grad[0][:4]
        CHECK(fnv1a64(dpos) == c.at("pos_fnv1a64"));
    }
    const std::vector<std::int64_t> bad{3};
    std::vector<float> dW(6), dy(2);
    CHECK_THROWS_WITH(embedding_backward(bad.data(), dy.data(), 1, 3, 2, dW.data()), Catch::Contains("id 3") && Catch::Contains("3 embeddings"));
}

TEST_CASE("gelu_backward: PyTorch's gradient bits through the book's GELU, op by op") {
    for (const auto& c : llmfs::testing::field_cases(LLMFS_TEST_DATA_DIR "/train_cases.txt", "gelu")) {
        INFO(c.name);
        const std::size_t n = c.number("n");
        // torch.manual_seed(seed); x = torch.randn(n) * scale; dy = torch.randn(n)
        Generator gen(BernoulliKernel::standard);
        gen.manual_seed(c.number("seed"));
        std::vector<float> x(n), dy(n), dx(n);
        gen.normal_(x.data(), n, 0.0, 1.0);
        const auto scale = static_cast<float>(std::stod(c.at("scale")));
        for (float& v : x) v *= scale;
        gen.normal_(dy.data(), n, 0.0, 1.0);
        gelu_backward(x.data(), dy.data(), dx.data(), n);
        CHECK(head(dx, 8) == c.at("dx_head"));
        CHECK(fnv1a64(dx) == c.at("dx_fnv1a64"));
    }
}

TEST_CASE("gelu_backward: the derivative of the tanh GELU, by finite differences") {
    auto gelu = [](double x) { return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x))); };
    std::vector<float> x{-4.0f, -1.5f, -0.3f, 0.0f, 0.2f, 1.0f, 2.5f, 6.0f}, dy(x.size(), 1.0f), dx(x.size());
    gelu_backward(x.data(), dy.data(), dx.data(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double h = 1e-4;
        CHECK(dx[i] == Approx((gelu(x[i] + h) - gelu(x[i] - h)) / (2 * h)).margin(1e-5));
    }
}

TEST_CASE("layer_norm_backward: PyTorch's dx, dscale and dshift bits through the book's LayerNorm, op by op") {
    for (const auto& c : llmfs::testing::field_cases(LLMFS_TEST_DATA_DIR "/train_cases.txt", "layernorm")) {
        INFO(c.name);
        const std::size_t N = c.number("N"), C = c.number("C");
        // torch.manual_seed(seed); x = torch.randn(N, C) * xscale; scale, shift, dy = torch.randn(...)
        Generator gen(BernoulliKernel::standard);
        gen.manual_seed(c.number("seed"));
        std::vector<float> x(N * C), scale(C), shift(C), dy(N * C);
        gen.normal_(x.data(), x.size(), 0.0, 1.0);
        const auto xscale = static_cast<float>(std::stod(c.at("xscale")));
        for (float& v : x) v *= xscale;
        gen.normal_(scale.data(), C, 0.0, 1.0);
        gen.normal_(shift.data(), C, 0.0, 1.0);
        gen.normal_(dy.data(), dy.size(), 0.0, 1.0);
        std::vector<float> dx(N * C), dscale(C), dshift(C);
        layer_norm_backward(x.data(), scale.data(), dy.data(), N, C, 1e-5f, dx.data(), dscale.data(), dshift.data(), false);
        CHECK(head(dx, 4) == c.at("dx_head"));
        CHECK(fnv1a64(dx) == c.at("dx_fnv1a64"));
        CHECK(head(dscale, 4) == c.at("dscale_head"));
        CHECK(fnv1a64(dscale) == c.at("dscale_fnv1a64"));
        CHECK(fnv1a64(dshift) == c.at("dshift_fnv1a64"));
    }
}

TEST_CASE("layer_norm_backward: the gradients of sum(y * dy), by finite differences, and accumulate adds onto dx") {
    const std::size_t N = 2, C = 5;
    Generator gen(BernoulliKernel::standard);
    gen.manual_seed(3);
    std::vector<float> x(N * C), scale(C), dy(N * C);
    gen.normal_(x.data(), x.size(), 0.0, 1.0);
    gen.normal_(scale.data(), C, 0.0, 1.0);
    gen.normal_(dy.data(), dy.size(), 0.0, 1.0);
    auto loss = [&](const std::vector<float>& xs, const std::vector<float>& sc) {  // sum(LayerNorm(x) * dy) in double, shift 0
        double L = 0.0;
        for (std::size_t r = 0; r < N; ++r) {
            double mean = 0.0, var = 0.0;
            for (std::size_t c = 0; c < C; ++c) mean += xs[r * C + c] / static_cast<double>(C);
            for (std::size_t c = 0; c < C; ++c) var += (xs[r * C + c] - mean) * (xs[r * C + c] - mean) / static_cast<double>(C);
            for (std::size_t c = 0; c < C; ++c) L += sc[c] * (xs[r * C + c] - mean) / std::sqrt(var + 1e-5) * dy[r * C + c];
        }
        return L;
    };
    std::vector<float> dx(N * C), dscale(C), dshift(C);
    layer_norm_backward(x.data(), scale.data(), dy.data(), N, C, 1e-5f, dx.data(), dscale.data(), dshift.data(), false);
    const float h = 1e-2f;
    for (std::size_t i = 0; i < x.size(); ++i) {
        auto plus = x, minus = x;
        plus[i] += h;
        minus[i] -= h;
        CHECK(dx[i] == Approx((loss(plus, scale) - loss(minus, scale)) / (2.0 * h)).margin(2e-3));
    }
    for (std::size_t c = 0; c < C; ++c) {
        auto plus = scale, minus = scale;
        plus[c] += h;
        minus[c] -= h;
        CHECK(dscale[c] == Approx((loss(x, plus) - loss(x, minus)) / (2.0 * h)).margin(1e-3));
    }
    std::vector<float> onto(N * C, 0.25f), dscale2(C), dshift2(C);
    layer_norm_backward(x.data(), scale.data(), dy.data(), N, C, 1e-5f, onto.data(), dscale2.data(), dshift2.data(), true);
    for (std::size_t i = 0; i < x.size(); ++i) CHECK(onto[i] == Approx(dx[i] + 0.25f).margin(1e-5));
}

TEST_CASE("gelu_backward_fast and layer_norm_backward_fast: the reference versions' bits, ragged sizes, pooled or not") {
    Generator gen(BernoulliKernel::standard);
    gen.manual_seed(9);
    for (const std::size_t n : {std::size_t{1}, std::size_t{13}, std::size_t{4096}, std::size_t{3} * 16384 + 5}) {
        INFO("gelu n " << n);
        std::vector<float> x(n), dy(n), want(n), got(n);
        gen.normal_(x.data(), n, 0.0, 3.0);
        gen.normal_(dy.data(), n, 0.0, 1.0);
        gelu_backward(x.data(), dy.data(), want.data(), n);
        gelu_backward_fast(x.data(), dy.data(), got.data(), n);
        CHECK(fnv1a64(got) == fnv1a64(want));
    }
    for (const auto& [N, C] : std::vector<std::pair<std::size_t, std::size_t>>{{1, 5}, {7, 768}, {100, 37}, {70, 128}}) {
        for (const bool accumulate : {false, true}) {
            INFO("layer norm " << N << " x " << C << " accumulate " << accumulate);
            std::vector<float> x(N * C), dy(N * C), scale(C), dx0(N * C), dx1, ds0(C), ds1(C), db0(C), db1(C);
            gen.normal_(x.data(), x.size(), 0.5, 2.0);
            gen.normal_(dy.data(), dy.size(), 0.0, 1.0);
            gen.normal_(scale.data(), C, 1.0, 0.1);
            gen.normal_(dx0.data(), dx0.size(), 0.0, 1.0);
            dx1 = dx0;
            layer_norm_backward(x.data(), scale.data(), dy.data(), N, C, 1e-5f, dx0.data(), ds0.data(), db0.data(), accumulate);
            layer_norm_backward_fast(x.data(), scale.data(), dy.data(), N, C, 1e-5f, dx1.data(), ds1.data(), db1.data(), accumulate);
            CHECK(fnv1a64(dx1) == fnv1a64(dx0));
            CHECK(fnv1a64(ds1) == fnv1a64(ds0));
            CHECK(fnv1a64(db1) == fnv1a64(db0));
        }
    }
}
