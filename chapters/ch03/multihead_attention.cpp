// 3.6.1 Stacking multiple single-head attention layers
// 3.6.2 Implementing multi-head attention with weight splits
#include "llmfs/attention.hpp"
#include "llmfs/cli.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "3.6 Extending single-head attention to multi-head attention",
                       [](Notebook& nb, Generator& gen) {
        nb.section("3.6.1 Stacking multiple single-head attention layers");
        const Tensor<2> inputs = your_journey_inputs();
        const Tensor<3> batch = stack<2>({inputs, inputs});  // [B=2, T=6, d_in=3]
        const std::size_t context_length = batch.size(1), d_in = 3, d_out = 2;

        nb.code("torch.manual_seed(123)\nmha = MultiHeadAttentionWrapper(d_in, d_out, context_length, 0.0, num_heads=2)\n"
                "context_vecs = mha(batch)");
        gen.manual_seed(123);
        const MultiHeadAttentionWrapper wrapper(gen, d_in, d_out, context_length, 0.0, 2);
        const auto stacked = wrapper.forward(batch);  // [B, T, NH * d_out]
        nb.print(stacked);
        nb.print("context_vecs.shape:", shape_of(stacked));

        nb.section("3.6.2 Implementing multi-head attention with weight splits");
        nb.code("torch.manual_seed(123)\nmha = MultiHeadAttention(d_in, d_out, context_length, 0.0, num_heads=2)\n"
                "context_vecs = mha(batch)");
        gen.manual_seed(123);
        const MultiHeadAttention mha(gen, d_in, d_out, context_length, 0.0, 2);
        const auto context_vecs = mha.forward(batch);  // [B, T, d_out]
        nb.print(context_vecs);
        nb.print("context_vecs.shape:", shape_of(context_vecs));

        nb.code("# (b, num_heads, num_tokens, head_dim) = (1, 2, 3, 4)\nprint(a @ a.transpose(2, 3))");
        const Tensor<4> a = Array<4>{{{{0.2745f, 0.6584f, 0.2775f, 0.8573f},
                                       {0.8993f, 0.0390f, 0.9268f, 0.7388f},
                                       {0.7179f, 0.7058f, 0.9156f, 0.4340f}},
                                      {{0.0772f, 0.3565f, 0.1479f, 0.5331f},
                                       {0.4066f, 0.2318f, 0.4545f, 0.9737f},
                                       {0.4606f, 0.5159f, 0.4220f, 0.5786f}}}};
        nb.print(matmul(a, transpose(a, 2, 3)));  // [1, NH, T, T]

        nb.code("first_head = a[0, 0, :, :]\nfirst_res = first_head @ first_head.T");
        const Tensor<2> first_head = select(select(a, 0), 0);  // [T, hs]
        nb.print("First head:\n", matmul(first_head, T(first_head)));

        const Tensor<2> second_head = select(select(a, 0), 1);
        nb.print("\nSecond head:\n", matmul(second_head, T(second_head)));
    });
}
