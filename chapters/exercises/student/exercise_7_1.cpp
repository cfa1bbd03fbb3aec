// Exercise 7.1: Changing prompt styles
//
// The problem: chapter 7 fine-tunes with the Alpaca prompt ("Below is an instruction ... ###
// Instruction: ... ### Input: ..."). Microsoft's Phi-3 models use a shorter one instead:
//   <|user|>
//   Identify the correct spelling of the following word: 'Ocassion'
//   <|assistant|>
//   The correct spelling is 'Occasion'.
// Write format_input for that style: "<|user|>", a newline and the instruction, then, when the
// entry has an input, a newline and the input (an entry without one adds nothing), and print it
// for the two sample entries.
//
// The chapter's code around it (ch07.ipynb, section 7.2: the Alpaca prompt):
//   def format_input(entry):
//       instruction_text = (
//           f"Below is an instruction that describes a task. "
//           f"Write a response that appropriately completes the request."
//           f"\n\n### Instruction:\n{entry['instruction']}"
//       )
//       input_text = f"\n\n### Input:\n{entry['input']}" if entry["input"] else ""
//       return instruction_text + input_text
//
// (The rest of the book's answer, the <|assistant|> response template in InstructionDataset and in
// the extraction of the test set's responses, needs GPT-2 medium's fine-tuning: the book's
// exercise_experiments.py --exercise_solution phi3_prompt.)
#include <string>
#include <vector>

#include <fmt/format.h>

#include "llmfs/app/cli.hpp"
#include "llmfs/app/exercise.hpp"
#include "llmfs/train/instruction.hpp"

using namespace llmfs;

// The Phi-3 style prompt of `entry` (entry.at("instruction"), entry.at("input")).
static std::string format_input_phi3(const InstructionEntry& entry) {
    // TODO(exercise 7.1): return the text <|user|>, a newline and the instruction, then a newline and the input unless it is empty
    exercise_todo("7.1", "return the text <|user|>, a newline and the instruction, then a newline and the input unless it is empty");
}

namespace {

// --variant N (llmfs-exercise grade): other entries, with and without an input (from
// data/instruction-data.json).
std::vector<InstructionEntry> sample_data(int variant) {
    switch (variant) {
        case 1:
            return {instruction_entry("Edit the following sentence for grammar.", "He go to the park every day.", "He goes to the park every day."),
                    instruction_entry("Convert 45 kilometers to meters.", "", "45 kilometers is 45000 meters.")};
        case 2:
            return {instruction_entry("What are the first 10 square numbers?", "", "1, 4, 9, 16, 25, 36, 49, 64, 81, 100."),
                    instruction_entry("Translate the following sentence into French.", "Where is the nearest restaurant?",
                                      "O\u00f9 est le restaurant le plus proche?")};
        case 3:
            return {instruction_entry("Rewrite the following sentence to use a metaphor", "'Her eyes are like stars.'",
                                      "Her eyes are stars in the night sky."),
                    instruction_entry("Suggest a more formal synonym for \"happy.\"", "", "A more formal synonym for \"happy\" is \"content.\"")};
        default:  // the book's
            return {instruction_entry("Identify the correct spelling of the following word.", "Ocassion", "The correct spelling is 'Occasion.'"),
                    instruction_entry("What is an antonym of 'complicated'?", "", "An antonym of 'complicated' is 'simple'.")};
    }
}

}  // namespace

int main(int argc, char** argv) {
    return run_exercise(argc, argv, "Exercise 7.1: changing prompt styles (Phi-3's)", 3, [](Notebook& nb, Generator&, int variant) {
        nb.section("Exercise 7.1: Changing prompt styles");
        if (variant) nb.note(fmt::format("--variant {}: two other entries", variant));
        nb.added_code("# exercise 7.1: format_input(entry) in the Phi-3 prompt style");
        const std::vector<InstructionEntry> data = sample_data(variant);
        const std::string cell_data =  // the book's lines as the notebook has them, one literal each
            variant == 0 ? "    {'instruction': 'Identify the correct spelling of the following word.', 'input': 'Ocassion', 'output': \"The correct spelling is 'Occasion.'\"}, \n"
                           "    {'instruction': \"What is an antonym of 'complicated'?\", 'input': '', 'output': \"An antonym of 'complicated' is 'simple'.\"}\n"
                         : "    " + python_repr(data[0]) + ",\n    " + python_repr(data[1]) + "\n";
        nb.code("sample_data = [\n" + cell_data +
                "]\n"
                "\n"
                "print(format_input(sample_data[0]))\n"
                "print()\n"
                "print(format_input(sample_data[1]))");
        nb.print(format_input_phi3(data[0]));
        nb.print("");
        nb.print(format_input_phi3(data[1]));
    });
}
