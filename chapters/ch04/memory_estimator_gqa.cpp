// Bonus: ch04/04_gqa, memory_estimator_gqa.py. The KV cache of multi-head attention next to
// grouped-query attention, where n_kv_groups query heads share one key/value head. Prints what the
// script prints for the same arguments.
#include <iostream>

#include "llmfs/app/script.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_script(argc, argv, "Estimate KV-cache memory for MHA vs GQA",
        [](ArgumentParser& p) {
            p.add_int("--context_length", 1024);
            p.add_int("--emb_dim", std::nullopt, "", true);
            p.add_int("--n_heads", std::nullopt, "", true);
            p.add_int("--n_layers", std::nullopt, "", true);
            p.add_int("--n_kv_groups", std::nullopt, "", true);
            p.add_int("--batch_size", 1);
            p.add_choice("--dtype", dtype_names(), "fp16");
        },
        [](const ArgumentParser& args) {
            KVEstimateArgs a = kv_estimate_args(args);
            std::cout << memory_estimate_gqa(a);
        });
}
