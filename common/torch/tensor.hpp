// The tensor type the chapter programs use: numbers plus the one piece of autograd state that
// print() shows (`grad_fn=<MmBackward0>`, `requires_grad=True`).
//
// Dimension letters used throughout the project (after llm.c's train_gpt2.c):
//   B  batch size                      T  tokens in a sequence (num_tokens, context_length)
//   C  channels: d_in, d_out, emb_dim  NH number of heads      hs  head size (head_dim = C / NH)
//   V  vocabulary size
// Every tensor argument and member carries a shape comment in these letters.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include <xtensor/xtensor.hpp>

#include "llmfs/torch/print.hpp"

namespace llmfs {

// A row-major float32 array of rank N: the storage of every tensor here.
template <std::size_t N>
using Array = xt::xtensor<float, N>;
template <std::size_t N>
using BoolArray = xt::xtensor<bool, N>;
// Token ids, torch.int64.
template <std::size_t N>
using IdArray = xt::xtensor<std::int64_t, N>;

template <std::size_t N>
struct Tensor {
    Array<N> data;
    bool requires_grad = false;  // a leaf autograd tracks (nn.Parameter, nn.Linear.weight)
    std::string grad_fn;         // autograd node that produced it, e.g. "MmBackward0"; "" for leaves

    Tensor() = default;
    // A plain tensor (torch.tensor(...)): no autograd history.
    Tensor(Array<N> values) : data(std::move(values)) {}  // NOLINT: implicit on purpose
    Tensor(Array<N> values, std::string node) : data(std::move(values)), grad_fn(std::move(node)) {}

    // A leaf that requires grad, like nn.Parameter(...).
    static Tensor parameter(Array<N> values) {
        Tensor t(std::move(values));
        t.requires_grad = true;
        return t;
    }

    // Whether autograd records operations on it (so results get a grad_fn).
    bool tracks_grad() const { return requires_grad || !grad_fn.empty(); }
    Shape shape() const { return Shape(data.shape().begin(), data.shape().end()); }
    std::size_t size(int dim) const {
        return data.shape()[dim < 0 ? static_cast<std::size_t>(dim + static_cast<int>(N)) : static_cast<std::size_t>(dim)];
    }
};

// The suffixes PyTorch prints after a tensor's values.
template <std::size_t N>
std::vector<std::string> autograd_suffixes(const Tensor<N>& t) {
    if (!t.grad_fn.empty()) return {"grad_fn=<" + t.grad_fn + ">"};
    if (t.requires_grad) return {"requires_grad=True"};
    return {};
}

// print(t)
template <std::size_t N>
std::string repr(const Tensor<N>& t) {
    return format_tensor(t.shape(), t.data.data(), autograd_suffixes(t));
}

// print(p) for an nn.Parameter
template <std::size_t N>
std::string repr_parameter(const Tensor<N>& t) {
    return "Parameter containing:\n" + repr(t);
}

// t.shape, printed as torch.Size([...])
struct Size {
    Shape dims;
};
template <std::size_t N>
Size shape_of(const Tensor<N>& t) {
    return Size{t.shape()};
}
inline std::string repr(const Size& s) { return format_size(s.dims); }

}  // namespace llmfs
