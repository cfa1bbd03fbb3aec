// Bonus: ch04/06_swa, gpt_with_kv_swa.py. Sliding-window attention: in --sliding_window_stride K
// of every K + 1 layers a token attends only to the last --sliding_window_size tokens, and those
// layers' caches keep only that window. Same command line and output as the script in float32.
#include "llmfs/app/script.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    GptScript script;
    script.description = "Run GPT with standard multi-head attention.";  // sic: the script's description
    script.add_arguments = [](ArgumentParser& p) {
        p.add_int("--emb_dim", 768, "Model embedding dimension.");
        p.add_int("--n_heads", 12, "Number of attention heads.");
        p.add_int("--n_layers", 12, "Number of transformer blocks.");
        p.add_int("--max_new_tokens", 200, "Number of tokens to generate.");
        p.add_int("--sliding_window_size", 1024, "Window size for sliding window attention.");
        p.add_int("--sliding_window_stride", 2,
                  "K:1 frequency sliding window attention is applied. K=5 means 5 sliding window layers follows by a regular layer.");
    };
    script.config = [](const ArgumentParser& args) {
        VariantConfig cfg = script_base_config(args);
        cfg.attention = AttentionKind::swa;
        cfg.sliding_window_size = *args.get_int("sliding_window_size");
        cfg.sliding_window_stride = *args.get_int("sliding_window_stride");
        return cfg;
    };
    return run_gpt_script(argc, argv, script);
}
