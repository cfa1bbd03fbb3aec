#include "llmfs/fast/memory.hpp"

#include <cstdlib>  // defines __GLIBC__ where glibc is the C library

#ifdef __GLIBC__
#include <malloc.h>
#endif

#if defined(__linux__) && defined(__GLIBC__)
#include <atomic>
#include <cstdint>

#include <unistd.h>

extern "C" char end;  // the first address past the program's data (man 3 end): the heap lies above it

namespace llmfs {
namespace {
// Set by reuse_freed_memory(): glibc's main heap, between `end` and the program break, holds every
// block since, and grows in big steps.
std::atomic<bool> heap_grows_in_big_steps{false};
}  // namespace
}  // namespace llmfs
#endif

namespace llmfs {

void reuse_freed_memory() {
#ifdef __GLIBC__
    mallopt(M_MMAP_MAX, 0);         // every block from the heap, none mapped on its own...
    mallopt(M_TRIM_THRESHOLD, -1);  // ...and freed heap kept for reuse: the process stays at its peak
#endif
#if defined(__linux__) && defined(__GLIBC__)
    // The heap grows in steps of at least 64 MB (address space only: nothing is touched, so the
    // resident size does not change), so that few 2 MB pages straddle two steps: see prefault().
    mallopt(M_TOP_PAD, 64 << 20);
    heap_grows_in_big_steps.store(true);
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

namespace {

// Asks for transparent huge pages (2 MB on x86-64) over [begin, end) of the block at data: in place of
// 4 KB pages, the TLB needs one entry for 512 pages and the prefetchers are not stopped at every 4 KB
// boundary. It counts when a decoding step streams its weights in the VM's fast moments: a step's
// products read 92% of the bandwidth bound in huge pages against 86% in 4 KB pages, alternated in
// one process at 73 GB/s (the same at 42 to 44 GB/s); `llmfs-bench variants --variant mha` read 79
// to 80% of its bound at 81 to 82 GB/s before, 85% at 80 GB/s after.
//
// A 2 MB page comes only where every page of its aligned 2 MB is in an advised range when the first
// of them is touched. A block from the heap begins and ends inside 2 MB that it shares with its
// neighbours, and malloc writes its bookkeeping just past the block when it hands it out, before
// this sees the block: advising the block alone left a quarter of the 124M model's weights in 4 KB
// pages (489 of the bench's 727 MB resident in huge pages; 653 of 729 now). So a block in the main
// heap advises everything from it to the top of the heap, the blocks to come included (a hint: for
// memory already touched it changes nothing). Not the last page: the heap's next step of brk then
// extends that last, unadvised, piece, which the next call advises whole, and the kernel merges it
// with the rest (a step appended to an advised piece would stay apart, its 2 MB across the seam in
// 4 KB pages: hence the 64 MB steps of reuse_freed_memory()). Elsewhere (a sanitizer's allocator,
// a program that did not call reuse_freed_memory()) the block's own whole pages only.
void advise_huge_pages(void* data, std::uintptr_t begin, std::uintptr_t end, std::uintptr_t page) {
#ifdef __GLIBC__
    const auto block = reinterpret_cast<std::uintptr_t>(data);
    const auto top = reinterpret_cast<std::uintptr_t>(sbrk(0));
    const auto first = block / page * page;
    if (heap_grows_in_big_steps.load() && block >= reinterpret_cast<std::uintptr_t>(&::end) && end <= top &&
        first + page < top) {
        madvise(reinterpret_cast<void*>(first), top - page - first, MADV_HUGEPAGE);
        return;
    }
#endif
    madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

}  // namespace

void prefault(void* data, std::size_t bytes) {
    constexpr std::size_t kWorthIt = std::size_t{1} << 20;  // below this, first touch is cheap enough
    if (bytes < kWorthIt) return;
    const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto begin = (reinterpret_cast<std::uintptr_t>(data) + page - 1) / page * page;
    const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) / page * page;
    if (end <= begin) return;
    advise_huge_pages(data, begin, end, page);
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
