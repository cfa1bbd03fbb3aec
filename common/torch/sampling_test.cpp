// Unit tests for exponential_, torch.multinomial(p, 1) and the book's sampling step, bit for bit
// against real PyTorch (data/tests/sampler_cases.txt, made by tests/goldens/make_sampler_goldens.py;
// its docstring describes the format), and the bulk multinomial_one against its reference loop.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <sstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "llmfs/torch/ops.hpp"
#include "llmfs/torch/sampling.hpp"
#include "test_support.hpp"

using namespace llmfs;
using llmfs::testing::load_cases;
using llmfs::testing::fnv1a64;
using llmfs::testing::hex32;
using llmfs::detail::bits_of;
using llmfs::detail::float_of;

namespace {

using Case = llmfs::testing::FieldCase;

std::vector<Case> cases_of_kind(const std::string& kind) { return llmfs::testing::field_cases(LLMFS_TEST_DATA_DIR "/sampler_cases.txt", kind); }

std::vector<float> hex_floats(const std::vector<std::string>& words, std::size_t first) {
    std::vector<float> out;
    for (std::size_t i = first; i < words.size(); ++i) out.push_back(float_of(static_cast<std::uint32_t>(std::stoul(words[i], nullptr, 16))));
    return out;
}

// torch.rand(1) after the case: where the generator stands.
std::string next_rand(Generator& gen) { return hex32(gen.uniform_float()); }

// The case's logits [V]: "hex ..." or "randn SEED SCALE" (torch.manual_seed(SEED); torch.randn(1, V) * SCALE).
std::vector<float> case_logits(const Case& c, std::size_t V) {
    const auto words = c.words("logits");
    if (words[0] == "hex") return hex_floats(words, 1);
    Generator gen;
    gen.manual_seed(std::stoull(words[1]));
    std::vector<float> logits(V);
    gen.normal_(logits.data(), V, 0.0, 1.0);
    const float scale = std::stof(words[2]);
    for (float& x : logits) x *= scale;
    return logits;
}

// The case's weights: "hex ...", "ones V" or "onehot V I".
std::vector<float> case_probs(const Case& c) {
    const auto words = c.words("probs");
    if (words[0] == "hex") return hex_floats(words, 1);
    std::vector<float> p(std::stoul(words[1]), words[0] == "ones" ? 1.0f : 0.0f);
    if (words[0] == "onehot") p.at(std::stoul(words[2])) = 1.0f;
    return p;
}

}  // namespace

TEST_CASE("exponential_ gives PyTorch's values and moves the generator as it does") {
    const auto cases = cases_of_kind("exponential");
    REQUIRE(cases.size() == 43);
    for (const Case& c : cases) {
        if (c.at("dtype") != "float32") continue;  // float64 exponential_ is not needed (torch.multinomial of float32)
        DYNAMIC_SECTION(c.name) {
            Generator gen;
            gen.manual_seed(c.number("seed"));
            std::vector<float> values(c.number("n"));
            exponential_(gen, values.data(), values.size());
            if (c.has("values")) CHECK(hex_floats(c.words("values"), 0) == values);
            CHECK(fnv1a64(values) == c.at("fnv1a64"));
            CHECK(next_rand(gen) == c.at("next_rand"));
        }
    }
}

TEST_CASE("multinomial_one gives torch.multinomial(p, 1)'s indices") {
    const auto cases = cases_of_kind("multinomial");
    REQUIRE(cases.size() == 9);
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const std::vector<float> p = case_probs(c);
            Generator gen;
            gen.manual_seed(c.number("seed"));
            std::vector<std::int64_t> samples;
            for (std::uint64_t i = 0; i < c.number("steps"); ++i) samples.push_back(multinomial_one(gen, p.data(), p.size()));
            CHECK(samples == c.indices("samples"));
            CHECK(next_rand(gen) == c.at("next_rand"));
        }
    }
}

TEST_CASE("next_token is the book's generate() step: top-k, temperature, softmax, multinomial or argmax") {
    const auto cases = cases_of_kind("sample");
    REQUIRE(cases.size() == 192);
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const std::size_t V = c.number("vocab");
            const std::vector<float> logits = case_logits(c, V);
            REQUIRE(logits.size() == V);
            REQUIRE(fnv1a64(logits) == c.at("logits_fnv1a64"));  // the C++ randn made the same logits
            SamplingOptions options;
            options.temperature = std::stod(c.at("temperature"));
            if (c.at("top_k") != "none") options.top_k = c.number("top_k");
            if (options.temperature > 0) {  // the softmax row, stage by stage as the golden gives it
                std::vector<float> scaled = logits;
                if (options.top_k) {
                    const float min_val = hex_floats(c.words("min_val"), 0).at(0);
                    std::size_t kept = 0;
                    for (float& x : scaled) {
                        if (x < min_val) x = -std::numeric_limits<float>::infinity();
                        kept += x != -std::numeric_limits<float>::infinity();
                    }
                    CHECK(kept == c.number("kept"));
                }
                for (float& x : scaled) x /= static_cast<float>(options.temperature);
                std::vector<float> probs(V);
                softmax_row(scaled.data(), probs.data(), V);
                CHECK(fnv1a64(probs) == c.at("probs_fnv1a64"));
            }
            Generator gen;
            gen.manual_seed(c.number("seed"));
            std::vector<std::int64_t> samples;
            for (std::uint64_t i = 0; i < c.number("steps"); ++i) samples.push_back(next_token(logits.data(), V, options, gen));
            CHECK(samples == c.indices("samples"));
            CHECK(next_rand(gen) == c.at("next_rand"));
        }
    }
}

