// Large parameter tensors (the 124M model's weights are 652 MB) spend most of their build time in
// page faults on first touch, and a decoding step streams them all. prefault() maps a fresh
// buffer's pages in up front, from two threads and in transparent huge pages where the kernel offers
// them (fewer faults, and faster streaming); it changes no values.
#pragma once

#include <cstddef>

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
void prefault(void* data, std::size_t bytes);

}  // namespace llmfs
