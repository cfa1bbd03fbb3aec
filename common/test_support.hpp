// What the unit tests share: a temporary directory, an environment variable guard, hex-written
// bytes and the reader of the "case NAME ... end" golden files of tests/goldens/, the check of a printed output against
// PyTorch's, and the fuzz tests' mutator and contract.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <typeinfo>
#include <vector>

#include <catch2/catch.hpp>
#include <unistd.h>

#include "llmfs/torch/blas.hpp"
#include "llmfs/app/compare.hpp"

namespace llmfs::testing {

// A fresh directory under `base` (default: the system's temporary directory), removed at scope exit.
struct TempDir {
    std::filesystem::path path;
    explicit TempDir(const std::string& prefix, const std::filesystem::path& base = std::filesystem::temp_directory_path()) {
        static int counter = 0;
        path = base / (prefix + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

// Sets (or, with nullptr, unsets) an environment variable, restoring it at scope exit.
struct EnvGuard {
    std::string name;
    bool had_value;
    std::string old_value;
    EnvGuard(std::string variable, const char* value) : name(std::move(variable)) {
        const char* old = std::getenv(name.c_str());
        had_value = old != nullptr;
        old_value = had_value ? old : "";
        if (value != nullptr) {
            ::setenv(name.c_str(), value, 1);
        } else {
            ::unsetenv(name.c_str());
        }
    }
    ~EnvGuard() {
        if (had_value) {
            ::setenv(name.c_str(), old_value.c_str(), 1);
        } else {
            ::unsetenv(name.c_str());
        }
    }
};

// The bytes a golden file writes as hex ("48656c6c6f" -> "Hello").
inline std::string from_hex(const std::string& hex) {
    if (hex.size() % 2 != 0) throw std::runtime_error("odd-length hex string: " + hex);
    std::string bytes;
    for (std::size_t i = 0; i < hex.size(); i += 2) bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    return bytes;
}

// The cases of a golden file: blocks of "case NAME", the text (one or more lines), "end".
// Returns NAME -> text (lines joined by "\n", no final newline).
inline std::map<std::string, std::string> load_cases(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::map<std::string, std::string> cases;
    std::string line, name, text;
    while (std::getline(in, line)) {
        if (line.rfind("case ", 0) == 0) {
            name = line.substr(5);
            text.clear();
        } else if (line == "end") {
            cases[name] = text;
        } else {
            text += (text.empty() ? "" : "\n") + line;
        }
    }
    return cases;
}

// A float's IEEE-754 bit pattern as the golden files write it: 8 hex digits.
inline std::string hex32(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", u);
    return buf;
}

// FNV-1a 64 over the little-endian bytes of `values`, as the golden scripts' fnv1a64 writes it.
template <typename T>
std::string fnv1a64(const std::vector<T>& values) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());  // little-endian hosts
    for (std::size_t i = 0; i < values.size() * sizeof(T); ++i) {
        h ^= bytes[i];
        h *= 0x100000001b3ULL;
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

// A case of "key value..." lines (most golden files of data/tests/), by key.
struct FieldCase {
    std::string name;
    std::map<std::string, std::string> fields;

    const std::string& at(const std::string& key) const {
        const auto it = fields.find(key);
        if (it == fields.end()) throw std::runtime_error("case " + name + " lacks " + key);
        return it->second;
    }
    bool has(const std::string& key) const { return fields.count(key) != 0; }
    std::uint64_t number(const std::string& key) const { return std::stoull(at(key)); }
    std::vector<std::string> words(const std::string& key) const {
        std::istringstream in(at(key));
        std::vector<std::string> out;
        for (std::string w; in >> w;) out.push_back(w);
        return out;
    }
    std::vector<std::int64_t> indices(const std::string& key) const {
        std::vector<std::int64_t> out;
        for (const auto& w : words(key)) out.push_back(std::stoll(w));
        return out;
    }
};

// The cases of the golden file at `path` whose NAME starts with "kind/", split into fields.
inline std::vector<FieldCase> field_cases(const std::string& path, const std::string& kind) {
    std::vector<FieldCase> out;
    for (const auto& [name, text] : load_cases(path)) {
        if (name.rfind(kind + "/", 0) != 0) continue;
        FieldCase c{name, {}};
        std::istringstream in(text);
        for (std::string line; std::getline(in, line);) {
            const auto space = line.find(' ');
            c.fields[line.substr(0, space)] = space == std::string::npos ? "" : line.substr(space + 1);
        }
        out.push_back(std::move(c));
    }
    if (out.empty()) throw std::runtime_error(path + " has no case of kind " + kind);
    return out;
}

// A printed output (`actual`) against PyTorch's (`expected`), for the case called `name`; for test
// cases tagged [blas], whose printed digits depend on OpenBLAS's kernel (CMake runs them twice).
// Under the kernel the goldens were printed with (llmfs::golden_blas_kernel(), selected by
// OPENBLAS_CORETYPE in the exact run) it must be byte-identical. Under another kernel (this CPU's
// own, or an ARM one) products may round differently in the last bit, so a printed digit may too:
// there the output may also be close by llmfs-nbcheck's rule (llmfs::compare_outputs). Which it
// was is reported: a WARN when close, and "exact KERNEL" or "close KERNEL" in
// $LLMFS_OUTCOME_DIR/unit-<name>.txt when that variable is set (tests/outcomes.sh lists them).
// `drift` (training runs: each step carries the last bits forward, so the weights after a few steps
// differ by more than a print's last digit) also accepts numbers at most `drift` apart under another
// kernel, never under the goldens' one (llmfs::compare_outputs).
inline void check_printed(const std::string& name, const std::string& actual, const std::string& expected, double drift = 0) {
    const std::string kernel = llmfs::blas_kernel();
    const llmfs::Comparison comparison = llmfs::compare_outputs(expected, actual, drift);
    INFO(name << " under OpenBLAS's " << kernel << " kernel\nexpected:\n" << expected << "\nactual:\n" << actual);
    if (kernel == llmfs::golden_blas_kernel()) {
        CHECK(comparison.verdict == llmfs::Verdict::match);  // the goldens' own kernel: exact
    } else {
        CHECK(comparison.verdict != llmfs::Verdict::differ);
    }
    if (comparison.verdict == llmfs::Verdict::close)
        WARN(name << ": close to PyTorch's, not exact (" << llmfs::blas_kernel_note() << "); first at line "
                  << comparison.line << ": \"" << comparison.expected_line << "\" vs \"" << comparison.actual_line << "\"");
    if (const char* dir = std::getenv("LLMFS_OUTCOME_DIR"); dir != nullptr && *dir != '\0') {
        std::filesystem::create_directories(dir);
        std::ofstream(std::filesystem::path(dir) / ("unit-" + name + ".txt"))
            << (comparison.verdict == llmfs::Verdict::match ? "exact" : llmfs::to_string(comparison.verdict)) << " " << kernel
            << "\n";
    }
}

// ---- fuzzing ------------------------------------------------------------------------------------
//
// The fuzz tests (tagged [fuzz], label "fuzz"; .ci/run runs them under ASan and UBSan) feed each
// parser inputs made from real ones by a Mutator seeded with a fixed number, so every run tries
// the same cases and a failure names the case that reproduces it. The contract every case must
// keep is that of the tools (app/cli's run_tool): the parser returns, or throws a
// std::invalid_argument or std::out_of_range (exit 2) or another std::runtime_error (exit 1)
// with a message. Never another exception (a library's type_error, bad_alloc, length_error), a
// crash or sanitizer report, or a case slower than kFuzzCaseSeconds (a hang).
// A fuzz test of more than about 5 s is tagged [fuzz][long]: labels fuzz and long, so the README's
// first test command leaves it to the long label (docs/testing.md); .ci/run's sanitizer phase runs
// every fuzz test.

constexpr double kFuzzCaseSeconds = 20.0;  // far beyond any case's time, even under ASan

class Mutator {
public:
    explicit Mutator(std::uint64_t seed) : rng_(seed) {}

    std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng_() % n); }
    bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

    // Bytes that upset parsers: NUL, invalid UTF-8, quotes, brackets, escapes, numbers, markers.
    std::string nasty() {
        static const std::vector<std::string> pieces = {
            std::string(1, '\0'), "\xff", "\xc3", "\xed\xa0\x80", "\"", "\\", "{", "}", "[", "]", ",", ":",
            "\\u0000", "\\ud800", "\\udc00", "\\x", "1e999", "-0", "NaN", "null", "true", "\n", "\r\n", "\t",
            "In [", "In [1]:", "]:", "<|endoftext|>", "tensor([[", "99999999999999999999", "\xf0\x9f\x98\x80"};
        return pieces[below(pieces.size())];
    }

    // One to a few byte-level edits of `s`: flips, inserts, deletions, duplications, truncation.
    std::string bytes(std::string s) {
        const std::size_t edits = 1 + below(4);
        for (std::size_t e = 0; e < edits; ++e) {
            const std::size_t at = below(s.size() + 1);
            switch (below(7)) {
                case 0:
                    if (!s.empty()) s[std::min(at, s.size() - 1)] ^= static_cast<char>(1u << below(8));
                    break;
                case 1: s.insert(at, nasty()); break;
                case 2: s.erase(at, below(64)); break;
                case 3: s.insert(at, s.substr(below(s.size() + 1), below(4096))); break;
                case 4: s.resize(at); break;
                case 5: s.insert(at, std::string(1 + below(100000), "a {[\"0"[below(6)])); break;
                default: s.insert(at, std::string(1, static_cast<char>(below(256)))); break;
            }
        }
        return s;
    }

private:
    std::mt19937_64 rng_;
};

// `bytes` shown safely in a test message: control bytes and non-ASCII as \xNN, at most 300 bytes.
inline std::string printable(const std::string& bytes) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out = "\"";
    for (std::size_t i = 0; i < bytes.size() && i < 300; ++i) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        out += c < 0x20 || c >= 0x7f ? std::string("\\x") + kHex[c >> 4] + kHex[c & 15] : std::string(1, static_cast<char>(c));
    }
    return out + (bytes.size() > 300 ? "...\"" : "\"");
}

