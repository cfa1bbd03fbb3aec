#include "llmfs/train/classifier.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <vector>

#include <xtensor/xadapt.hpp>

#include <fmt/format.h>

#include "llmfs/nn/lora.hpp"
#include "llmfs/torch/loss.hpp"
#include "llmfs/train/attention_backward.hpp"
#include "llmfs/train/backward.hpp"
#include "llmfs/torch/sampling.hpp"

namespace llmfs {

void replace_out_head(GPTModel& model, Generator& gen, std::size_t num_classes) {
    model.out_head = Linear(gen, model.cfg.emb_dim, num_classes, /*with_bias=*/true);  // [K, C], [K]
}

std::vector<float> last_token_logits(const GPTModel& model, const IdArray<2>& inputs) {
    const Tensor<3> logits = model.forward(inputs);  // [B, T, K]
    const std::size_t B = logits.data.shape()[0], T = logits.data.shape()[1], K = logits.data.shape()[2];
    std::vector<float> last(B * K);  // [:, -1, :] -> [B, K]
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t k = 0; k < K; ++k) last[b * K + k] = logits.data(b, T - 1, k);
    return last;
}

namespace {

IdArray<2> batch_inputs(const ClassificationBatch& batch) {
    return xt::adapt(batch.inputs, std::array<std::size_t, 2>{batch.B, batch.T});  // [B, T]
}

}  // namespace

float calc_loss_batch(const GPTModel& model, const ClassificationBatch& batch) {
    const std::vector<float> logits = last_token_logits(model, batch_inputs(batch));  // [B, K]
    const std::size_t K = model.out_head.out_features();
    return cross_entropy(logits.data(), batch.B, K, batch.labels.data());
}

double calc_accuracy_loader(const ClassificationLoader& loader, GPTModel& model, Generator& gen,
                            std::optional<std::size_t> num_batches) {
    model.train(false);  // model.eval()
    std::size_t correct = 0, examples = 0;
    const std::size_t n = num_batches ? std::min(*num_batches, loader.size()) : loader.size();
    auto epoch = loader.begin(gen);
    ClassificationBatch batch;
    const std::size_t K = model.out_head.out_features();
    for (std::size_t i = 0; i < n && epoch.next(batch); ++i) {
        const std::vector<float> logits = last_token_logits(model, batch_inputs(batch));  // [B, K]
        for (std::size_t b = 0; b < batch.B; ++b) correct += argmax(logits.data() + b * K, K) == batch.labels[b];
        examples += batch.B;
    }
    if (examples == 0) throw std::invalid_argument("calc_accuracy_loader: no examples (Python raises ZeroDivisionError)");
    return static_cast<double>(correct) / static_cast<double>(examples);
}

double calc_loss_loader(const ClassificationLoader& loader, const GPTModel& model, Generator& gen,
                        std::optional<std::size_t> num_batches) {
    double total_loss = 0.0;
    if (loader.size() == 0) return std::numeric_limits<double>::quiet_NaN();
    const std::size_t n = num_batches ? std::min(*num_batches, loader.size()) : loader.size();
    if (n == 0) throw std::invalid_argument("calc_loss_loader: num_batches 0 (Python raises ZeroDivisionError)");
    auto epoch = loader.begin(gen);
    ClassificationBatch batch;
    for (std::size_t i = 0; i < n && epoch.next(batch); ++i) total_loss += calc_loss_batch(model, batch);  // loss.item()
    return total_loss / static_cast<double>(n);
}

std::string classify_review(const std::string& text, GPTModel& model, const Gpt2Tokenizer& tokenizer,
                            std::size_t max_length, std::int64_t pad_token_id) {
    model.train(false);  // model.eval()
    if (text.find("<|endoftext|>") != std::string::npos)
        throw std::runtime_error("Encountered text corresponding to disallowed special token '<|endoftext|>'.");
    std::vector<std::int64_t> ids = tokenizer.encode_ordinary(text);  // tokenizer.encode(text)
    const std::size_t context = model.cfg.context_length;              // model.pos_emb.weight.shape[0]
    if (ids.size() > std::min(max_length, context)) ids.resize(std::min(max_length, context));
    if (max_length > context)
        throw std::invalid_argument("max_length (" + std::to_string(max_length) +
                                    ") exceeds model's supported context length (" + std::to_string(context) + ").");
    ids.resize(max_length, pad_token_id);  // += [pad_token_id] * (max_length - len(input_ids))
    const IdArray<2> input = xt::adapt(ids, std::array<std::size_t, 2>{1, ids.size()});  // .unsqueeze(0)
    const std::vector<float> logits = last_token_logits(model, input);                 // [1, K]
    return argmax(logits.data(), logits.size()) == 1 ? "spam" : "not spam";
}

