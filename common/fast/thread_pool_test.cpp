// The thread pool's contract: every chunk runs exactly once, an exception reaches the caller,
// nested and concurrent runs still finish, destruction joins, LLMFS_THREADS is read strictly.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "llmfs/fast/thread_pool.hpp"

using llmfs::ThreadPool;

TEST_CASE("every chunk runs exactly once, on any number of threads") {
    for (std::size_t threads : {1, 2, 3, 8}) {
        ThreadPool pool(threads);
        CHECK(pool.size() == threads);
        for (std::size_t chunks : {0, 1, 2, 7, 1000}) {
            for (int repeat = 0; repeat < 20; ++repeat) {
                std::vector<std::atomic<int>> runs(chunks);
                pool.run(chunks, [&](std::size_t i) { runs[i].fetch_add(1); });
                for (std::size_t i = 0; i < chunks; ++i) {
                    INFO(threads << " threads, chunk " << i << " of " << chunks);
                    REQUIRE(runs[i].load() == 1);
                }
            }
        }
    }
}

TEST_CASE("each thread reads its chunks in long runs: its own share in order, then halves of another's") {
    // A thread's next chunk is the one after its last, except when its share is done and it takes
    // the back half of another's: with two threads each such steal at least halves what is left,
    // so 2048 chunks need at most 11 of them (1024, 512, ... 1 chunks), whatever the scheduling.
    ThreadPool pool(2);
    constexpr std::size_t chunks = 2048;
    for (int repeat = 0; repeat < 20; ++repeat) {
        std::vector<std::size_t> previous_of(chunks, chunks);  // the chunk the same thread ran before, or chunks
        std::mutex m;
        std::vector<std::pair<std::thread::id, std::size_t>> last;  // each thread's last chunk so far
        pool.run(chunks, [&](std::size_t i) {
            std::lock_guard<std::mutex> lock(m);
            const auto me = std::this_thread::get_id();
            auto it = std::find_if(last.begin(), last.end(), [&](const auto& l) { return l.first == me; });
            if (it == last.end()) {
                last.emplace_back(me, i);
            } else {
                previous_of[i] = it->second;
                it->second = i;
            }
        });
        std::size_t jumps = 0;  // a thread's chunk that does not follow its previous one
        for (std::size_t i = 0; i < chunks; ++i)
            if (previous_of[i] != chunks && previous_of[i] + 1 != i) ++jumps;
        INFO("repeat " << repeat << ": " << jumps << " jumps, " << last.size() << " threads ran chunks");
        CHECK(jumps <= 11);
    }
}

TEST_CASE("runs back to back: a worker that comes late to one runs none of its chunks, nor any of the next's twice") {
    // Four threads on fewer cores: workers are often descheduled between seeing a run and joining
    // it, and come to it after it is over, while the caller sets up the next.
    ThreadPool pool(4);
    std::atomic<int> current{-1};
    for (int r = 0; r < 3000; ++r) {
        current.store(r);
        const std::size_t chunks = 2 + static_cast<std::size_t>(r % 6);
        std::vector<std::atomic<int>> runs(chunks);
        std::atomic<int> stale{0};  // a chunk run while another run was current
        pool.run(chunks, [&, r](std::size_t i) {
            if (current.load() != r) stale.fetch_add(1);
            runs[i].fetch_add(1);
        });
        INFO("run " << r);
        REQUIRE(stale.load() == 0);
        for (std::size_t i = 0; i < chunks; ++i) REQUIRE(runs[i].load() == 1);
    }
}

TEST_CASE("a chunk's exception reaches the caller, and the pool keeps working") {
    ThreadPool pool(3);
    std::atomic<int> ran{0};
    CHECK_THROWS_WITH(pool.run(100,
                               [&](std::size_t i) {
                                   ran.fetch_add(1);
                                   if (i == 37) throw std::runtime_error("chunk 37 failed");
                               }),
                      "chunk 37 failed");
    CHECK(ran.load() >= 1);
    CHECK(ran.load() <= 100);
    std::atomic<int> after{0};
    pool.run(50, [&](std::size_t) { after.fetch_add(1); });
    CHECK(after.load() == 50);
}

TEST_CASE("a slow thread's chunks are taken by the others") {
    // Chunk 0 sleeps, as a descheduled thread would: the other chunks all finish meanwhile.
    ThreadPool pool(2);
    std::atomic<int> done{0};
    std::atomic<int> done_while_sleeping{-1};
    pool.run(64, [&](std::size_t i) {
        if (i == 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            done_while_sleeping = done.load();
        }
        done.fetch_add(1);
    });
    CHECK(done.load() == 64);
    CHECK(done_while_sleeping.load() == 63);
}

TEST_CASE("a caller that runs out of chunks sleeps until the worker's long chunk is done, and is woken") {
    // Chunk 0 (the caller's share) takes 5 ms, so the worker has taken chunk 1 by then; the worker's
    // chunk takes 100 ms, far past the caller's spin: the caller must sleep and be woken.
    ThreadPool pool(2);
    const auto caller = std::this_thread::get_id();
    for (int repeat = 0; repeat < 5; ++repeat) {
        std::atomic<int> ran{0};
        pool.run(2, [&](std::size_t) {
            std::this_thread::sleep_for(std::chrono::milliseconds(std::this_thread::get_id() == caller ? 5 : 100));
            ran.fetch_add(1);
        });
        CHECK(ran.load() == 2);
    }
}

TEST_CASE("runs from inside a chunk and from several threads at once finish") {
    ThreadPool pool(2);
    std::atomic<int> inner{0};
    pool.run(4, [&](std::size_t) { pool.run(5, [&](std::size_t) { inner.fetch_add(1); }); });
    CHECK(inner.load() == 20);

    std::atomic<int> total{0};
    std::vector<std::thread> callers;
    for (int c = 0; c < 4; ++c)
        callers.emplace_back([&] {
            for (int r = 0; r < 50; ++r) pool.run(10, [&](std::size_t) { total.fetch_add(1); });
        });
    for (auto& t : callers) t.join();
    CHECK(total.load() == 4 * 50 * 10);
}

TEST_CASE("destruction joins idle and just-used workers") {
    for (int i = 0; i < 50; ++i) {
        ThreadPool pool(4);
        if (i % 2) pool.run(8, [](std::size_t) {});
    }  // a worker left running would make the test hang or crash at exit
    SUCCEED();
}

TEST_CASE("LLMFS_THREADS sets the thread count, and anything but a whole number from 1 to 256 is refused") {
    const char* saved = std::getenv("LLMFS_THREADS");
    const std::string restore = saved ? saved : "";
    setenv("LLMFS_THREADS", "3", 1);
    CHECK(llmfs::default_thread_count() == 3);
    for (const char* bad : {"0", "-1", "257", "2x", " 2", "1e2", "99999999999999999999"}) {
        setenv("LLMFS_THREADS", bad, 1);
        INFO(bad);
        CHECK_THROWS_WITH(llmfs::default_thread_count(), Catch::Contains("LLMFS_THREADS") && Catch::Contains("1 to 256"));
    }
    unsetenv("LLMFS_THREADS");
    CHECK(llmfs::default_thread_count() >= 1);
    if (saved) setenv("LLMFS_THREADS", restore.c_str(), 1);
}
