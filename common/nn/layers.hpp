// torch.nn building blocks: Linear and Dropout, initialised from PyTorch's generator.
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "llmfs/fast/kernels.hpp"
#include "llmfs/torch/ops.hpp"
#include "llmfs/torch/rng.hpp"

namespace llmfs {

// Where a C++ function is implemented, for --annotate: the file as the compiler names it (__FILE__),
// the line, and the function, e.g. {".../common/nn/attention.cpp", 112, "CausalAttention::forward"}.
struct SourceLine {
    const char* file;
    int line;
    const char* function;
};
// Where Module's forward is implemented; specialised just above each forward's definition:
//     template <> SourceLine forward_source<CausalAttention>() { return {__FILE__, __LINE__ + 1, "CausalAttention::forward"}; }
template <class Module>
SourceLine forward_source();


// torch.rand(*shape): U[0, 1) floats
template <std::size_t N>
Array<N> rand(Generator& gen, const std::array<std::size_t, N>& shape) {
    Array<N> out(shape);
    gen.uniform_(out.data(), out.size(), 0.0, 1.0);
    return out;
}

// torch.randn(*shape): standard normal floats
template <std::size_t N>
Array<N> randn(Generator& gen, const std::array<std::size_t, N>& shape) {
    Array<N> out(shape);
    gen.normal_(out.data(), out.size(), 0.0, 1.0);
    return out;
}

// How a module's parameters start: drawn from the generator as PyTorch's __init__ does, or all
// zeros without a draw (for a model whose every parameter is then loaded from a checkpoint).
enum class Init { draw, zeros };

// What multiplies x @ A @ B: appendix E's (self.alpha / self.rank), or the ch06 bonus script
// additional_experiments.py's LoRALayer, self.alpha alone.
enum class LoRAScaling { alpha_over_rank, alpha };

// How a LinearWithLoRA adds its adapter: appendix E's (and the bonus script's --trainable_layers
// lora) self.linear(x) + self.lora(x), or the bonus script's LinearWithLoRAMerged (lora_alternative):
//   lora = self.lora.A @ self.lora.B                                   # mm [in, out]
//   combined_weight = self.linear.weight + self.lora.alpha * lora.T     # [out, in]
//   torch.nn.functional.linear(x, combined_weight, self.linear.bias)   # one product: other bits
enum class LoRAForm { separate, merged };

// Appendix E's LoRALayer(in_dim, out_dim, rank, alpha): (alpha / rank) * (x @ A @ B), with
//   self.A = nn.Parameter(torch.empty(in_dim, rank)); kaiming_uniform_(self.A, a=math.sqrt(5))
//   self.B = nn.Parameter(torch.zeros(rank, out_dim))                  # no draw
// kaiming_uniform_ takes fan_in from A's second dim: the bound is sqrt(3) * gain / sqrt(rank).
struct LoRA {
    Tensor<2> A;  // [in, r]
    Tensor<2> B;  // [r, out]
    double alpha = 0.0;
    std::size_t rank = 0;
    LoRAScaling scaling = LoRAScaling::alpha_over_rank;
    LoRAForm form = LoRAForm::separate;

    LoRA(Generator& gen, std::size_t in_dim, std::size_t out_dim, std::size_t rank, double alpha,
         LoRAScaling scaling = LoRAScaling::alpha_over_rank, LoRAForm form = LoRAForm::separate);
    std::size_t num_parameters() const { return A.data.size() + B.data.size(); }
    // (self.alpha / self.rank), or self.alpha, as the float the multiply uses: a Python number times
    // a float32 tensor.
    float scale() const {
        return static_cast<float>(scaling == LoRAScaling::alpha ? alpha : alpha / static_cast<double>(rank));
    }
    // x [rows, in] -> t = x @ A [rows, r] (mm, as matmul folds a 3-D x), then y += scale * (t @ B):
    // each y element gets (t @ B) * scale added after the multiply's rounding (LinearWithLoRA's
    // self.linear(x) + self.lora(x)). t and t @ B live in the calling thread's buffers.
    void add_to(const float* x, std::size_t rows, float* y) const;
    // LoRAForm::merged's combined_weight = W + scale * (A @ B).T: W [out, in] -> merged [out, in]
    // (A @ B one sgemm, as mm; then each element W + (the product's element * scale)).
    void merged_weight(const float* W, float* merged) const;
};

// nn.Linear(in_features, out_features, bias): y = x @ W^T + b
// With `lora` set it is appendix E's LinearWithLoRA: self.linear(x) + self.lora(x).
struct Linear {
    Tensor<2> weight;               // [out, in]
    std::optional<Tensor<1>> bias;  // [out]
    std::optional<LoRA> lora;       // LinearWithLoRA's adapter (replace_linear_with_lora, nn/lora.hpp)

