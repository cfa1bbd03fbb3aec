// The tools' contract under hostile command lines and standard input, from the outside: every run
// exits 0, or 1 or 2 with a message on stderr. Never a signal, a hang (ProcessOptions's timeout), a
// sanitizer report or an empty message. Deterministic: a Mutator with a fixed seed picks the
// arguments (test_support.hpp). CTest label "fuzz"; .ci/run runs it under ASan and UBSan.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "llmfs/app/process.hpp"
#include "test_support.hpp"

using llmfs::ProcessOptions;
using llmfs::ProcessResult;
using llmfs::testing::Mutator;

namespace {

constexpr double kTimeoutSeconds = 120;  // far beyond any case, even under ASan

std::string describe(const std::vector<std::string>& args) {
    std::string text;
    for (const std::string& a : args) text += " " + llmfs::testing::printable(a);
    return text;
}

void check_contract(const std::string& program, const std::vector<std::string>& args, const ProcessOptions& options,
                    const std::string& name) {
    const ProcessResult r = llmfs::run_process(std::filesystem::path(LLMFS_BIN_DIR) / program, args, options);
    INFO(name << ": " << program << describe(args) << " (stdin: " << (options.input ? options.input->size() : 0)
              << " bytes)\nexit " << r.exit_code << "\nstderr: " << r.err.substr(0, 2000));
    CHECK_FALSE(r.timed_out);
    CHECK(r.signal == 0);
    CHECK((r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 2));
    if (r.exit_code != 0) CHECK(r.err.find_first_not_of(" \n") != std::string::npos);
    for (const char* report : {"Sanitizer", "runtime error:", "terminate called", "Segmentation"})
        CHECK(r.err.find(report) == std::string::npos);
}

// A word for a command line: a known flag, a value, or something hostile.
std::string word(Mutator& m, const std::vector<std::string>& flags) {
    static const std::vector<std::string> values = {"0", "1", "-1", "5", "15496", "50256", "50257", "99999999999999999999",
                                                    "0x10", " 3", "3 ", "", "-", "--", "=", "1e3", "nan", "-d5",
                                                    "Hello, I am", "\xff\xfe", "a\"b", "../../etc/passwd", "/dev/zero",
                                                    "/tmp", "3.1", "9.9", "mkl", "default", "auto", "intel"};
    switch (m.below(4)) {
        case 0: return flags[m.below(flags.size())];
        case 1: return flags[m.below(flags.size())] + "=" + values[m.below(values.size())];
        case 2: return values[m.below(values.size())];
        default: return m.bytes(values[m.below(values.size())]).substr(0, 200);
    }
}

void fuzz_tool(const std::string& program, const std::vector<std::string>& flags, int cases, std::uint64_t seed,
               const std::vector<std::string>& fixed = {}) {
    Mutator m(seed);
    for (int i = 0; i < cases; ++i) {
        std::vector<std::string> args = fixed;
        for (std::size_t n = m.below(5); n > 0; --n) args.push_back(word(m, flags));
        // Args are C strings: a NUL would cut them, as any shell does.
        for (std::string& a : args) a = a.substr(0, a.find('\0'));
        ProcessOptions options;
        options.timeout_seconds = kTimeoutSeconds;
        if (m.chance(0.5)) options.input = m.bytes(m.chance(0.5) ? "6109 3626 6100 345\n" : "Every effort moves you\n");
        check_contract(program, args, options, program + "-" + std::to_string(i));
    }
}

}  // namespace

TEST_CASE("fuzz: llmfs-tokenize's command line and standard input", "[fuzz][long]") {
    fuzz_tool("llmfs-tokenize", {"-d", "--decode", "-h", "--help", "--frobnicate", "-x"}, 300, 21);
}

TEST_CASE("fuzz: llmfs-nbcheck's command line", "[fuzz]") {
    fuzz_tool("llmfs-nbcheck", {"--bernoulli", "--diff", "--json", "--strict", "--frobnicate", "-"}, 200, 22);
}

TEST_CASE("fuzz: llmfs-exercise's command line", "[fuzz]") {
    fuzz_tool("llmfs-exercise", {"list", "check", "student-copy", "--bernoulli", "--program", "--golden", "-o", "--help"}, 200, 23);
}

TEST_CASE("fuzz: llmfs-generate's command line (no model built: bad arguments only)", "[fuzz]") {
    // Every case has a bad --model so that nothing is built: the command line alone is under test.
    fuzz_tool("llmfs-generate", {"--prompt", "--max-new-tokens", "--seed", "--kv-cache", "--teaching", "--temperature", "--top-k",
                                 "--eos-id", "--frobnicate"}, 200, 24,
              {"--model", "gpt2-none"});
}

TEST_CASE("fuzz: a chapter program's command line", "[fuzz]") {
    fuzz_tool("ch03_naive_attention", {"--bernoulli", "--annotate", "--help", "--frobnicate"}, 150, 25);
}
