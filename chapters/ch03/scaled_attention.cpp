// 3.4.1 Computing the attention weights step by step
// 3.4.2 Implementing a compact SelfAttention class
#include <cmath>

#include "llmfs/nn/attention.hpp"
#include "llmfs/app/attention_figure.hpp"
#include "llmfs/app/cli.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    AttentionFigures figures;  // --figure DIR: the attention weights as heatmaps
    return run_chapter(argc, argv, "3.4 Implementing self-attention with trainable weights",
                       [&](CLI::App& app) { figures.add_option(app); },
                       [&](Notebook& nb, Generator& gen) {
        nb.section("3.4.1 Computing the attention weights step by step");
        const Tensor<2> inputs = your_journey_inputs();  // [T=6, d_in=3]
        nb.code("x_2 = inputs[1] # second input element\n"
                "d_in = inputs.shape[1] # the input embedding size, d=3\n"
                "d_out = 2 # the output embedding size, d=2");
        const Tensor<1> x_2 = select(inputs, 1);          // second input element
        const std::size_t d_in = inputs.size(1), d_out = 2;

        nb.code("torch.manual_seed(123)\n"
                "\n"
                "W_query = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)\n"
                "W_key   = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)\n"
                "W_value = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)");
        gen.manual_seed(123);
        const Tensor<2> W_query = rand<2>(gen, {d_in, d_out});  // requires_grad=False: plain tensors
        const Tensor<2> W_key = rand<2>(gen, {d_in, d_out});
        const Tensor<2> W_value = rand<2>(gen, {d_in, d_out});

        nb.code("query_2 = x_2 @ W_query # _2 because it's with respect to the 2nd input element\n"
                "key_2 = x_2 @ W_key \n"
                "value_2 = x_2 @ W_value\n"
                "\n"
                "print(query_2)");
        const auto query_2 = matmul(x_2, W_query);  // [d_out]
        nb.print(query_2);

        nb.code("keys = inputs @ W_key \n"
                "values = inputs @ W_value\n"
                "\n"
                "print(\"keys.shape:\", keys.shape)\n"
                "print(\"values.shape:\", values.shape)");
        const auto keys = matmul(inputs, W_key);      // [T, d_out]
        const auto values = matmul(inputs, W_value);  // [T, d_out]
        nb.print("keys.shape:", shape_of(keys));
        nb.print("values.shape:", shape_of(values));

        nb.code("keys_2 = keys[1] # Python starts index at 0\n"
                "attn_score_22 = query_2.dot(keys_2)\n"
                "print(attn_score_22)");
        nb.print(dot(query_2, select(keys, 1)));

        nb.code("attn_scores_2 = query_2 @ keys.T # All attention scores for given query\n"
                "print(attn_scores_2)");
        const auto attn_scores_2 = matmul(query_2, T(keys));  // [T]
        nb.print(attn_scores_2);

        nb.code("d_k = keys.shape[1]\n"
                "attn_weights_2 = torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)\n"
                "print(attn_weights_2)");
        const std::size_t d_k = keys.size(1);
        const auto attn_weights_2 = softmax(attn_scores_2 / std::pow(static_cast<double>(d_k), 0.5), -1);
        nb.print(attn_weights_2);
        figures.write("scaled_attention.png",  // one query, "journey": a [1, T] row
                      {attention_heatmap("3.4.1 scaled weights of query 2", Tensor<2>(xt::atleast_2d(attn_weights_2.data)), 1)});

        nb.code("context_vec_2 = attn_weights_2 @ values\n"
                "print(context_vec_2)");
        nb.print(matmul(attn_weights_2, values));

        nb.section("3.4.2 Implementing a compact SelfAttention class");
        nb.code("import torch.nn as nn\n"
                "\n"
                "class SelfAttention_v1(nn.Module):\n"
                "\n"
                "    def __init__(self, d_in, d_out):\n"
                "        super().__init__()\n"
                "        self.W_query = nn.Parameter(torch.rand(d_in, d_out))\n"
                "        self.W_key   = nn.Parameter(torch.rand(d_in, d_out))\n"
                "        self.W_value = nn.Parameter(torch.rand(d_in, d_out))\n"
                "\n"
                "    def forward(self, x):\n"
                "        keys = x @ self.W_key\n"
                "        queries = x @ self.W_query\n"
                "        values = x @ self.W_value\n"
                "        \n"
                "        attn_scores = queries @ keys.T # omega\n"
                "        attn_weights = torch.softmax(\n"
                "            attn_scores / keys.shape[-1]**0.5, dim=-1\n"
                "        )\n"
                "\n"
                "        context_vec = attn_weights @ values\n"
                "        return context_vec\n"
                "\n"
                "torch.manual_seed(123)\n"
                "sa_v1 = SelfAttention_v1(d_in, d_out)\n"
                "print(sa_v1(inputs))",
                forward_source<SelfAttention_v1>());
        gen.manual_seed(123);
        const SelfAttention_v1 sa_v1(gen, d_in, d_out);
        nb.print(sa_v1.forward(inputs));

        nb.code("class SelfAttention_v2(nn.Module):\n"
                "\n"
                "    def __init__(self, d_in, d_out, qkv_bias=False):\n"
                "        super().__init__()\n"
                "        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)\n"
                "        self.W_key   = nn.Linear(d_in, d_out, bias=qkv_bias)\n"
                "        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)\n"
                "\n"
                "    def forward(self, x):\n"
                "        keys = self.W_key(x)\n"
                "        queries = self.W_query(x)\n"
                "        values = self.W_value(x)\n"
                "        \n"
                "        attn_scores = queries @ keys.T\n"
                "        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)\n"
                "\n"
                "        context_vec = attn_weights @ values\n"
                "        return context_vec\n"
                "\n"
                "torch.manual_seed(789)\n"
                "sa_v2 = SelfAttention_v2(d_in, d_out)\n"
                "print(sa_v2(inputs))",
                forward_source<SelfAttention_v2>());
        gen.manual_seed(789);
        const SelfAttention_v2 sa_v2(gen, d_in, d_out);
        nb.print(sa_v2.forward(inputs));
    });
}
