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
#include "llmfs/torch/ops.hpp"
#include "llmfs/torch/print.hpp"
#include "llmfs/train/attention_backward.hpp"
#include "llmfs/train/backward.hpp"
#include "llmfs/torch/sampling.hpp"

namespace llmfs {

void replace_out_head(GPTModel& model, Generator& gen, std::size_t num_classes) {
    model.out_head = Linear(gen, model.cfg.emb_dim, num_classes, /*with_bias=*/true);  // [K, C], [K]
}

std::size_t token_index(int token_pos, std::size_t T) {
    const long long t = static_cast<long long>(T), pos = token_pos;
    if (pos >= t || pos < -t)
        throw std::out_of_range(fmt::format("index {} is out of bounds for dimension 1 with size {}", token_pos, T));
    return static_cast<std::size_t>(pos < 0 ? t + pos : pos);
}

Readout Readout::flexible() {
    Readout r;
    r.tokens = Tokens::flexible;
    return r;
}

Readout Readout::mean() {
    Readout r;
    r.tokens = Tokens::mean;
    return r;
}

std::vector<std::size_t> token_rows(const std::int64_t* ids, std::size_t B, std::size_t T, const Readout& readout) {
    if (readout.tokens == Readout::Tokens::mean) throw std::invalid_argument("token_rows: the mean over the tokens reads no one position");
    if (readout.tokens == Readout::Tokens::position) return std::vector<std::size_t>(B, token_index(readout.position, T));
    std::vector<std::size_t> rows(B);
    for (std::size_t b = 0; b < B; ++b) {
        const auto tokens = std::count_if(ids + b * T, ids + (b + 1) * T, [](std::int64_t id) { return id != 50256; });
        rows[b] = tokens == 0 ? T - 1 : static_cast<std::size_t>(tokens - 1);  // mask.sum(dim=1) - 1; -1 is the last
    }
    return rows;
}

ReadLogits read_logits(const float* logits, const std::int64_t* ids, std::size_t B, std::size_t T, std::size_t K,
                       const Readout& readout) {
    ReadLogits read{std::vector<float>(B * K), {}};  // [B, K]
    std::vector<float>& at = read.logits;
    if (readout.tokens == Readout::Tokens::mean) {  // model_output.mean(dim=1): sum(dim=1), then .div_(T)
        for (std::size_t b = 0; b < B; ++b) sum_columns(logits + b * T * K, T, K, at.data() + b * K);
        for (float& v : at) v = v / static_cast<float>(T);
        return read;
    }
    read.rows = token_rows(ids, B, T, readout);  // [:, position, :] (flexible: [arange(B), last_token_pos])
    for (std::size_t b = 0; b < B; ++b) std::copy_n(logits + (b * T + read.rows[b]) * K, K, at.data() + b * K);
    return read;
}

std::vector<float> token_logits(const GPTModel& model, const IdArray<2>& inputs, const Readout& readout) {
    const Tensor<3> logits = model.forward(inputs);  // [B, T, K]
    const std::size_t B = logits.data.shape()[0], T = logits.data.shape()[1], K = logits.data.shape()[2];
    return read_logits(logits.data.data(), inputs.data(), B, T, K, readout).logits;
}

std::vector<float> last_token_logits(const GPTModel& model, const IdArray<2>& inputs) { return token_logits(model, inputs, -1); }

namespace {

IdArray<2> batch_inputs(const ClassificationBatch& batch) {
    return xt::adapt(batch.inputs, std::array<std::size_t, 2>{batch.B, batch.T});  // [B, T]
}

// model(input_batch) read as `readout` says, through `trunk` when it keeps anything: [B, K]
std::vector<float> batch_logits(const GPTModel& model, const ClassificationBatch& batch, const Readout& readout, FrozenTrunk* trunk) {
    if (!trunk || !trunk->active()) return token_logits(model, batch_inputs(batch), readout);
    GPTSaved saved;
    trunk->forward(model, batch_inputs(batch), saved);
    return read_logits(saved.logits.data(), saved.ids.data(), batch.B, batch.T, model.out_head.out_features(), readout).logits;
}

}  // namespace

float calc_loss_batch(const GPTModel& model, const ClassificationBatch& batch, const Readout& readout, FrozenTrunk* trunk) {
    const std::vector<float> logits = batch_logits(model, batch, readout, trunk);  // [B, K]
    const std::size_t K = model.out_head.out_features();
    return cross_entropy(logits.data(), batch.B, K, batch.labels.data(), readout.loss_ignore_index());
}

double calc_accuracy_loader(const ClassificationLoader& loader, GPTModel& model, Generator& gen,
                            std::optional<std::size_t> num_batches, const Readout& readout, FrozenTrunk* trunk) {
    model.train(false);  // model.eval()
    std::size_t correct = 0, examples = 0;
    const std::size_t n = num_batches ? std::min(*num_batches, loader.size()) : loader.size();
    auto epoch = loader.begin(gen);
    ClassificationBatch batch;
    const std::size_t K = model.out_head.out_features();
    for (std::size_t i = 0; i < n && epoch.next(batch); ++i) {
        const std::vector<float> logits = batch_logits(model, batch, readout, trunk);  // [B, K]
        for (std::size_t b = 0; b < batch.B; ++b) correct += argmax(logits.data() + b * K, K) == batch.labels[b];
        examples += batch.B;
    }
    if (examples == 0) throw std::invalid_argument("calc_accuracy_loader: no examples (Python raises ZeroDivisionError)");
    return static_cast<double>(correct) / static_cast<double>(examples);
}

double calc_loss_loader(const ClassificationLoader& loader, const GPTModel& model, Generator& gen,
                        std::optional<std::size_t> num_batches, const Readout& readout, FrozenTrunk* trunk) {
    double total_loss = 0.0;
    if (loader.size() == 0) return std::numeric_limits<double>::quiet_NaN();
    const std::size_t n = num_batches ? std::min(*num_batches, loader.size()) : loader.size();
    if (n == 0) throw std::invalid_argument("calc_loss_loader: num_batches 0 (Python raises ZeroDivisionError)");
    auto epoch = loader.begin(gen);
    ClassificationBatch batch;
    for (std::size_t i = 0; i < n && epoch.next(batch); ++i) total_loss += calc_loss_batch(model, batch, readout, trunk);  // loss.item()
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

TrainableLayers parse_trainable_layers(const std::string& name) {
    for (const TrainableLayers l : {TrainableLayers::last_layer, TrainableLayers::last_block, TrainableLayers::last_two_blocks, TrainableLayers::all})
        if (name == trainable_layers_name(l)) return l;
    throw std::invalid_argument("Invalid --trainable_layers argument '" + name + "' (last_layer, last_block, last_two_blocks or all)");
}

const char* trainable_layers_name(TrainableLayers layers) {
    switch (layers) {
        case TrainableLayers::last_layer: return "last_layer";
        case TrainableLayers::last_block: return "last_block";
        case TrainableLayers::last_two_blocks: return "last_two_blocks";
        case TrainableLayers::all: return "all";
    }
    return "?";
}

namespace {

// The lowest block whose parameters train (n_layers: none), checked against the model's size.
std::size_t first_trained_block(TrainableLayers layers, std::size_t n_layers) {
    const std::size_t blocks = layers == TrainableLayers::last_layer ? 0
                               : layers == TrainableLayers::last_block ? 1
                               : layers == TrainableLayers::last_two_blocks ? 2
                                                                            : n_layers;
    if (blocks > n_layers || (layers != TrainableLayers::last_layer && n_layers == 0))
        throw std::invalid_argument(fmt::format("--trainable_layers {} needs {} transformer blocks; the model has {}",
                                                trainable_layers_name(layers), std::max<std::size_t>(blocks, 1), n_layers));
    return n_layers - blocks;
}

}  // namespace

FrozenTrunk frozen_trunk(const GPTModel& model, TrainableLayers layers, std::optional<AutoOnOff> mode) {
    return FrozenTrunk(model, model.trf_blocks.empty() ? 0 : first_trained_block(layers, model.trf_blocks.size()), mode);
}

std::vector<std::pair<std::string, const std::vector<float>*>> named_gradients(const ClassifierGrads& g, std::size_t n_layers,
                                                                              TrainableLayers layers) {
    std::vector<std::pair<std::string, const std::vector<float>*>> out;
    if (layers == TrainableLayers::all) {
        out.push_back({"tok_emb.weight", &g.tok_emb});
        out.push_back({"pos_emb.weight", &g.pos_emb});
    }
    const std::size_t first = first_trained_block(layers, n_layers);
    if (g.blocks.size() != n_layers - first)
        throw std::logic_error(fmt::format("named_gradients: {} blocks' gradients for {} trainable blocks", g.blocks.size(), n_layers - first));
    for (std::size_t l = first; l < n_layers; ++l) append_block_gradients(out, "trf_blocks." + std::to_string(l) + ".", g.blocks[l - first]);
    if (layers != TrainableLayers::last_layer) {
        out.push_back({"final_norm.scale", &g.final_scale});
        out.push_back({"final_norm.shift", &g.final_shift});
    }
    out.push_back({"out_head.weight", &g.out_head.weight});
    if (!g.out_head.bias.empty()) out.push_back({"out_head.bias", &g.out_head.bias});
    return out;
}

std::vector<ParameterView> trainable_parameters(GPTModel& model, TrainableLayers layers) {
    if (model.trf_blocks.empty()) throw std::invalid_argument("trainable_parameters: a model without transformer blocks");
    const std::size_t first = first_trained_block(layers, model.trf_blocks.size());
    const auto trains = [&](const std::string& name) {
        if (layers == TrainableLayers::all || name.rfind("out_head.", 0) == 0) return true;
        if (layers == TrainableLayers::last_layer) return false;
        if (name.rfind("final_norm.", 0) == 0) return true;
        for (std::size_t l = first; l < model.trf_blocks.size(); ++l)
            if (name.rfind("trf_blocks." + std::to_string(l) + ".", 0) == 0) return true;
        return false;
    };
    std::vector<ParameterView> out;
    for (const ParameterView& p : named_parameters(model))
        if (trains(p.name)) out.push_back(p);
    return out;
}

namespace {

// What one loss.backward() computes below the loss.
struct BackwardPlan {
    Readout readout;              // the logits the loss reads (read_logits), the rows it ignores
    std::size_t first_block = 0;  // the lowest block autograd reaches (n_layers: none)
    bool final_norm = true;       // autograd goes below out_head: final_norm's gradients and the blocks'
    bool lowest_input_grad = true;  // the lowest block's input gradient: its norm1 trains, or the embeddings do
    bool embeddings = false;      // tok_emb and pos_emb train
    bool head_linear = false;     // out_head is a LinearWithLoRA whose own weight and bias train too
    float grad_output = 1.0f;     // d loss: 1 / accumulation_steps after `loss /= accumulation_steps`
};

// loss.backward() from cross_entropy(model(input_batch)[:, token, :], labels) through out_head,
// then (plan.final_norm) final_norm and the blocks from the last down to plan.first_block;
// block_grads[l - first_block] gets block l's gradients; then (plan.embeddings) tok_emb and pos_emb.
// Unless plan.lowest_input_grad (that block's norm1 trains, or the embeddings), autograd stops at
// the lowest block's attention weights (appendix E's LoRA).
float classifier_backward(const GPTModel& model, const GPTSaved& s, const std::int64_t* labels, const BackwardPlan& plan,
                          BlockGrads* block_grads, std::vector<float>& final_scale, std::vector<float>& final_shift,
                          LinearGrads& out_head, std::vector<float>* tok_emb, std::vector<float>* pos_emb, StepKernels kernels) {
    const auto layer_norm_back = kernels == StepKernels::fast ? layer_norm_backward_fast : layer_norm_backward;
    const std::size_t B = s.B, T = s.T, N = B * T, C = model.cfg.emb_dim, K = model.out_head.out_features();
    // logits = model(input_batch)[:, t, :] (flexible: [arange(B), t]; average: .mean(dim=1)): [B, K]
    const ReadLogits picked = read_logits(s.logits.data(), s.ids.data(), B, T, K, plan.readout);
    std::vector<float> dpicked(B * K);
    const float loss = cross_entropy_backward(picked.logits.data(), B, K, labels, dpicked.data(), plan.grad_output,
                                              plan.readout.loss_ignore_index());  // cross_entropy, then its backward
    // SelectBackward0: the gradient of logits [N, K] is zero but for position t's rows;
    // MeanBackward1: every position's is d / T
    std::vector<float> dlogits(N * K, 0.0f);
    if (picked.rows.empty()) {
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t t = 0; t < T; ++t)
                for (std::size_t k = 0; k < K; ++k) dlogits[(b * T + t) * K + k] = dpicked[b * K + k] / static_cast<float>(T);
    } else {
        for (std::size_t b = 0; b < B; ++b)
            std::copy_n(dpicked.begin() + static_cast<std::ptrdiff_t>(b * K), K,
                        dlogits.begin() + static_cast<std::ptrdiff_t>(((b * T) + picked.rows[b]) * K));
    }
    if (!plan.final_norm) {  // only out_head trains: its weight and bias gradients, nothing below
        linear_layer_backward(model.out_head, s.normed.data(), dlogits.data(), N, nullptr, out_head);
        return loss;
    }
    // out_head (Linear with bias, or LinearWithLoRA), then final_norm
    std::vector<float> dnormed(N * C, 0.0f), dx(N * C, 0.0f);
    linear_layer_backward(model.out_head, s.normed.data(), dlogits.data(), N, dnormed.data(), out_head);
    if (plan.head_linear) {  // self.linear(x) of LinearWithLoRA: its weight and bias from the same dlogits
        out_head.weight.resize(model.out_head.weight.data.size());
        out_head.bias.resize(model.out_head.bias ? model.out_head.bias->data.size() : 0);
        linear_backward(s.normed.data(), model.out_head.weight.data.data(), dlogits.data(), N, C, K, nullptr, out_head.weight.data(),
                        model.out_head.bias ? out_head.bias.data() : nullptr);
    }
    final_scale.assign(C, 0.0f);
    final_shift.assign(C, 0.0f);
    layer_norm_back(s.x_final.data(), model.final_norm.scale.data.data(), dnormed.data(), N, C, static_cast<float>(model.final_norm.eps),
                    dx.data(), final_scale.data(), final_shift.data(), false);
    // the blocks, last first, as gpt_loss_backward walks them; dx is the block output's gradient.
    BlockBackwardBuffers buffers;
    for (std::size_t l = model.trf_blocks.size(); l-- > plan.first_block;)
        block_backward(model.trf_blocks[l], s.blocks[l], N, dx.data(), block_grads[l - plan.first_block], kernels, buffers,
                       /*input_grad=*/l != plan.first_block || plan.lowest_input_grad);
    if (plan.embeddings) embeddings_backward(model, s, dx, *tok_emb, *pos_emb);
    return loss;
}

}  // namespace

float classifier_loss_backward(const GPTModel& model, const GPTSaved& s, const std::int64_t* labels, ClassifierGrads& g,
                               StepKernels kernels, TrainableLayers layers, const Readout& readout, float grad_output) {
    if (model.trf_blocks.empty()) throw std::invalid_argument("classifier_loss_backward: a model without transformer blocks");
    BackwardPlan plan;
    plan.grad_output = grad_output;
    plan.readout = readout;
    plan.first_block = first_trained_block(layers, model.trf_blocks.size());
    plan.final_norm = layers != TrainableLayers::last_layer;
    plan.embeddings = layers == TrainableLayers::all;
    g.blocks.resize(model.trf_blocks.size() - plan.first_block);
    return classifier_backward(model, s, labels, plan, g.blocks.data(), g.final_scale, g.final_shift, g.out_head, &g.tok_emb, &g.pos_emb,
                               kernels);
}

namespace {

// The training forward of a step that trains `layers`: through `trunk` when it keeps rows (fast
// kernels only), else gpt_forward. std::logic_error when the trunk keeps a block that trains.
void classifier_forward(const GPTModel& model, TrainableLayers layers, const ClassificationBatch& batch, GPTSaved& saved,
                        StepKernels kernels, FrozenTrunk* trunk) {
    if (!trunk || !trunk->active() || kernels != StepKernels::fast) return gpt_forward(model, batch_inputs(batch), saved, kernels);
    if (trunk->first_block() > first_trained_block(layers, model.trf_blocks.size()))
        throw std::logic_error(fmt::format("the frozen trunk keeps block {}, which --trainable_layers {} trains", trunk->first_block() - 1,
                                           trainable_layers_name(layers)));
    trunk->forward(model, batch_inputs(batch), saved);
}

}  // namespace

ClassifierAdamW::ClassifierAdamW(GPTModel& model, AdamWOptions options, TrainableLayers layers)
    : params_(trainable_parameters(model, layers)), state_(params_.size()), options_(options), n_layers_(model.trf_blocks.size()),
      layers_(layers) {}

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
    adamw_steps("ClassifierAdamW::step", params_, state_, named_gradients(grads, n_layers_, layers_), options_);
}

