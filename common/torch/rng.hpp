// PyTorch's CPU generator, bit for bit: torch.manual_seed, rand, randn, uniform_, normal_,
// bernoulli_ (both CPU kernels), and the default init of nn.Linear / nn.Embedding.
// Facts it relies on are in the project's docs/pytorch-cpu-rng.md and are unit-tested
// against real PyTorch output.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>
#include <string>

namespace llmfs {

// MT19937, the engine of PyTorch's CPU generator (at::mt19937): the same 32-bit stream as
// std::mt19937 for the same seed. Its own class because libstdc++'s std::mt19937 keeps 64-bit
// state words and costs ~6 ns a draw, while the bulk `generate` here (32-bit words, loops the
// compiler vectorises) is what lets init_linear_ / init_embedding_ fill GPT-2's 163M parameters
// in a fraction of a second.
class Mt19937 {
public:
    static constexpr std::size_t kStateSize = 624;

    explicit Mt19937(std::uint32_t seed = 5489u) { this->seed(seed); }
    void seed(std::uint32_t seed);                      // init_genrand(seed)
    std::uint32_t operator()();                         // next output
    void generate(std::uint32_t* out, std::size_t n);  // next n outputs, as n calls of operator()

private:
    void twist();  // next_state(): regenerates all kStateSize words

    std::array<std::uint32_t, kStateSize> state_{};
    std::size_t index_ = kStateSize;
};

// PyTorch has two CPU Bernoulli kernels, so dropout masks depend on the build:
//   mkl      - Intel MKL (Linux/Colab wheels on Intel): the seed notebooks.
//   standard - the default kernel (macOS, ARM, AMD, builds without MKL such as Debian's):
//              the book's own printed outputs. Spelt `default` on the command line.
enum class BernoulliKernel { mkl, standard };

// Parses "mkl" / "default"; returns nullopt for anything else.
std::optional<BernoulliKernel> parse_bernoulli_kernel(const std::string& name);
std::string to_string(BernoulliKernel kernel);

class Generator {
public:
    static constexpr std::uint64_t kDefaultSeed = 67280421310721ULL;  // torch.initial_seed()

    explicit Generator(BernoulliKernel kernel = BernoulliKernel::mkl, std::uint64_t seed = kDefaultSeed);

    void manual_seed(std::uint64_t seed);  // torch.manual_seed(seed)
    BernoulliKernel bernoulli_kernel() const { return kernel_; }
    // Whether bernoulli_ has drawn (dropout masks), i.e. whether the kernel choice mattered.
    bool drew_bernoulli() const { return drew_bernoulli_; }

    std::uint32_t random();    // next 32-bit output
    void random(std::uint32_t* out, std::size_t n);  // the next n outputs, as n calls of random()
    std::uint64_t random64();  // (first << 32) | second
    float uniform_float();     // (random() & 0xFFFFFF) * 2^-24
    double uniform_double();   // (random64() & (2^53 - 1)) * 2^-53

    // In-place fills of n contiguous floats, as the corresponding tensor methods.
    void uniform_(float* data, std::size_t n, double from, double to);  // t.uniform_(from, to)
    void normal_(float* data, std::size_t n, double mean, double std);  // t.normal_(mean, std)
    void bernoulli_(float* data, std::size_t n, double p);              // t.bernoulli_(p): 1 with prob p
    // torch.randint(low, high, (n,)): low + random() % (high - low) for a range below 2^32,
    // low + random64() % (high - low) above (random_from_to); low < high.
    std::vector<std::int64_t> randint(std::int64_t low, std::int64_t high, std::size_t n);

private:
    Mt19937 engine_;
    std::optional<double> next_double_normal_;  // Box-Muller cache used by the <16-element path
    BernoulliKernel kernel_;
    bool drew_bernoulli_ = false;
};

// nn.Linear(in_features, out_features) default init, in PyTorch's order:
// weight [out, in] ~ kaiming_uniform_(a=sqrt(5)), then bias [out] ~ U(-1/sqrt(in), 1/sqrt(in)).
// bias may be nullptr (bias=False).
void init_linear_(Generator& gen, float* weight, std::size_t out_features, std::size_t in_features,
                  float* bias);

// nn.Embedding(num, dim) default init: weight [num, dim] ~ normal_(0, 1).
void init_embedding_(Generator& gen, float* weight, std::size_t num_embeddings, std::size_t embedding_dim);

// Internals exposed for the unit tests and benchmarks.
namespace detail {

// A float's IEEE-754 bit pattern and back (std::bit_cast is C++20).
inline std::uint32_t bits_of(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}
inline float float_of(std::uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

// The bulk uniform_ and normal_ fills have an AVX2 kernel (used when the CPU has AVX2 and FMA) and a
// portable scalar twin; both give the bits of PyTorch's x86 AVX2 build.
bool simd_kernels_available();
// Process-wide switch, on by default: false forces the portable kernels (to test them on an AVX2 CPU).
void use_simd_kernels(bool on);

// The normal_fill transform (normal_fill_16_AVX2) applied in place to `blocks` consecutive blocks
// of 16 uniforms in [0, 1): element j and j + 8 of a block become a Box-Muller pair.
void normal_fill_blocks(float* data, std::size_t blocks, float mean, float std);

}  // namespace detail

}  // namespace llmfs
