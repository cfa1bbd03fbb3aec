// Where llmfs finds its data files (the GPT-2 vocabulary, ...) and how it opens them.
//
//   data_dir()                       -> the data directory, e.g. <source tree>/data
//   open_checked(path)               -> an open std::ifstream, or a std::runtime_error naming path
//   read_file_checked(path)          -> the whole file as bytes (a regular file of sane size)
//   read_input(path or stdin, limit) -> what a user hands in, at most `limit` bytes
//   read_verified_file(dir, "x")     -> dir/x, after checking its SHA-256 against dir/SHA256SUMS
//   sha256_hex(bytes)                -> lowercase hex SHA-256 (OpenSSL)
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>

namespace llmfs {

// What to tell a user whose data file is missing or damaged.
inline constexpr std::string_view kDataDirHint =
    "set LLMFS_DATA_DIR to the directory holding gpt2/encoder.json (the data/ directory of the "
    "llmfs source tree, or <prefix>/share/llmfs of an installed llmfs)";

// The running executable (Linux's /proc/self/exe, macOS's _NSGetExecutablePath); elsewhere, or
// when it cannot be told, an empty path with `ec` set.
std::filesystem::path executable_path(std::error_code& ec);

// The data directory, the first of:
//   1. $LLMFS_DATA_DIR, if set and not empty (a std::runtime_error naming it if it does not exist);
//   2. <directory of the running executable>/../share/llmfs, if it exists (an installed llmfs:
//      the executable is <prefix>/bin/..., the data <prefix>/share/llmfs/...);
//   3. the source tree's data/ directory, compiled in (so build trees need no installation).
std::filesystem::path data_dir();

// The largest data file read_file_checked reads: GPT-2's encoder.json is 1 MB, vocab.bpe 456 kB.
inline constexpr std::uintmax_t kMaxDataFileBytes = std::uintmax_t{64} << 20;

// Opens `path` for binary reading, like llm.c's fopenCheck: on failure throws a std::runtime_error
// saying which file could not be opened, why, and `hint` (what the user can do about it). Only a
// regular file of at most `max_bytes` is opened: a directory, a FIFO (whose open() would wait for
// a writer forever), a device such as /dev/zero or an oversized file is refused the same way.
std::ifstream open_checked(const std::filesystem::path& path, std::string_view hint = kDataDirHint,
                           std::uintmax_t max_bytes = kMaxDataFileBytes);

// The whole content of `path`, read in binary; errors as open_checked's.
std::string read_file_checked(const std::filesystem::path& path, std::string_view hint = kDataDirHint,
                              std::uintmax_t max_bytes = kMaxDataFileBytes);

// What a user hands a tool: the bytes of `path` ("-" for standard input), of any kind of file a
// shell can give (a regular file, a pipe, <(...)), read up to `max_bytes`. Throws
// std::invalid_argument (bad input: exit 2) naming `what` when it cannot be read (no such file, a
// directory, a read error) or holds more than max_bytes (/dev/zero, say): "cannot read the notebook
// /dev/zero: it holds more than 128 MiB, the most a notebook may hold here".
std::string read_input(const std::string& path, std::uintmax_t max_bytes, std::string_view what);

// Lowercase hexadecimal SHA-256 digest of `bytes` (OpenSSL's EVP API).
std::string sha256_hex(std::string_view bytes);

// The content of dir/name, after checking that its SHA-256 is the one `dir/SHA256SUMS` lists for
// `name` (the format of `sha256sum`: "<64 hex digits>  <name>" per line). A missing file, a name
// SHA256SUMS does not list, or a different hash is a std::runtime_error naming the file.
std::string read_verified_file(const std::filesystem::path& dir, const std::string& name);

}  // namespace llmfs