float train_classifier_step(GPTModel& model, ClassifierAdamW& optimizer, const ClassificationBatch& batch, StepKernels kernels,
                            const Readout& readout, FrozenTrunk* trunk) {
    GPTSaved saved;
    ClassifierGrads grads;
    classifier_forward(model, optimizer.layers(), batch, saved, kernels, trunk);
    const float loss = classifier_loss_backward(model, saved, batch.labels.data(), grads, kernels, optimizer.layers(), readout);
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
    if (!g.out_head.weight.empty()) {  // LoRAHead::trained
        out.push_back({"out_head.linear.weight", &g.out_head.weight});
        if (!g.out_head.bias.empty()) out.push_back({"out_head.linear.bias", &g.out_head.bias});
    }
    adapter("out_head", g.out_head);
    return out;
}

std::vector<ParameterView> lora_parameters(GPTModel& model, LoRAHead head) {
    std::vector<ParameterView> out;
    for (const auto& [name, linear] : named_linears(model)) {
        if (!linear->lora)
            throw std::invalid_argument("lora_parameters: " + name + " has no LoRA adapter (call replace_linear_with_lora first)");
        if (head == LoRAHead::trained && linear == &model.out_head) {
            out.push_back({name + ".linear.weight", linear->weight.data.data(), linear->weight.data.size()});
            if (linear->bias) out.push_back({name + ".linear.bias", linear->bias->data.data(), linear->bias->data.size()});
        }
        out.push_back({name + ".lora.A", linear->lora->A.data.data(), linear->lora->A.data.size()});
        out.push_back({name + ".lora.B", linear->lora->B.data.data(), linear->lora->B.data.size()});
    }
    return out;
}

