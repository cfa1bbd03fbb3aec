// Bonus: ch04/04_gqa, gpt_with_kv_gqa.py. Grouped-query attention: the query heads share
// --n_kv_groups key/value heads, so the KV cache holds n_kv_groups heads instead of n_heads.
// Same command line and output as the script run in float32.
#include "llmfs/app/script.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    GptScript script;
    script.description = "Run GPT with grouped-query attention.";
    script.add_arguments = [](ArgumentParser& p) {
        p.add_int("--emb_dim", 768, "Model embedding dimension.");
        p.add_int("--n_heads", 12, "Number of attention heads.");
        p.add_int("--n_layers", 12, "Number of transformer blocks.");
        p.add_int("--n_kv_groups", 2, "Number of key/value groups.");
        p.add_int("--max_new_tokens", 200, "Number of tokens to generate.");
    };
    script.config = [](const ArgumentParser& args) {
        VariantConfig cfg = script_base_config(args);
        cfg.attention = AttentionKind::gqa;
        cfg.n_kv_groups = script_size(args, "n_kv_groups");
        return cfg;
    };
    return run_gpt_script(argc, argv, script);
}
