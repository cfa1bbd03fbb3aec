#include "llmfs/train/attention_backward.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <cblas.h>

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
void softmax_backward_row(const float* g, const float* y, float* gi, std::size_t n) {
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

}  // namespace

void linear_layer_backward(const Linear& layer, const float* x, const float* dy, std::size_t N, float* dx, LinearGrads& g) {
    g.weight.assign(layer.weight.data.size(), 0.0f);
    g.bias.assign(layer.bias ? layer.bias->data.size() : 0, 0.0f);
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
    scores = masked_fill(scores, causal_mask(T), kNegInf);                                 // masked_fill_(mask_bool, -inf)
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

void attention_backward(const MultiHeadAttention& mha, const AttentionSaved& s, const float* dy, float* dx, AttentionGrads& grads) {
    const std::size_t B = s.B, T = s.T, NH = s.NH, hs = s.hs, C = NH * hs, N = B * T;
    const int t = static_cast<int>(T), d = static_cast<int>(hs);
    std::vector<float> dctx(N * C);
    linear_layer_backward(mha.out_proj, s.ctx.data(), dy, N, dctx.data(), grads.out_proj);  // [B*T, C]
    std::vector<float> dq(N * C), dk(N * C), dv(N * C);  // [B, T, C], heads side by side
    std::vector<float> dC(T * hs), dA(T * T), dS(T * T), dQ(T * hs), dKt(hs * T), dV(T * hs);
    const auto scale = static_cast<float>(std::pow(static_cast<double>(hs), 0.5));
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t h = 0; h < NH; ++h) {
            const std::size_t head = (b * NH + h);
            const float* Q = s.q.data() + head * T * hs;   // [T, hs]
            const float* K = s.k.data() + head * T * hs;   // [T, hs]
            const float* V = s.v.data() + head * T * hs;   // [T, hs]
            const float* Y = s.y.data() + head * T * T;    // [T, T]
            const float* A = s.a.data() + head * T * T;    // [T, T]
            for (std::size_t i = 0; i < T; ++i)           // context_vec's gradient, transpose(1, 2) undone
                std::copy(dctx.begin() + static_cast<std::ptrdiff_t>((b * T + i) * C + h * hs),
                          dctx.begin() + static_cast<std::ptrdiff_t>((b * T + i) * C + h * hs + hs), dC.begin() + static_cast<std::ptrdiff_t>(i * hs));
            // BmmBackward0 of attn_weights @ values: dA = dC @ V^T [T, T], dV = A^T @ dC [T, hs]
            if (small(T, hs)) {
                small_product(T, hs, T, [&](std::size_t i, std::size_t p) { return dC[i * hs + p]; },
                              [&](std::size_t p, std::size_t j) { return V[j * hs + p]; }, dA.data());
                small_product(T, T, hs, [&](std::size_t i, std::size_t p) { return A[p * T + i]; },
                              [&](std::size_t p, std::size_t j) { return dC[p * hs + j]; }, dV.data());
            } else {
                cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, t, t, d, 1.0f, V, d, dC.data(), d, 0.0f, dA.data(), t);
                cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, d, t, t, 1.0f, dC.data(), d, A, t, 0.0f, dV.data(), d);
            }
            if (!s.noise.empty()) {  // dropout: grad * noise
                const float* noise = s.noise.data() + head * T * T;
                for (std::size_t i = 0; i < T * T; ++i) dA[i] *= noise[i];
            }
            for (std::size_t i = 0; i < T; ++i) {
                softmax_backward_row(dA.data() + i * T, Y + i * T, dS.data() + i * T, T);
                for (std::size_t j = 0; j < T; ++j) {
                    float& g = dS[i * T + j];
                    g = g / scale;        // DivBackward0: grad / other
                    if (j > i) g = 0.0f;  // MaskedFillBackward0: masked entries 0
                }
            }
            // BmmBackward0 of queries @ K^T: dQ = dS @ K [T, hs], dK^T = Q^T @ dS [hs, T]
            if (small(T, hs)) {
                small_product(T, T, hs, [&](std::size_t i, std::size_t p) { return dS[i * T + p]; },
                              [&](std::size_t p, std::size_t j) { return K[p * hs + j]; }, dQ.data());
                small_product(hs, T, T, [&](std::size_t i, std::size_t p) { return Q[p * hs + i]; },
                              [&](std::size_t p, std::size_t j) { return dS[p * T + j]; }, dKt.data());
            } else {
                std::vector<float> Kt(hs * T);  // keys.transpose(2, 3), made contiguous by matmul
                for (std::size_t i = 0; i < T; ++i)
                    for (std::size_t j = 0; j < hs; ++j) Kt[j * T + i] = K[i * hs + j];
                cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, d, t, t, 1.0f, Kt.data(), t, dS.data(), t, 0.0f, dQ.data(), d);
                cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, t, d, t, 1.0f, dS.data(), t, Q, d, 0.0f, dKt.data(), t);
            }
            for (std::size_t i = 0; i < T; ++i)  // back to [B, T, C]: transpose(1, 2), view
                for (std::size_t j = 0; j < hs; ++j) {
                    const std::size_t at = (b * T + i) * C + h * hs + j;
                    dq[at] = dQ[i * hs + j];
                    dk[at] = dKt[j * T + i];
                    dv[at] = dV[i * hs + j];
                }
        }
    // W_value, W_query, W_key: the reverse of their creation; x's gradient (dV's + dQ's) + dK's
    const std::size_t d_in = mha.W_key.in_features();
    std::vector<float> from_q(N * d_in), from_k(N * d_in);
    linear_layer_backward(mha.W_value, s.x.data(), dv.data(), N, dx, grads.W_value);
    linear_layer_backward(mha.W_query, s.x.data(), dq.data(), N, from_q.data(), grads.W_query);
    linear_layer_backward(mha.W_key, s.x.data(), dk.data(), N, from_k.data(), grads.W_key);
    for (std::size_t i = 0; i < N * d_in; ++i) dx[i] = (dx[i] + from_q[i]) + from_k[i];
}

}  // namespace llmfs
