// Sampling the next token as PyTorch does on the CPU, bit for bit: exponential_, torch.multinomial
// (one sample) and the book's decoding step (ch05 section 5.3.3, gpt_generate.py's generate():
// top-k, temperature, softmax, multinomial, or argmax at temperature 0).
//
// Verified against PyTorch 1.13's default CPU kernels (data/tests/sampler_cases.txt, made by
// tests/goldens/make_sampler_goldens.py). The x86-64 wheels 2.0-2.6 draw exponential_ through MKL
// instead, which could not be verified; llmfs always follows the default kernel, whatever
// --bernoulli says (the book's own ch05 outputs were made with it, as are 2.7+ wheels').
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "llmfs/torch/rng.hpp"

namespace llmfs {

// t.exponential_() (lambd = 1) for n contiguous floats, the default CPU kernel: per element, in
// order, u = gen.uniform_double() (two 32-bit draws), out = (float)(-1.0 * log(1.0 - u)).
void exponential_(Generator& gen, float* out, std::size_t n);

// torch.multinomial(probs, num_samples=1) for one row probs [V]: q = exponential_ of V elements
// (2V draws, zero probabilities included), r = probs / q in float, the first index of max(r) (a NaN
// wins). probs need not sum to 1. Throws std::invalid_argument, drawing nothing, when V == 0, a
// probability is negative, infinite or NaN, or all are zero (PyTorch's checks).
std::int64_t multinomial_one(Generator& gen, const float* probs, std::size_t V);

// The same, as the obvious loop over the generator's one-element draws: the reference the bulk
// multinomial_one is tested against (sampling_test.cpp).
std::int64_t multinomial_one_reference(Generator& gen, const float* probs, std::size_t V);

// 5.3.1's print_sampled_tokens(probas) without its printing (the caller seeds gen first):
//   sample = [torch.multinomial(probas, num_samples=1).item() for i in range(n)]
//   torch.bincount(torch.tensor(sample), minlength=minlength)
// how often each id was drawn, for the ids 0 .. max(minlength, largest id drawn + 1) - 1: the
// chapter's cell passes minlength=len(probas), the exercise-5.1 cell none (ids above the largest
// drawn one are then not counted, nor printed). probs [V] as multinomial_one's.
std::vector<std::int64_t> bincount_samples(Generator& gen, const float* probs, std::size_t V, std::size_t n,
                                           std::size_t minlength = 0);

// torch.argmax(x) over one row x [n]: the first index of the maximum, a NaN counting as the maximum.
// Throws std::invalid_argument when n == 0. Two passes that vectorise (the largest value and
// whether there is a NaN, then the first index holding it): 4 to 8 us over GPT-2's 50,257 logits
// where the loop below took 22 to 25, each step of a decode (Zen 5 VM).
std::int64_t argmax(const float* x, std::size_t n);
// The same, as the obvious loop (ArgMaxOps' comparison, element after element): the reference
// argmax is tested against (sampling_test.cpp).
std::int64_t argmax_reference(const float* x, std::size_t n);

// torch.topk(x, k) for one row x [n]: the k largest values, largest first, and their positions
// (a NaN counts as the largest; equal values in index order). Throws unless 1 <= k <= n.
struct TopK {
    std::vector<float> values;            // top_logits [k]
    std::vector<std::int64_t> positions;  // top_pos [k]
};
TopK topk(const float* x, std::size_t n, std::size_t k);

// x = torch.where(x < min_val, torch.tensor(float("-inf")), x), in place over x [n].
void mask_below_(float* x, std::size_t n, float min_val);

// The book's generate() options (ch05 gpt_generate.py): generate(model, idx, max_new_tokens,
// context_size, temperature=0.0, top_k=None, eos_id=None).
struct SamplingOptions {
    double temperature = 0;               // 0: argmax (greedy); > 0: sample from softmax(logits / T)
    std::optional<std::size_t> top_k;     // keep the k largest logits (ties with the k-th included)
    std::optional<std::int64_t> eos_id;   // stop before appending this token (used by the loops)

    bool greedy() const { return temperature == 0; }
};

// Throws std::invalid_argument unless temperature is finite and >= 0 and top_k is in 1 .. vocab.
void check_sampling_options(const SamplingOptions& options, std::size_t vocab);

// One step of the book's generate() for one row of last-position logits [V]:
//   if top_k is not None:                       top_logits, _ = torch.topk(logits, top_k)
//       min_val = top_logits[:, -1]; logits = torch.where(logits < min_val, -inf, logits)
//   if temperature > 0.0: logits = logits / temperature
//       logits = logits - logits.max(dim=-1, keepdim=True).values
//       probs = torch.softmax(logits, dim=-1); idx_next = torch.multinomial(probs, num_samples=1)
//   else:                 idx_next = torch.argmax(logits, dim=-1, keepdim=True)   (no draws)
// options.eos_id is not looked at here.
std::int64_t next_token(const float* logits, std::size_t V, const SamplingOptions& options, Generator& gen);

}  // namespace llmfs
