// Exercise 7.2: Instruction and input masking
//
// The problem: chapter 7's custom_collate_fn lets the loss see every token of the prompt, the
// instruction and the input as well as the response. Mask the instruction and the input instead:
// the dataset also records each entry's instruction length (the tokens of format_input(entry)),
// and the collate function sets the targets of those tokens to -100, so that cross_entropy skips
// them and the model learns only to write responses. Check it on three sample entries: the
// second one's targets are -100 up to its response, whose tokens (and the first <|endoftext|>)
// decode back to "\n\n### Response:\nCrocodile, Elephant, Zebra<|endoftext|>".
//
// The chapter's code around it (ch07.ipynb, sections 7.3 and 7.4):
//   for entry in data:
//       instruction_plus_input = format_input(entry)
//       response_text = f"\n\n### Response:\n{entry['output']}"
//       full_text = instruction_plus_input + response_text
//       self.encoded_texts.append(tokenizer.encode(full_text))
//   # custom_collate_fn: Replace all but the first padding tokens in targets by ignore_index
//   mask = targets == pad_token_id
//   indices = torch.nonzero(mask).squeeze()
//   if indices.numel() > 1:
//       targets[indices[1:]] = ignore_index
//
// The chapter's InstructionDataset and custom_collate (common/train/instruction.hpp) do the rest:
// the tokens of each entry, the padding with <|endoftext|> (50256) and the -100 of every padding
// token after the first. (Fine-tuning with the masked targets needs GPT-2 medium: the book's
// exercise_experiments.py --exercise_solution mask_instructions.)
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "llmfs/app/cli.hpp"
#include "llmfs/app/exercise.hpp"
#include "llmfs/torch/print.hpp"
#include "llmfs/train/instruction.hpp"

using namespace llmfs;

// len(tokenizer.encode(instruction_plus_input)): how many of the entry's tokens are the prompt
// (its instruction and input).
static std::size_t instruction_length(const Gpt2Tokenizer& tokenizer, const InstructionEntry& entry) {
    // TODO(exercise 7.2): return the number of tokens of format_input(entry)
    exercise_todo("7.2", "return the number of tokens of format_input(entry)");
}

// Masks the prompt in one row of T targets: the targets are the inputs shifted by one, so the
// first instruction_length - 1 of them are the prompt's tokens.
static void mask_instruction(std::int64_t* targets, std::size_t T, std::size_t instruction_length) {
    // TODO(exercise 7.2): set the first instruction_length - 1 targets (at most T) to -100
    exercise_todo("7.2", "set the first instruction_length - 1 targets (at most T) to -100");
}

namespace {

// --variant N (llmfs-exercise grade): three other entries of data/instruction/instruction-data.json.
std::vector<InstructionEntry> sample_data(int variant) {
    switch (variant) {
        case 1:
            return {instruction_entry("Convert 45 kilometers to meters.", "", "45 kilometers is 45000 meters."),
                    instruction_entry("Edit the following sentence for grammar.", "He go to the park every day.", "He goes to the park every day."),
                    instruction_entry("What are the first 10 square numbers?", "", "1, 4, 9, 16, 25, 36, 49, 64, 81, 100.")};
        case 2:
            return {instruction_entry("Rewrite the following sentence to remove redundancy.", "The actual fact is that he was late.",
                                      "The fact is that he was late."),
                    instruction_entry("Look up the melting point of iron.", "",
                                      "The melting point of iron is approximately 1538 degrees Celsius or 2800 degrees Fahrenheit."),
                    instruction_entry("Rewrite the following sentence to use a metaphor", "'Her eyes are like stars.'",
                                      "Her eyes are stars in the night sky.")};
        case 3:
            return {instruction_entry("Suggest a more formal synonym for \"happy.\"", "", "A more formal synonym for \"happy\" is \"content.\""),
                    instruction_entry("Translate the following sentence into French.", "Where is the nearest restaurant?",
                                      "O\u00f9 est le restaurant le plus proche?"),
                    instruction_entry("Convert 45 kilometers to meters.", "", "45 kilometers is 45000 meters.")};
        default:  // the book's
            return {instruction_entry("What is an antonym of 'complicated'?", "", "An antonym of 'complicated' is 'simple'."),
                    instruction_entry("Sort the following list in alphabetical order.", "Zebra, Elephant, Crocodile", "Crocodile, Elephant, Zebra"),
                    instruction_entry("Arrange the given numbers in descending order.", "5, 12, 8, 3, 15", "15, 12, 8, 5, 3.")};
    }
}

}  // namespace

