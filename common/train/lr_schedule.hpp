// Appendix D's learning-rate schedule (appendix-D.ipynb, sections D.1 and D.2, and its train_model),
// in Python's double arithmetic, operation for operation, so that every step's lr has the bits the
// notebook's has:
//
//   lr_increment = (peak_lr - initial_lr) / warmup_steps
//   if global_step < warmup_steps:
//       lr = initial_lr + global_step * lr_increment                       # D.1 linear warmup
//   else:
//       progress = ((global_step - warmup_steps) / (total_training_steps - warmup_steps))
//       lr = min_lr + (peak_lr - min_lr) * 0.5 * (1 + math.cos(math.pi * progress))   # D.2 cosine decay
//
// D.1's first loop keeps lr = peak_lr after the warmup instead (LrDecay::constant). math.cos is the C
// library's cos, as std::cos is.
#pragma once

#include <cstddef>
#include <string>

namespace llmfs {

enum class LrDecay { constant, cosine };

struct LrSchedule {
    double initial_lr = 3e-05, peak_lr = 1e-3, min_lr = 1e-6;  // train_model's defaults; peak_lr: the optimizer's lr
    std::size_t warmup_steps = 1, total_steps = 1;             // total_training_steps = len(train_loader) * n_epochs
    LrDecay decay = LrDecay::cosine;
};

// Why `schedule` cannot run, or empty: warmup_steps 0 (the notebook divides by it), a cosine decay
// whose warmup is not shorter than the run (it divides by total - warmup), a negative rate.
std::string lr_schedule_problem(const LrSchedule& schedule);

// The lr of step `global_step` (0-based). Throws std::invalid_argument for lr_schedule_problem.
double learning_rate(const LrSchedule& schedule, std::size_t global_step);

// int(0.2 * total_steps): the notebook's 20% warmup.
std::size_t warmup_steps_of(std::size_t total_steps, double fraction = 0.2);

}  // namespace llmfs
