#include "llmfs/train/attention_backward.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>

#include <cblas.h>

#include "llmfs/fast/kernels.hpp"
#include "llmfs/fast/thread_pool.hpp"
#include "llmfs/torch/ops.hpp"
#include "llmfs/train/backward.hpp"

namespace llmfs {

namespace {

constexpr std::size_t kLanes = 8;  // PyTorch's Vectorized<float>::size() (AVX2)

// A bmm's matrix as PyTorch multiplies it: below 400 multiply-adds the plain loop (as gemm_naive
// and the forward), else OpenBLAS. c[i][j] = sum_p a(i, p) * b(p, j), m x n, over k.
template <class A, class B>
void small_product(std::size_t m, std::size_t k, std::size_t n, A a, B b, float* c) {
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            float acc = 0.0f;
            for (std::size_t p = 0; p < k; ++p) acc += a(i, p) * b(p, j);
            c[i * n + j] = acc;
        }
}

bool small(std::size_t T, std::size_t hs) { return T * T * hs < 400; }

// SoftmaxBackward0 on one row of n: gi = (g - dot) * y, dot = sum(g * y) as vec::map2_reduce_all
// with GCC's contraction: the first 8 products rounded, then fused multiply-adds lane by lane (the
// tail's lanes too), then the lanes in PyTorch's reduction tree; fewer than 8: products added in order.
inline __attribute__((always_inline)) void softmax_backward_row_body(const float* g, const float* y, float* gi, std::size_t n) {
    float dot;
    if (n < kLanes) {
        dot = n ? g[0] * y[0] : 0.0f;
        for (std::size_t i = 1; i < n; ++i) dot += g[i] * y[i];
    } else {
        std::array<float, kLanes> acc;
        for (std::size_t l = 0; l < kLanes; ++l) acc[l] = g[l] * y[l];
        std::size_t d = kLanes;
        for (; d + kLanes <= n; d += kLanes)
            for (std::size_t l = 0; l < kLanes; ++l) acc[l] = std::fma(g[d + l], y[d + l], acc[l]);
        for (std::size_t l = 0; d + l < n; ++l) acc[l] = std::fma(g[d + l], y[d + l], acc[l]);
        dot = reduce_all_sum(acc.data(), kLanes);
    }
    for (std::size_t i = 0; i < n; ++i) gi[i] = (g[i] - dot) * y[i];
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// The same operations with the FMA unit's instruction for std::fma (one rounding either way).
__attribute__((target("avx2,fma"))) void softmax_backward_row_fma(const float* g, const float* y, float* gi, std::size_t n) {
    softmax_backward_row_body(g, y, gi, n);
}
bool has_fma() {
    static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return yes;
}
#endif

void softmax_backward_row(const float* g, const float* y, float* gi, std::size_t n) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (has_fma()) return softmax_backward_row_fma(g, y, gi, n);
#endif
    softmax_backward_row_body(g, y, gi, n);
}

// A head's elementwise work (copies, transposes, softmax, dropout) for every (batch, head) pair:
// on compute_pool() when `pooled`, else in order. The products between them stay on the calling
// thread, one after the other, each on OpenBLAS's own threads as PyTorch calls them: under some
// OpenBLAS kernels (Haswell's) a product's bits depend on how many threads share it, even when
// each sum is one K block, so the products may not move onto the pool's threads.
void for_heads(std::size_t heads, bool pooled, const std::function<void(std::size_t)>& fn) {
    if (!pooled || compute_pool().size() == 1) {
        for (std::size_t i = 0; i < heads; ++i) fn(i);
        return;
    }
    compute_pool().run(heads, fn);
}

}  // namespace

