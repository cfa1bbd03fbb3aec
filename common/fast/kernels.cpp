#include "llmfs/fast/kernels.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <cblas.h>

#include "llmfs/fast/thread_pool.hpp"
#include "llmfs/torch/ops.hpp"
#include "llmfs/torch/vecmath.hpp"

namespace llmfs {

namespace {

// OpenBLAS single-threaded while the pool's threads call it: its own threads would fight ours
// (and a pthreads OpenBLAS serialises concurrent threaded calls).
class SingleThreadedBlas {
public:
    SingleThreadedBlas() : threads_(openblas_get_num_threads()) {
        if (threads_ != 1) openblas_set_num_threads(1);
    }
    ~SingleThreadedBlas() {
        if (threads_ != 1) openblas_set_num_threads(threads_);
    }
    SingleThreadedBlas(const SingleThreadedBlas&) = delete;
    SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;

private:
    int threads_;
};

// Products smaller than this many multiply-adds run on the calling thread.
constexpr std::size_t kParallelMacs = 1 << 16;

// Output columns (rows of the weight) per chunk when a product's n output columns are cut into
// about `pieces` chunks: a multiple of 64, so that every chunk but the last is a whole number of any
// BLAS kernel's column blocks, and the last one ends where the whole product ends.
std::size_t columns_per_chunk(std::size_t n, std::size_t pieces) {
    constexpr std::size_t kAlign = 64;
    return std::max(kAlign, (n / pieces + kAlign - 1) / kAlign * kAlign);
}

void gemv_block(const float* w, const float* x, float* y, std::size_t n, std::size_t k) {
    cblas_sgemv(CblasRowMajor, CblasNoTrans, static_cast<int>(n), static_cast<int>(k), 1.0f, w, static_cast<int>(k), x,
                1, 1.0f, y, 1);
}

}  // namespace

void gemv(const float* w, const float* x, float* y, std::size_t n, std::size_t k, bool accumulate) {
    if (n == 0) return;
    if (!accumulate) std::fill(y, y + n, 0.0f);  // never rely on BLAS ignoring y when beta = 0
    if (k == 0) return;
    SingleThreadedBlas single;  // LLMFS_THREADS=1 means one thread, OpenBLAS's included
    const std::size_t threads = compute_pool().size();
    if (threads == 1 || n * k < kParallelMacs) {
        gemv_block(w, x, y, n, k);
        return;
    }
    // Rows [r0, r1) of y = W @ x: each row's dot product is summed by the same kernel code, whichever
    // chunk it falls in (kernels_test.cpp checks bit-equality with one call).
    parallel_chunks(n, columns_per_chunk(n, threads * 16),  // ~16 a thread: a descheduled one holds up little
                    [&](std::size_t r0, std::size_t r1) { gemv_block(w + r0 * k, x, y + r0, r1 - r0, k); });
}

void gemv_one_call(const float* w, const float* x, float* y, std::size_t n, std::size_t k, bool accumulate) {
    if (n == 0) return;
    if (!accumulate) std::fill(y, y + n, 0.0f);
    if (k == 0) return;
    SingleThreadedBlas single;
    gemv_block(w, x, y, n, k);
}

void linear_rows(const float* x, std::size_t rows, const float* w, const float* bias, std::size_t in, std::size_t out,
                 float* y) {
    linear_rows(compute_pool(), x, rows, w, bias, in, out, y);
}

void linear_rows(ThreadPool& pool, const float* x, std::size_t rows, const float* w, const float* bias, std::size_t in,
                 std::size_t out, float* y) {
    if (bias)
        for (std::size_t r = 0; r < rows; ++r) std::copy(bias, bias + out, y + r * out);
    if (rows == 1) {
        gemv(w, x, y, out, in, bias != nullptr);
        return;
    }
    if (rows == 0 || out == 0) return;
    if (in == 0) {
        if (!bias) std::fill(y, y + rows * out, 0.0f);
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
                           std::vector<float>& scratch) {
    constexpr std::size_t kBlock = 64;  // query rows per block: small enough to skip most of the masked half
    const auto divisor = static_cast<float>(std::pow(static_cast<double>(hs), 0.5));  // keys.shape[-1]**0.5
    const std::size_t n_total = offset + tq;
    scratch.resize(std::min(tq, kBlock) * n_total);
    for (std::size_t r0 = 0; r0 < tq; r0 += kBlock) {
        const std::size_t rows = std::min(kBlock, tq - r0);
        const std::size_t nk = offset + r0 + rows;  // keys the block's last row can see
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
            const std::size_t n_valid = offset + r0 + i + 1;
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

void layer_norm_rows(float* x, std::size_t rows, std::size_t n, const float* scale, const float* shift, float eps) {
    for (std::size_t r = 0; r < rows; ++r) {
        float* row = x + r * n;
        const float mean = reduce_sum(row, n) / static_cast<float>(n);  // x.mean(dim=-1, keepdim=True)
        const float var = welford_var(row, n, 1, 0.0);                  // x.var(dim=-1, unbiased=False)
        const float denom = std::sqrt(var + eps);                       // torch.sqrt(var + self.eps)
        for (std::size_t i = 0; i < n; ++i) row[i] = scale[i] * ((row[i] - mean) / denom) + shift[i];
    }
}

void parallel_for(std::size_t n, const std::function<void(std::size_t)>& fn) {
    SingleThreadedBlas single;
    compute_pool().run(n, fn);
}

}  // namespace llmfs
