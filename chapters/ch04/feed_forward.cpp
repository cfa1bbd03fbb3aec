// 4.3 Implementing a feed forward network with GELU activations
#include <filesystem>
#include <iostream>

#include "llmfs/cli.hpp"
#include "llmfs/gpt.hpp"
#include "llmfs/plot.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    std::filesystem::path figure = "gelu_relu.png";
    return run_chapter(
        argc, argv, "4.3 Implementing a feed forward network with GELU activations",
        [&](CLI::App& app) { app.add_option("--figure", figure, "where to write the GELU vs ReLU plot (PNG)")->capture_default_str(); },
        [&](Notebook& nb, Generator& gen) {
            nb.section("4.3 Implementing a feed forward network with GELU activations");
            nb.code("x = torch.linspace(-3, 3, 100)\ny_gelu, y_relu = gelu(x), relu(x)\n# plt.plot(...) for each");
            const Tensor<1> x = Array<1>(xt::linspace<float>(-3.0f, 3.0f, 100));
            const auto y_gelu = gelu(x), y_relu = relu(x);
            plot_panels(figure, std::vector<float>(x.data.begin(), x.data.end()),
                        {{"GELU activation function", "GELU(x)", {y_gelu.data.begin(), y_gelu.data.end()}},
                         {"ReLU activation function", "ReLU(x)", {y_relu.data.begin(), y_relu.data.end()}}});
            std::cerr << "GELU vs ReLU figure written to " << figure.string() << "\n";

            nb.code("print(GPT_CONFIG_124M[\"emb_dim\"])");
            const GPTConfig cfg = GPTConfig::gpt2_small();
            nb.print(cfg.emb_dim);

            nb.code("ffn = FeedForward(GPT_CONFIG_124M)\nx = torch.rand(2, 3, 768)\nout = ffn(x)\nprint(out.shape)");
            gen.manual_seed(123);
            const FeedForward ffn(gen, cfg);
            const Tensor<3> input = rand<3>(gen, {2, 3, cfg.emb_dim});  // [B=2, T=3, C=768]
            nb.print(shape_of(ffn(input)));
        });
}
