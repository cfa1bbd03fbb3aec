// Unit tests for llmfs::vec_exp / vec_tanh: each SLEEF kernel this CPU can run, bit for bit against
// real PyTorch output (data/tests/vecmath_cases.txt, made by tests/goldens/make_vecmath_goldens.py
// with PyTorch's x86 AVX2 kernel). What each kernel is expected to give, on every platform:
//   avx2 (x86-64), advsimd (aarch64), purecfma (scalar with FMA): PyTorch's bits on every input.
//     SLEEF's algorithm with FMA rounds the same way at any vector width; on x86 this was also
//     checked on all 2^32 floats for both functions (purecfma against avx2: no difference; purec
//     differs on 1.9 million inputs for exp, 976 for tanh), and on aarch64 under qemu (docs/cpus-arm-macos.md).
//   purec (scalar without FMA, the last resort on x86 CPUs without FMA): not PyTorch's bits; it
//     differs on every input of the sleef-purec-differs groups, picked for that on x86 (for exp
//     often; for tanh one input in a million random ones).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "llmfs/torch/rng.hpp"  // bits_of / float_of
#include "llmfs/torch/vecmath.hpp"

using llmfs::detail::bits_of;
using llmfs::detail::float_of;
using llmfs::detail::VecmathKernel;

namespace {

// One line of vecmath_cases.txt: "<function> <group> | <x>:<y> ...".
struct Group {
    std::string function;  // exp or tanh
    std::string name;
    std::vector<float> x;
    std::vector<std::uint32_t> y;  // PyTorch's output bits
};

std::vector<Group> read_groups() {
    const std::string path = std::string(LLMFS_TEST_DATA_DIR) + "/vecmath_cases.txt";
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path + " (see tests/goldens/make_vecmath_goldens.py)");
    std::vector<Group> groups;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        const auto bar = line.find(" | ");
        if (bar == std::string::npos) throw std::runtime_error("vecmath_cases.txt: no '|' in: " + line);
        Group g;
        std::istringstream(line.substr(0, bar)) >> g.function >> g.name;
        std::istringstream pairs(line.substr(bar + 3));
        for (std::string pair; pairs >> pair;) {
            const auto colon = pair.find(':');
            if (colon == std::string::npos) throw std::runtime_error("vecmath_cases.txt: bad pair " + pair);
            g.x.push_back(float_of(static_cast<std::uint32_t>(std::stoul(pair.substr(0, colon), nullptr, 16))));
            g.y.push_back(static_cast<std::uint32_t>(std::stoul(pair.substr(colon + 1), nullptr, 16)));
        }
        groups.push_back(std::move(g));
    }
    if (groups.empty()) throw std::runtime_error(path + " holds no cases");
    return groups;
}

// Read once, on first use from inside a test (nothing happens at static-initialisation time).
const std::vector<Group>& all_groups() {
    static const std::vector<Group> groups = read_groups();
    return groups;
}

std::vector<float> run(VecmathKernel kernel, const std::string& function, const std::vector<float>& x) {
    std::vector<float> y(x.size());
    if (function == "exp") llmfs::detail::vec_exp_with(kernel, x.data(), y.data(), x.size());
    else llmfs::detail::vec_tanh_with(kernel, x.data(), y.data(), x.size());
    return y;
}

std::string describe(std::uint32_t bits) {
    std::ostringstream out;
    out << "0x" << std::hex << bits << std::dec << " (" << static_cast<double>(float_of(bits)) << ")";
    return out.str();
}

bool gives_pytorch_bits(VecmathKernel kernel) { return kernel != VecmathKernel::purec; }

}  // namespace

TEST_CASE("exp and tanh: every SLEEF kernel this CPU runs, against PyTorch's bits") {
    const auto kernels = llmfs::detail::available_vecmath_kernels();
    REQUIRE(!kernels.empty());
    for (const VecmathKernel kernel : kernels) {
        for (const Group& g : all_groups()) {
            DYNAMIC_SECTION(llmfs::detail::to_string(kernel) << ": " << g.function << " " << g.name) {
                const auto got = run(kernel, g.function, g.x);
                std::size_t mismatches = 0, first = 0;
                for (std::size_t i = 0; i < got.size(); ++i)
                    if (bits_of(got[i]) != g.y[i] && mismatches++ == 0) first = i;
                if (gives_pytorch_bits(kernel)) {
                    INFO("first mismatch: " << g.function << "(" << describe(bits_of(g.x[first])) << ") = "
                                            << describe(bits_of(got[first])) << ", PyTorch "
                                            << describe(g.y[first]));
                    CHECK(mismatches == 0);
                } else if (g.name == "sleef-purec-differs") {
                    CHECK(mismatches == got.size());  // the expectation this kernel is not used for
                }
            }
        }
    }
}

TEST_CASE("vec_exp / vec_tanh use the best kernel, whole vectors and padded tails alike") {
    const auto kernels = llmfs::detail::available_vecmath_kernels();
    REQUIRE(llmfs::detail::vecmath_kernel() == kernels.front());
    // Where any SIMD or FMA kernel runs, the default one gives PyTorch's bits.
    REQUIRE(gives_pytorch_bits(kernels.front()));
    for (const Group& g : all_groups()) {
        if (g.name != "range-sweep") continue;
        for (std::size_t n = 1; n <= 20; ++n) {  // every tail length of 8 and 4 lanes, and whole vectors
            std::vector<float> y(n);
            (g.function == "exp" ? llmfs::vec_exp : llmfs::vec_tanh)(g.x.data() + 100, y.data(), n);
            for (std::size_t i = 0; i < n; ++i) {
                INFO(g.function << ", n = " << n << ", element " << i);
                CHECK(bits_of(y[i]) == g.y[100 + i]);
            }
        }
    }
}

TEST_CASE("exp and tanh of NaN are NaN in every kernel") {
    const std::vector<float> nan(5, std::numeric_limits<float>::quiet_NaN());
    for (const VecmathKernel kernel : llmfs::detail::available_vecmath_kernels()) {
        for (const char* function : {"exp", "tanh"}) {
            INFO(llmfs::detail::to_string(kernel) << " " << function);
            for (const float y : run(kernel, function, nan)) CHECK(std::isnan(y));
        }
    }
}

TEST_CASE("a kernel this CPU lacks is refused with its name") {
    const auto kernels = llmfs::detail::available_vecmath_kernels();
    for (const VecmathKernel kernel :
         {VecmathKernel::avx2, VecmathKernel::advsimd, VecmathKernel::purecfma, VecmathKernel::purec}) {
        if (std::find(kernels.begin(), kernels.end(), kernel) != kernels.end()) continue;
        float x = 0.0f, y = 0.0f;
        CHECK_THROWS_WITH(llmfs::detail::vec_exp_with(kernel, &x, &y, 1),
                          Catch::Contains(llmfs::detail::to_string(kernel)));
    }
    // x86-64 has no AdvSIMD and aarch64 no AVX2: at least one kernel is always missing.
    CHECK(kernels.size() < 4);
}