    // Draws weight then bias from `gen`, as nn.Linear's reset_parameters() does.
    // Init::zeros: zero weight and bias, the generator untouched.
    Linear(Generator& gen, std::size_t in_features, std::size_t out_features, bool with_bias = true, Init init = Init::draw);

    std::size_t in_features() const { return weight.data.shape()[1]; }
    std::size_t out_features() const { return weight.data.shape()[0]; }
    std::size_t num_parameters() const {
        return weight.data.size() + (bias ? bias->data.size() : 0) + (lora ? lora->num_parameters() : 0);
    }
    // The same product on raw rows through the fast kernels (linear_rows, fast/kernels.hpp), for the
    // generation paths: x [rows, in] -> y [rows, out]. Its last bits may differ from operator()'s.
    // `then` (gelu_inplace) is applied to y afterwards, inside the pooled product for one row.
    void forward_rows(const float* x, std::size_t rows, float* y, RowsFn then = nullptr) const;
    // Several layers on the same rows in one go (Q, K and V of a token): each (layer, y) pair gets
    // layer.forward_rows(x, rows, y)'s bits; one row runs all of them in one pass of the thread pool.
    static void forward_rows_each(const float* x, std::size_t rows, const std::vector<std::pair<const Linear*, float*>>& layers);
    // The weight x is multiplied by: `weight`, or for a LoRAForm::merged adapter
    // lora->merged_weight(weight) in the calling thread's buffer, valid until its next call there.
    const float* forward_weight() const;

    // x [..., in] -> [..., out]. PyTorch runs addmm (2-D with bias), mm (2-D without), or the folded
    // 3-D paths, and the grad_fn it reports follows the path taken.
    template <std::size_t N>
    Tensor<N> operator()(const Tensor<N>& x) const {
        static_assert(N >= 2, "Linear takes [..., in_features] inputs of rank >= 2");
        const std::size_t in = in_features(), out = out_features();
        if (x.data.shape()[N - 1] != in)
            throw_shape_error("Linear", x.shape(), weight.shape(), "input's last dim must equal in_features (weight is [out, in])");
        auto out_shape = x.data.shape();
        out_shape[N - 1] = out;
        Array<N> y(out_shape);
        const std::size_t rows = x.data.size() / in;
        if (bias) {
            auto y_rows = xt::reshape_view(y, std::array<std::size_t, 2>{rows, out});  // [rows, out]
            y_rows = xt::broadcast(bias->data, {rows, out});
        }
        gemm(x.data.data(), forward_weight(), y.data(), rows, in, out, /*b_transposed=*/true, /*accumulate=*/bias.has_value());
        if (lora && lora->form == LoRAForm::separate) {  // LinearWithLoRA: self.linear(x) + self.lora(x)
            lora->add_to(x.data.data(), rows, y.data());
            return {std::move(y), detail::node("AddBackward0", x, weight, lora->A, lora->B)};
        }
        const char* node = N == 2 ? (bias ? "AddmmBackward0" : "MmBackward0") : (bias ? "ViewBackward0" : "UnsafeViewBackward0");
        return bias ? Tensor<N>{std::move(y), detail::node(node, x, weight, *bias)} : Tensor<N>{std::move(y), detail::node(node, x, weight)};
    }
};

// nn.Dropout(p): in training mode zeroes each element with probability p and scales the rest by
// 1/(1-p); the mask comes from the generator's Bernoulli kernel (mkl or default).
class Dropout {
public:
    Dropout(Generator& gen, double p);
    void train(bool on) { training_ = on; }
    double p() const { return p_; }
    bool training() const { return training_; }
    // The mask a training-mode call multiplies by: n draws of bernoulli_(1 - p).div_(1 - p), as
    // operator() makes them (chapter 5's backward passes keep it).
    void draw_noise(float* noise, std::size_t n) const { noise_(noise, n); }

    template <std::size_t N>
    Tensor<N> operator()(const Tensor<N>& x) const {
        if (p_ == 0.0 || !training_ || x.data.size() == 0) return x;  // no draw at all, as PyTorch
        Array<N> noise(x.data.shape());                               // noise = empty_like(x)
        noise_(noise.data(), noise.size());                           // .bernoulli_(1 - p).div_(1 - p)
        return {xt::eval(x.data * noise), detail::node("MulBackward0", x)};  // x * noise
    }

private:
    void noise_(float* noise, std::size_t n) const;
    Generator* gen_;
    double p_;
    bool training_ = true;
};

}  // namespace llmfs
