#include "llmfs/train/loop.hpp"

#include <chrono>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <xtensor/xadapt.hpp>

#include "llmfs/train/evaluate.hpp"

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

float train_step(GPTModel& model, AdamW& optimizer, const Batch& batch, TrainBuffers& buffers, StepTimes* times) {
    using Clock = std::chrono::steady_clock;
    const auto seconds = [](Clock::time_point from, Clock::time_point to) { return std::chrono::duration<double>(to - from).count(); };
    const auto start = Clock::now();
    gpt_forward(model, xt::adapt(batch.inputs, std::array<std::size_t, 2>{batch.B, batch.T}), buffers.saved);
    const auto forwarded = Clock::now();
    const float loss = gpt_loss_backward(model, buffers.saved, batch.targets.data(), buffers.grads);  // loss.backward()
    const auto backwarded = Clock::now();
    optimizer.step(buffers.grads);
    if (times) *times = {seconds(start, forwarded), seconds(forwarded, backwarded), seconds(backwarded, Clock::now())};
    return loss;
}

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
            if (global_step % static_cast<long long>(settings.eval_freq) == 0) {  // evaluate_model
                model.train(false);
                const double train_loss = calc_loss_loader(train_loader, model, gen, settings.eval_iter);
                const double val_loss = calc_loss_loader(val_loader, model, gen, settings.eval_iter);
                model.train(true);
                history.train_losses.push_back(train_loss);
                history.val_losses.push_back(val_loss);
                history.tokens_seen.push_back(tokens_seen);
                print(fmt::format("Ep {} (Step {:06d}): Train loss {:.3f}, Val loss {:.3f}", epoch + 1, global_step, train_loss, val_loss));
            }
            if (callbacks.on_step) callbacks.on_step(epoch, in_epoch, train_loader.size, tokens_seen);
        }
        // generate_and_print_sample: 50 greedy tokens in eval mode, newlines shown as spaces
        model.train(false);
        const IdArray<2> token_ids = generate_text_simple(model, text_to_token_ids(settings.start_context, tokenizer), 50,
                                                          model.pos_emb.weight.data.shape()[0]);
        std::string text = token_ids_to_text(token_ids, tokenizer);
        for (char& c : text)
            if (c == '\n') c = ' ';
        print(text);
        model.train(true);
    }
    return history;
}

}  // namespace llmfs
