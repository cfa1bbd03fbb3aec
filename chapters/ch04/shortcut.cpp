// 4.4 Adding shortcut connections
#include <fmt/format.h>

#include "llmfs/app/cli.hpp"
#include "llmfs/nn/shortcut.hpp"

using namespace llmfs;

// def print_gradients(model, x): MSE loss against target [[0.]], backward, then for each weight
// print(f"{name} has gradient mean of {param.grad.abs().mean().item()}")
static void print_gradients(Notebook& nb, const ExampleDeepNeuralNetwork& model, const Tensor<2>& x) {
    const Tensor<2> target = Array<2>{{0.0f}};
    const auto grads = model.mse_gradients(x, target);
    for (std::size_t i = 0; i < grads.weight.size(); ++i)
        nb.print(fmt::format("{} has gradient mean of {}", ExampleDeepNeuralNetwork::weight_name(i),
                             python_float_repr(abs_mean(grads.weight[i]))));
}

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "4.4 Adding shortcut connections", [](Notebook& nb, Generator& gen) {
        nb.section("4.4 Adding shortcut connections");
        nb.code("layer_sizes = [3, 3, 3, 3, 3, 1]  \n"
                "\n"
                "sample_input = torch.tensor([[1., 0., -1.]])\n"
                "\n"
                "torch.manual_seed(123)\n"
                "model_without_shortcut = ExampleDeepNeuralNetwork(\n"
                "    layer_sizes, use_shortcut=False\n"
                ")\n"
                "print_gradients(model_without_shortcut, sample_input)");
        const std::vector<std::size_t> layer_sizes{3, 3, 3, 3, 3, 1};
        const Tensor<2> sample_input = Array<2>{{1.0f, 0.0f, -1.0f}};  // [1, 3]
        gen.manual_seed(123);
        const ExampleDeepNeuralNetwork model_without_shortcut(gen, layer_sizes, false);
        print_gradients(nb, model_without_shortcut, sample_input);

        nb.code("torch.manual_seed(123)\n"
                "model_with_shortcut = ExampleDeepNeuralNetwork(\n"
                "    layer_sizes, use_shortcut=True\n"
                ")\n"
                "print_gradients(model_with_shortcut, sample_input)");
        gen.manual_seed(123);
        const ExampleDeepNeuralNetwork model_with_shortcut(gen, layer_sizes, true);
        print_gradients(nb, model_with_shortcut, sample_input);
    });
}
