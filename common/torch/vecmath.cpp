#include "llmfs/torch/vecmath.hpp"

#include <algorithm>
#include <stdexcept>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define LLMFS_VECMATH_X86 1
#include <immintrin.h>
// SLEEF's entry points, declared here because sleef.h declares the AVX2 and FMA ones only when the
// whole file is compiled with -mavx2 -mfma; here only the functions below use them, chosen at run time.
// The AVX2 ones carry the target too: clang refuses __m256 arguments to a function without it.
extern "C" {
__attribute__((target("avx2,fma"))) __m256 Sleef_expf8_u10avx2(__m256);
__attribute__((target("avx2,fma"))) __m256 Sleef_tanhf8_u10avx2(__m256);
__attribute__((target("avx2,fma"))) __m256 Sleef_logf8_u10avx2(__m256);
float Sleef_expf1_u10purecfma(float);
float Sleef_logf1_u10purecfma(float);
float Sleef_logf1_u10purec(float);
float Sleef_tanhf1_u10purecfma(float);
float Sleef_expf1_u10purec(float);
float Sleef_tanhf1_u10purec(float);
}
#elif defined(__aarch64__)
#define LLMFS_VECMATH_AARCH64 1
#include <arm_neon.h>
#include <sleef.h>  // AdvSIMD and FMA are part of every aarch64 CPU: all of its entry points are declared
#else
#include <sleef.h>
#endif

namespace llmfs {

namespace detail {

namespace {

using BlockFn = void (*)(const float* in, float* out);  // maps one vector's worth of floats

// vec::map: whole vectors of `lanes` floats, then the tail as one zero-padded partial vector.
// Only pointers cross into `block`, so it may be compiled for another instruction set than this.
void map_blocks(const float* x, float* y, std::size_t n, std::size_t lanes, BlockFn block) {
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes) block(x + i, y + i);
    if (i < n) {
        float buffer[8] = {};  // the widest vector: AVX2's 8 floats
        std::copy(x + i, x + n, buffer);
        block(buffer, buffer);
        std::copy(buffer, buffer + (n - i), y + i);
    }
}

#if LLMFS_VECMATH_X86
bool cpu_has(bool avx2) {
    static const bool fma = __builtin_cpu_supports("fma");
    static const bool avx2_fma = fma && __builtin_cpu_supports("avx2");
    return avx2 ? avx2_fma : fma;
}

__attribute__((target("avx2,fma"))) void exp_avx2(const float* in, float* out) {
    _mm256_storeu_ps(out, Sleef_expf8_u10avx2(_mm256_loadu_ps(in)));
}
__attribute__((target("avx2,fma"))) void tanh_avx2(const float* in, float* out) {
    _mm256_storeu_ps(out, Sleef_tanhf8_u10avx2(_mm256_loadu_ps(in)));
}
__attribute__((target("avx2,fma"))) void log_avx2(const float* in, float* out) {
    _mm256_storeu_ps(out, Sleef_logf8_u10avx2(_mm256_loadu_ps(in)));
}
#endif

#if LLMFS_VECMATH_AARCH64
void exp_advsimd(const float* in, float* out) { vst1q_f32(out, Sleef_expf4_u10advsimd(vld1q_f32(in))); }
void tanh_advsimd(const float* in, float* out) { vst1q_f32(out, Sleef_tanhf4_u10advsimd(vld1q_f32(in))); }
void log_advsimd(const float* in, float* out) { vst1q_f32(out, Sleef_logf4_u10advsimd(vld1q_f32(in))); }
#endif

#if LLMFS_VECMATH_X86 || LLMFS_VECMATH_AARCH64
void exp_purecfma(const float* in, float* out) { *out = Sleef_expf1_u10purecfma(*in); }
void tanh_purecfma(const float* in, float* out) { *out = Sleef_tanhf1_u10purecfma(*in); }
void log_purecfma(const float* in, float* out) { *out = Sleef_logf1_u10purecfma(*in); }
#endif
void exp_purec(const float* in, float* out) { *out = Sleef_expf1_u10purec(*in); }
void tanh_purec(const float* in, float* out) { *out = Sleef_tanhf1_u10purec(*in); }
void log_purec(const float* in, float* out) { *out = Sleef_logf1_u10purec(*in); }

bool available(VecmathKernel kernel) {
    switch (kernel) {
#if LLMFS_VECMATH_X86
        case VecmathKernel::avx2: return cpu_has(true);
        case VecmathKernel::purecfma: return cpu_has(false);
        case VecmathKernel::purec: return true;
#elif LLMFS_VECMATH_AARCH64
        case VecmathKernel::advsimd:
        case VecmathKernel::purecfma:
        case VecmathKernel::purec: return true;
#else
        case VecmathKernel::purec: return true;
#endif
        default: return false;
    }
}

void check_available(VecmathKernel kernel) {
    if (!available(kernel))
        throw std::invalid_argument("vecmath kernel " + to_string(kernel) + " does not run on this CPU");
}

}  // namespace

std::string to_string(VecmathKernel kernel) {
    switch (kernel) {
        case VecmathKernel::avx2: return "avx2";
        case VecmathKernel::advsimd: return "advsimd";
        case VecmathKernel::purecfma: return "purecfma";
        case VecmathKernel::purec: return "purec";
    }
    return "?";
}

std::vector<VecmathKernel> available_vecmath_kernels() {
    std::vector<VecmathKernel> kernels;
    for (const auto k : {VecmathKernel::avx2, VecmathKernel::advsimd, VecmathKernel::purecfma, VecmathKernel::purec})
        if (available(k)) kernels.push_back(k);
    return kernels;
}

VecmathKernel vecmath_kernel() {
    static const VecmathKernel best = available_vecmath_kernels().front();
    return best;
}

namespace {

struct KernelFns {
    std::size_t lanes;
    BlockFn exp, tanh, log;
};

KernelFns functions_of(VecmathKernel kernel) {
    check_available(kernel);
    switch (kernel) {
#if LLMFS_VECMATH_X86
        case VecmathKernel::avx2: return {8, exp_avx2, tanh_avx2, log_avx2};
#elif LLMFS_VECMATH_AARCH64
        case VecmathKernel::advsimd: return {4, exp_advsimd, tanh_advsimd, log_advsimd};
#endif
#if LLMFS_VECMATH_X86 || LLMFS_VECMATH_AARCH64
        case VecmathKernel::purecfma: return {1, exp_purecfma, tanh_purecfma, log_purecfma};
#endif
        default: return {1, exp_purec, tanh_purec, log_purec};
    }
}

}  // namespace

void vec_exp_with(VecmathKernel kernel, const float* x, float* y, std::size_t n) {
    const KernelFns f = functions_of(kernel);
    map_blocks(x, y, n, f.lanes, f.exp);
}

void vec_tanh_with(VecmathKernel kernel, const float* x, float* y, std::size_t n) {
    const KernelFns f = functions_of(kernel);
    map_blocks(x, y, n, f.lanes, f.tanh);
}

void vec_log_with(VecmathKernel kernel, const float* x, float* y, std::size_t n) {
    const KernelFns f = functions_of(kernel);
    map_blocks(x, y, n, f.lanes, f.log);
}

}  // namespace detail

void vec_exp(const float* x, float* y, std::size_t n) { detail::vec_exp_with(detail::vecmath_kernel(), x, y, n); }
void vec_tanh(const float* x, float* y, std::size_t n) { detail::vec_tanh_with(detail::vecmath_kernel(), x, y, n); }
void vec_log(const float* x, float* y, std::size_t n) { detail::vec_log_with(detail::vecmath_kernel(), x, y, n); }

}  // namespace llmfs
