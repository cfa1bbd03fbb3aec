// 4.2 Normalizing activations with layer normalization
#include "llmfs/app/cli.hpp"
#include "llmfs/nn/gpt.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "4.2 Normalizing activations with layer normalization", [](Notebook& nb, Generator& gen) {
        nb.section("4.2 Normalizing activations with layer normalization");
        nb.code("torch.manual_seed(123)\n"
                "\n"
                "# create 2 training examples with 5 dimensions (features) each\n"
                "batch_example = torch.randn(2, 5) \n"
                "\n"
                "layer = nn.Sequential(nn.Linear(5, 6), nn.ReLU())\n"
                "out = layer(batch_example)\n"
                "print(out)");
        gen.manual_seed(123);
        const Tensor<2> batch_example = randn<2>(gen, {2, 5});  // 2 training examples with 5 features each
        const Linear layer(gen, 5, 6);
        const auto out = relu(layer(batch_example));  // [2, 6]
        nb.print(out);

        nb.code("mean = out.mean(dim=-1, keepdim=True)\n"
                "var = out.var(dim=-1, keepdim=True)\n"
                "\n"
                "print(\"Mean:\\n\", mean)\n"
                "print(\"Variance:\\n\", var)");
        const auto mean = mean_keepdim(out, -1);  // [2, 1]
        const auto var = var_keepdim(out, -1);    // [2, 1], unbiased
        nb.print("Mean:\n", mean);
        nb.print("Variance:\n", var);

        nb.code("out_norm = (out - mean) / torch.sqrt(var)\n"
                "print(\"Normalized layer outputs:\\n\", out_norm)\n"
                "\n"
                "mean = out_norm.mean(dim=-1, keepdim=True)\n"
                "var = out_norm.var(dim=-1, keepdim=True)\n"
                "print(\"Mean:\\n\", mean)\n"
                "print(\"Variance:\\n\", var)");
        const auto out_norm = (out - mean) / sqrt(var);
        nb.print("Normalized layer outputs:\n", out_norm);
        const auto norm_mean = mean_keepdim(out_norm, -1);
        const auto norm_var = var_keepdim(out_norm, -1);
        nb.print("Mean:\n", norm_mean);
        nb.print("Variance:\n", norm_var);

        nb.code("torch.set_printoptions(sci_mode=False)\n"
                "print(\"Mean:\\n\", mean)\n"
                "print(\"Variance:\\n\", var)");
        print_options().sci_mode = false;
        nb.print("Mean:\n", norm_mean);
        nb.print("Variance:\n", norm_var);

        nb.code("ln = LayerNorm(emb_dim=6)\n"
                "out_ln = ln(out)");
        nb.note("The printed book (and the notebook before commit 2d600cc) uses LayerNorm(emb_dim=5) on batch_example\n"
                "here, so its variance prints 1.0000; with out, eps makes it 0.9995 and 0.9997.");
        const LayerNorm ln(6);
        const auto out_ln = ln(out);  // [2, 6]

        nb.code("mean = out_ln.mean(dim=-1, keepdim=True)\n"
                "var = out_ln.var(dim=-1, unbiased=False, keepdim=True)\n"
                "\n"
                "print(\"Mean:\\n\", mean)\n"
                "print(\"Variance:\\n\", var)");
        nb.print("Mean:\n", mean_keepdim(out_ln, -1));
        // Not exactly 1: eps = 1e-5 is added to the variance before the square root.
        nb.print("Variance:\n", var_keepdim(out_ln, -1, /*unbiased=*/false));
    });
}
