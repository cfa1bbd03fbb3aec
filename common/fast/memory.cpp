#include "llmfs/fast/memory.hpp"

#include <cstdlib>  // defines __GLIBC__ where glibc is the C library

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace llmfs {

void reuse_freed_memory() {
#ifdef __GLIBC__
    mallopt(M_MMAP_MAX, 0);         // every block from the heap, none mapped on its own...
    mallopt(M_TRIM_THRESHOLD, -1);  // ...and freed heap kept for reuse: the process stays at its peak
#endif
}

}  // namespace llmfs

#ifdef __linux__

#include <cstdint>
#include <thread>

#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

namespace llmfs {

void prefault(void* data, std::size_t bytes) {
    constexpr std::size_t kWorthIt = std::size_t{1} << 20;  // below this, first touch is cheap enough
    if (bytes < kWorthIt) return;
    const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto begin = (reinterpret_cast<std::uintptr_t>(data) + page - 1) / page * page;
    const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) / page * page;
    if (end <= begin) return;
    madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
    const auto middle = begin + (end - begin) / 2 / page * page;
    std::thread second([=] { madvise(reinterpret_cast<void*>(middle), end - middle, MADV_POPULATE_WRITE); });
    madvise(reinterpret_cast<void*>(begin), middle - begin, MADV_POPULATE_WRITE);
    second.join();
}

}  // namespace llmfs

#else  // macOS and other systems: no such hints; pages fault in on first touch, as they would anyway.

namespace llmfs {

void prefault(void*, std::size_t) {}

}  // namespace llmfs

#endif
