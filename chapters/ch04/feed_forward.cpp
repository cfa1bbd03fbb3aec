// 4.3 Implementing a feed forward network with GELU activations
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>  // this program adds an option of its own

#include "llmfs/app/cli.hpp"
#include "llmfs/nn/gpt.hpp"
#include "llmfs/app/plot.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    std::filesystem::path figure;  // default_output_path("gelu_relu.png"): in the current folder
    return run_chapter(
        argc, argv, "4.3 Implementing a feed forward network with GELU activations",
        [&](CLI::App& app) {
            app.add_option("--figure", figure,
                           "where to write the GELU vs ReLU plot (PNG), relative to the current folder (default: "
                           "gelu_relu.png there, or in $LLMFS_FIGURE_DIR if set)");
        },
        [&](Notebook& nb, Generator& gen) {
            if (figure.empty()) figure = default_output_path("gelu_relu.png");
            nb.section("4.3 Implementing a feed forward network with GELU activations");
            nb.code("import matplotlib.pyplot as plt\n"
                    "\n"
                    "gelu, relu = GELU(), nn.ReLU()\n"
                    "\n"
                    "# Some sample data\n"
                    "x = torch.linspace(-3, 3, 100)\n"
                    "y_gelu, y_relu = gelu(x), relu(x)\n"
                    "\n"
                    "plt.figure(figsize=(8, 3))\n"
                    "for i, (y, label) in enumerate(zip([y_gelu, y_relu], [\"GELU\", \"ReLU\"]), 1):\n"
                    "    plt.subplot(1, 2, i)\n"
                    "    plt.plot(x, y)\n"
                    "    plt.title(f\"{label} activation function\")\n"
                    "    plt.xlabel(\"x\")\n"
                    "    plt.ylabel(f\"{label}(x)\")\n"
                    "    plt.grid(True)\n"
                    "\n"
                    "plt.tight_layout()\n"
                    "plt.show()");
            const Tensor<1> x = Array<1>(xt::linspace<float>(-3.0f, 3.0f, 100));
            const auto y_gelu = gelu(x), y_relu = relu(x);
            plot_panels(figure, std::vector<float>(x.data.begin(), x.data.end()),
                        {{"GELU activation function", "GELU(x)", {y_gelu.data.begin(), y_gelu.data.end()}},
                         {"ReLU activation function", "ReLU(x)", {y_relu.data.begin(), y_relu.data.end()}}});
            std::cerr << "GELU vs ReLU figure written to " << figure.string() << "\n";

            nb.code("print(GPT_CONFIG_124M[\"emb_dim\"])");
            const GPTConfig cfg = GPTConfig::gpt2_small();
            nb.print(cfg.emb_dim);

            nb.code("ffn = FeedForward(GPT_CONFIG_124M)\n"
                    "\n"
                    "# input shape: [batch_size, num_token, emb_size]\n"
                    "x = torch.rand(2, 3, 768) \n"
                    "out = ffn(x)\n"
                    "print(out.shape)");
            gen.manual_seed(123);
            const FeedForward ffn(gen, cfg);
            const Tensor<3> input = rand<3>(gen, {2, 3, cfg.emb_dim});  // [B=2, T=3, C=768]
            nb.print(shape_of(ffn(input)));
        });
}
