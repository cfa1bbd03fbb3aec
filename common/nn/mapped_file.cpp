#include "llmfs/nn/mapped_file.hpp"

#include <cstring>
#include <fstream>
#include <stdexcept>
#include <utility>

#if defined(__unix__) || defined(__APPLE__)
#define LLMFS_HAVE_MMAP 1
#include <cerrno>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace llmfs {

namespace {
[[noreturn]] void fail(const std::string& file, const std::string& what, const std::string& hint) {
    throw std::runtime_error(file + ": " + what + "; " + hint);
}
}  // namespace

struct MappedFile::Storage {
    std::string owned;  // from_bytes, a short file, or the portable fallback's read
#ifdef LLMFS_HAVE_MMAP
    void* map = nullptr;
    std::size_t map_size = 0;
#endif
    const unsigned char* data() const {
#ifdef LLMFS_HAVE_MMAP
        if (map != nullptr) return static_cast<const unsigned char*>(map);
#endif
        return reinterpret_cast<const unsigned char*>(owned.data());
    }
    std::uint64_t size() const {
#ifdef LLMFS_HAVE_MMAP
        if (map != nullptr) return map_size;
#endif
        return owned.size();
    }
    ~Storage() {
#ifdef LLMFS_HAVE_MMAP
        if (map != nullptr) ::munmap(map, map_size);
#endif
    }
};

MappedFile::MappedFile(std::unique_ptr<Storage> storage) : storage_(std::move(storage)), data_(storage_->data()), size_(storage_->size()) {}
MappedFile::MappedFile(MappedFile&&) noexcept = default;
MappedFile& MappedFile::operator=(MappedFile&&) noexcept = default;
MappedFile::~MappedFile() = default;

MappedFile MappedFile::from_bytes(std::string bytes) {
    auto storage = std::make_unique<Storage>();
    storage->owned = std::move(bytes);
    return MappedFile(std::move(storage));
}

MappedFile MappedFile::open(const std::filesystem::path& path, const std::string& hint) {
    const std::string name = path.string();
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) fail(name, "cannot open: no such file", hint);
    if (std::filesystem::is_directory(status)) fail(name, "cannot open: it is a directory", "give the checkpoint file inside it");
    // Not a FIFO or a device: opening a FIFO would wait for a writer.
    if (!std::filesystem::is_regular_file(status)) fail(name, "cannot open: not a regular file", hint);
    auto storage = std::make_unique<Storage>();
#ifdef LLMFS_HAVE_MMAP
    const int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail(name, std::string("cannot open: ") + std::strerror(errno), hint);
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        fail(name, "cannot open: not a regular file", hint);
    }
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size >= 8) {  // mmap of 0 bytes fails; a short file is read (the format's reader reports it)
#ifdef MAP_POPULATE
        constexpr int kPopulate = MAP_POPULATE;  // map every page now: one call, not a fault per page
#else
        constexpr int kPopulate = 0;
#endif
        void* map = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE | kPopulate, fd, 0);
        if (map == MAP_FAILED) {
            const int err = errno;
            ::close(fd);
            fail(name, std::string("cannot map the file into memory: ") + std::strerror(err), "is there enough address space?");
        }
        storage->map = map;
        storage->map_size = static_cast<std::size_t>(size);
    } else {
        storage->owned.resize(static_cast<std::size_t>(size));
        if (size > 0 && ::read(fd, storage->owned.data(), storage->owned.size()) != static_cast<ssize_t>(size)) {
            ::close(fd);
            fail(name, "cannot read the file", hint);
        }
    }
    ::close(fd);
#else
    // No mmap: one read of the whole file into memory.
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(name, "cannot open", hint);
    in.seekg(0, std::ios::end);
    const auto size = static_cast<std::size_t>(in.tellg());
    in.seekg(0);
    storage->owned.resize(size);
    if (!in.read(storage->owned.data(), static_cast<std::streamsize>(size))) fail(name, "cannot read the file", hint);
#endif
    return MappedFile(std::move(storage));
}

}  // namespace llmfs
