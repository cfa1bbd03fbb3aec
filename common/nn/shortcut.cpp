#include "llmfs/nn/shortcut.hpp"

#include <cmath>
#include <stdexcept>

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xvectorize.hpp>

namespace llmfs {

ExampleDeepNeuralNetwork::ExampleDeepNeuralNetwork(Generator& gen, const std::vector<std::size_t>& layer_sizes,
                                                   bool shortcut)
    : use_shortcut(shortcut) {
    if (layer_sizes.size() < 2) throw std::invalid_argument("ExampleDeepNeuralNetwork needs at least two layer sizes");
    for (std::size_t i = 0; i + 1 < layer_sizes.size(); ++i) layers.emplace_back(gen, layer_sizes[i], layer_sizes[i + 1]);
}

Tensor<2> ExampleDeepNeuralNetwork::forward(const Tensor<2>& x) const { return forward(x, nullptr); }

Tensor<2> ExampleDeepNeuralNetwork::forward(const Tensor<2>& input, Trace* trace) const {
    Tensor<2> x = input;  // [B, sizes[i]]
    for (const auto& layer : layers) {
        const auto z = layer(x);                // nn.Sequential(nn.Linear(...), GELU())
        const auto layer_output = gelu(z);
        const bool shortcut = use_shortcut && x.shape() == layer_output.shape();
        if (trace) {
            trace->inputs.push_back(x.data);
            trace->pre_activations.push_back(z.data);
            trace->shortcut_taken.push_back(shortcut);
        }
        x = shortcut ? x + layer_output : layer_output;
    }
    return x;
}

std::string ExampleDeepNeuralNetwork::weight_name(std::size_t i) { return "layers." + std::to_string(i) + ".0.weight"; }

float gelu_derivative(float z) {
    const float c = std::sqrt(static_cast<float>(2.0 / M_PI));
    const float t = std::tanh(c * (z + 0.044715f * z * z * z));
    // d/dz [0.5 z (1 + t(z))] = 0.5 (1 + t) + 0.5 z (1 - t^2) c (1 + 3 * 0.044715 z^2)
    return 0.5f * (1.0f + t) + 0.5f * z * (1.0f - t * t) * c * (1.0f + 3.0f * 0.044715f * z * z);
}

float mse_loss(const Tensor<2>& output, const Tensor<2>& target) {
    if (output.shape() != target.shape()) throw_shape_error("mse_loss", output.shape(), target.shape(), "shapes must match");
    const Array<2> sq = xt::square(output.data - target.data);
    return reduce_sum(sq.data(), sq.size()) / static_cast<float>(sq.size());
}

float abs_mean(const Array<2>& t) {
    const Array<2> a = xt::abs(t);
    return reduce_sum(a.data(), a.size()) / static_cast<float>(a.size());
}

ExampleDeepNeuralNetwork::Gradients ExampleDeepNeuralNetwork::mse_gradients(const Tensor<2>& input,
                                                                           const Tensor<2>& target) const {
    Trace trace;
    const Array<2> y = forward(input, &trace).data;  // [B, out]
    if (y.shape() != target.data.shape())
        throw_shape_error("mse_gradients", Shape(y.shape().begin(), y.shape().end()), target.shape(), "output and target differ");

    // dL/dy for L = mean((y - t)^2)
    Array<2> g = 2.0f * (y - target.data) / static_cast<float>(y.size());  // [B, out]
    Gradients grads;
    grads.weight.resize(layers.size());
    grads.bias.resize(layers.size());
    for (std::size_t i = layers.size(); i-- > 0;) {
        const Array<2> g_z = g * xt::vectorize(gelu_derivative)(trace.pre_activations[i]);  // through GELU  [B, out]
        grads.weight[i] = xt::linalg::dot(xt::transpose(g_z), trace.inputs[i]);            // g_z^T x  [out, in]
        grads.bias[i] = xt::sum(g_z, {0});                                                   // [out]
        Array<2> g_x = xt::linalg::dot(g_z, layers[i].weight.data);                          // g_z W  [B, in]
        if (trace.shortcut_taken[i]) g_x += g;  // the shortcut passes g through
        g = std::move(g_x);
    }
    return grads;
}

}  // namespace llmfs