namespace {

// A LinearWithLoRA's backward (linear_layer_backward's comment): x's two gradients into from_lora
// and from_linear [N, C], the adapter's into g.
void lora_layer_backward(const Linear& layer, const float* x, const float* dy, std::size_t N, float* from_lora, float* from_linear,
                         LinearGrads& g) {
    const LoRA& lora = *layer.lora;
    const std::size_t C = layer.in_features(), O = layer.out_features(), r = lora.rank;
    const int n = static_cast<int>(N), c = static_cast<int>(C), o = static_cast<int>(O), k = static_cast<int>(r);
    g.weight.clear();
    g.bias.clear();
    g.lora_A.assign(C * r, 0.0f);
    g.lora_B.assign(r * O, 0.0f);
    thread_local std::vector<float> gs, t, dt;  // the calling thread's, reused from call to call
    gs.resize(N * O), t.resize(N * r), dt.resize(N * r);
    const float scale = lora.scale();
    float* gsp = gs.data();
    for_ranges(N * O, std::size_t{1} << 15, [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) gsp[i] = dy[i] * scale;  // MulBackward0
    });
    gemm(x, lora.A.data.data(), t.data(), N, C, r, /*b_transposed=*/false, /*accumulate=*/false);  // t = x @ A [N, r]
    const bool wants_dx = from_lora != nullptr;  // x needs a gradient (else its two products are skipped)
    if (N == 0 || C == 0 || O == 0) {  // empty products: zeros, as PyTorch's
        if (wants_dx) {
            std::fill(from_lora, from_lora + N * C, 0.0f);
            std::fill(from_linear, from_linear + N * C, 0.0f);
        }
        return;
    }
    const float* A = lora.A.data.data();
    const float* B = lora.B.data.data();
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, o, k, n, 1.0f, gs.data(), o, t.data(), k, 0.0f, g.lora_B.data(), o);  // dB
    cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, k, n, o, 1.0f, B, o, gs.data(), o, 0.0f, dt.data(), k);             // dt
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, k, c, n, 1.0f, dt.data(), k, x, c, 0.0f, g.lora_A.data(), k);      // dA
    if (!wants_dx) return;
    cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, c, n, k, 1.0f, A, k, dt.data(), k, 0.0f, from_lora, c);            // dt @ A^T
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, c, n, o, 1.0f, layer.weight.data.data(), c, dy, o, 0.0f, from_linear, c);  // dy @ W
}

// A LinearWithLoRAMerged's backward (linear_layer_backward's comment): x's one gradient into dx (or
// none), the adapter's into g.
void merged_lora_layer_backward(const Linear& layer, const float* x, const float* dy, std::size_t N, float* dx, LinearGrads& g) {
    const LoRA& lora = *layer.lora;
    const std::size_t C = layer.in_features(), O = layer.out_features(), r = lora.rank;
    const int c = static_cast<int>(C), o = static_cast<int>(O), k = static_cast<int>(r);
    g.weight.clear();
    g.bias.clear();
    g.lora_A.assign(C * r, 0.0f);
    g.lora_B.assign(r * O, 0.0f);
    thread_local std::vector<float> dmerged;  // the calling thread's, reused from call to call
    dmerged.resize(O * C);
    // AddmmBackward0 of F.linear(x, combined_weight, bias): x's gradient dy @ combined_weight, the
    // weight's dy^T @ x (linear_backward's products, with the merged weight)
    linear_backward(x, layer.forward_weight(), dy, N, C, O, dx, dmerged.data(), nullptr);
    if (C == 0 || O == 0) return;
    float* g2 = dmerged.data();
    const float scale = lora.scale();
    for (std::size_t i = 0; i < O * C; ++i) g2[i] = g2[i] * scale;  // MulBackward0: alpha * lora.T's gradient
    // TBackward0, then MmBackward0 of lora = A @ B, the gradient g2^T [in, out] a transposed view
    const float* A = lora.A.data.data();
    const float* B = lora.B.data.data();
    cblas_sgemm(CblasColMajor, CblasTrans, CblasTrans, k, c, o, 1.0f, B, o, g2, c, 0.0f, g.lora_A.data(), k);  // dA = g2^T @ B^T
    cblas_sgemm(CblasColMajor, CblasTrans, CblasTrans, o, k, c, 1.0f, g2, c, A, k, 0.0f, g.lora_B.data(), o);  // dB = A^T @ g2^T
}