float lora_classifier_loss_backward(const GPTModel& model, const GPTSaved& s, const std::int64_t* labels, LoRAClassifierGrads& g,
                                    StepKernels kernels, LoRAHead head, const Readout& readout, float grad_output) {
    for (const auto& [name, linear] : named_linears(model))
        if (!linear->lora) throw std::invalid_argument("lora_classifier_loss_backward: " + name + " has no LoRA adapter");
    g.blocks.resize(model.trf_blocks.size());
    BackwardPlan plan;  // every block's adapters train, nothing below them
    plan.readout = readout;
    plan.lowest_input_grad = false;
    plan.head_linear = head == LoRAHead::trained;
    plan.grad_output = grad_output;
    return classifier_backward(model, s, labels, plan, g.blocks.data(), g.final_scale, g.final_shift, g.out_head, nullptr, nullptr,
                               kernels);
}

LoRAAdamW::LoRAAdamW(GPTModel& model, AdamWOptions options, LoRAHead head)
    : params_(lora_parameters(model, head)), state_(params_.size()), options_(options), head_(head) {}

void LoRAAdamW::step(const LoRAClassifierGrads& grads) { adamw_steps("LoRAAdamW::step", params_, state_, named_gradients(grads), options_); }

float train_lora_classifier_step(GPTModel& model, LoRAAdamW& optimizer, const ClassificationBatch& batch, StepKernels kernels,
                                 const Readout& readout) {
    GPTSaved saved;
    LoRAClassifierGrads grads;
    gpt_forward(model, batch_inputs(batch), saved, kernels);
    const float loss = lora_classifier_loss_backward(model, saved, batch.labels.data(), grads, kernels, optimizer.head(), readout);  // loss.backward()
    optimizer.step(grads);
    return loss;
}

