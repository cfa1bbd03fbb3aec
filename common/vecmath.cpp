#include "llmfs/vecmath.hpp"

#include <algorithm>
#include <cmath>

#include <immintrin.h>

// SLEEF's 8-float AVX2 entry points (libsleef). sleef.h declares them only when the whole file is
// compiled with -mavx2; here only the functions below use AVX2, chosen at run time.
extern "C" {
__m256 Sleef_expf8_u10(__m256);
__m256 Sleef_tanhf8_u10(__m256);
}

namespace llmfs {

namespace {

constexpr std::size_t kLanes = 8;  // Vectorized<float>::size() with AVX2

bool has_avx2() {
    static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return yes;
}

// vec::map: whole vectors, then the tail as one zero-padded partial vector.
template <class Fn>
__attribute__((target("avx2,fma"))) void map_avx2(const float* x, float* y, std::size_t n, Fn fn) {
    std::size_t i = 0;
    for (; i + kLanes <= n; i += kLanes) _mm256_storeu_ps(y + i, fn(_mm256_loadu_ps(x + i)));
    if (i < n) {
        alignas(32) float buffer[kLanes] = {};
        std::copy(x + i, x + n, buffer);
        _mm256_store_ps(buffer, fn(_mm256_load_ps(buffer)));
        std::copy(buffer, buffer + (n - i), y + i);
    }
}

__attribute__((target("avx2,fma"))) __m256 sleef_exp(__m256 v) { return Sleef_expf8_u10(v); }
__attribute__((target("avx2,fma"))) __m256 sleef_tanh(__m256 v) { return Sleef_tanhf8_u10(v); }

}  // namespace

void vec_exp(const float* x, float* y, std::size_t n) {
    if (has_avx2()) return map_avx2(x, y, n, sleef_exp);
    std::transform(x, x + n, y, [](float v) { return std::exp(v); });
}

void vec_tanh(const float* x, float* y, std::size_t n) {
    if (has_avx2()) return map_avx2(x, y, n, sleef_tanh);
    std::transform(x, x + n, y, [](float v) { return std::tanh(v); });
}

}  // namespace llmfs
