// Which OpenBLAS kernel computes the matrix products, and the one the goldens were printed with.
//
// OpenBLAS picks its kernels for the CPU at start-up (OPENBLAS_VERBOSE=2 names them). Kernels for
// different CPUs can round a product's last bit differently, so a printed digit can differ from
// the goldens (data/golden/, printed with LLMFS_GOLDEN_BLAS_KERNEL) on another CPU. Setting
// OPENBLAS_CORETYPE=<golden kernel> reproduces the goldens exactly on any CPU that can run it.
#pragma once

#include <string>

namespace llmfs {

// The kernel OpenBLAS runs in this process: "Haswell", "SkylakeX", "Cooperlake", "Zen", "ARMV8", ...
std::string blas_kernel();

// The kernel data/golden/ was printed with (named once, in the top-level CMakeLists.txt): "Haswell".
const char* golden_blas_kernel();

// Whether this CPU can run the golden kernel (OPENBLAS_CORETYPE=<it>): x86-64 with AVX2 and FMA for
// Haswell. (cmake/blas_kernel_probe.cpp asks the same at configure time, for the tests.)
bool can_run_golden_blas_kernel();

// Why an output that is close to a golden is not exact, when the kernels differ:
//   "products computed by OpenBLAS's SkylakeX kernel; the expected output was printed with its
//    Haswell kernel (OPENBLAS_CORETYPE=Haswell reproduces it on x86-64 CPUs with AVX2)"
// and "" when this process runs the golden kernel.
std::string blas_kernel_note();

}  // namespace llmfs
