#include "llmfs/train/loop.hpp"

#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <xtensor/xadapt.hpp>

#include "llmfs/train/evaluate.hpp"

namespace llmfs {

namespace {

void add_linear(std::vector<ParameterView>& out, const std::string& name, Linear& layer) {
    out.push_back({name + ".weight", layer.weight.data.data(), layer.weight.data.size()});
    if (layer.bias) out.push_back({name + ".bias", layer.bias->data.data(), layer.bias->data.size()});
}

void add_norm(std::vector<ParameterView>& out, const std::string& name, LayerNorm& norm) {
    out.push_back({name + ".scale", norm.scale.data.data(), norm.scale.data.size()});
    out.push_back({name + ".shift", norm.shift.data.data(), norm.shift.data.size()});
}

}  // namespace

std::vector<ParameterView> named_parameters(GPTModel& model) {
    std::vector<ParameterView> out{{"tok_emb.weight", model.tok_emb.weight.data.data(), model.tok_emb.weight.data.size()},
                                   {"pos_emb.weight", model.pos_emb.weight.data.data(), model.pos_emb.weight.data.size()}};
    for (std::size_t l = 0; l < model.trf_blocks.size(); ++l) {
        TransformerBlock& b = model.trf_blocks[l];
        const std::string p = "trf_blocks." + std::to_string(l) + ".";
        add_linear(out, p + "att.W_query", b.att.W_query);
        add_linear(out, p + "att.W_key", b.att.W_key);
        add_linear(out, p + "att.W_value", b.att.W_value);
        add_linear(out, p + "att.out_proj", b.att.out_proj);
        add_linear(out, p + "ff.layers.0", b.ff.fc1);
        add_linear(out, p + "ff.layers.2", b.ff.fc2);
        add_norm(out, p + "norm1", b.norm1);
        add_norm(out, p + "norm2", b.norm2);
    }
    add_norm(out, "final_norm", model.final_norm);
    add_linear(out, "out_head", model.out_head);
    return out;
}

std::vector<std::pair<std::string, const std::vector<float>*>> named_gradients(const GPTGrads& g) {
    std::vector<std::pair<std::string, const std::vector<float>*>> out{{"tok_emb.weight", &g.tok_emb}, {"pos_emb.weight", &g.pos_emb}};
    auto linear = [&](const std::string& name, const LinearGrads& lin) {
        out.push_back({name + ".weight", &lin.weight});
        if (!lin.bias.empty()) out.push_back({name + ".bias", &lin.bias});
    };
    for (std::size_t l = 0; l < g.blocks.size(); ++l) {
        const std::string p = "trf_blocks." + std::to_string(l) + ".";
        const BlockGrads& b = g.blocks[l];
        linear(p + "att.W_query", b.att.W_query);
        linear(p + "att.W_key", b.att.W_key);
        linear(p + "att.W_value", b.att.W_value);
        linear(p + "att.out_proj", b.att.out_proj);
        linear(p + "ff.layers.0", b.fc1);
        linear(p + "ff.layers.2", b.fc2);
        out.push_back({p + "norm1.scale", &b.norm1_scale});
        out.push_back({p + "norm1.shift", &b.norm1_shift});
        out.push_back({p + "norm2.scale", &b.norm2_scale});
        out.push_back({p + "norm2.shift", &b.norm2_shift});
    }
    out.push_back({"final_norm.scale", &g.final_scale});
    out.push_back({"final_norm.shift", &g.final_shift});
    out.push_back({"out_head.weight", &g.out_head});
    return out;
}

AdamW::AdamW(GPTModel& model, AdamWOptions options) : params_(named_parameters(model)), state_(params_.size()), options_(options) {}

void AdamW::step(const GPTGrads& grads) {
    const auto named = named_gradients(grads);
    if (named.size() != params_.size())
        throw std::logic_error("AdamW::step: " + std::to_string(named.size()) + " gradients for " + std::to_string(params_.size()) + " parameters");
    std::vector<float> g;
    for (std::size_t i = 0; i < params_.size(); ++i) {
        if (named[i].second->size() != params_[i].size)
            throw std::logic_error("AdamW::step: " + params_[i].name + " has " + std::to_string(params_[i].size) + " values, its gradient " +
                                   std::to_string(named[i].second->size()));
        const float* grad = named[i].second->data();
        if (options_.version == PyTorchVersion::v1_13) {  // 1.13's zero_grad() zeroes, AccumulateGrad adds: 0 + g
            g.resize(params_[i].size);
            for (std::size_t j = 0; j < g.size(); ++j) g[j] = 0.0f + grad[j];
            grad = g.data();
        }
        adamw_step(params_[i].data, grad, params_[i].size, state_[i], options_);
    }
}

float train_step(GPTModel& model, AdamW& optimizer, const Batch& batch, GPTGrads& grads) {
    GPTSaved saved;
    gpt_forward(model, xt::adapt(batch.inputs, std::array<std::size_t, 2>{batch.B, batch.T}), saved);
    const float loss = gpt_loss_backward(model, saved, batch.targets.data(), grads);  // loss.backward()
    optimizer.step(grads);
    return loss;
}

TrainHistory train_model_simple(GPTModel& model, const DataLoader& train_loader, const DataLoader& val_loader, AdamW& optimizer,
                                Generator& gen, const Gpt2Tokenizer& tokenizer, const TrainSettings& settings,
                                const TrainCallbacks& callbacks) {
    if (settings.eval_freq == 0) throw std::invalid_argument("train_model_simple: eval_freq must be positive (global_step % 0)");
    TrainHistory history;
    std::size_t tokens_seen = 0;
    long long global_step = -1;
    const auto print = [&](const std::string& line) {
        if (callbacks.print) callbacks.print(line);
    };
    for (std::size_t epoch = 0; epoch < settings.num_epochs; ++epoch) {
        model.train(true);
        auto batches = train_loader.begin(gen);
        std::size_t in_epoch = 0;
        GPTGrads grads;
        for (Batch batch; batches.next(batch);) {
            train_step(model, optimizer, batch, grads);
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
            if (callbacks.on_step) callbacks.on_step(epoch, in_epoch, train_loader.size(), tokens_seen);
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
