#include "llmfs/train/clip_grad.hpp"

#include <cmath>
#include <stdexcept>

namespace llmfs {

float vector_norm2(const float* x, std::size_t n) {
    constexpr std::size_t kLanes = 8;  // Vectorized<float>::size() under AVX2
    float acc[kLanes] = {};
    const std::size_t whole = n - n % kLanes;
    for (std::size_t i = 0; i < whole; i += kLanes)
        for (std::size_t j = 0; j < kLanes; ++j) acc[j] = std::fma(x[i + j], x[i + j], acc[j]);  // norm_two_reduce_step
    float sum = acc[0];
    for (std::size_t j = 1; j < kLanes; ++j) sum = sum + acc[j];  // buffer[0] = buffer[0] + buffer[j]
    // the tail, `buffer[0] += data_val * data_val` as GCC compiled it: the first four products by one
    // vector multiply (each rounded), added in order; the last n % 4 fused
    const std::size_t quad = whole + (n - whole) / 4 * 4;
    for (std::size_t i = whole; i < quad; ++i) {
        const float square = x[i] * x[i];
        sum = sum + square;
    }
    for (std::size_t i = quad; i < n; ++i) sum = std::fma(x[i], x[i], sum);
    return std::sqrt(sum);
}

float clip_grad_norm_(const std::vector<GradView>& grads, double max_norm) {
    if (grads.empty()) return 0.0f;  // torch.tensor(0.)
    std::vector<float> norms(grads.size());  // [P]: torch.stack([torch.norm(g, 2.0) for g in grads])
    for (std::size_t i = 0; i < grads.size(); ++i) norms[i] = vector_norm2(grads[i].data, grads[i].n);
    const float total = vector_norm2(norms.data(), norms.size());  // torch.norm(stack, 2.0)
    const float shifted = total + static_cast<float>(1e-6);           // total_norm + 1e-6 (float32 tensor + Python scalar)
    const float coef = (1.0f / shifted) * static_cast<float>(max_norm);  // max_norm / t: t.reciprocal() * max_norm
    // torch.clamp(clip_coef, max=1.0): NaN stays NaN
    const float clamped = std::isnan(coef) ? coef : std::fmin(coef, 1.0f);
    for (const GradView& g : grads)
        for (std::size_t k = 0; k < g.n; ++k) g.data[k] *= clamped;  // g.mul_(clip_coef_clamped)
    return total;
}

float find_highest_gradient(const std::vector<GradView>& grads) {
    if (grads.empty()) throw std::invalid_argument("find_highest_gradient: no gradients (the notebook's would return None)");
    bool have = false;
    float max_grad = 0.0f;
    for (const GradView& g : grads) {
        if (g.n == 0) throw std::invalid_argument("find_highest_gradient: an empty gradient (max() of no values is an error in PyTorch)");
        float m = g.data[0];  // grad_values.max(): NaN propagates
        for (std::size_t k = 1; k < g.n; ++k)
            if (std::isnan(g.data[k]) || g.data[k] > m) m = std::isnan(m) ? m : g.data[k];
        if (!have || m > max_grad) max_grad = m;  // `max_grad_param > max_grad` (a NaN comparison is False)
        have = true;
    }
    return max_grad;
}

}  // namespace llmfs
