#include "llmfs/train/gpt_train.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "llmfs/text/validate.hpp"
#include "llmfs/train/checkpoint.hpp"
#include "llmfs/train/evaluate.hpp"

namespace llmfs {

std::string gpt_train_problem(const GptTrainOptions& o) {
    const GPTConfig& c = o.model;
    if (c.context_length == 0) return "--context-length must be at least 1";
    if (c.emb_dim == 0) return "--emb-dim must be at least 1";
    if (c.n_heads == 0) return "--n-heads must be at least 1";
    if (c.n_layers == 0) return "--n-layers must be at least 1";
    if (c.emb_dim % c.n_heads != 0)  // MultiHeadAttention: assert d_out % num_heads == 0
        return fmt::format("--n-heads {} does not divide --emb-dim {} (each head takes emb_dim / n_heads columns; "
                           "the book's MultiHeadAttention asserts \"d_out must be divisible by num_heads\")",
                           c.n_heads, c.emb_dim);
    if (!(c.drop_rate >= 0.0 && c.drop_rate < 1.0)) return fmt::format("--drop-rate {} is not a probability below 1 (1 would drop every activation)", c.drop_rate);
    if (o.batch_size == 0) return "--batch-size must be at least 1 (DataLoader: batch_size should be a positive integer value)";
    if (!(o.adamw.lr >= 0.0)) return fmt::format("--lr {} is negative (AdamW: Invalid learning rate)", o.adamw.lr);
    if (!(o.adamw.weight_decay >= 0.0)) return fmt::format("--weight-decay {} is negative (AdamW: Invalid weight_decay value)", o.adamw.weight_decay);
    if (o.settings.num_epochs == 0) return "--epochs must be at least 1: zero epochs train nothing";
    if (o.settings.eval_freq == 0) return "--eval-freq must be at least 1 (global_step % eval_freq)";
    if (o.settings.eval_iter == 0) return "--eval-iter must be at least 1 (calc_loss_loader divides by it)";
    if (o.settings.start_context.empty()) return "--start-context must not be empty: the sample after each epoch continues it";
    if (o.warmup) {
        const WarmupSettings& w = *o.warmup;
        if (w.warmup_steps == 0) return "--warmup-steps must be at least 1 (train_model divides by warmup_steps)";
        if (!(w.initial_lr >= 0.0)) return fmt::format("--initial-lr {} is negative", w.initial_lr);
        if (!(w.min_lr >= 0.0)) return fmt::format("--min-lr {} is negative", w.min_lr);
        if (!(w.max_norm >= 0.0)) return fmt::format("--max-norm {} is negative", w.max_norm);
    }
    return {};
}

namespace {

// Appendix D's schedule needs a warmup shorter than the run (the cosine decay divides by the
// difference): known once the loaders are built, checked before the model is.
void check_warmup(const GptTrainOptions& o, const GptTrainData& data) {
    if (!o.warmup) return;
    const std::size_t total = data.train_loader.size() * o.settings.num_epochs;
    if (o.warmup->warmup_steps >= total)
        throw std::invalid_argument(fmt::format("--warmup-steps {} must be fewer than the run's {} steps ({} epoch(s) of {} batches): "
                                                "the cosine decay divides by total_training_steps - warmup_steps",
                                                o.warmup->warmup_steps, total, o.settings.num_epochs, data.train_loader.size()));
}

}  // namespace

std::string read_python_text(std::string bytes, const std::string& name) {
    const std::size_t bad = invalid_utf8_at(bytes);
    if (bad != std::string::npos)
        throw std::invalid_argument(fmt::format("{} is not UTF-8: byte {} (0x{:02x}) does not start a character (the script reads it "
                                                "with open(..., encoding=\"utf-8\"); convert it, e.g. iconv -t UTF-8)",
                                                name, bad, static_cast<unsigned char>(bytes[bad])));
    // universal newlines: "\r\n" -> "\n", then a lone "\r" -> "\n"
    std::string text;
    text.reserve(bytes.size());
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        if (bytes[i] != '\r') {
            text += bytes[i];
            continue;
        }
        text += '\n';
        if (i + 1 < bytes.size() && bytes[i + 1] == '\n') ++i;
    }
    return text;
}

namespace {

// The training part's windows, checked before its shuffling loader is built.
const GPTDataset& with_a_batch(const GPTDataset& set, std::size_t batch_size, std::size_t split_index) {
    if (set.size() / batch_size == 0)
        throw std::invalid_argument(fmt::format(
            "not enough tokens for the training loader: the first 90% of the text ({} characters) is {} tokens, which make {} "
            "window(s) of {} + 1 tokens, fewer than one batch of {} (the script would have no training step); give a longer "
            "--text or lower --context-length or --batch-size",
            split_index, set.token_count(), set.size(), set.max_length(), batch_size));
    return set;
}

}  // namespace

GptTrainData::GptTrainData(const Gpt2Tokenizer& tokenizer, std::string_view text, std::size_t context_length, std::size_t batch_size)
    : GptTrainData(tokenizer, split_text(text, 0.90), context_length, batch_size) {}

