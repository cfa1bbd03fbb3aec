#include "llmfs/train/frozen_trunk.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "llmfs/fast/memory.hpp"
#include "llmfs/torch/blas.hpp"
#include "llmfs/train/attention_backward.hpp"

namespace llmfs {

namespace {

AutoOnOff trunk_cache_from_environment() {
    return auto_on_off_from_environment("LLMFS_TRUNK_CACHE", "the frozen blocks' output kept per example, up to a quarter of the memory");
}

}  // namespace

FrozenTrunk::FrozenTrunk(const GPTModel& model, std::size_t first_block, std::optional<AutoOnOff> mode) : first_(first_block) {
    if (first_block > model.trf_blocks.size())
        throw std::invalid_argument("FrozenTrunk: block " + std::to_string(first_block) + " of a model with " +
                                    std::to_string(model.trf_blocks.size()) + " blocks");
    const AutoOnOff m = mode ? *mode : trunk_cache_from_environment();
    bool draws = model.drop_emb.p() != 0.0;  // a mask drawn below `first` changes the trunk (and the generator)
    for (std::size_t l = 0; l < first_block; ++l)
        draws = draws || model.trf_blocks[l].drop_shortcut.p() != 0.0 || model.trf_blocks[l].att.dropout.p() != 0.0;
    off_reason_ = m == AutoOnOff::off ? "LLMFS_TRUNK_CACHE=off"
                  : first_block == 0  ? "every block trains"
                  : draws             ? "dropout below the trained blocks"
                                      : "";
    active_ = off_reason_.empty();
    budget_floats_ = std::numeric_limits<std::size_t>::max();
    if (m == AutoOnOff::automatic) {
        const double bytes = physical_memory_bytes().value_or(8.0 * (1ull << 30)) / 4;
        budget_floats_ = static_cast<std::size_t>(bytes / sizeof(float));
    }
}

std::string FrozenTrunk::describe() const {
    if (!active_) return "frozen trunk off (" + off_reason_ + "): every batch runs every block";
    std::string line = first_ == 1 ? "frozen trunk: block 0 computed once per message, then kept"
                                   : "frozen trunk: blocks 0 to " + std::to_string(first_ - 1) + " computed once per message, then kept";
    std::string refused;
    for (const auto& [shape, keeps] : shapes_)
        if (!keeps) refused += fmt::format("{}{} x {}", refused.empty() ? "" : ", ", shape.first, shape.second);
    if (!refused.empty()) line += " (not for batches of " + refused + ": OpenBLAS's " + blas_kernel() + " kernel rounds a row by its place there)";
    return line;
}

void FrozenTrunk::note_progress(const std::function<void(const std::string&)>& note, bool training_done) const {
    if (!training_done || unkept_ > 0) note(describe());
}

bool FrozenTrunk::places_keep_bits(const GPTModel& model, std::size_t B, std::size_t T) {
    if (B <= 1) return true;
    const auto known = shapes_.find({B, T});
    if (known != shapes_.end()) return known->second;
    const std::size_t N = B * T, rotated = T;  // row r of the rotated batch is row (r + T) % N: example b + 1
    const TransformerBlock& block = model.trf_blocks.at(0);
    std::mt19937 draw(20261207);  // not torch's generator: the program's draws stay as they are
    std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
    bool keeps = true;
    std::vector<std::tuple<std::size_t, std::size_t, bool>> asked;  // (in, out, bias) of each product asked
    for (const Linear* layer : {&block.att.W_query, &block.att.W_key, &block.att.W_value, &block.att.out_proj, &block.ff.fc1, &block.ff.fc2}) {
        const std::tuple<std::size_t, std::size_t, bool> shape{layer->in_features(), layer->out_features(), layer->bias.has_value()};
        if (std::find(asked.begin(), asked.end(), shape) != asked.end()) continue;
        asked.push_back(shape);
        const std::size_t in = layer->in_features(), out = layer->out_features();
        std::vector<float> x(N * in), moved(N * in), y(N * out), y_moved(N * out);
        for (float& v : x) v = uniform(draw);
        for (std::size_t r = 0; r < N; ++r)
            std::copy_n(x.begin() + static_cast<std::ptrdiff_t>(((r + rotated) % N) * in), in, moved.begin() + static_cast<std::ptrdiff_t>(r * in));
        linear_forward(*layer, x.data(), N, y.data());
        linear_forward(*layer, moved.data(), N, y_moved.data());
        for (std::size_t r = 0; r < N && keeps; ++r)
            keeps = std::memcmp(&y_moved[r * out], &y[((r + rotated) % N) * out], out * sizeof(float)) == 0;
        if (!keeps) break;
    }
    shapes_[{B, T}] = keeps;
    return keeps;
}

std::string FrozenTrunk::key(const std::int64_t* ids, std::size_t B, std::size_t T) const {
    std::string k(sizeof(std::size_t) + T * sizeof(std::int64_t), '\0');
    std::memcpy(k.data(), &B, sizeof(std::size_t));  // the batch's rows: a row is reused in a product of its own shape only
    std::memcpy(k.data() + sizeof(std::size_t), ids, T * sizeof(std::int64_t));
    return k;
}

void FrozenTrunk::forward(const GPTModel& model, const IdArray<2>& in_idx, GPTSaved& s) {
    if (!active_) return gpt_forward(model, in_idx, s, StepKernels::fast);
    const std::size_t B = in_idx.shape()[0], T = in_idx.shape()[1], C = model.cfg.emb_dim, N = B * T;
    check_sequence_fits(model, T);
    if (!places_keep_bits(model, B, T)) {  // this kernel rounds an example's rows by their place: as PyTorch, every block
        ++unkept_;
        return gpt_forward(model, in_idx, s, StepKernels::fast);
    }
    std::vector<std::string> keys(B);
    std::vector<const std::vector<float>*> rows(B, nullptr);  // each example's kept [T, C], when kept
    bool all_kept = true;
    for (std::size_t b = 0; b < B; ++b) {
        keys[b] = key(in_idx.data() + b * T, B, T);
        const auto found = kept_.find(keys[b]);
        if (found != kept_.end()) rows[b] = &found->second;
        all_kept = all_kept && rows[b];
    }
    std::vector<float> x, branch;  // [N, C]
    s.blocks.assign(model.trf_blocks.size(), BlockSaved{});
    if (all_kept) {
        s.B = B, s.T = T;
        s.ids.assign(in_idx.begin(), in_idx.end());
        s.noise_emb.clear();
        x.resize(N * C);
        for (std::size_t b = 0; b < B; ++b) std::copy(rows[b]->begin(), rows[b]->end(), x.begin() + static_cast<std::ptrdiff_t>(b * T * C));
        ++reused_;
    } else {  // the whole batch through the embeddings and the frozen blocks, as gpt_forward
        embeddings_forward_fast(model, in_idx, s, x);
        BlockSaved scratch;
        for (std::size_t l = 0; l < first_; ++l) block_forward_fast(model.trf_blocks[l], B, T, x, scratch, branch);
        for (std::size_t b = 0; b < B; ++b) {
            if (rows[b] || kept_floats_ + T * C > budget_floats_) continue;
            const auto row = x.begin() + static_cast<std::ptrdiff_t>(b * T * C);
            if (kept_.emplace(keys[b], std::vector<float>(row, row + static_cast<std::ptrdiff_t>(T * C))).second)
                kept_floats_ += T * C;  // a message twice in one batch is kept once
        }
        ++computed_;
    }
    for (std::size_t l = first_; l < model.trf_blocks.size(); ++l) block_forward_fast(model.trf_blocks[l], B, T, x, s.blocks[l], branch);
    head_forward_fast(model, x, s);
}

}  // namespace llmfs
