// Bonus: ch04/05_mla, gpt_with_kv_mla.py. Multi-head latent attention: the cache holds one
// --latent_dim vector per token (default max(16, emb_dim // 8)), from which each step recomputes
// the keys and values (the decode steps in the absorbed form, MultiHeadLatentAttention::forward_absorbed,
// whose tokens the tests hold to the script's form). Same command line and output as the script run in float32.
#include <algorithm>

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
        p.add_int("--latent_dim", std::nullopt, "Latent dim for MLA");
    };
    script.config = [](const ArgumentParser& args) {
        VariantConfig cfg = script_base_config(args);
        cfg.attention = AttentionKind::mla;
        // latent_dim = args.latent_dim if args.latent_dim is not None else max(16, args.emb_dim // 8)
        cfg.latent_dim = args.get_int("latent_dim") ? script_size(args, "latent_dim") : std::max<std::size_t>(16, cfg.emb_dim / 8);
        return cfg;
    };
    return run_gpt_script(argc, argv, script);
}
