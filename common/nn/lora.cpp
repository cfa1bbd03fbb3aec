#include "llmfs/nn/lora.hpp"

#include <stdexcept>

namespace llmfs {

namespace {

template <class Model, class L>
std::vector<std::pair<std::string, L*>> linears_of(Model& model) {
    std::vector<std::pair<std::string, L*>> out;
    for (std::size_t l = 0; l < model.trf_blocks.size(); ++l) {
        auto& block = model.trf_blocks[l];
        const std::string p = "trf_blocks." + std::to_string(l) + ".";
        // MultiHeadAttention.__init__ registers W_query, W_key, W_value, out_proj in that order
        out.emplace_back(p + "att.W_query", &block.att.W_query);
        out.emplace_back(p + "att.W_key", &block.att.W_key);
        out.emplace_back(p + "att.W_value", &block.att.W_value);
        out.emplace_back(p + "att.out_proj", &block.att.out_proj);
        out.emplace_back(p + "ff.layers.0", &block.ff.fc1);
        out.emplace_back(p + "ff.layers.2", &block.ff.fc2);
    }
    out.emplace_back("out_head", &model.out_head);
    return out;
}

}  // namespace

std::vector<std::pair<std::string, Linear*>> named_linears(GPTModel& model) { return linears_of<GPTModel, Linear>(model); }

std::vector<std::pair<std::string, const Linear*>> named_linears(const GPTModel& model) {
    return linears_of<const GPTModel, const Linear>(model);
}

void replace_linear_with_lora(GPTModel& model, Generator& gen, std::size_t rank, double alpha, LoRAScaling scaling, LoRAForm form) {
    if (rank == 0) throw std::invalid_argument("replace_linear_with_lora: rank must be positive (the layer divides alpha by it)");
    for (const auto& [name, linear] : named_linears(model))
        if (linear->lora) throw std::invalid_argument("replace_linear_with_lora: " + name + " already has a LoRA adapter");
    for (const auto& [name, linear] : named_linears(model)) {
        // the script recurses into the children without passing `alternative` on: only the model's
        // own Linear children (out_head) become LinearWithLoRAMerged, the blocks' LinearWithLoRA
        const bool child = name.find('.') == std::string::npos;
        linear->lora.emplace(gen, linear->in_features(), linear->out_features(), rank, alpha, scaling,
                             child ? form : LoRAForm::separate);  // LinearWithLoRA(module, rank, alpha)
    }
}

std::size_t lora_parameter_count(const GPTModel& model) {
    std::size_t n = 0;
    for (const auto& [name, linear] : named_linears(model))
        if (linear->lora) n += linear->lora->num_parameters();
    return n;
}

}  // namespace llmfs