TEST_CASE("the notebook's 5.3.1 draws: 1,000 multinomial samples at T = 1, 0.1, 5") {
    const auto cases = cases_of_kind("notebook");
    REQUIRE(cases.size() == 3);
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const std::vector<float> probs = hex_floats(c.words("probs"), 0);
            Generator gen;
            gen.manual_seed(c.number("seed"));
            std::vector<std::int64_t> samples, counts(probs.size(), 0);
            for (std::uint64_t i = 0; i < c.number("steps"); ++i) {
                samples.push_back(multinomial_one(gen, probs.data(), probs.size()));
                ++counts.at(static_cast<std::size_t>(samples.back()));
            }
            CHECK(samples == c.indices("samples"));
            CHECK(counts == c.indices("counts"));
            CHECK(next_rand(gen) == c.at("next_rand"));
        }
    }
}

TEST_CASE("bincount_samples counts the 5.3.1 draws as torch.bincount does, with and without minlength") {
    for (const Case& c : cases_of_kind("notebook")) {
        DYNAMIC_SECTION(c.name) {
            const std::vector<float> probs = hex_floats(c.words("probs"), 0);
            std::vector<std::int64_t> counts = c.indices("counts");  // bincount(..., minlength=len(probas))
            Generator gen;
            gen.manual_seed(c.number("seed"));
            CHECK(bincount_samples(gen, probs.data(), probs.size(), c.number("steps"), probs.size()) == counts);
            // Without minlength (exercise 5.1's cell): only up to the largest id drawn.
            while (!counts.empty() && counts.back() == 0) counts.pop_back();
            gen.manual_seed(c.number("seed"));
            CHECK(bincount_samples(gen, probs.data(), probs.size(), c.number("steps")) == counts);
        }
    }
    Generator gen;
    const std::vector<float> only_first{1.0f, 0.0f, 0.0f};
    CHECK(bincount_samples(gen, only_first.data(), 3, 5) == std::vector<std::int64_t>{5});
    CHECK(bincount_samples(gen, only_first.data(), 3, 0, 3) == std::vector<std::int64_t>{0, 0, 0});
}

TEST_CASE("multinomial_one (bulk draws, logs skipped) equals the reference loop on many seeds, sizes and shapes") {
    // uniform weights with zeros; a peaked softmax, as logits / T give; a spike among subnormals
    for (const char* shape : {"uniform", "peaked", "spike"}) {
        for (const std::size_t V : {1, 2, 9, 511, 512, 513, 1024, 1500, 50257}) {
            for (const std::uint64_t seed : {0ULL, 1ULL, 123ULL, 4242ULL}) {
                DYNAMIC_SECTION(shape << ", V " << V << " seed " << seed) {
                    Generator weights_gen;
                    weights_gen.manual_seed(seed + 1000);
                    std::vector<float> p(V);
                    if (std::string(shape) == "uniform") {
                        weights_gen.uniform_(p.data(), V, 0.0, 1.0);
                        for (std::size_t i = 0; i < V; i += 3) p[i] = 0.0f;  // zero weights still draw
                    } else if (std::string(shape) == "peaked") {
                        weights_gen.normal_(p.data(), V, 0.0, 4.0);
                        const float max = *std::max_element(p.begin(), p.end());
                        for (float& x : p) x = std::exp(x - max);
                    } else {
                        std::fill(p.begin(), p.end(), 1e-40f);
                        p[V / 2] = 1.0f;
                    }
                    if (V == 1) p[0] = 0.5f;
                    Generator fast, reference;
                    fast.manual_seed(seed);
                    reference.manual_seed(seed);
                    for (int step = 0; step < 8; ++step)
                        CHECK(multinomial_one(fast, p.data(), V) == multinomial_one_reference(reference, p.data(), V));
                    CHECK(fast.random() == reference.random());
                }
            }
        }
    }
}

