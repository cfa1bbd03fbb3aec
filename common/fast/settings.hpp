// The fast paths' switch a user sets in the environment, auto, on or off:
//   LLMFS_HUGE_PAGES   prefault() asking for 2 MB pages, or not (memory.hpp: HugePages)
//   LLMFS_TRUNK_CACHE  chapter 6's frozen blocks kept per message, or not (train/frozen_trunk.hpp)
// It changes no printed number, only how fast it comes.
#pragma once

namespace llmfs {

enum class AutoOnOff { automatic, on, off };

// The value of the environment variable `variable`: unset or empty is automatic, else "auto", "on"
// or "off". Anything else (" on", "ON", "1") throws std::invalid_argument naming the variable and
// its value, the three choices, and `unset_means` (what automatic does, for the message's hint).
AutoOnOff auto_on_off_from_environment(const char* variable, const char* unset_means);

}  // namespace llmfs
