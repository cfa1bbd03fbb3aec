// One-off check behind common/vecmath_test's expectations: on x86-64 with AVX2, compares SLEEF's
// AVX2 exp/tanh (PyTorch's kernel) with its scalar builds on all 2^32 float inputs. Not part of the
// build; run by hand (about 5 minutes per function on one core):
//
//   dir=$(mktemp -d) && g++ -O2 -mavx2 -mfma tests/goldens/sleef_exhaustive.cpp -o "$dir/sleef_exhaustive" -lsleef
//   "$dir/sleef_exhaustive" exp; "$dir/sleef_exhaustive" tanh
//
// Result with Debian 12's SLEEF 3.5.1 (recorded in docs/cpus-arm-macos.md, "ARM and macOS"):
//   exp:  avx2 vs purecfma 0 diffs; vs purec 1886213; vs Sleef_expf_u10 1886224
//   tanh: avx2 vs purecfma 0 diffs; vs purec 976; vs Sleef_tanhf_u10 727792
// (NaN outputs count as equal whatever their payload.)
#include <immintrin.h>
#include <sleef.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
static uint32_t b(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
int main(int argc, char** argv) {
    bool tanh_ = argc > 1 && argv[1][0] == 't';
    uint64_t d_fma = 0, d_c = 0, d_sp = 0, nan_only = 0;
    uint32_t first_fma = 0, first_c = 0, first_sp = 0;
    alignas(32) float in[8], out[8];
    for (uint64_t base = 0; base < (1ull << 32); base += 8) {
        for (int l = 0; l < 8; l++) {
            uint32_t u = uint32_t(base + l);
            memcpy(&in[l], &u, 4);
        }
        __m256 v = _mm256_load_ps(in);
        _mm256_store_ps(out, tanh_ ? Sleef_tanhf8_u10avx2(v) : Sleef_expf8_u10avx2(v));
        for (int l = 0; l < 8; l++) {
            float a = out[l];
            float f = tanh_ ? Sleef_tanhf1_u10purecfma(in[l]) : Sleef_expf1_u10purecfma(in[l]);
            float c = tanh_ ? Sleef_tanhf1_u10purec(in[l]) : Sleef_expf1_u10purec(in[l]);
            float s = tanh_ ? Sleef_tanhf_u10(in[l]) : Sleef_expf_u10(in[l]);
            if (b(a) != b(f)) {
                if (std::isnan(a) && std::isnan(f))
                    nan_only++;
                else {
                    if (!d_fma) first_fma = uint32_t(base + l);
                    d_fma++;
                }
            }
            if (b(a) != b(c) && !(std::isnan(a) && std::isnan(c))) {
                if (!d_c) first_c = uint32_t(base + l);
                d_c++;
            }
            if (b(a) != b(s) && !(std::isnan(a) && std::isnan(s))) {
                if (!d_sp) first_sp = uint32_t(base + l);
                d_sp++;
            }
        }
    }
    printf(
        "%s: avx2 vs purecfma %llu diffs (first 0x%08x), nan-payload-only %llu; vs purec %llu (first 0x%08x); vs "
        "Sleef_%sf_u10 %llu (first 0x%08x)\n",
        tanh_ ? "tanh" : "exp", (unsigned long long)d_fma, first_fma, (unsigned long long)nan_only,
        (unsigned long long)d_c, first_c, tanh_ ? "tanh" : "exp", (unsigned long long)d_sp, first_sp);
}
