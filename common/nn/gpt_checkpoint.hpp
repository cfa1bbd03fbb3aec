// The book's GPTModel as a PyTorch state dict (section 5.4): model.state_dict() under the book's
// names, written as torch.save(model.state_dict(), "model.pth") writes it and read back from such
// a file (PyTorch's, or the suite's). The file format is nn/torch_save; docs/checkpoints.md.
//
// model.state_dict() of the book's GPTModel, in this order (L blocks, qkv_bias optional):
//   tok_emb.weight [V, C], pos_emb.weight [context_length, C], then for each block b
//   trf_blocks.b.att.mask [context_length, context_length]   (the buffer torch.triu(ones, diagonal=1))
//   trf_blocks.b.att.W_query.weight [C, C] (.bias [C] with qkv_bias), W_key, W_value the same,
//   trf_blocks.b.att.out_proj.weight [C, C], .bias [C],
//   trf_blocks.b.ff.layers.0.weight [4C, C], .bias [4C], trf_blocks.b.ff.layers.2.weight [C, 4C], .bias [C],
//   trf_blocks.b.norm1.scale [C], .shift [C], trf_blocks.b.norm2.scale, .shift;
//   final_norm.scale [C], final_norm.shift [C], out_head.weight [V, C].
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "llmfs/nn/gpt.hpp"
#include "llmfs/nn/torch_save.hpp"

namespace llmfs {

// One entry of model.state_dict(): a parameter (data points into the model) or a mask buffer
// (data null: its values are the causal mask).
struct GptStateEntry {
    std::string name;
    float* data = nullptr;
    std::vector<std::uint64_t> shape;
    bool buffer = false;
};
std::vector<GptStateEntry> gpt_state_entries(const GPTModel& model);

// model.state_dict() as the Python value torch.save pickles: an OrderedDict of float32 tensors
// viewing the model's parameters (and `masks`, which must outlive the value), with its
// _metadata ({"version": 1} per module, in named_modules() order). `shortcut_dropout` is the name
// of each block's dropout module, which only _metadata records: chapter 4's and 5's
// previous_chapters.py call it drop_shortcut, chapter 6's, 7's and appendix E's drop_resid.
PyRef gpt_state_dict(const GPTModel& model, std::vector<std::vector<float>>& masks, std::string_view shortcut_dropout = "drop_shortcut");

// torch.save(model.state_dict(), path), atomically.
void save_state_dict(const std::filesystem::path& path, const GPTModel& model, std::string_view shortcut_dropout = "drop_shortcut");

// The state dict of a torch.save file: the file's object if it is a dict of tensors (model.pth),
// or its "model_state_dict" entry (model_and_optimizer.pth).
class TorchStateDict {
public:
    static TorchStateDict open(const std::filesystem::path& path);
    explicit TorchStateDict(TorchSaveFile file);

    const TorchSaveFile& file() const { return file_; }
    const std::string& name() const { return file_.name(); }
    const PyValue& value() const { return *value_; }
    // Every entry, in the file's order (each one a tensor: checked when opened).
    const std::vector<std::pair<std::string, const TorchTensor*>>& tensors() const { return tensors_; }
    const TorchTensor* find(const std::string& name) const;  // nullptr if absent

private:
    TorchSaveFile file_;
    const PyValue* value_ = nullptr;
    std::vector<std::pair<std::string, const TorchTensor*>> tensors_;
};

// The GPTConfig a state dict's shapes imply: vocab_size and emb_dim from tok_emb.weight,
// context_length from pos_emb.weight, n_layers from trf_blocks.N (0..L-1, no gap), qkv_bias from
// trf_blocks.0.att.W_query.bias; n_heads as gpt2_n_heads (nn/safetensors.hpp); drop_rate 0.0.
GPTConfig infer_gpt_config(const TorchStateDict& state, std::optional<std::size_t> n_heads = std::nullopt, std::string* how = nullptr);

// model.load_state_dict(state) (strict, as the book calls it): every entry of the model present
// with the model's shape and float32, no other entry, each mask the causal one; then the copies.
// Throws std::runtime_error "FILE: tensor NAME has shape [..], the model expects [..]; hint".
void load_state_dict(GPTModel& model, const TorchStateDict& state);

}  // namespace llmfs
