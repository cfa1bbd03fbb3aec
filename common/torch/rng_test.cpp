// Unit tests for llmfs::Generator and the nn.Linear / nn.Embedding init: bit for bit against real
// PyTorch output (data/tests/rng_cases.txt, made by tests/goldens/make_rng_goldens.py), and against
// the seed notebooks for the MKL Bernoulli kernel, which the local PyTorch does not have.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "llmfs/torch/rng.hpp"

using llmfs::BernoulliKernel;
using llmfs::Generator;

namespace {

// One line of rng_cases.txt: "<kind> <key>=<value> ... | <hex bits> ...".
struct GoldenCase {
    std::string kind;
    std::string label;  // the text before '|', naming the case in failure messages
    std::map<std::string, std::string> args;
    std::vector<std::uint32_t> bits;

    const std::string& arg(const std::string& key) const {
        const auto it = args.find(key);
        if (it == args.end()) throw std::runtime_error("rng_cases.txt: case '" + label + "' lacks " + key);
        return it->second;
    }
    std::size_t size_arg(const std::string& key) const { return std::stoul(arg(key)); }
    double double_arg(const std::string& key) const { return std::stod(arg(key)); }
};

std::vector<GoldenCase> read_cases() {
    const std::string path = std::string(LLMFS_TEST_DATA_DIR) + "/rng_cases.txt";
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path + " (see tests/goldens/make_rng_goldens.py)");
    std::vector<GoldenCase> cases;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        const auto bar = line.find(" |");
        if (bar == std::string::npos) throw std::runtime_error("rng_cases.txt: no '|' in: " + line);
        GoldenCase c;
        c.label = line.substr(0, bar);
        std::istringstream head(c.label);
        head >> c.kind;
        for (std::string field; head >> field;) {
            const auto eq = field.find('=');
            if (eq == std::string::npos) throw std::runtime_error("rng_cases.txt: bad field " + field);
            c.args[field.substr(0, eq)] = field.substr(eq + 1);
        }
        std::istringstream values(line.substr(bar + 2));
        for (std::string hex; values >> hex;) c.bits.push_back(static_cast<std::uint32_t>(std::stoul(hex, nullptr, 16)));
        cases.push_back(std::move(c));
    }
    return cases;
}

// Read once, on first use from inside a test (nothing happens at static-initialisation time).
const std::vector<GoldenCase>& all_cases() {
    static const std::vector<GoldenCase> cases = read_cases();
    return cases;
}

std::vector<const GoldenCase*> cases_of(const std::string& kind) {
    std::vector<const GoldenCase*> out;
    for (const auto& c : all_cases())
        if (c.kind == kind) out.push_back(&c);
    return out;
}

using llmfs::detail::bits_of;
using llmfs::detail::float_of;

std::string describe(std::uint32_t bits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "0x%08x (%.9g)", bits, static_cast<double>(float_of(bits)));
    return buf;
}

// Bit-exact comparison, reporting the first mismatching index with both bit patterns.
void check_bits(const std::vector<float>& got, const std::vector<std::uint32_t>& expected) {
    REQUIRE(got.size() == expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (bits_of(got[i]) != expected[i]) {
            FAIL("first mismatch at index " << i << " of " << got.size() << ": got " << describe(bits_of(got[i]))
                                            << ", PyTorch " << describe(expected[i]));
        }
    }
    SUCCEED("all " << got.size() << " values bit-exact");
}

// A generator as the golden case starts: torch.manual_seed(seed), or PyTorch's default seed.
// The local PyTorch has no MKL, so its bernoulli_ is the default kernel.
Generator seeded(const GoldenCase& c) {
    Generator gen(BernoulliKernel::standard);
    if (c.arg("seed") != "default") gen.manual_seed(std::stoull(c.arg("seed")));
    return gen;
}

// Selects the AVX2 or the portable kernels for its lifetime, then restores the default (AVX2 where
// the CPU has it).
class KernelChoice {
public:
    explicit KernelChoice(bool simd) { llmfs::detail::use_simd_kernels(simd); }
    ~KernelChoice() { llmfs::detail::use_simd_kernels(true); }
    KernelChoice(const KernelChoice&) = delete;
    KernelChoice& operator=(const KernelChoice&) = delete;
};

