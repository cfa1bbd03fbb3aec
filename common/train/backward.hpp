// The backward passes of the book's GPTModel, one function per layer, each the float operations
// PyTorch's autograd makes on a CPU, in its order (docs/pytorch-cpu-training.md says what is
// verified). Forward saves what backward needs; shapes use the letters of torch/tensor.hpp:
// N = B * T rows, C channels in, O channels out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace llmfs {

// nn.Linear's backward (AddmmBackward0 with a bias, MmBackward0 without) for y = x W^T + b:
//   x [N, C], W [O, C], dy [N, O] -> dx [N, C], dW [O, C], db [O]
//   dx = dy @ W        sgemm('N', 'N', C, N, O, 1, W, C, dy, O, 0, dx, C)   column-major, as PyTorch calls OpenBLAS
//   dW = dy^T @ x      sgemm('N', 'T', C, O, N, 1, x, C, dy, O, 0, dW, C)
//   db = dy.sum(0)     each column summed down the N rows in PyTorch's order (sum_columns)
// dx or db may be nullptr (not wanted, or no bias). dW and db are set, not accumulated. The two
// products run on OpenBLAS's threads, as PyTorch's; db's columns on compute_pool() (sum_columns_pooled).
void linear_backward(const float* x, const float* W, const float* dy, std::size_t N, std::size_t C, std::size_t O, float* dx,
                     float* dW, float* db);

// The book's GELU, 0.5 * x * (1 + tanh(c * (x + 0.044715 * pow(x, 3)))) with c = sqrt(2 / pi) as
// a float32 tensor, differentiated op by op as autograd does, nodes in reverse creation order:
//   MulBackward0 (the outer *)      ga = g * (1 + t),  gb = g * (0.5 * x)
//   TanhBackward0                   gt = gb * fma(-t, t, 1)        (GCC contracted 1 - t*t)
//   MulBackward0 (c *)              gs = gt * c
//   AddBackward0 (x + ...)          x's first gradient: gs
//   MulBackward0 (0.044715 *)       gp = gs * 0.044715f
//   PowBackward0                    x += gp * (3 * (x * x))
//   MulBackward0 (0.5 * x)          x += ga * 0.5f
// so dx = (gs + gp * (3 * (x * x))) + ga * 0.5f. x, dy, dx [n] (dx may be dy).
void gelu_backward(const float* x, const float* dy, float* dx, std::size_t n);

// The book's LayerNorm, mean = x.mean(-1), var = x.var(-1, unbiased=False),
// norm_x = (x - mean) / sqrt(var + eps), y = scale * norm_x + shift, over N rows of C, differentiated
// op by op (nodes in reverse creation order; "rows" sums are sum_to over the last dim, reduce_sum's
// contiguous order; "columns" sums are sum_to over the rows, sum_columns):
//   AddBackward0 (+ shift)     dshift = columns(g)
//   MulBackward0 (scale *)     dscale = columns(g * norm_x),  gn = g * scale
//   DivBackward0               ga = gn / s,  gs = rows(-gn * ((a / s) / s))    a = x - mean, s = sqrt(var + eps)
//   SqrtBackward0              gv = gs / (2 * s)
//   SubBackward0 (x - mean)    x gets ga;  gm = rows(-ga)
//   VarBackward0               x += (float(2 / C) * gv) * (x - mean)           the mean recomputed
//   MeanBackward1              x += gm / float(C)
// dx: set to ((ga + var's) + mean's), or, with accumulate, added onto dx's gradient from the
// tensor's later use (the block's shortcut): (((dx + ga) + var's) + mean's). x, dy, dx [N, C].
void layer_norm_backward(const float* x, const float* scale, const float* dy, std::size_t N, std::size_t C, float eps, float* dx,
                         float* dscale, float* dshift, bool accumulate);

// The fast versions of the two above, each element's or row's float operations unchanged (the
// same bits: backward_test checks them against the ones above): the work cut into contiguous
// ranges of elements or rows on compute_pool(), the column sums cut into ranges of columns (each
// column's order kept, sum_columns_range), the multiply-adds on the FMA unit where the CPU has one
// (fused either way), no allocation after the first call on a thread.
void gelu_backward_fast(const float* x, const float* dy, float* dx, std::size_t n);
void layer_norm_backward_fast(const float* x, const float* scale, const float* dy, std::size_t N, std::size_t C, float eps, float* dx,
                              float* dscale, float* dshift, bool accumulate);

// sum_columns(x, rows, cols, out) with its columns cut into ranges on compute_pool(): the same bits.
void sum_columns_pooled(const float* x, std::size_t rows, std::size_t cols, float* out);

// fn(first, last) over [0, n) cut into ranges of about `grain` items on compute_pool() (on the
// calling thread alone when there is one range). Each range is one chunk: which thread runs it
// changes nothing the range computes.
void for_ranges(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& fn);

// nn.Embedding's backward (EmbeddingBackward0, embedding_dense_backward_cpu): dW [V, C] zeroed,
// then each of the N rows of dy [N, C] added into the row of its id, in order (ids [N] in [0, V)).
void embedding_backward(const std::int64_t* ids, const float* dy, std::size_t N, std::size_t V, std::size_t C, float* dW);

// GPTModel's position embedding, pos_emb(torch.arange(T)) added to every row of the batch:
// AddBackward0's sum_to adds dy [B, T, C] over B (sum_columns of [B, T*C]), then the embedding's
// backward puts row t into row t of dW [context, C] (rows T.. stay 0).
void position_embedding_backward(const float* dy, std::size_t B, std::size_t T, std::size_t C, std::size_t context, float* dW);

}  // namespace llmfs
