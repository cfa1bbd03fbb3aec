// Bonus: ch04/01_main-chapter-code/gpt.py, the chapter's code as one script. Its main() builds
// GPT-2 124M with seed 123 (untrained, eval mode) and continues "Hello, I am" by 10 tokens with
// generate_text_simple, the chapter's greedy loop over the whole model: noise, but the same noise
// as PyTorch's, token for token.
#include <string>

#include "llmfs/app/cli.hpp"
#include "llmfs/app/script.hpp"
#include "llmfs/nn/gpt.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "Bonus 4: the chapter as a script (ch04/01_main-chapter-code, gpt.py)",
                       [](Notebook& nb, Generator& gen) {
        nb.section("gpt.py: main()");
        nb.code("torch.manual_seed(123)\nmodel = GPTModel(GPT_CONFIG_124M)\nmodel.eval()  # disable dropout");
        gen.manual_seed(123);
        const GPTConfig cfg = GPTConfig::gpt2_small();  // GPT_CONFIG_124M: drop_rate 0.1, qkv_bias False
        GPTModel model(gen, cfg);
        model.train(false);  // model.eval(): no dropout is drawn, so both --bernoulli kernels print the same

        nb.code("start_context = \"Hello, I am\"\n"
                "tokenizer = tiktoken.get_encoding(\"gpt2\")\n"
                "encoded = tokenizer.encode(start_context)\n"
                "encoded_tensor = torch.tensor(encoded).unsqueeze(0)\n"
                "print(f\"\\n{50*'='}\\n{22*' '}IN\\n{50*'='}\") ...");
        const auto tokenizer = Gpt2Tokenizer::load_default();
        const IdArray<2> encoded_tensor = print_script_input(nb, tokenizer, "Hello, I am");  // [1, 4]

        nb.code("out = generate_text_simple(\n"
                "    model=model,\n"
                "    idx=encoded_tensor,\n"
                "    max_new_tokens=10,\n"
                "    context_size=GPT_CONFIG_124M[\"context_length\"]\n"
                ")\n"
                "decoded_text = tokenizer.decode(out.squeeze(0).tolist())\n"
                "print(f\"\\n\\n{50*'='}\\n{22*' '}OUT\\n{50*'='}\") ...");
        const IdArray<2> out = generate_text_simple(model, encoded_tensor, 10, cfg.context_length);  // [1, 14]
        print_script_output(nb, tokenizer, out);
    });
}
