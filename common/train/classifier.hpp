// Chapter 6's classifier: the GPT with a two-class head, judged by its last token's logits.
//
//   torch.manual_seed(123)
//   model.out_head = torch.nn.Linear(in_features=BASE_CONFIG["emb_dim"], out_features=num_classes)
//   logits = model(input_batch)[:, -1, :]                       # calc_loss_batch, calc_accuracy_loader
//   loss = torch.nn.functional.cross_entropy(logits, target_batch)
//   calc_accuracy_loader(loader, model, device, num_batches)    # model.eval(); argmax per row
//   calc_loss_loader(loader, model, device, num_batches)        # chapter 5's, over calc_loss_batch above
//   classify_review(text, model, tokenizer, device, max_length) # "spam" or "not spam"
//
// Letters: B batch, T tokens, C emb_dim, K classes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "llmfs/nn/gpt.hpp"
#include "llmfs/train/classification_data.hpp"

namespace llmfs {

// model.out_head = torch.nn.Linear(emb_dim, num_classes): weight then bias drawn from `gen`.
void replace_out_head(GPTModel& model, Generator& gen, std::size_t num_classes);

// model(inputs)[:, -1, :]: inputs [B, T] -> [B, K], row-major.
std::vector<float> last_token_logits(const GPTModel& model, const IdArray<2>& inputs);

// cross_entropy(model(input_batch)[:, -1, :], target_batch)
float calc_loss_batch(const GPTModel& model, const ClassificationBatch& batch);

// The share of rows whose argmax (the first largest logit) is the label, over the first
// num_batches batches (all when unset); sets the model to eval mode as the book's function does.
double calc_accuracy_loader(const ClassificationLoader& loader, GPTModel& model, Generator& gen,
                            std::optional<std::size_t> num_batches = std::nullopt);

// The mean of calc_loss_batch over the first num_batches batches, the losses added in double; NaN
// for an empty loader.
double calc_loss_loader(const ClassificationLoader& loader, const GPTModel& model, Generator& gen,
                        std::optional<std::size_t> num_batches = std::nullopt);

// classify_review(text, model, tokenizer, device, max_length, pad_token_id=50256): the text's
// tokens cut to min(max_length, context_length), padded to max_length; "spam" when the last
// token's argmax is 1, else "not spam". Sets eval mode. std::invalid_argument for a max_length
// past the context length (the book's assert).
std::string classify_review(const std::string& text, GPTModel& model, const Gpt2Tokenizer& tokenizer,
                            std::size_t max_length, std::int64_t pad_token_id = 50256);

}  // namespace llmfs