int main(int argc, char** argv) {
    return run_exercise(argc, argv, "Exercise 7.2: instruction and input masking", 3, [](Notebook& nb, Generator&, int variant) {
        nb.section("Exercise 7.2: Instruction and input masking");
        if (variant) nb.note(fmt::format("--variant {}: three other entries", variant));
        nb.code("# This `format_input` function is copied from the original chapter 7 code\n"
                "\n"
                "def format_input(entry):\n"
                "    instruction_text = (\n"
                "        f\"Below is an instruction that describes a task. \"\n"
                "        f\"Write a response that appropriately completes the request.\"\n"
                "        f\"\\n\\n### Instruction:\\n{entry['instruction']}\"\n"
                "    )\n"
                "\n"
                "    input_text = f\"\\n\\n### Input:\\n{entry['input']}\" if entry[\"input\"] else \"\"\n"
                "\n"
                "    return instruction_text + input_text");
        nb.added_code("# exercise 7.2: InstructionDataset that also keeps each entry's instruction length");
        nb.code("import tiktoken\n"
                "\n"
                "tokenizer = tiktoken.get_encoding(\"gpt2\")");
        const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();
        nb.added_code("# exercise 7.2: custom_collate_fn that also sets the targets of the instruction and input to -100");
        const std::vector<InstructionEntry> data = sample_data(variant);
        std::string cell_data;
        if (variant == 0) {
            // the cell's lines as the notebook has them, one literal each
            cell_data =
                "    {'instruction': \"What is an antonym of 'complicated'?\", 'input': '', 'output': \"An antonym of 'complicated' is 'simple'.\"},\n"
                "    {'instruction': 'Sort the following list in alphabetical order.', 'input': 'Zebra, Elephant, Crocodile', 'output': 'Crocodile, Elephant, Zebra'},\n"
                "    {'instruction': 'Arrange the given numbers in descending order.', 'input': '5, 12, 8, 3, 15', 'output': '15, 12, 8, 5, 3.'}\n";
        } else {
            for (std::size_t i = 0; i < data.size(); ++i) cell_data += "    " + python_repr(data[i]) + (i + 1 < data.size() ? ",\n" : "\n");
        }
        nb.code("sample_data = [\n" + cell_data + "]");
        nb.code("from torch.utils.data import DataLoader\n"
                "\n"
                "train_dataset = InstructionDataset(sample_data, tokenizer)\n"
                "train_loader = DataLoader(\n"
                "    train_dataset,\n"
                "    batch_size=len(sample_data),\n"
                "    collate_fn=custom_collate_fn,\n"
                "    num_workers=0\n"
                ")");
        // train_dataset = InstructionDataset(sample_data, tokenizer); one batch of all three entries
        const InstructionDataset train_dataset(data, tokenizer);
        std::vector<const std::vector<std::int64_t>*> items;
        for (const auto& encoded : train_dataset.encoded_texts) items.push_back(&encoded);
        Batch batch = custom_collate(items);  // [B, T]: padded, targets shifted, padding after the first -100
        for (std::size_t b = 0; b < batch.B; ++b)
            mask_instruction(batch.targets.data() + b * batch.T, batch.T, instruction_length(tokenizer, data[b]));

        nb.code("print(\"Train loader:\")\n"
                "for inputs, targets in train_loader:\n"
                "    print(inputs.shape, targets.shape)");
        nb.print("Train loader:");
        nb.print(format_size({batch.B, batch.T}), format_size({batch.B, batch.T}));

        const std::int64_t* inputs_1 = batch.inputs.data() + batch.T;  // inputs[1]
        const std::int64_t* targets_1 = batch.targets.data() + batch.T;
        nb.code("print(\"Inputs:\\n\", inputs[1])\n"
                "print(\"\\n\\nTargets:\\n\", targets[1])");
        nb.print("Inputs:\n", format_tensor({batch.T}, inputs_1));
        nb.print("\n\nTargets:\n", format_tensor({batch.T}, targets_1));

        nb.code("print(tokenizer.decode(list(inputs[1])))");
        nb.print(tokenizer.decode(std::vector<std::int64_t>(inputs_1, inputs_1 + batch.T)));

        nb.code("non_masked_targets = targets[1][targets[1] != -100]\n"
                "\n"
                "print(tokenizer.decode(list(non_masked_targets)))");
        std::vector<std::int64_t> non_masked_targets;
        for (std::size_t t = 0; t < batch.T; ++t)
            if (targets_1[t] != -100) non_masked_targets.push_back(targets_1[t]);
        nb.print(tokenizer.decode(non_masked_targets));
    });
}
