#include "llmfs/app/process.hpp"
#include "llmfs/text/data_dir.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

extern char** environ;

namespace llmfs {

namespace {

// A temporary file that removes itself; the child writes to it, we read it back.
class TempFile {
public:
    TempFile() {
        std::string pattern = (std::filesystem::temp_directory_path() / "llmfs-XXXXXX").string();
        fd_ = ::mkstemp(pattern.data());
        if (fd_ < 0) throw std::runtime_error("cannot create a temporary file: " + std::string(std::strerror(errno)));
        path_ = pattern;
    }
    ~TempFile() {
        ::close(fd_);
        std::error_code ignored;
        std::filesystem::remove(path_, ignored);
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    int fd() const { return fd_; }
    std::string read() const {
        std::ifstream in(path_, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        return text.str();
    }

private:
    int fd_ = -1;
    std::filesystem::path path_;
};

}  // namespace

ProcessResult run_process(const std::filesystem::path& program, const std::vector<std::string>& args,
                          const ProcessOptions& options) {
    TempFile in, out, err;
    if (options.input) {
        const std::string& bytes = *options.input;
        for (std::size_t done = 0; done < bytes.size();) {
            const ssize_t n = ::write(in.fd(), bytes.data() + done, bytes.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) throw std::runtime_error("cannot write a temporary file: " + std::string(std::strerror(errno)));
            done += static_cast<std::size_t>(n);
        }
        ::lseek(in.fd(), 0, SEEK_SET);
    }

    const std::string path = program.string();
    std::vector<char*> argv{const_cast<char*>(path.c_str())};
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);

    // Our environment (unless clean_env), with options.env replacing or adding variables.
    std::vector<std::string> env_strings;
    for (char** e = options.clean_env ? nullptr : environ; e != nullptr && *e != nullptr; ++e) {
        const std::string entry = *e;
        const std::string name = entry.substr(0, entry.find('='));
        bool replaced = false;
        for (const auto& [key, value] : options.env) replaced = replaced || key == name;
        if (!replaced) env_strings.push_back(entry);
    }
    for (const auto& [key, value] : options.env) env_strings.push_back(key + "=" + value);
    std::vector<char*> envp;
    for (std::string& entry : env_strings) envp.push_back(entry.data());
    envp.push_back(nullptr);

    // fork + exec rather than posix_spawn: the child sets its folder and limits first. Everything it
    // needs is ready before the fork; between fork and exec it calls async-signal-safe functions only.
    // An exec (or chdir, setrlimit) failure comes back through a close-on-exec pipe as its errno.
    const std::string dir = options.working_dir.string();
    int failure[2];
    if (::pipe2(failure, O_CLOEXEC) != 0) throw std::runtime_error("cannot make a pipe: " + std::string(std::strerror(errno)));
    const int in_fd = options.input ? in.fd() : -1;
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(failure[0]);
        ::close(failure[1]);
        throw std::runtime_error("cannot run " + path + ": fork: " + std::strerror(errno));
    }
    if (pid == 0) {
        const auto fail = [&](int code) {
            [[maybe_unused]] const ssize_t n = ::write(failure[1], &code, sizeof code);
            ::_exit(127);
        };
        const int stdin_fd = in_fd >= 0 ? in_fd : ::open("/dev/null", O_RDONLY);
        if (stdin_fd < 0 || ::dup2(stdin_fd, 0) < 0 || ::dup2(out.fd(), 1) < 0 || ::dup2(err.fd(), 2) < 0) fail(errno);
        if (!dir.empty() && ::chdir(dir.c_str()) != 0) fail(errno);
        for (const ResourceLimit& limit : options.rlimits) {
            const struct rlimit value{static_cast<rlim_t>(limit.soft), static_cast<rlim_t>(limit.hard)};
            if (::setrlimit(limit.resource, &value) != 0) fail(errno);
        }
        ::execve(path.c_str(), argv.data(), envp.data());
        fail(errno);
    }
    ::close(failure[1]);
    int child_errno = 0;
    ssize_t got = 0;
    do got = ::read(failure[0], &child_errno, sizeof child_errno);
    while (got < 0 && errno == EINTR);
    ::close(failure[0]);
    if (got == static_cast<ssize_t>(sizeof child_errno)) {
        int ignored = 0;
        while (::waitpid(pid, &ignored, 0) < 0 && errno == EINTR) {}
        throw std::runtime_error("cannot run " + path + ": " + std::strerror(child_errno) +
                                 (dir.empty() ? "" : " (in " + dir + ")") + " (build it with: cmake --build build)");
    }
    ProcessResult result;
    int status = 0;
    struct rusage usage{};
    const auto start = std::chrono::steady_clock::now();
    while (true) {
        const pid_t done = ::wait4(pid, &status, options.timeout_seconds > 0 ? WNOHANG : 0, &usage);
        if (done == pid) break;
        if (done < 0 && errno != EINTR) throw std::runtime_error("waiting for " + path + ": " + std::strerror(errno));
        if (done == 0) {  // still running (WNOHANG)
            const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (elapsed > options.timeout_seconds && !result.timed_out) {
                ::kill(pid, SIGKILL);
                result.timed_out = true;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }
    const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
    result.cpu_seconds = seconds(usage.ru_utime) + seconds(usage.ru_stime);
    result.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + result.signal;
    result.out = out.read();
    result.err = err.read();
    return result;
}

std::filesystem::path executable_dir(const char* argv0) {
    std::error_code ec;
    const std::filesystem::path self = executable_path(ec);
    if (!ec) return self.parent_path();
    return std::filesystem::absolute(argv0, ec).parent_path();
}

TempFolder::TempFolder(const std::string& prefix) {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr)
        throw std::runtime_error("cannot create a temporary folder " + pattern + ": " + std::strerror(errno));
    path_ = pattern;
}

TempFolder::~TempFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

}  // namespace llmfs
