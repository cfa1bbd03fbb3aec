// A checkpoint file's bytes, read-only: memory-mapped where POSIX mmap exists (no copy; the pages
// are the page cache's), else read into memory; or bytes given in memory (tests, fuzzing). The
// readers of nn/safetensors and nn/torch_save take their views of tensors from it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace llmfs {

class MappedFile {
public:
    // Maps `path`. Throws std::runtime_error "PATH: cannot open: no such file; HINT" (also: it is a
    // directory, not a regular file (a FIFO or a device is never opened), cannot map).
    static MappedFile open(const std::filesystem::path& path, const std::string& hint);
    static MappedFile from_bytes(std::string bytes);

    MappedFile(MappedFile&&) noexcept;
    MappedFile& operator=(MappedFile&&) noexcept;
    ~MappedFile();

    const unsigned char* data() const { return data_; }  // page-aligned when mapped
    std::uint64_t size() const { return size_; }

private:
    struct Storage;
    explicit MappedFile(std::unique_ptr<Storage> storage);
    std::unique_ptr<Storage> storage_;
    const unsigned char* data_ = nullptr;
    std::uint64_t size_ = 0;
};

}  // namespace llmfs