// x's two gradients of a LinearWithLoRA, the calling thread's buffers reused from call to call.
struct LoRAInputGrads {
    std::vector<float>& from_lora;
    std::vector<float>& from_linear;
};
LoRAInputGrads lora_input_buffers(std::size_t n) {
    thread_local std::vector<float> from_lora, from_linear;
    from_lora.resize(n), from_linear.resize(n);
    return {from_lora, from_linear};
}

}  // namespace

void linear_layer_backward_add(const Linear& layer, const float* x, const float* dy, std::size_t N, float* dx, LinearGrads& g) {
    const std::size_t C = layer.in_features();
    const LoRAInputGrads buf = lora_input_buffers(N * C);
    const float *from_lora = buf.from_lora.data(), *from_linear = buf.from_linear.data();
    if (layer.lora && layer.lora->form == LoRAForm::separate) {
        lora_layer_backward(layer, x, dy, N, buf.from_lora.data(), buf.from_linear.data(), g);
        for_ranges(N * C, std::size_t{1} << 15, [&](std::size_t first, std::size_t last) {
            for (std::size_t i = first; i < last; ++i) dx[i] = (dx[i] + from_lora[i]) + from_linear[i];
        });
        return;
    }
    linear_layer_backward(layer, x, dy, N, buf.from_linear.data(), g);  // a plain or merged layer: x's one gradient
    for_ranges(N * C, std::size_t{1} << 15, [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) dx[i] = dx[i] + from_linear[i];
    });
}

void linear_layer_backward(const Linear& layer, const float* x, const float* dy, std::size_t N, float* dx, LinearGrads& g) {
    if (layer.lora && layer.lora->form == LoRAForm::merged) {
        merged_lora_layer_backward(layer, x, dy, N, dx, g);
        return;
    }
    if (layer.lora) {
        if (dx == nullptr) {
            lora_layer_backward(layer, x, dy, N, nullptr, nullptr, g);
            return;
        }
        const LoRAInputGrads buf = lora_input_buffers(N * layer.in_features());
        const float *from_lora = buf.from_lora.data(), *from_linear = buf.from_linear.data();
        lora_layer_backward(layer, x, dy, N, buf.from_lora.data(), buf.from_linear.data(), g);
        for_ranges(N * layer.in_features(), std::size_t{1} << 15, [&](std::size_t first, std::size_t last) {
            for (std::size_t i = first; i < last; ++i) dx[i] = from_lora[i] + from_linear[i];
        });
        return;
    }
    g.weight.resize(layer.weight.data.size());  // every value set below
    g.bias.resize(layer.bias ? layer.bias->data.size() : 0);
    linear_backward(x, layer.weight.data.data(), dy, N, layer.in_features(), layer.out_features(), dx, g.weight.data(),
                    layer.bias ? g.bias.data() : nullptr);
}

