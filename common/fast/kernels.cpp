#include "llmfs/fast/kernels.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include <cblas.h>

#include "llmfs/fast/thread_pool.hpp"
#include "llmfs/torch/ops.hpp"
#include "llmfs/torch/vecmath.hpp"

namespace llmfs {

SingleThreadedBlas::SingleThreadedBlas() : threads_(openblas_get_num_threads()) {
    if (threads_ != 1) openblas_set_num_threads(1);
}

SingleThreadedBlas::~SingleThreadedBlas() {
    if (threads_ != 1) openblas_set_num_threads(threads_);
}

namespace {

// Products smaller than this many multiply-adds run on the calling thread.
constexpr std::size_t kParallelMacs = 1 << 16;
// Attention heads smaller than this together run on the calling thread (for_each_head). Lower than
// kParallelMacs: a decoding step's heads wait on memory from the first keys on. Against 40 to 82
// cached keys the 12 heads of 12 layers took 300 us a step on the calling thread, 200 on the pool;
// against 5 to 40, 150 and 120 (Zen 5 VM, the host's fast moments; measured when the bonus GPTs kept
// their caches token-major, each head reading a 256-byte slice of every 3 KB row).
constexpr std::size_t kHeadParallelMacs = 1 << 12;

// Output columns (rows of the weight) per chunk when a product's n output columns are cut into
// about `pieces` chunks: a multiple of 64, so that every chunk but the last is a whole number of any
// BLAS kernel's column blocks, and the last one ends where the whole product ends.
std::size_t columns_per_chunk(std::size_t n, std::size_t pieces) {
    constexpr std::size_t kAlign = 64;
    return std::max(kAlign, (n / pieces + kAlign - 1) / kAlign * kAlign);
}

// dot_lanes, inlined where it runs over whole rows.
#if defined(__GNUC__) || defined(__clang__)
// With GCC's and clang's vector types: the 32 lanes are four 8-float vectors (two registers each on
// SSE2 and NEON, one on AVX2), held in registers through the pairwise sum at the end. The same
// operations, lane by lane, as the portable version below.
typedef float v8 __attribute__((vector_size(32)));  // lanes 8j .. 8j + 7 of the 32
typedef float v4 __attribute__((vector_size(16)));
#pragma GCC diagnostic push  // clang reads GCC's pragmas too (and warns at -O1, as the sanitizer build is)
#pragma GCC diagnostic ignored "-Wpsabi"  // 32-byte vectors passed without AVX: all inlined, no ABI involved
inline v8 load8(const float* p) {  // an unaligned load, without breaking aliasing rules
    v8 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// The end of one row's dot_lanes, given its four vectors of lanes after the whole 32-float steps
// (from i on): the last k % 32 products, into the first lanes; then the lanes added pairwise. The
// vectors by reference (the caller's, used up here): by value, GCC 12 notes an ABI change for 32-byte
// vectors without AVX on every build, a note its -Wpsabi pragma above does not silence.
[[gnu::always_inline]] inline float finish_lanes(v8& a0, v8& a1, v8& a2, v8& a3, const float* w, const float* x,
                                                 std::size_t i, std::size_t k) {
    if (i < k) {
        std::array<float, kDotLanes> lane;
        std::memcpy(lane.data(), &a0, sizeof a0);
        std::memcpy(lane.data() + 8, &a1, sizeof a1);
        std::memcpy(lane.data() + 16, &a2, sizeof a2);
        std::memcpy(lane.data() + 24, &a3, sizeof a3);
        for (std::size_t l = 0; i + l < k; ++l) lane[l] += w[i + l] * x[i + l];
        std::memcpy(&a0, lane.data(), sizeof a0);
        std::memcpy(&a1, lane.data() + 8, sizeof a1);
        std::memcpy(&a2, lane.data() + 16, sizeof a2);
        std::memcpy(&a3, lane.data() + 24, sizeof a3);
    }
    a0 += a2;  // lane[l] += lane[l + 16]
    a1 += a3;
    a0 += a1;  // lane[l] += lane[l + 8]
    const v4 s4 = v4{a0[0], a0[1], a0[2], a0[3]} + v4{a0[4], a0[5], a0[6], a0[7]};  // lane[l] += lane[l + 4]
    const float s0 = s4[0] + s4[2], s1 = s4[1] + s4[3];                            // lane[l] += lane[l + 2]
    return s0 + s1;                                                                  // lane[0] += lane[1]
}

// W's stream is prefetched 4 KB ahead as well: a hint only, the same bits.
[[gnu::always_inline]] inline float dot_lanes_inline(const float* w, const float* x, std::size_t k) {
    static_assert(kDotLanes == 32, "four vectors of 8 lanes");
    v8 a0{}, a1{}, a2{}, a3{};  // lane[l] sums w[i] * x[i] for i = l (mod 32)
    std::size_t i = 0;
    for (; i + kDotLanes <= k; i += kDotLanes) {  // a product, then a sum
        // W's stream 4 KB ahead, the two cache lines this step will need then: the hardware's own
        // prefetcher alone kept gemv at 88-91% of a plain summing loop's rate when the VM's memory
        // ran at 73 GB/s, 96-98% with these. A hint only: it changes no result (and reading past
        // the end of W cannot fault).
        __builtin_prefetch(w + i + 1024, 0, 3);
        __builtin_prefetch(w + i + 1024 + 16, 0, 3);
        a0 += load8(w + i) * load8(x + i);
        a1 += load8(w + i + 8) * load8(x + i + 8);
        a2 += load8(w + i + 16) * load8(x + i + 16);
        a3 += load8(w + i + 24) * load8(x + i + 24);
    }
    return finish_lanes(a0, a1, a2, a3, w, x, i, k);
}

// dot_lanes of three rows at once: each 8 floats of x loaded once for the three rows' products.
// Row r's lanes see the same products and sums in the same order as dot_lanes_inline(w_r, x, k),
// so the same bits. Each row's stream is prefetched 4 KB ahead as well, as dot_lanes_inline does.
// Twelve vectors of lanes and one of x fit AVX2's 16 registers (and NEON's 32, two each); SSE2's 16
// cannot hold the 24 halves, so some live on the stack (in a harness that build still read 5%
// faster than one row at a time: docs/performance-history.md). Always inlined: called from a
// target_clones function, an outlined copy would be built for the default target only.
[[gnu::always_inline]] inline void dot_lanes_three(const float* w0, const float* w1, const float* w2,
                                                   const float* x, std::size_t k, float& y0, float& y1, float& y2) {
    v8 a0{}, a1{}, a2{}, a3{};  // row 0's lanes
    v8 b0{}, b1{}, b2{}, b3{};  // row 1's
    v8 c0{}, c1{}, c2{}, c3{};  // row 2's
    std::size_t i = 0;
    for (; i + kDotLanes <= k; i += kDotLanes) {
        for (const float* w : {w0, w1, w2}) {
            __builtin_prefetch(w + i + 1024, 0, 3);
            __builtin_prefetch(w + i + 1024 + 16, 0, 3);
        }
        v8 xv = load8(x + i);  // lanes 0 to 7
        a0 += load8(w0 + i) * xv;
        b0 += load8(w1 + i) * xv;
        c0 += load8(w2 + i) * xv;
        xv = load8(x + i + 8);  // lanes 8 to 15
        a1 += load8(w0 + i + 8) * xv;
        b1 += load8(w1 + i + 8) * xv;
        c1 += load8(w2 + i + 8) * xv;
        xv = load8(x + i + 16);  // lanes 16 to 23
        a2 += load8(w0 + i + 16) * xv;
        b2 += load8(w1 + i + 16) * xv;
        c2 += load8(w2 + i + 16) * xv;
        xv = load8(x + i + 24);  // lanes 24 to 31
        a3 += load8(w0 + i + 24) * xv;
        b3 += load8(w1 + i + 24) * xv;
        c3 += load8(w2 + i + 24) * xv;
    }
    y0 = finish_lanes(a0, a1, a2, a3, w0, x, i, k);
    y1 = finish_lanes(b0, b1, b2, b3, w1, x, i, k);
    y2 = finish_lanes(c0, c1, c2, c3, w2, x, i, k);
}
#pragma GCC diagnostic pop
#else
inline float dot_lanes_inline(const float* w, const float* x, std::size_t k) {  // portable C++: no prefetch instructions
    std::array<float, kDotLanes> lane{};  // lane[l] sums w[i] * x[i] for i = l (mod kDotLanes)
    std::size_t i = 0;
    for (; i + kDotLanes <= k; i += kDotLanes)
        for (std::size_t l = 0; l < kDotLanes; ++l) lane[l] += w[i + l] * x[i + l];  // a product, then a sum
    for (std::size_t l = 0; i + l < k; ++l) lane[l] += w[i + l] * x[i + l];
    for (std::size_t half = kDotLanes / 2; half > 0; half /= 2)  // lane[l] += lane[l + half]: 16, 8, 4, 2, 1
        for (std::size_t l = 0; l < half; ++l) lane[l] += lane[l + half];
    return lane[0];
}
inline void dot_lanes_three(const float* w0, const float* w1, const float* w2, const float* x, std::size_t k,
                            float& y0, float& y1, float& y2) {  // the portable loop keeps one row's lanes at a time
    y0 = dot_lanes_inline(w0, x, k);
    y1 = dot_lanes_inline(w1, x, k);
    y2 = dot_lanes_inline(w2, x, k);
}
#endif

// On x86-64 Linux the row loop is also compiled for AVX2 and picked at load time (GCC's and clang's
// target_clones): 8-float vectors instead of SSE2's 4, the same lanes, products and sums, so the
// same bits (kernels_test.cpp compares each row with dot_lanes). One core then streams 27 GB/s
// instead of 20, which counts when the other core is busy or the memory is not the limit.
#if defined(__x86_64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
#define LLMFS_ROW_LOOP_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define LLMFS_ROW_LOOP_CLONES
#endif

// y[r] = onto[r] + W[r, :] . x (0 + W[r, :] . x without onto) for the rows r in [0, n): dot_lanes
// row after row, so W is read as one sequential stream. onto may be y itself (y += W @ x).
LLMFS_ROW_LOOP_CLONES void gemv_block(const float* w, const float* x, const float* onto, float* y, std::size_t n,
                                      std::size_t k) {
    for (std::size_t r = 0; r < n; ++r) y[r] = (onto ? onto[r] : 0.0f) + dot_lanes_inline(w + r * k, x, k);
}
// The same bits, reading W as three streams: the rows [0, n) cut into three thirds of g rows (and
// the n % 3 rows left at the end), row j of each third summed together with the same row of the
// other two (dot_lanes_three), so x's loads serve three rows. See kernels.hpp (gemv_three_streams).
LLMFS_ROW_LOOP_CLONES void gemv_block_three_streams(const float* w, const float* x, const float* onto, float* y,
                                                    std::size_t n, std::size_t k) {
    const std::size_t g = n / 3;
    for (std::size_t j = 0; j < g; ++j) {
        float d0, d1, d2;
        dot_lanes_three(w + j * k, w + (j + g) * k, w + (j + 2 * g) * k, x, k, d0, d1, d2);
        y[j] = (onto ? onto[j] : 0.0f) + d0;
        y[j + g] = (onto ? onto[j + g] : 0.0f) + d1;
        y[j + 2 * g] = (onto ? onto[j + 2 * g] : 0.0f) + d2;
    }
    for (std::size_t r = 3 * g; r < n; ++r)
        y[r] = (onto ? onto[r] : 0.0f) + dot_lanes_inline(w + r * k, x, k);
}

}  // namespace

float dot_lanes(const float* w, const float* x, std::size_t k) { return dot_lanes_inline(w, x, k); }

namespace {

// How a pooled pass over memory (gemv's rows of W, read_pass's floats) is cut: chunks of about
// kChunkBytes, in the order of the memory. The pool gives each thread a contiguous share of them and
// a thread takes its own one after the other (thread_pool.hpp), so a chunk's end is not a stream's
// end: the prefetch 4 KB ahead runs on into the next chunk. The size only bounds how unevenly the
// threads can finish (a chunk, about 2 microseconds of one core's reading) and how often a thread
// claims one (an uncontended compare-and-swap). Where a chunk ends changes no bits: each row of W is
// one dot_lanes wherever it falls.
constexpr std::size_t kChunkBytes = std::size_t{64} << 10;

// Units (rows of unit_bytes bytes each) in a chunk: at least 1.
std::size_t chunk_units(std::size_t unit_bytes) {
    return std::max<std::size_t>(1, kChunkBytes / std::max<std::size_t>(unit_bytes, 1));
}

}  // namespace

namespace {
thread_local GemvRuns work_so_far;  // this thread's gemv_many and for_each_head calls (gemv_runs())
}  // namespace

GemvRuns gemv_runs() { return work_so_far; }

namespace {

// y = onto (or 0) for a product with k == 0: no rows to read, nothing added (not even 0, which
// would turn -0 into +0).
void set_to_onto(float* y, const float* onto, std::size_t n) {
    if (!onto) std::fill(y, y + n, 0.0f);
    else if (onto != y) std::copy(onto, onto + n, y);
}

}  // namespace

void gemv_many(const std::vector<GemvProduct>& products) {
    std::size_t macs = 0;
    for (const GemvProduct& p : products) {
        macs += p.n * p.k;
        if (p.k == 0) {
            set_to_onto(p.y, p.onto, p.n);
            if (p.then) p.then(p.y, p.n);
        }
    }
    const std::size_t bytes = macs * sizeof(float);
    const auto start = std::chrono::steady_clock::now();  // two clock reads a call (tens of ns; a call takes microseconds)
    const auto took = [&] {
        const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
        work_so_far.seconds += seconds.count();
        work_so_far.bytes += static_cast<double>(bytes);
    };
    // Small products on the calling thread, row after row. Large ones go through the pool's chunks
    // and the three-stream loop even when the pool has one thread: there too it read 25% faster than
    // one row at a time on the busy Zen 3 VM (LLMFS_THREADS=1, 2026-11-28).
    if (macs < kParallelMacs) {
        for (const GemvProduct& p : products) {
            if (p.k == 0) continue;  // done above
            gemv_block(p.w, p.x, p.onto, p.y, p.n, p.k);
            if (p.then) p.then(p.y, p.n);
        }
        took();
        return;
    }
    // Every product's rows cut into chunks, numbered on from one product to the next: the threads go
    // from one product's rows to the next's without meeting at the end of each. A chunk's rows are
    // worked out from its number, not read from a list of chunks: such a list, written here and read
    // on the other core, moved a cache line between the cores every 2 or 3 chunks, each a stall in
    // the middle of a stream (a 512 MB product at 77 to 80 GB/s: 88 to 91% of the probe's rate
    // through the list, 96 to 98% without it).
    struct Span {
        const GemvProduct* product;
        std::size_t first_chunk;     // the number of its first chunk
        std::size_t rows_per_chunk;  // the last one may have fewer
    };
    std::vector<Span> spans;  // one per product with rows to read
    std::size_t chunks = 0;
    for (const GemvProduct& p : products) {
        if (p.k == 0) continue;  // done above
        const std::size_t rows = chunk_units(p.k * sizeof(float));
        spans.push_back({&p, chunks, rows});
        chunks += (p.n + rows - 1) / rows;
    }
    compute_pool().run(chunks, [&](std::size_t i) {
        std::size_t s = spans.size() - 1;
        while (spans[s].first_chunk > i) --s;  // the product chunk i belongs to
        const GemvProduct& p = *spans[s].product;
        const std::size_t r0 = (i - spans[s].first_chunk) * spans[s].rows_per_chunk;
        const std::size_t r1 = std::min(p.n, r0 + spans[s].rows_per_chunk);
        gemv_block_three_streams(p.w + r0 * p.k, p.x, p.onto ? p.onto + r0 : nullptr, p.y + r0, r1 - r0, p.k);
        if (p.then) p.then(p.y + r0, r1 - r0);
    });
    took();
}

namespace {

// x[0] + ... + x[n - 1] in 32 lanes, the row loop's width, read as gemv's loop reads W (but without its
// prefetch instructions: the bound is what the memory gives a plain loop): three
// streams, the thirds of x (whole steps of 32 floats; the rest at the end) summed side by side.
// The order of the sums does not matter here.
LLMFS_ROW_LOOP_CLONES float sum_block(const float* x, std::size_t n) {
    std::array<float, kDotLanes> a{}, b{}, c{};  // the thirds' lanes
    const std::size_t third = n / 3 / kDotLanes * kDotLanes;
    for (std::size_t i = 0; i < third; i += kDotLanes)
        for (std::size_t l = 0; l < kDotLanes; ++l) {
            a[l] += x[i + l];
            b[l] += x[third + i + l];
            c[l] += x[2 * third + i + l];
        }
    std::size_t i = 3 * third;
    for (; i + kDotLanes <= n; i += kDotLanes)
        for (std::size_t l = 0; l < kDotLanes; ++l) a[l] += x[i + l];
    for (std::size_t l = 0; i + l < n; ++l) a[l] += x[i + l];
    float sum = 0.0f;
    for (std::size_t l = 0; l < kDotLanes; ++l) sum += a[l] + b[l] + c[l];
    return sum;
}

}  // namespace

float read_pass(const float* x, std::size_t n) {
    // Chunk c is x[c * floats, (c + 1) * floats), cut as gemv_many cuts W, in units of the summing
    // loop's 32 floats (as gemv's are rows); the last one may be shorter.
    const std::size_t floats = chunk_units(kDotLanes * sizeof(float)) * kDotLanes;
    std::vector<float> sums((n + floats - 1) / floats);
    compute_pool().run(sums.size(), [&](std::size_t c) {
        sums[c] = sum_block(x + c * floats, std::min(n, (c + 1) * floats) - c * floats);
    });
    float total = 0.0f;
    for (float s : sums) total += s;
    return total;
}

void gemv(const float* w, const float* x, float* y, std::size_t n, std::size_t k, const float* onto, RowsFn then) {
    if (n == 0) return;
    gemv_many({{w, x, y, n, k, onto, then}});  // rows [r0, r1) of y on the pool, each row one dot_lanes
}

void gemv_three_streams(const float* w, const float* x, float* y, std::size_t n, std::size_t k, const float* onto) {
    if (n == 0) return;
    if (k == 0) {
        set_to_onto(y, onto, n);
        return;
    }
    gemv_block_three_streams(w, x, onto, y, n, k);
}

void gemv_one_call(const float* w, const float* x, float* y, std::size_t n, std::size_t k, bool accumulate) {
    if (n == 0) return;
    if (!accumulate) std::fill(y, y + n, 0.0f);
    if (k == 0) return;
    gemv_block(w, x, y, y, n, k);
}

void linear_rows(const float* x, std::size_t rows, const float* w, const float* bias, std::size_t in, std::size_t out,
                 float* y, RowsFn then) {
    linear_rows(compute_pool(), x, rows, w, bias, in, out, y, then);
}

void linear_rows_many(const float* x, std::size_t rows, std::size_t in, const std::vector<LinearOutput>& layers) {
    if (rows != 1) {
        for (const LinearOutput& l : layers) linear_rows(x, rows, l.w, l.bias, in, l.out, l.y);
        return;
    }
    std::vector<GemvProduct> products;
    for (const LinearOutput& l : layers) products.push_back({l.w, x, l.y, l.out, in, l.bias});  // y = bias + W @ x
    gemv_many(products);
}

void linear_rows(ThreadPool& pool, const float* x, std::size_t rows, const float* w, const float* bias, std::size_t in,
                 std::size_t out, float* y, RowsFn then) {
    if (rows == 1 && out > 0 && in > 0) {  // y = bias (or 0) + W @ x, `then` piece by piece
        gemv(w, x, y, out, in, bias, then);
        return;
    }
    if (bias)
        for (std::size_t r = 0; r < rows; ++r) std::copy(bias, bias + out, y + r * out);
    if (rows == 0 || out == 0 || in == 0) {  // nothing to multiply: y = bias (or 0)
        if (!bias) std::fill(y, y + rows * out, 0.0f);
        if (then) then(y, rows * out);
        return;
    }
    SingleThreadedBlas single;
    // y[:, c0:c1] = x @ w[c0:c1, :]^T for fixed column blocks (about 16, from `out` alone, never the
    // thread count): the same calls with the same arguments whichever thread runs them, so the same
    // bits on one thread or many, idle or loaded.
    const std::size_t grain = columns_per_chunk(out, 16);
    const std::size_t chunks = (out + grain - 1) / grain;
    pool.run(chunks, [&](std::size_t i) {
        const std::size_t c0 = i * grain, c1 = std::min(out, c0 + grain);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows), static_cast<int>(c1 - c0),
                    static_cast<int>(in), 1.0f, x, static_cast<int>(in), w + c0 * in, static_cast<int>(in),
                    bias ? 1.0f : 0.0f, y + c0, static_cast<int>(out));
    });
    if (then) then(y, rows * out);
}

