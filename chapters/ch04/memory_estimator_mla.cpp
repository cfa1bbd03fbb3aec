// Bonus: ch04/05_mla, memory_estimator_mla.py. The KV cache of multi-head attention, grouped-query
// attention and multi-head latent attention (one compressed latent per token and layer). Prints
// what the script prints for the same arguments.
#include <iostream>

#include "llmfs/app/script.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_script(argc, argv, "Estimate KV-cache memory for MHA vs GQA vs MLA",
        [](ArgumentParser& p) {
            p.add_int("--context_length", 1024);
            p.add_int("--emb_dim", std::nullopt, "", true);
            p.add_int("--n_heads", std::nullopt, "", true);
            p.add_int("--n_layers", std::nullopt, "", true);
            p.add_int("--n_kv_groups", std::nullopt, "", true);
            p.add_int("--latent_dim", std::nullopt, "MLA per-token latent dimension", true);
            p.add_int("--batch_size", 1);
            p.add_choice("--dtype", dtype_names(), "fp16");
        },
        [](const ArgumentParser& args) {
            KVEstimateArgs a = kv_estimate_args(args);
            a.latent_dim = *args.get_int("latent_dim");
            std::cout << memory_estimate_mla(a);
        });
}
