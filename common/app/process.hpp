// Running another llmfs program and capturing what it prints (POSIX: Linux and macOS).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace llmfs {

struct ProcessResult {
    int exit_code = -1;  // the program's exit status; 128 + N when killed by signal N
    std::string out;     // its standard output
    std::string err;     // its standard error
};

// Runs `program` with `args` (no shell), stdin from /dev/null, and waits for it. Throws
// std::runtime_error naming the program when it cannot be started.
ProcessResult run_process(const std::filesystem::path& program, const std::vector<std::string>& args);

// The directory of the running executable: /proc/self/exe on Linux, else argv[0] (made absolute).
std::filesystem::path executable_dir(const char* argv0);

}  // namespace llmfs
