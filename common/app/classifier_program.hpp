// What chapter 6's programs and appendix E's share: the command line of a program that reads the
// SMS Spam Collection and builds the GPT with OpenAI's weights or a random one, that model, and the
// cells both notebooks print the same way (the training loader's last batch, the batch counts, the
// three accuracies). The programs: chapters/ch06/data.cpp, finetune.cpp, chapters/appendix_e/lora.cpp.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "llmfs/app/notebook.hpp"
#include "llmfs/nn/gpt.hpp"
#include "llmfs/train/classification_data.hpp"

namespace llmfs {

struct ClassifierModelOptions {
    std::string data, weights;            // --data FILE (required), --weights FILE
    std::optional<std::size_t> heads;     // --heads N: the weights' heads when their shapes cannot tell
    GPTConfig cfg = base_config_124m();  // the random model's: --emb-dim, --n-heads, --n-layers change it
    std::string pytorch = "2";            // --pytorch: whose AdamW update

    // BASE_CONFIG updated with "gpt2-small (124M)": context 1024, drop_rate 0.0, qkv_bias True.
    static GPTConfig base_config_124m();
};

// --data, --weights, --heads, --emb-dim, --n-heads, --n-layers (which exclude --weights; --n-heads
// must divide --emb-dim: a usage error), --pytorch.
void add_classifier_model_options(CLI::App& app, ClassifierModelOptions& options);

// model = GPTModel(BASE_CONFIG); load_weights_into_gpt(model, params); model.eval(): OpenAI's
// weights from --weights (no draw), else the random model drawn from gen at this point, as the
// notebook would; a note says which. A data set longer than the model's context is the notebook's
// assert (std::runtime_error).
std::unique_ptr<GPTModel> build_classifier_base_model(Notebook& nb, Generator& gen, const ClassifierModelOptions& options,
                                                      std::size_t max_length);

// Both notebooks' loader cell, word for word: torch.manual_seed(123), then the three DataLoaders.
extern const char* const kSpamLoadersCell;

// The notebooks' "Train loader:" cell (iterating the training loader: its draws) and the batch counts' cell.
void print_loader_cells(Notebook& nb, Generator& gen, const SpamData& data);

// print(f"Training accuracy: ..."), the validation's and the test's: calc_accuracy_loader over
// num_batches of each loader (all when unset).
void print_accuracies(Notebook& nb, Generator& gen, GPTModel& model, const SpamData& data, std::optional<std::size_t> num_batches);

// The notebooks' training cell after its code: torch.manual_seed(123), AdamW(model.parameters(), lr,
// weight_decay=0.1) (appendix E's over the LoRA adapters when `lora`, else chapter 6's over the
// unfrozen parameters), train_classifier_simple for 5 epochs, eval_freq 50, eval_iter 5, its lines
// printed; progress and "Training completed in X minutes." on stderr (the minutes are the machine's).
void run_training_cell(Notebook& nb, Generator& gen, const ClassifierModelOptions& options, GPTModel& model, const SpamData& data,
                       double lr, bool lora);

}  // namespace llmfs
