// Appendix E: LoRA (low-rank adaptation) on the book's GPTModel.
//
//   class LoRALayer(torch.nn.Module):                       # LoRA in nn/layers.hpp
//       self.A = Parameter(empty(in_dim, rank)); kaiming_uniform_(self.A, a=math.sqrt(5))
//       self.B = Parameter(zeros(rank, out_dim))
//       forward(x): (self.alpha / self.rank) * (x @ self.A @ self.B)
//   class LinearWithLoRA(torch.nn.Module):                  # Linear with .lora set
//       forward(x): self.linear(x) + self.lora(x)
//   def replace_linear_with_lora(model, rank, alpha):       # replace_linear_with_lora below
//       for name, module in model.named_children(): Linear -> LinearWithLoRA, else recurse
//
// Letters: C emb_dim, r rank.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "llmfs/nn/gpt.hpp"

namespace llmfs {

// Every nn.Linear of the model, in model.named_children()'s recursive order (the order
// replace_linear_with_lora draws their A matrices in), with its name in model.named_modules():
// per block "trf_blocks.0.att.W_query", W_key, W_value, out_proj, "ff.layers.0", "ff.layers.2";
// then "out_head".
std::vector<std::pair<std::string, Linear*>> named_linears(GPTModel& model);
std::vector<std::pair<std::string, const Linear*>> named_linears(const GPTModel& model);

// replace_linear_with_lora(model, rank, alpha): each Linear gets an adapter, its A drawn from gen
// in named_linears() order; `scaling`: appendix E's alpha / rank, or additional_experiments.py's
// alpha. std::invalid_argument for rank 0 or a model that already has adapters.
// `form`: LinearWithLoRA, or the bonus script's LinearWithLoRAMerged (replace_linear_with_lora(...,
// alternative=True): its A drawn the same way) for the model's own Linear children only, out_head:
// the script's recursive call into the blocks does not pass `alternative` on, so theirs stay
// LinearWithLoRA (as PyTorch running it shows: print(model) names one LinearWithLoRAMerged).
void replace_linear_with_lora(GPTModel& model, Generator& gen, std::size_t rank, double alpha,
                              LoRAScaling scaling = LoRAScaling::alpha_over_rank, LoRAForm form = LoRAForm::separate);

// sum(p.numel() for p in model.parameters() if p.requires_grad) as the notebook counts it:
// before the freezing, every parameter (the adapters' too); after it and the adapters, theirs only.
std::size_t lora_parameter_count(const GPTModel& model);

}  // namespace llmfs
