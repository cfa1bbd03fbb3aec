// PyTorch's CPU generator, bit for bit. docs/pytorch-cpu-rng.md lists the facts this file relies
// on and how each was checked; data/tests/rng_cases.txt holds real PyTorch outputs it is tested on.
//
// Every floating-point step below is written out as PyTorch's compiled code performs it, including
// where its x86 AVX2 build fuses a multiply and an add into one FMA (the C++ standard lets the
// compiler do that, and GCC does: -ffp-contract=fast is its default). Each FMA here is an explicit
// std::fma or _mm256_fmadd_ps, and every other product is rounded before any addition, so the
// results do not depend on this project's own compiler flags.
#include "llmfs/torch/rng.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define LLMFS_RNG_HAVE_AVX2 1
#define LLMFS_TARGET_AVX2 __attribute__((target("avx2,fma")))
#else
#define LLMFS_RNG_HAVE_AVX2 0
#endif

namespace llmfs {

// ---------------------------------------------------------------------------------------------
// MT19937 (ATen/core/MT19937RNGEngine.h)
// ---------------------------------------------------------------------------------------------

namespace {

constexpr std::size_t kShift = 397;  // MT19937's M
constexpr std::uint32_t kMatrixA = 0x9908b0dfu;
constexpr std::uint32_t kUpperMask = 0x80000000u;
constexpr std::uint32_t kLowerMask = 0x7fffffffu;

// One step of the twist: the upper bit of `current`, the lower 31 bits of `next`, xor-ed into `far`.
inline std::uint32_t twist_word(std::uint32_t current, std::uint32_t next, std::uint32_t far) {
    const std::uint32_t y = (current & kUpperMask) | (next & kLowerMask);
    return far ^ (y >> 1) ^ ((0u - (y & 1u)) & kMatrixA);
}

inline std::uint32_t temper(std::uint32_t y) {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

}  // namespace

void Mt19937::seed(std::uint32_t seed) {
    state_[0] = seed;
    for (std::size_t i = 1; i < kStateSize; ++i) {
        const std::uint32_t prev = state_[i - 1];
        state_[i] = 1812433253u * (prev ^ (prev >> 30)) + static_cast<std::uint32_t>(i);
    }
    index_ = kStateSize;
}

void Mt19937::twist() {
    std::uint32_t* s = state_.data();
    for (std::size_t i = 0; i < kStateSize - kShift; ++i) s[i] = twist_word(s[i], s[i + 1], s[i + kShift]);
    for (std::size_t i = kStateSize - kShift; i < kStateSize - 1; ++i)
        s[i] = twist_word(s[i], s[i + 1], s[i + kShift - kStateSize]);
    s[kStateSize - 1] = twist_word(s[kStateSize - 1], s[0], s[kShift - 1]);
    index_ = 0;
}

std::uint32_t Mt19937::operator()() {
    if (index_ == kStateSize) twist();
    return temper(state_[index_++]);
}

void Mt19937::generate(std::uint32_t* out, std::size_t n) {
    while (n > 0) {
        if (index_ == kStateSize) twist();
        const std::size_t count = std::min(n, kStateSize - index_);
        const std::uint32_t* words = state_.data() + index_;
        for (std::size_t j = 0; j < count; ++j) out[j] = temper(words[j]);
        index_ += count;
        out += count;
        n -= count;
    }
}

// ---------------------------------------------------------------------------------------------
// Kernel selection
// ---------------------------------------------------------------------------------------------

namespace {

std::atomic<bool> g_simd_enabled{true};

bool cpu_has_avx2_fma() {
#if LLMFS_RNG_HAVE_AVX2
    static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return has;
#else
    return false;
#endif
}

#if LLMFS_RNG_HAVE_AVX2
bool use_simd() { return g_simd_enabled.load(std::memory_order_relaxed) && cpu_has_avx2_fma(); }
#endif

}  // namespace

namespace detail {

bool simd_kernels_available() { return cpu_has_avx2_fma(); }
void use_simd_kernels(bool on) { g_simd_enabled.store(on, std::memory_order_relaxed); }

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Uniform floats (ATen/core/TransformationHelper.h: uniform_real)
// ---------------------------------------------------------------------------------------------

namespace {

constexpr std::uint32_t kFloatMantissaMask = (1u << 24) - 1;  // std::numeric_limits<float>::digits bits
constexpr float kFloatDivisor = 1.0f / (1u << 24);
constexpr std::uint64_t kDoubleMantissaMask = (std::uint64_t{1} << 53) - 1;
constexpr double kDoubleDivisor = 1.0 / (std::uint64_t{1} << 53);

// uniform_real<double>(bits, 0, 1) = (bits & (2^53 - 1)) * 2^-53 (the fused x * 1 + 0 is x). The
// masked value fits in int64, whose conversion to double is one instruction (uint64's is not).
double uniform_double_from(std::uint64_t bits) {
    return static_cast<double>(static_cast<std::int64_t>(bits & kDoubleMantissaMask)) * kDoubleDivisor;
}

// uniform_real<float>(bits, from, to) = x * (to - from) + from with x = (bits & mask) * 2^-24;
// PyTorch's AVX2 build computes it as fma(x, to - from, from).
void uniform_floats_portable(const std::uint32_t* bits, std::size_t n, float range, float from, float* out) {
    for (std::size_t i = 0; i < n; ++i) {
        const float x = static_cast<float>(static_cast<std::int32_t>(bits[i] & kFloatMantissaMask)) * kFloatDivisor;
        out[i] = std::fma(x, range, from);
    }
}

#if LLMFS_RNG_HAVE_AVX2
LLMFS_TARGET_AVX2 void uniform_floats_avx2(const std::uint32_t* bits, std::size_t n, float range, float from,
                                           float* out) {
    const __m256i mask = _mm256_set1_epi32(static_cast<int>(kFloatMantissaMask));
    const __m256 divisor = _mm256_set1_ps(kFloatDivisor);
    const __m256 range_v = _mm256_set1_ps(range);
    const __m256 from_v = _mm256_set1_ps(from);
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i b = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(bits + i)), mask);
        const __m256 x = _mm256_mul_ps(_mm256_cvtepi32_ps(b), divisor);  // exact: b < 2^24
        _mm256_storeu_ps(out + i, _mm256_fmadd_ps(x, range_v, from_v));
    }
    uniform_floats_portable(bits + i, n - i, range, from, out + i);
}
#endif

void uniform_floats(const std::uint32_t* bits, std::size_t n, float range, float from, float* out) {
#if LLMFS_RNG_HAVE_AVX2
    if (use_simd()) return uniform_floats_avx2(bits, n, range, from, out);
#endif
    uniform_floats_portable(bits, n, range, from, out);
}

// Draws are taken from the engine this many at a time (a stack buffer) for the bulk fills.
constexpr std::size_t kChunk = 1024;

// uniform_real_distribution<float>(from, to) applied to each of n elements in turn.
void fill_uniform(Mt19937& engine, float* data, std::size_t n, float from, float to) {
    const float range = to - from;
    std::uint32_t bits[kChunk];
    for (std::size_t i = 0; i < n; i += kChunk) {
        const std::size_t count = std::min(kChunk, n - i);
        engine.generate(bits, count);
        uniform_floats(bits, count, range, from, data + i);
    }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The normal_fill transform (aten/src/ATen/native/cpu/DistributionTemplates.h: normal_fill_16_AVX2,
// with log256_ps and sincos256_ps from aten/src/ATen/native/cpu/avx_mathfun.h, Cephes' logf and
// sinf/cosf in single precision). The FMAs are where GCC fused them in PyTorch's AVX2 build; the
// result was matched bit for bit against torch 1.13 (see docs/pytorch-cpu-rng.md).
// ---------------------------------------------------------------------------------------------

namespace {

namespace cephes {
constexpr float kSqrtHalf = 0.707106781186547524f;
constexpr float kLogP0 = 7.0376836292E-2f, kLogP1 = -1.1514610310E-1f, kLogP2 = 1.1676998740E-1f,
                kLogP3 = -1.2420140846E-1f, kLogP4 = 1.4249322787E-1f, kLogP5 = -1.6668057665E-1f,
                kLogP6 = 2.0000714765E-1f, kLogP7 = -2.4999993993E-1f, kLogP8 = 3.3333331174E-1f;
constexpr float kLogQ1 = -2.12194440e-4f, kLogQ2 = 0.693359375f;  // ln 2 = kLogQ2 - kLogQ1, split
constexpr float kFourOverPi = 1.27323954473516f;
constexpr float kMinusDP1 = -0.78515625f, kMinusDP2 = -2.4187564849853515625e-4f,
                kMinusDP3 = -3.77489497744594108e-8f;  // -pi/4 in three parts
constexpr float kCosP0 = 2.443315711809948E-005f, kCosP1 = -1.388731625493765E-003f,
                kCosP2 = 4.166664568298827E-002f;
constexpr float kSinP0 = -1.9515295891E-4f, kSinP1 = 8.3321608736E-3f, kSinP2 = -1.6666654611E-1f;
}  // namespace cephes

// 2.0f * c10::pi<double>, rounded to float by _mm256_set1_ps.
constexpr float kTwoPiFloat = static_cast<float>(2.0 * 3.14159265358979323846);

using detail::bits_of;
using detail::float_of;

// log256_ps for one lane, on the inputs normal_fill gives it: x = 1 - u in [2^-24, 1] (normal, > 0,
// so the NaN and denormal handling of the original never triggers).
float cephes_log(float x) {
    const std::uint32_t bits = bits_of(x);
    const float mantissa = float_of((bits & 0x807fffffu) | bits_of(0.5f));  // in [0.5, 1)
    float e = static_cast<float>(static_cast<std::int32_t>(bits >> 23) - 127) + 1.0f;
    const bool below_sqrt_half = mantissa < cephes::kSqrtHalf;
    e = e - (below_sqrt_half ? 1.0f : 0.0f);
    float t = (mantissa - 1.0f) + (below_sqrt_half ? mantissa : 0.0f);
    const float z = t * t;
    float y = std::fma(cephes::kLogP0, t, cephes::kLogP1);
    y = std::fma(y, t, cephes::kLogP2);
    y = std::fma(y, t, cephes::kLogP3);
    y = std::fma(y, t, cephes::kLogP4);
    y = std::fma(y, t, cephes::kLogP5);
    y = std::fma(y, t, cephes::kLogP6);
    y = std::fma(y, t, cephes::kLogP7);
    y = std::fma(y, t, cephes::kLogP8);
    y = y * t;
    y = std::fma(y, z, e * cephes::kLogQ1);
    y = std::fma(-z, 0.5f, y);
    t = t + y;
    return std::fma(e, cephes::kLogQ2, t);
}

// sincos256_ps for one lane, on x = theta in [0, 2 pi) (non-negative, so no input sign to carry).
void cephes_sincos(float x, float& sin_out, float& cos_out) {
    // Octant j (made even), and x reduced by j * pi/4 in extended precision.
    const std::int32_t j = (static_cast<std::int32_t>(x * cephes::kFourOverPi) + 1) & ~1;
    const float jf = static_cast<float>(j);
    x = std::fma(jf, cephes::kMinusDP1, x);
    x = std::fma(jf, cephes::kMinusDP2, x);
    x = std::fma(jf, cephes::kMinusDP3, x);
    const float z = x * x;
    // The cosine polynomial...
    float yc = std::fma(cephes::kCosP0, z, cephes::kCosP1);
    yc = std::fma(yc, z, cephes::kCosP2);
    yc = yc * z;
    yc = std::fma(yc, z, -(z * 0.5f));
    yc = yc + 1.0f;
    // ...and the sine polynomial, both evaluated; the octant picks which is sin and which is cos.
    float ys = std::fma(cephes::kSinP0, z, cephes::kSinP1);
    ys = std::fma(ys, z, cephes::kSinP2);
    ys = ys * z;
    ys = std::fma(ys, x, x);
    // The original selects with bit masks and adds the unselected lane as +0.0f (which turns -0.0f
    // into +0.0f); "0.0f +" reproduces that.
    const bool sine_is_ys = (j & 2) == 0;
    const float s = 0.0f + (sine_is_ys ? ys : yc);
    const float c = 0.0f + (sine_is_ys ? yc : ys);
    sin_out = (j & 4) != 0 ? -s : s;
    cos_out = ((j - 2) & 4) == 0 ? -c : c;
}

// normal_fill_16_AVX2 for one block, one lane at a time.
void normal_fill_16_portable(float* data, float mean, float stddev) {
    for (std::size_t j = 0; j < 8; ++j) {
        const float u1 = 1.0f - data[j];  // [0, 1) -> (0, 1] for log
        const float u2 = data[j + 8];
        const float radius = std::sqrt(-2.0f * cephes_log(u1));
        const float theta = kTwoPiFloat * u2;
        float sin_theta, cos_theta;
        cephes_sincos(theta, sin_theta, cos_theta);
        data[j] = std::fma(radius * cos_theta, stddev, mean);
        data[j + 8] = std::fma(radius * sin_theta, stddev, mean);
    }
}

#if LLMFS_RNG_HAVE_AVX2
// log256_ps: cephes_log above, 8 lanes at once.
LLMFS_TARGET_AVX2 inline __m256 log_avx2(__m256 x) {
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256i bits = _mm256_castps_si256(x);
    const __m256 mantissa = _mm256_or_ps(_mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(0x807fffff))),
                                         _mm256_set1_ps(0.5f));
    __m256 e = _mm256_add_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_srli_epi32(bits, 23), _mm256_set1_epi32(127))),
                             one);
    const __m256 below = _mm256_cmp_ps(mantissa, _mm256_set1_ps(cephes::kSqrtHalf), _CMP_LT_OS);
    e = _mm256_sub_ps(e, _mm256_and_ps(one, below));
    __m256 t = _mm256_add_ps(_mm256_sub_ps(mantissa, one), _mm256_and_ps(mantissa, below));
    const __m256 z = _mm256_mul_ps(t, t);
    __m256 y = _mm256_fmadd_ps(_mm256_set1_ps(cephes::kLogP0), t, _mm256_set1_ps(cephes::kLogP1));
    y = _mm256_fmadd_ps(y, t, _mm256_set1_ps(cephes::kLogP2));
    y = _mm256_fmadd_ps(y, t, _mm256_set1_ps(cephes::kLogP3));
    y = _mm256_fmadd_ps(y, t, _mm256_set1_ps(cephes::kLogP4));
    y = _mm256_fmadd_ps(y, t, _mm256_set1_ps(cephes::kLogP5));
    y = _mm256_fmadd_ps(y, t, _mm256_set1_ps(cephes::kLogP6));
    y = _mm256_fmadd_ps(y, t, _mm256_set1_ps(cephes::kLogP7));
    y = _mm256_fmadd_ps(y, t, _mm256_set1_ps(cephes::kLogP8));
    y = _mm256_mul_ps(y, t);
    y = _mm256_fmadd_ps(y, z, _mm256_mul_ps(e, _mm256_set1_ps(cephes::kLogQ1)));
    y = _mm256_fnmadd_ps(z, _mm256_set1_ps(0.5f), y);
    t = _mm256_add_ps(t, y);
    return _mm256_fmadd_ps(e, _mm256_set1_ps(cephes::kLogQ2), t);
}

