// Scope guards the unit tests share: a temporary directory and an environment variable.
#pragma once

#include <cstdlib>
#include <filesystem>
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

}  // namespace llmfs::testing
