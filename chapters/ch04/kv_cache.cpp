// Bonus: ch04/03_kv-cache, gpt_with_kv_cache.py. GPT-2 124M (seed 123, eval mode) continues
// "Hello, I am" by 200 tokens, decoding with the key/value cache: the prompt fills the cache
// once, then each step runs only the new token. The timing goes to stderr, so stdout diffs clean
// against the script's output.
#include <chrono>
#include <iostream>

#include <fmt/format.h>
#include <xtensor/xadapt.hpp>

#include "llmfs/app/cli.hpp"
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

        const std::string start_context = "Hello, I am";
        const auto tokenizer = Gpt2Tokenizer::load_default();
        const auto encoded = tokenizer.encode(start_context);
        const IdArray<2> encoded_tensor = xt::adapt(encoded, std::array<std::size_t, 2>{1, encoded.size()});  // [1, T]
        const std::string rule(50, '=');
        nb.print(fmt::format("\n{}\n{}IN\n{}", rule, std::string(22, ' '), rule));
        nb.print("\nInput text:", start_context);
        nb.print("Encoded input text:", encoded);
        nb.print("encoded_tensor.shape:", Size{{1, encoded.size()}});

        nb.code("token_ids = generate_text_simple_cached(model=model, idx=encoded_tensor, max_new_tokens=200)");
        const auto start = std::chrono::steady_clock::now();
        const IdArray<2> token_ids = generate_text_simple_cached(model, encoded_tensor, 200, cfg.context_length);  // [1, T + 200]
        const double total_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const IdArray<1> first = xt::view(token_ids, 0);
        const std::string decoded_text = tokenizer.decode(std::vector<std::int64_t>(first.begin(), first.end()));

        nb.print(fmt::format("\n\n{}\n{}OUT\n{}", rule, std::string(22, ' '), rule));
        nb.print("\nOutput:", token_ids);
        nb.print("Output length:", token_ids.shape()[1]);
        nb.print("Output text:", decoded_text);
        std::cerr << fmt::format("\nTime: {:.2f} sec\n{} tokens/sec\n", total_time,
                                 static_cast<long>(static_cast<double>(token_ids.shape()[1]) / total_time));
    });
}
