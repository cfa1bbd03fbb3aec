// Exercise 3.3: Initializing GPT-2 size attention modules
//
// The problem: build a MultiHeadAttention with the sizes of the smallest GPT-2 model: 12 attention
// heads, input and output embeddings of 768 dimensions, a context length of 1024 tokens (dropout
// 0.0 here), and count its trainable parameters: the weights (and biases, where a layer has them)
// of every nn.Linear inside it.
//
// The notebook code around it (exercise-solutions.ipynb of chapter 3; the sizes are the answer):
//   mha = MultiHeadAttention(d_in, d_out, context_length, 0.0, num_heads)
//
//   def count_parameters(model):
//       return sum(p.numel() for p in model.parameters() if p.requires_grad)
//
//   count_parameters(mha)
#include <fmt/format.h>

#include "llmfs/nn/attention.hpp"
#include "llmfs/app/cli.hpp"
#include "llmfs/app/exercise.hpp"

using namespace llmfs;

// MultiHeadAttention(d_in, d_out, context_length, 0.0, num_heads) of GPT-2 small's sizes.
static MultiHeadAttention gpt2_small_attention(Generator& gen) {
    // TODO(exercise 3.3): build a MultiHeadAttention with GPT-2 small's sizes (768 in and out, context 1024, 12 heads, dropout 0.0)
    exercise_todo("3.3", "build a MultiHeadAttention with GPT-2 small's sizes (768 in and out, context 1024, 12 heads, dropout 0.0)");
}

// sum(p.numel() for p in model.parameters() if p.requires_grad)
static std::size_t count_parameters(const MultiHeadAttention& mha) {
    // TODO(exercise 3.3): add up the parameters of the four Linear layers (Linear::num_parameters)
    exercise_todo("3.3", "add up the parameters of the four Linear layers (Linear::num_parameters)");
}

// --variant N (llmfs-exercise grade): count_parameters of attention modules of other sizes (and
// with qkv_bias), built here rather than by gpt2_small_attention.
struct Variant {
    std::size_t d_in, d_out, context_length, num_heads;
    bool qkv_bias;
};
const Variant kVariants[] = {{64, 64, 32, 4, false}, {48, 32, 16, 2, true}, {100, 60, 8, 3, false}};

int main(int argc, char** argv) {
    return run_exercise(argc, argv, "Exercise 3.3: initializing GPT-2 size attention modules", 3,
                       [](Notebook& nb, Generator& gen, int variant) {
        if (variant) {
            const Variant& v = kVariants[variant - 1];
            nb.note(fmt::format("--variant {}: count_parameters of MultiHeadAttention({}, {}, {}, 0.0, {}, qkv_bias={})", variant,
                                v.d_in, v.d_out, v.context_length, v.num_heads, v.qkv_bias ? "True" : "False"));
            nb.added_code("count_parameters(mha)");
            nb.print(count_parameters(MultiHeadAttention(gen, v.d_in, v.d_out, v.context_length, 0.0, v.num_heads, v.qkv_bias)));
            return;
        }
        // The book's exercise notebook answers this exercise in prose, without code cells: every
        // cell here is one the program adds (llmfs-nbcheck does not look for them in the notebook).
        nb.section("Exercise 3.3: Initializing GPT-2 size attention modules");
        nb.added_code("mha = MultiHeadAttention(d_in, d_out, context_length, 0.0, num_heads)");
        const MultiHeadAttention mha = gpt2_small_attention(gen);
        nb.added_code("count_parameters(mha)");
        nb.print(count_parameters(mha));
    });
}
