#include "llmfs/train/adamw.hpp"

#include <cmath>

namespace llmfs {

std::optional<PyTorchVersion> parse_pytorch_version(const std::string& text) {
    if (text == "2") return PyTorchVersion::v2;
    if (text == "1.13") return PyTorchVersion::v1_13;
    return std::nullopt;
}

std::string to_string(PyTorchVersion version) { return version == PyTorchVersion::v2 ? "2" : "1.13"; }

void adamw_step(float* param, const float* grad, std::size_t n, AdamWState& state, const AdamWOptions& o) {
    if (state.exp_avg.size() != n) {  // _init_group: zeros_like(p)
        state.exp_avg.assign(n, 0.0f);
        state.exp_avg_sq.assign(n, 0.0f);
    }
    state.step += 1.0f;  // step_t += 1
    const auto decay = static_cast<float>(1.0 - o.lr * o.weight_decay);
    const auto beta1 = static_cast<float>(o.beta1), one_minus_beta1 = static_cast<float>(1.0 - o.beta1);
    const auto beta2 = static_cast<float>(o.beta2), one_minus_beta2 = static_cast<float>(1.0 - o.beta2);
    const double step = state.step;  // _get_value(step_t): a Python float
    const double bias_correction1 = 1.0 - std::pow(o.beta1, step);
    const double bias_correction2 = 1.0 - std::pow(o.beta2, step);
    const double step_size = o.lr / bias_correction1;
    const double bc2_sqrt = o.version == PyTorchVersion::v2 ? std::pow(bias_correction2, 0.5) : std::sqrt(bias_correction2);
    const auto bc2 = static_cast<float>(bc2_sqrt), eps = static_cast<float>(o.eps), neg_step = static_cast<float>(-step_size);
    float* m = state.exp_avg.data();
    float* v = state.exp_avg_sq.data();
    for (std::size_t i = 0; i < n; ++i) {
        const float g = grad[i];
        param[i] *= decay;                                                      // param.mul_(1 - lr * weight_decay)
        m[i] = o.version == PyTorchVersion::v2 ? std::fma(one_minus_beta1, g - m[i], m[i])     // exp_avg.lerp_(grad, 1 - beta1)
                                               : std::fma(g, one_minus_beta1, m[i] * beta1);  // mul_(beta1).add_(grad, alpha=1 - beta1)
        v[i] = std::fma(one_minus_beta2 * g, g, v[i] * beta2);                 // mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        const float denom = std::sqrt(v[i]) / bc2 + eps;                        // (exp_avg_sq.sqrt() / bc2_sqrt).add_(eps)
        param[i] = param[i] + (neg_step * m[i]) / denom;                        // param.addcdiv_(exp_avg, denom, value=-step_size)
    }
}

}  // namespace llmfs
