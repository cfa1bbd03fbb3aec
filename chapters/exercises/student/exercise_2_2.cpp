// Exercise 2.2: Data loaders with different strides and context sizes
//
// The problem: the data loader of section 2.6 cuts the-verdict.txt's token ids into windows of
// max_length tokens, stride tokens apart. Build the loader's first batch of inputs (batch_size 4,
// no shuffling) for max_length=2, stride=2 and for max_length=8, stride=2, and display it.
//
// The chapter's code around it (ch02.ipynb, section 2.6: a data loader and its first batch):
//   dataloader = create_dataloader_v1(
//       raw_text, batch_size=1, max_length=4, stride=1, shuffle=False
//   )
//   data_iter = iter(dataloader)
//   first_batch = next(data_iter)
// The exercise's loader is the same without shuffling and keeping the last short batch.
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
    // TODO(exercise 2.2): build the dataset of windows and its loader, and return the inputs of its first batch
    exercise_todo("2.2", "build the dataset of windows and its loader, and return the inputs of its first batch");
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
        nb.added_code("# exercise 2.2: section 2.6's GPTDatasetV1, a create_dataloader(txt, batch_size=4, max_length=256, stride=128)\n"
                      "# without shuffling that keeps the last short batch, and raw_text read from the-verdict.txt");
        const std::string raw_text = read_file_checked(data_dir() / "the-verdict.txt");
        const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();

        for (std::size_t k = 0; k < 2; ++k) {
            const std::string first_batch = "\n"
                                            "for batch in dataloader:\n"
                                            "    x, y = batch\n"
                                            "    break\n"
                                            "\n"
                                            "x";
            nb.added_code(fmt::format("# exercise 2.2: the loader with batch_size={}, max_length={}, stride={}\n",
                                      v.batch_size, v.max_length[k], v.stride[k]) +
                          first_batch);
            nb.print(first_inputs(tokenizer, raw_text, v.batch_size, v.max_length[k], v.stride[k], gen));  // the cell displays x
        }
    });
}
