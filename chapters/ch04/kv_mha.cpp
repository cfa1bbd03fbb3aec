// Bonus: ch04/04_gqa, gpt_with_kv_mha.py (also in 05_mla and 06_swa): the baseline of the bonus
// folders. Chapter 4's GPT with multi-head attention and a KV cache, sized by the flags, continues
// "Hello, I am" greedily. Same command line and output as the script run in float32.
#include "llmfs/app/script.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    GptScript script;
    script.description = "Run GPT with standard multi-head attention.";
    script.add_arguments = [](ArgumentParser& p) {
        p.add_int("--emb_dim", 768, "Model embedding dimension.");
        p.add_int("--n_heads", 12, "Number of attention heads.");
        p.add_int("--n_layers", 12, "Number of transformer blocks.");
        p.add_int("--max_new_tokens", 200, "Number of tokens to generate.");
    };
    script.config = [](const ArgumentParser& args) {
        VariantConfig cfg = script_base_config(args);
        cfg.attention = AttentionKind::mha;
        return cfg;
    };
    return run_gpt_script(argc, argv, script);
}
