// Large parameter tensors (the 124M model's weights are 652 MB) spend most of their build time in
// page faults on first touch. prefault() maps a fresh buffer's pages in up front, from two
// threads and with transparent huge pages where the kernel offers them; it changes no values.
#pragma once

#include <cstddef>

namespace llmfs {

// Best effort: on kernels without MADV_POPULATE_WRITE it does nothing; outside Linux it is a no-op.
void prefault(void* data, std::size_t bytes);

}  // namespace llmfs
