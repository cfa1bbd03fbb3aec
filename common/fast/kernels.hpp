// Fast kernels for generation and benchmarks. Each sits beside the plain teaching code it replaces
// (named on each line below) and kernels_test.cpp proves the two agree: bit for bit where the
// kernel performs the same float operations in the same order, to a stated tolerance where it
// sums in another order (gemv, the many-row products). Chapter programs never print what these
// compute; generation uses them only where tests prove the tokens identical to the teaching path.
//
// Raw row-major float buffers with explicit leading dimensions (ld*), so a head's [T, hs] slice
// of a [T, C] projection is used in place, without a transposed copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "llmfs/fast/thread_pool.hpp"

namespace llmfs {

// OpenBLAS single-threaded for the scope of one (nests): while the pool's threads call it, and for
// the small products of decoding (a head's scores against 144 cached keys or more), which OpenBLAS
// would otherwise hand half to its own worker thread. That thread then spins in sched_yield() for a
// while after each call, on a core the pool needs: 10% of a decode's samples before this.
class SingleThreadedBlas {
public:
    SingleThreadedBlas();
    ~SingleThreadedBlas();
    SingleThreadedBlas(const SingleThreadedBlas&) = delete;
    SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;

private:
    int threads_;
};

// The dot product behind gemv, in an order fixed here so that every CPU gives the same bits: 32
// lanes, lane l summing w[i] * x[i] for the i = l (mod 32) in increasing i (each product rounded,
// then each sum: no fused multiply-add), then the lanes added pairwise (lane[l] += lane[l + 16], then
// + 8, 4, 2, 1). Plain loops the compiler turns into SSE, AVX or NEON vectors without changing a
// lane's operations. Teaching version: the sum inside x @ W^T.
constexpr std::size_t kDotLanes = 32;
float dot_lanes(const float* w, const float* x, std::size_t k);

// An elementwise function over n floats in place (gelu_inplace), applied to each finished piece of
// a product's output: on the thread that computed the piece, while it is still in that core's cache.
using RowsFn = void (*)(float* y, std::size_t n);

// y[n] = onto[n] + W[n, k] @ x[k]: one row through nn.Linear (x @ W^T, onto its bias), one dot_lanes
// per row of W, so W streams through once, row after row. (OpenBLAS's sgemv, its Cooperlake kernel
// there, read 13 to 15 GB/s a core on the Zen 4 VM where this reads 25 to 27.) Teaching version:
// gemm with m = 1. onto may be y itself (y += W @ x), or null (y = W @ x). Large products run on
// compute_pool() (thread_pool.hpp) in chunks of rows of W, with the same bits as gemv_one_call;
// `then`, if given, is applied to y after, piece by piece.
void gemv(const float* w, const float* x, float* y, std::size_t n, std::size_t k, const float* onto,
          RowsFn then = nullptr);
// Several such products in one run of the pool (y = onto + W @ x each, as gemv): Q, K and V of one token,
// SwiGLU's fc1 and fc2. The same bits as one gemv each; the threads go on to the next product's rows
// instead of meeting at the end of each. Each row's sum is added to onto on the thread that computed
// it, so the caller writes nothing into y beforehand: y's cache lines are not moved from its core
// to the others' in the middle of their streams.
struct GemvProduct {
    const float* w;  // [n, k]
    const float* x;  // [k]
    float* y;        // [n]
    std::size_t n, k;
    const float* onto = nullptr;  // [n]: a bias, or y itself (y += W @ x); null: 0 (y = W @ x)
    RowsFn then = nullptr;        // applied to y once W @ x is in it (pieces of y in any order: elementwise only)
};
void gemv_many(const std::vector<GemvProduct>& products);
// The row loop of gemv's pooled runs sums three rows at once, from three thirds of each chunk
// (gemv_three_streams): each 8 floats of x are loaded once for three rows, and W is read as three
// streams, each prefetched 4 KB ahead (the two cache lines of every 32 floats). On this project's
// 2-core Emerald Rapids VM, idle (2026-11-29, llmfs-bench generate --kv-cache, 6 runs each, ABBA),
// a decoding step read 92.7% of its bandwidth bound with it, 83.9% without the prefetches and 72.8%
// one row at a time without them (docs/performance-history.md). Every form has the same float
// operations in the same order for each row, so the same bits.
// What the calling thread's gemv products and for_each_head calls have taken so far, for
// benchmarks' reports of where a decoding step's time goes (llmfs-bench): the difference of two
// readings covers the calls between them.
struct GemvRuns {
    double seconds = 0.0;                      // the wall time of gemv_many calls (gemv's too), pooled or not
    double bytes = 0.0;                        // the bytes of W they read
    double head_seconds = 0.0;                 // the wall time of for_each_head calls, pooled or not
};
GemvRuns gemv_runs();
// The same product on the calling thread alone: the reference the pooled gemv is tested against.
void gemv_one_call(const float* w, const float* x, float* y, std::size_t n, std::size_t k, bool accumulate);
// y[n] = onto[n] (or 0) + W[n, k] @ x[k] on the calling thread, as the row loop of gemv's pooled
// runs reads each chunk of W: the n rows cut into three
// thirds of n / 3 rows (the n % 3 left over go last, one at a time), row j of each third summed side
// by side, so that each 8 floats of x are loaded once for three rows and W is read as three streams.
// Each row is still one dot_lanes: the same bits as gemv_one_call. onto may be y itself.
void gemv_three_streams(const float* w, const float* x, float* y, std::size_t n, std::size_t k, const float* onto);

// The sum of x[0, n), read the way gemv reads a weight: on compute_pool() in chunks cut as gemv_many
// cuts W (64 KB, each thread its own contiguous share), each summed in 32 lanes by a loop built like gemv's
// (the AVX2 clone on x86-64 Linux), as three streams like gemv_three_streams (a third of the chunk
// each). Not for results: benchmarks time it as the read bandwidth that bounds a decoding step
// (llmfs-bench). On the busy Zen 3 VM three streams read 15% faster than one (2026-11-28), so
// one stream would understate the bound.
float read_pass(const float* x, std::size_t n);

// nn.Linear on rows: y [rows, out] = x [rows, in] @ w [out, in]^T (+ bias [out], may be null).
// One row goes through gemv; more rows through single-threaded sgemm calls on fixed blocks of
// output columns, run on the pool (by default compute_pool()). The blocks depend on `out` only, so
// the bits do not depend on the thread count or on which thread runs a block; they may differ in
// the last bit from one whole sgemm call (the teaching path), which the generation tests allow:
// they require the same tokens. (OpenBLAS's own threading of one call changes bits with its thread
// count under some kernels, e.g. Haswell.)
// `then`, if given, is applied to y afterwards (fc1 then GELU); for one row, piece by piece inside
// the pooled gemv, on the thread that computed each piece: the same bits as applying it after.
void linear_rows(const float* x, std::size_t rows, const float* w, const float* bias, std::size_t in, std::size_t out,
                 float* y, RowsFn then = nullptr);
void linear_rows(ThreadPool& pool, const float* x, std::size_t rows, const float* w, const float* bias, std::size_t in,
                 std::size_t out, float* y, RowsFn then = nullptr);

// Several nn.Linear layers on the same rows x [rows, in] (Q, K and V; SwiGLU's fc1 and fc2): the
// same bits as one linear_rows call each; a single row goes through one gemv_many.
struct LinearOutput {
    const float* w;     // [out, in]
    const float* bias;  // [out], or null
    std::size_t out;
    float* y;           // [rows, out]
};
void linear_rows_many(const float* x, std::size_t rows, std::size_t in, const std::vector<LinearOutput>& layers);

// Fused masked, scaled softmax over one row of scores, as the teaching path computes
//   softmax(scores.masked_fill(mask, -inf) / divisor, dim=-1)
// for a row of n_total scores whose first n_valid are unmasked. Reads and writes only those
// n_valid (the masked probabilities are exactly 0); bit-identical to masked_fill + divide +
// softmax_row because it reproduces the lane order PyTorch's reduction uses for n_total values.
void causal_softmax_row(const float* scores, float* y, std::size_t n_valid, std::size_t n_total, float divisor);

// One attention head with a causal mask, skipping the masked half of both products:
//   out[i] = softmax((q[i] . k[j]) / sqrt(hs) for j <= offset + i) @ v[0 .. offset + i]
// q [Tq, hs] (leading dim ldq) holds queries at positions offset .. offset + Tq - 1; k, v
// [offset + Tq, hs] (leading dim ldkv); out [Tq, hs] (leading dim ldo). Rows are done in
// blocks; each block's scores are computed only against the keys it can see. One query row
// (decoding with a cache) uses gemv. Teaching version: MultiHeadAttention::forward's
// matmul / masked_fill / softmax / matmul.
// causal false: no mask, every query against all offset + Tq keys (disable_causal_mask).
void causal_attention_head(const float* q, std::size_t ldq, const float* k, const float* v, std::size_t ldkv,
                           float* out, std::size_t ldo, std::size_t tq, std::size_t offset, std::size_t hs,
                           std::vector<float>& scratch, bool causal = true);

// GELU, the book's tanh approximation, in place over n floats, fused into one pass: the same
// float operations as gelu() in gpt.hpp, in the same order, so bit-identical to it.
void gelu_inplace(float* x, std::size_t n);

// x.var(dim=-1, unbiased=False) of one row of n floats, the float welford_var(x, n, 1, 0.0) returns,
// in two vectorisable passes in double instead of Welford's chain of n dependent divisions (0.3
// against 3.5 us for 768 floats). The chain runs where the two doubles could round differently
// (within a margin of a float's rounding boundary, 64 times the two error bounds: 1 row in 9,000 of
// normal floats centred on 0), so the bits are the chain's always.
float population_variance(const float* x, std::size_t n);

// LayerNorm over rows of n floats in place: the same result as LayerNorm::operator() (PyTorch
// order sum for the mean; the variance of population_variance, Welford's float), fused per row,
// so bit-identical to it.
void layer_norm_rows(float* x, std::size_t rows, std::size_t n, const float* scale, const float* shift, float eps);

// The heads of one attention: fn(i, scratch) for every head i in [0, heads), each writing only its
// own columns of the context, scratch a buffer of the running thread's own; OpenBLAS single-threaded
// meanwhile. On compute_pool() once the heads multiply at least `macs` >= 2^12 together, e.g.
// a decoding step's 12 heads against 6 cached keys of 64 floats; else on the calling thread.
// A head's bits do not depend on which thread runs it.
void for_each_head(std::size_t heads, std::size_t macs, const std::function<void(std::size_t, std::vector<float>&)>& fn);

}  // namespace llmfs
