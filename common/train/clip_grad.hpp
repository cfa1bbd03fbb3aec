// torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm) (appendix D, section D.3) as PyTorch
// computes it for float32 CPU gradients, bit for bit. PyTorch 1.13's torch/nn/utils/clip_grad.py:
//
//   total_norm = torch.norm(torch.stack([torch.norm(g.detach(), norm_type) for g in grads]), norm_type)
//   clip_coef = max_norm / (total_norm + 1e-6)          # Tensor.__rtruediv__: total.reciprocal() * max_norm
//   clip_coef_clamped = torch.clamp(clip_coef, max=1.0)
//   for g in grads: g.detach().mul_(clip_coef_clamped)
//
// PyTorch 2.x (torch/nn/utils/clip_grad.py, foreach=None) groups the gradients by device and, on
// the CPU too, takes torch._foreach_norm(grads, 2.0), whose CPU kernel is the per-tensor fallback
// (linalg_vector_norm of each), then torch.linalg.vector_norm(torch.stack(norms)) and
// torch._foreach_mul_(grads, clip_coef_clamped): the same kernels in the same order, so the same
// bits (docs/training.md#appendix-d-warmup-cosine-decay-clipping).
//
// torch.norm(x, 2) of a contiguous float32 tensor (ReduceOpsKernel.cpp's vectorized path for p = 2
// over the last dimension, CPU capability AVX2): eight float32 lanes, lane j summing x[8i + j]^2 by
// fused multiply-adds (GCC contracts `acc += x * x`), then the lanes added in order 0..7, then the
// tail (n mod 8 elements, `buffer[0] += data_val * data_val` in a scalar loop that GCC vectorized by
// four with an in-order sum): of a tail of 4 to 7, the first four squares rounded and added in
// order, the rest (n mod 4) by fused multiply-adds on that sum; then sqrt. Found by replaying
// PyTorch 1.13's torch.norm on 1,900 vectors, every tail length (docs/training.md). An AVX-512
// build of PyTorch (capability AVX512) sums in sixteen lanes: other bits in the last place.
#pragma once

#include <cstddef>
#include <vector>

namespace llmfs {

// torch.norm(x, 2.0) of n contiguous float32 values, as above.
float vector_norm2(const float* x, std::size_t n);

// One gradient, n floats, clipped in place.
struct GradView {
    float* data;
    std::size_t n;
};

// clip_grad_norm_ with norm_type 2: scales every gradient by min(1, max_norm / (total + 1e-6)) in
// float32 and returns the total norm (what PyTorch returns).
float clip_grad_norm_(const std::vector<GradView>& grads, double max_norm);

// The notebook's find_highest_gradient: the largest gradient value over all parameters (each
// param.grad.flatten().max(), the largest of those; NaN wins as torch.max's does).
float find_highest_gradient(const std::vector<GradView>& grads);

}  // namespace llmfs
