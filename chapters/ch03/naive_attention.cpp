// 3.3.1 A simple self-attention mechanism without trainable weights
// 3.3.2 Computing attention weights for all input tokens
#include "llmfs/nn/attention.hpp"
#include "llmfs/app/attention_figure.hpp"
#include "llmfs/app/cli.hpp"

using namespace llmfs;

// def softmax_naive(x): return torch.exp(x) / torch.exp(x).sum(dim=0)
static Tensor<1> softmax_naive(const Tensor<1>& x) { return exp(x) / sum(exp(x), 0); }

int main(int argc, char** argv) {
    AttentionFigures figures;  // --figure DIR: the attention weights as heatmaps
    return run_chapter(argc, argv, "3.3 Attending to different parts of the input with self-attention",
                       [&](CLI::App& app) { figures.add_option(app); },
                       [&](Notebook& nb, Generator&) {
        nb.section("3.3.1 A simple self-attention mechanism without trainable weights");
        nb.code("import torch\n"
                "\n"
                "inputs = torch.tensor(\n"
                "  [[0.43, 0.15, 0.89], # Your     (x^1)\n"
                "   [0.55, 0.87, 0.66], # journey  (x^2)\n"
                "   [0.57, 0.85, 0.64], # starts   (x^3)\n"
                "   [0.22, 0.58, 0.33], # with     (x^4)\n"
                "   [0.77, 0.25, 0.10], # one      (x^5)\n"
                "   [0.05, 0.80, 0.55]] # step     (x^6)\n"
                ")");
        const Tensor<2> inputs = your_journey_inputs();  // [T=6, C=3]
        const std::size_t num_tokens = inputs.size(0);

        nb.code("query = inputs[1]  # 2nd input token is the query\n"
                "\n"
                "attn_scores_2 = torch.empty(inputs.shape[0])\n"
                "for i, x_i in enumerate(inputs):\n"
                "    attn_scores_2[i] = torch.dot(x_i, query) # dot product (transpose not necessary here since they are 1-dim vectors)\n"
                "\n"
                "print(attn_scores_2)");
        const Tensor<1> query = select(inputs, 1);  // 2nd input token is the query  [C]
        Tensor<1> attn_scores_2 = Array<1>::from_shape({num_tokens});  // torch.empty(T)
        for (std::size_t i = 0; i < num_tokens; ++i) attn_scores_2.data(i) = dot(select(inputs, i), query).data();
        nb.print(attn_scores_2);

        nb.code("res = 0.\n"
                "\n"
                "for idx, element in enumerate(inputs[0]):\n"
                "    res += inputs[0][idx] * query[idx]\n"
                "\n"
                "print(res)\n"
                "print(torch.dot(inputs[0], query))");
        Tensor<0> res = Array<0>(0.0f);  // res = 0.
        const Tensor<1> x_1 = select(inputs, 0);
        for (std::size_t idx = 0; idx < x_1.data.size(); ++idx) res.data() += x_1.data(idx) * query.data(idx);
        nb.print(res);
        nb.print(dot(x_1, query));

        nb.code("attn_weights_2_tmp = attn_scores_2 / attn_scores_2.sum()\n"
                "\n"
                "print(\"Attention weights:\", attn_weights_2_tmp)\n"
                "print(\"Sum:\", attn_weights_2_tmp.sum())");
        const auto attn_weights_2_tmp = attn_scores_2 / sum(attn_scores_2);
        nb.print("Attention weights:", attn_weights_2_tmp);
        nb.print("Sum:", sum(attn_weights_2_tmp));

        nb.code("def softmax_naive(x):\n"
                "    return torch.exp(x) / torch.exp(x).sum(dim=0)\n"
                "\n"
                "attn_weights_2_naive = softmax_naive(attn_scores_2)\n"
                "\n"
                "print(\"Attention weights:\", attn_weights_2_naive)\n"
                "print(\"Sum:\", attn_weights_2_naive.sum())");
        const auto attn_weights_2_naive = softmax_naive(attn_scores_2);
        nb.print("Attention weights:", attn_weights_2_naive);
        nb.print("Sum:", sum(attn_weights_2_naive));

        nb.code("attn_weights_2 = torch.softmax(attn_scores_2, dim=0)\n"
                "\n"
                "print(\"Attention weights:\", attn_weights_2)\n"
                "print(\"Sum:\", attn_weights_2.sum())");
        const auto attn_weights_2 = softmax(attn_scores_2, 0);
        nb.print("Attention weights:", attn_weights_2);
        nb.print("Sum:", sum(attn_weights_2));

        nb.code("query = inputs[1] # 2nd input token is the query\n"
                "\n"
                "context_vec_2 = torch.zeros(query.shape)\n"
                "for i,x_i in enumerate(inputs):\n"
                "    context_vec_2 += attn_weights_2[i]*x_i\n"
                "\n"
                "print(context_vec_2)");
        Tensor<1> context_vec_2 = Array<1>(xt::zeros<float>(query.data.shape()));  // [C]
        for (std::size_t i = 0; i < num_tokens; ++i)
            context_vec_2.data += attn_weights_2.data(i) * select(inputs, i).data;
        nb.print(context_vec_2);

        nb.section("3.3.2 Computing attention weights for all input tokens");
        nb.code("attn_scores = torch.empty(6, 6)\n"
                "\n"
                "for i, x_i in enumerate(inputs):\n"
                "    for j, x_j in enumerate(inputs):\n"
                "        attn_scores[i, j] = torch.dot(x_i, x_j)\n"
                "\n"
                "print(attn_scores)");
        Tensor<2> attn_scores = Array<2>::from_shape({num_tokens, num_tokens});  // [T, T]
        for (std::size_t i = 0; i < num_tokens; ++i)
            for (std::size_t j = 0; j < num_tokens; ++j)
                attn_scores.data(i, j) = dot(select(inputs, i), select(inputs, j)).data();
        nb.print(attn_scores);

        nb.code("attn_scores = inputs @ inputs.T\n"
                "print(attn_scores)");
        attn_scores = matmul(inputs, T(inputs));
        nb.print(attn_scores);

        nb.code("attn_weights = torch.softmax(attn_scores, dim=-1)\n"
                "print(attn_weights)");
        const auto attn_weights = softmax(attn_scores, -1);  // [T, T]
        nb.print(attn_weights);
        figures.write("naive_attention.png", {attention_heatmap("3.3.2 softmax(inputs @ inputs.T)", attn_weights)});

        nb.code("row_2_sum = sum([0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581])\n"
                "print(\"Row 2 sum:\", row_2_sum)\n"
                "\n"
                "print(\"All row sums:\", attn_weights.sum(dim=-1))");
        double row_2_sum = 0;  // Python's sum() over Python floats: doubles added left to right
        for (double w : {0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581}) row_2_sum += w;
        nb.print("Row 2 sum:", row_2_sum);
        nb.print("All row sums:", sum(attn_weights, -1));

        nb.code("all_context_vecs = attn_weights @ inputs\n"
                "print(all_context_vecs)");
        const auto all_context_vecs = matmul(attn_weights, inputs);  // [T, C]
        nb.print(all_context_vecs);

        nb.code("print(\"Previous 2nd context vector:\", context_vec_2)");
        nb.print("Previous 2nd context vector:", context_vec_2);
    });
}
