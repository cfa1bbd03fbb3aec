// Bonus: ch04/07_moe, gpt_with_kv_ffn.py. The MHA GPT with a SwiGLU feed-forward layer of
// --hidden_dim units, generating with or without (--no_kv_cache) the KV cache: the dense baseline
// of the MoE script. Same command line and output as the script run in float32.
#include "llmfs/app/script.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    GptScript script;
    script.add_arguments = [](ArgumentParser& p) {
        p.add_int("--emb_dim", 768, "Model embedding dimension.");
        p.add_int("--hidden_dim", 768 * 4, "Intermediate FFN size.");
        p.add_int("--n_heads", 12, "Number of attention heads.");
        p.add_int("--n_layers", 12, "Number of transformer blocks.");
        p.add_int("--max_new_tokens", 200, "Number of tokens to generate.");
        p.add_flag("--no_kv_cache", "Disable KV caching during generation.");
    };
    script.config = [](const ArgumentParser& args) {
        VariantConfig cfg = script_base_config(args);
        cfg.feed_forward = FeedForwardKind::swiglu;
        cfg.hidden_dim = script_size(args, "hidden_dim");
        return cfg;
    };
    script.preallocated = true;
    script.ff_time_label = "Avg FFN time/call";
    return run_gpt_script(argc, argv, script);
}