// ---- gradient accumulation ----------------------------------------------------------------

namespace {

// grad = grad + new, as AccumulateGrad adds a second backward's gradient (names and sizes checked:
// a mismatch is this library's bug).
void add_gradients(const std::vector<std::pair<std::string, const std::vector<float>*>>& into,
                   const std::vector<std::pair<std::string, const std::vector<float>*>>& added) {
    if (into.size() != added.size()) throw std::logic_error("GradientAccumulation: gradient lists of different lengths");
    for (std::size_t i = 0; i < into.size(); ++i) {
        if (into[i].first != added[i].first || into[i].second->size() != added[i].second->size())
            throw std::logic_error("GradientAccumulation: " + into[i].first + " against " + added[i].first);
        // the accumulator's own vectors, which named_gradients lists as const
        float* sum = const_cast<float*>(into[i].second->data());
        const float* g = added[i].second->data();
        for (std::size_t j = 0; j < into[i].second->size(); ++j) sum[j] = sum[j] + g[j];
    }
}

}  // namespace

GradientAccumulation::GradientAccumulation(std::size_t accumulation_steps, std::size_t batches_per_epoch)
    : steps_(accumulation_steps), batches_(batches_per_epoch) {
    if (steps_ == 0) throw std::invalid_argument("accumulation_steps must be positive (loss /= accumulation_steps)");
}

