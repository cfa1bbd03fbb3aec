#include "llmfs/torch/blas.hpp"

#include <cblas.h>

#include <string>

#include <fmt/format.h>

#ifndef LLMFS_GOLDEN_BLAS_KERNEL
#error "LLMFS_GOLDEN_BLAS_KERNEL (the OpenBLAS kernel the goldens were printed with) comes from CMakeLists.txt"
#endif

namespace llmfs {

std::string blas_kernel() {
    const char* name = openblas_get_corename();
    return name != nullptr ? name : "unknown";
}

const char* golden_blas_kernel() { return LLMFS_GOLDEN_BLAS_KERNEL; }

bool can_run_golden_blas_kernel() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    const char* config = openblas_get_config();
    return std::string(golden_blas_kernel()) == "Haswell" && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
           config != nullptr && std::string(config).find("DYNAMIC_ARCH") != std::string::npos;
#else
    return false;
#endif
}

std::string blas_kernel_note() {
    const std::string running = blas_kernel();
    if (running == golden_blas_kernel()) return "";
    return fmt::format("products computed by OpenBLAS's {} kernel; the expected output was printed with its {} kernel "
                       "(OPENBLAS_CORETYPE={} reproduces it on x86-64 CPUs with AVX2)",
                       running, golden_blas_kernel(), golden_blas_kernel());
}

}  // namespace llmfs
