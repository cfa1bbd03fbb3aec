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
#include <optional>
#include <string>
#include <vector>

#include "llmfs/train/adamw.hpp"
#include "llmfs/train/clip_grad.hpp"
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
// optimizer.step. Returns the loss; with `times`, fills it. With `clip_max_norm`, appendix D's
// torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm) between backward and step.
float train_step(GPTModel& model, AdamW& optimizer, const Batch& batch, TrainBuffers& buffers, StepTimes* times = nullptr,
                 std::optional<double> clip_max_norm = std::nullopt);

// The model's gradients as clip_grad_norm_ takes them, in model.parameters() order.
std::vector<GradView> gradient_views(GPTGrads& grads);

struct TrainSettings {
    std::size_t num_epochs = 10, eval_freq = 5, eval_iter = 1;
    std::string start_context = "Every effort moves you";
};

struct TrainHistory {
    std::vector<double> train_losses, val_losses;
    std::vector<std::size_t> tokens_seen;
    std::vector<double> track_lrs;  // appendix D's train_model: each step's learning rate
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

// Appendix D's train_model arguments beyond train_model_simple's (appendix-D.ipynb, section D.4):
// the peak rate is the optimizer's lr when the run starts.
struct WarmupSettings {
    std::size_t warmup_steps = 1;
    double initial_lr = 3e-05, min_lr = 1e-6;  // the function's defaults
    double max_norm = 1.0;                     // clip_grad_norm_(..., max_norm=1.0), hard-coded in the book
    // ORIG_BOOK_VERSION: clip from step warmup_steps + 1 (`global_step > warmup_steps`, the book's
    // print edition) instead of from step warmup_steps (the notebook's fix)
    bool orig_book_version = false;
};

// Appendix D's train_model: train_model_simple with, at every step, the lr of the warmup and cosine
// schedule (lr_schedule.hpp) set before the step, and gradient clipping after the warmup:
//
//   def train_model(model, train_loader, val_loader, optimizer, device, n_epochs, eval_freq, eval_iter,
//                   start_context, tokenizer, warmup_steps, initial_lr=3e-05, min_lr=1e-6):
//       peak_lr = optimizer.param_groups[0]["lr"]; total_training_steps = len(train_loader) * n_epochs
//       for epoch in range(n_epochs):
//           model.train()
//           for input_batch, target_batch in train_loader:
//               optimizer.zero_grad(); global_step += 1
//               lr = (warmup or cosine); for param_group in optimizer.param_groups: param_group["lr"] = lr
//               track_lrs.append(lr)
//               loss = calc_loss_batch(...); loss.backward()
//               if global_step >= warmup_steps:    # ORIG_BOOK_VERSION: >
//                   torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
//               optimizer.step(); tokens_seen += input_batch.numel()
//               if global_step % eval_freq == 0: ... print(f"Ep {epoch+1} (Iter {global_step:06d}): "
//                                                          f"Train loss {train_loss:.3f}, Val loss {val_loss:.3f}")
//           generate_and_print_sample(model, tokenizer, device, start_context)
//
// The returned history's track_lrs holds each step's lr. Throws std::invalid_argument when the
// schedule cannot run (lr_schedule_problem).
TrainHistory train_model(GPTModel& model, const DataLoader& train_loader, const DataLoader& val_loader, AdamW& optimizer,
                         Generator& gen, const Gpt2Tokenizer& tokenizer, const TrainSettings& settings,
                         const WarmupSettings& warmup, const TrainCallbacks& callbacks);

}  // namespace llmfs
