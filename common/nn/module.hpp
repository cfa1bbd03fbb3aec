// print(module): the text PyTorch's nn.Module.__repr__ gives for the book's modules, e.g.
//
//   TransformerBlock(
//     (att): MultiHeadAttention(
//       (W_query): Linear(in_features=768, out_features=768, bias=False)
//       ...
//
// A module is described as a tree (ModuleRepr: class name, extra_repr, named children) and
// printed by one function, so every module prints by the same rules. The rules are PyTorch 2.x's:
// nn.ModuleList groups equal consecutive children as "(0-11): 12 x TransformerBlock(...)";
// nn.Sequential and other modules list every child.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "llmfs/nn/gpt.hpp"

namespace llmfs {

struct ModuleRepr {
    std::string name;        // self._get_name(), e.g. "Linear"
    std::string extra_repr;  // self.extra_repr(), e.g. "in_features=3, out_features=2, bias=False"
    std::vector<std::pair<std::string, ModuleRepr>> children;  // self._modules, in order
    bool module_list = false;  // an nn.ModuleList (2.x groups its equal consecutive children)
};

// repr(module)
std::string repr(const ModuleRepr& module);
// Renames every child called `from`, at any depth (appendix E's previous_chapters.py names the
// block's dropout drop_resid where chapter 4's names it drop_shortcut).
void rename_children(ModuleRepr& module, const std::string& from, const std::string& to);
inline std::string to_text(const ModuleRepr& module) { return repr(module); }  // print(module)

// The module tree of each of the book's nn.Modules (attribute names as in the book's classes).
ModuleRepr module_repr(const Linear& linear);
ModuleRepr module_repr(const Dropout& dropout);
ModuleRepr module_repr(const LayerNorm& norm);
ModuleRepr module_repr(const Embedding& embedding);
ModuleRepr module_repr(const CausalAttention& attention);
ModuleRepr module_repr(const MultiHeadAttentionWrapper& wrapper);
ModuleRepr module_repr(const MultiHeadAttention& attention);
ModuleRepr module_repr(const FeedForward& ff);
ModuleRepr module_repr(const TransformerBlock& block);
ModuleRepr module_repr(const GPTModel& model);

}  // namespace llmfs
