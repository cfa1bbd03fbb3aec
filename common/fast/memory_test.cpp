// prefault() changes no values, and on Linux with glibc (after reuse_freed_memory(), as in every
// program) advises huge pages over the whole of each heap block, the 2 MB it shares with the blocks
// beside it included: the layout of a model's weights, big blocks with small ones between.
// LLMFS_HUGE_PAGES and set_huge_pages() choose between 2 MB and 4 KB pages, and the automatic
// choice is the one huge_pages_in_use() reports.
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "llmfs/fast/memory.hpp"
#include "test_support.hpp"

using llmfs::HugePages;
using llmfs::testing::EnvGuard;
using llmfs::prefault;

namespace {

#ifdef __linux__
// A mapping of this process, as /proc/self/smaps lists it.
struct Mapping {
    std::uintptr_t start = 0, end = 0;
    std::string name;
    bool huge_pages_advised = false;     // VmFlags has "hg" (MADV_HUGEPAGE)
    bool no_huge_pages_advised = false;  // VmFlags has "nh" (MADV_NOHUGEPAGE)
};

std::vector<Mapping> mappings() {
    std::ifstream smaps("/proc/self/smaps");
    std::vector<Mapping> out;
    for (std::string line; std::getline(smaps, line);) {
        if (line.rfind("VmFlags:", 0) == 0) {
            if (!out.empty()) {
                out.back().huge_pages_advised = (line + " ").find(" hg ") != std::string::npos;
                out.back().no_huge_pages_advised = (line + " ").find(" nh ") != std::string::npos;
            }
            continue;
        }
        std::istringstream fields(line);
        std::string range, perms, offset, dev, inode, name;
        if (!(fields >> range >> perms >> offset >> dev >> inode)) continue;
        const auto dash = range.find('-');
        if (dash == std::string::npos || range.find_first_not_of("0123456789abcdef-") != std::string::npos) continue;
        fields >> name;
        out.push_back({std::stoull(range.substr(0, dash), nullptr, 16), std::stoull(range.substr(dash + 1), nullptr, 16), name});
    }
    return out;
}

// Whether this system shows MADV_HUGEPAGE in /proc/self/smaps: qemu-user (the aarch64 tests) takes
// the advice and does nothing with it, and a kernel without transparent huge pages refuses it.
bool huge_page_advice_shows() {
    constexpr std::size_t kBytes = std::size_t{4} << 20;
    void* p = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return false;
    bool shows = false;
    if (madvise(p, kBytes, MADV_HUGEPAGE) == 0)
        for (const Mapping& m : mappings())
            shows = shows || (m.start <= reinterpret_cast<std::uintptr_t>(p) && reinterpret_cast<std::uintptr_t>(p) < m.end &&
                              m.huge_pages_advised);
    munmap(p, kBytes);
    return shows;
}

// Whether this kernel populates a range on request (MADV_POPULATE_WRITE, Linux 5.14): without it
// prefault() leaves pages to fault in on first touch, and nothing is timed.
bool populate_write_works() {
    constexpr int kPopulateWrite = 23;  // MADV_POPULATE_WRITE, for headers older than the kernel
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    void* p = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return false;
    const bool works = madvise(p, page, kPopulateWrite) == 0;
    munmap(p, page);
    return works;
}

// The advice over every page of [data, data + bytes): +1 all MADV_HUGEPAGE, -1 all MADV_NOHUGEPAGE,
// 0 mixed or neither.
int advice_over(const void* data, std::size_t bytes) {
    const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto first = (reinterpret_cast<std::uintptr_t>(data) + page - 1) / page * page;
    const auto last = (reinterpret_cast<std::uintptr_t>(data) + bytes) / page * page;
    bool all_huge = true, all_small = true;
    for (const Mapping& m : mappings())
        if (m.start < last && first < m.end) {
            all_huge = all_huge && m.huge_pages_advised;
            all_small = all_small && m.no_huge_pages_advised;
        }
    return all_huge ? 1 : all_small ? -1 : 0;
}

#endif

}  // namespace

