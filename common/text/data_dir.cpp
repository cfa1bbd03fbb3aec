#include "llmfs/text/data_dir.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#if defined(__APPLE__)
#include <cstdint>

#include <mach-o/dyld.h>
#endif

#ifndef LLMFS_SOURCE_DATA_DIR
#error "LLMFS_SOURCE_DATA_DIR must name the source tree's data/ directory (set by common/CMakeLists.txt)"
#endif

namespace fs = std::filesystem;

namespace llmfs {

// The running executable: Linux's /proc/self/exe, macOS's _NSGetExecutablePath; elsewhere an error
// (and data_dir() skips the installed location).
fs::path executable_path(std::error_code& ec) {
#if defined(__APPLE__)
    std::uint32_t size = 0;
    _NSGetExecutablePath(nullptr, &size);  // asks for the size
    std::string buffer(size, '\0');
    if (_NSGetExecutablePath(buffer.data(), &size) != 0) {
        ec = std::make_error_code(std::errc::no_such_file_or_directory);
        return {};
    }
    return fs::canonical(buffer.c_str(), ec);
#else
    return fs::read_symlink("/proc/self/exe", ec);
#endif
}

fs::path data_dir() {
    if (const char* env = std::getenv("LLMFS_DATA_DIR"); env != nullptr && *env != '\0') {
        const fs::path dir(env);
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) {
            throw std::runtime_error("LLMFS_DATA_DIR is set to \"" + std::string(env) +
                                     "\", which is not an existing directory; point it at the "
                                     "directory holding gpt2/encoder.json, or unset it");
        }
        return dir;
    }
    std::error_code ec;
    const fs::path exe = executable_path(ec);
    if (!ec) {
        const fs::path installed = (exe.parent_path() / ".." / "share" / "llmfs").lexically_normal();
        if (fs::is_directory(installed, ec)) {
            return installed;
        }
    }
    return fs::path(LLMFS_SOURCE_DATA_DIR);
}

std::ifstream open_checked(const fs::path& path, std::string_view hint, std::uintmax_t max_bytes) {
    const auto fail = [&](const std::string& why) {
        std::string message = "cannot open " + path.string() + " for reading: " + why;
        if (!hint.empty()) {
            message += "; " + std::string(hint);
        }
        throw std::runtime_error(message);
    };
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) fail(ec ? ec.message() : "no such file");
    if (fs::is_directory(status)) fail("it is a directory");
    if (!fs::is_regular_file(status)) fail("it is not a regular file (a pipe, a device or a socket)");
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec) fail(ec.message());
    if (size > max_bytes) {
        fail("it holds " + std::to_string(size) + " bytes, more than the " + std::to_string(max_bytes) +
             " a file of this kind can sensibly hold");
    }
    errno = 0;
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        fail(errno != 0 ? std::strerror(errno) : "unknown error");
    }
    return file;
}

std::string read_file_checked(const fs::path& path, std::string_view hint, std::uintmax_t max_bytes) {
    std::ifstream file = open_checked(path, hint, max_bytes);
    std::string bytes{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
    if (file.bad()) {
        throw std::runtime_error("error while reading " + path.string());
    }
    return bytes;
}

std::string read_input(const std::string& path, std::uintmax_t max_bytes, std::string_view what) {
    const bool from_stdin = path == "-";
    const std::string source = std::string(what) + (from_stdin ? " from standard input" : " " + path);
    const auto fail = [&](const std::string& why) { throw std::invalid_argument("cannot read the " + source + ": " + why); };
    int fd = STDIN_FILENO;
    if (!from_stdin) {
        std::error_code ec;
        if (fs::is_directory(path, ec)) fail("it is a directory");
        fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) fail(std::strerror(errno));
    }
    std::string bytes;
    char buffer[1 << 16];
    int error = 0;
    while (true) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            error = errno;  // EISDIR for a directory on standard input (< /tmp)
            break;
        }
        if (n == 0) break;
        if (bytes.size() + static_cast<std::size_t>(n) > max_bytes) {
            if (!from_stdin) ::close(fd);
            fail("it holds more than " + std::to_string(max_bytes >> 20) + " MiB, the most a " + std::string(what) +
                 " may hold here");
        }
        bytes.append(buffer, static_cast<std::size_t>(n));
    }
    if (!from_stdin) ::close(fd);
    if (error != 0) fail(error == EISDIR ? "it is a directory" : std::strerror(error));
    return bytes;
}

std::string sha256_hex(std::string_view bytes) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
        throw std::runtime_error("OpenSSL failed to compute a SHA-256 digest");
    }
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(2 * length);
    for (unsigned int i = 0; i < length; ++i) {
        hex += kHex[digest[i] >> 4];
        hex += kHex[digest[i] & 0xF];
    }
    return hex;
}

std::string read_verified_file(const fs::path& dir, const std::string& name) {
    const fs::path sums_path = dir / "SHA256SUMS";
    const std::string sums = read_file_checked(sums_path);

    // sha256sum's line format: the digest, a space, then ' ' (text mode) or '*' (binary mode),
    // then the file name.
    std::string expected;
    std::istringstream lines(sums);
    for (std::string line; std::getline(lines, line);) {
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        if (line.size() > 66 && line[64] == ' ' && (line[65] == ' ' || line[65] == '*') &&
            line.compare(66, std::string::npos, name) == 0) {
            expected = line.substr(0, 64);
            for (char& c : expected) {
                c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            }
            break;
        }
    }
    if (expected.empty()) {
        throw std::runtime_error(sums_path.string() + " lists no SHA-256 for " + name +
                                 "; restore the file from the llmfs source tree (data/" +
                                 dir.filename().string() + "/SHA256SUMS)");
    }

    const fs::path path = dir / name;
    std::string bytes = read_file_checked(path);
    const std::string actual = sha256_hex(bytes);
    if (actual != expected) {
        throw std::runtime_error(path.string() + " is corrupt: its SHA-256 is " + actual + " but " +
                                 sums_path.string() + " expects " + expected +
                                 "; restore the file from the llmfs source tree (data/" +
                                 dir.filename().string() + "/" + name + ")");
    }
    return bytes;
}

}  // namespace llmfs
