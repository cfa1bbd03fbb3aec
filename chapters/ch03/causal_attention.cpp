// 3.5.1 Applying a causal attention mask
// 3.5.3 Implementing a compact causal attention class
#include <cmath>

#include "llmfs/attention.hpp"
#include "llmfs/cli.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "3.5 Hiding future words with causal attention",
                       [](Notebook& nb, Generator& gen) {
        nb.section("3.5.1 Applying a causal attention mask");
        const Tensor<2> inputs = your_journey_inputs();  // [T=6, d_in=3]
        const std::size_t d_in = inputs.size(1), d_out = 2;
        gen.manual_seed(789);
        const SelfAttention_v2 sa_v2(gen, d_in, d_out);  // the 3.4.2 weights

        nb.code("queries = sa_v2.W_query(inputs)\nkeys = sa_v2.W_key(inputs)\nattn_scores = queries @ keys.T\n"
                "attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)");
        const auto queries = sa_v2.W_query(inputs);         // [T, d_out]
        const auto keys = sa_v2.W_key(inputs);              // [T, d_out]
        const auto attn_scores = matmul(queries, T(keys));  // [T, T]
        const double scale = std::pow(static_cast<double>(keys.size(-1)), 0.5);
        const auto attn_weights = softmax(attn_scores / scale, -1);
        nb.print(attn_weights);

        nb.code("context_length = attn_scores.shape[0]\nmask_simple = torch.tril(torch.ones(context_length, context_length))");
        const std::size_t context_length = attn_scores.size(0);
        const Tensor<2> mask_simple = tril(ones(context_length, context_length));
        nb.print(mask_simple);

        nb.code("masked_simple = attn_weights*mask_simple");
        const auto masked_simple = attn_weights * mask_simple;
        nb.print(masked_simple);

        nb.code("row_sums = masked_simple.sum(dim=-1, keepdim=True)\nmasked_simple_norm = masked_simple / row_sums");
        const auto row_sums = sum_keepdim(masked_simple, -1);  // [T, 1]
        nb.print(masked_simple / row_sums);

        nb.code("mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)\n"
                "masked = attn_scores.masked_fill(mask.bool(), -torch.inf)");
        const auto mask = triu(ones(context_length, context_length), 1);
        const auto masked = masked_fill(attn_scores, to_bool(mask), kNegInf);
        nb.print(masked);

        nb.code("attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)");
        nb.print(softmax(masked / scale, -1));

        nb.section("3.5.3 Implementing a compact causal attention class");
        nb.code("batch = torch.stack((inputs, inputs), dim=0)\nprint(batch.shape)");
        const Tensor<3> batch = stack<2>({inputs, inputs});  // [B=2, T=6, d_in=3]
        nb.print(shape_of(batch));

        nb.code("torch.manual_seed(123)\nca = CausalAttention(d_in, d_out, context_length, 0.0)\ncontext_vecs = ca(batch)");
        gen.manual_seed(123);
        const CausalAttention ca(gen, d_in, d_out, batch.size(1), 0.0);
        const auto context_vecs = ca.forward(batch);  // [B, T, d_out]
        nb.print(context_vecs);
        nb.print("context_vecs.shape:", shape_of(context_vecs));
    });
}
