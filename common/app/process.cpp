#include "llmfs/app/process.hpp"
#include "llmfs/text/data_dir.hpp"

#include <fcntl.h>
#include <spawn.h>
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
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (options.input) {
        const std::string& bytes = *options.input;
        for (std::size_t done = 0; done < bytes.size();) {
            const ssize_t n = ::write(in.fd(), bytes.data() + done, bytes.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) throw std::runtime_error("cannot write a temporary file: " + std::string(std::strerror(errno)));
            done += static_cast<std::size_t>(n);
        }
        ::lseek(in.fd(), 0, SEEK_SET);
        posix_spawn_file_actions_adddup2(&actions, in.fd(), 0);
    } else {
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    }
    posix_spawn_file_actions_adddup2(&actions, out.fd(), 1);
    posix_spawn_file_actions_adddup2(&actions, err.fd(), 2);

    const std::string path = program.string();
    std::vector<char*> argv{const_cast<char*>(path.c_str())};
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);

    // Our environment, with options.env replacing or adding variables.
    std::vector<std::string> env_strings;
    for (char** e = environ; *e != nullptr; ++e) {
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

    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, path.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
        throw std::runtime_error("cannot run " + path + ": " + std::strerror(spawned) +
                                 " (build it with: cmake --build build)");
    }
    ProcessResult result;
    int status = 0;
    const auto start = std::chrono::steady_clock::now();
    while (true) {
        const pid_t done = ::waitpid(pid, &status, options.timeout_seconds > 0 ? WNOHANG : 0);
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