// Runs `body` for each golden case of `kind`, once with the AVX2 kernels (where the CPU has them)
// and once with the portable ones, each as its own section named after the case.
void for_each_case(const std::string& kind, const std::function<std::vector<float>(const GoldenCase&)>& body) {
    const auto cases = cases_of(kind);
    REQUIRE(!cases.empty());
    for (const bool simd : {true, false}) {
        for (const GoldenCase* c : cases) {
            DYNAMIC_SECTION(c->label << (simd ? " [simd kernels]" : " [portable kernels]")) {
                std::vector<float> got;
                {
                    const KernelChoice choice(simd);
                    got = body(*c);
                }
                check_bits(got, c->bits);
            }
        }
    }
}

// "randn:3,rand:2" -> {{"randn", 3}, {"rand", 2}}
std::vector<std::pair<std::string, std::size_t>> parse_ops(const std::string& ops) {
    std::vector<std::pair<std::string, std::size_t>> out;
    std::istringstream in(ops);
    for (std::string op; std::getline(in, op, ',');) {
        const auto colon = op.find(':');
        out.emplace_back(op.substr(0, colon), std::stoul(op.substr(colon + 1)));
    }
    return out;
}

}  // namespace

TEST_CASE("Mt19937 gives std::mt19937's stream one at a time and in bulk") {
    for (const std::uint32_t seed : {0u, 1u, 123u, 5489u, 0xffffffffu}) {
        DYNAMIC_SECTION("seed " << seed) {
            std::mt19937 reference(seed);
            llmfs::Mt19937 one_at_a_time(seed), bulk(seed);
            std::vector<std::uint32_t> block;
            std::size_t checked = 0;
            // Bulk requests of awkward sizes, straddling the 624-word state refills.
            for (const std::size_t n : {1, 700, 3, 623, 1, 1300, 2500}) {
                block.resize(n);
                bulk.generate(block.data(), n);
                for (std::size_t i = 0; i < n; ++i, ++checked) {
                    const std::uint32_t expected = static_cast<std::uint32_t>(reference());
                    REQUIRE(one_at_a_time() == expected);
                    REQUIRE(block[i] == expected);
                }
            }
            CHECK(checked == 5128);
        }
    }
}

TEST_CASE("Generator: random64 is two random() draws, first one high") {
    Generator a, b;
    a.manual_seed(42);
    b.manual_seed(42);
    const std::uint64_t hi = b.random();
    const std::uint64_t lo = b.random();
    CHECK(a.random64() == ((hi << 32) | lo));
    CHECK(a.random() == b.random());
}

TEST_CASE("Generator: the seed keeps only its low 32 bits, and the default seed is PyTorch's") {
    Generator a, b, c;
    a.manual_seed((std::uint64_t{1} << 32) + 5);
    b.manual_seed(5);
    c.manual_seed(Generator::kDefaultSeed);
    Generator fresh;
    for (int i = 0; i < 10; ++i) {
        CHECK(a.random() == b.random());
        CHECK(fresh.random() == c.random());
    }
}

TEST_CASE("torch.rand") {
    for_each_case("rand", [](const GoldenCase& c) {
        Generator gen = seeded(c);
        std::vector<float> out(c.size_arg("n"));
        gen.uniform_(out.data(), out.size(), 0.0, 1.0);
        return out;
    });
}

TEST_CASE("torch.randint: random() modulo the range, random64() for a range of 2^32 or more") {
    // /usr/bin/python3 (torch 1.13): torch.manual_seed(0); torch.randint(0, 50257, (6,)).tolist()
    Generator gen(BernoulliKernel::standard, 0);
    CHECK(gen.randint(0, 50257, 6) == std::vector<std::int64_t>{32487, 27591, 7093, 953, 10379, 5139});
    // torch.manual_seed(123); torch.randint(-5, 2**40, (3,)).tolist()
    gen.manual_seed(123);
    CHECK(gen.randint(-5, std::int64_t{1} << 40, 3) == std::vector<std::int64_t>{1093925388903, 542982144796, 947841103282});
    CHECK_THROWS_WITH(gen.randint(3, 3, 1), Catch::Contains("low 3 must be below high 3"));
}

