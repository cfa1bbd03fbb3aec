#include "llmfs/fast/thread_pool.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>

#ifdef __linux__
#include <sched.h>
#endif

namespace llmfs {

namespace {

// About 10-50 microseconds of spinning before a waiting thread sleeps: long enough to catch the
// next product of the same decode step, short enough to leave a busy machine's core alone.
constexpr int kSpinIterations = 2000;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

}  // namespace

struct ThreadPool::Job {
    std::function<void(std::size_t)> fn;
    std::size_t chunks = 0;
    std::atomic<std::size_t> next{0};  // the next chunk to take
    std::atomic<std::size_t> done{0};  // chunks finished (run or skipped after a failure)
    std::atomic<bool> failed{false};
    std::exception_ptr error;  // the first exception, guarded by m
    std::mutex m;
    std::condition_variable finished;  // the caller sleeps here
};

ThreadPool::ThreadPool(std::size_t threads) {
    if (threads == 0) throw std::invalid_argument("ThreadPool: at least one thread (the caller's)");
    workers_.reserve(threads - 1);
    for (std::size_t t = 1; t < threads; ++t) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& w : workers_) w.join();
}

void ThreadPool::work_on(Job& job) {
    for (;;) {
        const std::size_t i = job.next.fetch_add(1, std::memory_order_relaxed);
        if (i >= job.chunks) return;
        if (!job.failed.load(std::memory_order_relaxed)) {
            try {
                job.fn(i);
            } catch (...) {
                std::lock_guard<std::mutex> lock(job.m);
                if (!job.error) job.error = std::current_exception();
                job.failed.store(true, std::memory_order_relaxed);
            }
        }
        if (job.done.fetch_add(1, std::memory_order_acq_rel) + 1 == job.chunks) {
            { std::lock_guard<std::mutex> lock(job.m); }  // the caller is waiting or has not checked yet
            job.finished.notify_all();
        }
    }
}

void ThreadPool::worker_loop() {
    std::uint64_t seen = 0;
    for (;;) {
        for (int s = 0; s < kSpinIterations && epoch_.load(std::memory_order_acquire) == seen; ++s) cpu_relax();
        std::shared_ptr<Job> job;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return stopping_ || epoch_.load(std::memory_order_relaxed) != seen; });
            if (stopping_) return;
            seen = epoch_.load(std::memory_order_relaxed);
            job = job_;
        }
        // A worker that wakes after the job is done finds no chunk left: it never calls fn.
        if (job) work_on(*job);
    }
}

void ThreadPool::run(std::size_t chunks, const std::function<void(std::size_t)>& fn) {
    if (chunks == 0) return;
    if (workers_.empty() || chunks == 1 || busy_.exchange(true, std::memory_order_acquire)) {
        for (std::size_t i = 0; i < chunks; ++i) fn(i);
        return;
    }
    auto job = std::make_shared<Job>();
    job->fn = fn;
    job->chunks = chunks;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        job_ = job;
        epoch_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    work_on(*job);
    for (int s = 0; s < kSpinIterations && job->done.load(std::memory_order_acquire) < chunks; ++s) cpu_relax();
    {
        std::unique_lock<std::mutex> lock(job->m);
        job->finished.wait(lock, [&] { return job->done.load(std::memory_order_acquire) == chunks; });
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        job_.reset();  // fn refers to the caller's frame: drop it before returning
    }
    busy_.store(false, std::memory_order_release);
    if (job->error) std::rethrow_exception(job->error);
}

std::size_t default_thread_count() {
    if (const char* env = std::getenv("LLMFS_THREADS"); env && *env) {
        const std::string text = env;
        char* end = nullptr;
        errno = 0;
        const long n = std::strtol(text.c_str(), &end, 10);
        if (errno != 0 || end != text.c_str() + text.size() || text.find_first_not_of("0123456789") != std::string::npos ||
            n < 1 || n > 256)
            throw std::invalid_argument("LLMFS_THREADS=\"" + text + "\": expected a whole number from 1 to 256 (unset it to use every CPU this process may run on)");
        return static_cast<std::size_t>(n);
    }
#ifdef __linux__
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
#endif
    return std::max(1u, std::thread::hardware_concurrency());
}

ThreadPool& compute_pool() {
    static ThreadPool pool(default_thread_count());
    return pool;
}

}  // namespace llmfs
