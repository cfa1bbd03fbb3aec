// Exercise 5.1: Temperature-scaled softmax scores and sampling probabilities
//
// The problem: with print_sampled_tokens (section 5.3.1), print how often each word of the toy
// 9-word vocabulary is sampled (1,000 draws) from the softmax probabilities scaled with the
// temperatures 1, 0.1 and 5. How often is "pizza" sampled in each case? Then find a faster and
// more accurate way to know how often "pizza" would be sampled: its probability itself.
//
// BEGIN BOOK SOLUTION: the book's solution in PyTorch (the solutions build only; the student copy shows the chapter's code)
// The notebook code (the book's solution, exercise-solutions.ipynb of chapter 5):
//   next_token_logits = torch.tensor([4.51, 0.89, -1.90, 6.75, 1.63, -1.62, -1.89, 6.28, 1.79])
//   def print_sampled_tokens(probas):      # as in 5.3.1, but bincount without minlength: a word
//       ...                                # after the last one sampled is not printed
//   scaled_probas = [softmax_with_temperature(next_token_logits, T) for T in temperatures]
//   for i, probas in enumerate(scaled_probas):
//       print("\n\nTemperature:", temperatures[i])
//       print_sampled_tokens(probas)
//   temp5_idx = 2
//   pizza_idx = 6
//   scaled_probas[temp5_idx][pizza_idx]    # tensor(0.0430)
// STUDENT COPY: // The chapter's code around it (ch05.ipynb, sections 5.3.1 and 5.3.2):
// STUDENT COPY: //   next_token_logits = torch.tensor([4.51, 0.89, -1.90, 6.75, 1.63, -1.62, -1.89, 6.28, 1.79])
// STUDENT COPY: //   def print_sampled_tokens(probas):      # (this program's: bincount without minlength, as the
// STUDENT COPY: //       ...                                # exercise's notebook has it)
// STUDENT COPY: //   temperatures = [1, 0.1, 5]  # Original, higher confidence, and lower confidence
// STUDENT COPY: //   scaled_probas = [softmax_with_temperature(next_token_logits, T) for T in temperatures]
// STUDENT COPY: //   print_sampled_tokens(scaled_probas[1])
// END BOOK SOLUTION
//
// torch.multinomial follows PyTorch's default CPU exponential_ kernel with --bernoulli mkl too
// (chapters/ch05/decoding.cpp): the outputs are the same in both modes.
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "llmfs/app/cli.hpp"
#include "llmfs/app/exercise.hpp"
#include "llmfs/torch/ops.hpp"
#include "llmfs/torch/sampling.hpp"

using namespace llmfs;

const std::vector<std::string> kInverseVocab{"closer", "every", "effort", "forward", "inches",
                                             "moves",  "pizza", "toward", "you"};

