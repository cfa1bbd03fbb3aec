// torch.multinomial(p, 1) and the book's sampling step; the facts and their sources are in
// sampling.hpp and tests/goldens/make_sampler_goldens.py.
#include "llmfs/torch/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "llmfs/torch/ops.hpp"

namespace llmfs {

namespace {

// transformation::exponential<double>(u, lambda = 1) on the CPU: -1.0 / lambda * log(1.0 - u),
// in double (1.0 - u is exact), then cast to the tensor's float.
float exponential_from(double u) { return static_cast<float>(-1.0 * std::log(1.0 - u)); }

// uniform_real_distribution<double>(0, 1) from random64() = (hi << 32) | lo.
double uniform_double_from(std::uint32_t hi, std::uint32_t lo) {
    const std::uint64_t bits = (static_cast<std::uint64_t>(hi) << 32) | lo;
    return static_cast<double>(bits & ((std::uint64_t{1} << 53) - 1)) * 0x1p-53;
}

// ArgMaxOps' GreaterOrNan: a NaN beats any number; equal values (and NaN vs NaN) keep the lower index.
bool greater_or_nan(float a, float b) { return std::isnan(b) ? false : (std::isnan(a) || a > b); }

// multinomial_out's checks, before any draw (PyTorch's messages after "multinomial: ").
void check_probs(const float* probs, std::size_t V) {
    if (V == 0) throw std::invalid_argument("multinomial: cannot sample 1 sample from 0 categories");
    if (V > (std::size_t{1} << 24)) throw std::invalid_argument("multinomial: number of categories cannot exceed 2^24");
    bool all_zero = true;
    for (std::size_t i = 0; i < V; ++i) {
        if (!(probs[i] >= 0.0f) || std::isinf(probs[i]))
            throw std::invalid_argument("multinomial: probability tensor contains either `inf`, `nan` or element < 0 (index " +
                                        std::to_string(i) + ")");
        all_zero = all_zero && probs[i] == 0.0f;
    }
    if (all_zero) throw std::invalid_argument("multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
}

}  // namespace

void exponential_(Generator& gen, float* out, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[i] = exponential_from(gen.uniform_double());
}

std::int64_t multinomial_one_reference(Generator& gen, const float* probs, std::size_t V) {
    check_probs(probs, V);
    std::vector<float> q(V);
    exponential_(gen, q.data(), V);                     // q = torch.empty_like(probs).exponential_(1)
    for (std::size_t i = 0; i < V; ++i) q[i] = probs[i] / q[i];  // torch.div(probs, q, out=q)
    return argmax(q.data(), V);                           // torch.argmax(q, dim=-1, keepdim=True)
}

// The reference's steps fused, the generator's words drawn in chunks (Mt19937::generate), and the
// logarithm skipped where it cannot matter. q = -log(1 - u) >= u, so p / q <= p / u: an element whose
// p / u, widened by 1e-6 for the roundings of q and of the division (a few float ulps at most), is
// below the best ratio so far cannot become the argmax, and its q is not needed. Its words are
// still drawn, so the generator advances exactly as PyTorch's does. u == 0 (q == 0: p / q is inf or
// NaN) always takes the exact path.
std::int64_t multinomial_one(Generator& gen, const float* probs, std::size_t V) {
    check_probs(probs, V);
    constexpr std::size_t kChunk = 512;  // elements per chunk: 2 words each
    constexpr double kMargin = 1.0 + 1e-6;
    std::uint32_t words[2 * kChunk];
    std::size_t best = 0;
    float best_ratio = 0;
    for (std::size_t start = 0; start < V; start += kChunk) {
        const std::size_t count = std::min(kChunk, V - start);
        gen.random(words, 2 * count);
        for (std::size_t j = 0; j < count; ++j) {
            const std::size_t i = start + j;
            const double u = uniform_double_from(words[2 * j], words[2 * j + 1]);
            if (i != 0 && u != 0.0 && (std::isnan(best_ratio) || static_cast<double>(probs[i]) / u * kMargin <
                                                                     static_cast<double>(best_ratio)))
                continue;  // cannot beat the best (a NaN best is never beaten)
            const float ratio = probs[i] / exponential_from(u);
            if (i == 0 || greater_or_nan(ratio, best_ratio)) {
                best = i;
                best_ratio = ratio;
            }
        }
    }
    return static_cast<std::int64_t>(best);
}

std::vector<std::int64_t> bincount_samples(Generator& gen, const float* probs, std::size_t V, std::size_t n,
                                           std::size_t minlength) {
    std::vector<std::int64_t> counts(minlength, 0);
    for (std::size_t i = 0; i < n; ++i) {  // torch.multinomial(probas, num_samples=1).item()
        const auto id = static_cast<std::size_t>(multinomial_one(gen, probs, V));
        if (id >= counts.size()) counts.resize(id + 1, 0);  // torch.bincount: up to the largest id
        ++counts[id];
    }
    return counts;
}

std::int64_t argmax_reference(const float* x, std::size_t n) {
    if (n == 0) throw std::invalid_argument("argmax: no values");
    std::size_t best = 0;
    for (std::size_t i = 1; i < n; ++i)
        if (greater_or_nan(x[i], x[best])) best = i;
    return static_cast<std::int64_t>(best);
}

#if defined(__GNUC__) || defined(__clang__)
namespace {
typedef float v4 __attribute__((vector_size(16)));  // SSE's and NEON's width: GCC keeps ?: on it in vectors
typedef std::int32_t i4 __attribute__((vector_size(16)));  // what comparing two v4 gives: -1 (true) or 0 per lane
inline v4 load4(const float* p) {  // an unaligned load, without breaking aliasing rules
    v4 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// The first i in [0, n) with wanted(x[i]): 16 floats tested at once (wanted on vectors, no branch),
// then the 16 that have it searched one by one.
template <typename Wanted>
std::int64_t first_where(const float* x, std::size_t n, Wanted wanted) {
    std::size_t b = 0;
    for (; b + 16 <= n; b += 16) {
        const auto hit = wanted(load4(x + b)) | wanted(load4(x + b + 4)) | wanted(load4(x + b + 8)) | wanted(load4(x + b + 12));
        if (hit[0] | hit[1] | hit[2] | hit[3]) break;
    }
    for (; b < n; ++b)
        if (wanted(x[b])) return static_cast<std::int64_t>(b);
    return static_cast<std::int64_t>(n);
}
}  // namespace

std::int64_t argmax(const float* x, std::size_t n) {
    if (n == 0) throw std::invalid_argument("argmax: no values");
    // Pass 1, 16 floats a step in four vectors: the largest value, NaNs aside (a NaN fails v > top),
    // and whether there is a NaN.
    const float lowest = -std::numeric_limits<float>::infinity();
    v4 top0 = lowest - v4{}, top1 = top0, top2 = top0, top3 = top0;
    i4 nan{};  // lanes that saw a NaN: nonzero
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const v4 a = load4(x + i), b = load4(x + i + 4), c = load4(x + i + 8), d = load4(x + i + 12);
        top0 = a > top0 ? a : top0;
        top1 = b > top1 ? b : top1;
        top2 = c > top2 ? c : top2;
        top3 = d > top3 ? d : top3;
        nan |= (a != a) | (b != b) | (c != c) | (d != d);
    }
    float largest = lowest;
    bool any_nan = false;
    for (const v4 top : {top0, top1, top2, top3})
        for (std::size_t l = 0; l < 4; ++l) largest = top[l] > largest ? top[l] : largest;
    for (std::size_t l = 0; l < 4; ++l) any_nan |= nan[l] != 0;
    for (; i < n; ++i) {
        largest = x[i] > largest ? x[i] : largest;
        any_nan |= x[i] != x[i];
    }
    // Pass 2: the first NaN if there is one, else the first element equal to the largest (-0 and +0
    // are equal, as ArgMaxOps compares them).
    return any_nan ? first_where(x, n, [](auto v) { return v != v; })
                   : first_where(x, n, [largest](auto v) { return v == largest; });
}
#else
std::int64_t argmax(const float* x, std::size_t n) { return argmax_reference(x, n); }
#endif

TopK topk(const float* x, std::size_t n, std::size_t k) {
    if (k == 0 || k > n) throw std::invalid_argument("topk: k " + std::to_string(k) + " must be between 1 and " + std::to_string(n));
    std::vector<std::int64_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::int64_t>(i);
    const auto before = [x](std::int64_t a, std::int64_t b) {  // larger first, then lower index
        return greater_or_nan(x[a], x[b]) || (!greater_or_nan(x[b], x[a]) && a < b);
    };
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(), before);
    TopK top;
    top.positions.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k));
    for (const std::int64_t i : top.positions) top.values.push_back(x[i]);
    return top;
}

