// 4.5 Connecting attention and linear layers in a transformer block
#include "llmfs/app/cli.hpp"
#include "llmfs/nn/gpt.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "4.5 Connecting attention and linear layers in a transformer block",
                       [](Notebook& nb, Generator& gen) {
        nb.section("4.5 Connecting attention and linear layers in a transformer block");
        nb.code("torch.manual_seed(123)\n"
                "\n"
                "x = torch.rand(2, 4, 768)  # Shape: [batch_size, num_tokens, emb_dim]\n"
                "block = TransformerBlock(GPT_CONFIG_124M)\n"
                "output = block(x)\n"
                "\n"
                "print(\"Input shape:\", x.shape)\n"
                "print(\"Output shape:\", output.shape)");
        gen.manual_seed(123);
        const Tensor<3> x = rand<3>(gen, {2, 4, 768});  // [B=2, T=4, C=768]
        const TransformerBlock block(gen, GPTConfig::gpt2_small());
        const auto output = block(x);  // [B, T, C]
        nb.print("Input shape:", shape_of(x));
        nb.print("Output shape:", shape_of(output));
    });
}