TEST_CASE("argmax (two vectorised passes) picks what the reference loop picks") {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
    CHECK_THROWS_WITH(argmax(nullptr, 0), "argmax: no values");
    const float first_largest[] = {0.5f, 2.0f, -1.0f, 2.0f, 1.0f};
    CHECK(argmax(first_largest, 5) == 1);
    const float nan_wins[] = {0.5f, nan, 9.0f, nan};
    CHECK(argmax(nan_wins, 4) == 1);
    // Ties, NaNs, infinities and signed zeros at every place of the 16 lanes and the tail; sizes
    // around the lane count, and GPT-2's vocabulary.
    for (const std::size_t n : {1, 2, 15, 16, 17, 31, 32, 33, 100, 50257}) {
        for (const char* kind : {"normal", "ties", "nan", "all -inf", "zeros", "+inf"}) {
            for (const std::uint64_t seed : {1ULL, 2ULL, 3ULL}) {
                DYNAMIC_SECTION(kind << ", n " << n << " seed " << seed) {
                    Generator gen;
                    gen.manual_seed(seed);
                    std::vector<float> x(n);
                    gen.normal_(x.data(), n, 0.0, 1.0);
                    const std::string k = kind;
                    std::vector<std::uint32_t> at(4);
                    gen.random(at.data(), at.size());
                    if (k == "ties") {
                        for (float& v : x) v = std::round(v);  // many equal values, the largest among them
                    } else if (k == "nan") {
                        x[at[0] % n] = nan;
                        x[at[1] % n] = nan;
                    } else if (k == "all -inf") {
                        std::fill(x.begin(), x.end(), -inf);
                    } else if (k == "zeros") {  // -0 and +0 are equal: the first of either
                        for (std::size_t i = 0; i < n; ++i) x[i] = (at[i % 4] >> (i % 32)) & 1 ? -0.0f : 0.0f;
                    } else if (k == "+inf") {
                        x[at[0] % n] = inf;
                        x[at[1] % n] = inf;
                    }
                    CHECK(argmax(x.data(), n) == argmax_reference(x.data(), n));
                }
            }
        }
    }
}

TEST_CASE("multinomial_one refuses what PyTorch refuses, drawing nothing") {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    for (const auto& [label, probs, message] : std::vector<std::tuple<std::string, std::vector<float>, std::string>>{
             {"negative", {0.5f, -0.1f, 0.6f}, "element < 0"},
             {"nan", {0.5f, nan}, "`nan`"},
             {"inf", {inf, 0.5f}, "`inf`"},
             {"all zero", {0.0f, 0.0f, 0.0f}, "sum of probabilities <= 0"},
             {"empty", {}, "0 categories"}}) {
        DYNAMIC_SECTION(label) {
            const std::vector<float>& p = probs;  // a lambda cannot capture a structured binding in C++17
            for (const bool reference : {false, true}) {
                Generator gen, untouched;
                const auto draw = [&] {
                    return reference ? multinomial_one_reference(gen, p.data(), p.size())
                                     : multinomial_one(gen, p.data(), p.size());
                };
                CHECK_THROWS_AS(draw(), std::invalid_argument);
                CHECK_THROWS_WITH(draw(), Catch::Contains(message) && Catch::Contains("multinomial"));
                CHECK(gen.random() == untouched.random());
            }
        }
    }
}

TEST_CASE("next_token checks its options and draws nothing at temperature 0") {
    const std::vector<float> logits{4.51f, 0.89f, -1.90f, 6.75f, 1.63f, -1.62f, -1.89f, 6.28f, 1.79f};
    Generator gen;
    const auto step = [&](double temperature, std::optional<std::size_t> top_k) {
        SamplingOptions options;
        options.temperature = temperature;
        options.top_k = top_k;
        return next_token(logits.data(), logits.size(), options, gen);
    };
    CHECK_THROWS_WITH(step(-0.5, std::nullopt), Catch::Contains("temperature") && Catch::Contains(">= 0"));
    CHECK_THROWS_WITH(step(std::numeric_limits<double>::infinity(), std::nullopt), Catch::Contains("finite"));
    CHECK_THROWS_WITH(step(std::nan(""), std::nullopt), Catch::Contains("finite"));
    CHECK_THROWS_WITH(step(1.0, 0), Catch::Contains("top_k 0"));
    CHECK_THROWS_WITH(step(1.0, 10), Catch::Contains("top_k 10") && Catch::Contains("vocabulary size 9"));
    CHECK_THROWS_AS(next_token(logits.data(), 0, SamplingOptions{}, gen), std::invalid_argument);
    Generator untouched;
    CHECK(step(0.0, std::nullopt) == 3);  // "forward"
    CHECK(step(0.0, 3) == 3);
    CHECK(gen.random() == untouched.random());
    // top-k keeps every logit equal to the k-th largest: with a tie at the 2nd place, top_k = 2 keeps three.
    const std::vector<float> tied{1.0f, 3.0f, 2.0f, 3.0f, 2.0f, 3.0f};
    SamplingOptions k2;
    k2.temperature = 1.0;
    k2.top_k = 2;
    gen.manual_seed(1);
    std::vector<int> seen(tied.size(), 0);
    for (int i = 0; i < 300; ++i) ++seen.at(static_cast<std::size_t>(next_token(tied.data(), tied.size(), k2, gen)));
    CHECK(seen == std::vector<int>{0, seen[1], 0, seen[3], 0, seen[5]});
    CHECK(seen[1] > 0);
    CHECK(seen[3] > 0);
    CHECK(seen[5] > 0);
}
