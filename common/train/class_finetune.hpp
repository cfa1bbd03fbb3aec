// The book's ch06/01_main-chapter-code/gpt_class_finetune.py, its __main__, as a library for
// llmfs-finetune-classifier:
//
//   df = pd.read_csv(data_file_path, sep="\t", header=None, names=["Label", "Text"])   # --data: zip or TSV
//   balanced_df = create_balanced_dataset(df); balanced_df["Label"] = ...map({"ham": 0, "spam": 1})
//   train_df, validation_df, test_df = random_split(balanced_df, 0.7, 0.1)
//   train_df.to_csv("train.csv", index=None) ...                                       # into --out-dir
//   train_dataset = SpamDataset("train.csv", max_length=None, tokenizer=tokenizer) ...  # read back
//   torch.manual_seed(123); the three loaders (batch size 8; the training one shuffled, drop_last)
//   model = GPTModel(BASE_CONFIG)                  # --test_mode: emb_dim 12, 1 layer, 2 heads, context 120
//     or the pretrained GPT-2 with load_weights_into_gpt                        # --weights: .pth or .safetensors
//   freeze; torch.manual_seed(123); model.out_head = Linear(emb_dim, 2); unfreeze the last block, final_norm
//   torch.manual_seed(123); optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.1)
//   train_classifier_simple(..., num_epochs=5, eval_freq=50, eval_iter=5)
//   print(f"Training completed in {execution_time_minutes:.2f} minutes.")
//
// What differs: the data file is given (never downloaded, so the script's "already exists. Skipping
// download" line is not printed). The loss and accuracy plots are the caller's (the history returned).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "llmfs/nn/gpt.hpp"
#include "llmfs/torch/rng.hpp"
#include "llmfs/train/adamw.hpp"
#include "llmfs/train/classifier.hpp"

namespace llmfs {

struct ClassFinetuneOptions {
    std::string data;       // the SMS Spam Collection: sms_spam_collection.zip or SMSSpamCollection.tsv
    std::string weights;    // the pretrained GPT-2: the book's model.pth or a .safetensors (empty with test_mode)
    std::optional<std::size_t> n_heads;  // the weights' heads when their shapes do not say (nn/safetensors.hpp)
    bool test_mode = false;  // the script's --test_mode: a small random GPT instead of the pretrained one
    std::string out_dir = ".";                              // where train.csv, validation.csv, test.csv go
    PyTorchVersion pytorch = PyTorchVersion::v2;            // whose AdamW
    BernoulliKernel bernoulli = BernoulliKernel::standard;  // dropout (the script's drop_rate is 0.0)
};

// GPTModel(BASE_CONFIG) with load_weights_into_gpt, from `path`: the book's state dict (a
// torch.save zip, model.pth) or GPT-2's Hugging Face model.safetensors; the shapes give the size
// (n_heads when they cannot tell the heads). Nothing is drawn from gen (Init::zeros, then loaded).
std::unique_ptr<GPTModel> load_pretrained_gpt(Generator& gen, const std::string& path, std::optional<std::size_t> n_heads);

// Runs the script; each line it prints goes to `print`, progress to `progress` (may be empty).
// Throws std::invalid_argument for options that cannot run (no --data, neither --weights nor
// --test_mode), std::runtime_error for bad files (a zip without SMSSpamCollection, a checkpoint
// that is not GPT-2's, a data set longer than the model's context), before anything is written.
// Returns train_classifier_simple's history, for the script's plots (5 epochs).
ClassifierHistory run_class_finetune(const ClassFinetuneOptions& options, const std::function<void(const std::string&)>& print,
                                     const std::function<void(const std::string&)>& progress = {});

}  // namespace llmfs
