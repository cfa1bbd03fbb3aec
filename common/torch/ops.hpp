// The tensor operations chapters 3 and 4 teach, each next to the PyTorch line it mirrors.
//
// Results carry PyTorch's grad_fn name when an input tracks grad, so print() shows what the
// notebook shows. All Arrays are row-major and contiguous; shapes use the letters of tensor.hpp.
// A shape mismatch throws ShapeError naming both shapes.
#pragma once

#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include "llmfs/torch/tensor.hpp"
#include "llmfs/torch/vecmath.hpp"

namespace llmfs {

class ShapeError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

std::string shape_str(const Shape& shape);  // "[6, 3]"
[[noreturn]] void throw_shape_error(const std::string& op, const Shape& a, const Shape& b, const std::string& why);

namespace detail {
// The grad_fn a result gets: `name` if any input is tracked by autograd, else none.
template <class... Ts>
std::string node(const char* name, const Ts&... inputs) {
    return (inputs.tracks_grad() || ...) ? std::string(name) : std::string();
}
template <std::size_t N>
std::size_t axis(int dim) {  // PyTorch's negative dims
    const int n = static_cast<int>(N);
    if (dim < -n || dim >= n) throw std::out_of_range("dim " + std::to_string(dim) + " out of range for a " + std::to_string(N) + "-D tensor");
    return static_cast<std::size_t>(dim < 0 ? dim + n : dim);
}
template <class A>
Shape shape_of_array(const A& a) {
    return Shape(a.shape().begin(), a.shape().end());
}
}  // namespace detail

// ---- matrix products --------------------------------------------------------------------------

// c[m, n] (+)= a[m, k] @ b[k, n]  (or @ b[n, k]^T when b_transposed); row-major; cblas_sgemm.
void gemm(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n,
          bool b_transposed, bool accumulate);
// The textbook triple loop, kept as the reference gemm is tested against.
void gemm_naive(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n,
                bool b_transposed, bool accumulate);

Tensor<0> dot(const Tensor<1>& a, const Tensor<1>& b);     // torch.dot(a, b): [k] . [k] -> scalar
Tensor<1> matmul(const Tensor<1>& x, const Tensor<2>& w);  // x @ w: [k] @ [k, n] -> [n]
Tensor<2> matmul(const Tensor<2>& a, const Tensor<2>& b);  // a @ b: [m, k] @ [k, n] -> [m, n]

// Batched a @ b: [..., m, k] @ [..., k, n] -> [..., m, n], same leading dims (e.g. B, NH).
template <std::size_t N>
Tensor<N> matmul(const Tensor<N>& a, const Tensor<N>& b) {
    static_assert(N >= 3, "batched matmul needs at least 3 dimensions");
    const auto& as = a.data.shape();
    const auto& bs = b.data.shape();
    bool same_batch = true;
    for (std::size_t d = 0; d + 2 < N; ++d) same_batch = same_batch && as[d] == bs[d];
    if (!same_batch || as[N - 1] != bs[N - 2])
        throw_shape_error("matmul", a.shape(), b.shape(), "batch dims must agree and a's last dim must equal b's second-to-last");
    const std::size_t m = as[N - 2], k = as[N - 1], n = bs[N - 1];
    typename Array<N>::shape_type out_shape = as;
    out_shape[N - 1] = n;
    Array<N> out(out_shape);
    const std::size_t batches = a.data.size() / (m * k);
    // bmm (aten/src/ATen/native/LinearAlgebra.cpp): below 400 multiply-adds per matrix a plain
    // loop (baddbmm_cpu_kernel), otherwise BLAS gemm per matrix.
    const bool small = m * n * k < 400;
    for (std::size_t i = 0; i < batches; ++i) {
        const float* ai = a.data.data() + i * m * k;
        const float* bi = b.data.data() + i * k * n;
        float* ci = out.data() + i * m * n;
        small ? gemm_naive(ai, bi, ci, m, k, n, false, false) : gemm(ai, bi, ci, m, k, n, false, false);
    }
    // PyTorch folds the batch into bmm and `_unsafe_view`s the result back.
    return {std::move(out), detail::node("UnsafeViewBackward0", a, b)};
}

// ---- elementwise arithmetic (with PyTorch broadcasting) ----------------------------------------

// Throws ShapeError, naming both shapes, unless a and b broadcast together.
template <std::size_t N, std::size_t M>
void broadcast_check(const char* op, const Tensor<N>& a, const Tensor<M>& b) {
    try {
        typename Array<(N > M ? N : M)>::shape_type shape;
        shape.fill(1);
        xt::broadcast_shape(a.data.shape(), shape);
        xt::broadcast_shape(b.data.shape(), shape);
    } catch (const std::exception&) {
        throw_shape_error(op, a.shape(), b.shape(), "shapes cannot be broadcast together");
    }
}

template <std::size_t N, std::size_t M>
Tensor<(N > M ? N : M)> operator*(const Tensor<N>& a, const Tensor<M>& b) {  // a * b
    broadcast_check("mul", a, b);
    return {xt::eval(a.data * b.data), detail::node("MulBackward0", a, b)};
}
template <std::size_t N, std::size_t M>
Tensor<(N > M ? N : M)> operator/(const Tensor<N>& a, const Tensor<M>& b) {  // a / b
    broadcast_check("div", a, b);
    return {xt::eval(a.data / b.data), detail::node("DivBackward0", a, b)};
}
template <std::size_t N, std::size_t M>
Tensor<(N > M ? N : M)> operator+(const Tensor<N>& a, const Tensor<M>& b) {  // a + b
    broadcast_check("add", a, b);
    return {xt::eval(a.data + b.data), detail::node("AddBackward0", a, b)};
}
template <std::size_t N, std::size_t M>
Tensor<(N > M ? N : M)> operator-(const Tensor<N>& a, const Tensor<M>& b) {  // a - b
    broadcast_check("sub", a, b);
    return {xt::eval(a.data - b.data), detail::node("SubBackward0", a, b)};
}
// t / python_float: the scalar becomes a float32 first, as PyTorch wraps it.
template <std::size_t N>
Tensor<N> operator/(const Tensor<N>& t, double scalar) {
    return {xt::eval(t.data / static_cast<float>(scalar)), detail::node("DivBackward0", t)};
}
template <std::size_t N>
Tensor<N> operator*(const Tensor<N>& t, double scalar) {
    return {xt::eval(t.data * static_cast<float>(scalar)), detail::node("MulBackward0", t)};
}

// python_float * t, python_float + t, t + python_float: the scalar becomes a float32 first.
template <std::size_t N>
Tensor<N> operator*(double scalar, const Tensor<N>& t) {
    return {xt::eval(static_cast<float>(scalar) * t.data), detail::node("MulBackward0", t)};
}
template <std::size_t N>
Tensor<N> operator+(double scalar, const Tensor<N>& t) {
    return {xt::eval(static_cast<float>(scalar) + t.data), detail::node("AddBackward0", t)};
}
template <std::size_t N>
Tensor<N> operator+(const Tensor<N>& t, double scalar) {
    return {xt::eval(t.data + static_cast<float>(scalar)), detail::node("AddBackward0", t)};
}

template <std::size_t N>
Tensor<N> exp(const Tensor<N>& t) {  // torch.exp(t)
    Array<N> out(t.data.shape());
    vec_exp(t.data.data(), out.data(), out.size());
    return {std::move(out), detail::node("ExpBackward0", t)};
}
template <std::size_t N>
Tensor<N> tanh(const Tensor<N>& t) {  // torch.tanh(t)
    Array<N> out(t.data.shape());
    vec_tanh(t.data.data(), out.data(), out.size());
    return {std::move(out), detail::node("TanhBackward0", t)};
}
template <std::size_t N>
Tensor<N> sqrt(const Tensor<N>& t) {  // torch.sqrt(t)
    return {xt::eval(xt::sqrt(t.data)), detail::node("SqrtBackward0", t)};
}
template <std::size_t N>
Tensor<N> pow3(const Tensor<N>& t) {  // torch.pow(t, 3): PyTorch multiplies, (x * x) * x
    return {xt::eval(t.data * t.data * t.data), detail::node("PowBackward0", t)};
}
template <std::size_t N>
Tensor<N> relu(const Tensor<N>& t) {  // nn.ReLU()(t)
    return {xt::eval(xt::maximum(t.data, 0.0f)), detail::node("ReluBackward0", t)};
}

// ---- reductions --------------------------------------------------------------------------------

// Sum of n floats in the order PyTorch's CPU reduction adds them.
float reduce_sum(const float* x, std::size_t n, std::size_t stride = 1);

template <std::size_t N>
Tensor<0> sum(const Tensor<N>& t) {  // t.sum()
    Array<0> out;
    out() = reduce_sum(t.data.data(), t.data.size());
    return {std::move(out), detail::node("SumBackward0", t)};
}

namespace detail {
// Reduces t along one dim, keeping it with size 1: out[..., 0, ...] = reduce(first, n, stride),
// where first points at the first of the n values, `stride` floats apart.
template <std::size_t N, class Reduce>
Array<N> reduce_keepdim(const Array<N>& t, int dim, Reduce reduce) {
    const std::size_t ax = axis<N>(dim);
    auto out_shape = t.shape();
    const std::size_t n = out_shape[ax];
    out_shape[ax] = 1;
    std::size_t inner = 1;
    for (std::size_t d = ax + 1; d < N; ++d) inner *= out_shape[d];
    Array<N> out(out_shape);
    const std::size_t outer = out.size() / inner;
    for (std::size_t o = 0; o < outer; ++o)
        for (std::size_t i = 0; i < inner; ++i) out.data()[o * inner + i] = reduce(t.data() + o * n * inner + i, n, inner);
    return out;
}
}  // namespace detail

// t.sum(dim=d, keepdim=True): [..., n, ...] -> [..., 1, ...]
template <std::size_t N>
Tensor<N> sum_keepdim(const Tensor<N>& t, int dim) {
    return {detail::reduce_keepdim(t.data, dim, reduce_sum), detail::node("SumBackward1", t)};
}

// t.sum(dim=d): [..., n, ...] -> [...]
template <std::size_t N>
Tensor<N - 1> sum(const Tensor<N>& t, int dim) {
    static_assert(N >= 1, "sum over a dim needs a dim");
    const std::size_t ax = detail::axis<N>(dim);
    Tensor<N> kept = sum_keepdim(t, dim);
    typename Array<N - 1>::shape_type shape;
    for (std::size_t d = 0, j = 0; d < N; ++d)
        if (d != ax) shape[j++] = kept.data.shape()[d];
    Array<N - 1> out = xt::reshape_view(kept.data, shape);
    return {std::move(out), kept.grad_fn};
}

// t.mean(dim=d, keepdim=True): PyTorch sums, then divides by the count.
template <std::size_t N>
Tensor<N> mean_keepdim(const Tensor<N>& t, int dim) {
    const std::size_t n = t.data.shape()[detail::axis<N>(dim)];
    Array<N> out = sum_keepdim(t, dim).data / static_cast<float>(n);
    return {std::move(out), detail::node("MeanBackward1", t)};
}

// t.sum(0) of a contiguous [rows, cols], as cascade_sum's outer reductions add (the gradient of a
// broadcast bias, sum_to): columns in whole groups (4 AVX2 vectors of them, or 4 columns when
// there are fewer than 8) each summed down the rows in one cascade; the columns left over by
// row_sum (4 interleaved accumulators, then added in order). out [cols]
void sum_columns(const float* x, std::size_t rows, std::size_t cols, float* out);
// out[j] for the columns j in [first, last) only, each summed as sum_columns sums it (the same
// bits), 8 neighbouring columns at a time (one pass down the rows reads whole cache lines, where
// sum_columns reads a float a line). Ranges of one sum may run on different threads.
void sum_columns_range(const float* x, std::size_t rows, std::size_t cols, std::size_t first, std::size_t last, float* out);

// Welford's running variance in double, as WelfordOps (aten/src/ATen/native/SharedReduceOps.h),
// of n floats with the given stride; `correction` 1 is unbiased, 0 the population variance.
float welford_var(const float* x, std::size_t n, std::size_t stride, double correction);

// t.var(dim=d, keepdim=True, unbiased=...)
template <std::size_t N>
Tensor<N> var_keepdim(const Tensor<N>& t, int dim, bool unbiased = true) {
    const double correction = unbiased ? 1.0 : 0.0;
    auto var = [correction](const float* x, std::size_t n, std::size_t stride) { return welford_var(x, n, stride, correction); };
    return {detail::reduce_keepdim(t.data, dim, var), detail::node("VarBackward0", t)};
}

// ---- softmax -----------------------------------------------------------------------------------

// vec::reduce_all with +, the sum softmax_row takes: fewer than 8 values added in order, else
// lane-wise over 8-float vectors, the tail folded into the first lanes, then the lanes pairwise.
float reduce_all_sum(const float* x, std::size_t n);

// y = exp(x - max) / sum(exp(x - max)) over one contiguous row of n floats, as PyTorch's CPU
// kernel (_vec_softmax_lastdim) computes it.
void softmax_row(const float* x, float* y, std::size_t n);

// torch.softmax(t, dim=-1): softmax over the last dimension.
template <std::size_t N>
Tensor<N> softmax(const Tensor<N>& t, int dim) {
    if (detail::axis<N>(dim) != N - 1)
        throw std::invalid_argument("softmax: only the last dimension is supported (dim=-1)");
    const std::size_t n = t.data.shape()[N - 1];
    Array<N> out(t.data.shape());
    for (std::size_t r = 0; n != 0 && r < t.data.size() / n; ++r) softmax_row(t.data.data() + r * n, out.data() + r * n, n);
    return {std::move(out), detail::node("SoftmaxBackward0", t)};
}

// 5.3.1's softmax_with_temperature(logits, temperature): torch.softmax(logits / temperature, dim=0).  [V] -> [V]
inline Tensor<1> softmax_with_temperature(const Tensor<1>& logits, double temperature) { return softmax(logits / temperature, 0); }

// ---- masks -------------------------------------------------------------------------------------

Tensor<2> ones(std::size_t rows, std::size_t cols);    // torch.ones(rows, cols)
Tensor<2> tril(const Tensor<2>& a, int diagonal = 0);  // torch.tril(a, diagonal)
Tensor<2> triu(const Tensor<2>& a, int diagonal = 0);  // torch.triu(a, diagonal)
BoolArray<2> to_bool(const Tensor<2>& a);              // a.bool()
BoolArray<2> causal_mask(std::size_t t);               // torch.triu(torch.ones(T, T), diagonal=1).bool()

// t.masked_fill(mask, value): mask [T, T] broadcast over t's leading dims [..., T, T].
template <std::size_t N>
Tensor<N> masked_fill(const Tensor<N>& t, const BoolArray<2>& mask, float value) {
    static_assert(N >= 2, "masked_fill needs a [..., T, T] tensor");
    const std::size_t rows = mask.shape()[0], cols = mask.shape()[1];
    if (t.data.shape()[N - 2] != rows || t.data.shape()[N - 1] != cols)
        throw_shape_error("masked_fill", t.shape(), detail::shape_of_array(mask), "mask must match the last two dims");
    Array<N> out = t.data;
    auto blocks = xt::reshape_view(out, std::array<std::size_t, 3>{out.size() / (rows * cols), rows, cols});  // [.., T, T]
    blocks = xt::where(mask, value, blocks);
    return {std::move(out), detail::node("MaskedFillBackward0", t)};
}

constexpr float kNegInf = -std::numeric_limits<float>::infinity();  // -torch.inf

// ---- shape manipulation ------------------------------------------------------------------------

// t.transpose(d0, d1)
template <std::size_t N>
Tensor<N> transpose(const Tensor<N>& t, int d0, int d1) {
    std::array<std::size_t, N> perm;
    for (std::size_t d = 0; d < N; ++d) perm[d] = d;
    std::swap(perm[detail::axis<N>(d0)], perm[detail::axis<N>(d1)]);
    Array<N> out = xt::transpose(t.data, perm);
    return {std::move(out), detail::node("TransposeBackward0", t)};
}
// t[i]: the i-th slice along the first dim, [n, ...] -> [...]
template <std::size_t N>
Tensor<N - 1> select(const Tensor<N>& t, std::size_t i) {
    if (i >= t.data.shape()[0])
        throw std::out_of_range("index " + std::to_string(i) + " is out of bounds for dimension 0 with size " +
                                std::to_string(t.data.shape()[0]));
    Array<N - 1> out = xt::view(t.data, i);
    return {std::move(out), detail::node("SelectBackward0", t)};
}

// t.T for a matrix: [m, n] -> [n, m]
Tensor<2> T(const Tensor<2>& t);

// t.view(shape) / t.contiguous().view(shape)
template <std::size_t M, std::size_t N>
Tensor<M> view(const Tensor<N>& t, const std::array<std::size_t, M>& shape) {
    std::size_t numel = 1;
    for (auto s : shape) numel *= s;
    if (numel != t.data.size())
        throw_shape_error("view", t.shape(), Shape(shape.begin(), shape.end()), "element counts differ");
    Array<M> out = xt::reshape_view(t.data, shape);
    return {std::move(out), detail::node("ViewBackward0", t)};
}

// torch.cat(ts, dim=-1): tensors equal in all but the last dim.
template <std::size_t N>
Tensor<N> cat_lastdim(const std::vector<Tensor<N>>& ts) {
    if (ts.empty()) throw std::invalid_argument("cat: expected a non-empty list of tensors");
    auto shape = ts.front().data.shape();
    shape[N - 1] = 0;
    bool tracked = false;
    for (const auto& t : ts) {
        for (std::size_t d = 0; d + 1 < N; ++d)
            if (t.data.shape()[d] != ts.front().data.shape()[d])
                throw_shape_error("cat", ts.front().shape(), t.shape(), "all dims but the last must agree");
        shape[N - 1] += t.data.shape()[N - 1];
        tracked = tracked || t.tracks_grad();
    }
    Array<N> out(shape);
    std::size_t offset = 0;
    for (const auto& t : ts) {
        const std::size_t w = t.data.shape()[N - 1];
        xt::strided_view(out, {xt::ellipsis(), xt::range(offset, offset + w)}) = t.data;
        offset += w;
    }
    return {std::move(out), tracked ? "CatBackward0" : ""};
}

// torch.stack(ts, dim=0): k tensors of shape S -> [k, S...]
template <std::size_t N>
Tensor<N + 1> stack(const std::vector<Tensor<N>>& ts) {
    if (ts.empty()) throw std::invalid_argument("stack: expected a non-empty list of tensors");
    typename Array<N + 1>::shape_type shape;
    shape[0] = ts.size();
    for (std::size_t d = 0; d < N; ++d) shape[d + 1] = ts.front().data.shape()[d];
    Array<N + 1> out(shape);
    bool tracked = false;
    for (std::size_t i = 0; i < ts.size(); ++i) {
        if (ts[i].data.shape() != ts.front().data.shape())
            throw_shape_error("stack", ts.front().shape(), ts[i].shape(), "all tensors must have the same shape");
        xt::view(out, i) = ts[i].data;
        tracked = tracked || ts[i].tracks_grad();
    }
    return {std::move(out), tracked ? "StackBackward0" : ""};
}

}  // namespace llmfs
