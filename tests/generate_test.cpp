// llmfs-generate against PyTorch (data/golden/generate_cases.txt, made by
// tests/goldens/generate_reference.py; sampling: data/golden/generate_sampling_cases.txt, made by
// tests/goldens/generate_sampling_reference.py): each case runs the real executable and compares
// its output, ids and text, exactly.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "llmfs/app/process.hpp"
#include "test_support.hpp"

using llmfs::testing::from_hex;

namespace {

// Runs args[0] with the other arguments (no shell): exit code, stdout, stderr.
llmfs::ProcessResult run(const std::vector<std::string>& args) { return llmfs::run_process(args.front(), {args.begin() + 1, args.end()}); }

std::string unescape(const std::string& s) {  // the golden's \n and \\ escapes
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) {
            out += s[i + 1] == 'n' ? '\n' : s[i + 1];
            ++i;
        } else {
            out += s[i];
        }
    }
    return out;
}

std::vector<std::string> split(const std::string& line, char sep) {
    std::vector<std::string> fields;
    std::stringstream in(line);
    for (std::string f; std::getline(in, f, sep);) fields.push_back(f);
    return fields;
}

}  // namespace

TEST_CASE("llmfs-generate prints PyTorch's tokens and text", "[long]") {
    std::ifstream golden(LLMFS_GOLDEN_DIR "/generate_cases.txt");
    REQUIRE(golden.good());
    int cases = 0;
    for (std::string header, ids, text; std::getline(golden, header) && std::getline(golden, ids) && std::getline(golden, text);) {
        const auto f = split(header, '\t');
        REQUIRE(f.size() == 5);
        REQUIRE(f[0] == "case");
        ++cases;
        for (const std::string mode : {"--teaching", "", "--kv-cache"}) {  // the book's path, the fast one, the cache
            DYNAMIC_SECTION(f[1] << " seed " << f[2] << " +" << f[3] << " tokens, prompt " << f[4] << " " << mode) {
                std::vector<std::string> args{LLMFS_GENERATE, "--model", f[1], "--seed", f[2], "--max-new-tokens", f[3], "--prompt", from_hex(f[4])};
                if (!mode.empty()) args.push_back(mode);
                const auto result = run(args);
                CHECK(result.exit_code == 0);
                CHECK(result.out == ids + "\n" + unescape(text) + "\n");
            }
        }
    }
    CHECK(cases >= 7);
}

TEST_CASE("llmfs-generate --temperature --top-k --eos-id prints the tokens of PyTorch's ch05 generate()", "[long]") {
    std::ifstream golden(LLMFS_GOLDEN_DIR "/generate_sampling_cases.txt");
    REQUIRE(golden.good());
    int cases = 0;
    for (std::string header, ids, text; std::getline(golden, header) && std::getline(golden, ids) && std::getline(golden, text);) {
        const auto f = split(header, '\t');
        REQUIRE(f.size() == 8);
        REQUIRE(f[0] == "case");
        // The default path and the cache for every case, the (slow) teaching path for the eos cases
        // (kv_cache_test compares all three paths' sampled tokens on a tiny model).
        ++cases;
        std::vector<std::string> modes{"", "--kv-cache"};
        if (f[7] != "none") modes.push_back("--teaching");
        for (const std::string& mode : modes) {
            DYNAMIC_SECTION(f[1] << " seed " << f[2] << " +" << f[3] << " tokens, prompt " << f[4] << " T " << f[5] << " top_k "
                                 << f[6] << " eos_id " << f[7] << " " << mode) {
                std::vector<std::string> args{LLMFS_GENERATE,  "--model",         f[1], "--seed",   f[2], "--max-new-tokens",
                                              f[3],            "--prompt",        from_hex(f[4]), "--temperature", f[5]};
                if (f[6] != "none") args.insert(args.end(), {"--top-k", f[6]});
                if (f[7] != "none") args.insert(args.end(), {"--eos-id", f[7]});
                if (!mode.empty()) args.push_back(mode);
                const auto result = run(args);
                CHECK(result.exit_code == 0);
                CHECK(result.out == ids + "\n" + unescape(text) + "\n");
            }
        }
    }
    CHECK(cases >= 10);
}

TEST_CASE("llmfs-generate --kv-cache and the fast default give the --teaching tokens at several lengths", "[long]") {
    // 124M from other seeds and prompts than the PyTorch cases; the lengths cross the cache's
    // single-row decoding many times. Past the context length: kv_cache_test, on a tiny config.
    for (const auto& [seed, tokens, prompt] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"5", "1", "A"}, {"11", "24", "The meaning of life is"}, {"77", "40", "Once upon a time, in a land far away,"}}) {
        DYNAMIC_SECTION("seed " << seed << " +" << tokens << " tokens") {
            const std::vector<std::string> args{LLMFS_GENERATE, "--seed", seed, "--max-new-tokens", tokens, "--prompt", prompt};
            auto teaching_args = args, cached_args = args;
            teaching_args.push_back("--teaching");
            cached_args.push_back("--kv-cache");
            const auto teaching = run(teaching_args), fast = run(args), cached = run(cached_args);
            CHECK(teaching.exit_code == 0);
            CHECK(fast.exit_code == 0);
            CHECK(cached.exit_code == 0);
            CHECK(fast.out == teaching.out);
            CHECK(cached.out == teaching.out);
        }
    }
}

TEST_CASE("llmfs-generate rejects bad input with exit code 2") {
    for (const auto& args : std::vector<std::vector<std::string>>{{"--prompt", ""},
                                                                  {"--max-new-tokens", "-1"},
                                                                  {"--max-new-tokens", "many"},
                                                                  {"--model", "gpt5"},
                                                                  {"--seed", "abc"},
                                                                  {"--frobnicate"},
                                                                  {"--kv-cache", "--teaching"},
                                                                  {"--temperature", "-0.5"},
                                                                  {"--temperature", "inf"},
                                                                  {"--temperature", "nan"},
                                                                  {"--temperature", "1e999"},
                                                                  {"--temperature", "warm"},
                                                                  {"--temperature", "0x1p0"},
                                                                  {"--top-k", "0"},
                                                                  {"--top-k", "50258"},
                                                                  {"--top-k", "2.5"},
                                                                  {"--eos-id", "-1"},
                                                                  {"--eos-id", "50257"}}) {
        DYNAMIC_SECTION(args[0] << " " << (args.size() > 1 ? args[1] : "")) {
            std::vector<std::string> argv{LLMFS_GENERATE};
            argv.insert(argv.end(), args.begin(), args.end());
            const auto result = run(argv);
            CHECK(result.exit_code == 2);
            CHECK(result.out.empty());
        }
    }
}