void mask_below_(float* x, std::size_t n, float min_val) {
    for (std::size_t i = 0; i < n; ++i)
        if (x[i] < min_val) x[i] = -std::numeric_limits<float>::infinity();
}

void check_sampling_options(const SamplingOptions& options, std::size_t vocab) {
    if (!std::isfinite(options.temperature) || options.temperature < 0)
        throw std::invalid_argument("sampling: temperature " + std::to_string(options.temperature) +
                                    " must be finite and >= 0 (0: greedy)");
    if (options.top_k && (*options.top_k == 0 || *options.top_k > vocab))
        throw std::invalid_argument("sampling: top_k " + std::to_string(*options.top_k) + " must be between 1 and the vocabulary size " +
                                    std::to_string(vocab));
}

std::int64_t next_token(const float* logits, std::size_t V, const SamplingOptions& options, Generator& gen) {
    check_sampling_options(options, V);
    if (V == 0) throw std::invalid_argument("next_token: no logits");
    std::vector<float> row(logits, logits + V);  // logits [V]
    if (options.top_k) {
        // top_logits, _ = torch.topk(logits, top_k); min_val = top_logits[:, -1]: the k-th largest,
        // duplicates counted; logits = torch.where(logits < min_val, torch.tensor(float("-inf")), logits)
        mask_below_(row.data(), V, topk(row.data(), V, *options.top_k).values.back());
    }
    if (options.temperature > 0.0) {
        const float temperature = static_cast<float>(options.temperature);
        for (float& x : row) x /= temperature;  // logits = logits / temperature (float32(T))
        // logits = logits - logits.max(dim=-1, keepdim=True).values
        float max = row[0];
        for (const float x : row) max = greater_or_nan(x, max) ? x : max;
        for (float& x : row) x -= max;
        std::vector<float> probs(V);
        softmax_row(row.data(), probs.data(), V);  // probs = torch.softmax(logits, dim=-1)
        return multinomial_one(gen, probs.data(), V);  // idx_next = torch.multinomial(probs, num_samples=1)
    }
    return argmax(row.data(), V);  // idx_next = torch.argmax(logits, dim=-1, keepdim=True)
}

}  // namespace llmfs