GptTrainData::GptTrainData(const Gpt2Tokenizer& tokenizer, const TextSplit& split, std::size_t context_length, std::size_t batch_size)
    : characters(split.characters),
      split_index(split.split_index),
      train_set(tokenizer, split.train, context_length, context_length),
      val_set(tokenizer, split.validation, context_length, context_length),
      train_loader(with_a_batch(train_set, batch_size, split_index), batch_size, /*shuffle=*/true, /*drop_last=*/true),
      val_loader(val_set, batch_size, /*shuffle=*/false, /*drop_last=*/false) {
    if (val_set.size() == 0)
        throw std::invalid_argument(fmt::format(
            "not enough tokens for the validation loader: the last 10% of the text ({} characters) is {} tokens, no window of "
            "{} + 1 tokens (the script would print \"Val loss nan\"); give a longer --text or lower --context-length",
            characters - split_index, val_set.token_count(), context_length));
}

GptTrain::GptTrain(const GptTrainOptions& options, const Gpt2Tokenizer& tokenizer, std::string_view text)
    : options_(options), tokenizer_(tokenizer), gen_(options.bernoulli) {
    if (const std::string problem = gpt_train_problem(options); !problem.empty()) throw std::invalid_argument(problem);
    // The loaders first: building them draws nothing, and a text too short is reported before the
    // model is built.
    data_ = std::make_unique<GptTrainData>(tokenizer, text, options.model.context_length, options.batch_size);
    check_warmup(options, *data_);
    gen_.manual_seed(options.seed);                           // torch.manual_seed(123)
    model_ = std::make_unique<GPTModel>(gen_, options.model);  // model = GPTModel(gpt_config)
    optimizer_ = std::make_unique<AdamW>(*model_, options.adamw);  // torch.optim.AdamW(model.parameters(), lr=..., weight_decay=...)
}

GptTrain::GptTrain(const GptTrainOptions& options, const Gpt2Tokenizer& tokenizer, std::string_view text, const TorchStateDict& checkpoint)
    : options_(options), tokenizer_(tokenizer), gen_(options.bernoulli) {
    if (const std::string problem = gpt_train_problem(options); !problem.empty()) throw std::invalid_argument(problem);
    data_ = std::make_unique<GptTrainData>(tokenizer, text, options.model.context_length, options.batch_size);
    check_warmup(options, *data_);
    // model = GPTModel(GPT_CONFIG_124M): what it draws is overwritten by the checkpoint, and the seed
    // comes after
    model_ = std::make_unique<GPTModel>(gen_, options.model);
    optimizer_ = std::make_unique<AdamW>(*model_, options.adamw);  // torch.optim.AdamW(model.parameters(), lr=..., weight_decay=...)
    if (has_optimizer_state(checkpoint))
        load_checkpoint(checkpoint, *model_, *optimizer_);  // model.load_state_dict(...); optimizer.load_state_dict(...)
    else
        load_state_dict(*model_, checkpoint);  // model.load_state_dict(torch.load("model.pth", weights_only=True))
    gen_.manual_seed(options.seed);  // torch.manual_seed(123), before the loaders
}

TrainHistory GptTrain::train(const TrainCallbacks& callbacks) {
    if (options_.warmup)
        return train_model(*model_, data_->train_loader, data_->val_loader, *optimizer_, gen_, tokenizer_, options_.settings, *options_.warmup,
                           callbacks);
    return train_model_simple(*model_, data_->train_loader, data_->val_loader, *optimizer_, gen_, tokenizer_, options_.settings, callbacks);
}

std::size_t GptTrain::total_steps() const { return options_.settings.num_epochs * data_->train_loader.size(); }

GPTConfig checkpoint_config(const TorchStateDict& checkpoint, const GPTConfig& base) {
    const TorchTensor* tok = checkpoint.find("tok_emb.weight");  // [V, C]
    if (tok != nullptr && tok->shape.size() == 2 && tok->shape[1] > 0 && base.n_heads > 0 && tok->shape[1] % base.n_heads != 0)
        throw std::invalid_argument(fmt::format("--n-heads {} does not divide the checkpoint's emb_dim {} ({}); a state dict does not "
                                                "record the heads: give --n-heads as the model was trained with",
                                                base.n_heads, tok->shape[1], checkpoint.name()));
    GPTConfig cfg = infer_gpt_config(checkpoint, base.n_heads);
    cfg.drop_rate = base.drop_rate;
    const std::size_t gpt2_vocab = GPTConfig{}.vocab_size;
    if (cfg.vocab_size < gpt2_vocab)
        throw std::runtime_error(fmt::format("{}: its vocabulary is {} tokens (tok_emb.weight [{}, {}]), fewer than GPT-2's tokenizer's {}: "
                                             "the text's token ids would be out of range; train it on GPT-2's vocabulary",
                                             checkpoint.name(), cfg.vocab_size, cfg.vocab_size, cfg.emb_dim, gpt2_vocab));
    return cfg;
}

double gpt_train_bytes(const GptTrainOptions& o) {
    const GPTConfig& c = o.model;
    const double V = static_cast<double>(c.vocab_size), C = static_cast<double>(c.emb_dim), T = static_cast<double>(c.context_length),
                 L = static_cast<double>(c.n_layers), NH = static_cast<double>(c.n_heads), B = static_cast<double>(o.batch_size);
    // tok_emb, pos_emb, out_head; per block 12 C^2 weights and 13 C vectors; the final norm
    const double params = 2 * V * C + T * C + L * (12 * C * C + 13 * C) + 2 * C;
    // per block, the saved activations of one batch: about 20 C per token and the attention
    // weights (scores, softmax, dropout) NH x T per token; the logits and their gradient
    const double activations = B * T * (L * (20 * C + 3 * NH * T) + 2 * V);
    return 4.0 * (4 * params + activations);  // float32: weights, gradients, exp_avg, exp_avg_sq
}

}  // namespace llmfs
