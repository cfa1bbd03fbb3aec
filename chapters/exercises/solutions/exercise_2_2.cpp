// Exercise 2.2: Data loaders with different strides and context sizes
//
// The problem: the data loader of section 2.6 cuts the-verdict.txt's token ids into windows of
// max_length tokens, stride tokens apart. Build the loader's first batch of inputs (batch_size 4,
// no shuffling) for max_length=2, stride=2 and for max_length=8, stride=2, and display it.
//
// BEGIN BOOK SOLUTION: the book's solution in PyTorch (the solutions build only; the student copy shows the chapter's code)
// The notebook code around it (exercise-solutions.ipynb of chapter 2; the answer is in the
// solution, next to its C++):
//   dataloader = create_dataloader(raw_text, batch_size=4, max_length=2, stride=2)
//   for batch in dataloader:
//       x, y = batch
//       break
//   x
// STUDENT COPY: // The chapter's code around it (ch02.ipynb, section 2.6: a data loader and its first batch):
// STUDENT COPY: //   dataloader = create_dataloader_v1(
// STUDENT COPY: //       raw_text, batch_size=1, max_length=4, stride=1, shuffle=False
// STUDENT COPY: //   )
// STUDENT COPY: //   data_iter = iter(dataloader)
// STUDENT COPY: //   first_batch = next(data_iter)
// STUDENT COPY: // The exercise's loader is the same without shuffling and keeping the last short batch.
// END BOOK SOLUTION
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <xtensor/xadapt.hpp>

#include "llmfs/app/cli.hpp"
#include "llmfs/app/exercise.hpp"
#include "llmfs/text/data_dir.hpp"
#include "llmfs/text/tokenizer.hpp"
#include "llmfs/train/data.hpp"

using namespace llmfs;

// x of the first batch of create_dataloader(raw_text, batch_size, max_length, stride): DataLoader(dataset,
// batch_size=batch_size), so no shuffling and the last short batch kept.  -> [B, T=max_length]
static IdArray<2> first_inputs(const Gpt2Tokenizer& tokenizer, const std::string& raw_text, std::size_t batch_size,
                               std::size_t max_length, std::size_t stride, Generator& gen) {
    // BEGIN SOLUTION(exercise 2.2): build the dataset of windows and its loader, and return the inputs of its first batch
    const GPTDataset dataset(tokenizer, raw_text, max_length, stride);
    const DataLoader dataloader(dataset, batch_size, /*shuffle=*/false, /*drop_last=*/false);
    DataLoader::Epoch epoch = dataloader.begin(gen);
    Batch batch;
    if (!epoch.next(batch)) throw std::runtime_error("the text gives no window of " + std::to_string(max_length) + " tokens");
    return xt::adapt(batch.inputs, std::array<std::size_t, 2>{batch.B, batch.T});
    // END SOLUTION
}

// --variant N (llmfs-exercise grade): other batch sizes, context sizes and strides, two loaders each.
struct Variant {
    std::size_t batch_size;
    std::array<std::size_t, 2> max_length, stride;
};
const Variant kVariants[] = {{4, {2, 8}, {2, 2}}, {2, {6, 3}, {3, 1}}, {3, {5, 4}, {5, 7}}, {5, {1, 10}, {4, 10}}};  // [0]: the book's

int main(int argc, char** argv) {
    return run_exercise(argc, argv, "Exercise 2.2: data loaders with different strides and context sizes", 3,
                       [](Notebook& nb, Generator& gen, int variant) {
        nb.section("Exercise 2.2: Data loaders with different strides and context sizes");
        const Variant v = kVariants[variant];
        if (variant)
            nb.note(fmt::format("--variant {}: batch_size={}, max_length={} and {}, stride={} and {}", variant, v.batch_size,
                                v.max_length[0], v.max_length[1], v.stride[0], v.stride[1]));
        // BEGIN BOOK SOLUTION: the notebook's cell defines the loader the answer builds (the student copy says what it does)
        nb.code("import tiktoken\n"
                "import torch\n"
                "from torch.utils.data import Dataset, DataLoader\n"
                "\n"
                "\n"
                "class GPTDatasetV1(Dataset):\n"
                "    def __init__(self, txt, tokenizer, max_length, stride):\n"
                "        self.input_ids = []\n"
                "        self.target_ids = []\n"
                "\n"
                "        # Tokenize the entire text\n"
                "        token_ids = tokenizer.encode(txt, allowed_special={\"<|endoftext|>\"})\n"
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
                "        return self.input_ids[idx], self.target_ids[idx]\n"
                "\n"
                "\n"
                "def create_dataloader(txt, batch_size=4, max_length=256, stride=128):\n"
                "    # Initialize the tokenizer\n"
                "    tokenizer = tiktoken.get_encoding(\"gpt2\")\n"
                "\n"
                "    # Create dataset\n"
                "    dataset = GPTDatasetV1(txt, tokenizer, max_length, stride)\n"
                "\n"
                "    # Create dataloader\n"
                "    dataloader = DataLoader(dataset, batch_size=batch_size)\n"
                "\n"
                "    return dataloader\n"
                "\n"
                "\n"
                "with open(\"the-verdict.txt\", \"r\", encoding=\"utf-8\") as f:\n"
                "    raw_text = f.read()\n"
                "\n"
                "tokenizer = tiktoken.get_encoding(\"gpt2\")\n"
                "encoded_text = tokenizer.encode(raw_text)");
        // STUDENT COPY: nb.added_code("# exercise 2.2: section 2.6's GPTDatasetV1, a create_dataloader(txt, batch_size=4, max_length=256, stride=128)\n"
        // STUDENT COPY:               "# without shuffling that keeps the last short batch, and raw_text read from the-verdict.txt");
        // END BOOK SOLUTION
        const std::string raw_text = read_file_checked(data_dir() / "the-verdict.txt");
        const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();

        for (std::size_t k = 0; k < 2; ++k) {
            const std::string first_batch = "\n"
                                            "for batch in dataloader:\n"
                                            "    x, y = batch\n"
                                            "    break\n"
                                            "\n"
                                            "x";
            // BEGIN BOOK SOLUTION: the notebook's answer cells (the student copy's say what they display)
            nb.code(fmt::format("dataloader = create_dataloader(raw_text, batch_size={}, max_length={}, stride={})\n",
                                v.batch_size, v.max_length[k], v.stride[k]) +
                    first_batch);
            // STUDENT COPY: nb.added_code(fmt::format("# exercise 2.2: the loader with batch_size={}, max_length={}, stride={}\n",
            // STUDENT COPY:                           v.batch_size, v.max_length[k], v.stride[k]) +
            // STUDENT COPY:               first_batch);
            // END BOOK SOLUTION
            nb.print(first_inputs(tokenizer, raw_text, v.batch_size, v.max_length[k], v.stride[k], gen));  // the cell displays x
        }
    });
}
