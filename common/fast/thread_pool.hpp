// The project's own small thread pool, for the products of generation. Work comes as n chunks in
// the order of the memory they read. Each thread owns an equal, contiguous share of them and takes
// its own from the front, one after the other: one stream through memory per thread, which the
// hardware prefetcher follows across chunk boundaries. A thread whose share is done takes the back
// half of what another has left (work stealing), so a thread the OS deschedules (a student's
// browser, an IDE indexing) holds up only the chunk it is on: the others take the rest. Waiting
// threads spin some tens of microseconds (a decoding step's gaps between products are shorter), then
// sleep on a condition variable instead of burning a core someone else needs.
//
// Which thread runs a chunk never changes what the chunk computes: callers give each chunk its own
// fixed piece of output (rows of a product, one attention head), so results are bit-identical to
// running the chunks in order on one thread (thread_pool_test.cpp, kernels_test.cpp).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace llmfs {

// What one thread writes while another reads or writes its own is kept this many bytes apart, not
// just a cache line of 64: Zen's and Intel's L2 fetch lines in adjacent pairs, so a write to a line
// also takes its neighbour from the other core. In the host's fast moments a decoding step read 2
// points more of the bandwidth bound with the pool's shares and its run's atomics 128 bytes apart
// than 64 (paired runs on the Zen 5 VM: MHA 86.1 to 88.4%, GQA 85.0 to 87.3%, SWA 86.5 to 88.4%).
// Apple's M-series lines are 128 bytes anyway.
inline constexpr std::size_t kApart = 128;

class ThreadPool {
public:
    // threads: how many threads work on a run, the caller's included (threads - 1 are started).
    explicit ThreadPool(std::size_t threads);
    ~ThreadPool();  // wakes and joins every worker
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    std::size_t size() const { return workers_.size() + 1; }

    // Runs fn(i) once for every i in [0, chunks), on the pool's threads and the caller's, and
    // returns when all are done. Thread t of T (the caller is 0) starts on its share, chunks
    // [chunks * t / T, chunks * (t + 1) / T), in increasing order. The first exception a chunk
    // throws is rethrown here (the other chunks still run or are skipped; none runs twice). Calls
    // from several threads at once, or from inside a chunk, run their chunks on the calling thread
    // alone.
    void run(std::size_t chunks, const std::function<void(std::size_t)>& fn);

private:
    struct Share;
    void worker_loop(std::size_t self);
    bool take(std::size_t self, std::size_t& chunk);
    void work_on(std::size_t self);

    // One run at a time (busy_), its state kept here and reused run after run: no allocation and no
    // lock on the way in, only atomics; on the way out, the last chunk's thread takes the mutex once
    // to see whether the caller went to sleep (a mutex for sleeping and waking). A Job allocated per
    // run and handed over under a mutex, as before, held the caller's first chunk back 1.6-1.8 us
    // and its return 1.3-1.4 us after the last chunk ended; now 0.15 and 0.2 (a 2.4 MB product in
    // 36 chunks, Zen 5 VM). A bonus GPT's decoding step is 61 runs: 1 to 3 points more of the
    // bandwidth bound in the host's fast moments (docs/performance.md).
    std::vector<std::thread> workers_;
    std::unique_ptr<Share[]> shares_;                  // thread t's chunks left (the caller is thread 0)
    const std::function<void(std::size_t)>* fn_ = nullptr;  // the open run's (the caller's), set before it is published
    std::size_t chunks_ = 0;                           // the open run's chunk count (read while it is open)
    alignas(kApart) std::atomic<std::uint64_t> epoch_{0};  // the last run published: what idle workers spin on
    alignas(kApart) std::atomic<std::uint64_t> open_{0};  // the run workers may still join; 0 once it is over
    alignas(kApart) std::atomic<std::size_t> inside_{0};  // workers between joining a run and leaving it
    alignas(kApart) std::atomic<std::size_t> done_{0};    // chunks of the open run finished (run, or skipped after a failure)
    std::atomic<bool> failed_{false};
    std::exception_ptr error_;                         // the first exception (guarded by mutex_)
    std::mutex mutex_;                                 // for sleeping and waking, and error_
    std::condition_variable wake_;                     // workers sleep here between runs
    std::condition_variable finished_;                 // a caller sleeps here for a long last chunk
    std::atomic<std::size_t> sleepers_{0};             // workers asleep (or about to be) on wake_
    std::atomic<bool> caller_waiting_{false};          // the caller asleep (or about to be) on finished_
    std::atomic<bool> stopping_{false};
    std::atomic<bool> busy_{false};                    // a run is under way (a nested or concurrent run goes serial)
};

// The threads generation uses: LLMFS_THREADS if set (a whole number from 1 to 256), else the CPUs
// this process may run on (sched_getaffinity on Linux; the hardware count elsewhere).
// Throws std::invalid_argument for a bad LLMFS_THREADS.
std::size_t default_thread_count();

// The pool generation's products run on, made on first use with default_thread_count() threads.
ThreadPool& compute_pool();

}  // namespace llmfs
