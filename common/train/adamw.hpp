// torch.optim.AdamW's step as PyTorch computes it for CPU tensors: the single-tensor path
// (_single_tensor_adamw in 1.13, _single_tensor_adam with decoupled weight decay in 2.x), one
// parameter at a time, elementwise, in float32 with the scalars computed in Python's double:
//
//   step += 1                                    (a float32 tensor, read back as a Python float)
//   param *= float(1 - lr * weight_decay)
//   1.13: exp_avg = fma(grad, float(1 - beta1), exp_avg * float(beta1))      mul_, then add_ with alpha
//   2.x:  exp_avg = fma(float(1 - beta1), grad - exp_avg, exp_avg)          lerp_ (weight below 0.5)
//   exp_avg_sq = fma(float(1 - beta2) * grad, grad, exp_avg_sq * float(beta2))   mul_, then addcmul_
//   bias_correction1 = 1 - beta1**step,  bias_correction2 = 1 - beta2**step,  step_size = lr / bias_correction1
//   1.13: bc2_sqrt = math.sqrt(bias_correction2);   2.x: bc2_sqrt = bias_correction2**0.5
//   denom = sqrt(exp_avg_sq) / float(bc2_sqrt) + float(eps)
//   param = param + (float(-step_size) * exp_avg) / denom                      addcdiv_
//
// The multiply-adds are fused as GCC compiled PyTorch's kernels (docs/pytorch-cpu-training.md);
// 1.13's are checked against real PyTorch here, 2.x's against its source's formulas
// (tests/goldens/torch2x_adamw.py restates them in PyTorch 1.13's kernels).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace llmfs {

// Which PyTorch's AdamW to reproduce: 2.x (the book's notebooks; the default) or 1.13 (Debian's).
enum class PyTorchVersion { v2, v1_13 };
std::optional<PyTorchVersion> parse_pytorch_version(const std::string& text);  // "2" or "1.13"
std::string to_string(PyTorchVersion version);

struct AdamWOptions {
    double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 1e-2;  // torch.optim.AdamW's defaults
    PyTorchVersion version = PyTorchVersion::v2;
};

// One parameter's optimizer state: optimizer.state[p].
struct AdamWState {
    float step = 0.0f;                          // state["step"], a float32 tensor
    std::vector<float> exp_avg, exp_avg_sq;     // zeros of the parameter's size until the first step
};

// optimizer.step() for one parameter of n floats with gradient grad. With grad_plus_zero, the
// gradient is taken as 0 + grad (1.13's zero_grad() zeroes and AccumulateGrad adds: -0 becomes +0).
void adamw_step(float* param, const float* grad, std::size_t n, AdamWState& state, const AdamWOptions& options,
                bool grad_plus_zero = false);

// One step's float32 scalars (from the Python doubles above) and the element loop they drive.
struct AdamWScalars {
    float decay, beta1, one_minus_beta1, beta2, one_minus_beta2, bc2, eps, neg_step;
    PyTorchVersion version;
    bool grad_plus_zero;
};
// The teaching loop: element by element, the lines above, each multiply-add through std::fma.
void adamw_update_naive(float* param, const float* grad, float* exp_avg, float* exp_avg_sq, std::size_t n, const AdamWScalars& s);
// The same operations on each element, 8 at a time with AVX2 and FMA where the CPU has them (a fused
// multiply-add rounds once either way, sqrt and / are IEEE's: the same bits), the elements cut into
// contiguous ranges on the compute pool's threads. adamw_test checks it against the naive loop.
void adamw_update(float* param, const float* grad, float* exp_avg, float* exp_avg_sq, std::size_t n, const AdamWScalars& s);

}  // namespace llmfs
