#include "llmfs/train/classifier.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <vector>

#include <xtensor/xadapt.hpp>

#include "llmfs/torch/loss.hpp"
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

}  // namespace llmfs
