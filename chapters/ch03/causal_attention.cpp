// 3.5.1 Applying a causal attention mask
// 3.5.3 Implementing a compact causal attention class
#include <cmath>

#include "llmfs/nn/attention.hpp"
#include "llmfs/app/attention_figure.hpp"
#include "llmfs/app/cli.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    AttentionFigures figures;  // --figure DIR: the attention weights as heatmaps
    return run_chapter(argc, argv, "3.5 Hiding future words with causal attention",
                       [&](CLI::App& app) { figures.add_option(app); },
                       [&](Notebook& nb, Generator& gen) {
        nb.section("3.5.1 Applying a causal attention mask");
        const Tensor<2> inputs = your_journey_inputs();  // [T=6, d_in=3]
        const std::size_t d_in = inputs.size(1), d_out = 2;
        gen.manual_seed(789);
        const SelfAttention_v2 sa_v2(gen, d_in, d_out);  // the 3.4.2 weights

        nb.code("# Reuse the query and key weight matrices of the\n"
                "# SelfAttention_v2 object from the previous section for convenience\n"
                "queries = sa_v2.W_query(inputs)\n"
                "keys = sa_v2.W_key(inputs) \n"
                "attn_scores = queries @ keys.T\n"
                "\n"
                "attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)\n"
                "print(attn_weights)");
        const auto queries = sa_v2.W_query(inputs);         // [T, d_out]
        const auto keys = sa_v2.W_key(inputs);              // [T, d_out]
        const auto attn_scores = matmul(queries, T(keys));  // [T, T]
        const double scale = std::pow(static_cast<double>(keys.size(-1)), 0.5);
        const auto attn_weights = softmax(attn_scores / scale, -1);
        nb.print(attn_weights);

        nb.code("context_length = attn_scores.shape[0]\n"
                "mask_simple = torch.tril(torch.ones(context_length, context_length))\n"
                "print(mask_simple)");
        const std::size_t context_length = attn_scores.size(0);
        const Tensor<2> mask_simple = tril(ones(context_length, context_length));
        nb.print(mask_simple);

        nb.code("masked_simple = attn_weights*mask_simple\n"
                "print(masked_simple)");
        const auto masked_simple = attn_weights * mask_simple;
        nb.print(masked_simple);

        nb.code("row_sums = masked_simple.sum(dim=-1, keepdim=True)\n"
                "masked_simple_norm = masked_simple / row_sums\n"
                "print(masked_simple_norm)");
        const auto row_sums = sum_keepdim(masked_simple, -1);  // [T, 1]
        nb.print(masked_simple / row_sums);

        nb.code("mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)\n"
                "masked = attn_scores.masked_fill(mask.bool(), -torch.inf)\n"
                "print(masked)");
        const auto mask = triu(ones(context_length, context_length), 1);
        const auto masked = masked_fill(attn_scores, to_bool(mask), kNegInf);
        nb.print(masked);

        nb.code("attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)\n"
                "print(attn_weights)");
        const auto causal_weights = softmax(masked / scale, -1);  // [T, T]
        nb.print(causal_weights);
        figures.write("causal_attention.png", {attention_heatmap("3.5.1 scaled, no mask", attn_weights),
                                               attention_heatmap("masked, renormalised", masked_simple / row_sums),
                                               attention_heatmap("-inf mask, then softmax", causal_weights)});

        nb.section("3.5.3 Implementing a compact causal attention class");
        nb.code("batch = torch.stack((inputs, inputs), dim=0)\n"
                "print(batch.shape) # 2 inputs with 6 tokens each, and each token has embedding dimension 3");
        const Tensor<3> batch = stack<2>({inputs, inputs});  // [B=2, T=6, d_in=3]
        nb.print(shape_of(batch));

        nb.code("class CausalAttention(nn.Module):\n"
                "\n"
                "    def __init__(self, d_in, d_out, context_length,\n"
                "                 dropout, qkv_bias=False):\n"
                "        super().__init__()\n"
                "        self.d_out = d_out\n"
                "        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)\n"
                "        self.W_key   = nn.Linear(d_in, d_out, bias=qkv_bias)\n"
                "        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)\n"
                "        self.dropout = nn.Dropout(dropout) # New\n"
                "        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1)) # New\n"
                "\n"
                "    def forward(self, x):\n"
                "        b, num_tokens, d_in = x.shape # New batch dimension b\n"
                "        # For inputs where `num_tokens` exceeds `context_length`, this will result in errors\n"
                "        # in the mask creation further below.\n"
                "        # In practice, this is not a problem since the LLM (chapters 4-7) ensures that inputs  \n"
                "        # do not exceed `context_length` before reaching this forward method. \n"
                "        keys = self.W_key(x)\n"
                "        queries = self.W_query(x)\n"
                "        values = self.W_value(x)\n"
                "\n"
                "        attn_scores = queries @ keys.transpose(1, 2) # Changed transpose\n"
                "        attn_scores.masked_fill_(  # New, _ ops are in-place\n"
                "            self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)  # `:num_tokens` to account for cases where the number of tokens in the batch is smaller than the supported context_size\n"
                "        attn_weights = torch.softmax(\n"
                "            attn_scores / keys.shape[-1]**0.5, dim=-1\n"
                "        )\n"
                "        attn_weights = self.dropout(attn_weights) # New\n"
                "\n"
                "        context_vec = attn_weights @ values\n"
                "        return context_vec\n"
                "\n"
                "torch.manual_seed(123)\n"
                "\n"
                "context_length = batch.shape[1]\n"
                "ca = CausalAttention(d_in, d_out, context_length, 0.0)\n"
                "\n"
                "context_vecs = ca(batch)\n"
                "\n"
                "print(context_vecs)\n"
                "print(\"context_vecs.shape:\", context_vecs.shape)",
                forward_source<CausalAttention>());
        gen.manual_seed(123);
        const CausalAttention ca(gen, d_in, d_out, batch.size(1), 0.0);
        const auto context_vecs = ca.forward(batch);  // [B, T, d_out]
        nb.print(context_vecs);
        nb.print("context_vecs.shape:", shape_of(context_vecs));
    });
}
