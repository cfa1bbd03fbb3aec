// What the unit tests share: scope guards for a temporary directory and an environment variable,
// and the reader of the "case NAME ... end" golden files of tests/goldens/.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <system_error>

#include <unistd.h>

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

}  // namespace llmfs::testing