Tensor<3> attention_forward(const MultiHeadAttention& mha, const Tensor<3>& x, AttentionSaved& s) {
    const std::size_t B = x.size(0), T = x.size(1), NH = mha.num_heads, hs = mha.head_dim;
    s.B = B, s.T = T, s.NH = NH, s.hs = hs;
    s.x.assign(x.data.begin(), x.data.end());
    const std::array<std::size_t, 4> split{B, T, NH, hs};
    const Tensor<4> keys(xt::eval(transpose(view(mha.W_key(x), split), 1, 2).data));      // [B, NH, T, hs]
    const Tensor<4> queries(xt::eval(transpose(view(mha.W_query(x), split), 1, 2).data));
    const Tensor<4> values(xt::eval(transpose(view(mha.W_value(x), split), 1, 2).data));
    s.q.assign(queries.data.begin(), queries.data.end());
    s.k.assign(keys.data.begin(), keys.data.end());
    s.v.assign(values.data.begin(), values.data.end());
    auto scores = matmul(queries, Tensor<4>(xt::eval(transpose(keys, 2, 3).data)));      // [B, NH, T, T]
    if (mha.causal) scores = masked_fill(scores, causal_mask(T), kNegInf);                 // masked_fill_(mask_bool, -inf)
    const auto weights = softmax(scores / std::pow(static_cast<double>(hs), 0.5), -1);      // / keys.shape[-1]**0.5
    s.y.assign(weights.data.begin(), weights.data.end());
    s.a = s.y;
    s.noise.clear();
    if (mha.dropout.training() && mha.dropout.p() != 0.0 && !s.y.empty()) {  // self.dropout(attn_weights)
        s.noise.resize(s.y.size());
        mha.dropout.draw_noise(s.noise.data(), s.noise.size());
        for (std::size_t i = 0; i < s.a.size(); ++i) s.a[i] = s.y[i] * s.noise[i];
    }
    Array<4> dropped = Array<4>::from_shape({B, NH, T, T});
    std::copy(s.a.begin(), s.a.end(), dropped.begin());
    const auto context = transpose(matmul(Tensor<4>(dropped), values), 1, 2);            // [B, T, NH, hs]
    const Tensor<3> ctx = view(context, std::array<std::size_t, 3>{B, T, NH * hs});       // .reshape(b, T, d_out)
    s.ctx.assign(ctx.data.begin(), ctx.data.end());
    return mha.out_proj(ctx);
}

