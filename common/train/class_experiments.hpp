// The book's ch06/02_bonus_additional-experiments/additional_experiments.py, its __main__, as a
// library for llmfs-classifier-experiments and exercises 6.1 to 6.3 (whose answers are runs of it):
//
//   model = instantiate_model(args.model_size, load_weights)   # random: torch.manual_seed(123) first
//   for param in model.parameters(): param.requires_grad = False
//   torch.manual_seed(123); model.out_head = torch.nn.Linear(in_features, 2)
//   --trainable_layers: last_layer | last_block | last_two_blocks | all      (train/classifier.hpp)
//     | lora, lora_alternative: replace_linear_with_lora(model, rank=args.lora_rank, alpha=args.lora_alpha,
//                                                       alternative=args.trainable_layers == "lora_alternative")
//   --trainable_token_pos, --average_embeddings: what the loss and the accuracies read (Readout,
//     train/classifier.hpp); --ignore_index is parsed but never reaches train_classifier_simple
//     (the call below does not pass it): the loss ignores no row, whatever the flag
//   train.csv, validation.csv, test.csv: create_dataset_csvs unless all three exist
//     (the balanced set shuffled by .sample(frac=1, random_state=123), then random_split's own shuffle)
//   --context_length: longest_training_example (the training set's longest text), model_context_length
//     (model.pos_emb.weight.shape[0]) or a number: the datasets' max_length; --no_padding: none,
//     each text its own length (a batch of texts of other lengths fails, as torch.stack does)
//   the loaders (batch --batch_size; the training one shuffled, drop_last), no seed of their own
//   torch.manual_seed(123); optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.1)
//   train_classifier_simple(..., num_epochs, eval_freq=50, eval_iter=5, trainable_token_pos,
//                           accumulation_steps, average_embeddings)
//   print(f"Training completed in {execution_time_minutes:.2f} minutes.")
//   the three accuracies over whole loaders at trainable_token_pos
//
// What differs: the SMS Spam Collection is a file given (--data; never downloaded, so the script's
// "already exists. Skipping download" line is not printed); OpenAI's weights are the gpt2/<size>
// folder gpt_download.py leaves (models_dir, the script's "gpt2"), or a file; the random model's
// sizes can be made smaller (the tests').
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <variant>

#include "llmfs/nn/gpt.hpp"
#include "llmfs/train/adamw.hpp"
#include "llmfs/train/classifier.hpp"

namespace llmfs {

// --trainable_layers lora: the script's LoRALayer (self.alpha * (x @ A @ B): LoRAScaling::alpha);
// lora_alternative: its LinearWithLoRAMerged (LoRAForm::merged)
struct LoRATraining {
    std::size_t rank = 8;  // --lora_rank
    double alpha = 8;      // --lora_alpha
    LoRAForm form = LoRAForm::separate;
};

struct ClassExperimentOptions {
    std::string data;                               // --data FILE: the zip or its TSV; else the CSVs in out_dir
    std::string model_size = "gpt2-small (124M)";   // --model_size
    bool pretrained = true;                         // --weights pretrained|random
    std::string models_dir = "gpt2";                // OpenAI's weights: models_dir/124M (gpt_download.py's folder)
    std::string weights_file;                       // or this file (model.safetensors, model.pth) or folder
    std::optional<GPTConfig> random_config;         // the random model's sizes instead of model_size's (tests)
    // --trainable_layers: which parameters train, or lora: every Linear adapted, out_head's own Linear trained too
    std::variant<TrainableLayers, LoRATraining> trainable_layers = TrainableLayers::last_block;
    Readout readout;  // --trainable_token_pos, --average_embeddings (parse_readout)
    bool disable_causal_mask = false;               // --disable_causal_mask: GPTModel(BASE_CONFIG, disable_causal_mask=True)
    std::string context_length = "longest_training_example";  // or model_context_length, or a number
    bool no_padding = false;                        // --no_padding: each text its own length (context_length unused)
    std::size_t num_epochs = 5, batch_size = 8;
    std::size_t accumulation_steps = 1;             // --accumulation_steps: an update every N batches (GradientAccumulation)
    std::string out_dir = ".";                      // where train.csv, validation.csv, test.csv are (written from --data)
    bool write_csvs = true;                         // false: kept in memory (the exercise programs)
    PyTorchVersion pytorch = PyTorchVersion::v2;    // whose AdamW
    BernoulliKernel bernoulli = BernoulliKernel::standard;
};

// The script's calc_loss_batch and calc_accuracy_loader for --trainable_token_pos first (position
// 0), last (-1) or flexible, --average_embeddings (the mean; flexible reads its positions even
// with it, as the script's first branch does); std::invalid_argument for another token position
// (the script's ValueError).
Readout parse_readout(const std::string& trainable_token_pos, bool average_embeddings = false);

// The script's __main__ from its model on: each line it prints goes to `print` but the timing line,
// which goes to `timing` (the minutes are the machine's); progress to `progress` (may be empty).
// std::invalid_argument for options that cannot run (a bad --context_length, --model_size, a
// batch size of 0), std::runtime_error for bad files (a zip without SMSSpamCollection, weights of
// another size, a data set longer than the model's context), before any CSV is written.
void run_class_experiment(const ClassExperimentOptions& options, const std::function<void(const std::string&)>& print,
                          const std::function<void(const std::string&)>& timing,
                          const std::function<void(const std::string&)>& progress = {});

}  // namespace llmfs
