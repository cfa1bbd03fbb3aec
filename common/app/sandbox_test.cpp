// The box students' programs run in: each limit stops a program that passes it, with the reason,
// in both boxes where bubblewrap works here (and in the rlimits one, forced, everywhere). Small
// limits and programs that would pass them forever, so a loaded machine changes no outcome.
#include <catch2/catch.hpp>

#include "llmfs/app/sandbox.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include <unistd.h>

namespace fs = std::filesystem;
using namespace llmfs;

namespace {

// LLMFS_SANDBOX=rlimits for this object's life: the fallback box, as where bubblewrap cannot work.
class ForceRlimits {
public:
    ForceRlimits() { ::setenv("LLMFS_SANDBOX", "rlimits", 1); }
    ~ForceRlimits() { ::unsetenv("LLMFS_SANDBOX"); }
};

// Runs `body` once in each box this machine has: bubblewrap (if it works here), then rlimits.
template <typename Body>
void in_each_box(Body body) {
    if (sandbox_kind() == SandboxKind::bubblewrap) {
        INFO("box: bubblewrap");
        body(SandboxKind::bubblewrap);
    }
    ForceRlimits forced;
    INFO("box: rlimits");
    REQUIRE(sandbox_kind() == SandboxKind::rlimits);
    body(SandboxKind::rlimits);
}

struct Box {
    TempFolder root{"llmfs-sandbox-test"};
    fs::path work = root.path() / "work";
    Box() { fs::create_directories(work); }
    SandboxResult sh(const std::string& script, SandboxLimits limits) const {
        limits.work_dir = work;
        if (limits.wall_seconds == 0) limits.wall_seconds = 60;
        return run_sandboxed("/bin/sh", {"-c", script}, {}, limits);
    }
    // Runs `script` and checks that a limit stopped it, for `reason`.
    SandboxResult stopped(const std::string& script, const SandboxLimits& limits, const std::string& reason) const {
        SandboxResult r = sh(script, limits);
        CHECK(r.exit_code != 0);
        CHECK(r.stopped_by == reason);
        return r;
    }
};

std::optional<fs::path> python3() {
    for (const char* p : {"/usr/bin/python3", "/usr/local/bin/python3"}) {
        if (fs::exists(p)) return fs::path(p);
    }
    return std::nullopt;
}

}  // namespace

TEST_CASE("a program within its limits runs in its working folder, with a clean environment") {
    in_each_box([](SandboxKind) {
        Box box;
        ProcessOptions options;
        options.input = "from stdin\n";
        options.env = {{"LLMFS_DATA_DIR", "/data"}};
        ::setenv("LLMFS_SANDBOX_TEST_SECRET", "instructor's", 1);
        SandboxLimits limits;
        limits.work_dir = box.work;
        limits.wall_seconds = limits.cpu_seconds = 30;
        limits.memory_mb = 512;
        limits.file_mb = 10;
        const SandboxResult r = run_sandboxed(
            "/bin/sh", {"-c", "cat; pwd; echo \"$HOME $LLMFS_DATA_DIR [$LLMFS_SANDBOX_TEST_SECRET]\"; echo made > here.txt"}, options, limits);
        ::unsetenv("LLMFS_SANDBOX_TEST_SECRET");
        CHECK(r.exit_code == 0);
        CHECK(r.stopped_by.empty());
        const std::string work = fs::canonical(box.work).string();
        CHECK(r.out == "from stdin\n" + work + "\n" + work + " /data []\n");
        CHECK(fs::exists(box.work / "here.txt"));
    });
}

TEST_CASE("a program that spins is stopped by its CPU limit, one that waits by its wall time", "[long]") {
    in_each_box([](SandboxKind) {
        Box box;
        SandboxLimits cpu;
        cpu.cpu_seconds = 1;
        box.stopped("while :; do :; done", cpu, "CPU time limit (1 s)");
        SandboxLimits wall;
        wall.wall_seconds = 1;
        CHECK(box.stopped("exec sleep 100", wall, "time limit (1 s wall)").timed_out);
    });
}