void causal_softmax_row(const float* scores, float* y, std::size_t n_valid, std::size_t n_total, float divisor) {
    if (n_valid == 0) return;
    for (std::size_t i = 0; i < n_valid; ++i) y[i] = scores[i] / divisor;  // masked / sqrt(hs); -inf stays -inf
    const float max = *std::max_element(y, y + n_valid);                   // the -inf entries never win
    for (std::size_t i = 0; i < n_valid; ++i) y[i] -= max;
    vec_exp(y, y, n_valid);  // exp(-inf) is exactly 0 for the masked ones: they add nothing below
    constexpr std::size_t kLanes = 8;
    float sum;
    if (n_total >= kLanes && n_valid < kLanes) {  // the full row would be summed lane-wise: pad with the zeros
        std::array<float, kLanes> padded{};
        std::copy(y, y + n_valid, padded.begin());
        sum = reduce_all_sum(padded.data(), kLanes);
    } else {
        sum = reduce_all_sum(y, n_valid);  // the same lanes as n_total values whose tail is zeros
    }
    const float inv_sum = 1.0f / sum;
    for (std::size_t i = 0; i < n_valid; ++i) y[i] *= inv_sum;
}

void causal_attention_head(const float* q, std::size_t ldq, const float* k, const float* v, std::size_t ldkv,
                           float* out, std::size_t ldo, std::size_t tq, std::size_t offset, std::size_t hs,
                           std::vector<float>& scratch, bool causal) {
    SingleThreadedBlas single;  // small products, on the calling thread: the same bits whatever OpenBLAS's thread count
    constexpr std::size_t kBlock = 64;  // query rows per block: small enough to skip most of the masked half
    const auto divisor = static_cast<float>(std::pow(static_cast<double>(hs), 0.5));  // keys.shape[-1]**0.5
    const std::size_t n_total = offset + tq;
    scratch.resize(std::min(tq, kBlock) * n_total);
    for (std::size_t r0 = 0; r0 < tq; r0 += kBlock) {
        const std::size_t rows = std::min(kBlock, tq - r0);
        const std::size_t nk = causal ? offset + r0 + rows : n_total;  // keys the block's last row can see
        float* s = scratch.data();                  // [rows, nk]
        const float* qb = q + r0 * ldq;
        if (rows == 1) {  // scores = K[0:nk] @ q
            std::fill(s, s + nk, 0.0f);
            cblas_sgemv(CblasRowMajor, CblasNoTrans, static_cast<int>(nk), static_cast<int>(hs), 1.0f, k,
                        static_cast<int>(ldkv), qb, 1, 0.0f, s, 1);
        } else {  // scores = Q_block @ K[0:nk]^T
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows), static_cast<int>(nk),
                        static_cast<int>(hs), 1.0f, qb, static_cast<int>(ldq), k, static_cast<int>(ldkv), 0.0f, s,
                        static_cast<int>(nk));
        }
        for (std::size_t i = 0; i < rows; ++i) {
            const std::size_t n_valid = causal ? offset + r0 + i + 1 : n_total;
            float* row = s + i * nk;
            causal_softmax_row(row, row, n_valid, n_total, divisor);
            std::fill(row + n_valid, row + nk, 0.0f);  // the masked weights within the block
        }
        float* ob = out + r0 * ldo;
        if (rows == 1) {  // out = V[0:nk]^T @ w
            std::fill(ob, ob + hs, 0.0f);
            cblas_sgemv(CblasRowMajor, CblasTrans, static_cast<int>(nk), static_cast<int>(hs), 1.0f, v,
                        static_cast<int>(ldkv), s, 1, 0.0f, ob, 1);
        } else {  // out = W_block @ V[0:nk]
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows), static_cast<int>(hs),
                        static_cast<int>(nk), 1.0f, s, static_cast<int>(nk), v, static_cast<int>(ldkv), 0.0f, ob,
                        static_cast<int>(ldo));
        }
    }
}

