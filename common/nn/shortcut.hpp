// 4.4 Adding shortcut connections: the book's ExampleDeepNeuralNetwork and the one backward
// pass the section needs (MSE loss through Linear + GELU layers, with or without shortcuts).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "llmfs/nn/gpt.hpp"

namespace llmfs {

struct ExampleDeepNeuralNetwork {
    bool use_shortcut;
    std::vector<Linear> layers;  // layers[i]: sizes[i] -> sizes[i + 1], each followed by GELU

    ExampleDeepNeuralNetwork(Generator& gen, const std::vector<std::size_t>& layer_sizes, bool use_shortcut);
    Tensor<2> forward(const Tensor<2>& x) const;  // x [B, sizes[0]] -> [B, sizes.back()]

    // What loss.backward() leaves in each parameter's .grad, for loss = nn.MSELoss()(forward(x), target).
    struct Gradients {
        std::vector<Array<2>> weight;  // weight[i]: [out_i, in_i]
        std::vector<Array<1>> bias;    // bias[i]: [out_i]
    };
    Gradients mse_gradients(const Tensor<2>& x, const Tensor<2>& target) const;

    // "layers.{i}.0.weight", as model.named_parameters() names layer i's weight
    static std::string weight_name(std::size_t i);

private:
    // What the backward pass needs from the forward pass, per layer i.
    struct Trace {
        std::vector<Array<2>> inputs;           // x_i  [B, in_i]
        std::vector<Array<2>> pre_activations;  // z_i = layers[i](x_i)  [B, out_i]
        std::vector<bool> shortcut_taken;       // whether x_{i+1} = x_i + gelu(z_i)
    };
    Tensor<2> forward(const Tensor<2>& x, Trace* trace) const;
};

// nn.MSELoss()(output, target): mean of squared differences
float mse_loss(const Tensor<2>& output, const Tensor<2>& target);

// d gelu(z) / dz for the tanh approximation
float gelu_derivative(float z);

// t.abs().mean() of a float tensor, summed in PyTorch's order
float abs_mean(const Array<2>& t);

}  // namespace llmfs
