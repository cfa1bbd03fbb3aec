// The book's chapter-7 script, ch07/01_main-chapter-code/gpt_instruction_finetuning.py, main():
// the instruction data's 85/10/5 split (with --test_mode its first 10 entries each), the loaders
// (batch 8, custom_collate_fn with allowed_max_length 1024, torch.manual_seed(123)), the model, the
// initial losses, AdamW(lr=5e-5, weight_decay=0.1) and train_model_simple for 2 epochs (eval_freq 5,
// eval_iter 5, the first validation entry's prompt as the sample's start), the loss plot, greedy
// responses to the test entries (256 tokens at most, stopping at <|endoftext|>), saved as
// json.dump(indent=4), and the fine-tuned weights (torch.save of the state dict).
//
// Standard output gets what the script prints, line for line, except the package versions (which
// are this machine's in Python) and "Training completed in X minutes.", which goes to standard
// error (the time differs run to run). Files are written in the working directory as the script's:
// loss-plot-standalone.pdf, instruction-data-with-response-standalone.json,
// <model>-sft-standalone.pth.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "llmfs/app/notebook.hpp"
#include "llmfs/nn/gpt.hpp"
#include "llmfs/torch/rng.hpp"

namespace llmfs {

struct InstructionFinetuneOptions {
    bool test_mode = false;                 // --test_mode: the script's small GPT on 10 entries each
    std::filesystem::path data;             // the instruction data (default: llmfs's copy of the book's)
    std::optional<std::filesystem::path> weights;  // without --test_mode: GPT-2 medium's model.safetensors
    std::filesystem::path out_dir = ".";    // where the script's files are written
};

// The script's run. `model` is built by the caller for the non-test mode (loaded weights); test
// mode builds the script's small GPT from `gen` itself. Throws on bad data or unwritable files
// (before training: the output folder is checked first).
void run_instruction_finetuning(Notebook& nb, Generator& gen, const InstructionFinetuneOptions& options);

// Python's generated_text[len(input_text):].replace("### Response:", "").strip(): the slice
// counted in code points, strip() removing str.isspace() characters.
std::string extract_response(const std::string& generated_text, const std::string& input_text);

}  // namespace llmfs