void gelu_inplace(float* x, std::size_t n) {
    const float c = std::sqrt(static_cast<float>(2.0 / M_PI));  // torch.sqrt(torch.tensor(2.0 / torch.pi))
    constexpr std::size_t kChunk = 1024;  // stays in L1 between the two passes
    std::array<float, kChunk> inner;
    for (std::size_t i0 = 0; i0 < n; i0 += kChunk) {
        const std::size_t m = std::min(kChunk, n - i0);
        float* xs = x + i0;
        for (std::size_t i = 0; i < m; ++i) {
            const float cube = xs[i] * xs[i] * xs[i];                   // torch.pow(x, 3)
            inner[i] = c * (xs[i] + 0.044715f * cube);                  // c * (x + 0.044715 * x^3)
        }
        vec_tanh(inner.data(), inner.data(), m);                         // torch.tanh(...)
        for (std::size_t i = 0; i < m; ++i) xs[i] = 0.5f * xs[i] * (1.0f + inner[i]);  // 0.5 * x * (1 + tanh)
    }
}

float population_variance(const float* x, std::size_t n) {
    // Pass 1: sum and sum of squares, in double, 8 accumulators (any order keeps the bound below).
    constexpr std::size_t kAcc = 8;
    std::array<double, kAcc> sum{}, squares{};
    std::size_t i = 0;
    for (; i + kAcc <= n; i += kAcc)
        for (std::size_t l = 0; l < kAcc; ++l) {
            const double value = x[i + l];
            sum[l] += value;
            squares[l] += value * value;
        }
    for (std::size_t l = 0; i + l < n; ++l) {
        const double value = x[i + l];
        sum[l] += value;
        squares[l] += value * value;
    }
    double total = 0.0, total_squares = 0.0;
    for (std::size_t l = 0; l < kAcc; ++l) {
        total += sum[l];
        total_squares += squares[l];
    }
    const double nf = static_cast<double>(n), mean = total / nf;
    // Pass 2: the squared deviations from that mean.
    std::array<double, kAcc> deviations{};
    for (i = 0; i + kAcc <= n; i += kAcc)
        for (std::size_t l = 0; l < kAcc; ++l) {
            const double d = x[i + l] - mean;
            deviations[l] += d * d;
        }
    for (std::size_t l = 0; i + l < n; ++l) {
        const double d = x[i + l] - mean;
        deviations[l] += d * d;
    }
    double m2 = 0.0;
    for (double d : deviations) m2 += d;
    const double var = m2 / nf;
    // Both doubles lie within n * kappa * u * var (Welford's, Chan, Golub and LeVeque 1983) and about
    // n * u * var (two passes) of the exact variance, u = 2^-53, kappa^2 = 1 + mean^2 / var; both
    // bounds are below u * sum(x^2). With 64 times that between `var` and either end of its float's
    // rounding interval, Welford's double rounds to the same float. Otherwise (1 row in 9,000 of 768
    // normal floats centred on 0, 1 in 740 centred 3 standard deviations off), and for rows that are
    // empty, constant, not finite or near float's ends, Welford's chain itself.
    const float rounded = static_cast<float>(var);
    if (n == 0 || !std::isfinite(total_squares) || !(var >= std::numeric_limits<float>::min()) || !std::isfinite(rounded))
        return welford_var(x, n, 1, 0.0);
    const double margin = 64.0 * std::numeric_limits<double>::epsilon() / 2 * total_squares;
    const double below = (static_cast<double>(rounded) + std::nextafter(rounded, 0.0f)) / 2;  // exact: 25 bits
    const double above = (static_cast<double>(rounded) + std::nextafter(rounded, std::numeric_limits<float>::infinity())) / 2;
    if (var - below > margin && above - var > margin) return rounded;
    return welford_var(x, n, 1, 0.0);
}

