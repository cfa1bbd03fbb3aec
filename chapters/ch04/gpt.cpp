// 4.6 Coding the GPT model
// 4.7 Generating text
#include <fmt/format.h>
#include <xtensor/xadapt.hpp>

#include "llmfs/app/cli.hpp"
#include "llmfs/nn/gpt.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "4.6 Coding the GPT model, 4.7 Generating text", [](Notebook& nb, Generator& gen) {
        print_options().sci_mode = false;  // still set from 4.2 in the notebook
        nb.section("4.6 Coding the GPT model");
        const auto tokenizer = Gpt2Tokenizer::load_default();
        const IdArray<2> batch = encode_batch(tokenizer, {"Every effort moves you", "Every day holds a"});  // [B=2, T=4]

        nb.code("torch.manual_seed(123)\n"
                "model = GPTModel(GPT_CONFIG_124M)\n"
                "\n"
                "out = model(batch)\n"
                "print(\"Input batch:\\n\", batch)\n"
                "print(\"\\nOutput shape:\", out.shape)\n"
                "print(out)");
        gen.manual_seed(123);
        const GPTConfig cfg = GPTConfig::gpt2_small();
        GPTModel model(gen, cfg);
        const auto out = model.forward(batch);  // [B, T, V]; training mode: dropout 0.1 is active
        nb.print("Input batch:\n", batch);
        nb.print("\nOutput shape:", shape_of(out));
        nb.print(out);

        nb.code("total_params = sum(p.numel() for p in model.parameters())\n"
                "print(f\"Total number of parameters: {total_params:,}\")");
        const std::size_t total_params = model.num_parameters();
        nb.print(fmt::format("Total number of parameters: {}", with_commas(total_params)));

        nb.code("print(\"Token embedding layer shape:\", model.tok_emb.weight.shape)\n"
                "print(\"Output layer shape:\", model.out_head.weight.shape)");
        nb.print("Token embedding layer shape:", shape_of(model.tok_emb.weight));
        nb.print("Output layer shape:", shape_of(model.out_head.weight));

        nb.code("total_params_gpt2 =  total_params - sum(p.numel() for p in model.out_head.parameters())\n"
                "print(f\"Number of trainable parameters considering weight tying: {total_params_gpt2:,}\")");
        const std::size_t total_params_gpt2 = total_params - model.out_head.num_parameters();
        nb.print(fmt::format("Number of trainable parameters considering weight tying: {}", with_commas(total_params_gpt2)));

        nb.code("# Calculate the total size in bytes (assuming float32, 4 bytes per parameter)\n"
                "total_size_bytes = total_params * 4\n"
                "\n"
                "# Convert to megabytes\n"
                "total_size_mb = total_size_bytes / (1024 * 1024)\n"
                "\n"
                "print(f\"Total size of the model: {total_size_mb:.2f} MB\")");
        const double total_size_mb = static_cast<double>(total_params * 4) / (1024 * 1024);  // float32: 4 bytes each
        nb.print(fmt::format("Total size of the model: {:.2f} MB", total_size_mb));

        nb.section("4.7 Generating text");
        nb.code("start_context = \"Hello, I am\"\n"
                "\n"
                "encoded = tokenizer.encode(start_context)\n"
                "print(\"encoded:\", encoded)\n"
                "\n"
                "encoded_tensor = torch.tensor(encoded).unsqueeze(0)\n"
                "print(\"encoded_tensor.shape:\", encoded_tensor.shape)");
        const auto encoded = tokenizer.encode("Hello, I am");
        nb.print("encoded:", encoded);
        const IdArray<2> encoded_tensor = xt::adapt(encoded, std::array<std::size_t, 2>{1, encoded.size()});  // .unsqueeze(0)
        nb.print("encoded_tensor.shape:", Size{{1, encoded.size()}});

        nb.code("model.eval() # disable dropout\n"
                "\n"
                "out = generate_text_simple(\n"
                "    model=model,\n"
                "    idx=encoded_tensor, \n"
                "    max_new_tokens=6, \n"
                "    context_size=GPT_CONFIG_124M[\"context_length\"]\n"
                ")\n"
                "\n"
                "print(\"Output:\", out)\n"
                "print(\"Output length:\", len(out[0]))");
        model.train(false);  // model.eval(): disable dropout
        const IdArray<2> generated = generate_text_simple(model, encoded_tensor, 6, cfg.context_length);
        nb.print("Output:", generated);
        nb.print("Output length:", generated.shape()[1]);

        nb.code("decoded_text = tokenizer.decode(out.squeeze(0).tolist())\n"
                "print(decoded_text)");
        const IdArray<1> first = xt::view(generated, 0);
        nb.print(tokenizer.decode(std::vector<std::int64_t>(first.begin(), first.end())));
    });
}
