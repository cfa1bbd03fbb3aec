// What chapter 6's programs and appendix E's share: the command line of a program that reads the
// SMS Spam Collection and builds the GPT with OpenAI's weights or a random one, that model, and the
// cells both notebooks print the same way (the training loader's last batch, the batch counts, the
// three accuracies). The programs: chapters/ch06/data.cpp, finetune.cpp, chapters/appendix_e/lora.cpp.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "llmfs/app/notebook.hpp"
#include "llmfs/nn/gpt.hpp"
#include "llmfs/train/class_experiments.hpp"
#include "llmfs/train/classification_data.hpp"
#include "llmfs/train/classifier.hpp"

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
// num_batches of each loader (all when unset), through `trunk` when given (frozen_trunk.hpp).
void print_accuracies(Notebook& nb, Generator& gen, GPTModel& model, const SpamData& data, std::optional<std::size_t> num_batches,
                      FrozenTrunk* trunk = nullptr);

// The notebooks' training cell after its code: torch.manual_seed(123), AdamW(model.parameters(), lr,
// weight_decay=0.1) (appendix E's over the LoRA adapters when `lora`, else chapter 6's over the
// unfrozen parameters), train_classifier_simple for 5 epochs, eval_freq 50, eval_iter 5, its lines
// printed; progress and "Training completed in X minutes." on stderr (the minutes are the machine's).
// Returns its history (the plots' values). Chapter 6's steps and evaluations go through `trunk`
// (one of their own when not given: frozen_trunk.hpp).
ClassifierHistory run_training_cell(Notebook& nb, Generator& gen, const ClassifierModelOptions& options, GPTModel& model, const SpamData& data,
                                    double lr, bool lora, FrozenTrunk* trunk = nullptr);

// The book's plot_values(epochs_tensor, examples_seen_tensor, train_values, val_values, label)
// after 5 epochs of train_classifier_simple (label "loss": the losses; "accuracy": the
// accuracies): the figure its plt.savefig(f"{label}-plot.pdf") writes, into `folder` if given (the
// classifier tool's --out-dir), else the current folder (default_output_path: the notebooks'
// programs); the path said on stderr.
void draw_plot_values(const ClassifierHistory& history, const std::string& label,
                      const std::optional<std::filesystem::path>& folder = std::nullopt);

// ---- chapter 6's exercises: their answers are runs of the bonus additional_experiments.py ----------

struct ClassifierExerciseOptions {
    std::string data;                  // --data FILE: the SMS Spam Collection (zip or TSV)
    std::string weights = "gpt2/124M";  // --weights: OpenAI's weights (gpt_download.py's folder, model.safetensors, model.pth)
    bool small = false;                // --small: the tests' collection and a small random GPT (what check runs)
    std::string pytorch = "2";         // --pytorch: whose AdamW update
};
// --data, --weights, --small (which excludes both), --pytorch.
void add_classifier_exercise_options(CLI::App& app, ClassifierExerciseOptions& options);

// The script's run with its defaults (the chapter's setting: the last token, the last block, the
// longest training example) from --data and --weights; with --small, data/tests/ch06/sms_clean.tsv
// and a random GPT drawn under torch.manual_seed(123) (the script's --weights random) of emb_dim 12,
// 2 heads, 2 layers and context 256 (variant 1: emb_dim 16, 4 heads, 1 layer, context 128), run
// with --num_epochs 8 --batch_size 1: 160 steps, where the script's 10 print the same digits for
// every --trainable_layers choice (make_ch06_experiments_goldens.py).
// std::invalid_argument when neither --data nor --small is given.
ClassExperimentOptions classifier_exercise_experiment(const ClassifierExerciseOptions& options, int variant);

// The exercise's run: `flags` (the script's command line, e.g. "--trainable_token_pos first") as
// its code cell, its lines printed, "Training completed in X minutes." on stderr; the CSVs are not written.
void run_classifier_exercise(Notebook& nb, const ClassExperimentOptions& experiment, const std::string& flags);

}  // namespace llmfs
