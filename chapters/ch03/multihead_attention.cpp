// 3.6.1 Stacking multiple single-head attention layers
// 3.6.2 Implementing multi-head attention with weight splits
#include "llmfs/nn/attention.hpp"
#include "llmfs/app/attention_figure.hpp"
#include "llmfs/app/cli.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    AttentionFigures figures;  // --figure DIR: the attention weights as heatmaps
    return run_chapter(argc, argv, "3.6 Extending single-head attention to multi-head attention",
                       [&](CLI::App& app) { figures.add_option(app); },
                       [&](Notebook& nb, Generator& gen) {
        nb.section("3.6.1 Stacking multiple single-head attention layers");
        const Tensor<2> inputs = your_journey_inputs();
        const Tensor<3> batch = stack<2>({inputs, inputs});  // [B=2, T=6, d_in=3]
        const std::size_t context_length = batch.size(1), d_in = 3, d_out = 2;

        nb.code("class MultiHeadAttentionWrapper(nn.Module):\n"
                "\n"
                "    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):\n"
                "        super().__init__()\n"
                "        self.heads = nn.ModuleList(\n"
                "            [CausalAttention(d_in, d_out, context_length, dropout, qkv_bias) \n"
                "             for _ in range(num_heads)]\n"
                "        )\n"
                "\n"
                "    def forward(self, x):\n"
                "        return torch.cat([head(x) for head in self.heads], dim=-1)\n"
                "\n"
                "\n"
                "torch.manual_seed(123)\n"
                "\n"
                "context_length = batch.shape[1] # This is the number of tokens\n"
                "d_in, d_out = 3, 2\n"
                "mha = MultiHeadAttentionWrapper(\n"
                "    d_in, d_out, context_length, 0.0, num_heads=2\n"
                ")\n"
                "\n"
                "context_vecs = mha(batch)\n"
                "\n"
                "print(context_vecs)\n"
                "print(\"context_vecs.shape:\", context_vecs.shape)",
                forward_source<MultiHeadAttentionWrapper>());
        gen.manual_seed(123);
        const MultiHeadAttentionWrapper wrapper(gen, d_in, d_out, context_length, 0.0, 2);
        const auto stacked = wrapper.forward(batch);  // [B, T, NH * d_out]
        nb.print(stacked);
        if (figures.wanted()) {  // each head's weights for the first text (dropout 0: the forward draws nothing)
            std::vector<Heatmap> heads;
            for (std::size_t h = 0; h < wrapper.heads.size(); ++h) {
                Tensor<3> attn_weights;  // [B, T, T]
                wrapper.heads[h].forward(batch, attn_weights);
                heads.push_back(attention_heatmap("3.6.1 head " + std::to_string(h), Tensor<2>(xt::view(attn_weights.data, 0))));
            }
            figures.write("multihead_wrapper.png", heads);
        }
        nb.print("context_vecs.shape:", shape_of(stacked));

        nb.section("3.6.2 Implementing multi-head attention with weight splits");
        nb.code("class MultiHeadAttention(nn.Module):\n"
                "    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):\n"
                "        super().__init__()\n"
                "        assert (d_out % num_heads == 0), \\\n"
                "            \"d_out must be divisible by num_heads\"\n"
                "\n"
                "        self.d_out = d_out\n"
                "        self.num_heads = num_heads\n"
                "        self.head_dim = d_out // num_heads # Reduce the projection dim to match desired output dim\n"
                "\n"
                "        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)\n"
                "        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)\n"
                "        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)\n"
                "        self.out_proj = nn.Linear(d_out, d_out)  # Linear layer to combine head outputs\n"
                "        self.dropout = nn.Dropout(dropout)\n"
                "        self.register_buffer(\n"
                "            \"mask\",\n"
                "            torch.triu(torch.ones(context_length, context_length),\n"
                "                       diagonal=1)\n"
                "        )\n"
                "\n"
                "    def forward(self, x):\n"
                "        b, num_tokens, d_in = x.shape\n"
                "        # As in `CausalAttention`, for inputs where `num_tokens` exceeds `context_length`, \n"
                "        # this will result in errors in the mask creation further below. \n"
                "        # In practice, this is not a problem since the LLM (chapters 4-7) ensures that inputs  \n"
                "        # do not exceed `context_length` before reaching this forwar\n"
                "\n"
                "        keys = self.W_key(x) # Shape: (b, num_tokens, d_out)\n"
                "        queries = self.W_query(x)\n"
                "        values = self.W_value(x)\n"
                "\n"
                "        # We implicitly split the matrix by adding a `num_heads` dimension\n"
                "        # Unroll last dim: (b, num_tokens, d_out) -> (b, num_tokens, num_heads, head_dim)\n"
                "        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim) \n"
                "        values = values.view(b, num_tokens, self.num_heads, self.head_dim)\n"
                "        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)\n"
                "\n"
                "        # Transpose: (b, num_tokens, num_heads, head_dim) -> (b, num_heads, num_tokens, head_dim)\n"
                "        keys = keys.transpose(1, 2)\n"
                "        queries = queries.transpose(1, 2)\n"
                "        values = values.transpose(1, 2)\n"
                "\n"
                "        # Compute scaled dot-product attention (aka self-attention) with a causal mask\n"
                "        attn_scores = queries @ keys.transpose(2, 3)  # Dot product for each head\n"
                "\n"
                "        # Original mask truncated to the number of tokens and converted to boolean\n"
                "        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]\n"
                "\n"
                "        # Use the mask to fill attention scores\n"
                "        attn_scores.masked_fill_(mask_bool, -torch.inf)\n"
                "        \n"
                "        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)\n"
                "        attn_weights = self.dropout(attn_weights)\n"
                "\n"
                "        # Shape: (b, num_tokens, num_heads, head_dim)\n"
                "        context_vec = (attn_weights @ values).transpose(1, 2) \n"
                "        \n"
                "        # Combine heads, where self.d_out = self.num_heads * self.head_dim\n"
                "        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)\n"
                "        context_vec = self.out_proj(context_vec) # optional projection\n"
                "\n"
                "        return context_vec\n"
                "\n"
                "torch.manual_seed(123)\n"
                "\n"
                "batch_size, context_length, d_in = batch.shape\n"
                "d_out = 2\n"
                "mha = MultiHeadAttention(d_in, d_out, context_length, 0.0, num_heads=2)\n"
                "\n"
                "context_vecs = mha(batch)\n"
                "\n"
                "print(context_vecs)\n"
                "print(\"context_vecs.shape:\", context_vecs.shape)",
                forward_source<MultiHeadAttention>());
        gen.manual_seed(123);
        const MultiHeadAttention mha(gen, d_in, d_out, context_length, 0.0, 2);
        Tensor<4> attn_weights;  // [B, NH, T, T]
        const auto context_vecs = mha.forward(batch, attn_weights);  // [B, T, d_out]
        nb.print(context_vecs);
        if (figures.wanted()) {
            std::vector<Heatmap> heads;
            for (std::size_t h = 0; h < mha.num_heads; ++h)
                heads.push_back(attention_heatmap("3.6.2 head " + std::to_string(h), Tensor<2>(xt::view(attn_weights.data, 0, h))));
            figures.write("multihead_attention.png", heads);
        }
        nb.print("context_vecs.shape:", shape_of(context_vecs));

        nb.code("# (b, num_heads, num_tokens, head_dim) = (1, 2, 3, 4)\n"
                "a = torch.tensor([[[[0.2745, 0.6584, 0.2775, 0.8573],\n"
                "                    [0.8993, 0.0390, 0.9268, 0.7388],\n"
                "                    [0.7179, 0.7058, 0.9156, 0.4340]],\n"
                "\n"
                "                   [[0.0772, 0.3565, 0.1479, 0.5331],\n"
                "                    [0.4066, 0.2318, 0.4545, 0.9737],\n"
                "                    [0.4606, 0.5159, 0.4220, 0.5786]]]])\n"
                "\n"
                "print(a @ a.transpose(2, 3))");
        const Tensor<4> a = Array<4>{{{{0.2745f, 0.6584f, 0.2775f, 0.8573f},
                                       {0.8993f, 0.0390f, 0.9268f, 0.7388f},
                                       {0.7179f, 0.7058f, 0.9156f, 0.4340f}},
                                      {{0.0772f, 0.3565f, 0.1479f, 0.5331f},
                                       {0.4066f, 0.2318f, 0.4545f, 0.9737f},
                                       {0.4606f, 0.5159f, 0.4220f, 0.5786f}}}};
        nb.print(matmul(a, transpose(a, 2, 3)));  // [1, NH, T, T]

        nb.code("first_head = a[0, 0, :, :]\n"
                "first_res = first_head @ first_head.T\n"
                "print(\"First head:\\n\", first_res)\n"
                "\n"
                "second_head = a[0, 1, :, :]\n"
                "second_res = second_head @ second_head.T\n"
                "print(\"\\nSecond head:\\n\", second_res)");
        const Tensor<2> first_head = select(select(a, 0), 0);  // [T, hs]
        nb.print("First head:\n", matmul(first_head, T(first_head)));

        const Tensor<2> second_head = select(select(a, 0), 1);
        nb.print("\nSecond head:\n", matmul(second_head, T(second_head)));
    });
}
