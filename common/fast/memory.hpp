// Large parameter tensors (the 124M model's weights are 652 MB) spend most of their build time in
// page faults on first touch, and a decoding step streams them all. prefault() maps a fresh
// buffer's pages in up front, from two threads and in transparent huge pages where the kernel offers
// them (fewer faults, and faster streaming); it changes no values.
#pragma once

#include <cstddef>
#include <optional>

#include "llmfs/fast/settings.hpp"

namespace llmfs {

// Freed memory goes back to the system by default when a block is large (glibc unmaps every block
// over 32 MB), so the next tensor of that size faults every page in again. The attention scores of
// 8 x 12 heads x 1024 x 1024 are 400 MB, made and freed several times per forward pass: page faults
// were 90% of the chapter-3 class's time (llmfs-bench mha: 10.1 s, then 1.1 s). Called once at the
// start of every program (run_chapter, run_tool): glibc keeps freed blocks for reuse (a program's
// memory then stays at its peak until it exits, which the peak RSS counts anyway); elsewhere
// (macOS's allocator, musl) a no-op. It changes no values, only where tensors live. On Linux it also
// lets prefault() ask for huge pages over the heap's blocks and the heap beyond them (memory.cpp).
void reuse_freed_memory();

// Best effort: on kernels without MADV_POPULATE_WRITE it only advises huge pages; on kernels without
// transparent huge pages, only populates; outside Linux it is a no-op. For blocks of 1 MB and more.
// Whether it asks for 2 MB pages: see HugePages.
void prefault(void* data, std::size_t bytes);

// Whether prefault() asks for 2 MB pages. They stream faster (a decoding step's products read 92%
// of the bandwidth bound in 2 MB pages, 86% in 4 KB ones), but a fresh 2 MB page is not always
// cheap to fault in: in a VM whose host takes back the guest's free memory (virtio-balloon's free
// page reporting, as on the development VM), free memory left unused for a few seconds comes back
// from the host at 0.2 to 0.4 GB/s when it is taken 2 MB at a time, where 4 KB pages, taken from
// smaller free pieces, come at once (the 124M model's 650 MB: 0.8 to 1.5 s in 2 MB pages, 0.15 to
// 0.35 s in 4 KB pages; `ch04_gpt` ran 1.5 s against 0.7). So by default (automatic) prefault()
// asks for 2 MB pages and times them as they come in, 16 MB at a time on each thread: once a piece
// comes in slower than 2 GB/s, the rest of the process gets 4 KB pages (memory.cpp).
// LLMFS_HUGE_PAGES=auto|on|off sets it for a process, and a program may choose with
// set_huge_pages() (llmfs-bench asks for 2 MB pages: it measures the decode, not the start).
using HugePages = AutoOnOff;

// LLMFS_HUGE_PAGES if set (auto, on or off), else HugePages::automatic. Throws std::invalid_argument
// for any other value.
HugePages huge_pages_from_environment();

// What prefault() does from now on in this process (by default, huge_pages_from_environment(), read
// at the first prefault() of a block worth it); automatic starts watching afresh. Thread-safe.
void set_huge_pages(HugePages mode);

// The rate below which the automatic choice finds 2 MB pages slow to come in: 2 GB/s a thread
// unless set. For tests, which make every piece slow (or none) to follow both ways. Thread-safe.
void set_huge_pages_slow_below(double bytes_per_second);

// Whether prefault() now asks for 2 MB pages: always with on, never with off, and with automatic
// until they came in slowly. For reports (llmfs-bench). False outside Linux, where prefault() does nothing.
bool huge_pages_in_use();

// The machine's physical memory in bytes (sysconf: Linux, macOS), or nothing where it cannot be
// asked. For refusing a model that could never fit before a single byte of it is allocated.
std::optional<double> physical_memory_bytes();

}  // namespace llmfs
