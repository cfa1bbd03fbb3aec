// Bonus: ch04/07_moe, memory_estimator_moe.py. Parameters of a dense feed-forward layer next to a
// mixture of experts (total, and active per token with top_k experts); with --match_dense each
// expert is narrowed so that the MoE's total matches the dense layer. Prints what the script
// prints for the same arguments.
#include <iostream>

#include "llmfs/app/script.hpp"
#include "llmfs/nn/memory_estimate.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_script(argc, argv, "Estimate FFN vs MoE parameter memory",
        [](ArgumentParser& p) {
            p.add_int("--emb_dim", std::nullopt, "Model embedding dimension.", true);
            p.add_int("--hidden_dim", std::nullopt, "Dense FFN intermediate size (hidden dimension).", true);
            p.add_choice("--ffn_type", {"gelu", "swiglu"}, "swiglu");
            p.add_int("--num_experts", 8);
            p.add_int("--top_k", 2);
            p.add_choice("--dtype", dtype_names(), "bf16");
            p.add_flag("--match_dense", "Auto-set per-expert hidden so MoE total params ~= dense FFN params "
                                        "(router included).");
        },
        [](const ArgumentParser& args) {
            MoEEstimateArgs a;
            a.emb_dim = *args.get_int("emb_dim");
            a.hidden_dim = *args.get_int("hidden_dim");
            a.ffn_type = args.get_string("ffn_type");
            a.num_experts = *args.get_int("num_experts");
            a.top_k = *args.get_int("top_k");
            a.dtype = args.get_string("dtype");
            a.match_dense = args.get_flag("match_dense");
            std::cout << memory_estimate_moe(a);
        });
}
