// The project's own small thread pool, for the products of generation. Work comes as n chunks in
// the order of the memory they read. Each thread owns an equal, contiguous share of them and takes
// its own from the front, one after the other: one stream through memory per thread, which the
// hardware prefetcher follows across chunk boundaries. A thread whose share is done takes the back
// half of what another has left (work stealing), so a thread the OS deschedules (a student's
// browser, an IDE indexing) holds up only the chunk it is on: the others take the rest. Waiting
// threads spin a few microseconds, then sleep on a condition variable instead of burning a core
// someone else needs.
//
// Which thread runs a chunk never changes what the chunk computes: callers give each chunk its own
// fixed piece of output (rows of a product, one attention head), so results are bit-identical to
// running the chunks in order on one thread (thread_pool_test.cpp, kernels_test.cpp).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace llmfs {

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
    struct Job;
    void worker_loop(std::size_t self);
    static void work_on(Job& job, std::size_t self);

    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_;       // workers wait here for a new job
    std::shared_ptr<Job> job_;           // the current job (guarded by mutex_)
    std::atomic<std::uint64_t> epoch_{0};  // bumped for every job: what the workers spin on
    bool stopping_ = false;              // guarded by mutex_
    std::atomic<bool> busy_{false};      // a run is under way (a nested or concurrent run goes serial)
};

// The threads generation uses: LLMFS_THREADS if set (a whole number from 1 to 256), else the CPUs
// this process may run on (sched_getaffinity on Linux; the hardware count elsewhere).
// Throws std::invalid_argument for a bad LLMFS_THREADS.
std::size_t default_thread_count();

// The pool generation's products run on, made on first use with default_thread_count() threads.
ThreadPool& compute_pool();

}  // namespace llmfs
