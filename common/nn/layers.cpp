#include "llmfs/nn/layers.hpp"

#include "llmfs/fast/kernels.hpp"
#include "llmfs/fast/memory.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

namespace llmfs {

Linear::Linear(Generator& gen, std::size_t in_features, std::size_t out_features, bool with_bias, Init init)
    : weight(Tensor<2>::parameter(Array<2>::from_shape({out_features, in_features}))) {
    if (init == Init::zeros) {  // torch.zeros: no draw
        prefault(weight.data.data(), weight.data.size() * sizeof(float));  // the pages, from two threads
        std::memset(weight.data.data(), 0, weight.data.size() * sizeof(float));
        if (with_bias) bias = Tensor<1>::parameter(xt::zeros<float>({out_features}));
        return;
    }
    if (with_bias) bias = Tensor<1>::parameter(Array<1>::from_shape({out_features}));
    prefault(weight.data.data(), weight.data.size() * sizeof(float));
    init_linear_(gen, weight.data.data(), out_features, in_features, bias ? bias->data.data() : nullptr);
}

LoRA::LoRA(Generator& gen, std::size_t in_dim, std::size_t out_dim, std::size_t rank_, double alpha_, LoRAScaling scaling_,
           LoRAForm form_)
    : A(Tensor<2>::parameter(Array<2>::from_shape({in_dim, rank_}))),
      B(Tensor<2>::parameter(xt::zeros<float>({rank_, out_dim}))),
      alpha(alpha_),
      rank(rank_),
      scaling(scaling_),
      form(form_) {
    if (rank == 0) throw std::invalid_argument("LoRA: rank must be positive (alpha / rank)");
    // kaiming_uniform_(A, a=sqrt(5)): nn.Linear's weight rule with fan_in = A.size(1) = rank
    init_linear_(gen, A.data.data(), in_dim, rank, /*bias=*/nullptr);
}

void LoRA::add_to(const float* x, std::size_t rows, float* y) const {
    const std::size_t in = A.data.shape()[0], out = B.data.shape()[1];
    thread_local std::vector<float> t, u;  // the calling thread's, reused from call to call
    t.resize(rows * rank);
    u.resize(rows * out);
    gemm(x, A.data.data(), t.data(), rows, in, rank, /*b_transposed=*/false, /*accumulate=*/false);  // x @ A       [rows, r]
    gemm(t.data(), B.data.data(), u.data(), rows, rank, out, /*b_transposed=*/false, /*accumulate=*/false);  // (x @ A) @ B [rows, out]
    const float s = scale();
    for (std::size_t i = 0; i < rows * out; ++i) y[i] = y[i] + u[i] * s;  // linear(x) + scale * (...)
}

void LoRA::merged_weight(const float* W, float* merged) const {
    const std::size_t in = A.data.shape()[0], out = B.data.shape()[1];
    thread_local std::vector<float> product;  // A @ B [in, out], the calling thread's
    product.resize(in * out);
    gemm(A.data.data(), B.data.data(), product.data(), in, rank, out, /*b_transposed=*/false, /*accumulate=*/false);  // mm
    const float s = scale();
    for (std::size_t o = 0; o < out; ++o)
        for (std::size_t i = 0; i < in; ++i) merged[o * in + i] = W[o * in + i] + product[i * out + o] * s;  // W + alpha * lora.T
}

const float* Linear::forward_weight() const {
    if (!lora || lora->form != LoRAForm::merged) return weight.data.data();
    thread_local std::vector<float> merged;  // LinearWithLoRAMerged: F.linear(x, W + alpha * (A @ B).T, b)
    merged.resize(weight.data.size());
    lora->merged_weight(weight.data.data(), merged.data());
    return merged.data();
}

void Linear::forward_rows(const float* x, std::size_t rows, float* y, RowsFn then) const {
    if (lora) throw std::logic_error("Linear::forward_rows: the generation kernels have no LoRA path; use operator()");
    linear_rows(x, rows, weight.data.data(), bias ? bias->data.data() : nullptr, in_features(), out_features(), y, then);
}

void Linear::forward_rows_each(const float* x, std::size_t rows, const std::vector<std::pair<const Linear*, float*>>& layers) {
    std::vector<LinearOutput> outputs;
    for (const auto& [layer, y] : layers) {
        if (layer->lora) throw std::logic_error("Linear::forward_rows_each: the generation kernels have no LoRA path; use operator()");
        if (layer->in_features() != layers.front().first->in_features())
            throw_shape_error("Linear::forward_rows_each", layer->weight.shape(), layers.front().first->weight.shape(),
                              "every layer must take the same in_features");
        outputs.push_back({layer->weight.data.data(), layer->bias ? layer->bias->data.data() : nullptr, layer->out_features(), y});
    }
    if (!layers.empty()) linear_rows_many(x, rows, layers.front().first->in_features(), outputs);
}

Dropout::Dropout(Generator& gen, double p) : gen_(&gen), p_(p) {
    if (!(p >= 0.0 && p <= 1.0))
        throw std::invalid_argument("dropout probability has to be between 0 and 1, but got " + std::to_string(p));
}

void Dropout::noise_(float* noise, std::size_t n) const {
    if (p_ == 1.0) {  // PyTorch: input * zeros, no draw
        std::fill(noise, noise + n, 0.0f);
        return;
    }
    gen_->bernoulli_(noise, n, 1.0 - p_);
    const float keep = static_cast<float>(1.0 - p_);  // div_ by a Python float: a float32 scalar
    for (std::size_t i = 0; i < n; ++i) noise[i] /= keep;
}

}  // namespace llmfs
