// Exercise 4.3: Using separate dropout parameters
//
// The problem: GPT_CONFIG_124M has a single drop_rate that every dropout layer of the GPT model
// uses. Replace it with three rates: drop_rate_emb for the dropout after the embeddings,
// drop_rate_attn for the dropout on the attention weights inside each MultiHeadAttention, and
// drop_rate_shortcut for the dropout on the shortcut connections of each TransformerBlock, and
// build a GPTModel whose dropout layers use them. Then, in training mode (dropout active), run it on
// the chapter-4 batch and print the logits as section 4.6 does.
//
// The chapter's code around it (ch04.ipynb, sections 4.5 and 4.6):
//   GPT_CONFIG_124M = {
//       "vocab_size": 50257, "context_length": 1024, "emb_dim": 768, "n_heads": 12, "n_layers": 12,
//       "drop_rate": 0.1,       # Dropout rate
//       "qkv_bias": False       # Query-Key-Value bias
//   }
//   class TransformerBlock(nn.Module):
//       self.att = MultiHeadAttention(..., dropout=cfg["drop_rate"], ...)
//       self.drop_shortcut = nn.Dropout(cfg["drop_rate"])
//   class GPTModel(nn.Module):
//       self.drop_emb = nn.Dropout(cfg["drop_rate"])
//
//   torch.manual_seed(123)
//   model = GPTModel(GPT_CONFIG_124M)
//   out = model(batch)
//   print("Input batch:\n", batch)
//   print("\nOutput shape:", out.shape)
//   print(out)
#include <cstdint>

#include <fmt/format.h>

#include "llmfs/app/cli.hpp"
#include "llmfs/app/exercise.hpp"
#include "llmfs/nn/gpt.hpp"

using namespace llmfs;

// GPT_CONFIG_124M with three dropout rates in place of drop_rate.
struct GPTConfigSeparateDropout {
    std::size_t vocab_size = 50257, context_length = 1024, emb_dim = 768, n_heads = 12, n_layers = 12;
    double drop_rate_emb = 0.1;       // NEW: dropout for embedding layers
    double drop_rate_attn = 0.1;      // NEW: dropout for multi-head attention
    double drop_rate_shortcut = 0.1;  // NEW: dropout for shortcut connections
    bool qkv_bias = false;
};

// GPTModel(cfg) whose dropout layers use cfg's three rates. The model is first built with every
// dropout rate 0: nn.Dropout draws no random numbers when it is created, so replacing the dropout
// layers afterwards gives the same parameters as building them with their rates in __init__.
static GPTModel build_model(Generator& gen, const GPTConfigSeparateDropout& cfg) {
    GPTConfig base;
    base.vocab_size = cfg.vocab_size;
    base.context_length = cfg.context_length;
    base.emb_dim = cfg.emb_dim;
    base.n_heads = cfg.n_heads;
    base.n_layers = cfg.n_layers;
    base.drop_rate = 0.0;
    base.qkv_bias = cfg.qkv_bias;
    GPTModel model(gen, base);
    // TODO(exercise 4.3): give model.drop_emb and each block's att.dropout and drop_shortcut a Dropout(gen, rate) with cfg's rates
    exercise_todo("4.3", "give model.drop_emb and each block's att.dropout and drop_shortcut a Dropout(gen, rate) with cfg's rates");
    return model;
}

// --variant N (llmfs-exercise grade): small models (GPT-2's vocabulary, for the batch's token ids)
// with three different rates, and another seed.
static GPTConfigSeparateDropout variant_config(int variant) {
    GPTConfigSeparateDropout cfg;  // the book's case
    if (variant == 1) cfg = {50257, 16, 32, 4, 2, 0.5, 0.0, 0.2, false};
    if (variant == 2) cfg = {50257, 8, 24, 3, 1, 0.0, 0.3, 0.0, true};
    if (variant == 3) cfg = {50257, 16, 16, 2, 3, 0.2, 0.5, 0.1, false};
    return cfg;
}

int main(int argc, char** argv) {
    return run_exercise(argc, argv, "Exercise 4.3: using separate dropout parameters", 3, [](Notebook& nb, Generator& gen, int variant) {
        nb.section("Exercise 4.3: Using separate dropout parameters");
        const GPTConfigSeparateDropout cfg = variant_config(variant);
        const std::uint64_t seed = variant ? 100 + static_cast<std::uint64_t>(variant) : 123;
        if (variant)
            nb.note(fmt::format("--variant {}: emb_dim {}, {} layer(s), drop_rate_emb {}, drop_rate_attn {}, drop_rate_shortcut {}, "
                                "torch.manual_seed({})",
                                variant, cfg.emb_dim, cfg.n_layers, cfg.drop_rate_emb, cfg.drop_rate_attn, cfg.drop_rate_shortcut, seed));
        const auto tokenizer = Gpt2Tokenizer::load_default();
        const IdArray<2> batch = encode_batch(tokenizer, {"Every effort moves you", "Every day holds a"});  // [B=2, T=4]

        nb.code("import torch\n"
                "\n"
                "torch.manual_seed(123)\n"
                "model = GPTModel(GPT_CONFIG_124M)");
        gen.manual_seed(seed);
        const GPTModel model = build_model(gen, cfg);
        // The notebook stops at building the model; the program runs it, as section 4.6 does.
        nb.added_code("torch.manual_seed(123)\nout = model(batch)");
        gen.manual_seed(seed);
        const auto out = model.forward(batch);  // [B, T, V]; training mode: dropout is active
        nb.added_code("print(\"Input batch:\\n\", batch)");
        nb.print("Input batch:\n", batch);
        nb.added_code("print(\"\\nOutput shape:\", out.shape)");
        nb.print("\nOutput shape:", shape_of(out));
        nb.added_code("print(out)");
        nb.print(out);
    });
}
