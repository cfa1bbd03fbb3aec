#include "llmfs/train/backward.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include <cblas.h>

#include "llmfs/torch/ops.hpp"

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
    if (db != nullptr) sum_columns(dy, N, O, db);  // sum_to: dy.sum(0)
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