bool GradientAccumulation::update_due() {
    const std::size_t batch_idx = batch_idx_;
    batch_idx_ = (batch_idx_ + 1) % std::max<std::size_t>(batches_, 1);  // enumerate(train_loader) starts again each epoch
    return (batch_idx + 1) % steps_ == 0 || batch_idx + 1 == batches_;
}

float GradientAccumulation::grad_output() const {
    return steps_ == 1 ? 1.0f : 1.0f / static_cast<float>(steps_);  // DivBackward0: grad / accumulation_steps
}

namespace {

// loss.backward() of loss / accumulation_steps into `sum` (None after zero_grad(): the first
// backward's gradients are kept, later ones added), then optimizer.step() and zero_grad() when due.
template <class Grads, class Named, class Step>
void accumulate(std::optional<Grads>& sum, Grads&& grads, const Named& named, bool due, const Step& step) {
    if (!sum) sum = std::move(grads);
    else add_gradients(named(*sum), named(grads));
    if (!due) return;
    step(*sum);
    sum.reset();
}

}  // namespace

float GradientAccumulation::step(GPTModel& model, ClassifierAdamW& optimizer, const ClassificationBatch& batch, const Readout& readout,
                                 StepKernels kernels, FrozenTrunk* trunk) {
    GPTSaved saved;
    ClassifierGrads grads;
    classifier_forward(model, optimizer.layers(), batch, saved, kernels, trunk);
    const float loss =
        classifier_loss_backward(model, saved, batch.labels.data(), grads, kernels, optimizer.layers(), readout, grad_output());
    const auto named = [&](const ClassifierGrads& g) { return named_gradients(g, model.trf_blocks.size(), optimizer.layers()); };
    accumulate(grads_, std::move(grads), named, update_due(), [&](const ClassifierGrads& g) { optimizer.step(g); });
    return loss;
}

