// The book's ch05/01_main-chapter-code/gpt_train.py, its main(gpt_config, settings), as a library
// for llmfs-train and the chapter-5 programs:
//
//   torch.manual_seed(123)                                    # GptTrainOptions::seed
//   with open(file_path, "r", encoding="utf-8") as file: text_data = file.read()   # read_python_text
//   model = GPTModel(gpt_config)
//   optimizer = torch.optim.AdamW(model.parameters(), lr=settings["learning_rate"],
//                                 weight_decay=settings["weight_decay"])
//   split_idx = int(0.90 * len(text_data))
//   train_loader = create_dataloader_v1(text_data[:split_idx], batch_size=settings["batch_size"],
//       max_length=gpt_config["context_length"], stride=gpt_config["context_length"],
//       drop_last=True, shuffle=True, num_workers=0)
//   val_loader = create_dataloader_v1(text_data[split_idx:], ..., drop_last=False, shuffle=False, num_workers=0)
//   tokenizer = tiktoken.get_encoding("gpt2")
//   train_losses, val_losses, tokens_seen = train_model_simple(model, train_loader, val_loader, optimizer,
//       device, num_epochs=settings["num_epochs"], eval_freq=5, eval_iter=1,
//       start_context="Every effort moves you", tokenizer=tokenizer)
//
// Building the loaders draws nothing (the first draws come with the first epoch), so the notebook's
// order (the loaders of 5.1.3 first, then torch.manual_seed(123) and the model in 5.2) draws the
// same numbers as the script's; what does matter is that nothing else draws between the seed and
// train_model_simple.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "llmfs/nn/gpt_checkpoint.hpp"
#include "llmfs/text/tokenizer.hpp"
#include "llmfs/train/loop.hpp"

namespace llmfs {

// GPT_CONFIG_124M and OTHER_SETTINGS of gpt_train.py, and what its main() hard-codes (the seed,
// eval_freq 5, eval_iter 1, the start context); every default is the script's.
struct GptTrainOptions {
    GPTConfig model = [] {
        GPTConfig c;  // GPT-2 small, the context shortened to 256
        c.context_length = 256;
        return c;
    }();
    std::uint64_t seed = 123;
    std::size_t batch_size = 2;
    AdamWOptions adamw = [] {
        AdamWOptions a;
        a.lr = 5e-4;
        a.weight_decay = 0.1;
        return a;
    }();
    TrainSettings settings;  // num_epochs 10, eval_freq 5, eval_iter 1, "Every effort moves you"
    // With it, appendix D's train_model (warmup, cosine decay, clipping; the peak rate is adamw.lr)
    // instead of train_model_simple.
    std::optional<WarmupSettings> warmup;
    BernoulliKernel bernoulli = BernoulliKernel::standard;  // the reference: PyTorch without MKL
};

// Why `options` cannot train, as a user would be told ("--n-heads 5 does not divide --emb-dim 16"),
// or empty. What PyTorch would refuse (heads that do not divide emb_dim, batch size 0, a negative
// learning rate) or divide by zero on (eval_freq 0, eval_iter 0), and what would train nothing
// (0 epochs, an empty start context). Flag names are llmfs-train's.
std::string gpt_train_problem(const GptTrainOptions& options);

// open(path, "r", encoding="utf-8").read() of the file's bytes: the text must be UTF-8
// (std::invalid_argument naming `name` and the first bad byte otherwise), and newlines are
// translated as Python's universal-newlines mode does ("\r\n" and "\r" become "\n").
std::string read_python_text(std::string bytes, const std::string& name);

// The two loaders of gpt_train.py over `text`, windows of context_length tokens, stride
// context_length. Throws std::invalid_argument, with the numbers and what to change, when the
// training part gives no batch or the validation part no window (the notebook's "Not enough tokens
// for the training loader" check; the script would stop in RandomSampler, or print "Val loss nan").
// Not copyable: the loaders refer to the datasets.
struct GptTrainData {
    GptTrainData(const Gpt2Tokenizer& tokenizer, std::string_view text, std::size_t context_length, std::size_t batch_size);
    GptTrainData(const GptTrainData&) = delete;
    GptTrainData& operator=(const GptTrainData&) = delete;

    std::size_t characters = 0, split_index = 0;  // len(text_data), split_idx
    GPTDataset train_set, val_set;
    DataLoader train_loader, val_loader;

private:
    GptTrainData(const Gpt2Tokenizer& tokenizer, const TextSplit& split, std::size_t context_length, std::size_t batch_size);
};

// What a run holds: gpt_train.py's main() with the model, optimizer, loaders and generator kept
// for the caller (the trained model to save, the history to plot).
class GptTrain {
public:
    // torch.manual_seed(seed), GPTModel(cfg), AdamW, the loaders over `text` (already decoded, as
    // read_python_text gives it). Throws std::invalid_argument for gpt_train_problem or
    // GptTrainData's, before building the model.
    GptTrain(const GptTrainOptions& options, const Gpt2Tokenizer& tokenizer, std::string_view text);
    // Exercise 5.4's continuation from a torch.save file (model_and_optimizer.pth, or model.pth):
    //   model = GPTModel(cfg); model.load_state_dict(checkpoint["model_state_dict"])
    //   optimizer = torch.optim.AdamW(model.parameters(), lr=..., weight_decay=...)
    //   optimizer.load_state_dict(checkpoint["optimizer_state_dict"])   (a model.pth: a fresh AdamW)
    //   model.train(); torch.manual_seed(seed); the loaders
    // options.model must be the checkpoint's (checkpoint_config). Throws std::runtime_error naming
    // the file when it does not fit.
    GptTrain(const GptTrainOptions& options, const Gpt2Tokenizer& tokenizer, std::string_view text, const TorchStateDict& checkpoint);

    // train_model_simple(model, train_loader, val_loader, optimizer, ...), or with options.warmup
    // appendix D's train_model(..., warmup_steps, initial_lr, min_lr): once.
    TrainHistory train(const TrainCallbacks& callbacks);

    std::size_t total_steps() const;  // num_epochs * len(train_loader)
    const GptTrainOptions& options() const { return options_; }
    const GptTrainData& data() const { return *data_; }
    GPTModel& model() { return *model_; }
    AdamW& optimizer() { return *optimizer_; }  // its options() are the checkpoint's after a resume
    Generator& generator() { return gen_; }

private:
    GptTrainOptions options_;
    const Gpt2Tokenizer& tokenizer_;
    Generator gen_;
    std::unique_ptr<GptTrainData> data_;
    std::unique_ptr<GPTModel> model_;
    std::unique_ptr<AdamW> optimizer_;
};

// The GPTConfig that continues `checkpoint`: its shapes decide vocab_size, emb_dim, context_length,
// n_layers and qkv_bias (infer_gpt_config); n_heads and drop_rate, which no state dict records, come
// from `base`. Throws std::invalid_argument when base.n_heads does not divide the checkpoint's
// emb_dim, std::runtime_error when the vocabulary is smaller than GPT-2's tokenizer needs.
GPTConfig checkpoint_config(const TorchStateDict& checkpoint, const GPTConfig& base);

// Bytes a run of `options` needs at least (weights, gradients, AdamW's two moments, one batch's
// activations), for refusing sizes that cannot fit before allocating them.
double gpt_train_bytes(const GptTrainOptions& options);

}  // namespace llmfs
