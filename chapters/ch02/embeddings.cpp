// 2.7 Creating token embeddings and 2.8 Encoding word positions: nn.Embedding's weights after
// torch.manual_seed(123) (drawn by normal_, as PyTorch's generator draws them), lookups, and
// the token plus positional embeddings of the first batch of the-verdict.txt.
#include <array>
#include <stdexcept>
#include <string>

#include <xtensor/xadapt.hpp>

#include "llmfs/app/cli.hpp"
#include "llmfs/nn/gpt.hpp"
#include "llmfs/text/data_dir.hpp"
#include "llmfs/text/tokenizer.hpp"
#include "llmfs/torch/ops.hpp"
#include "llmfs/train/data.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "2.7 Creating token embeddings and 2.8 Encoding word positions", [](Notebook& nb, Generator& gen) {
        // What 2.6 leaves: the tokenizer and raw_text (ch02_data_sampling)
        const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();
        const std::string raw_text = read_file_checked(data_dir() / "the-verdict.txt");

        nb.section("2.7 Creating token embeddings");
        nb.code("input_ids = torch.tensor([2, 3, 5, 1])");
        const IdArray<1> input_ids = {2, 3, 5, 1};  // [T=4]

        nb.code("vocab_size = 6\n"
                "output_dim = 3\n"
                "\n"
                "torch.manual_seed(123)\n"
                "embedding_layer = torch.nn.Embedding(vocab_size, output_dim)");
        std::size_t vocab_size = 6;
        std::size_t output_dim = 3;
        gen.manual_seed(123);
        const Embedding embedding_layer(gen, vocab_size, output_dim);  // weight [V=6, C=3]

        nb.code("print(embedding_layer.weight)");
        nb.print(repr_parameter(embedding_layer.weight));

        nb.code("print(embedding_layer(torch.tensor([3])))");
        nb.print(embedding_layer(IdArray<1>{3}));  // [1, C]

        nb.code("print(embedding_layer(input_ids))");
        nb.print(embedding_layer(input_ids));  // [T=4, C=3]

        nb.section("2.8 Encoding word positions");
        nb.code("vocab_size = 50257\n"
                "output_dim = 256\n"
                "\n"
                "token_embedding_layer = torch.nn.Embedding(vocab_size, output_dim)");
        vocab_size = 50257;
        output_dim = 256;
        const Embedding token_embedding_layer(gen, vocab_size, output_dim);  // weight [V=50257, C=256]

        nb.code("max_length = 4\n"
                "dataloader = create_dataloader_v1(\n"
                "    raw_text, batch_size=8, max_length=max_length,\n"
                "    stride=max_length, shuffle=False\n"
                ")\n"
                "data_iter = iter(dataloader)\n"
                "inputs, targets = next(data_iter)");
        const std::size_t max_length = 4;
        const GPTDataset dataset(tokenizer, raw_text, max_length, /*stride=*/max_length);
        const DataLoader dataloader(dataset, /*batch_size=*/8, /*shuffle=*/false, /*drop_last=*/true);
        DataLoader::Epoch data_iter = dataloader.begin(gen);  // iter() draws its base seed from the generator
        Batch batch;
        if (!data_iter.next(batch)) throw std::runtime_error("the-verdict.txt gives no batch");
        const IdArray<2> inputs = xt::adapt(batch.inputs, std::array<std::size_t, 2>{batch.B, batch.T});  // [B=8, T=4]

        nb.code("print(\"Token IDs:\\n\", inputs)\n"
                "print(\"\\nInputs shape:\\n\", inputs.shape)");
        nb.print("Token IDs:\n", inputs);
        nb.print("\nInputs shape:\n", Size{{inputs.shape()[0], inputs.shape()[1]}});

        nb.code("token_embeddings = token_embedding_layer(inputs)\n"
                "print(token_embeddings.shape)\n"
                "\n"
                "# uncomment & execute the following line to see how the embeddings look like\n"
                "# print(token_embeddings)");
        const Tensor<3> token_embeddings = token_embedding_layer(inputs);  // [B=8, T=4, C=256]
        nb.print(shape_of(token_embeddings));

        nb.code("context_length = max_length\n"
                "pos_embedding_layer = torch.nn.Embedding(context_length, output_dim)\n"
                "\n"
                "# uncomment & execute the following line to see how the embedding layer weights look like\n"
                "# print(pos_embedding_layer.weight)");
        const std::size_t context_length = max_length;
        const Embedding pos_embedding_layer(gen, context_length, output_dim);  // weight [T=4, C=256]

        nb.code("pos_embeddings = pos_embedding_layer(torch.arange(max_length))\n"
                "print(pos_embeddings.shape)\n"
                "\n"
                "# uncomment & execute the following line to see how the embeddings look like\n"
                "# print(pos_embeddings)");
        const IdArray<1> positions = xt::arange<std::int64_t>(static_cast<std::int64_t>(max_length));  // torch.arange(max_length)
        const Tensor<2> pos_embeddings = pos_embedding_layer(positions);  // [T=4, C=256]
        nb.print(shape_of(pos_embeddings));

        nb.code("input_embeddings = token_embeddings + pos_embeddings\n"
                "print(input_embeddings.shape)\n"
                "\n"
                "# uncomment & execute the following line to see how the embeddings look like\n"
                "# print(input_embeddings)");
        const Tensor<3> input_embeddings = token_embeddings + pos_embeddings;  // [B, T, C] + [T, C] -> [B=8, T=4, C=256]
        nb.print(shape_of(input_embeddings));
    });
}
