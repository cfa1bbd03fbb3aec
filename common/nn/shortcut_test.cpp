// The 4.4 backward pass against finite differences of the forward pass.
#include <catch2/catch.hpp>

#include <cmath>

#include "llmfs/nn/shortcut.hpp"

using namespace llmfs;

TEST_CASE("gelu_derivative matches a central difference of gelu") {
    for (float z : {-3.0f, -1.0f, -0.1f, 0.0f, 0.3f, 1.0f, 2.5f}) {
        DYNAMIC_SECTION("z = " << z) {
            const float h = 1e-2f;
            const Tensor<1> zs = Array<1>{z - h, z + h};
            const auto g = gelu(zs).data;
            REQUIRE(gelu_derivative(z) == Approx((g(1) - g(0)) / (2 * h)).epsilon(1e-3));
        }
    }
}

TEST_CASE("mse_gradients match finite differences of the MSE loss") {
    for (bool shortcut : {false, true}) {
        DYNAMIC_SECTION((shortcut ? "with" : "without") << " shortcuts") {
            Generator gen;
            gen.manual_seed(7);
            ExampleDeepNeuralNetwork model(gen, {3, 3, 3, 3, 1}, shortcut);
            const Tensor<2> x = Array<2>{{1.0f, 0.5f, -1.0f}, {0.2f, -0.7f, 0.9f}};
            const Tensor<2> target = Array<2>{{0.5f}, {-0.25f}};
            const auto grads = model.mse_gradients(x, target);
            const float h = 1e-2f;
            for (std::size_t l = 0; l < model.layers.size(); ++l) {
                auto& w = model.layers[l].weight.data;
                for (std::size_t k = 0; k < w.size(); ++k) {
                    const float saved = w.data()[k];
                    w.data()[k] = saved + h;
                    const double up = mse_loss(model.forward(x), target);
                    w.data()[k] = saved - h;
                    const double down = mse_loss(model.forward(x), target);
                    w.data()[k] = saved;
                    const double numeric = (up - down) / (2 * h);
                    INFO("layer " << l << " weight element " << k);
                    REQUIRE(grads.weight[l].data()[k] == Approx(numeric).epsilon(2e-2).margin(2e-5));
                }
            }
        }
    }
}

TEST_CASE("mse_loss and abs_mean") {
    const Tensor<2> out = Array<2>{{1.0f, -2.0f}};
    const Tensor<2> zero = Array<2>{{0.0f, 0.0f}};
    CHECK(mse_loss(out, zero) == 2.5f);
    CHECK(abs_mean(out.data) == 1.5f);
    CHECK_THROWS_AS(mse_loss(out, Tensor<2>(Array<2>{{0.0f}})), ShapeError);
    CHECK(ExampleDeepNeuralNetwork::weight_name(3) == "layers.3.0.weight");
}
