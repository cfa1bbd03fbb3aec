#include "llmfs/app/sandbox.hpp"

#include <sys/resource.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace llmfs {

namespace fs = std::filesystem;

namespace {

// The system's read-only part every program needs: its loader and libraries (/usr, and /lib* /bin
// /sbin as links or folders), and of /etc only what the loader and Debian's BLAS alternatives read.
const char* const kSystemRoots[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};
const char* const kSystemEtc[] = {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime"};

std::optional<fs::path> find_in_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path != nullptr && *path != '\0' ? path : "/usr/bin:/bin");
    std::error_code ec;
    for (std::string dir; std::getline(dirs, dir, ':');) {
        if (!dir.empty() && fs::is_regular_file(fs::path(dir) / name, ec) && ::access((fs::path(dir) / name).c_str(), X_OK) == 0)
            return fs::path(dir) / name;
    }
    return std::nullopt;
}

// bwrap's arguments for a box that sees the system read-only, `readable` read-only and `work`
// writable, with no network; then `program` and `args`.
std::vector<std::string> bwrap_args(const fs::path& work, const std::vector<fs::path>& readable) {
    std::vector<std::string> args{"--unshare-all", "--die-with-parent", "--new-session", "--proc", "/proc", "--dev", "/dev"};
    std::error_code ec;
    for (const char* root : kSystemRoots) {
        const fs::path p = root;
        if (fs::is_symlink(p, ec)) args.insert(args.end(), {"--symlink", fs::read_symlink(p, ec).string(), p.string()});
        else if (fs::is_directory(p, ec)) args.insert(args.end(), {"--ro-bind", p.string(), p.string()});
    }
    for (const char* file : kSystemEtc) {
        if (fs::exists(file, ec)) args.insert(args.end(), {"--ro-bind", file, file});
    }
    args.insert(args.end(), {"--tmpfs", "/tmp"});
    for (const fs::path& p : readable) args.insert(args.end(), {"--ro-bind", p.string(), p.string()});
    args.insert(args.end(), {"--bind", work.string(), work.string(), "--chdir", work.string()});
    return args;
}

struct Bubblewrap {
    fs::path program;
    std::string version;  // "bubblewrap 0.8.0"
};

// `bwrap`, if it is installed and can make its namespaces here (a container may forbid them).
const std::optional<Bubblewrap>& working_bubblewrap() {
    static std::optional<Bubblewrap> found;
    static std::once_flag probed;
    std::call_once(probed, [] {
        const auto bwrap = find_in_path("bwrap");
        if (!bwrap) return;
        try {
            const fs::path here = fs::temp_directory_path();
            std::vector<std::string> args = bwrap_args(here, {});
            args.emplace_back("true");
            ProcessOptions options;
            options.timeout_seconds = 30;
            options.env = {{"PATH", "/usr/bin:/bin"}};
            if (run_process(*bwrap, args, options).exit_code != 0) return;
            std::string version = run_process(*bwrap, {"--version"}, options).out;
            version = version.substr(0, version.find('\n'));
            found = Bubblewrap{*bwrap, version.empty() ? "bubblewrap" : version};
        } catch (const std::exception&) {
            // bwrap could not be run: the rlimits box it is
        }
    });
    return found;
}

bool fallback_forced() {
    const char* forced = std::getenv("LLMFS_SANDBOX");
    return forced != nullptr && std::string(forced) == "rlimits";
}

std::string number(double x) {
    std::ostringstream s;
    s << x;
    return s.str();
}

std::string limits_text(const SandboxLimits& limits) {
    std::string text;
    const auto add = [&](const std::string& part) { text += (text.empty() ? "" : ", ") + part; };
    if (limits.wall_seconds > 0) add(number(limits.wall_seconds) + " s wall");
    if (limits.cpu_seconds > 0) add(number(limits.cpu_seconds) + " s CPU");
    if (limits.memory_mb > 0) add(std::to_string(limits.memory_mb) + " MB address space");
    if (limits.file_mb > 0) add(std::to_string(limits.file_mb) + " MB per file");
#ifdef __linux__
    if (limits.processes > 0) add(std::to_string(limits.processes) + " more processes and threads");
#endif
    return text.empty() ? "none" : text;
}

