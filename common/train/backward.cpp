#include "llmfs/train/backward.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <cblas.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define LLMFS_BACKWARD_X86 1
#endif

#include "llmfs/fast/thread_pool.hpp"
#include "llmfs/torch/ops.hpp"
#include "llmfs/torch/vecmath.hpp"

namespace llmfs {

void linear_backward(const float* x, const float* W, const float* dy, std::size_t N, std::size_t C, std::size_t O, float* dx,
                     float* dW, float* db) {
    const int n = static_cast<int>(N), c = static_cast<int>(C), o = static_cast<int>(O);
    if (N > 0 && C > 0 && O > 0) {
        if (dx != nullptr) cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, c, n, o, 1.0f, W, c, dy, o, 0.0f, dx, c);
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, c, o, n, 1.0f, x, c, dy, o, 0.0f, dW, c);
    } else {  // an empty product: zeros, as PyTorch's
        if (dx != nullptr) std::fill(dx, dx + N * C, 0.0f);
        std::fill(dW, dW + O * C, 0.0f);
    }
    if (db != nullptr) sum_columns_pooled(dy, N, O, db);  // sum_to: dy.sum(0)
}

void gelu_backward(const float* x, const float* dy, float* dx, std::size_t n) {
    const float c = std::sqrt(static_cast<float>(2.0 / M_PI));  // torch.sqrt(torch.tensor(2.0 / torch.pi))
    std::vector<float> t(n);
    for (std::size_t i = 0; i < n; ++i) {
        const float cube = (x[i] * x[i]) * x[i];          // torch.pow(x, 3)
        t[i] = c * (x[i] + 0.044715f * cube);             // c * (x + 0.044715 * x^3)
    }
    vec_tanh(t.data(), t.data(), n);                      // torch.tanh, saved for TanhBackward0
    for (std::size_t i = 0; i < n; ++i) {
        const float g = dy[i];
        const float ga = g * (1.0f + t[i]);               // grad * other, other = 1 + tanh(...)
        const float gb = g * (0.5f * x[i]);               // grad * self, self = 0.5 * x
        const float gt = gb * std::fma(-t[i], t[i], 1.0f); // tanh_backward: grad * (1 - t * t)
        const float gs = gt * c;
        const float gp = gs * 0.044715f;
        const float from_pow = gp * (3.0f * (x[i] * x[i])); // pow_backward: grad * (3 * x^2)
        dx[i] = (gs + from_pow) + ga * 0.5f;               // x's gradients in arrival order
    }
}

void layer_norm_backward(const float* x, const float* scale, const float* dy, std::size_t N, std::size_t C, float eps, float* dx,
                         float* dscale, float* dshift, bool accumulate) {
    std::vector<float> a(N * C), norm_x(N * C), s(N), mean(N);
    for (std::size_t r = 0; r < N; ++r) {  // the forward's values autograd saved
        const float* row = x + r * C;
        mean[r] = reduce_sum(row, C) / static_cast<float>(C);            // x.mean(dim=-1, keepdim=True)
        const float var = welford_var(row, C, 1, 0.0);                    // x.var(dim=-1, unbiased=False)
        s[r] = std::sqrt(var + eps);                                      // torch.sqrt(var + self.eps)
        for (std::size_t c = 0; c < C; ++c) {
            a[r * C + c] = row[c] - mean[r];                              // x - mean
            norm_x[r * C + c] = a[r * C + c] / s[r];
        }
    }
    std::vector<float> work(N * C);
    sum_columns(dy, N, C, dshift);                                        // shift: sum_to(grad, [C])
    for (std::size_t i = 0; i < N * C; ++i) work[i] = dy[i] * norm_x[i];
    sum_columns(work.data(), N, C, dscale);                               // scale: sum_to(grad * norm_x, [C])
    const float two_over_c = static_cast<float>(2.0 / static_cast<double>(C));  // var_backward's 2 / (C - 0)
    std::vector<float> gn(C), ga(C), q(C);
    for (std::size_t r = 0; r < N; ++r) {
        const float* g = dy + r * C;
        for (std::size_t c = 0; c < C; ++c) {
            gn[c] = g[c] * scale[c];                                      // norm_x's gradient: grad * scale
            ga[c] = gn[c] / s[r];                                         // DivBackward0, self: grad / other
            q[c] = -gn[c] * ((a[r * C + c] / s[r]) / s[r]);              // other: -grad * ((self / other) / other)
        }
        const float gs = reduce_sum(q.data(), C);                         // sum_to [N, 1]
        const float gv = gs / (2.0f * s[r]);                              // SqrtBackward0: grad / (2 * result)
        for (std::size_t c = 0; c < C; ++c) q[c] = -ga[c];
        const float gm = reduce_sum(q.data(), C);                         // SubBackward0, other: sum_to(-grad)
        float* out = dx + r * C;
        for (std::size_t c = 0; c < C; ++c) {
            const float from_var = (two_over_c * gv) * (x[r * C + c] - mean[r]);
            const float from_mean = gm / static_cast<float>(C);
            out[c] = ((accumulate ? out[c] + ga[c] : ga[c]) + from_var) + from_mean;
        }
    }
}

