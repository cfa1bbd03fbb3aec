#include "llmfs/train/evaluate.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

#include <xtensor/xadapt.hpp>

#include "llmfs/torch/loss.hpp"

namespace llmfs {

float calc_loss_batch(const GPTModel& model, const Batch& batch) {
    const IdArray<2> inputs = xt::adapt(batch.inputs, std::array<std::size_t, 2>{batch.B, batch.T});  // [B, T]
    const Tensor<3> logits = model.forward(inputs);                                                    // [B, T, V]
    const std::size_t V = logits.data.shape()[2];
    // cross_entropy(logits.flatten(0, 1), target_batch.flatten()): [B*T, V] against [B*T]
    return cross_entropy(logits.data.data(), batch.B * batch.T, V, batch.targets.data());
}

double calc_loss_loader(const LoaderView& loader, const GPTModel& model, Generator& gen, std::optional<std::size_t> num_batches) {
    double total_loss = 0.0;
    if (loader.size == 0) return std::numeric_limits<double>::quiet_NaN();
    const std::size_t n = num_batches ? std::min(*num_batches, loader.size) : loader.size;
    if (n == 0) throw std::invalid_argument("calc_loss_loader: num_batches 0 (Python raises ZeroDivisionError)");
    const auto next = loader.begin(gen);
    Batch batch;
    for (std::size_t i = 0; i < n && next(batch); ++i) total_loss += calc_loss_batch(model, batch);  // loss.item()
    return total_loss / static_cast<double>(n);
}

double calc_loss_loader(const DataLoader& loader, const GPTModel& model, Generator& gen, std::optional<std::size_t> num_batches) {
    return calc_loss_loader(view_of(loader), model, gen, num_batches);
}

IdArray<2> text_to_token_ids(const std::string& text, const Gpt2Tokenizer& tokenizer) {
    const std::vector<std::int64_t> encoded = tokenizer.encode(text);
    return xt::adapt(encoded, std::array<std::size_t, 2>{1, encoded.size()});  // .unsqueeze(0)
}

std::string token_ids_to_text(const IdArray<2>& token_ids, const Gpt2Tokenizer& tokenizer) {
    if (token_ids.shape()[0] != 1)
        throw std::invalid_argument("token_ids_to_text: a batch of " + std::to_string(token_ids.shape()[0]) + " rows, not 1");
    return tokenizer.decode(std::vector<std::int64_t>(token_ids.begin(), token_ids.end()));  // .squeeze(0).tolist()
}

}  // namespace llmfs
