// Exercise 4.1: Number of parameters in feed forward and attention modules
//
// The problem: a TransformerBlock(GPT_CONFIG_124M) holds a multi-head attention module (att) and a
// feed forward module (ff). Print the block (its module tree, as print(block) shows it in PyTorch),
// then count the parameters in the feed forward module and in the attention module. Which of the
// two holds more?
//
// BEGIN BOOK SOLUTION: the book's solution in PyTorch (the solutions build only; the student copy shows the chapter's code)
// The notebook code (the book's solution, exercise-solutions.ipynb of chapter 4):
//   block = TransformerBlock(GPT_CONFIG_124M)
//   print(block)
//   total_params = sum(p.numel() for p in block.ff.parameters())
//   print(f"Total number of parameters in feed forward module: {total_params:,}")
//   total_params = sum(p.numel() for p in block.att.parameters())
//   print(f"Total number of parameters in attention module: {total_params:,}")
// STUDENT COPY: // The chapter's code around it (ch04.ipynb, sections 4.5 and 4.6):
// STUDENT COPY: //   block = TransformerBlock(GPT_CONFIG_124M)
// STUDENT COPY: //   total_params = sum(p.numel() for p in model.parameters())      # a whole GPTModel's
// STUDENT COPY: //   print(f"Total number of parameters: {total_params:,}")
// END BOOK SOLUTION
#include <fmt/format.h>

#include "llmfs/app/cli.hpp"
#include "llmfs/app/exercise.hpp"
#include "llmfs/nn/gpt.hpp"
#include "llmfs/nn/module.hpp"

using namespace llmfs;

// sum(p.numel() for p in block.ff.parameters())
static std::size_t feed_forward_parameters(const TransformerBlock& block) {
    // BEGIN SOLUTION(exercise 4.1): add up the parameters of the two Linear layers of block.ff
    return block.ff.fc1.num_parameters() + block.ff.fc2.num_parameters();
    // END SOLUTION
}

// sum(p.numel() for p in block.att.parameters())
static std::size_t attention_parameters(const TransformerBlock& block) {
    // BEGIN SOLUTION(exercise 4.1): add up the parameters of the four Linear layers of block.att
    const MultiHeadAttention& att = block.att;
    return att.W_query.num_parameters() + att.W_key.num_parameters() + att.W_value.num_parameters() +
           att.out_proj.num_parameters();
    // END SOLUTION
}

// --variant N (llmfs-exercise grade): transformer blocks of other (small) configurations.
static GPTConfig variant_config(int variant) {
    GPTConfig cfg;  // GPT_CONFIG_124M: the book's case
    if (variant == 1) cfg = {1000, 32, 64, 4, 2, 0.1, false};
    if (variant == 2) cfg = {500, 16, 48, 6, 1, 0.0, true};  // qkv_bias: the projections have biases too
    if (variant == 3) cfg = {2000, 64, 100, 5, 3, 0.2, false};
    return cfg;
}

int main(int argc, char** argv) {
    return run_exercise(argc, argv, "Exercise 4.1: number of parameters in feed forward and attention modules", 3,
                       [](Notebook& nb, Generator& gen, int variant) {
        nb.section("Exercise 4.1: Number of parameters in feed forward and attention modules");
        const GPTConfig cfg = variant_config(variant);
        if (variant)
            nb.note(fmt::format("--variant {}: a TransformerBlock with emb_dim {}, {} heads, context_length {}, qkv_bias {}", variant,
                                cfg.emb_dim, cfg.n_heads, cfg.context_length, cfg.qkv_bias));
        // BEGIN BOOK SOLUTION: the notebook's cell (the student copy says what it prints)
        nb.code("from gpt import TransformerBlock\n"
                "\n"
                "GPT_CONFIG_124M = {\n"
                "    \"vocab_size\": 50257,\n"
                "    \"context_length\": 1024,\n"
                "    \"emb_dim\": 768,\n"
                "    \"n_heads\": 12,\n"
                "    \"n_layers\": 12,\n"
                "    \"drop_rate\": 0.1,\n"
                "    \"qkv_bias\": False\n"
                "}\n"
                "\n"
                "block = TransformerBlock(GPT_CONFIG_124M)\n"
                "print(block)");
        // STUDENT COPY: nb.added_code("# exercise 4.1: the module tree of a TransformerBlock of GPT_CONFIG_124M\n"
        // STUDENT COPY:               "block = TransformerBlock(GPT_CONFIG_124M)");
        // END BOOK SOLUTION
        const TransformerBlock block(gen, cfg);
        nb.print(module_repr(block));

        // BEGIN BOOK SOLUTION: the notebook's answer cells (the student copy says what they print)
        nb.code("total_params = sum(p.numel() for p in block.ff.parameters())\n"
                "print(f\"Total number of parameters in feed forward module: {total_params:,}\")");
        // STUDENT COPY: nb.added_code("# exercise 4.1: the number of parameters in block.ff");
        // END BOOK SOLUTION
        nb.print(fmt::format("Total number of parameters in feed forward module: {}", with_commas(feed_forward_parameters(block))));
        // BEGIN BOOK SOLUTION: the notebook's answer cells (the student copy says what they print)
        nb.code("total_params = sum(p.numel() for p in block.att.parameters())\n"
                "print(f\"Total number of parameters in attention module: {total_params:,}\")");
        // STUDENT COPY: nb.added_code("# exercise 4.1: the number of parameters in block.att");
        // END BOOK SOLUTION
        nb.print(fmt::format("Total number of parameters in attention module: {}", with_commas(attention_parameters(block))));
    });
}
