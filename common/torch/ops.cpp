// Non-template parts of ops.hpp: products, reductions, softmax, masks.
#include <algorithm>
#include <cmath>

#include <cblas.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "llmfs/torch/ops.hpp"

namespace llmfs {

std::string shape_str(const Shape& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

void throw_shape_error(const std::string& op, const Shape& a, const Shape& b, const std::string& why) {
    throw ShapeError(fmt::format("{}: shapes {} and {} do not fit ({})", op, shape_str(a), shape_str(b), why));
}

// ---- matrix products --------------------------------------------------------------------------

void gemm(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n,
          bool b_transposed, bool accumulate) {
    if (m == 0 || n == 0) return;
    if (k == 0) {
        if (!accumulate) std::fill(c, c + m * n, 0.0f);
        return;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, b_transposed ? CblasTrans : CblasNoTrans, static_cast<int>(m),
                static_cast<int>(n), static_cast<int>(k), 1.0f, a, static_cast<int>(k), b,
                static_cast<int>(b_transposed ? k : n), accumulate ? 1.0f : 0.0f, c, static_cast<int>(n));
}

void gemm_naive(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n,
                bool b_transposed, bool accumulate) {
    for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            float acc = 0.0f;
            for (std::size_t p = 0; p < k; ++p) acc += a[i * k + p] * (b_transposed ? b[j * k + p] : b[p * n + j]);
            c[i * n + j] = accumulate ? c[i * n + j] + acc : acc;
        }
    }
}

Tensor<0> dot(const Tensor<1>& a, const Tensor<1>& b) {
    if (a.data.size() != b.data.size())
        throw_shape_error("dot", a.shape(), b.shape(), "1-D tensors must have the same length");
    Array<0> out;
    out() = cblas_sdot(static_cast<int>(a.data.size()), a.data.data(), 1, b.data.data(), 1);  // as PyTorch: BLAS sdot
    return {std::move(out), detail::node("DotBackward0", a, b)};
}

Tensor<1> matmul(const Tensor<1>& x, const Tensor<2>& w) {
    const std::size_t k = w.data.shape()[0], n = w.data.shape()[1];
    if (x.data.size() != k) throw_shape_error("matmul", x.shape(), w.shape(), "vector length must equal the matrix's rows");
    Array<1> out = xt::zeros<float>({n});
    gemm(x.data.data(), w.data.data(), out.data(), 1, k, n, false, false);  // x.unsqueeze(0).mm(w).squeeze_(0)
    return {std::move(out), detail::node("SqueezeBackward1", x, w)};
}

Tensor<2> matmul(const Tensor<2>& a, const Tensor<2>& b) {
    const std::size_t m = a.data.shape()[0], k = a.data.shape()[1], n = b.data.shape()[1];
    if (b.data.shape()[0] != k) throw_shape_error("matmul", a.shape(), b.shape(), "a's columns must equal b's rows");
    Array<2> out = xt::zeros<float>({m, n});
    gemm(a.data.data(), b.data.data(), out.data(), m, k, n, false, false);  // torch.mm(a, b)
    return {std::move(out), detail::node("MmBackward0", a, b)};
}

Tensor<2> T(const Tensor<2>& t) {
    Array<2> out = xt::transpose(t.data);
    return {std::move(out), detail::node("PermuteBackward0", t)};
}

// ---- reductions --------------------------------------------------------------------------------