void for_ranges(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& fn) {
    const std::size_t ranges = (n + grain - 1) / std::max<std::size_t>(grain, 1);
    if (ranges <= 1 || compute_pool().size() == 1) {
        if (n > 0) fn(0, n);
        return;
    }
    compute_pool().run(ranges, [&](std::size_t r) { fn(r * grain, std::min(n, (r + 1) * grain)); });
}

void sum_columns_pooled(const float* x, std::size_t rows, std::size_t cols, float* out) {
    const std::size_t pieces = std::min<std::size_t>(cols / 64 + 1, 4 * compute_pool().size());
    const std::size_t grain = std::max<std::size_t>(8, (cols / pieces + 7) / 8 * 8);  // whole 8-column passes
    for_ranges(cols, grain, [&](std::size_t first, std::size_t last) { sum_columns_range(x, rows, cols, first, last, out); });
}

namespace {

// gelu_backward's second loop over elements [first, last): t holds tanh(...) of each.
inline __attribute__((always_inline)) void gelu_grad_range(const float* x, const float* dy, const float* t, float* dx, std::size_t n, float c) {
    for (std::size_t i = 0; i < n; ++i) {
        const float g = dy[i];
        const float ga = g * (1.0f + t[i]);
        const float gb = g * (0.5f * x[i]);
        const float gt = gb * std::fma(-t[i], t[i], 1.0f);
        const float gs = gt * c;
        const float gp = gs * 0.044715f;
        const float from_pow = gp * (3.0f * (x[i] * x[i]));
        dx[i] = (gs + from_pow) + ga * 0.5f;
    }
}

void gelu_grad_portable(const float* x, const float* dy, const float* t, float* dx, std::size_t n, float c) {
    gelu_grad_range(x, dy, t, dx, n, c);
}

#if LLMFS_BACKWARD_X86
bool has_fma() {
    static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return yes;
}
// The same operations; std::fma becomes the FMA unit's instruction here.
__attribute__((target("avx2,fma"))) void gelu_grad_fma(const float* x, const float* dy, const float* t, float* dx, std::size_t n, float c) {
    gelu_grad_range(x, dy, t, dx, n, c);
}
#endif

}  // namespace

void gelu_backward_fast(const float* x, const float* dy, float* dx, std::size_t n) {
    const float c = std::sqrt(static_cast<float>(2.0 / M_PI));
    for_ranges(n, std::size_t{1} << 14, [&](std::size_t first, std::size_t last) {
        thread_local std::vector<float> t;
        const std::size_t m = last - first;
        t.resize(m);
        const float* xs = x + first;
        for (std::size_t i = 0; i < m; ++i) t[i] = c * (xs[i] + 0.044715f * ((xs[i] * xs[i]) * xs[i]));
        vec_tanh(t.data(), t.data(), m);  // SLEEF's tanh gives each element the same bits wherever the range starts
#if LLMFS_BACKWARD_X86
        if (has_fma()) return gelu_grad_fma(xs, dy + first, t.data(), dx + first, m, c);
#endif
        gelu_grad_portable(xs, dy + first, t.data(), dx + first, m, c);
    });
}

