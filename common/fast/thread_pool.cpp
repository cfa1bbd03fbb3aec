#include "llmfs/fast/thread_pool.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <limits>
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

// The chunks one thread has left, [front, back), in one word so that the owner (taking the front
// chunk) and a thief (taking the back half) change it with one compare-and-swap each. On its own
// cache line: the owner's claims do not disturb the other threads'.
struct alignas(64) Share {
    std::atomic<std::uint64_t> range{0};

    static std::uint64_t pack(std::uint64_t front, std::uint64_t back) { return front << 32 | back; }
    static std::uint64_t front(std::uint64_t r) { return r >> 32; }
    static std::uint64_t back(std::uint64_t r) { return r & 0xffffffffu; }
};

struct ThreadPool::Job {
    Job(std::size_t threads, std::size_t n, const std::function<void(std::size_t)>& f) : fn(f), chunks(n), shares(threads) {
        for (std::size_t t = 0; t < threads; ++t) shares[t].range.store(Share::pack(n * t / threads, n * (t + 1) / threads));
    }
    std::function<void(std::size_t)> fn;
    std::size_t chunks = 0;
    std::vector<Share> shares;         // thread t's chunks left (the caller is thread 0)
    std::atomic<std::size_t> done{0};  // chunks finished (run or skipped after a failure)
    std::atomic<bool> failed{false};
    std::exception_ptr error;  // the first exception, guarded by m
    std::mutex m;
    std::condition_variable finished;  // the caller sleeps here

    // The next chunk for thread `self`: the front of its own share; once that is empty, the back half
    // of the largest share left (the thief keeps the rest of that half as its own new share, to read
    // on from there). False when every share is empty.
    bool take(std::size_t self, std::size_t& chunk) {
        Share& own = shares[self];
        for (std::uint64_t r = own.range.load(std::memory_order_acquire); Share::front(r) < Share::back(r);) {
            if (own.range.compare_exchange_weak(r, Share::pack(Share::front(r) + 1, Share::back(r)), std::memory_order_acq_rel)) {
                chunk = Share::front(r);
                return true;
            }
        }
        for (;;) {
            std::size_t victim = self;
            std::uint64_t most = 0, r = 0;
            for (std::size_t t = 0; t < shares.size(); ++t) {
                const std::uint64_t rt = shares[t].range.load(std::memory_order_acquire);
                if (t != self && Share::front(rt) < Share::back(rt) && Share::back(rt) - Share::front(rt) > most) {
                    victim = t;
                    most = Share::back(rt) - Share::front(rt);
                    r = rt;
                }
            }
            if (victim == self) return false;
            const std::uint64_t stolen_front = Share::back(r) - (most + 1) / 2;  // [stolen_front, back): at least one
            const std::uint64_t left_to_victim = Share::pack(Share::front(r), stolen_front);
            if (!shares[victim].range.compare_exchange_weak(r, left_to_victim, std::memory_order_acq_rel))
                continue;  // the owner or another thief moved first: look again
            own.range.store(Share::pack(stolen_front + 1, Share::back(r)), std::memory_order_release);
            chunk = stolen_front;
            return true;
        }
    }
};

ThreadPool::ThreadPool(std::size_t threads) {
    if (threads == 0) throw std::invalid_argument("ThreadPool: at least one thread (the caller's)");
    workers_.reserve(threads - 1);
    for (std::size_t t = 1; t < threads; ++t) workers_.emplace_back([this, t] { worker_loop(t); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& w : workers_) w.join();
}

void ThreadPool::work_on(Job& job, std::size_t self) {
    // Counted once, when this thread finds no chunk left: an atomic add per chunk on a line both
    // threads write would move it between the cores with every chunk.
    std::size_t finished = 0;  // chunks run (or skipped after a failure) by this thread
    for (std::size_t i = 0; job.take(self, i); ++finished) {
        if (job.failed.load(std::memory_order_relaxed)) continue;
        try {
            job.fn(i);
        } catch (...) {
            std::lock_guard<std::mutex> lock(job.m);
            if (!job.error) job.error = std::current_exception();
            job.failed.store(true, std::memory_order_relaxed);
        }
    }
    if (finished > 0 && job.done.fetch_add(finished, std::memory_order_acq_rel) + finished == job.chunks) {
        { std::lock_guard<std::mutex> lock(job.m); }  // the caller is waiting or has not checked yet
        job.finished.notify_all();
    }
}

void ThreadPool::worker_loop(std::size_t self) {
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
        if (job) work_on(*job, self);
    }
}

void ThreadPool::run(std::size_t chunks, const std::function<void(std::size_t)>& fn) {
    if (chunks == 0) return;
    if (chunks > std::numeric_limits<std::uint32_t>::max())  // a share's bounds are 32 bits each
        throw std::length_error("ThreadPool::run: " + std::to_string(chunks) + " chunks, more than 2^32 - 1 (use bigger ones)");
    if (workers_.empty() || chunks == 1 || busy_.exchange(true, std::memory_order_acquire)) {
        for (std::size_t i = 0; i < chunks; ++i) fn(i);
        return;
    }
    struct Release {  // the pool is free again however this run ends
        std::atomic<bool>& busy;
        ~Release() { busy.store(false, std::memory_order_release); }
    } release{busy_};
    auto job = std::make_shared<Job>(size(), chunks, fn);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        job_ = job;
        epoch_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    work_on(*job, 0);
    for (int s = 0; s < kSpinIterations && job->done.load(std::memory_order_acquire) < chunks; ++s) cpu_relax();
    {
        std::unique_lock<std::mutex> lock(job->m);
        job->finished.wait(lock, [&] { return job->done.load(std::memory_order_acquire) == chunks; });
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        job_.reset();  // fn refers to the caller's frame: drop it before returning
    }
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
