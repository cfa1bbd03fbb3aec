#include "llmfs/train/adamw.hpp"

#include <algorithm>
#include <cmath>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

#include "llmfs/fast/thread_pool.hpp"

namespace llmfs {

std::optional<PyTorchVersion> parse_pytorch_version(const std::string& text) {
    if (text == "2") return PyTorchVersion::v2;
    if (text == "1.13") return PyTorchVersion::v1_13;
    return std::nullopt;
}

std::string to_string(PyTorchVersion version) { return version == PyTorchVersion::v2 ? "2" : "1.13"; }

namespace {

// Element i of the update: adamw_update_naive's body, shared with the vector kernel's tail.
inline void update_one(float* param, const float* grad, float* m, float* v, std::size_t i, const AdamWScalars& s) {
    const float g = s.grad_plus_zero ? 0.0f + grad[i] : grad[i];
    param[i] *= s.decay;                                                           // param.mul_(1 - lr * weight_decay)
    m[i] = s.version == PyTorchVersion::v2 ? std::fma(s.one_minus_beta1, g - m[i], m[i])      // exp_avg.lerp_(grad, 1 - beta1)
                                           : std::fma(g, s.one_minus_beta1, m[i] * s.beta1);  // mul_(beta1).add_(grad, alpha=1 - beta1)
    v[i] = std::fma(s.one_minus_beta2 * g, g, v[i] * s.beta2);                    // mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    const float denom = std::sqrt(v[i]) / s.bc2 + s.eps;                           // (exp_avg_sq.sqrt() / bc2_sqrt).add_(eps)
    param[i] = param[i] + (s.neg_step * m[i]) / denom;                             // param.addcdiv_(exp_avg, denom, value=-step_size)
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
bool has_avx2_fma() {
    static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return yes;
}

// update_one on 8 elements at a time, operation for operation.
__attribute__((target("avx2,fma"))) void update_avx2(float* param, const float* grad, float* m, float* v, std::size_t n,
                                                       const AdamWScalars& s) {
    const __m256 decay = _mm256_set1_ps(s.decay), beta1 = _mm256_set1_ps(s.beta1), omb1 = _mm256_set1_ps(s.one_minus_beta1);
    const __m256 beta2 = _mm256_set1_ps(s.beta2), omb2 = _mm256_set1_ps(s.one_minus_beta2), bc2 = _mm256_set1_ps(s.bc2);
    const __m256 eps = _mm256_set1_ps(s.eps), neg_step = _mm256_set1_ps(s.neg_step), zero = _mm256_setzero_ps();
    const bool lerp = s.version == PyTorchVersion::v2;
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 g = _mm256_loadu_ps(grad + i);
        if (s.grad_plus_zero) g = _mm256_add_ps(zero, g);
        const __m256 p = _mm256_mul_ps(_mm256_loadu_ps(param + i), decay);
        __m256 mi = _mm256_loadu_ps(m + i);
        mi = lerp ? _mm256_fmadd_ps(omb1, _mm256_sub_ps(g, mi), mi) : _mm256_fmadd_ps(g, omb1, _mm256_mul_ps(mi, beta1));
        const __m256 vi = _mm256_fmadd_ps(_mm256_mul_ps(omb2, g), g, _mm256_mul_ps(_mm256_loadu_ps(v + i), beta2));
        const __m256 denom = _mm256_add_ps(_mm256_div_ps(_mm256_sqrt_ps(vi), bc2), eps);
        _mm256_storeu_ps(m + i, mi);
        _mm256_storeu_ps(v + i, vi);
        _mm256_storeu_ps(param + i, _mm256_add_ps(p, _mm256_div_ps(_mm256_mul_ps(neg_step, mi), denom)));
    }
    for (; i < n; ++i) update_one(param, grad, m, v, i, s);
}
#endif

void update_range(float* param, const float* grad, float* m, float* v, std::size_t n, const AdamWScalars& s) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (has_avx2_fma()) return update_avx2(param, grad, m, v, n, s);
#endif
    adamw_update_naive(param, grad, m, v, n, s);
}

}  // namespace

void adamw_update_naive(float* param, const float* grad, float* exp_avg, float* exp_avg_sq, std::size_t n, const AdamWScalars& s) {
    for (std::size_t i = 0; i < n; ++i) update_one(param, grad, exp_avg, exp_avg_sq, i, s);
}

void adamw_update(float* param, const float* grad, float* exp_avg, float* exp_avg_sq, std::size_t n, const AdamWScalars& s) {
    constexpr std::size_t kChunk = std::size_t{1} << 16;  // floats a chunk: 4 streams of 256 KB
    const std::size_t chunks = (n + kChunk - 1) / kChunk;
    if (chunks <= 1) return update_range(param, grad, exp_avg, exp_avg_sq, n, s);
    compute_pool().run(chunks, [&](std::size_t c) {
        const std::size_t from = c * kChunk, count = std::min(kChunk, n - from);
        update_range(param + from, grad + from, exp_avg + from, exp_avg_sq + from, count, s);
    });
}

void adamw_step(float* param, const float* grad, std::size_t n, AdamWState& state, const AdamWOptions& o, bool grad_plus_zero) {
    if (state.exp_avg.size() != n) {  // _init_group: zeros_like(p)
        state.exp_avg.assign(n, 0.0f);
        state.exp_avg_sq.assign(n, 0.0f);
    }
    state.step += 1.0f;  // step_t += 1
    const double step = state.step;  // _get_value(step_t): a Python float
    const double bias_correction1 = 1.0 - std::pow(o.beta1, step);
    const double bias_correction2 = 1.0 - std::pow(o.beta2, step);
    const double step_size = o.lr / bias_correction1;
    const double bc2_sqrt = o.version == PyTorchVersion::v2 ? std::pow(bias_correction2, 0.5) : std::sqrt(bias_correction2);
    const AdamWScalars s{static_cast<float>(1.0 - o.lr * o.weight_decay),
                         static_cast<float>(o.beta1),
                         static_cast<float>(1.0 - o.beta1),
                         static_cast<float>(o.beta2),
                         static_cast<float>(1.0 - o.beta2),
                         static_cast<float>(bc2_sqrt),
                         static_cast<float>(o.eps),
                         static_cast<float>(-step_size),
                         o.version,
                         grad_plus_zero};
    adamw_update(param, grad, state.exp_avg.data(), state.exp_avg_sq.data(), n, s);
}

}  // namespace llmfs
