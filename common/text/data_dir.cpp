#include "llmfs/text/data_dir.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <openssl/evp.h>

#if defined(__APPLE__)
#include <cstdint>

#include <mach-o/dyld.h>
#endif

#ifndef LLMFS_SOURCE_DATA_DIR
#error "LLMFS_SOURCE_DATA_DIR must name the source tree's data/ directory (set by common/CMakeLists.txt)"
#endif

namespace fs = std::filesystem;

namespace llmfs {

namespace {

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

}  // namespace

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

std::ifstream open_checked(const fs::path& path, std::string_view hint) {
    const auto fail = [&](const std::string& why) {
        std::string message = "cannot open " + path.string() + " for reading: " + why;
        if (!hint.empty()) {
            message += "; " + std::string(hint);
        }
        throw std::runtime_error(message);
    };
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        fail("it is a directory");
    }
    errno = 0;
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        fail(errno != 0 ? std::strerror(errno) : "unknown error");
    }
    return file;
}

std::string read_file_checked(const fs::path& path, std::string_view hint) {
    std::ifstream file = open_checked(path, hint);
    std::string bytes{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
    if (file.bad()) {
        throw std::runtime_error("error while reading " + path.string());
    }
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