std::vector<std::pair<std::string, const std::vector<float>*>> named_gradients(const ClassifierGrads& g, std::size_t n_layers) {
    std::vector<std::pair<std::string, const std::vector<float>*>> out;
    append_block_gradients(out, "trf_blocks." + std::to_string(n_layers - 1) + ".", g.block);
    out.push_back({"final_norm.scale", &g.final_scale});
    out.push_back({"final_norm.shift", &g.final_shift});
    out.push_back({"out_head.weight", &g.out_head.weight});
    if (!g.out_head.bias.empty()) out.push_back({"out_head.bias", &g.out_head.bias});
    return out;
}

std::vector<ParameterView> trainable_parameters(GPTModel& model) {
    if (model.trf_blocks.empty()) throw std::invalid_argument("trainable_parameters: a model without transformer blocks");
    const std::string last = "trf_blocks." + std::to_string(model.trf_blocks.size() - 1) + ".";
    std::vector<ParameterView> out;
    for (const ParameterView& p : named_parameters(model))
        if (p.name.rfind(last, 0) == 0 || p.name.rfind("final_norm.", 0) == 0 || p.name.rfind("out_head.", 0) == 0)
            out.push_back(p);
    return out;
}

namespace {

// loss.backward() from cross_entropy(model(input_batch)[:, -1, :], labels) through out_head,
// final_norm and the blocks from the last down to first_block (autograd stops below the lowest
// block with a trainable parameter); block_grads[l - first_block] gets block l's gradients. Unless
// that block's norm1 trains (chapter 6's last block), autograd stops at its attention's weights.
float classifier_backward(const GPTModel& model, const GPTSaved& s, const std::int64_t* labels, std::size_t first_block,
                          BlockGrads* block_grads, std::vector<float>& final_scale, std::vector<float>& final_shift,
                          LinearGrads& out_head, StepKernels kernels, bool lowest_norm1_trains) {
    const auto layer_norm_back = kernels == StepKernels::fast ? layer_norm_backward_fast : layer_norm_backward;
    const std::size_t B = s.B, T = s.T, N = B * T, C = model.cfg.emb_dim, K = model.out_head.out_features();
    // logits = model(input_batch)[:, -1, :]: [B, K]
    std::vector<float> last(B * K), dlast(B * K);
    for (std::size_t b = 0; b < B; ++b)
        std::copy_n(s.logits.begin() + static_cast<std::ptrdiff_t>(((b * T) + T - 1) * K), K, last.begin() + static_cast<std::ptrdiff_t>(b * K));
    const float loss = cross_entropy_backward(last.data(), B, K, labels, dlast.data());  // cross_entropy, then its backward
    // SelectBackward0: the gradient of logits [N, K] is zero but for the last position's rows
    std::vector<float> dlogits(N * K, 0.0f);
    for (std::size_t b = 0; b < B; ++b)
        std::copy_n(dlast.begin() + static_cast<std::ptrdiff_t>(b * K), K, dlogits.begin() + static_cast<std::ptrdiff_t>(((b * T) + T - 1) * K));
    // out_head (Linear with bias, or LinearWithLoRA), then final_norm
    std::vector<float> dnormed(N * C, 0.0f), dx(N * C, 0.0f);
    linear_layer_backward(model.out_head, s.normed.data(), dlogits.data(), N, dnormed.data(), out_head);
    final_scale.assign(C, 0.0f);
    final_shift.assign(C, 0.0f);
    layer_norm_back(s.x_final.data(), model.final_norm.scale.data.data(), dnormed.data(), N, C, static_cast<float>(model.final_norm.eps),
                    dx.data(), final_scale.data(), final_shift.data(), false);
    // the blocks, last first, as gpt_loss_backward walks them; dx is the block output's gradient.
    // Nothing below first_block trains (the embeddings are frozen): the lowest one's input gradient
    // is not computed, nor, unless it trains, norm1's.
    BlockBackwardBuffers buffers;
    for (std::size_t l = model.trf_blocks.size(); l-- > first_block;)
        block_backward(model.trf_blocks[l], s.blocks[l], N, dx.data(), block_grads[l - first_block], kernels, buffers,
                       /*input_grad=*/l != first_block || lowest_norm1_trains);
    return loss;
}

}  // namespace

