// The fast paths' switches a user sets in the environment, each auto, on or off:
//   LLMFS_PREFETCH    gemv's row loop prefetching W ahead, or not (kernels.hpp: Prefetch)
//   LLMFS_HUGE_PAGES  prefault() asking for 2 MB pages, or not (memory.hpp: HugePages)
// Neither changes a printed number, only how fast it comes.
#pragma once

namespace llmfs {

enum class AutoOnOff { automatic, on, off };

// The value of the environment variable `variable`: unset or empty is automatic, else "auto", "on"
// or "off". Anything else (" on", "ON", "1") throws std::invalid_argument naming the variable and
// its value, the three choices, and `unset_means` (what automatic does, for the message's hint).
AutoOnOff auto_on_off_from_environment(const char* variable, const char* unset_means);

}  // namespace llmfs