void layer_norm_rows(float* x, std::size_t rows, std::size_t n, const float* scale, const float* shift, float eps) {
    for (std::size_t r = 0; r < rows; ++r) {
        float* row = x + r * n;
        const float mean = reduce_sum(row, n) / static_cast<float>(n);  // x.mean(dim=-1, keepdim=True)
        const float var = population_variance(row, n);                  // x.var(dim=-1, unbiased=False)
        const float denom = std::sqrt(var + eps);                       // torch.sqrt(var + self.eps)
        for (std::size_t i = 0; i < n; ++i) row[i] = scale[i] * ((row[i] - mean) / denom) + shift[i];
    }
}

void for_each_head(std::size_t heads, std::size_t macs, const std::function<void(std::size_t, std::vector<float>&)>& fn) {
    struct Timed {  // however the call ends
        std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
        ~Timed() { work_so_far.head_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
    } timed;
    SingleThreadedBlas single;  // a head's products are small: OpenBLAS's own threads would only get in the way
    if (macs < kHeadParallelMacs || compute_pool().size() == 1) {
        std::vector<float> scratch;
        for (std::size_t i = 0; i < heads; ++i) fn(i, scratch);
        return;
    }
    compute_pool().run(heads, [&](std::size_t i) {
        thread_local std::vector<float> scratch;  // kept between calls: no allocation per head
        fn(i, scratch);
    });
}

}  // namespace llmfs