void layer_norm_backward_fast(const float* x, const float* scale, const float* dy, std::size_t N, std::size_t C, float eps, float* dx,
                              float* dscale, float* dshift, bool accumulate) {
    thread_local std::vector<float> work;  // [N, C] dy * norm_x, for dscale's column sums (the caller's thread's)
    work.resize(N * C);
    float* const w = work.data();
    const float two_over_c = static_cast<float>(2.0 / static_cast<double>(C));
    for_ranges(N, 16, [&](std::size_t first, std::size_t last) {
        thread_local std::vector<float> a, gn, ga, q;
        a.resize(C), gn.resize(C), ga.resize(C), q.resize(C);
        for (std::size_t r = first; r < last; ++r) {  // layer_norm_backward's two row loops, one row at a time
            const float* row = x + r * C;
            const float* g = dy + r * C;
            const float mean = reduce_sum(row, C) / static_cast<float>(C);
            const float var = welford_var(row, C, 1, 0.0);
            const float s = std::sqrt(var + eps);
            for (std::size_t c = 0; c < C; ++c) {
                a[c] = row[c] - mean;
                w[r * C + c] = g[c] * (a[c] / s);  // grad * norm_x
                gn[c] = g[c] * scale[c];
                ga[c] = gn[c] / s;
                q[c] = -gn[c] * ((a[c] / s) / s);
            }
            const float gs = reduce_sum(q.data(), C);
            const float gv = gs / (2.0f * s);
            for (std::size_t c = 0; c < C; ++c) q[c] = -ga[c];
            const float gm = reduce_sum(q.data(), C);
            float* out = dx + r * C;
            for (std::size_t c = 0; c < C; ++c) {
                const float from_var = (two_over_c * gv) * (row[c] - mean);
                const float from_mean = gm / static_cast<float>(C);
                out[c] = ((accumulate ? out[c] + ga[c] : ga[c]) + from_var) + from_mean;
            }
        }
    });
    sum_columns_pooled(dy, N, C, dshift);  // shift: sum_to(grad, [C])
    sum_columns_pooled(w, N, C, dscale);   // scale: sum_to(grad * norm_x, [C])
}

void embedding_backward(const std::int64_t* ids, const float* dy, std::size_t N, std::size_t V, std::size_t C, float* dW) {
    std::fill(dW, dW + V * C, 0.0f);
    for (std::size_t i = 0; i < N; ++i) {
        if (ids[i] < 0 || static_cast<std::size_t>(ids[i]) >= V)
            throw std::invalid_argument("embedding_backward: id " + std::to_string(ids[i]) + " of row " + std::to_string(i) +
                                        " is out of range for " + std::to_string(V) + " embeddings");
        float* row = dW + static_cast<std::size_t>(ids[i]) * C;
        const float* g = dy + i * C;
        for (std::size_t c = 0; c < C; ++c) row[c] += g[c];  // grad_weight[ids[i]] += grad[i]
    }
}

void position_embedding_backward(const float* dy, std::size_t B, std::size_t T, std::size_t C, std::size_t context, float* dW) {
    if (T > context)
        throw std::invalid_argument("position_embedding_backward: " + std::to_string(T) + " positions, the context holds " +
                                    std::to_string(context));
    std::fill(dW, dW + context * C, 0.0f);
    // sum_to [T, C]: dy.sum(0); then pos_emb's backward for ids 0 .. T-1 (each once: 0 + g)
    std::vector<float> summed(T * C);
    sum_columns(dy, B, T * C, summed.data());
    for (std::size_t i = 0; i < T * C; ++i) dW[i] += summed[i];
}

}  // namespace llmfs
