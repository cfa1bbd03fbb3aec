// Bonus: ch04/06_swa, memory_estimator_swa.py. The KV cache when some layers attend only to a
// sliding window of the last W tokens (a:b SWA to full layers), for MHA and GQA. Prints what the
// script prints for the same arguments.
#include <iostream>

#include "llmfs/app/script.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_script(argc, argv, "Estimate KV-cache memory for MHA/GQA with SWA layer ratio",
        [](ArgumentParser& p) {
            p.add_int("--context_length", 1024);
            p.add_int("--sliding_window_size", std::nullopt, "SWA window size W per SWA layer.", true);
            p.add_int("--emb_dim", std::nullopt, "", true);
            p.add_int("--n_heads", std::nullopt, "", true);
            p.add_int("--n_layers", std::nullopt, "", true);
            p.add_int("--n_kv_groups", std::nullopt, "GQA groups; 1 means MHA-equivalent KV heads.", true);
            p.add_int("--batch_size", 1);
            p.add_choice("--dtype", dtype_names(), "fp16");
            p.add_string("--swa_ratio", "1:0",
                         "SWA:Full layer ratio. Example '5:1' -> 5 SWA for each 1 full. "
                         "'1:5' -> 1 SWA for 5 full. Default '1:0' = all SWA.");
        },
        [](const ArgumentParser& args) {
            KVEstimateArgs a = kv_estimate_args(args);
            a.sliding_window_size = *args.get_int("sliding_window_size");
            a.swa_ratio = args.get_string("swa_ratio");
            std::cout << memory_estimate_swa(a);
        });
}
