// 3.5.2 Masking additional attention weights with dropout
#include "llmfs/nn/attention.hpp"
#include "llmfs/app/attention_figure.hpp"
#include "llmfs/app/cli.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    AttentionFigures figures;  // --figure DIR: the attention weights as heatmaps
    return run_chapter(argc, argv, "3.5.2 Masking additional attention weights with dropout",
                       [&](CLI::App& app) { figures.add_option(app); },
                       [&](Notebook& nb, Generator& gen) {
        nb.section("3.5.2 Masking additional attention weights with dropout");
        // The causal attention weights of 3.5.1 (SelfAttention_v2 at seed 789).  [T=6, T=6]
        gen.manual_seed(789);
        const SelfAttention_v2 sa_v2(gen, 3, 2);
        const auto attn_weights = causal_attention_weights(sa_v2, your_journey_inputs());

        nb.code("torch.manual_seed(123)\n"
                "dropout = torch.nn.Dropout(0.5) # dropout rate of 50%\n"
                "example = torch.ones(6, 6) # create a matrix of ones\n"
                "\n"
                "print(dropout(example))");
        gen.manual_seed(123);
        const Dropout dropout(gen, 0.5);  // dropout rate of 50%
        const Tensor<2> example = ones(6, 6);
        nb.print(dropout(example));

        nb.code("torch.manual_seed(123)\n"
                "print(dropout(attn_weights))");
        gen.manual_seed(123);
        const auto dropped = dropout(attn_weights);  // [T, T]
        nb.print(dropped);
        figures.write("dropout.png", {attention_heatmap("3.5.1 causal weights", attn_weights),
                                      attention_heatmap("3.5.2 after dropout(0.5)", dropped)});
    });
}