float classifier_loss_backward(const GPTModel& model, const GPTSaved& s, const std::int64_t* labels, ClassifierGrads& g,
                               StepKernels kernels) {
    if (model.trf_blocks.empty()) throw std::invalid_argument("classifier_loss_backward: a model without transformer blocks");
    return classifier_backward(model, s, labels, model.trf_blocks.size() - 1, &g.block, g.final_scale, g.final_shift, g.out_head, kernels,
                               /*lowest_norm1_trains=*/true);
}

ClassifierAdamW::ClassifierAdamW(GPTModel& model, AdamWOptions options)
    : params_(trainable_parameters(model)), state_(params_.size()), options_(options), n_layers_(model.trf_blocks.size()) {}

namespace {

// optimizer.step() over `params`, whose gradients `named` lists in the same order (names and sizes
// checked: a mismatch is this library's bug). 1.13's zero_grad() zeroes and AccumulateGrad adds:
// 0 + g (2.x's sets the gradients to None).
void adamw_steps(const char* who, const std::vector<ParameterView>& params, std::vector<AdamWState>& state,
                 const std::vector<std::pair<std::string, const std::vector<float>*>>& named, const AdamWOptions& options) {
    if (named.size() != params.size())
        throw std::logic_error(std::string(who) + ": " + std::to_string(named.size()) + " gradients for " + std::to_string(params.size()) +
                               " parameters");
    for (std::size_t i = 0; i < params.size(); ++i) {
        if (named[i].first != params[i].name || named[i].second->size() != params[i].size)
            throw std::logic_error(std::string(who) + ": parameter " + params[i].name + " (" + std::to_string(params[i].size) +
                                   " values) against gradient " + named[i].first + " (" + std::to_string(named[i].second->size()) + ")");
        adamw_step(params[i].data, named[i].second->data(), params[i].size, state[i], options,
                   /*grad_plus_zero=*/options.version == PyTorchVersion::v1_13);
    }
}

}  // namespace

void ClassifierAdamW::step(const ClassifierGrads& grads) {
    adamw_steps("ClassifierAdamW::step", params_, state_, named_gradients(grads, n_layers_), options_);
}

float train_classifier_step(GPTModel& model, ClassifierAdamW& optimizer, const ClassificationBatch& batch, StepKernels kernels) {
    GPTSaved saved;
    ClassifierGrads grads;
    gpt_forward(model, batch_inputs(batch), saved, kernels);
    const float loss = classifier_loss_backward(model, saved, batch.labels.data(), grads, kernels);  // loss.backward()
    optimizer.step(grads);
    return loss;
}

// ---- appendix E: LoRA -----------------------------------------------------------------------

std::vector<std::pair<std::string, const std::vector<float>*>> named_gradients(const LoRAClassifierGrads& g) {
    std::vector<std::pair<std::string, const std::vector<float>*>> out;
    const auto adapter = [&](const std::string& name, const LinearGrads& lg) {
        out.push_back({name + ".lora.A", &lg.lora_A});
        out.push_back({name + ".lora.B", &lg.lora_B});
    };
    for (std::size_t l = 0; l < g.blocks.size(); ++l) {
        const std::string p = "trf_blocks." + std::to_string(l) + ".";
        const BlockGrads& b = g.blocks[l];
        adapter(p + "att.W_query", b.att.W_query);
        adapter(p + "att.W_key", b.att.W_key);
        adapter(p + "att.W_value", b.att.W_value);
        adapter(p + "att.out_proj", b.att.out_proj);
        adapter(p + "ff.layers.0", b.fc1);
        adapter(p + "ff.layers.2", b.fc2);
    }
    adapter("out_head", g.out_head);
    return out;
}

std::vector<ParameterView> lora_parameters(GPTModel& model) {
    std::vector<ParameterView> out;
    for (const auto& [name, linear] : named_linears(model)) {
        if (!linear->lora)
            throw std::invalid_argument("lora_parameters: " + name + " has no LoRA adapter (call replace_linear_with_lora first)");
        out.push_back({name + ".lora.A", linear->lora->A.data.data(), linear->lora->A.data.size()});
        out.push_back({name + ".lora.B", linear->lora->B.data.data(), linear->lora->B.data.size()});
    }
    return out;
}

