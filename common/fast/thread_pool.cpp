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

// About 10-50 microseconds of spinning (2000 pauses: 47 us on the Zen 5 VM) before a waiting thread
// sleeps: long enough to catch the next product of the same decode step, short enough to leave a
// busy machine's core alone.
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
// chunk) and a thief (taking the back half) change it with one compare-and-swap each. kApart bytes
// from the next: the owner's claims do not disturb the other threads'.
struct alignas(kApart) ThreadPool::Share {
    std::atomic<std::uint64_t> range{0};

    static std::uint64_t pack(std::uint64_t front, std::uint64_t back) { return front << 32 | back; }
    static std::uint64_t front(std::uint64_t r) { return r >> 32; }
    static std::uint64_t back(std::uint64_t r) { return r & 0xffffffffu; }
};

ThreadPool::ThreadPool(std::size_t threads) {
    if (threads == 0) throw std::invalid_argument("ThreadPool: at least one thread (the caller's)");
    shares_.reset(new Share[threads]);
    workers_.reserve(threads - 1);
    for (std::size_t t = 1; t < threads; ++t) workers_.emplace_back([this, t] { worker_loop(t); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_.store(true, std::memory_order_seq_cst);
        epoch_.fetch_add(1, std::memory_order_seq_cst);  // spinning workers look up, and see stopping_
    }
    wake_.notify_all();
    for (std::thread& w : workers_) w.join();
}

// The next chunk for thread `self`: the front of its own share; once that is empty, the back half of
// the largest share left (the thief keeps the rest of that half as its own new share, to read on from
// there). False when every share is empty.
bool ThreadPool::take(std::size_t self, std::size_t& chunk) {
    Share& own = shares_[self];
    for (std::uint64_t r = own.range.load(std::memory_order_acquire); Share::front(r) < Share::back(r);) {
        if (own.range.compare_exchange_weak(r, Share::pack(Share::front(r) + 1, Share::back(r)), std::memory_order_acq_rel)) {
            chunk = Share::front(r);
            return true;
        }
    }
    for (;;) {
        std::size_t victim = self;
        std::uint64_t most = 0, r = 0;
        for (std::size_t t = 0; t < size(); ++t) {
            const std::uint64_t rt = shares_[t].range.load(std::memory_order_acquire);
            if (t != self && Share::front(rt) < Share::back(rt) && Share::back(rt) - Share::front(rt) > most) {
                victim = t;
                most = Share::back(rt) - Share::front(rt);
                r = rt;
            }
        }
        if (victim == self) return false;
        const std::uint64_t stolen_front = Share::back(r) - (most + 1) / 2;  // [stolen_front, back): at least one
        const std::uint64_t left_to_victim = Share::pack(Share::front(r), stolen_front);
        if (!shares_[victim].range.compare_exchange_weak(r, left_to_victim, std::memory_order_acq_rel))
            continue;  // the owner or another thief moved first: look again
        own.range.store(Share::pack(stolen_front + 1, Share::back(r)), std::memory_order_release);
        chunk = stolen_front;
        return true;
    }
}

void ThreadPool::work_on(std::size_t self) {
    // Counted once, when this thread finds no chunk left: an atomic add per chunk on a line both
    // threads write would move it between the cores with every chunk.
    std::size_t finished = 0;  // chunks run (or skipped after a failure) by this thread
    for (std::size_t i = 0; take(self, i); ++finished) {
        if (failed_.load(std::memory_order_relaxed)) continue;
        try {
            (*fn_)(i);
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!error_) error_ = std::current_exception();
            failed_.store(true, std::memory_order_relaxed);
        }
    }
    // The last chunk's thread wakes the caller if it sleeps. Under the mutex, which the caller holds
    // from setting caller_waiting_ to sleeping: either the caller then sees done_ complete, or this
    // sees caller_waiting_. (As a lock-free seq_cst store-then-load pair on each side, both could miss:
    // under qemu-aarch64 on x86, 1 run of ch04_kv_cache in 4 to 8 ended with the caller and the worker
    // both asleep. One uncontended lock per run, after its last chunk.)
    if (finished > 0 && done_.fetch_add(finished, std::memory_order_seq_cst) + finished == chunks_) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (caller_waiting_.load(std::memory_order_relaxed)) finished_.notify_all();
    }
}

