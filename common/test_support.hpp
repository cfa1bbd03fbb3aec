// What the unit tests share: a temporary directory, an environment variable guard, the reader of
// the "case NAME ... end" golden files of tests/goldens/, and the check of a printed output
// against PyTorch's.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <system_error>

#include <catch2/catch.hpp>
#include <unistd.h>

#include "llmfs/torch/blas.hpp"
#include "llmfs/app/compare.hpp"

namespace llmfs::testing {

// A fresh directory under the system's temporary directory, removed at scope exit.
struct TempDir {
    std::filesystem::path path;
    explicit TempDir(const std::string& prefix) {
        static int counter = 0;
        path = std::filesystem::temp_directory_path() /
               (prefix + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
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

// A printed output (`actual`) against PyTorch's (`expected`), for the case called `name`; for test
// cases tagged [blas], whose printed digits depend on OpenBLAS's kernel (CMake runs them twice).
// Under the kernel the goldens were printed with (llmfs::golden_blas_kernel(), selected by
// OPENBLAS_CORETYPE in the exact run) it must be byte-identical. Under another kernel (this CPU's
// own, or an ARM one) products may round differently in the last bit, so a printed digit may too:
// there the output may also be close by llmfs-nbcheck's rule (llmfs::compare_outputs). Which it
// was is reported: a WARN when close, and "exact KERNEL" or "close KERNEL" in
// $LLMFS_OUTCOME_DIR/unit-<name>.txt when that variable is set (tests/outcomes.sh lists them).
inline void check_printed(const std::string& name, const std::string& actual, const std::string& expected) {
    const std::string kernel = llmfs::blas_kernel();
    const llmfs::Comparison comparison = llmfs::compare_outputs(expected, actual);
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

}  // namespace llmfs::testing