// sincos256_ps: cephes_sincos above, 8 lanes at once.
LLMFS_TARGET_AVX2 inline void sincos_avx2(__m256 x, __m256& sin_out, __m256& cos_out) {
    const __m256i j = _mm256_and_si256(
        _mm256_add_epi32(_mm256_cvttps_epi32(_mm256_mul_ps(x, _mm256_set1_ps(cephes::kFourOverPi))),
                         _mm256_set1_epi32(1)),
        _mm256_set1_epi32(~1));
    const __m256 jf = _mm256_cvtepi32_ps(j);
    x = _mm256_fmadd_ps(jf, _mm256_set1_ps(cephes::kMinusDP1), x);
    x = _mm256_fmadd_ps(jf, _mm256_set1_ps(cephes::kMinusDP2), x);
    x = _mm256_fmadd_ps(jf, _mm256_set1_ps(cephes::kMinusDP3), x);
    const __m256 z = _mm256_mul_ps(x, x);
    __m256 yc = _mm256_fmadd_ps(_mm256_set1_ps(cephes::kCosP0), z, _mm256_set1_ps(cephes::kCosP1));
    yc = _mm256_fmadd_ps(yc, z, _mm256_set1_ps(cephes::kCosP2));
    yc = _mm256_mul_ps(yc, z);
    yc = _mm256_fmsub_ps(yc, z, _mm256_mul_ps(z, _mm256_set1_ps(0.5f)));
    yc = _mm256_add_ps(yc, _mm256_set1_ps(1.0f));
    __m256 ys = _mm256_fmadd_ps(_mm256_set1_ps(cephes::kSinP0), z, _mm256_set1_ps(cephes::kSinP1));
    ys = _mm256_fmadd_ps(ys, z, _mm256_set1_ps(cephes::kSinP2));
    ys = _mm256_mul_ps(ys, z);
    ys = _mm256_fmadd_ps(ys, x, x);
    const __m256 sine_is_ys =
        _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(j, _mm256_set1_epi32(2)), _mm256_setzero_si256()));
    const __m256 ys_if_sine = _mm256_and_ps(sine_is_ys, ys);     // ys where it is the sine, else +0
    const __m256 yc_if_sine = _mm256_andnot_ps(sine_is_ys, yc);  // yc where it is the sine, else +0
    const __m256 s = _mm256_add_ps(yc_if_sine, ys_if_sine);
    const __m256 c = _mm256_add_ps(_mm256_sub_ps(yc, yc_if_sine), _mm256_sub_ps(ys, ys_if_sine));
    const __m256 sin_sign = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_and_si256(j, _mm256_set1_epi32(4)), 29));
    const __m256 cos_sign = _mm256_castsi256_ps(
        _mm256_slli_epi32(_mm256_andnot_si256(_mm256_sub_epi32(j, _mm256_set1_epi32(2)), _mm256_set1_epi32(4)), 29));
    sin_out = _mm256_xor_ps(s, sin_sign);
    cos_out = _mm256_xor_ps(c, cos_sign);
}

