// Exercise 3.2: Returning two-dimensional embedding vectors
//
// The problem: MultiHeadAttentionWrapper concatenates the context vectors of its heads, so with
// num_heads=2 its output has 2 * d_out dimensions. Change the MultiHeadAttentionWrapper(d_in, d_out,
// context_length, 0.0, num_heads=2) call, keeping num_heads=2, so that its context vectors are
// two-dimensional (as the single-head CausalAttention's were), and print them with their shape.
//
// The notebook code around it (exercise-solutions.ipynb of chapter 3; the answer is in the
// solution, next to its C++):
//   torch.manual_seed(123)
//   d_out = ...  # exercise 3.2
//   mha = MultiHeadAttentionWrapper(d_in, d_out, context_length, 0.0, num_heads=2)
//   context_vecs = mha(batch)
//   print(context_vecs)
//   print("context_vecs.shape:", context_vecs.shape)
#include <cstdint>

#include <fmt/format.h>

#include "llmfs/nn/attention.hpp"
#include "llmfs/app/cli.hpp"
#include "llmfs/app/exercise.hpp"

using namespace llmfs;

// The d_out of each head such that the wrapper's num_heads heads together give 2 dimensions.
static std::size_t head_d_out(std::size_t context_dim, std::size_t num_heads) {
    // BEGIN SOLUTION(exercise 3.2): return the d_out each of the num_heads heads needs for context vectors of context_dim dimensions
    return context_dim / num_heads;  // the book's case: d_out = 2 / 2 = 1, each head contributes one dimension
    // END SOLUTION
}

// --variant N (llmfs-exercise grade): other context vector widths, head counts and seeds.
struct Variant {
    std::size_t context_dim, num_heads;
    std::uint64_t seed;
};
const Variant kVariants[] = {{2, 2, 123}, {4, 2, 456}, {6, 3, 7}, {3, 3, 2024}};  // [0]: the book's case

int main(int argc, char** argv) {
    return run_exercise(argc, argv, "Exercise 3.2: returning two-dimensional embedding vectors", 3,
                       [](Notebook& nb, Generator& gen, int variant) {
        // The book's exercise notebook answers this exercise in prose, without code cells: every
        // cell here is one the program adds (llmfs-nbcheck does not look for them in the notebook).
        nb.section("Exercise 3.2: Returning two-dimensional embedding vectors");
        const Tensor<2> inputs = your_journey_inputs();
        const Tensor<3> batch = stack<2>({inputs, inputs});  // [B=2, T=6, d_in=3]
        const std::size_t context_length = batch.size(1), d_in = 3;

        nb.added_code("torch.manual_seed(123)\nd_out = head_d_out(context_dim=2, num_heads=2)  # exercise 3.2\nmha = MultiHeadAttentionWrapper(d_in, d_out, context_length, 0.0, num_heads=2)\n"
                "context_vecs = mha(batch)\nprint(context_vecs)");
        const auto [context_dim, num_heads, seed] = kVariants[variant];
        if (variant)
            nb.note(fmt::format("--variant {}: {}-dimensional context vectors from {} heads, torch.manual_seed({})", variant,
                                context_dim, num_heads, seed));
        gen.manual_seed(seed);
        const std::size_t d_out = head_d_out(context_dim, num_heads);
        const MultiHeadAttentionWrapper mha(gen, d_in, d_out, context_length, 0.0, num_heads);
        const auto context_vecs = mha.forward(batch);  // [B, T, NH * d_out]
        nb.print(context_vecs);
        nb.added_code("print(\"context_vecs.shape:\", context_vecs.shape)");
        nb.print("context_vecs.shape:", shape_of(context_vecs));
    });
}
