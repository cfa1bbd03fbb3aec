// Exercise 3.1: Comparing SelfAttention_v1 and SelfAttention_v2
//
// The problem: SelfAttention_v2 projects the inputs with nn.Linear layers, SelfAttention_v1 with
// raw weight matrices. nn.Linear keeps its weight as [d_out, d_in] and computes x @ W.T, while
// SelfAttention_v1 keeps [d_in, d_out] matrices and computes x @ W. Build one of each after
// torch.manual_seed(123), then give sa_v1 the weights of sa_v2 so that both print the same
// context vectors.
//
// BEGIN BOOK SOLUTION: the book's solution in PyTorch (the solutions build only; the student copy shows the chapter's code)
// The notebook code around it (exercise-solutions.ipynb of chapter 3; the answer's lines are in
// the solution, next to their C++):
//   torch.manual_seed(123)
//   sa_v1 = SelfAttention_v1(d_in, d_out)
//   torch.manual_seed(123)
//   sa_v2 = SelfAttention_v2(d_in, d_out)
//   # exercise 3.1: give sa_v1 the weights of sa_v2
//   sa_v1(inputs)
//   sa_v2(inputs)
// STUDENT COPY: // The chapter's code around it (ch03.ipynb, sections 3.4.1 and 3.4.2):
// STUDENT COPY: //   torch.manual_seed(123)
// STUDENT COPY: //   sa_v1 = SelfAttention_v1(d_in, d_out)
// STUDENT COPY: //   print(sa_v1(inputs))
// STUDENT COPY: //   torch.manual_seed(789)
// STUDENT COPY: //   sa_v2 = SelfAttention_v2(d_in, d_out)
// STUDENT COPY: //   print(sa_v2(inputs))
// STUDENT COPY: // The exercise builds both after torch.manual_seed(123), gives sa_v1 the weights of sa_v2, then
// STUDENT COPY: // prints the context vectors of each.
// END BOOK SOLUTION
#include <cstdint>

#include <fmt/format.h>

#include "llmfs/nn/attention.hpp"
#include "llmfs/app/cli.hpp"
#include "llmfs/app/exercise.hpp"

using namespace llmfs;

// Gives sa_v1 (raw [d_in, d_out] parameters) the weights of sa_v2 (nn.Linear: [d_out, d_in]).
static void copy_weights(SelfAttention_v1& sa_v1, const SelfAttention_v2& sa_v2) {
    // BEGIN SOLUTION(exercise 3.1): set sa_v1.W_query, W_key and W_value from sa_v2's Linear weights (transposed, as parameters)
    sa_v1.W_query = Tensor<2>::parameter(T(sa_v2.W_query.weight).data);  // torch.nn.Parameter(sa_v2.W_query.weight.T)
    sa_v1.W_key = Tensor<2>::parameter(T(sa_v2.W_key.weight).data);
    sa_v1.W_value = Tensor<2>::parameter(T(sa_v2.W_value.weight).data);
    // END SOLUTION
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
        // BEGIN BOOK SOLUTION: the notebook's SelfAttention_v2 (the student copy says how it differs from the chapter's)
        nb.code("class SelfAttention_v2(nn.Module):\n"
                "\n"
                "    def __init__(self, d_in, d_out):\n"
                "        super().__init__()\n"
                "        self.d_out = d_out\n"
                "        self.W_query = nn.Linear(d_in, d_out, bias=False)\n"
                "        self.W_key   = nn.Linear(d_in, d_out, bias=False)\n"
                "        self.W_value = nn.Linear(d_in, d_out, bias=False)\n"
                "\n"
                "    def forward(self, x):\n"
                "        keys = self.W_key(x)\n"
                "        queries = self.W_query(x)\n"
                "        values = self.W_value(x)\n"
                "        \n"
                "        attn_scores = queries @ keys.T\n"
                "        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=1)\n"
                "\n"
                "        context_vec = attn_weights @ values\n"
                "        return context_vec\n"
                "\n"
                "torch.manual_seed(123)\n"
                "sa_v2 = SelfAttention_v2(d_in, d_out)",
                forward_source<SelfAttention_v2>());
        // STUDENT COPY: nb.added_code("# exercise 3.1: section 3.4.2's SelfAttention_v2 (nn.Linear projections without bias)\n"
        // STUDENT COPY:               "torch.manual_seed(123)\n"
        // STUDENT COPY:               "sa_v2 = SelfAttention_v2(d_in, d_out)");
        // END BOOK SOLUTION
        gen.manual_seed(seed);
        const SelfAttention_v2 sa_v2(gen, d_in, d_out);

        // The notebook's next cell is the answer: here it is a cell of its own, the TODO's.
        nb.added_code("# exercise 3.1: give sa_v1 the weights of sa_v2");
        copy_weights(sa_v1, sa_v2);

        // BEGIN BOOK SOLUTION: the notebook's answer cells (the student copy says what they display)
        nb.code("sa_v1(inputs)");
        // STUDENT COPY: nb.added_code("# exercise 3.1: the context vectors of sa_v1");
        // END BOOK SOLUTION
        nb.print(sa_v1.forward(inputs));  // [T, d_out]
        // BEGIN BOOK SOLUTION: the notebook's answer cells (the student copy says what they display)
        nb.code("sa_v2(inputs)");
        // STUDENT COPY: nb.added_code("# exercise 3.1: the context vectors of sa_v2");
        // END BOOK SOLUTION
        nb.print(sa_v2.forward(inputs));
    });
}