#ifdef __linux__
// The tasks (processes and threads) of this user that RLIMIT_NPROC counts: /proc/<pid>/task of each
// process the user owns.
std::size_t user_tasks() {
    std::size_t tasks = 0;
    const uid_t uid = ::getuid();
    std::error_code ec;
    for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
        const std::string pid = it->path().filename().string();
        struct stat st{};
        if (pid.find_first_not_of("0123456789") != std::string::npos || ::stat(it->path().c_str(), &st) != 0 || st.st_uid != uid) continue;
        std::error_code task_ec;
        for (fs::directory_iterator t(it->path() / "task", task_ec), tend; !task_ec && t != tend; t.increment(task_ec)) ++tasks;
    }
    return tasks;
}
#endif

bool under(const fs::path& p, const fs::path& root) {
    const auto [r, q] = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
    return r == root.end();
}

// A path that the program's error names, exists here, and is outside everything its box shows:
// what it tried to open and was refused (bubblewrap shows it no such file).
std::optional<std::string> path_outside_box(const std::string& err, const fs::path& work, const std::vector<fs::path>& readable) {
    std::vector<fs::path> shown{"/proc", "/dev", work};  // not /tmp: the box's is a fresh one
    for (const char* root : kSystemRoots) shown.emplace_back(root);
    for (const char* file : kSystemEtc) shown.emplace_back(file);
    shown.insert(shown.end(), readable.begin(), readable.end());
    std::string token;
    const auto check = [&]() -> std::optional<std::string> {
        while (!token.empty() && std::string(".,;:)]}'\"`").find(token.back()) != std::string::npos) token.pop_back();
        std::error_code ec;
        if (token.size() > 1 && token.front() == '/' && fs::exists(token, ec)) {
            const fs::path p = fs::path(token).lexically_normal();
            bool inside = false;
            for (const fs::path& root : shown) inside = inside || under(p, root);
            if (!inside) return token;
        }
        token.clear();
        return std::nullopt;
    };
    for (const char c : err) {
        if (std::string(" \t\n\"'`(=[").find(c) != std::string::npos) {
            if (auto found = check()) return found;
        } else {
            token += c;
        }
    }
    return check();
}

// Why the box stopped the program, if a limit did.
std::string stop_reason(const SandboxResult& r, const SandboxLimits& limits, bool bubblewrap, const std::vector<fs::path>& readable) {
    if (r.timed_out) return "time limit (" + number(limits.wall_seconds) + " s wall)";
    if (r.signal == SIGXCPU || (r.signal == SIGKILL && limits.cpu_seconds > 0 && r.cpu_seconds >= limits.cpu_seconds))
        return "CPU time limit (" + number(limits.cpu_seconds) + " s)";
    if (r.signal == SIGXFSZ || r.err.find("File too large") != std::string::npos)
        return "file size limit (" + std::to_string(limits.file_mb) + " MB)";
    if (r.exit_code != 0 && limits.processes > 0) {
        // fork's and pthread_create's EAGAIN, as a shell, libc++ or Python words it
        for (const char* sign : {"Cannot fork", "Resource temporarily unavailable", "can't fork", "BlockingIOError"}) {
            if (r.err.find(sign) != std::string::npos) return "process limit (" + std::to_string(limits.processes) + " more)";
        }
    }
    if (r.exit_code != 0 && limits.memory_mb > 0) {
        for (const char* sign : {"bad_alloc", "Cannot allocate memory", "MemoryError", "out of memory"}) {
            if (r.err.find(sign) != std::string::npos) return "memory limit (" + std::to_string(limits.memory_mb) + " MB)";
        }
    }
    if (r.exit_code != 0 && bubblewrap) {
        if (const auto path = path_outside_box(r.err, limits.work_dir, readable))
            return "forbidden access (" + *path + " is outside its box)";
    }
    if (r.exit_code != 0 && r.err.find("Read-only file system") != std::string::npos)
        return "forbidden access (a write outside its working folder)";
    return "";
}

}  // namespace

