// Bonus: ch04/07_moe, gpt_with_kv_moe.py. A mixture of experts in place of the feed-forward
// layer: a router sends each token to --num_experts_per_tok of --num_experts SwiGLU experts
// (--num_experts 0: the dense GELU layer). Same command line and output as the script in float32.
#include "llmfs/app/script.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    GptScript script;
    script.add_arguments = [](ArgumentParser& p) {
        p.add_int("--emb_dim", 768, "Model embedding dimension.");
        p.add_int("--hidden_dim", 768 * 4, "Intermediate FFN or MoE size.");
        p.add_int("--n_heads", 12, "Number of attention heads.");
        p.add_int("--n_layers", 12, "Number of transformer blocks.");
        p.add_int("--max_new_tokens", 200, "Number of tokens to generate.");
        p.add_flag("--no_kv_cache", "Disable KV caching during generation.");
        p.add_int("--num_experts", 0, "Number of experts. If 0, use dense FFN. If >0, use MoE.");
        p.add_int("--num_experts_per_tok", 2, "Top-k experts per token when using MoE (ignored if num_experts=0).");
    };
    script.config = [](const ArgumentParser& args) {
        VariantConfig cfg = script_base_config(args);
        cfg.hidden_dim = script_size(args, "hidden_dim");
        // self.ff = MoEFeedForward(cfg) if cfg["num_experts"] > 0 else FeedForward(cfg)
        if (*args.get_int("num_experts") > 0) {
            cfg.feed_forward = FeedForwardKind::moe;
            cfg.num_experts = script_size(args, "num_experts");
            // torch.topk(scores, k) refuses a k below 0 as it refuses one above num_experts, at the
            // first forward: "selected index k out of range"
            const std::int64_t k = *args.get_int("num_experts_per_tok");
            cfg.num_experts_per_tok = k < 0 ? cfg.num_experts + 1 : static_cast<std::size_t>(k);
        }
        return cfg;
    };
    script.preallocated = true;
    script.ff_time_label = "Avg MoE FF time/call";
    return run_gpt_script(argc, argv, script);
}
