// Chapter 5.1's evaluation helpers, as the notebook defines them:
//
//   def calc_loss_batch(input_batch, target_batch, model, device):
//       logits = model(input_batch)                                              # [B, T, V]
//       loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), target_batch.flatten())
//
//   def calc_loss_loader(data_loader, model, device, num_batches=None):
//       total_loss = 0.                                    # a Python float: the losses add in double
//       if len(data_loader) == 0: return float("nan")
//       num_batches = len(data_loader) if num_batches is None else min(num_batches, len(data_loader))
//       for i, (input_batch, target_batch) in enumerate(data_loader):   # draws as iter(loader) does
//           if i < num_batches: total_loss += calc_loss_batch(...).item()
//           else: break
//       return total_loss / num_batches
//
// and text_to_token_ids / token_ids_to_text (5.1.1).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "llmfs/nn/gpt.hpp"
#include "llmfs/train/data.hpp"

namespace llmfs {

// The loss of one batch: the model's logits [B, T, V] against the targets [B, T].
float calc_loss_batch(const GPTModel& model, const Batch& batch);

// The mean batch loss over the first num_batches batches of one pass of `loader` (all of them when
// unset), NaN for an empty loader. Draws from `gen` as iterating the loader does.
double calc_loss_loader(const LoaderView& loader, const GPTModel& model, Generator& gen,
                        std::optional<std::size_t> num_batches = std::nullopt);
double calc_loss_loader(const DataLoader& loader, const GPTModel& model, Generator& gen,
                        std::optional<std::size_t> num_batches = std::nullopt);

// torch.tensor(tokenizer.encode(text, allowed_special={'<|endoftext|>'})).unsqueeze(0): [1, T]
IdArray<2> text_to_token_ids(const std::string& text, const Gpt2Tokenizer& tokenizer);
// tokenizer.decode(token_ids.squeeze(0).tolist()) of a [1, T] batch
std::string token_ids_to_text(const IdArray<2>& token_ids, const Gpt2Tokenizer& tokenizer);

}  // namespace llmfs