float GradientAccumulation::step(GPTModel& model, LoRAAdamW& optimizer, const ClassificationBatch& batch, const Readout& readout,
                                 StepKernels kernels) {
    GPTSaved saved;
    LoRAClassifierGrads grads;
    gpt_forward(model, batch_inputs(batch), saved, kernels);
    const float loss =
        lora_classifier_loss_backward(model, saved, batch.labels.data(), grads, kernels, optimizer.head(), readout, grad_output());
    const auto named = [](const LoRAClassifierGrads& g) { return named_gradients(g); };
    accumulate(lora_grads_, std::move(grads), named, update_due(), [&](const LoRAClassifierGrads& g) { optimizer.step(g); });
    return loss;
}

ClassifierHistory train_classifier_simple(GPTModel& model, const ClassificationLoader& train_loader,
                                          const ClassificationLoader& val_loader, ClassifierAdamW& optimizer,
                                          Generator& gen, std::size_t num_epochs, std::size_t eval_freq,
                                          std::size_t eval_iter, const std::function<void(const std::string&)>& print, const Readout& readout,
                                          FrozenTrunk* trunk) {
    std::optional<FrozenTrunk> own;
    if (!trunk) trunk = &own.emplace(frozen_trunk(model, optimizer.layers()));
    return train_classifier_simple(
        model, train_loader, val_loader,
        [&](const ClassificationBatch& batch) { train_classifier_step(model, optimizer, batch, StepKernels::fast, readout, trunk); }, gen,
        num_epochs, eval_freq, eval_iter, print, readout, trunk);
}