namespace {

void attention_backward_impl(const MultiHeadAttention& mha, const AttentionSaved& s, const float* dy, float* dx, AttentionGrads& grads,
                             bool fast) {
    const std::size_t B = s.B, T = s.T, NH = s.NH, hs = s.hs, C = NH * hs, N = B * T, heads = B * NH;
    const int t = static_cast<int>(T), d = static_cast<int>(hs);
    // The calling thread's buffers, reused from call to call; bound to plain references, so that
    // lambdas run on the pool's threads reach these and not those threads' own.
    thread_local std::vector<float> work[11];
    std::vector<float>&dctx = work[0], &dq = work[1], &dk = work[2], &dv = work[3], &from_q = work[4], &from_k = work[5];
    std::vector<float>&dC = work[6], &dV = work[7], &dQ = work[8], &dA = work[9], &dKt = work[10];
    dctx.resize(N * C), dq.resize(N * C), dk.resize(N * C), dv.resize(N * C);  // [B, T, C], heads side by side
    dC.resize(heads * T * hs), dV.resize(heads * T * hs), dQ.resize(heads * T * hs);  // [B, NH, T, hs]
    dA.resize(heads * T * T), dKt.resize(heads * hs * T);                             // [B, NH, T, T], [B, NH, hs, T]
    linear_layer_backward(mha.out_proj, s.ctx.data(), dy, N, dctx.data(), grads.out_proj);  // [B*T, C]
    const auto scale = static_cast<float>(std::pow(static_cast<double>(hs), 0.5));
    const bool naive = small(T, hs), causal = mha.causal;
    for_heads(heads, fast, [&](std::size_t head) {  // context_vec's gradient, transpose(1, 2) undone
        const std::size_t b = head / NH, h = head % NH;
        for (std::size_t i = 0; i < T; ++i)
            std::copy(dctx.data() + (b * T + i) * C + h * hs, dctx.data() + (b * T + i) * C + h * hs + hs, dC.data() + (head * T + i) * hs);
    });
    // BmmBackward0 of attn_weights @ values: dA = dC @ V^T [T, T], dV = A^T @ dC [T, hs]
    for (std::size_t head = 0; head < heads; ++head) {
        const float* V = s.v.data() + head * T * hs;   // [T, hs]
        const float* A = s.a.data() + head * T * T;    // [T, T]
        const float* dCh = dC.data() + head * T * hs;
        float* dAh = dA.data() + head * T * T;
        float* dVh = dV.data() + head * T * hs;
        if (naive) {
            small_product(T, hs, T, [&](std::size_t i, std::size_t p) { return dCh[i * hs + p]; },
                          [&](std::size_t p, std::size_t j) { return V[j * hs + p]; }, dAh);
            small_product(T, T, hs, [&](std::size_t i, std::size_t p) { return A[p * T + i]; },
                          [&](std::size_t p, std::size_t j) { return dCh[p * hs + j]; }, dVh);
        } else {
            cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, t, t, d, 1.0f, V, d, dCh, d, 0.0f, dAh, t);
            cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, d, t, t, 1.0f, dCh, d, A, t, 0.0f, dVh, d);
        }
    }
    for_heads(heads, fast, [&](std::size_t head) {
        float* dAh = dA.data() + head * T * T;  // becomes dS, the scores' gradient, row by row in place
        if (!s.noise.empty()) {  // dropout: grad * noise
            const float* noise = s.noise.data() + head * T * T;
            for (std::size_t i = 0; i < T * T; ++i) dAh[i] *= noise[i];
        }
        const float* Y = s.y.data() + head * T * T;
        for (std::size_t i = 0; i < T; ++i) {
            softmax_backward_row(dAh + i * T, Y + i * T, dAh + i * T, T);
            for (std::size_t j = 0; j < T; ++j) {
                float& g = dAh[i * T + j];
                g = g / scale;        // DivBackward0: grad / other
                if (causal && j > i) g = 0.0f;  // MaskedFillBackward0: masked entries 0
            }
        }
        if (!naive) {  // keys.transpose(2, 3), made contiguous by matmul (dKt's buffer, overwritten by the product below)
            const float* K = s.k.data() + head * T * hs;
            float* Kt = dKt.data() + head * hs * T;
            for (std::size_t i = 0; i < T; ++i)
                for (std::size_t j = 0; j < hs; ++j) Kt[j * T + i] = K[i * hs + j];
        }
    });
    // BmmBackward0 of queries @ K^T: dQ = dS @ K [T, hs], dK^T = Q^T @ dS [hs, T]
    thread_local std::vector<float> Kt_one;
    for (std::size_t head = 0; head < heads; ++head) {
        const float* Q = s.q.data() + head * T * hs;
        const float* K = s.k.data() + head * T * hs;
        const float* dS = dA.data() + head * T * T;
        float* dQh = dQ.data() + head * T * hs;
        float* dKth = dKt.data() + head * hs * T;
        if (naive) {
            small_product(T, T, hs, [&](std::size_t i, std::size_t p) { return dS[i * T + p]; },
                          [&](std::size_t p, std::size_t j) { return K[p * hs + j]; }, dQh);
            small_product(hs, T, T, [&](std::size_t i, std::size_t p) { return Q[p * hs + i]; },
                          [&](std::size_t p, std::size_t j) { return dS[p * T + j]; }, dKth);
        } else {
            Kt_one.assign(dKth, dKth + hs * T);  // the transposed keys, before dK^T takes their place
            cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, d, t, t, 1.0f, Kt_one.data(), t, dS, t, 0.0f, dQh, d);
            cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, t, d, t, 1.0f, dS, t, Q, d, 0.0f, dKth, t);
        }
    }
    for_heads(heads, fast, [&](std::size_t head) {  // back to [B, T, C]: transpose(1, 2), view
        const std::size_t b = head / NH, h = head % NH;
        const float* dQh = dQ.data() + head * T * hs;
        const float* dKth = dKt.data() + head * hs * T;
        const float* dVh = dV.data() + head * T * hs;
        for (std::size_t i = 0; i < T; ++i)
            for (std::size_t j = 0; j < hs; ++j) {
                const std::size_t at = (b * T + i) * C + h * hs + j;
                dq[at] = dQh[i * hs + j];
                dk[at] = dKth[j * T + i];
                dv[at] = dVh[i * hs + j];
            }
    });
    // W_value, W_query, W_key: the reverse of their creation; x's gradient (dV's + dQ's) + dK's
    const std::size_t d_in = mha.W_key.in_features();
    if (dx == nullptr) {  // x needs no gradient: the weights' (or the adapters') only
        linear_layer_backward(mha.W_value, s.x.data(), dv.data(), N, nullptr, grads.W_value);
        linear_layer_backward(mha.W_query, s.x.data(), dq.data(), N, nullptr, grads.W_query);
        linear_layer_backward(mha.W_key, s.x.data(), dk.data(), N, nullptr, grads.W_key);
        return;
    }
    if (mha.W_value.lora || mha.W_query.lora || mha.W_key.lora) {  // LinearWithLoRA: x gets two gradients from each
        linear_layer_backward(mha.W_value, s.x.data(), dv.data(), N, dx, grads.W_value);
        linear_layer_backward_add(mha.W_query, s.x.data(), dq.data(), N, dx, grads.W_query);
        linear_layer_backward_add(mha.W_key, s.x.data(), dk.data(), N, dx, grads.W_key);
        return;
    }
    from_q.resize(N * d_in), from_k.resize(N * d_in);
    linear_layer_backward(mha.W_value, s.x.data(), dv.data(), N, dx, grads.W_value);
    linear_layer_backward(mha.W_query, s.x.data(), dq.data(), N, from_q.data(), grads.W_query);
    linear_layer_backward(mha.W_key, s.x.data(), dk.data(), N, from_k.data(), grads.W_key);
    const auto add = [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) dx[i] = (dx[i] + from_q[i]) + from_k[i];
    };
    fast ? for_ranges(N * d_in, std::size_t{1} << 15, add) : add(0, N * d_in);
}

}  // namespace

