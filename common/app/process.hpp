// Running another llmfs program and capturing what it prints (POSIX: Linux and macOS).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llmfs {

struct ProcessResult {
    int exit_code = -1;      // the program's exit status; 128 + N when killed by signal N
    int signal = 0;          // N when killed by signal N, else 0
    bool timed_out = false;  // killed (SIGKILL) after ProcessOptions::timeout_seconds
    double cpu_seconds = 0;  // the CPU time (user + system) it and the children it waited for used
    std::string out;         // its standard output
    std::string err;         // its standard error
};

// setrlimit(resource, {soft, hard}): RLIMIT_CPU, RLIMIT_AS, RLIMIT_FSIZE, ... (<sys/resource.h>).
struct ResourceLimit {
    int resource = 0;
    unsigned long soft = 0, hard = 0;
};

struct ProcessOptions {
    std::optional<std::string> input;                          // standard input's bytes (default: /dev/null)
    std::vector<std::pair<std::string, std::string>> env;      // variables set on top of ours
    double timeout_seconds = 0;                                // > 0: kill the program after this long
    bool clean_env = false;                                    // only `env`, none of our variables
    std::filesystem::path working_dir;                         // its current folder (default: ours)
    std::vector<ResourceLimit> rlimits;                        // setrlimit in the child, before it starts
};

// Runs `program` with `args` (no shell) and waits for it. Throws std::runtime_error naming the
// program when it cannot be started (nor given its working folder or limits).
ProcessResult run_process(const std::filesystem::path& program, const std::vector<std::string>& args,
                          const ProcessOptions& options = {});

// The directory of the running executable (text/data_dir's executable_path), else argv[0]'s (made absolute).
std::filesystem::path executable_dir(const char* argv0);

// A new, empty folder in the system's temporary folder ("<tmp>/<prefix>-XXXXXX"), removed with
// everything in it when this object goes. Throws std::runtime_error when it cannot be made.
class TempFolder {
public:
    explicit TempFolder(const std::string& prefix = "llmfs");
    ~TempFolder();
    TempFolder(const TempFolder&) = delete;
    TempFolder& operator=(const TempFolder&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace llmfs