float lora_classifier_loss_backward(const GPTModel& model, const GPTSaved& s, const std::int64_t* labels, LoRAClassifierGrads& g,
                                    StepKernels kernels) {
    for (const auto& [name, linear] : named_linears(model))
        if (!linear->lora) throw std::invalid_argument("lora_classifier_loss_backward: " + name + " has no LoRA adapter");
    g.blocks.resize(model.trf_blocks.size());
    return classifier_backward(model, s, labels, 0, g.blocks.data(), g.final_scale, g.final_shift, g.out_head, kernels,
                               /*lowest_norm1_trains=*/false);
}

LoRAAdamW::LoRAAdamW(GPTModel& model, AdamWOptions options)
    : params_(lora_parameters(model)), state_(params_.size()), options_(options) {}

void LoRAAdamW::step(const LoRAClassifierGrads& grads) { adamw_steps("LoRAAdamW::step", params_, state_, named_gradients(grads), options_); }

float train_lora_classifier_step(GPTModel& model, LoRAAdamW& optimizer, const ClassificationBatch& batch, StepKernels kernels) {
    GPTSaved saved;
    LoRAClassifierGrads grads;
    gpt_forward(model, batch_inputs(batch), saved, kernels);
    const float loss = lora_classifier_loss_backward(model, saved, batch.labels.data(), grads, kernels);  // loss.backward()
    optimizer.step(grads);
    return loss;
}

ClassifierHistory train_classifier_simple(GPTModel& model, const ClassificationLoader& train_loader,
                                          const ClassificationLoader& val_loader, ClassifierAdamW& optimizer,
                                          Generator& gen, std::size_t num_epochs, std::size_t eval_freq,
                                          std::size_t eval_iter, const std::function<void(const std::string&)>& print) {
    return train_classifier_simple(
        model, train_loader, val_loader, [&](const ClassificationBatch& batch) { train_classifier_step(model, optimizer, batch); }, gen,
        num_epochs, eval_freq, eval_iter, print);
}

ClassifierHistory train_classifier_simple(GPTModel& model, const ClassificationLoader& train_loader,
                                          const ClassificationLoader& val_loader, LoRAAdamW& optimizer,
                                          Generator& gen, std::size_t num_epochs, std::size_t eval_freq,
                                          std::size_t eval_iter, const std::function<void(const std::string&)>& print) {
    return train_classifier_simple(
        model, train_loader, val_loader, [&](const ClassificationBatch& batch) { train_lora_classifier_step(model, optimizer, batch); },
        gen, num_epochs, eval_freq, eval_iter, print);
}

ClassifierHistory train_classifier_simple(GPTModel& model, const ClassificationLoader& train_loader,
                                          const ClassificationLoader& val_loader,
                                          const std::function<void(const ClassificationBatch&)>& train_step, Generator& gen,
                                          std::size_t num_epochs, std::size_t eval_freq, std::size_t eval_iter,
                                          const std::function<void(const std::string&)>& print) {
    if (eval_freq == 0) throw std::invalid_argument("train_classifier_simple: eval_freq must be positive (global_step % 0)");
    ClassifierHistory history;
    long long global_step = -1;
    for (std::size_t epoch = 0; epoch < num_epochs; ++epoch) {
        model.train(true);
        auto it = train_loader.begin(gen);
        ClassificationBatch batch;
        while (it.next(batch)) {
            train_step(batch);  // optimizer.zero_grad(); loss.backward(); optimizer.step()
            history.examples_seen += batch.B;  // examples_seen += input_batch.shape[0]
            ++global_step;
            if (global_step % static_cast<long long>(eval_freq) == 0) {
                // evaluate_model: eval mode, no_grad, calc_loss_loader on both, back to train mode
                model.train(false);
                const double train_loss = calc_loss_loader(train_loader, model, gen, eval_iter);
                const double val_loss = calc_loss_loader(val_loader, model, gen, eval_iter);
                model.train(true);
                history.train_losses.push_back(train_loss);
                history.val_losses.push_back(val_loss);
                print(fmt::format("Ep {} (Step {:06d}): Train loss {:.3f}, Val loss {:.3f}", epoch + 1, global_step,
                                  train_loss, val_loss));
            }
        }
        const double train_accuracy = calc_accuracy_loader(train_loader, model, gen, eval_iter);
        const double val_accuracy = calc_accuracy_loader(val_loader, model, gen, eval_iter);
        print(fmt::format("Training accuracy: {:.2f}% | Validation accuracy: {:.2f}%", train_accuracy * 100,
                          val_accuracy * 100));
        history.train_accs.push_back(train_accuracy);
        history.val_accs.push_back(val_accuracy);
    }
    return history;
}

}  // namespace llmfs
