#include "llmfs/train/backward.hpp"

#include <algorithm>

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

}  // namespace llmfs
