// exp, tanh and log with PyTorch's last bits. PyTorch's CPU kernels for these (vml::vexp/vtanh and the
// softmax kernel, via vec::map) run SLEEF's 1-ulp functions on every element, padded partial
// vectors included; glibc's expf/tanhf differ from them in the last bit now and then. These call
// the same functions from the system's libsleef (the library Debian's PyTorch links), through the
// entry point for the CPU at hand. The FMA builds of SLEEF's algorithm give the same bits whatever
// the vector width (AVX2 8 lanes, AdvSIMD 4 lanes, scalar): vecmath_test checks each kernel this
// machine can run against PyTorch's own output. Only the no-FMA build (kernel purec, the last
// resort on x86 CPUs without FMA) differs.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace llmfs {

void vec_exp(const float* x, float* y, std::size_t n);   // y = exp(x)
void vec_tanh(const float* x, float* y, std::size_t n);  // y = tanh(x)
void vec_log(const float* x, float* y, std::size_t n);   // y = log(x) (log_softmax's log of the sums)

// Internals exposed for the unit tests.
namespace detail {

enum class VecmathKernel {
    avx2,      // x86-64 with AVX2 and FMA (checked at run time): Sleef_expf8_u10, PyTorch's own kernel
    advsimd,   // aarch64: Sleef_expf4_u10 (NEON, with FMA), the kernel of PyTorch's ARM builds
    purecfma,  // SLEEF's scalar build with FMA: where FMA exists but no vector kernel above applies
    purec,     // SLEEF's scalar build without FMA: last bits can differ from the others
};

std::string to_string(VecmathKernel kernel);
std::vector<VecmathKernel> available_vecmath_kernels();  // on this CPU, best first
VecmathKernel vecmath_kernel();                          // the one vec_exp / vec_tanh use: the best

// vec_exp / vec_tanh through a given kernel; throws std::invalid_argument if this CPU lacks it.
void vec_exp_with(VecmathKernel kernel, const float* x, float* y, std::size_t n);
void vec_tanh_with(VecmathKernel kernel, const float* x, float* y, std::size_t n);
void vec_log_with(VecmathKernel kernel, const float* x, float* y, std::size_t n);

}  // namespace detail

}  // namespace llmfs