SandboxKind sandbox_kind() {
    return !fallback_forced() && working_bubblewrap() ? SandboxKind::bubblewrap : SandboxKind::rlimits;
}

std::string sandbox_description(const SandboxLimits& limits) {
    if (sandbox_kind() == SandboxKind::bubblewrap) {
        return "sandbox: " + working_bubblewrap()->version +
               " (no network; reads only the system's /usr and the files it is given; writes only its working folder); limits: " +
               limits_text(limits);
    }
    return "sandbox: rlimits only (limits: " + limits_text(limits) +
           "; its own working folder and a clean environment, but it can read and write every file this user may, and use the network: "
           "install bubblewrap where namespaces are allowed)";
}

SandboxResult run_sandboxed(const fs::path& program, const std::vector<std::string>& args, const ProcessOptions& options,
                            const SandboxLimits& limits) {
    std::error_code ec;
    if (limits.work_dir.empty() || !fs::is_directory(limits.work_dir, ec))
        throw std::runtime_error("the sandbox's working folder " + limits.work_dir.string() + " is not a folder");
    const fs::path work = fs::canonical(limits.work_dir);
    const fs::path binary = fs::absolute(program);
    std::vector<fs::path> readable{binary.parent_path()};
    for (const fs::path& p : limits.readable) {
        if (fs::exists(p, ec)) readable.push_back(fs::absolute(p).lexically_normal());
    }
    const bool bubblewrap = sandbox_kind() == SandboxKind::bubblewrap;

    ProcessOptions boxed = options;
    boxed.clean_env = true;
    boxed.env.clear();
    // (A pair, not a structured binding: C++17 lambdas cannot capture bindings, which clang refuses.)
    for (const auto& variable : std::vector<std::pair<std::string, std::string>>{
             {"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"HOME", work.string()}, {"LANG", "C.UTF-8"}, {"TMPDIR", bubblewrap ? "/tmp" : work.string()}}) {
        const bool given = std::any_of(options.env.begin(), options.env.end(), [&](const auto& v) { return v.first == variable.first; });
        if (!given) boxed.env.push_back(variable);
    }
    boxed.env.insert(boxed.env.end(), options.env.begin(), options.env.end());
    boxed.working_dir = work;
    boxed.timeout_seconds = limits.wall_seconds;
    boxed.rlimits = {{RLIMIT_CORE, 0, 0}, {RLIMIT_NOFILE, 256, 256}};
    if (limits.cpu_seconds > 0) {
        const auto cpu = static_cast<unsigned long>(limits.cpu_seconds + 0.999);
        boxed.rlimits.push_back({RLIMIT_CPU, cpu, cpu + 1});
    }
    if (limits.memory_mb > 0) boxed.rlimits.push_back({RLIMIT_AS, limits.memory_mb << 20, limits.memory_mb << 20});
    if (limits.file_mb > 0) boxed.rlimits.push_back({RLIMIT_FSIZE, limits.file_mb << 20, limits.file_mb << 20});
#ifdef __linux__
    if (limits.processes > 0) {
        const std::size_t nproc = user_tasks() + limits.processes;
        boxed.rlimits.push_back({RLIMIT_NPROC, nproc, nproc});
    }
#endif

    SandboxResult result;
    if (bubblewrap) {
        std::vector<std::string> wrapped = bwrap_args(work, readable);
        wrapped.push_back(binary.string());
        wrapped.insert(wrapped.end(), args.begin(), args.end());
        static_cast<ProcessResult&>(result) = run_process(working_bubblewrap()->program, wrapped, boxed);
        // bwrap exits 128 + N when its program was killed by signal N.
        if (result.signal == 0 && result.exit_code > 128 && result.exit_code < 128 + 65) result.signal = result.exit_code - 128;
    } else {
        static_cast<ProcessResult&>(result) = run_process(binary, args, boxed);
    }
    result.stopped_by = stop_reason(result, limits, bubblewrap, readable);
    return result;
}

}  // namespace llmfs
