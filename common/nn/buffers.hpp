// ch03/03_understanding-buffers (the book's bonus notebook): why chapter 3 registers the causal
// mask with register_buffer. The notebook's two classes are chapter 3's CausalAttention with the
// mask as a float tensor, torch.triu(torch.ones(T, T), diagonal=1), kept
//   - as a plain attribute (CausalAttentionWithoutBuffers): model.to(device) does not move it, and
//     state_dict() does not contain it, so a changed mask is not saved;
//   - as a registered buffer (CausalAttentionWithBuffer): it moves with the module and is saved and
//     loaded with the weights.
// Here there is one device, the CPU; what stays visible is the state_dict difference.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <xtensor/xarray.hpp>

#include "llmfs/nn/layers.hpp"

namespace llmfs {

// module.state_dict(): names and detached copies of the values, in PyTorch's order: a module's own
// parameters, then its own persistent buffers, then each child's, recursively ("W_query.weight").
using StateDict = std::vector<std::pair<std::string, xt::xarray<float>>>;

struct CausalAttentionWithoutBuffers {
    std::size_t d_out;
    Linear W_query, W_key, W_value;  // d_in -> d_out each
    Dropout dropout;
    Array<2> mask;  // [context_length, context_length] self.mask = torch.triu(torch.ones(T, T), diagonal=1)

    CausalAttentionWithoutBuffers(Generator& gen, std::size_t d_in, std::size_t d_out, std::size_t context_length,
                                  double dropout, bool qkv_bias = false);
    virtual ~CausalAttentionWithoutBuffers() = default;
    CausalAttentionWithoutBuffers(const CausalAttentionWithoutBuffers&) = default;
    CausalAttentionWithoutBuffers& operator=(const CausalAttentionWithoutBuffers&) = default;

    // x [B, T, d_in] -> [B, T, d_out]: chapter 3's forward with self.mask.bool()[:T, :T], so any
    // nonzero entry masks (the notebook's mask of 2s masks as its mask of 1s did).
    Tensor<3> forward(const Tensor<3>& x) const;
    StateDict state_dict() const;
    // load_state_dict(state) with strict=True: the names must be state_dict()'s, the shapes too;
    // otherwise std::invalid_argument naming the missing, unexpected or mismatched keys.
    void load_state_dict(const StateDict& state);

    // Whether the mask is a registered buffer (in state_dict()) or a plain attribute (not).
    virtual bool mask_is_buffer() const { return false; }
};

struct CausalAttentionWithBuffer : CausalAttentionWithoutBuffers {
    using CausalAttentionWithoutBuffers::CausalAttentionWithoutBuffers;

    // self.register_buffer("mask", ...): in state_dict(), first (the module has no parameters of
    // its own, and its buffers come before its children's parameters).
    bool mask_is_buffer() const override { return true; }
};

}  // namespace llmfs