ClassifierHistory train_classifier_simple(GPTModel& model, const ClassificationLoader& train_loader,
                                          const ClassificationLoader& val_loader, LoRAAdamW& optimizer,
                                          Generator& gen, std::size_t num_epochs, std::size_t eval_freq,
                                          std::size_t eval_iter, const std::function<void(const std::string&)>& print, const Readout& readout) {
    return train_classifier_simple(
        model, train_loader, val_loader,
        [&](const ClassificationBatch& batch) { train_lora_classifier_step(model, optimizer, batch, StepKernels::fast, readout); }, gen,
        num_epochs, eval_freq, eval_iter, print, readout);
}

ClassifierHistory train_classifier_simple(GPTModel& model, const ClassificationLoader& train_loader,
                                          const ClassificationLoader& val_loader,
                                          const std::function<void(const ClassificationBatch&)>& train_step, Generator& gen,
                                          std::size_t num_epochs, std::size_t eval_freq, std::size_t eval_iter,
                                          const std::function<void(const std::string&)>& print, const Readout& readout,
                                          FrozenTrunk* trunk) {
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
                const double train_loss = calc_loss_loader(train_loader, model, gen, eval_iter, readout, trunk);
                const double val_loss = calc_loss_loader(val_loader, model, gen, eval_iter, readout, trunk);
                model.train(true);
                history.train_losses.push_back(train_loss);
                history.val_losses.push_back(val_loss);
                print(fmt::format("Ep {} (Step {:06d}): Train loss {:.3f}, Val loss {:.3f}", epoch + 1, global_step,
                                  python_format_value(train_loss), python_format_value(val_loss)));  // nan: a batch of ignored rows
            }
        }
        const double train_accuracy = calc_accuracy_loader(train_loader, model, gen, eval_iter, readout, trunk);
        const double val_accuracy = calc_accuracy_loader(val_loader, model, gen, eval_iter, readout, trunk);
        print(fmt::format("Training accuracy: {:.2f}% | Validation accuracy: {:.2f}%", train_accuracy * 100,
                          val_accuracy * 100));
        history.train_accs.push_back(train_accuracy);
        history.val_accs.push_back(val_accuracy);
    }
    return history;
}

}  // namespace llmfs
