// Bonus: ch04/03_kv-cache, gpt_with_kv_cache.py. GPT-2 124M (seed 123, eval mode) continues
// "Hello, I am" by 200 tokens, decoding with the key/value cache: the prompt fills the cache
// once, then each step runs only the new token. The timing goes to stderr, so stdout diffs clean
// against the script's output.
#include <chrono>

#include "llmfs/app/cli.hpp"
#include "llmfs/app/script.hpp"
#include "llmfs/nn/kv_cache.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "Bonus 4: a KV cache for generation (ch04/03_kv-cache, gpt_with_kv_cache.py)",
                       [](Notebook& nb, Generator& gen) {
        nb.section("gpt_with_kv_cache.py: main()");
        nb.code("torch.manual_seed(123)\nmodel = GPTModel(GPT_CONFIG_124M)\nmodel.eval()");
        gen.manual_seed(123);
        const GPTConfig cfg = GPTConfig::gpt2_small();
        GPTModel model(gen, cfg);
        model.train(false);  // model.eval(): disable dropout

        const auto tokenizer = Gpt2Tokenizer::load_default();
        const IdArray<2> encoded_tensor = print_script_input(nb, tokenizer, "Hello, I am");  // [1, T]

        nb.code("token_ids = generate_text_simple_cached(model=model, idx=encoded_tensor, max_new_tokens=200)");
        const auto start = std::chrono::steady_clock::now();
        const IdArray<2> token_ids = generate_text_simple_cached(model, encoded_tensor, 200, cfg.context_length);  // [1, T + 200]
        const double total_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        print_script_output(nb, tokenizer, token_ids);
        print_script_timing(total_time, token_ids.shape()[1]);
    });
}