TEST_CASE("uniform_(from, to)") {
    for_each_case("uniform", [](const GoldenCase& c) {
        Generator gen = seeded(c);
        std::vector<float> out(c.size_arg("n"));
        gen.uniform_(out.data(), out.size(), c.double_arg("from"), c.double_arg("to"));
        return out;
    });
}

TEST_CASE("torch.randn") {
    for_each_case("randn", [](const GoldenCase& c) {
        Generator gen = seeded(c);
        std::vector<float> out(c.size_arg("n"));
        gen.normal_(out.data(), out.size(), 0.0, 1.0);
        return out;
    });
}

TEST_CASE("normal_(mean, std)") {
    for_each_case("normal", [](const GoldenCase& c) {
        Generator gen = seeded(c);
        std::vector<float> out(c.size_arg("n"));
        gen.normal_(out.data(), out.size(), c.double_arg("mean"), c.double_arg("std"));
        return out;
    });
}

TEST_CASE("rand / randn in sequence: the Box-Muller cache carries across calls") {
    for_each_case("sequence", [](const GoldenCase& c) {
        Generator gen = seeded(c);
        std::vector<float> all;
        for (const auto& [op, n] : parse_ops(c.arg("ops"))) {
            std::vector<float> out(n);
            if (op == "rand") {
                gen.uniform_(out.data(), n, 0.0, 1.0);
            } else {
                REQUIRE(op == "randn");
                gen.normal_(out.data(), n, 0.0, 1.0);
            }
            all.insert(all.end(), out.begin(), out.end());
        }
        return all;
    });
}

TEST_CASE("manual_seed drops the cached Box-Muller sample") {
    Generator gen, fresh;
    gen.manual_seed(7);
    float first[3];
    gen.normal_(first, 3, 0.0, 1.0);  // leaves the second half of a pair cached
    gen.manual_seed(7);
    fresh.manual_seed(7);
    float again[2], expected[2];
    gen.normal_(again, 2, 0.0, 1.0);
    fresh.normal_(expected, 2, 0.0, 1.0);
    CHECK(bits_of(again[0]) == bits_of(expected[0]));
    CHECK(bits_of(again[1]) == bits_of(expected[1]));
    CHECK(bits_of(again[0]) == bits_of(first[0]));
}

TEST_CASE("bernoulli_(p), default kernel") {
    for_each_case("bernoulli", [](const GoldenCase& c) {
        Generator gen = seeded(c);
        std::vector<float> out(c.size_arg("n"));
        gen.bernoulli_(out.data(), out.size(), c.double_arg("p"));
        return out;
    });
}

TEST_CASE("nn.Dropout(p) mask, default kernel") {
    for_each_case("dropout", [](const GoldenCase& c) {
        Generator gen = seeded(c);
        const double p = c.double_arg("p");
        std::vector<float> out(c.size_arg("rows") * c.size_arg("cols"));
        gen.bernoulli_(out.data(), out.size(), 1 - p);  // _dropout_impl: noise.bernoulli_(1 - p)
        for (float& v : out) v = 1.0f * (v / static_cast<float>(1 - p));  // noise.div_(1 - p); ones * noise
        return out;
    });
}

TEST_CASE("nn.Dropout(0.5) mask, MKL kernel, as the seed notebooks print it") {
    // torch.manual_seed(123); torch.nn.Dropout(0.5)(torch.ones(6, 6)), as printed by the seed notebooks
    // (Colab, PyTorch wheels with MKL on Intel: the MKL Bernoulli kernel). The local PyTorch has no
    // MKL, so this literal is the only evidence for the MKL kernel; the default kernel's first row
    // would be 2 2 0 2 2 0.
    const float notebook[6][6] = {{2., 2., 2., 2., 2., 2.}, {0., 2., 0., 0., 0., 0.}, {0., 0., 2., 0., 2., 0.},
                                  {2., 2., 0., 0., 0., 2.}, {2., 0., 0., 0., 0., 2.}, {0., 2., 0., 0., 0., 0.}};
    Generator gen(BernoulliKernel::mkl);
    gen.manual_seed(123);
    float mask[36];
    gen.bernoulli_(mask, 36, 0.5);
    for (int i = 0; i < 36; ++i) {
        INFO("element " << i);
        CHECK(mask[i] / 0.5f == notebook[i / 6][i % 6]);
    }
}

