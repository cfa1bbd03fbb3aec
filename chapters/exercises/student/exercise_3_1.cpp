// Exercise 3.1: Comparing SelfAttention_v1 and SelfAttention_v2
//
// The problem: SelfAttention_v2 projects the inputs with nn.Linear layers, SelfAttention_v1 with
// raw weight matrices. nn.Linear keeps its weight as [d_out, d_in] and computes x @ W.T, while
// SelfAttention_v1 keeps [d_in, d_out] matrices and computes x @ W. Build one of each after
// torch.manual_seed(123), then give sa_v1 the weights of sa_v2 so that both print the same
// context vectors.
//
// The chapter's code around it (ch03.ipynb, sections 3.4.1 and 3.4.2):
//   torch.manual_seed(123)
//   sa_v1 = SelfAttention_v1(d_in, d_out)
//   print(sa_v1(inputs))
//   torch.manual_seed(789)
//   sa_v2 = SelfAttention_v2(d_in, d_out)
//   print(sa_v2(inputs))
// The exercise builds both after torch.manual_seed(123), gives sa_v1 the weights of sa_v2, then
// prints the context vectors of each.
#include <cstdint>

#include <fmt/format.h>

#include "llmfs/nn/attention.hpp"
#include "llmfs/app/cli.hpp"
#include "llmfs/app/exercise.hpp"

using namespace llmfs;

// Gives sa_v1 (raw [d_in, d_out] parameters) the weights of sa_v2 (nn.Linear: [d_out, d_in]).
static void copy_weights(SelfAttention_v1& sa_v1, const SelfAttention_v2& sa_v2) {
    // TODO(exercise 3.1): set sa_v1.W_query, W_key and W_value from sa_v2's Linear weights (transposed, as parameters)
    exercise_todo("3.1", "set sa_v1.W_query, W_key and W_value from sa_v2's Linear weights (transposed, as parameters)");
}

// --variant N (llmfs-exercise grade): the same comparison after another seed, with another d_out.
struct Variant {
    std::uint64_t seed;
    std::size_t d_out;
};
const Variant kVariants[] = {{123, 2}, {456, 3}, {7, 1}, {2024, 4}};  // [0]: the book's case

int main(int argc, char** argv) {
    return run_exercise(argc, argv, "Exercise 3.1: comparing SelfAttention_v1 and SelfAttention_v2", 3,
                       [](Notebook& nb, Generator& gen, int variant) {
        nb.section("Exercise 3.1: Comparing SelfAttention_v1 and SelfAttention_v2");
        const Tensor<2> inputs = your_journey_inputs();  // [T=6, d_in=3]
        const auto [seed, d_out] = kVariants[variant];
        const std::size_t d_in = 3;
        if (variant) nb.note(fmt::format("--variant {}: torch.manual_seed({}) and d_out = {}", variant, seed, d_out));

        nb.code("import torch.nn as nn\n"
                "\n"
                "class SelfAttention_v1(nn.Module):\n"
                "\n"
                "    def __init__(self, d_in, d_out):\n"
                "        super().__init__()\n"
                "        self.d_out = d_out\n"
                "        self.W_query = nn.Parameter(torch.rand(d_in, d_out))\n"
                "        self.W_key   = nn.Parameter(torch.rand(d_in, d_out))\n"
                "        self.W_value = nn.Parameter(torch.rand(d_in, d_out))\n"
                "\n"
                "    def forward(self, x):\n"
                "        keys = x @ self.W_key\n"
                "        queries = x @ self.W_query\n"
                "        values = x @ self.W_value\n"
                "        \n"
                "        attn_scores = queries @ keys.T # omega\n"
                "        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)\n"
                "\n"
                "        context_vec = attn_weights @ values\n"
                "        return context_vec\n"
                "\n"
                "torch.manual_seed(123)\n"
                "sa_v1 = SelfAttention_v1(d_in, d_out)",
                forward_source<SelfAttention_v1>());
        gen.manual_seed(seed);
        SelfAttention_v1 sa_v1(gen, d_in, d_out);
        nb.added_code("# exercise 3.1: section 3.4.2's SelfAttention_v2 (nn.Linear projections without bias)\n"
                      "torch.manual_seed(123)\n"
                      "sa_v2 = SelfAttention_v2(d_in, d_out)");
        gen.manual_seed(seed);
        const SelfAttention_v2 sa_v2(gen, d_in, d_out);

        // The notebook's next cell is the answer: here it is a cell of its own, the TODO's.
        nb.added_code("# exercise 3.1: give sa_v1 the weights of sa_v2");
        copy_weights(sa_v1, sa_v2);

        nb.added_code("# exercise 3.1: the context vectors of sa_v1");
        nb.print(sa_v1.forward(inputs));  // [T, d_out]
        nb.added_code("# exercise 3.1: the context vectors of sa_v2");
        nb.print(sa_v2.forward(inputs));
    });
}
