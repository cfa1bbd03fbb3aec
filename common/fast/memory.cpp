#include "llmfs/fast/memory.hpp"

#include <cstdlib>  // defines __GLIBC__ where glibc is the C library
#include <mutex>
#include <optional>

#ifdef __GLIBC__
#include <malloc.h>
#endif
#if __has_include(<unistd.h>)
#include <unistd.h>  // sysconf
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

namespace {
std::mutex huge_pages_mutex;
std::optional<HugePages> huge_pages_mode;  // set_huge_pages(), else the environment, read once
bool huge_pages_slow = false;              // automatic: a piece was slow (with huge_pages_mutex)
double slow_below = 2e9;                   // bytes/s a thread: slower is slow (set_huge_pages_slow_below)
}  // namespace

HugePages huge_pages_from_environment() {
    return auto_on_off_from_environment("LLMFS_HUGE_PAGES", "2 MB pages while they fault in fast");
}

void set_huge_pages(HugePages mode) {
    const std::lock_guard<std::mutex> lock(huge_pages_mutex);
    huge_pages_mode = mode;
    huge_pages_slow = false;
}

void set_huge_pages_slow_below(double bytes_per_second) {
    const std::lock_guard<std::mutex> lock(huge_pages_mutex);
    slow_below = bytes_per_second;
}

std::optional<double> physical_memory_bytes() {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) return static_cast<double>(pages) * static_cast<double>(page);
#endif
    return std::nullopt;
}

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

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

namespace llmfs {

namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
// HugePages::automatic watches 2 MB pages fault in, piece by piece, and gives them up for the rest of
// the process once a piece of at least one 2 MB page comes in slower than slow_below (2 GB/s) on
// its thread. On the development VM 2 MB pages fault in at 4 to 10 GB/s a thread where the memory
// was in use a moment before and at 0.2 to 0.4 GB/s where the host had taken it back (memory.hpp);
// a machine without such a host zeroes memory faster than 2 GB/s. Back to back, the 124M model got
// its weights 97% in 2 MB pages after a run that had freed such pages, 10 to 60% after runs that
// had freed fewer; started cold, in 4 KB pages but for the first piece.
constexpr std::uintptr_t kPieceBytes = std::uintptr_t{16} << 20;

// Whether prefault() asks for 2 MB pages now (with huge_pages_mutex held).
bool huge_pages_now() {
    if (!huge_pages_mode) huge_pages_mode = huge_pages_from_environment();
    switch (*huge_pages_mode) {
    case HugePages::on: return true;
    case HugePages::off: return false;
    case HugePages::automatic: return !huge_pages_slow;
    }
    return true;
}

// Runs fill(begin, middle) on this thread and fill(middle, end) on a second one: page faults are
// the kernel's work, and two threads zero pages about twice as fast as one.
template <class Fill>
void on_two_threads(std::uintptr_t begin, std::uintptr_t middle, std::uintptr_t end, const Fill& fill) {
    std::thread second([&] { fill(middle, end); });
    fill(begin, middle);
    second.join();
}

// Faults in [begin, end) with MADV_POPULATE_WRITE, whatever pages it was advised.
void populate(std::uintptr_t begin, std::uintptr_t end, std::uintptr_t page) {
    on_two_threads(begin, begin + (end - begin) / 2 / page * page, end, [](std::uintptr_t from, std::uintptr_t to) {
        madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE);
    });
}

// The same, in pieces that end on 2 MB boundaries (so a 2 MB page is never cut), each timed: false
// as soon as a piece holding a whole 2 MB page is slow, the rest then left as it was.
bool populate_watched(std::uintptr_t begin, std::uintptr_t end) {
    std::atomic<bool> slow{false};
    const auto fill = [&slow](std::uintptr_t from, std::uintptr_t to) {
        while (from < to && !slow.load()) {
            const std::uintptr_t next = std::min(to, (from + kPieceBytes) / kHugePage * kHugePage);
            const std::uintptr_t piece_end = next > from ? next : to;
            const auto start = std::chrono::steady_clock::now();
            if (madvise(reinterpret_cast<void*>(from), piece_end - from, MADV_POPULATE_WRITE) != 0)
                return;  // not on this kernel: the pages fault in on first touch, as they would anyway
            const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
            const bool whole_huge_page = (from + kHugePage - 1) / kHugePage * kHugePage + kHugePage <= piece_end;
            if (whole_huge_page && static_cast<double>(piece_end - from) < slow_below * seconds.count())
                slow.store(true);
            from = piece_end;
        }
    };
    on_two_threads(begin, std::max(begin, (begin + (end - begin) / 2) / kHugePage * kHugePage), end, fill);
    return !slow.load();
}

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
//
// Without huge pages (HugePages), the same ranges are advised MADV_NOHUGEPAGE: 4 KB pages even where
// the system gives huge pages unasked, and none for the blocks to come, earlier advice undone.
void advise_pages(void* data, std::uintptr_t begin, std::uintptr_t end, std::uintptr_t page, int advice) {
#ifdef __GLIBC__
    const auto block = reinterpret_cast<std::uintptr_t>(data);
    const auto top = reinterpret_cast<std::uintptr_t>(sbrk(0));
    const auto first = block / page * page;
    if (heap_grows_in_big_steps.load() && block >= reinterpret_cast<std::uintptr_t>(&::end) && end <= top &&
        first + page < top) {
        madvise(reinterpret_cast<void*>(first), top - page - first, advice);
        return;
    }
#endif
    madvise(reinterpret_cast<void*>(begin), end - begin, advice);
}

}  // namespace

void prefault(void* data, std::size_t bytes) {
    constexpr std::size_t kWorthIt = std::size_t{1} << 20;  // below this, first touch is cheap enough
    if (bytes < kWorthIt) return;
    const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto begin = (reinterpret_cast<std::uintptr_t>(data) + page - 1) / page * page;
    const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) / page * page;
    if (end <= begin) return;
    const std::lock_guard<std::mutex> lock(huge_pages_mutex);  // one block at a time: the choice is the process's
    if (!huge_pages_now()) {
        advise_pages(data, begin, end, page, MADV_NOHUGEPAGE);
        populate(begin, end, page);
        return;
    }
    advise_pages(data, begin, end, page, MADV_HUGEPAGE);
    if (*huge_pages_mode == HugePages::on) {
        populate(begin, end, page);
        return;
    }
    if (populate_watched(begin, end)) return;
    // 2 MB pages came in slowly: 4 KB pages for the rest of this block and every block after it (the
    // pages already in stay as they are; populating them again only walks their page tables).
    huge_pages_slow = true;
    advise_pages(data, begin, end, page, MADV_NOHUGEPAGE);
    populate(begin, end, page);
}

bool huge_pages_in_use() {
    const std::lock_guard<std::mutex> lock(huge_pages_mutex);
    return huge_pages_now();
}

}  // namespace llmfs

#else  // macOS and other systems: no such hints; pages fault in on first touch, as they would anyway.

namespace llmfs {

void prefault(void*, std::size_t) {}

bool huge_pages_in_use() { return false; }

}  // namespace llmfs

#endif
