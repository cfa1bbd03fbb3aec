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
#include "llmfs/nn/attention.hpp"
#include "llmfs/app/cli.hpp"
#include "llmfs/app/exercise.hpp"

using namespace llmfs;

// MultiHeadAttention(d_in, d_out, context_length, 0.0, num_heads) of GPT-2 small's sizes.
static MultiHeadAttention gpt2_small_attention(Generator& gen) {
    // BEGIN SOLUTION(exercise 3.3): build a MultiHeadAttention with GPT-2 small's sizes (768 in and out, context 1024, 12 heads, dropout 0.0)
    const std::size_t context_length = 1024, d_in = 768, d_out = 768, num_heads = 12;
    return MultiHeadAttention(gen, d_in, d_out, context_length, 0.0, num_heads);
    // END SOLUTION
}

// sum(p.numel() for p in model.parameters() if p.requires_grad)
static std::size_t count_parameters(const MultiHeadAttention& mha) {
    // BEGIN SOLUTION(exercise 3.3): add up the parameters of the four Linear layers (Linear::num_parameters)
    return mha.W_query.num_parameters() + mha.W_key.num_parameters() + mha.W_value.num_parameters() +
           mha.out_proj.num_parameters();
    // END SOLUTION
}

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "Exercise 3.3: initializing GPT-2 size attention modules",
                       [](Notebook& nb, Generator& gen) {
        // The book's exercise notebook answers this exercise in prose, without code cells: every
        // cell here is one the program adds (llmfs-nbcheck does not look for them in the notebook).
        nb.section("Exercise 3.3: Initializing GPT-2 size attention modules");
        nb.added_code("mha = MultiHeadAttention(d_in, d_out, context_length, 0.0, num_heads)");
        const MultiHeadAttention mha = gpt2_small_attention(gen);
        nb.added_code("count_parameters(mha)");
        nb.print(count_parameters(mha));
    });
}
