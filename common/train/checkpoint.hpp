// Section 5.4's model_and_optimizer.pth: the model's and AdamW's state dicts in one torch.save
// file, written as PyTorch writes them and read back from PyTorch's (nn/torch_save for the format,
// nn/gpt_checkpoint for the model's part; docs/checkpoints.md).
//
//   torch.save({"model_state_dict": model.state_dict(), "optimizer_state_dict": optimizer.state_dict()}, PATH)
//
// optimizer.state_dict() of torch.optim.AdamW (torch/optim/optimizer.py state_dict):
//   {"state": {i: {"step": tensor(float32 scalar), "exp_avg": [..], "exp_avg_sq": [..]}, ...}   (i: the
//              parameter's index in model.parameters(); parameters never stepped have no entry)
//    "param_groups": [{"lr", "betas": (b1, b2), "eps", "weight_decay", "amsgrad": False, "foreach": None,
//                      "maximize": False, "capturable": False, ["differentiable": False, "fused": None,]
//                      "params": [0, 1, ...]}]}
// 1.13 writes the keys up to "capturable"; 2.x (torch/optim/adamw.py's defaults) adds differentiable
// and fused: the file follows AdamWOptions::version.
#pragma once

#include <filesystem>

#include "llmfs/nn/gpt_checkpoint.hpp"
#include "llmfs/train/loop.hpp"

namespace llmfs {

// optimizer.state_dict() as a Python value (exp_avg and exp_avg_sq of their parameter's shape in
// `model`); its tensors view the optimizer's state and `steps` (which must outlive the value).
PyRef adamw_state_dict(const GPTModel& model, AdamW& optimizer, std::vector<float>& steps);

// torch.save({"model_state_dict": ..., "optimizer_state_dict": ...}, path), atomically.
void save_checkpoint(const std::filesystem::path& path, const GPTModel& model, AdamW& optimizer);

// Whether the file holds an optimizer's state: {"model_state_dict", "optimizer_state_dict"}
// (model_and_optimizer.pth) and not a model's state dict alone (model.pth).
bool has_optimizer_state(const TorchStateDict& checkpoint);

// optimizer.load_state_dict(checkpoint["optimizer_state_dict"]): AdamW's state per parameter of
// `model`, and the saved lr, betas, eps and weight_decay (PyTorch's load_state_dict takes them from
// the file, whatever AdamW(...) was given). Everything is checked before anything changes. Throws
// std::runtime_error naming the file and what is wrong.
void load_adamw_state_dict(const TorchStateDict& checkpoint, const GPTModel& model, AdamW& optimizer);

// model.load_state_dict(checkpoint["model_state_dict"]); optimizer.load_state_dict(
// checkpoint["optimizer_state_dict"]): both, everything checked before anything changes.
void load_checkpoint(const TorchStateDict& checkpoint, GPTModel& model, AdamW& optimizer);
void load_checkpoint(const std::filesystem::path& path, GPTModel& model, AdamW& optimizer);

}  // namespace llmfs
