#include "llmfs/train/loop.hpp"

#include <chrono>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <xtensor/xadapt.hpp>

#include "llmfs/train/evaluate.hpp"
#include "llmfs/train/lr_schedule.hpp"

namespace llmfs {

AdamW::AdamW(GPTModel& model, AdamWOptions options) : params_(named_parameters(model)), state_(params_.size()), options_(options) {}

void AdamW::step(const GPTGrads& grads) {
    const auto named = named_gradients(grads);
    if (named.size() != params_.size())
        throw std::logic_error("AdamW::step: " + std::to_string(named.size()) + " gradients for " + std::to_string(params_.size()) + " parameters");
    for (std::size_t i = 0; i < params_.size(); ++i) {
        if (named[i].second->size() != params_[i].size)
            throw std::logic_error("AdamW::step: " + params_[i].name + " has " + std::to_string(params_[i].size) + " values, its gradient " +
                                   std::to_string(named[i].second->size()));
        // 1.13's zero_grad() zeroes, AccumulateGrad adds: 0 + g (2.x's sets the gradients to None)
        adamw_step(params_[i].data, named[i].second->data(), params_[i].size, state_[i], options_,
                   /*grad_plus_zero=*/options_.version == PyTorchVersion::v1_13);
    }
}

std::vector<GradView> gradient_views(GPTGrads& grads) {
    std::vector<GradView> views;
    for (const auto& [name, grad] : named_gradients(grads)) {
        auto& values = const_cast<std::vector<float>&>(*grad);  // grads is ours to change: named_gradients only reads
        views.push_back({values.data(), values.size()});
    }
    return views;
}

float train_step(GPTModel& model, AdamW& optimizer, const Batch& batch, TrainBuffers& buffers, StepTimes* times,
                 std::optional<double> clip_max_norm) {
    using Clock = std::chrono::steady_clock;
    const auto seconds = [](Clock::time_point from, Clock::time_point to) { return std::chrono::duration<double>(to - from).count(); };
    const auto start = Clock::now();
    gpt_forward(model, xt::adapt(batch.inputs, std::array<std::size_t, 2>{batch.B, batch.T}), buffers.saved);
    const auto forwarded = Clock::now();
    const float loss = gpt_loss_backward(model, buffers.saved, batch.targets.data(), buffers.grads);  // loss.backward()
    const auto backwarded = Clock::now();
    if (clip_max_norm) clip_grad_norm_(gradient_views(buffers.grads), *clip_max_norm);
    optimizer.step(buffers.grads);
    if (times) *times = {seconds(start, forwarded), seconds(forwarded, backwarded), seconds(backwarded, Clock::now())};
    return loss;
}

namespace {

// evaluate_model after a step, recorded, and its line printed (`word`: "Step" or "Iter")
void evaluate_and_print(GPTModel& model, const LoaderView& train_loader, const LoaderView& val_loader, Generator& gen,
                        const TrainSettings& settings, std::size_t epoch, long long global_step, std::size_t tokens_seen,
                        const char* word, TrainHistory& history, const std::function<void(const std::string&)>& print) {
    model.train(false);
    const double train_loss = calc_loss_loader(train_loader, model, gen, settings.eval_iter);
    const double val_loss = calc_loss_loader(val_loader, model, gen, settings.eval_iter);
    model.train(true);
    history.train_losses.push_back(train_loss);
    history.val_losses.push_back(val_loss);
    history.tokens_seen.push_back(tokens_seen);
    print(fmt::format("Ep {} ({} {:06d}): Train loss {:.3f}, Val loss {:.3f}", epoch + 1, word, global_step, train_loss, val_loss));
}

// generate_and_print_sample: 50 greedy tokens in eval mode, newlines shown as spaces
void print_sample(GPTModel& model, const Gpt2Tokenizer& tokenizer, const TrainSettings& settings,
                  const std::function<void(const std::string&)>& print) {
    model.train(false);
    const IdArray<2> token_ids = generate_text_simple(model, text_to_token_ids(settings.start_context, tokenizer), 50,
                                                      model.pos_emb.weight.data.shape()[0]);
    std::string text = token_ids_to_text(token_ids, tokenizer);
    for (char& c : text)
        if (c == '\n') c = ' ';
    print(text);
    model.train(true);
}

}  // namespace

TrainHistory train_model_simple(GPTModel& model, const DataLoader& train_loader, const DataLoader& val_loader, AdamW& optimizer,
                                Generator& gen, const Gpt2Tokenizer& tokenizer, const TrainSettings& settings,
                                const TrainCallbacks& callbacks) {
    return train_model_simple(model, view_of(train_loader), view_of(val_loader), optimizer, gen, tokenizer, settings, callbacks);
}

TrainHistory train_model_simple(GPTModel& model, const LoaderView& train_loader, const LoaderView& val_loader, AdamW& optimizer,
                                Generator& gen, const Gpt2Tokenizer& tokenizer, const TrainSettings& settings,
                                const TrainCallbacks& callbacks) {
    if (settings.eval_freq == 0) throw std::invalid_argument("train_model_simple: eval_freq must be positive (global_step % 0)");
    TrainHistory history;
    std::size_t tokens_seen = 0;
    long long global_step = -1;
    const auto print = [&](const std::string& line) {
        if (callbacks.print) callbacks.print(line);
    };
    TrainBuffers buffers;
    for (std::size_t epoch = 0; epoch < settings.num_epochs; ++epoch) {
        model.train(true);
        const auto next = train_loader.begin(gen);
        std::size_t in_epoch = 0;
        for (Batch batch; next(batch);) {
            train_step(model, optimizer, batch, buffers);
            tokens_seen += batch.inputs.size();
            ++global_step;
            ++in_epoch;
            if (global_step % static_cast<long long>(settings.eval_freq) == 0)
                evaluate_and_print(model, train_loader, val_loader, gen, settings, epoch, global_step, tokens_seen, "Step", history, print);
            if (callbacks.on_step) callbacks.on_step(epoch, in_epoch, train_loader.size, tokens_seen);
        }
        print_sample(model, tokenizer, settings, print);
    }
    return history;
}

TrainHistory train_model(GPTModel& model, const DataLoader& train_loader, const DataLoader& val_loader, AdamW& optimizer,
                         Generator& gen, const Gpt2Tokenizer& tokenizer, const TrainSettings& settings,
                         const WarmupSettings& warmup, const TrainCallbacks& callbacks) {
    if (settings.eval_freq == 0) throw std::invalid_argument("train_model: eval_freq must be positive (global_step % 0)");
    LrSchedule schedule;
    schedule.peak_lr = optimizer.options().lr;  // peak_lr = optimizer.param_groups[0]["lr"]
    schedule.initial_lr = warmup.initial_lr;
    schedule.min_lr = warmup.min_lr;
    schedule.warmup_steps = warmup.warmup_steps;
    schedule.total_steps = train_loader.size() * settings.num_epochs;  // len(train_loader) * n_epochs
    if (const std::string problem = lr_schedule_problem(schedule); !problem.empty()) throw std::invalid_argument("train_model: " + problem);
    TrainHistory history;
    std::size_t tokens_seen = 0;
    long long global_step = -1;
    const auto print = [&](const std::string& line) {
        if (callbacks.print) callbacks.print(line);
    };
    const auto warmup_steps = static_cast<long long>(warmup.warmup_steps);
    TrainBuffers buffers;
    for (std::size_t epoch = 0; epoch < settings.num_epochs; ++epoch) {
        model.train(true);
        auto batches = train_loader.begin(gen);
        std::size_t in_epoch = 0;
        for (Batch batch; batches.next(batch);) {
            ++global_step;
            ++in_epoch;
            const double lr = learning_rate(schedule, static_cast<std::size_t>(global_step));
            optimizer.options().lr = lr;  // param_group["lr"] = lr
            history.track_lrs.push_back(lr);
            // clipping after the warmup; the book's print edition skipped step warmup_steps
            const bool clip = warmup.orig_book_version ? global_step > warmup_steps : global_step >= warmup_steps;
            train_step(model, optimizer, batch, buffers, nullptr, clip ? std::optional<double>(warmup.max_norm) : std::nullopt);
            tokens_seen += batch.inputs.size();
            if (global_step % static_cast<long long>(settings.eval_freq) == 0)
                evaluate_and_print(model, view_of(train_loader), view_of(val_loader), gen, settings, epoch, global_step, tokens_seen, "Iter", history, print);
            if (callbacks.on_step) callbacks.on_step(epoch, in_epoch, train_loader.size(), tokens_seen);
        }
        print_sample(model, tokenizer, settings, print);
    }
    return history;
}

}  // namespace llmfs