TEST_CASE("MKL bernoulli_ takes exactly one 32-bit draw, whatever the size") {
    for (const std::size_t n : {1, 36, 801, 100000}) {
        DYNAMIC_SECTION("n = " << n) {
            Generator gen(BernoulliKernel::mkl), reference;
            gen.manual_seed(99);
            reference.manual_seed(99);
            std::vector<float> mask(n);
            gen.bernoulli_(mask.data(), n, 0.9);
            reference.random();
            CHECK(gen.random() == reference.random());
        }
    }
}

TEST_CASE("nn.Linear default init: weight then bias") {
    for_each_case("linear", [](const GoldenCase& c) {
        Generator gen = seeded(c);
        const std::size_t in = c.size_arg("in"), out = c.size_arg("out");
        const bool with_bias = c.arg("bias") == "1";
        std::vector<float> values(out * in + (with_bias ? out : 0));
        llmfs::init_linear_(gen, values.data(), out, in, with_bias ? values.data() + out * in : nullptr);
        return values;
    });
}

TEST_CASE("nn.Embedding default init") {
    for_each_case("embedding", [](const GoldenCase& c) {
        Generator gen = seeded(c);
        const std::size_t num = c.size_arg("num"), dim = c.size_arg("dim");
        std::vector<float> weight(num * dim);
        llmfs::init_embedding_(gen, weight.data(), num, dim);
        return weight;
    });
}

TEST_CASE("normal_fill transform: the AVX2 and portable kernels agree on every float uniform") {
    if (!llmfs::detail::simd_kernels_available()) {
        WARN("this CPU has no AVX2+FMA: only the portable kernel exists here");
        return;
    }
    // Every uniform PyTorch can draw, k * 2^-24 for k < 2^24, once as u1 (lane j) and once as u2
    // (lane j + 8) of a block, in batches.
    constexpr std::uint32_t kUniforms = 1u << 24;
    constexpr std::uint32_t kBatchBlocks = 1u << 14;
    std::vector<float> simd(16 * kBatchBlocks), portable(16 * kBatchBlocks);
    for (const auto& [mean, stddev] : {std::pair<float, float>{0.0f, 1.0f}, {0.5f, 2.0f}}) {
        std::uint32_t mismatches = 0, first_mismatch = 0;
        for (std::uint32_t k0 = 0; k0 < kUniforms; k0 += 8 * kBatchBlocks) {
            for (std::uint32_t b = 0; b < kBatchBlocks; ++b) {
                for (std::uint32_t j = 0; j < 8; ++j) {
                    const float u = static_cast<float>(k0 + 8 * b + j) / static_cast<float>(kUniforms);
                    simd[16 * b + j] = simd[16 * b + j + 8] = u;
                }
            }
            portable = simd;
            llmfs::detail::normal_fill_blocks(simd.data(), kBatchBlocks, mean, stddev);
            {
                const KernelChoice choice(false);
                llmfs::detail::normal_fill_blocks(portable.data(), kBatchBlocks, mean, stddev);
            }
            for (std::size_t i = 0; i < simd.size(); ++i) {
                if (bits_of(simd[i]) != bits_of(portable[i]) && mismatches++ == 0)
                    first_mismatch = k0 + 8 * static_cast<std::uint32_t>(i / 16) + static_cast<std::uint32_t>(i % 8);
            }
        }
        INFO("mean " << mean << " std " << stddev << ": first mismatch for uniform k = " << first_mismatch);
        CHECK(mismatches == 0);
    }
}

TEST_CASE("Bernoulli kernel names") {
    CHECK(llmfs::parse_bernoulli_kernel("mkl") == BernoulliKernel::mkl);
    CHECK(llmfs::parse_bernoulli_kernel("default") == BernoulliKernel::standard);
    CHECK_FALSE(llmfs::parse_bernoulli_kernel("standard").has_value());
    CHECK_FALSE(llmfs::parse_bernoulli_kernel("MKL").has_value());
    CHECK(llmfs::to_string(BernoulliKernel::mkl) == "mkl");
    CHECK(llmfs::to_string(BernoulliKernel::standard) == "default");
}