// The notebook's print_sampled_tokens(probas): 1,000 draws after torch.manual_seed(123), counted by
// torch.bincount(torch.tensor(sample)) (no minlength), printed as f"{freq} x {inverse_vocab[i]}".  probas [V]
// Only the answer calls it: unused in the student copy until then.
[[maybe_unused]] static void print_sampled_tokens(Notebook& nb, Generator& gen, const Tensor<1>& probas) {
    gen.manual_seed(123);
    const auto sampled_ids = bincount_samples(gen, probas.data.data(), probas.data.size(), 1'000);
    for (std::size_t i = 0; i < sampled_ids.size(); ++i) nb.print(fmt::format("{} x {}", sampled_ids[i], kInverseVocab[i]));
}

// The sampling frequencies at each temperature: scaled_probas[i] are the probabilities at temperatures[i].
static void print_frequencies(Notebook& nb, Generator& gen, const std::vector<double>& temperatures,
                              const std::vector<Tensor<1>>& scaled_probas) {
    // BEGIN SOLUTION(exercise 5.1): for each temperature print two blank lines and Temperature: with it, then print_sampled_tokens of its probabilities
    for (std::size_t i = 0; i < scaled_probas.size(); ++i) {  // for i, probas in enumerate(scaled_probas):
        nb.print("\n\nTemperature:", fmt::format("{}", temperatures[i]));  // fmt prints 1.0 as Python prints the int 1
        print_sampled_tokens(nb, gen, scaled_probas[i]);
    }
    // END SOLUTION
}

// The exact probability of the word pizza_idx at the temperature temp5_idx: a 0-d tensor.
static Tensor<0> pizza_probability(const std::vector<Tensor<1>>& scaled_probas, std::size_t temp5_idx, std::size_t pizza_idx) {
    // BEGIN SOLUTION(exercise 5.1): return the probability of the word pizza_idx among the probabilities at temperature temp5_idx
    return select(scaled_probas.at(temp5_idx), pizza_idx);  // scaled_probas[temp5_idx][pizza_idx]
    // END SOLUTION
}

// --variant N (llmfs-exercise grade): other logits and temperatures, and the probability of
// another word at another of them.
struct Variant {
    Array<1> logits;  // [V=9]
    std::vector<double> temperatures;
    std::size_t temperature_idx, word_idx;
};
static Variant variant_inputs(int variant) {
    switch (variant) {
        case 1: return {Array<1>{1.0f, 2.5f, -0.5f, 3.0f, 0.2f, 1.1f, 2.9f, -2.0f, 0.7f}, {0.5, 2}, 1, 3};
        case 2: return {Array<1>{-1.2f, 0.3f, 4.4f, 2.2f, -0.7f, 3.9f, 0.0f, 1.5f, 2.8f}, {3, 1, 0.25, 1.5}, 0, 2};
        case 3: return {Array<1>{0.5f, 0.4f, 0.3f, 0.2f, 0.1f, 0.0f, -0.1f, -0.2f, -0.3f}, {10}, 0, 8};
        default: return {Array<1>{4.51f, 0.89f, -1.90f, 6.75f, 1.63f, -1.62f, -1.89f, 6.28f, 1.79f}, {1, 0.1, 5}, 2, 6};
    }
}

int main(int argc, char** argv) {
    return run_exercise(argc, argv, "Exercise 5.1: temperature-scaled softmax scores and sampling probabilities", 3,
                       [](Notebook& nb, Generator& gen, int variant) {
        nb.section("Exercise 5.1: Temperature-scaled softmax scores and sampling probabilities");
        const Variant v = variant_inputs(variant);
        if (variant)
            nb.note(fmt::format("--variant {}: other logits, the temperatures {}, the probability of \"{}\" at temperature {}", variant,
                                fmt::join(v.temperatures, ", "), kInverseVocab[v.word_idx], v.temperatures[v.temperature_idx]));
        // BEGIN BOOK SOLUTION: the notebook's setup cell (the student copy says what it defines)
        nb.code("import torch\n"
                "\n"
                "vocab = { \n"
                "    \"closer\": 0,\n"
                "    \"every\": 1, \n"
                "    \"effort\": 2, \n"
                "    \"forward\": 3,\n"
                "    \"inches\": 4,\n"
                "    \"moves\": 5, \n"
                "    \"pizza\": 6,\n"
                "    \"toward\": 7,\n"
                "    \"you\": 8,\n"
                "} \n"
                "inverse_vocab = {v: k for k, v in vocab.items()}\n"
                "\n"
                "next_token_logits = torch.tensor(\n"
                "    [4.51, 0.89, -1.90, 6.75, 1.63, -1.62, -1.89, 6.28, 1.79]\n"
                ")\n"
                "\n"
                "def print_sampled_tokens(probas):\n"
                "    torch.manual_seed(123)\n"
                "    sample = [torch.multinomial(probas, num_samples=1).item() for i in range(1_000)]\n"
                "    sampled_ids = torch.bincount(torch.tensor(sample))\n"
                "    for i, freq in enumerate(sampled_ids):\n"
                "        print(f\"{freq} x {inverse_vocab[i]}\")\n"
                "\n"
                "\n"
                "def softmax_with_temperature(logits, temperature):\n"
                "    scaled_logits = logits / temperature\n"
                "    return torch.softmax(scaled_logits, dim=0)\n"
                "\n"
                "\n"
                "temperatures = [1, 0.1, 5]  # Original, higher, and lower temperature\n"
                "scaled_probas = [softmax_with_temperature(next_token_logits, T) for T in temperatures]");
        // STUDENT COPY: nb.added_code("# exercise 5.1: section 5.3's vocab, inverse_vocab, next_token_logits, softmax_with_temperature\n"
        // STUDENT COPY:               "# and print_sampled_tokens (counting without minlength: no line after the last word sampled)\n"
        // STUDENT COPY:               "temperatures = [1, 0.1, 5]  # Original, higher confidence, and lower confidence\n"
        // STUDENT COPY:               "scaled_probas = [softmax_with_temperature(next_token_logits, T) for T in temperatures]");
        // END BOOK SOLUTION
        const Tensor<1> next_token_logits = v.logits;  // [V=9]
        const std::vector<double>& temperatures = v.temperatures;  // the book's: original, higher, and lower temperature
        std::vector<Tensor<1>> scaled_probas;               // each [V]
        for (const double T : temperatures) scaled_probas.push_back(softmax_with_temperature(next_token_logits, T));

        // BEGIN BOOK SOLUTION: the notebook's answer cells (the student copy says what they print)
        nb.code("for i, probas in enumerate(scaled_probas):\n"
                "    print(\"\\n\\nTemperature:\", temperatures[i])\n"
                "    print_sampled_tokens(probas)");
        // STUDENT COPY: nb.added_code("# exercise 5.1: each temperature's sampled frequencies");
        // END BOOK SOLUTION
        print_frequencies(nb, gen, temperatures, scaled_probas);

        // BEGIN BOOK SOLUTION: the notebook's answer cells (the student copy says what they print)
        nb.code("temp5_idx = 2\n"
                "pizza_idx = 6\n"
                "\n"
                "scaled_probas[temp5_idx][pizza_idx]");
        // STUDENT COPY: nb.added_code("# exercise 5.1: the probability of pizza at temperature 5");
        // END BOOK SOLUTION
        nb.print(pizza_probability(scaled_probas, v.temperature_idx, v.word_idx));
    });
}