void ThreadPool::worker_loop(std::size_t self) {
    std::uint64_t seen = 0;
    for (;;) {
        for (int s = 0; s < kSpinIterations && epoch_.load(std::memory_order_acquire) == seen; ++s) cpu_relax();
        if (epoch_.load(std::memory_order_acquire) == seen) {
            std::unique_lock<std::mutex> lock(mutex_);
            sleepers_.fetch_add(1, std::memory_order_seq_cst);  // before the last look at epoch_ (run() reads it after publishing)
            wake_.wait(lock, [&] {
                return epoch_.load(std::memory_order_seq_cst) != seen || stopping_.load(std::memory_order_seq_cst);
            });
            sleepers_.fetch_sub(1, std::memory_order_relaxed);
        }
        // The epoch first, then stopping_: the destructor sets stopping_ before it moves the epoch, so a
        // worker that reads the destructor's epoch sees stopping_ too. (Checked the other way round, a
        // worker could take the destructor's epoch for a run's, then sleep waiting for the next one,
        // and the destructor's join never return: 1 in 200 runs of the destruction test here, 1 in 4
        // under qemu.)
        const std::uint64_t run = epoch_.load(std::memory_order_acquire);
        if (stopping_.load(std::memory_order_acquire)) return;
        seen = run;
        // Join the run only while it is open: a worker that comes late (descheduled between seeing
        // the epoch and here) must not touch the next run's shares, which the caller sets up only
        // once no worker is inside.
        inside_.fetch_add(1, std::memory_order_seq_cst);
        if (open_.load(std::memory_order_seq_cst) == run) work_on(self);
        inside_.fetch_sub(1, std::memory_order_release);
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
    // A worker still inside the last run (it found no chunk left, or has not left yet) reads the
    // shares: wait for it before writing them. Rare, and short unless the OS descheduled it.
    for (int s = 0; inside_.load(std::memory_order_seq_cst) != 0; ++s) {
        if (s < kSpinIterations) cpu_relax();
        else std::this_thread::yield();
    }
    fn_ = &fn;
    chunks_ = chunks;
    done_.store(0, std::memory_order_relaxed);
    failed_.store(false, std::memory_order_relaxed);
    error_ = nullptr;
    const std::size_t threads = size();
    for (std::size_t t = 0; t < threads; ++t)
        shares_[t].range.store(Share::pack(chunks * t / threads, chunks * (t + 1) / threads), std::memory_order_relaxed);
    const std::uint64_t run = epoch_.load(std::memory_order_relaxed) + 1;  // only run() and the destructor write it
    open_.store(run, std::memory_order_seq_cst);
    epoch_.store(run, std::memory_order_seq_cst);  // publishes all of the above to the workers
    if (sleepers_.load(std::memory_order_seq_cst) > 0) {
        { std::lock_guard<std::mutex> lock(mutex_); }  // a sleeper is waiting, or checks epoch_ under the lock
        wake_.notify_all();
    }
    work_on(0);
    for (int s = 0; s < kSpinIterations && done_.load(std::memory_order_acquire) < chunks; ++s) cpu_relax();
    if (done_.load(std::memory_order_acquire) < chunks) {
        std::unique_lock<std::mutex> lock(mutex_);
        caller_waiting_.store(true, std::memory_order_seq_cst);
        finished_.wait(lock, [&] { return done_.load(std::memory_order_seq_cst) == chunks; });
        caller_waiting_.store(false, std::memory_order_relaxed);
    }
    open_.store(0, std::memory_order_seq_cst);  // workers that come now skip this run; fn is the caller's, about to go
    if (failed_.load(std::memory_order_relaxed)) {
        std::exception_ptr error;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            std::swap(error, error_);
        }
        std::rethrow_exception(error);
    }
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
