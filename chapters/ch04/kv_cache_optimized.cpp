// Bonus: ch04/03_kv-cache, gpt_with_kv_cache_optimized.py. The same run as ch04_kv_cache (GPT-2
// 124M, seed 123, eval mode, "Hello, I am" + 200 tokens) with the optimized cache: preallocated
// once with kv_window_size slots, the oldest shifted out when a chunk does not fit, and a long
// prompt fed in chunks of that size. The script's window is the context length (1024), so nothing
// slides and the tokens equal ch04_kv_cache's; --kv-window-size smaller than the text makes the
// window slide (sliding-window attention: other tokens). The timing goes to stderr.
#include <chrono>

#include <CLI/CLI.hpp>  // this program adds an option of its own

#include "llmfs/app/cli.hpp"
#include "llmfs/app/script.hpp"
#include "llmfs/nn/kv_cache_optimized.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    std::size_t kv_window_size = 1024;  // GPT_CONFIG_124M["kv_window_size"]
    return run_chapter(
        argc, argv, "Bonus 4: the optimized KV cache (ch04/03_kv-cache, gpt_with_kv_cache_optimized.py)",
        [&](CLI::App& app) {
            app.add_option("--kv-window-size", kv_window_size,
                           "slots of the cache, 1 to 1024 (the script's 1024: nothing slides; smaller: the window "
                           "slides and the prompt is fed in chunks)")
                ->check(CLI::Range(1, 1024));
        },
        [&](Notebook& nb, Generator& gen) {
            nb.section("gpt_with_kv_cache_optimized.py: main()");
            nb.code("GPT_CONFIG_124M = {..., \"kv_window_size\": 1024}\n"
                    "torch.manual_seed(123)\nmodel = GPTModel(GPT_CONFIG_124M)\nmodel.eval()  # disable dropout");
            if (kv_window_size != 1024)
                nb.note("--kv-window-size " + std::to_string(kv_window_size) + ": the script's window is 1024, so its output differs.");
            gen.manual_seed(123);
            const GPTConfig cfg = GPTConfig::gpt2_small();
            GPTModel model(gen, cfg);
            model.train(false);  // model.eval(): no dropout is drawn, so both --bernoulli kernels print the same

            const auto tokenizer = Gpt2Tokenizer::load_default();
            const IdArray<2> encoded_tensor = print_script_input(nb, tokenizer, "Hello, I am");  // [1, 4]

            nb.code("token_ids = generate_text_simple_cached(model=model, idx=encoded_tensor, max_new_tokens=200)");
            const auto start = std::chrono::steady_clock::now();
            const IdArray<2> token_ids = generate_text_simple_cached_window(model, encoded_tensor, 200, kv_window_size);  // [1, 204]
            const double total_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            print_script_output(nb, tokenizer, token_ids);
            print_script_timing(total_time, token_ids.shape()[1]);
        });
}
