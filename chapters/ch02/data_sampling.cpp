// 2.6 Data sampling with a sliding window: the-verdict.txt's GPT-2 token ids, next-word targets,
// and the batches of GPTDatasetV1 through create_dataloader_v1 (common/train/data.hpp).
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <xtensor/xadapt.hpp>

#include "llmfs/app/cli.hpp"
#include "llmfs/text/data_dir.hpp"
#include "llmfs/text/tokenizer.hpp"
#include "llmfs/train/data.hpp"

using namespace llmfs;

namespace {

// A batch as the loader yields it, (inputs, targets), each a tensor [B, T] of int64.
std::array<IdArray<2>, 2> as_tensors(const Batch& batch) {
    const std::array<std::size_t, 2> shape{batch.B, batch.T};
    return {IdArray<2>(xt::adapt(batch.inputs, shape)), IdArray<2>(xt::adapt(batch.targets, shape))};
}

// print(batch): str() of the list [inputs, targets]
std::string list_repr(const std::array<IdArray<2>, 2>& batch) {
    return "[" + repr(batch[0]) + ", " + repr(batch[1]) + "]";
}

}  // namespace

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "2.6 Data sampling with a sliding window", [](Notebook& nb, Generator& gen) {
        // tokenizer = tiktoken.get_encoding("gpt2"), as 2.5 leaves it (ch02_bpe)
        const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();

        nb.section("2.6 Data sampling with a sliding window");
        nb.code("with open(\"the-verdict.txt\", \"r\", encoding=\"utf-8\") as f:\n"
                "    raw_text = f.read()\n"
                "\n"
                "enc_text = tokenizer.encode(raw_text)\n"
                "print(len(enc_text))");
        std::string raw_text = read_file_checked(data_dir() / "the-verdict.txt");
        const std::vector<std::int64_t> enc_text = tokenizer.encode(raw_text);
        nb.print(enc_text.size());

        nb.code("enc_sample = enc_text[50:]");
        const std::vector<std::int64_t> enc_sample(enc_text.begin() + std::min<std::size_t>(50, enc_text.size()), enc_text.end());

        nb.code("context_size = 4\n"
                "\n"
                "x = enc_sample[:context_size]\n"
                "y = enc_sample[1:context_size+1]\n"
                "\n"
                "print(f\"x: {x}\")\n"
                "print(f\"y:      {y}\")");
        const std::size_t context_size = 4;
        const auto slice = [&](std::size_t from, std::size_t to) {  // enc_sample[from:to]
            return std::vector<std::int64_t>(enc_sample.begin() + std::min(from, enc_sample.size()),
                                             enc_sample.begin() + std::min(to, enc_sample.size()));
        };
        nb.print("x: " + to_text(slice(0, context_size)));
        nb.print("y:      " + to_text(slice(1, context_size + 1)));

        nb.code("for i in range(1, context_size+1):\n"
                "    context = enc_sample[:i]\n"
                "    desired = enc_sample[i]\n"
                "\n"
                "    print(context, \"---->\", desired)");
        for (std::size_t i = 1; i < context_size + 1; ++i) {
            const std::vector<std::int64_t> context = slice(0, i);
            const std::int64_t desired = enc_sample.at(i);
            nb.print(context, "---->", std::to_string(desired));
        }

        nb.code("for i in range(1, context_size+1):\n"
                "    context = enc_sample[:i]\n"
                "    desired = enc_sample[i]\n"
                "\n"
                "    print(tokenizer.decode(context), \"---->\", tokenizer.decode([desired]))");
        for (std::size_t i = 1; i < context_size + 1; ++i) {
            const std::vector<std::int64_t> context = slice(0, i);
            const std::int64_t desired = enc_sample.at(i);
            nb.print(tokenizer.decode(context), "---->", tokenizer.decode({desired}));
        }

        nb.code("from torch.utils.data import Dataset, DataLoader\n"
                "\n"
                "\n"
                "class GPTDatasetV1(Dataset):\n"
                "    def __init__(self, txt, tokenizer, max_length, stride):\n"
                "        self.input_ids = []\n"
                "        self.target_ids = []\n"
                "\n"
                "        # Tokenize the entire text\n"
                "        token_ids = tokenizer.encode(txt, allowed_special={\"<|endoftext|>\"})\n"
                "        assert len(token_ids) > max_length, \"Number of tokenized inputs must at least be equal to max_length+1\"\n"
                "\n"
                "        # Use a sliding window to chunk the book into overlapping sequences of max_length\n"
                "        for i in range(0, len(token_ids) - max_length, stride):\n"
                "            input_chunk = token_ids[i:i + max_length]\n"
                "            target_chunk = token_ids[i + 1: i + max_length + 1]\n"
                "            self.input_ids.append(torch.tensor(input_chunk))\n"
                "            self.target_ids.append(torch.tensor(target_chunk))\n"
                "\n"
                "    def __len__(self):\n"
                "        return len(self.input_ids)\n"
                "\n"
                "    def __getitem__(self, idx):\n"
                "        return self.input_ids[idx], self.target_ids[idx]");
        nb.note("GPTDatasetV1: GPTDataset in common/train/data.cpp");
        nb.code("def create_dataloader_v1(txt, batch_size=4, max_length=256, \n"
                "                         stride=128, shuffle=True, drop_last=True,\n"
                "                         num_workers=0):\n"
                "\n"
                "    # Initialize the tokenizer\n"
                "    tokenizer = tiktoken.get_encoding(\"gpt2\")\n"
                "\n"
                "    # Create dataset\n"
                "    dataset = GPTDatasetV1(txt, tokenizer, max_length, stride)\n"
                "\n"
                "    # Create dataloader\n"
                "    dataloader = DataLoader(\n"
                "        dataset,\n"
                "        batch_size=batch_size,\n"
                "        shuffle=shuffle,\n"
                "        drop_last=drop_last,\n"
                "        num_workers=num_workers\n"
                "    )\n"
                "\n"
                "    return dataloader");
        nb.note("DataLoader: common/train/data.cpp (it draws from torch's generator as torch.utils.data does)");

        nb.code("with open(\"the-verdict.txt\", \"r\", encoding=\"utf-8\") as f:\n"
                "    raw_text = f.read()");
        raw_text = read_file_checked(data_dir() / "the-verdict.txt");

        nb.code("dataloader = create_dataloader_v1(\n"
                "    raw_text, batch_size=1, max_length=4, stride=1, shuffle=False\n"
                ")\n"
                "\n"
                "data_iter = iter(dataloader)\n"
                "first_batch = next(data_iter)\n"
                "print(first_batch)");
        {
            const GPTDataset dataset(tokenizer, raw_text, /*max_length=*/4, /*stride=*/1);
            const DataLoader dataloader(dataset, /*batch_size=*/1, /*shuffle=*/false, /*drop_last=*/true);
            DataLoader::Epoch data_iter = dataloader.begin(gen);
            Batch first_batch;
            if (!data_iter.next(first_batch)) throw std::runtime_error("the-verdict.txt gives no batch");
            nb.print(list_repr(as_tensors(first_batch)));

            nb.code("second_batch = next(data_iter)\n"
                    "print(second_batch)");
            Batch second_batch;
            if (!data_iter.next(second_batch)) throw std::runtime_error("the-verdict.txt gives one batch only");
            nb.print(list_repr(as_tensors(second_batch)));
        }

        nb.code("dataloader = create_dataloader_v1(raw_text, batch_size=8, max_length=4, stride=4, shuffle=False)\n"
                "\n"
                "data_iter = iter(dataloader)\n"
                "inputs, targets = next(data_iter)\n"
                "print(\"Inputs:\\n\", inputs)\n"
                "print(\"\\nTargets:\\n\", targets)");
        const GPTDataset dataset(tokenizer, raw_text, /*max_length=*/4, /*stride=*/4);
        const DataLoader dataloader(dataset, /*batch_size=*/8, /*shuffle=*/false, /*drop_last=*/true);
        DataLoader::Epoch data_iter = dataloader.begin(gen);
        Batch batch;
        if (!data_iter.next(batch)) throw std::runtime_error("the-verdict.txt gives no batch");
        const auto [inputs, targets] = as_tensors(batch);  // [B=8, T=4] each
        nb.print("Inputs:\n", inputs);
        nb.print("\nTargets:\n", targets);
    });
}