LLMFS_TARGET_AVX2 void normal_fill_blocks_avx2(float* data, std::size_t blocks, float mean, float stddev) {
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256 minus_two = _mm256_set1_ps(-2.0f);
    const __m256 two_pi = _mm256_set1_ps(kTwoPiFloat);
    const __m256 mean_v = _mm256_set1_ps(mean);
    const __m256 std_v = _mm256_set1_ps(stddev);
    for (std::size_t b = 0; b < blocks; ++b, data += 16) {
        const __m256 u1 = _mm256_sub_ps(one, _mm256_loadu_ps(data));
        const __m256 u2 = _mm256_loadu_ps(data + 8);
        const __m256 radius = _mm256_sqrt_ps(_mm256_mul_ps(minus_two, log_avx2(u1)));
        __m256 sin_theta, cos_theta;
        sincos_avx2(_mm256_mul_ps(two_pi, u2), sin_theta, cos_theta);
        _mm256_storeu_ps(data, _mm256_fmadd_ps(_mm256_mul_ps(radius, cos_theta), std_v, mean_v));
        _mm256_storeu_ps(data + 8, _mm256_fmadd_ps(_mm256_mul_ps(radius, sin_theta), std_v, mean_v));
    }
}
#endif

}  // namespace

namespace detail {

void normal_fill_blocks(float* data, std::size_t blocks, float mean, float stddev) {
#if LLMFS_RNG_HAVE_AVX2
    if (use_simd()) return normal_fill_blocks_avx2(data, blocks, mean, stddev);
#endif
    for (std::size_t b = 0; b < blocks; ++b) normal_fill_16_portable(data + 16 * b, mean, stddev);
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Bernoulli kernels
// ---------------------------------------------------------------------------------------------

std::optional<BernoulliKernel> parse_bernoulli_kernel(const std::string& name) {
    if (name == "mkl") return BernoulliKernel::mkl;
    if (name == "default") return BernoulliKernel::standard;
    return std::nullopt;
}

std::string to_string(BernoulliKernel kernel) { return kernel == BernoulliKernel::mkl ? "mkl" : "default"; }

namespace {

// Intel VSL's VSL_BRNG_MCG31 (MCG31m1): x_{k+1} = a * x_k mod (2^31 - 1), u_k = x_k / (2^31 - 1).
constexpr std::uint64_t kMcg31Modulus = 0x7fffffffu;
constexpr std::uint64_t kMcg31Multiplier = 1132489760u;

// t mod (2^31 - 1) for t < 2^62, without a division: 2^31 = 1 (mod 2^31 - 1), so t = hi * 2^31 + lo
// is congruent to hi + lo, which is below 2 * (2^31 - 1).
std::uint64_t mod_mersenne31(std::uint64_t t) {
    const std::uint64_t r = (t & kMcg31Modulus) + (t >> 31);
    return r >= kMcg31Modulus ? r - kMcg31Modulus : r;
}

// bernoulli_scalar_kernel under MKL (aten/src/ATen/native/cpu/DistributionKernels.cpp):
// vslNewStream(VSL_BRNG_MCG31, seed) then viRngBernoulli(VSL_RNG_METHOD_BERNOULLI_ICDF, p).
// PyTorch splits large tensors into parallel chunks, each skipping ahead to its offset in the same
// stream, so the whole tensor is one continuous stream.
void bernoulli_mkl(std::uint32_t seed, float* data, std::size_t n, double p) {
    std::uint64_t x = seed % kMcg31Modulus;
    if (x == 0) x = 1;
    for (std::size_t i = 0; i < n; ++i) {
        const double u = static_cast<double>(x) / static_cast<double>(kMcg31Modulus);
        data[i] = u < p ? 1.0f : 0.0f;
        x = mod_mersenne31(kMcg31Multiplier * x);
    }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Generator (aten/src/ATen/CPUGeneratorImpl.cpp)
// ---------------------------------------------------------------------------------------------

// at::mt19937 keeps the full 64-bit seed for initial_seed() but seeds the state with its low 32 bits.
Generator::Generator(BernoulliKernel kernel, std::uint64_t seed)
    : engine_(static_cast<std::uint32_t>(seed)), kernel_(kernel) {}

// CPUGeneratorImpl::set_current_seed: new engine state, and the cached normal sample is dropped.
void Generator::manual_seed(std::uint64_t seed) {
    engine_.seed(static_cast<std::uint32_t>(seed));
    next_double_normal_.reset();
}

std::uint32_t Generator::random() { return engine_(); }
void Generator::random(std::uint32_t* out, std::size_t n) { engine_.generate(out, n); }

// CPUGeneratorImpl::random64: make64BitsFrom32Bits(first, second).
std::uint64_t Generator::random64() {
    const std::uint64_t hi = engine_();
    const std::uint64_t lo = engine_();
    return (hi << 32) | lo;
}

std::vector<std::int64_t> Generator::randint(std::int64_t low, std::int64_t high, std::size_t n) {
    if (low >= high)
        throw std::invalid_argument("randint: low " + std::to_string(low) + " must be below high " + std::to_string(high));
    const std::uint64_t range = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
    std::vector<std::int64_t> out(n);
    for (auto& v : out) {
        const std::uint64_t r = range <= 0xFFFFFFFFull ? random() % range : random64() % range;
        v = static_cast<std::int64_t>(static_cast<std::uint64_t>(low) + r);
    }
    return out;
}

// uniform_real_distribution<float>(0, 1): fma(x, 1, 0) is x itself.
float Generator::uniform_float() { return static_cast<float>(random() & kFloatMantissaMask) * kFloatDivisor; }

// uniform_real_distribution<double>(0, 1), as used by bernoulli_distribution and normal_distribution.
double Generator::uniform_double() { return uniform_double_from(random64()); }

// templates::cpu::uniform_kernel: from and to are cast to float first.
void Generator::uniform_(float* data, std::size_t n, double from, double to) {
    fill_uniform(engine_, data, n, static_cast<float>(from), static_cast<float>(to));
}

// templates::cpu::normal_kernel on a contiguous float tensor.
void Generator::normal_(float* data, std::size_t n, double mean, double stddev) {
    if (n >= 16) {
        // normal_fill_AVX2: n float uniforms, every full block of 16 transformed in place; a partial
        // last block is redone as the last 16 elements from 16 fresh uniforms. The Box-Muller cache
        // below is neither used nor cleared.
        const float mean_f = static_cast<float>(mean), std_f = static_cast<float>(stddev);
        fill_uniform(engine_, data, n, 0.0f, 1.0f);
        detail::normal_fill_blocks(data, n / 16, mean_f, std_f);
        if (n % 16 != 0) {
            float* last = data + n - 16;
            fill_uniform(engine_, last, 16, 0.0f, 1.0f);
            detail::normal_fill_blocks(last, 1, mean_f, std_f);
        }
        return;
    }
    // Fewer than 16 elements: at::normal_distribution<double> per element (DistributionsHelper.h),
    // Box-Muller in double producing two samples, the second cached for the next draw.
    constexpr double kPi = 3.14159265358979323846;  // c10::pi<double>
    for (std::size_t i = 0; i < n; ++i) {
        double sample;
        if (next_double_normal_) {
            sample = *next_double_normal_;
            next_double_normal_.reset();
        } else {
            const double u1 = uniform_double();
            const double u2 = uniform_double();
            const double r = std::sqrt(-2.0 * std::log(1.0 - u2));
            const double theta = 2.0 * kPi * u1;
            next_double_normal_ = r * std::sin(theta);
            sample = r * std::cos(theta);
        }
        // transformation::normal: sample * std + mean, fused by PyTorch's AVX2 build.
        data[i] = static_cast<float>(std::fma(sample, stddev, mean));
    }
}

void Generator::bernoulli_(float* data, std::size_t n, double p) {
    drew_bernoulli_ = true;
    if (kernel_ == BernoulliKernel::mkl) {
        bernoulli_mkl(random(), data, n, p);  // exactly one 32-bit draw, whatever n
        return;
    }
    // templates::cpu::bernoulli_kernel(self, double p): bernoulli_distribution<double> per element,
    // uniform_double() < p, each using one random64().
    std::uint32_t bits[kChunk];
    for (std::size_t i = 0; i < n; i += kChunk / 2) {
        const std::size_t count = std::min(kChunk / 2, n - i);
        engine_.generate(bits, 2 * count);
        for (std::size_t k = 0; k < count; ++k) {
            const double u = uniform_double_from((std::uint64_t{bits[2 * k]} << 32) | bits[2 * k + 1]);
            data[i + k] = u < p ? 1.0f : 0.0f;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Module initialisation (torch/nn/modules/linear.py, sparse.py; torch/nn/init.py)
// ---------------------------------------------------------------------------------------------

void init_linear_(Generator& gen, float* weight, std::size_t out_features, std::size_t in_features, float* bias) {
    const double fan_in = static_cast<double>(in_features);
    if (out_features * in_features != 0) {
        // init.kaiming_uniform_(weight, a=math.sqrt(5)), in Python's double arithmetic:
        // gain = calculate_gain('leaky_relu', a) = sqrt(2 / (1 + a**2)), std = gain / sqrt(fan_in),
        // bound = sqrt(3) * std. This can differ from 1 / sqrt(fan_in) in the last bit.
        // (a * a is rounded before the add: with a = sqrt(5), fusing them would give the same sum.)
        const double a = std::sqrt(5.0);
        const double gain = std::sqrt(2.0 / (1.0 + a * a));
        const double stddev = gain / std::sqrt(fan_in);
        const double bound = std::sqrt(3.0) * stddev;
        gen.uniform_(weight, out_features * in_features, -bound, bound);
    }  // else: init.py warns "Initializing zero-element tensors is a no-op" and draws nothing.
    if (bias != nullptr) {
        const double bound = in_features > 0 ? 1.0 / std::sqrt(fan_in) : 0.0;
        gen.uniform_(bias, out_features, -bound, bound);
    }
}

void init_embedding_(Generator& gen, float* weight, std::size_t num_embeddings, std::size_t embedding_dim) {
    gen.normal_(weight, num_embeddings * embedding_dim, 0.0, 1.0);  // init.normal_(weight)
}

}  // namespace llmfs
