// The loss of chapter 5, as PyTorch's CPU kernels compute it, bit for bit:
//     loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), target_batch.flatten())
// which is F.nll_loss(F.log_softmax(logits, dim=1), targets) with the mean over the N rows.
//
// Dimension letters: N rows (B * T tokens), V classes (the vocabulary).
//
// ignore_index: a target of kIgnoreIndex (-100, PyTorch's default ignore_index, which chapter 7's
// custom_collate_fn puts on the padding) skips its row: nll_loss_out_frame counts it as ignored and
// `continue`s before the cascade step below, the mean divides by the rows that count
// (float(N - num_ignored); all rows ignored: 0 / 0, nan), and the backward leaves the row's gradient 0.
//
// log_softmax (aten/src/ATen/native/cpu/SoftMaxKernel.cpp, _vec_log_softmax_lastdim, AVX2), per row:
//     max = the row's largest value
//     sum = vec::map_reduce_all(exp(x - max), +)   8 lanes, then PyTorch's reduction tree (reduce_all_sum)
//     lse = log(sum)                                SLEEF's logf u10, as PyTorch's Vectorized<float>::log
//     y   = (x - max) - lse                          in this order (pytorch issue 11752)
// nll_loss, reduction "mean" (aten/src/ATen/native/LossNLL.cpp, nll_loss_out_frame): -y[i, target[i]]
// summed in a cascade of 8 partial sums, level j emptied into level j + 1 every 16^(j+1) rows, the
// levels then added from 0 to 7 onto 0, and the total divided by float(N).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace llmfs {

// F.cross_entropy's and F.nll_loss's default ignore_index.
constexpr std::int64_t kIgnoreIndex = -100;

// F.log_softmax(x, dim=-1) over `rows` rows of n floats: x [rows, n] -> y [rows, n] (y may be x).
void log_softmax_rows(const float* x, float* y, std::size_t rows, std::size_t n);

// F.nll_loss(log_probs, targets), mean reduction: log_probs [N, V], targets [N] in [0, V) or kIgnoreIndex -> scalar.
// Throws std::invalid_argument naming a target outside [0, V), and for N == 0 (PyTorch gives nan).
float nll_loss_mean(const float* log_probs, std::size_t N, std::size_t V, const std::int64_t* targets);

// F.cross_entropy(logits, targets, ignore_index=ignore_index): logits [N, V], targets [N] -> scalar;
// the bits of log_softmax then nll_loss_mean, computing log_softmax only where a target picks it.
// A target equal to ignore_index counts for nothing, whatever it is (additional_experiments.py's
// --ignore_index 1 ignores the spam rows); every row ignored gives 0 / 0, NaN.
float cross_entropy(const float* logits, std::size_t N, std::size_t V, const std::int64_t* targets,
                    std::int64_t ignore_index = kIgnoreIndex);

// loss.backward() from F.cross_entropy(logits, targets): dlogits [N, V] (d loss = 1), through
//   NllLossBackward0     g[i, target[i]] = -(1 / float(N)), 0 elsewhere
//   LogSoftmaxBackward0  dlogits = g - exp(y) * sum(g) per row (y the forward's log_softmax; SLEEF's
//                        exp; sum(g) is the row's one non-zero, exactly), as one fused multiply-add,
//                        fma(-exp(y), sum(g), g): GCC contracted PyTorch's vector code so (with a
//                        separate product and difference 3 of the 11 golden cases differ)
// Returns the loss, cross_entropy's bits, from the same log_softmax (computed once for both).
// grad_output: d loss, 1 unless the loss was divided first (`loss /= accumulation_steps`:
// DivBackward0's 1 / accumulation_steps as a float); then g[i, target[i]] = -(grad_output / float(N)).
// Rows whose target is ignore_index get 0 and do not count in N (total_weight).
float cross_entropy_backward(const float* logits, std::size_t N, std::size_t V, const std::int64_t* targets, float* dlogits,
                             float grad_output = 1.0f, std::int64_t ignore_index = kIgnoreIndex);

// Runs fn(i) for every i in [0, n), in any order, on any threads (a thread pool's run).
using RowRunner = std::function<void(std::size_t n, const std::function<void(std::size_t)>& fn)>;

// The same bits as cross_entropy_backward, its rows run by `run` (each row's arithmetic is its
// own), without allocating, the multiply-adds on the FMA unit where the CPU has one (fused either
// way: the same bits); the loss's cascade then adds the rows in order. loss_test checks the two.
float cross_entropy_backward(const float* logits, std::size_t N, std::size_t V, const std::int64_t* targets, float* dlogits,
                             const RowRunner& run);

namespace detail {
// One row's log-sum-exp pieces, as log_softmax computes them: max and log(sum(exp(x - max))).
struct RowLogSumExp {
    float max, log_sum;
};
RowLogSumExp row_log_sum_exp(const float* x, std::size_t n);
}  // namespace detail

}  // namespace llmfs