namespace {

constexpr std::size_t kLanes = 8;  // floats per AVX2 vector: PyTorch's Vectorized<float>::size()
using Lanes = std::array<float, kLanes>;

// multi_row_sum (aten/src/ATen/native/cpu/SumKernel.cpp): sums `size` rows of kRows values with a
// 4-level cascade, so that long sums keep their precision. Row i, column c is load(i, c).
template <std::size_t kRows, class Acc, class Load>
std::array<Acc, kRows> multi_row_sum(std::size_t size, Load load) {
    constexpr std::size_t kLevels = 4;
    std::size_t log2 = 0;
    while ((std::size_t{1} << log2) < size) ++log2;  // CeilLog2
    const std::size_t level_power = std::max<std::size_t>(4, log2 / kLevels);
    const std::size_t level_step = std::size_t{1} << level_power;
    const std::size_t level_mask = level_step - 1;

    Acc zero{};
    std::array<std::array<Acc, kRows>, kLevels> acc;
    for (auto& level : acc) level.fill(zero);
    auto add = [](Acc& into, const Acc& v) {
        if constexpr (std::is_same_v<Acc, float>) into += v;
        else for (std::size_t l = 0; l < kLanes; ++l) into[l] += v[l];
    };

    std::size_t i = 0;
    while (i + level_step <= size) {
        for (std::size_t j = 0; j < level_step; ++j, ++i)
            for (std::size_t r = 0; r < kRows; ++r) add(acc[0][r], load(i, r));
        for (std::size_t j = 1; j < kLevels; ++j) {
            for (std::size_t r = 0; r < kRows; ++r) {
                add(acc[j][r], acc[j - 1][r]);
                acc[j - 1][r] = zero;
            }
            if ((i & (level_mask << (j * level_power))) != 0) break;
        }
    }
    for (; i < size; ++i)
        for (std::size_t r = 0; r < kRows; ++r) add(acc[0][r], load(i, r));
    for (std::size_t j = 1; j < kLevels; ++j)
        for (std::size_t r = 0; r < kRows; ++r) add(acc[0][r], acc[j][r]);
    return acc[0];
}

}  // namespace

// cascade_sum (aten/src/ATen/native/cpu/SumKernel.cpp) picks one of three orders:
//  - a contiguous row of at least 8 floats: vectorized_inner_sum. Whole 8-float vectors are summed
//    lane-wise by row_sum (4 interleaved accumulators), the leftover floats one by one, then the lanes;
//  - a shorter contiguous row: scalar_inner_sum, i.e. row_sum over floats: 4 interleaved
//    accumulators, the leftovers into the first, then the 4 added in order;
//  - a strided column (reducing a non-last dim): the cascade in one accumulator.
float reduce_sum(const float* x, std::size_t n, std::size_t stride) {
    constexpr std::size_t kIlp = 4;  // row_sum's ilp_factor
    auto at = [&](std::size_t i) { return x[i * stride]; };
    if (stride != 1) return multi_row_sum<1, float>(n, [&](std::size_t i, std::size_t) { return at(i); })[0];

    if (n < kLanes) {
        auto partial = multi_row_sum<kIlp, float>(n / kIlp, [&](std::size_t i, std::size_t r) { return at(i * kIlp + r); });
        for (std::size_t i = (n / kIlp) * kIlp; i < n; ++i) partial[0] += at(i);
        for (std::size_t r = 1; r < kIlp; ++r) partial[0] += partial[r];
        return partial[0];
    }

    const std::size_t vectors = n / kLanes;
    auto load_vector = [&](std::size_t v) {
        Lanes lanes;
        for (std::size_t l = 0; l < kLanes; ++l) lanes[l] = at(v * kLanes + l);
        return lanes;
    };
    auto partial = multi_row_sum<kIlp, Lanes>(vectors / kIlp, [&](std::size_t i, std::size_t r) { return load_vector(i * kIlp + r); });
    Lanes vec_acc = partial[0];
    for (std::size_t v = (vectors / kIlp) * kIlp; v < vectors; ++v) {
        const Lanes lanes = load_vector(v);
        for (std::size_t l = 0; l < kLanes; ++l) vec_acc[l] += lanes[l];
    }
    for (std::size_t r = 1; r < kIlp; ++r)
        for (std::size_t l = 0; l < kLanes; ++l) vec_acc[l] += partial[r][l];

    float total = 0.0f;
    for (std::size_t i = vectors * kLanes; i < n; ++i) total += at(i);
    for (float lane : vec_acc) total += lane;
    return total;
}

