#include "llmfs/torch/loss.hpp"

#include <algorithm>
#include <cmath>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "llmfs/torch/ops.hpp"
#include "llmfs/torch/vecmath.hpp"

namespace llmfs {

namespace detail {

RowLogSumExp row_log_sum_exp(const float* x, std::size_t n) {
    const float max = *std::max_element(x, x + n);  // vec::reduce_all(maximum): exact in any order
    std::vector<float> shifted(n);
    for (std::size_t i = 0; i < n; ++i) shifted[i] = x[i] - max;  // x - Vec(max_input)
    vec_exp(shifted.data(), shifted.data(), n);                      // .exp()
    float sum = reduce_all_sum(shifted.data(), n);                   // map_reduce_all's lanes and tree
    vec_log(&sum, &sum, 1);                                          // vec::map(x.log()) over the sums
    return {max, sum};
}

}  // namespace detail

void log_softmax_rows(const float* x, float* y, std::size_t rows, std::size_t n) {
    if (n == 0) return;
    for (std::size_t r = 0; r < rows; ++r) {
        const float* row = x + r * n;
        const auto [max, log_sum] = detail::row_log_sum_exp(row, n);
        float* out = y + r * n;
        for (std::size_t i = 0; i < n; ++i) out[i] = (row[i] - max) - log_sum;  // x - Vec(max) - Vec(tmp_sum)
    }
}

namespace {

// True for a row that counts; false for one whose target is ignore_index (skipped).
bool check_target(std::int64_t target, std::size_t row, std::size_t V, std::int64_t ignore_index = kIgnoreIndex) {
    if (target == ignore_index) return false;
    if (target < 0 || static_cast<std::size_t>(target) >= V)
        throw std::invalid_argument("nll_loss: target " + std::to_string(target) + " of row " + std::to_string(row) +
                                    " is out of bounds for " + std::to_string(V) + " classes");
    return true;
}

// The rows that count: total_weight = float(N - num_ignored) in nll_loss_out_frame.
std::size_t counted_rows(const std::int64_t* targets, std::size_t N, std::size_t V, std::int64_t ignore_index = kIgnoreIndex) {
    std::size_t counted = 0;
    for (std::size_t b = 0; b < N; ++b) counted += check_target(targets[b], b, V, ignore_index) ? 1 : 0;
    return counted;
}

// nll_loss_out_frame's cascade: -value added at level 0; after row b, each level j whose rows so
// far are a multiple of 16^(j+1) (b's base-16 digit j is 0) is emptied into level j + 1.
class CascadeSum {
public:
    void add_negated(float value, std::size_t b) {
        levels_[0] -= value;  // loss_partial_sums[0] -= data
        for (std::size_t j = 0; j + 1 < kLevels; ++j) {
            const std::size_t mask = kMask << (j * kPower);
            if ((b & mask) != 0) break;
            levels_[j + 1] += levels_[j];
            levels_[j] = 0.0f;
        }
    }
    float total() const {  // std::accumulate(levels, 0)
        float sum = 0.0f;
        for (const float level : levels_) sum += level;
        return sum;
    }

private:
    static constexpr std::size_t kLevels = 8, kPower = 4, kMask = (1u << kPower) - 1;  // level_power = max(4, ceil(log2 N) / 8)
    std::array<float, kLevels> levels_{};
};

float mean_of(const CascadeSum& sums, std::size_t N) { return sums.total() / static_cast<float>(N); }

void check_rows(const char* op, std::size_t N) {
    if (N == 0) throw std::invalid_argument(std::string(op) + ": no rows to average (PyTorch gives nan)");
}

}  // namespace

float nll_loss_mean(const float* log_probs, std::size_t N, std::size_t V, const std::int64_t* targets) {
    check_rows("nll_loss", N);
    CascadeSum sums;
    std::size_t counted = 0;
    for (std::size_t b = 0; b < N; ++b) {
        if (!check_target(targets[b], b, V)) continue;  // ++num_ignored; continue: no cascade step
        ++counted;
        sums.add_negated(log_probs[b * V + static_cast<std::size_t>(targets[b])], b);
    }
    return mean_of(sums, counted);
}

float cross_entropy(const float* logits, std::size_t N, std::size_t V, const std::int64_t* targets, std::int64_t ignore_index) {
    check_rows("cross_entropy", N);
    CascadeSum sums;
    std::size_t counted = 0;
    for (std::size_t b = 0; b < N; ++b) {
        if (!check_target(targets[b], b, V, ignore_index)) continue;
        ++counted;
        const float* row = logits + b * V;
        const auto [max, log_sum] = detail::row_log_sum_exp(row, V);
        sums.add_negated((row[static_cast<std::size_t>(targets[b])] - max) - log_sum, b);
    }
    return mean_of(sums, counted);
}

float cross_entropy_backward(const float* logits, std::size_t N, std::size_t V, const std::int64_t* targets, float* dlogits,
                             float grad_output, std::int64_t ignore_index) {
    check_rows("cross_entropy_backward", N);
    const std::size_t counted = counted_rows(targets, N, V, ignore_index);
    const float picked = -(grad_output / static_cast<float>(counted));  // -(grad_output / total_weight)
    CascadeSum sums;
    for (std::size_t b = 0; b < N; ++b) {
        if (targets[b] == ignore_index) {  // NllLossBackward0 leaves the row 0; 0 - exp(y) * 0 is +0
            std::fill(dlogits + b * V, dlogits + (b + 1) * V, 0.0f);
            continue;
        }
        const std::size_t t = static_cast<std::size_t>(targets[b]);
        float* g = dlogits + b * V;
        log_softmax_rows(logits + b * V, g, 1, V);  // y, the forward's output LogSoftmaxBackward0 keeps
        sums.add_negated(g[t], b);                   // the forward's nll_loss
        vec_exp(g, g, V);                            // exp(y)
        // grad_input = grad - exp(y) * sum(grad): the row's gradient is `picked` at t, 0 elsewhere
        for (std::size_t j = 0; j < V; ++j) g[j] = std::fma(-g[j], picked, j == t ? picked : 0.0f);
    }
    return mean_of(sums, counted);
}

namespace {

// LogSoftmaxBackward0's last line over a row of exp(y): g = fma(-g, picked, picked at t, else 0).
void softmax_grad_row(float* g, std::size_t V, std::size_t t, float picked) {
    for (std::size_t j = 0; j < V; ++j) g[j] = std::fma(-g[j], picked, j == t ? picked : 0.0f);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// The same loop with the FMA unit's vfmadd instead of libm's fmaf (one rounding either way), every
// column as a column other than t.
__attribute__((target("avx2,fma"))) void softmax_grad_row_fma(float* g, std::size_t V, std::size_t /*t: redone by the caller*/, float picked) {
    for (std::size_t j = 0; j < V; ++j) g[j] = __builtin_fmaf(-g[j], picked, 0.0f);  // the caller redoes g[t]
}

bool has_fma() {
    static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return yes;
}
#endif

// One row of cross_entropy_backward: the log_softmax row y into g (row_log_sum_exp's operations,
// in g's own memory), y[t] returned for the loss, then g = the row's gradient.
float cross_entropy_backward_row(const float* x, std::size_t V, std::size_t t, float picked, float* g) {
    const float max = *std::max_element(x, x + V);                   // vec::reduce_all(maximum)
    for (std::size_t i = 0; i < V; ++i) g[i] = x[i] - max;           // x - Vec(max_input)
    vec_exp(g, g, V);                                                // .exp()
    float log_sum = reduce_all_sum(g, V);                            // map_reduce_all's lanes and tree
    vec_log(&log_sum, &log_sum, 1);
    for (std::size_t i = 0; i < V; ++i) g[i] = (x[i] - max) - log_sum;  // y = x - Vec(max) - Vec(tmp_sum)
    const float y_t = g[t];
    vec_exp(g, g, V);                                                // exp(y)
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (has_fma()) {
        const float e_t = g[t];
        softmax_grad_row_fma(g, V, t, picked);
        g[t] = std::fma(-e_t, picked, picked);
        return y_t;
    }
#endif
    softmax_grad_row(g, V, t, picked);
    return y_t;
}

}  // namespace

float cross_entropy_backward(const float* logits, std::size_t N, std::size_t V, const std::int64_t* targets, float* dlogits,
                             const RowRunner& run) {
    check_rows("cross_entropy_backward", N);
    const std::size_t counted = counted_rows(targets, N, V);  // before any row runs: the first bad target named
    const float picked = -(1.0f / static_cast<float>(counted));
    std::vector<float> y_picked(N);
    run(N, [&](std::size_t b) {
        if (targets[b] == kIgnoreIndex) {
            std::fill(dlogits + b * V, dlogits + (b + 1) * V, 0.0f);
            return;
        }
        y_picked[b] = cross_entropy_backward_row(logits + b * V, V, static_cast<std::size_t>(targets[b]), picked, dlogits + b * V);
    });
    CascadeSum sums;
    for (std::size_t b = 0; b < N; ++b)
        if (targets[b] != kIgnoreIndex) sums.add_negated(y_picked[b], b);
    return mean_of(sums, counted);
}

}  // namespace llmfs
