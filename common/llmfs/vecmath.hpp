// exp and tanh with PyTorch's last bits. PyTorch's CPU kernels for these (vml::vexp/vtanh and the
// softmax kernel, via vec::map) run SLEEF's 1-ulp AVX2 functions on every element, padded
// partial vectors included; glibc's expf/tanhf differ from them in the last bit now and then.
// These call the same functions from Debian's libsleef (the library Debian's PyTorch links),
// falling back to the C library where the CPU lacks AVX2.
#pragma once

#include <cstddef>

namespace llmfs {

void vec_exp(const float* x, float* y, std::size_t n);   // y = exp(x)
void vec_tanh(const float* x, float* y, std::size_t n);  // y = tanh(x)

}  // namespace llmfs