// Runs `body` as one fuzz case and checks the contract above; `input` is written to
// $TMPDIR/llmfs-fuzz-<name>.bin when the case fails, to reproduce it.
inline void fuzz_case(const std::string& name, const std::string& input, const std::function<void()>& body) {
    const auto start = std::chrono::steady_clock::now();
    std::string failure;
    try {
        body();
    } catch (const std::invalid_argument& e) {
        if (std::string(e.what()).empty()) failure = "std::invalid_argument without a message";
    } catch (const std::out_of_range& e) {
        if (std::string(e.what()).empty()) failure = "std::out_of_range without a message";
    } catch (const std::runtime_error& e) {
        if (std::string(e.what()).empty()) failure = std::string(typeid(e).name()) + " without a message";
    } catch (const std::exception& e) {
        failure = std::string("an exception the tools do not expect: ") + typeid(e).name() + ": " + e.what();
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (failure.empty() && seconds > kFuzzCaseSeconds) failure = "took " + std::to_string(seconds) + " s (a hang?)";
    if (!failure.empty()) {
        const auto path = std::filesystem::temp_directory_path() / ("llmfs-fuzz-" + name + ".bin");
        std::ofstream(path, std::ios::binary) << input;
        FAIL_CHECK(name << ": " << failure << " (input: " << input.size() << " bytes, saved to " << path.string() << ")");
    }
}

}  // namespace llmfs::testing
