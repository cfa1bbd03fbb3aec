// Where llmfs finds its data files (the GPT-2 vocabulary, ...) and how it opens them.
//
//   data_dir()                       -> the data directory, e.g. <source tree>/data
//   open_checked(path)               -> an open std::ifstream, or a std::runtime_error naming path
//   read_file_checked(path)          -> the whole file as bytes
//   read_verified_file(dir, "x")     -> dir/x, after checking its SHA-256 against dir/SHA256SUMS
//   sha256_hex(bytes)                -> lowercase hex SHA-256 (OpenSSL)
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace llmfs {

// What to tell a user whose data file is missing or damaged.
inline constexpr std::string_view kDataDirHint =
    "set LLMFS_DATA_DIR to the directory holding gpt2/encoder.json (the data/ directory of the "
    "llmfs source tree, or <prefix>/share/llmfs of an installed llmfs)";

// The data directory, the first of:
//   1. $LLMFS_DATA_DIR, if set and not empty (a std::runtime_error naming it if it does not exist);
//   2. <directory of the running executable>/../share/llmfs, if it exists (an installed llmfs:
//      the executable is <prefix>/bin/..., the data <prefix>/share/llmfs/...);
//   3. the source tree's data/ directory, compiled in (so build trees need no installation).
std::filesystem::path data_dir();

// Opens `path` for binary reading, like llm.c's fopenCheck: on failure throws a std::runtime_error
// saying which file could not be opened, why, and `hint` (what the user can do about it).
std::ifstream open_checked(const std::filesystem::path& path, std::string_view hint = kDataDirHint);

// The whole content of `path`, read in binary; errors as open_checked's.
std::string read_file_checked(const std::filesystem::path& path, std::string_view hint = kDataDirHint);

// Lowercase hexadecimal SHA-256 digest of `bytes` (OpenSSL's EVP API).
std::string sha256_hex(std::string_view bytes);

// The content of dir/name, after checking that its SHA-256 is the one `dir/SHA256SUMS` lists for
// `name` (the format of `sha256sum`: "<64 hex digits>  <name>" per line). A missing file, a name
// SHA256SUMS does not list, or a different hash is a std::runtime_error naming the file.
std::string read_verified_file(const std::filesystem::path& dir, const std::string& name);

}  // namespace llmfs
