// The book's training loop (ch05 gpt_train.py and the notebook's section 5.2), over the exact
// training step of gpt_backward and adamw:
//
//   def train_model_simple(model, train_loader, val_loader, optimizer, device, num_epochs,
//                          eval_freq, eval_iter, start_context, tokenizer):
//       tokens_seen, global_step = 0, -1
//       for epoch in range(num_epochs):
//           model.train()
//           for input_batch, target_batch in train_loader:       # draws as iter(loader) does
//               optimizer.zero_grad()
//               loss = calc_loss_batch(input_batch, target_batch, model, device)
//               loss.backward()
//               optimizer.step()
//               tokens_seen += input_batch.numel(); global_step += 1
//               if global_step % eval_freq == 0:
//                   train_loss, val_loss = evaluate_model(model, train_loader, val_loader, device, eval_iter)
//                   print(f"Ep {epoch+1} (Step {global_step:06d}): "
//                         f"Train loss {train_loss:.3f}, Val loss {val_loss:.3f}")
//           generate_and_print_sample(model, tokenizer, device, start_context)   # 50 greedy tokens
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "llmfs/train/adamw.hpp"
#include "llmfs/train/data.hpp"
#include "llmfs/train/gpt_backward.hpp"

namespace llmfs {

// torch.optim.AdamW(model.parameters(), lr=..., weight_decay=...) with its state per parameter.
class AdamW {
public:
    AdamW(GPTModel& model, AdamWOptions options);
    void step(const GPTGrads& grads);  // optimizer.step() after zero_grad() and loss.backward()
    const AdamWOptions& options() const { return options_; }
    AdamWOptions& options() { return options_; }  // optimizer.load_state_dict takes the saved lr, betas, eps, weight_decay
    std::vector<AdamWState>& state() { return state_; }
    const std::vector<AdamWState>& state() const { return state_; }

private:
    std::vector<ParameterView> params_;
    std::vector<AdamWState> state_;
    AdamWOptions options_;
};

// What a training step keeps from one step to the next: the forward's activations and the
// gradients, allocated at the first step and reused by every later one of the same sizes.
struct TrainBuffers {
    GPTSaved saved;
    GPTGrads grads;
};

// Where a step's time went, in seconds (llmfs-bench train).
struct StepTimes {
    double forward_s = 0, backward_s = 0, optimizer_s = 0;
};

// One pass of the loop's body: zero_grad, calc_loss_batch, backward (into buffers.grads),
// optimizer.step. Returns the loss; with `times`, fills it.
float train_step(GPTModel& model, AdamW& optimizer, const Batch& batch, TrainBuffers& buffers, StepTimes* times = nullptr);

struct TrainSettings {
    std::size_t num_epochs = 10, eval_freq = 5, eval_iter = 1;
    std::string start_context = "Every effort moves you";
};

struct TrainHistory {
    std::vector<double> train_losses, val_losses;
    std::vector<std::size_t> tokens_seen;
};

// What the loop reports as it goes: each line it prints (without the newline), and after each
// step (epoch, step in the epoch, steps per epoch, tokens seen) for progress on stderr.
struct TrainCallbacks {
    std::function<void(const std::string&)> print;
    std::function<void(std::size_t, std::size_t, std::size_t, std::size_t)> on_step;
};

// train_model_simple; `gen` is torch's global generator (the loaders' shuffles, dropout).
TrainHistory train_model_simple(GPTModel& model, const DataLoader& train_loader, const DataLoader& val_loader, AdamW& optimizer,
                                Generator& gen, const Gpt2Tokenizer& tokenizer, const TrainSettings& settings,
                                const TrainCallbacks& callbacks);
// The same over any loaders (chapter 7's instruction loaders: batches of varying length).
TrainHistory train_model_simple(GPTModel& model, const LoaderView& train_loader, const LoaderView& val_loader, AdamW& optimizer,
                                Generator& gen, const Gpt2Tokenizer& tokenizer, const TrainSettings& settings,
                                const TrainCallbacks& callbacks);

}  // namespace llmfs