void attention_backward(const MultiHeadAttention& mha, const AttentionSaved& s, const float* dy, float* dx, AttentionGrads& grads) {
    attention_backward_impl(mha, s, dy, dx, grads, /*fast=*/false);
}

void attention_backward_fast(const MultiHeadAttention& mha, const AttentionSaved& s, const float* dy, float* dx, AttentionGrads& grads) {
    attention_backward_impl(mha, s, dy, dx, grads, /*fast=*/true);
}

void linear_forward(const Linear& layer, const float* x, std::size_t rows, float* y) {
    const std::size_t in = layer.in_features(), out = layer.out_features();
    if (layer.bias) {
        const float* bias = layer.bias->data.data();
        for (std::size_t r = 0; r < rows; ++r) std::copy(bias, bias + out, y + r * out);  // bias broadcast, then addmm's beta = 1
    }
    gemm(x, layer.forward_weight(), y, rows, in, out, /*b_transposed=*/true, /*accumulate=*/layer.bias.has_value());
    if (layer.lora && layer.lora->form == LoRAForm::separate) layer.lora->add_to(x, rows, y);  // LinearWithLoRA: + self.lora(x)
}

void attention_forward_fast(const MultiHeadAttention& mha, const float* x, std::size_t B, std::size_t T, AttentionSaved& s, float* out) {
    const std::size_t NH = mha.num_heads, hs = mha.head_dim, C = NH * hs, N = B * T, d_in = mha.W_key.in_features(), heads = B * NH;
    s.B = B, s.T = T, s.NH = NH, s.hs = hs;
    s.x.assign(x, x + N * d_in);
    thread_local std::vector<float> work[5];  // the calling thread's, reused (plain references: see attention_backward_impl)
    std::vector<float>&keys = work[0], &queries = work[1], &values = work[2], &Kt = work[3], &O = work[4];
    keys.resize(N * C), queries.resize(N * C), values.resize(N * C);  // [B, T, C]
    Kt.resize(heads * hs * T), O.resize(heads * T * hs);                // [B, NH, hs, T], [B, NH, T, hs]
    linear_forward(mha.W_key, x, N, keys.data());
    linear_forward(mha.W_query, x, N, queries.data());
    linear_forward(mha.W_value, x, N, values.data());
    s.q.resize(N * C), s.k.resize(N * C), s.v.resize(N * C), s.ctx.resize(N * C);
    s.y.resize(heads * T * T), s.a.resize(heads * T * T);
    s.noise.clear();
    if (mha.dropout.training() && mha.dropout.p() != 0.0 && !s.y.empty()) {  // self.dropout(attn_weights): drawn in the tensor's order
        s.noise.resize(s.y.size());
        mha.dropout.draw_noise(s.noise.data(), s.noise.size());
    }
    const auto divisor = static_cast<float>(std::pow(static_cast<double>(hs), 0.5));  // / keys.shape[-1]**0.5, a float32
    const bool naive = T * T * hs < 400;  // bmm's plain loop below 400 multiply-adds, as matmul
    for_heads(heads, true, [&](std::size_t head) {  // .view(b, T, NH, hs).transpose(1, 2); keys.transpose(2, 3) contiguous
        const std::size_t b = head / NH, h = head % NH;
        float* Q = s.q.data() + head * T * hs;
        float* K = s.k.data() + head * T * hs;
        float* V = s.v.data() + head * T * hs;
        float* Kth = Kt.data() + head * hs * T;
        for (std::size_t i = 0; i < T; ++i) {
            const std::size_t from = (b * T + i) * C + h * hs;
            std::copy(queries.data() + from, queries.data() + from + hs, Q + i * hs);
            std::copy(keys.data() + from, keys.data() + from + hs, K + i * hs);
            std::copy(values.data() + from, values.data() + from + hs, V + i * hs);
            for (std::size_t j = 0; j < hs; ++j) Kth[j * T + i] = K[i * hs + j];
        }
    });
    for (std::size_t head = 0; head < heads; ++head) {  // attn_scores = queries @ keys^T, into y's memory
        const float* Q = s.q.data() + head * T * hs;
        float* S = s.y.data() + head * T * T;
        naive ? gemm_naive(Q, Kt.data() + head * hs * T, S, T, hs, T, false, false) : gemm(Q, Kt.data() + head * hs * T, S, T, hs, T, false, false);
    }
    for_heads(heads, true, [&](std::size_t head) {
        float* Y = s.y.data() + head * T * T;
        float* A = s.a.data() + head * T * T;
        for (std::size_t i = 0; i < T; ++i) {  // masked_fill_(-inf), / sqrt(hs), softmax (in place): the masked half exactly 0
            const std::size_t n_valid = mha.causal ? i + 1 : T;  // disable_causal_mask: every key
            causal_softmax_row(Y + i * T, Y + i * T, n_valid, T, divisor);
            std::fill(Y + i * T + n_valid, Y + (i + 1) * T, 0.0f);
        }
        if (s.noise.empty()) return static_cast<void>(std::copy(Y, Y + T * T, A));
        const float* noise = s.noise.data() + head * T * T;
        for (std::size_t i = 0; i < T * T; ++i) A[i] = Y[i] * noise[i];  // attn_weights * noise
    });
    for (std::size_t head = 0; head < heads; ++head) {  // attn_weights @ values
        const float* A = s.a.data() + head * T * T;
        const float* V = s.v.data() + head * T * hs;
        float* Oh = O.data() + head * T * hs;
        naive ? gemm_naive(A, V, Oh, T, T, hs, false, false) : gemm(A, V, Oh, T, T, hs, false, false);
    }
    for_heads(heads, true, [&](std::size_t head) {  // .transpose(1, 2).reshape(b, T, d_out)
        const std::size_t b = head / NH, h = head % NH;
        for (std::size_t i = 0; i < T; ++i)
            std::copy(O.data() + (head * T + i) * hs, O.data() + (head * T + i + 1) * hs, s.ctx.data() + (b * T + i) * C + h * hs);
    });
    linear_forward(mha.out_proj, s.ctx.data(), N, out);
}

}  // namespace llmfs
