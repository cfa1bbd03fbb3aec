// Running a program we do not trust (a student's exercise) in a box: limits on time, memory and
// file size, and, with bubblewrap, no network and no file outside what it needs (Linux).
//
// Two boxes, the best that works here:
//  - bubblewrap (`bwrap`, Debian's bubblewrap) where it is installed and may make namespaces (probed
//    once): a new mount, PID, IPC, UTS and network namespace that sees /usr (and /lib*, /bin, the
//    /etc files the loader and OpenBLAS need) read-only, the folders it is given read-only, a fresh
//    /tmp and its working folder; nothing else (no $HOME, no source tree, no instructor's data
//    unless given). The limits below come on top.
//  - rlimits only, elsewhere (containers that forbid namespaces, qemu-user): the same limits, a
//    clean environment and its own working folder; it cannot stop reads and writes of the files the
//    user may read and write, nor the network (sandbox_description says so). qemu-user ignores
//    RLIMIT_AS: under it the memory limit does not reach the program.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "llmfs/app/process.hpp"

namespace llmfs {

struct SandboxLimits {
    double wall_seconds = 0;    // > 0: killed after this long (SIGKILL)
    double cpu_seconds = 0;     // > 0: RLIMIT_CPU (SIGXCPU, then SIGKILL a second later)
    std::size_t memory_mb = 0;  // > 0: RLIMIT_AS, its address space (threads' stacks, malloc arenas included)
    std::size_t file_mb = 0;    // > 0: RLIMIT_FSIZE, the largest file it may write (SIGXFSZ)
    // > 0 (Linux): RLIMIT_NPROC, the processes and threads it may start (a fork bomb's forks then
    // fail). The kernel counts every task of the user, so the limit is this user's count in /proc
    // when it starts plus this many. The kernel does not apply it to root. Elsewhere (no /proc to
    // count in) it is not set.
    std::size_t processes = 0;
    std::filesystem::path work_dir;                // its current folder, the one place it may write (required)
    std::vector<std::filesystem::path> readable;   // folders and files it may read (its own folder is added)
};

enum class SandboxKind { bubblewrap, rlimits };

struct SandboxResult : ProcessResult {
    std::string stopped_by;  // empty, or why a limit stopped it: "time limit (2 s)", "memory limit (64 MB)", ...
};

// The box that works here: bubblewrap when `bwrap` runs a program in new namespaces (tried once
// per process), else rlimits. LLMFS_SANDBOX=rlimits forces the fallback (tests, comparisons).
SandboxKind sandbox_kind();

// One line saying which box runs the programs and what it limits, e.g.
// "sandbox: bubblewrap 0.8.0 (no network, reads only /usr, ..., writes only its working folder); limits: ...".
std::string sandbox_description(const SandboxLimits& limits);

// Runs `program` with `args` in the box, with `options`' input and environment (on a clean one:
// PATH, HOME=work_dir, TMPDIR, LANG=C.UTF-8; none of ours). Throws std::runtime_error when it cannot
// be started or limits.work_dir is not a folder.
SandboxResult run_sandboxed(const std::filesystem::path& program, const std::vector<std::string>& args,
                            const ProcessOptions& options, const SandboxLimits& limits);

}  // namespace llmfs