namespace {

// Column j of sum_columns: a grouped column (j < grouped) in one cascade, a leftover one by row_sum.
float sum_column(const float* x, std::size_t rows, std::size_t cols, std::size_t j, std::size_t grouped) {
    constexpr std::size_t kIlp = 4;  // row_sum's ilp_factor
    auto at = [&](std::size_t i) { return x[i * cols + j]; };
    if (j < grouped) return multi_row_sum<1, float>(rows, [&](std::size_t i, std::size_t) { return at(i); })[0];
    auto partial = multi_row_sum<kIlp, float>(rows / kIlp, [&](std::size_t i, std::size_t r) { return at(i * kIlp + r); });
    for (std::size_t i = (rows / kIlp) * kIlp; i < rows; ++i) partial[0] += at(i);
    for (std::size_t r = 1; r < kIlp; ++r) partial[0] += partial[r];
    return partial[0];
}

// vectorized_outer_sum takes 4 vectors of columns at a time, scalar_outer_sum (fewer than 8
// columns) 4 columns: one cascade per column. The columns after the last whole group: row_sum.
std::size_t grouped_columns(std::size_t cols) {
    const std::size_t group = cols >= kLanes ? 4 * kLanes : 4;
    return cols / group * group;
}

}  // namespace

void sum_columns(const float* x, std::size_t rows, std::size_t cols, float* out) {
    const std::size_t grouped = grouped_columns(cols);
    for (std::size_t j = 0; j < cols; ++j) out[j] = sum_column(x, rows, cols, j, grouped);
}

void sum_columns_range(const float* x, std::size_t rows, std::size_t cols, std::size_t first, std::size_t last, float* out) {
    constexpr std::size_t kBlock = 8;
    const std::size_t grouped = grouped_columns(cols);
    std::size_t j = first;
    // grouped columns side by side, each its own cascade (multi_row_sum's rows are independent)
    for (; j + kBlock <= std::min(last, grouped); j += kBlock) {
        const auto sums = multi_row_sum<kBlock, float>(rows, [&](std::size_t i, std::size_t r) { return x[i * cols + j + r]; });
        std::copy(sums.begin(), sums.end(), out + j);
    }
    for (; j < last; ++j) out[j] = sum_column(x, rows, cols, j, grouped);
}

float welford_var(const float* x, std::size_t n, std::size_t stride, double correction) {
    double mean = 0.0, m2 = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const double value = x[i * stride];
        const double delta = value - mean;
        mean += delta / static_cast<double>(i + 1);
        m2 += delta * (value - mean);
    }
    const double nf = static_cast<double>(n);
    const double divisor = nf > correction ? nf - correction : 0.0;
    return static_cast<float>(m2 / divisor);
}

// ---- softmax -----------------------------------------------------------------------------------

float reduce_all_sum(const float* x, std::size_t n) {
    if (n < kLanes) {
        float acc = x[0];
        for (std::size_t i = 1; i < n; ++i) acc += x[i];
        return acc;
    }
    Lanes acc;
    std::copy(x, x + kLanes, acc.begin());
    std::size_t d = kLanes;
    for (; d + kLanes <= n; d += kLanes)
        for (std::size_t l = 0; l < kLanes; ++l) acc[l] += x[d + l];
    for (std::size_t l = 0; d + l < n; ++l) acc[l] += x[d + l];
    for (std::size_t half = kLanes / 2; half >= 1; half /= 2)
        for (std::size_t l = 0; l < half; ++l) acc[l] += acc[l + half];
    return acc[0];
}

void softmax_row(const float* x, float* y, std::size_t n) {
    if (n == 0) return;
    const float max = *std::max_element(x, x + n);
    for (std::size_t i = 0; i < n; ++i) y[i] = x[i] - max;
    vec_exp(y, y, n);
    const float inv_sum = 1.0f / reduce_all_sum(y, n);
    for (std::size_t i = 0; i < n; ++i) y[i] *= inv_sum;
}

// ---- masks -------------------------------------------------------------------------------------

Tensor<2> ones(std::size_t rows, std::size_t cols) { return Array<2>(xt::ones<float>({rows, cols})); }

Tensor<2> tril(const Tensor<2>& a, int diagonal) { return Array<2>(xt::tril(a.data, diagonal)); }
Tensor<2> triu(const Tensor<2>& a, int diagonal) { return Array<2>(xt::triu(a.data, diagonal)); }
BoolArray<2> to_bool(const Tensor<2>& a) { return xt::not_equal(a.data, 0.0f); }
BoolArray<2> causal_mask(std::size_t t) {
    BoolArray<2> mask = BoolArray<2>::from_shape({t, t});  // triu(ones(t, t), diagonal=1).bool(), built directly
    for (std::size_t i = 0; i < t; ++i)
        for (std::size_t j = 0; j < t; ++j) mask(i, j) = j > i;
    return mask;
}

}  // namespace llmfs