TEST_CASE("prefault changes no values, whatever the block's size and alignment") {
    for (std::size_t floats : {std::size_t{1}, std::size_t{1000}, std::size_t{262'145}, std::size_t{3'000'001}}) {
        std::vector<float> x(floats);
        for (std::size_t i = 0; i < floats; ++i) x[i] = static_cast<float>(i % 977) * 0.5f;
        prefault(x.data() + 1, (floats - 1) * sizeof(float));  // not page-aligned at either end
        bool same = true;
        for (std::size_t i = 0; i < floats; ++i) same = same && x[i] == static_cast<float>(i % 977) * 0.5f;
        INFO(floats << " floats");
        CHECK(same);
    }
    prefault(nullptr, 0);  // nothing to do
}

TEST_CASE("heap blocks are advised huge pages whole, the 2 MB across their seams included") {
#if defined(__linux__) && defined(__GLIBC__)
    if (!huge_page_advice_shows()) {
        WARN("huge-page advice does not show in /proc/self/smaps here (no transparent huge pages, or qemu-user)");
        return;
    }
    llmfs::reuse_freed_memory();
    llmfs::set_huge_pages(HugePages::on);  // the layout of the advice, whatever an automatic choice would be here
    // One layer of the 124M model: Q, K, V and out_proj (768 x 768), fc1 and fc2 (3072 x 768), each
    // followed by a small block (a bias), allocated and prefaulted in that order.
    std::vector<std::unique_ptr<float[]>> blocks, small;
    std::vector<std::size_t> sizes;
    for (std::size_t floats : {768 * 768, 768 * 768, 768 * 768, 768 * 768, 3072 * 768, 768 * 3072}) {
        blocks.emplace_back(new float[floats]);
        sizes.push_back(floats * sizeof(float));
        small.emplace_back(new float[768]());
        prefault(blocks.back().get(), sizes.back());
    }
    const std::vector<Mapping> maps = mappings();
    const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        const auto first = reinterpret_cast<std::uintptr_t>(blocks[b].get()) / page * page;
        const auto last = (reinterpret_cast<std::uintptr_t>(blocks[b].get()) + sizes[b] + page - 1) / page * page;
        bool starts_in_heap = false, ends_in_heap = false;  // the heap is several mappings, once advised in part
        for (const Mapping& m : maps) {
            starts_in_heap = starts_in_heap || (m.name == "[heap]" && m.start <= first && first < m.end);
            ends_in_heap = ends_in_heap || (m.name == "[heap]" && m.start < last && last <= m.end);
        }
        if (!starts_in_heap || !ends_in_heap) {  // a sanitizer's allocator, say: prefault advises the block's own pages only
            WARN("block " << b << " is not in glibc's main heap: not checked");
            continue;
        }
        // Every page from the block's first to its last is in an advised mapping.
        std::uintptr_t covered = first;
        for (const Mapping& m : maps)
            if (m.start <= covered && covered < m.end && m.huge_pages_advised) covered = m.end;
        INFO("block " << b << " of " << sizes[b] << " bytes at " << blocks[b].get());
        CHECK(covered >= last);
    }
#else
    WARN("huge pages are advised on Linux with glibc only");
#endif
}

// The parsing itself: settings_test.cpp. Every platform reads the variable (only Linux acts on it).
TEST_CASE("LLMFS_HUGE_PAGES sets prefault's pages: unset is auto, then auto, on or off") {
    {
        const EnvGuard env("LLMFS_HUGE_PAGES", nullptr);
        CHECK(llmfs::huge_pages_from_environment() == HugePages::automatic);
    }
    {
        const EnvGuard env("LLMFS_HUGE_PAGES", "on");
        CHECK(llmfs::huge_pages_from_environment() == HugePages::on);
    }
    const EnvGuard env("LLMFS_HUGE_PAGES", "yes");
    CHECK_THROWS_WITH(llmfs::huge_pages_from_environment(), Catch::Contains("LLMFS_HUGE_PAGES=\"yes\"") &&
                                                                Catch::Contains("2 MB pages while they fault in fast"));
}

#ifdef __linux__
TEST_CASE("on and off advise 2 MB or 4 KB pages over the block, and automatic what huge_pages_in_use() reports") {
    if (!huge_page_advice_shows()) {
        WARN("huge-page advice does not show in /proc/self/smaps here (no transparent huge pages, or qemu-user)");
        return;
    }
    constexpr std::size_t kFloats = std::size_t{24} << 20;  // 96 MB: several pieces of the automatic watch
    for (const HugePages mode : {HugePages::off, HugePages::on, HugePages::automatic}) {
        llmfs::set_huge_pages(mode);
        std::vector<float> block(kFloats + 7);
        const float* data = block.data() + 7;
        prefault(block.data() + 7, kFloats * sizeof(float));
        INFO("mode " << static_cast<int>(mode));
        if (mode == HugePages::on) CHECK(llmfs::huge_pages_in_use());
        if (mode == HugePages::off) CHECK_FALSE(llmfs::huge_pages_in_use());
        // (automatic may have found 2 MB pages slow to come in here: then the block says so too)
        CHECK(advice_over(data, kFloats * sizeof(float)) == (llmfs::huge_pages_in_use() ? 1 : -1));
        bool zero = true;
        for (std::size_t i = 0; i < kFloats; i += 4096) zero = zero && data[i] == 0.0f;
        CHECK(zero);
    }
    llmfs::set_huge_pages(llmfs::huge_pages_from_environment());
}

TEST_CASE("automatic keeps 2 MB pages while they come in fast, and gives them up for the process at a slow piece") {
    if (!huge_page_advice_shows()) {
        WARN("huge-page advice does not show in /proc/self/smaps here (no transparent huge pages, or qemu-user)");
        return;
    }
    if (!populate_write_works()) {
        WARN("this kernel has no MADV_POPULATE_WRITE (before Linux 5.14): pages fault in on first touch, untimed");
        return;
    }
    // A fresh, untouched block, as a new tensor's, outside the heap: its own pages only are advised.
    // How fast pages come in is the machine's, so the threshold decides: none slow, then all slow.
    constexpr std::size_t kBytes = std::size_t{96} << 20;
    for (const bool slow : {false, true}) {
        INFO((slow ? "every piece slow" : "no piece slow"));
        llmfs::set_huge_pages(HugePages::automatic);
        llmfs::set_huge_pages_slow_below(slow ? 1e30 : 0.0);
        void* block = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        REQUIRE(block != MAP_FAILED);
        prefault(block, kBytes);
        CHECK(llmfs::huge_pages_in_use() == !slow);                // the choice, for the rest of the process
        CHECK(advice_over(block, kBytes) == (slow ? -1 : 1));      // the block advised accordingly
        std::vector<unsigned char> resident(kBytes / static_cast<std::size_t>(sysconf(_SC_PAGESIZE)));
        REQUIRE(mincore(block, kBytes, resident.data()) == 0);
        std::size_t in = 0;
        for (const unsigned char r : resident) in += r & 1u;
        CHECK(in == resident.size());                              // and populated whole, either way
        munmap(block, kBytes);
    }
    llmfs::set_huge_pages_slow_below(2e9);
    llmfs::set_huge_pages(llmfs::huge_pages_from_environment());
}
#endif

TEST_CASE("physical_memory_bytes: the machine's memory, where sysconf says it") {
    const std::optional<double> bytes = llmfs::physical_memory_bytes();
#if defined(__linux__) || defined(__APPLE__)
    REQUIRE(bytes.has_value());
    CHECK(*bytes >= 64e6);  // no machine that runs the suite has less than 64 MB
#endif
    if (bytes) CHECK(*bytes < 1e16);
}
