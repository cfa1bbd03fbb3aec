// 3.4.1 Computing the attention weights step by step
// 3.4.2 Implementing a compact SelfAttention class
#include <cmath>

#include "llmfs/attention.hpp"
#include "llmfs/cli.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "3.4 Implementing self-attention with trainable weights",
                       [](Notebook& nb, Generator& gen) {
        nb.section("3.4.1 Computing the attention weights step by step");
        const Tensor<2> inputs = your_journey_inputs();  // [T=6, d_in=3]
        const Tensor<1> x_2 = select(inputs, 1);          // second input element
        const std::size_t d_in = inputs.size(1), d_out = 2;

        nb.code("torch.manual_seed(123)\nW_query = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)  # and W_key, W_value");
        gen.manual_seed(123);
        const Tensor<2> W_query = rand<2>(gen, {d_in, d_out});  // requires_grad=False: plain tensors
        const Tensor<2> W_key = rand<2>(gen, {d_in, d_out});
        const Tensor<2> W_value = rand<2>(gen, {d_in, d_out});

        nb.code("query_2 = x_2 @ W_query\nprint(query_2)");
        const auto query_2 = matmul(x_2, W_query);  // [d_out]
        nb.print(query_2);

        nb.code("keys = inputs @ W_key\nvalues = inputs @ W_value");
        const auto keys = matmul(inputs, W_key);      // [T, d_out]
        const auto values = matmul(inputs, W_value);  // [T, d_out]
        nb.print("keys.shape:", shape_of(keys));
        nb.print("values.shape:", shape_of(values));

        nb.code("keys_2 = keys[1]\nattn_score_22 = query_2.dot(keys_2)");
        nb.print(dot(query_2, select(keys, 1)));

        nb.code("attn_scores_2 = query_2 @ keys.T");
        const auto attn_scores_2 = matmul(query_2, T(keys));  // [T]
        nb.print(attn_scores_2);

        nb.code("d_k = keys.shape[1]\nattn_weights_2 = torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)");
        const std::size_t d_k = keys.size(1);
        const auto attn_weights_2 = softmax(attn_scores_2 / std::pow(static_cast<double>(d_k), 0.5), -1);
        nb.print(attn_weights_2);

        nb.code("context_vec_2 = attn_weights_2 @ values");
        nb.print(matmul(attn_weights_2, values));

        nb.section("3.4.2 Implementing a compact SelfAttention class");
        nb.code("torch.manual_seed(123)\nsa_v1 = SelfAttention_v1(d_in, d_out)\nprint(sa_v1(inputs))");
        gen.manual_seed(123);
        const SelfAttention_v1 sa_v1(gen, d_in, d_out);
        nb.print(sa_v1.forward(inputs));

        nb.code("torch.manual_seed(789)\nsa_v2 = SelfAttention_v2(d_in, d_out)\nprint(sa_v2(inputs))");
        gen.manual_seed(789);
        const SelfAttention_v2 sa_v2(gen, d_in, d_out);
        nb.print(sa_v2.forward(inputs));
    });
}
