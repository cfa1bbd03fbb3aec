#include "llmfs/train/lr_schedule.hpp"

#include <cmath>
#include <stdexcept>

namespace llmfs {

std::string lr_schedule_problem(const LrSchedule& s) {
    if (s.warmup_steps == 0) return "the warmup needs at least one step (lr_increment divides by warmup_steps)";
    if (s.decay == LrDecay::cosine && s.warmup_steps >= s.total_steps)
        return "the warmup (" + std::to_string(s.warmup_steps) + " steps) must be shorter than the run (" + std::to_string(s.total_steps) +
               " steps): the cosine decay divides by their difference";
    if (!(s.initial_lr >= 0) || !(s.peak_lr >= 0) || !(s.min_lr >= 0)) return "learning rates must not be negative";
    return {};
}

double learning_rate(const LrSchedule& s, std::size_t global_step) {
    if (const std::string problem = lr_schedule_problem(s); !problem.empty()) throw std::invalid_argument(problem);
    const double lr_increment = (s.peak_lr - s.initial_lr) / static_cast<double>(s.warmup_steps);
    // Python: global_step * lr_increment with an int global_step, converted exactly to a float
    if (global_step < s.warmup_steps) return s.initial_lr + static_cast<double>(global_step) * lr_increment;
    if (s.decay == LrDecay::constant) return s.peak_lr;
    // int / int in Python 3 is true division of the two (exactly converted) doubles
    const double progress = static_cast<double>(global_step - s.warmup_steps) / static_cast<double>(s.total_steps - s.warmup_steps);
    return s.min_lr + (s.peak_lr - s.min_lr) * 0.5 * (1 + std::cos(M_PI * progress));
}

std::size_t warmup_steps_of(std::size_t total_steps, double fraction) {
    return static_cast<std::size_t>(fraction * static_cast<double>(total_steps));  // int() truncates
}

}  // namespace llmfs