TEST_CASE("a program that allocates past its memory limit is stopped") {
    const auto python = python3();
    if (!python) {
        WARN("no python3 here to allocate with: skipped");
        return;
    }
    in_each_box([&](SandboxKind) {
        Box box;
        SandboxLimits limits;
        limits.memory_mb = 256;
        // qemu-user ignores RLIMIT_AS (it would limit qemu): there the limit does not reach the program.
        if (box.sh("ulimit -v", limits).out != "262144\n") {
            WARN("RLIMIT_AS does not reach the program here (qemu-user?): memory limit not tested");
            return;
        }
        limits.work_dir = box.work;
        limits.wall_seconds = 60;
        const SandboxResult r = run_sandboxed(*python, {"-c", "b = bytearray(1 << 30)\nprint('allocated')"}, {}, limits);
        CHECK(r.exit_code != 0);
        CHECK(r.out.empty());
        CHECK(r.stopped_by == "memory limit (256 MB)");
    });
}

TEST_CASE("a program that writes past its file-size limit is stopped") {
    in_each_box([](SandboxKind) {
        Box box;
        SandboxLimits limits;
        limits.file_mb = 1;
        box.stopped("exec head -c 3000000 /dev/zero > big", limits, "file size limit (1 MB)");
        CHECK(fs::file_size(box.work / "big") <= (1u << 20));
    });
}

#ifdef __linux__
TEST_CASE("a fork bomb is stopped by its process limit (RLIMIT_NPROC)") {
    in_each_box([](SandboxKind) {
        Box box;
        SandboxLimits limits;
        limits.processes = 16;
        // The limit reaches the program: a number, the user's tasks when it started plus 16.
        const SandboxResult shown = box.sh("exec grep '^Max processes' /proc/self/limits", limits);
        REQUIRE(shown.exit_code == 0);
        std::istringstream words(shown.out.substr(std::string("Max processes").size()));
        std::size_t soft = 0, hard = 0;
        CHECK((words >> soft >> hard));
        CHECK(soft >= 16);
        CHECK(soft == hard);
        CHECK_THAT(sandbox_description(limits), Catch::Contains("16 more processes and threads"));
        if (::geteuid() == 0) {
            WARN("running as root, whom the kernel exempts from RLIMIT_NPROC: the fork bomb is not run");
            return;
        }
        // A bounded bomb (200 sleepers of a second): the 17th fork or so fails.
        const SandboxResult r = box.stopped("i=0; while [ $i -lt 200 ]; do sleep 1 & i=$((i+1)); done; wait", limits,
                                            "process limit (16 more)");
        CHECK(r.timed_out == false);
    });
}
#endif

TEST_CASE("bubblewrap refuses a file outside the program's tree and the network, and the fallback says it cannot") {
    in_each_box([](SandboxKind kind) {
        Box box;
        const fs::path key = box.root.path() / "home" / ".ssh" / "id_rsa";
        fs::create_directories(key.parent_path());
        std::ofstream(key) << "INSTRUCTOR-SECRET\n";
        const fs::path outside = box.root.path() / "outside.txt";
        const SandboxResult read = box.sh("exec cat " + key.string(), {});
        const SandboxResult wrote = box.sh("echo student > " + outside.string(), {});
        SandboxLimits limits;
        limits.work_dir = box.work;
        if (kind == SandboxKind::bubblewrap) {
            CHECK(read.exit_code != 0);
            CHECK(read.out.find("INSTRUCTOR-SECRET") == std::string::npos);
            CHECK(read.stopped_by == "forbidden access (" + key.string() + " is outside its box)");
            CHECK_FALSE(fs::exists(outside));  // its /tmp is its own
            // No network: its own network namespace has the loopback device only.
            const SandboxResult net = box.sh("exec awk 'NR > 2 { print $1 }' /proc/net/dev", {});
            CHECK(net.out == "lo:\n");
            CHECK_THAT(sandbox_description(limits), Catch::StartsWith("sandbox: bubblewrap") && Catch::Contains("no network"));
        } else {
            CHECK(read.out == "INSTRUCTOR-SECRET\n");  // what the fallback cannot stop, and says
            CHECK(fs::exists(outside));
            CHECK_THAT(sandbox_description(limits), Catch::StartsWith("sandbox: rlimits only") &&
                                                        Catch::Contains("can read and write every file this user may"));
        }
    });
}

TEST_CASE("a working folder that is not a folder is a clear error") {
    SandboxLimits limits;
    limits.work_dir = "/nonexistent/llmfs-sandbox";
    CHECK_THROWS_WITH(run_sandboxed("/bin/true", {}, {}, limits), Catch::Contains("/nonexistent/llmfs-sandbox is not a folder"));
}
