#include "llmfs/nn/buffers.hpp"

#include <algorithm>
#include <stdexcept>
#include <type_traits>

#include <xtensor/xadapt.hpp>

#include "llmfs/nn/attention.hpp"

namespace llmfs {

CausalAttentionWithoutBuffers::CausalAttentionWithoutBuffers(Generator& gen, std::size_t d_in, std::size_t d_out_,
                                                             std::size_t context_length, double dropout_p, bool qkv_bias)
    : d_out(d_out_),
      W_query(gen, d_in, d_out_, qkv_bias),
      W_key(gen, d_in, d_out_, qkv_bias),
      W_value(gen, d_in, d_out_, qkv_bias),
      dropout(gen, dropout_p),
      mask(xt::cast<float>(causal_mask(context_length))) {}

Tensor<3> CausalAttentionWithoutBuffers::forward(const Tensor<3>& x) const {
    return causal_attention_forward(W_query, W_key, W_value, dropout, xt::eval(xt::not_equal(mask, 0.0f)), x);  // mask.bool()
}

namespace {

// One tensor of the state: its name, its values (const or not, as the module), its shape.
template <class Float>
struct Entry {
    std::string name;
    Float* data;
    std::vector<std::size_t> shape;
};

// What state_dict() holds, in its order.
template <class Module, class Float = std::conditional_t<std::is_const_v<Module>, const float, float>>
std::vector<Entry<Float>> state_entries(Module& m) {
    std::vector<Entry<Float>> entries;
    if (m.mask_is_buffer()) entries.push_back({"mask", m.mask.data(), {m.mask.shape()[0], m.mask.shape()[1]}});
    for (auto [name, linear] : {std::pair{"W_query", &m.W_query}, {"W_key", &m.W_key}, {"W_value", &m.W_value}}) {
        auto& w = linear->weight.data;
        entries.push_back({std::string(name) + ".weight", w.data(), {w.shape()[0], w.shape()[1]}});
        if (linear->bias) entries.push_back({std::string(name) + ".bias", linear->bias->data.data(), {linear->bias->data.size()}});
    }
    return entries;  // dropout has no state
}

}  // namespace

StateDict CausalAttentionWithoutBuffers::state_dict() const {
    StateDict state;
    for (const auto& e : state_entries(*this)) {
        std::size_t n = 1;
        for (std::size_t d : e.shape) n *= d;
        state.emplace_back(e.name, xt::xarray<float>(xt::adapt(e.data, n, xt::no_ownership(), e.shape)));
    }
    return state;
}

void CausalAttentionWithoutBuffers::load_state_dict(const StateDict& state) {
    const auto entries = state_entries(*this);
    auto in_state = [&](const std::string& name) {
        return std::find_if(state.begin(), state.end(), [&](const auto& kv) { return kv.first == name; });
    };
    std::string missing, unexpected, mismatched;
    for (const auto& e : entries) {
        const auto it = in_state(e.name);
        if (it == state.end()) {
            missing += (missing.empty() ? "\"" : ", \"") + e.name + "\"";
        } else if (!std::equal(e.shape.begin(), e.shape.end(), it->second.shape().begin(), it->second.shape().end())) {
            mismatched += "\n\tsize mismatch for " + e.name + ": copying a param with shape " + format_size(Shape(it->second.shape().begin(), it->second.shape().end())) +
                          " from checkpoint, the shape in current model is " + format_size(e.shape) + ".";
        }
    }
    for (const auto& entry : state) {  // (not a structured binding: C++17 lambdas cannot capture one)
        const std::string& name = entry.first;
        if (std::none_of(entries.begin(), entries.end(), [&](const auto& e) { return e.name == name; }))
            unexpected += (unexpected.empty() ? "\"" : ", \"") + name + "\"";
    }
    if (!missing.empty() || !unexpected.empty() || !mismatched.empty()) {
        throw std::invalid_argument(std::string("Error(s) in loading state_dict for ") +
                                    (mask_is_buffer() ? "CausalAttentionWithBuffer" : "CausalAttentionWithoutBuffers") + ":" +
                                    (missing.empty() ? "" : "\n\tMissing key(s) in state_dict: " + missing + ".") +
                                    (unexpected.empty() ? "" : "\n\tUnexpected key(s) in state_dict: " + unexpected + ".") + mismatched);
    }
    for (const auto& e : entries) {
        const auto& value = in_state(e.name)->second;
        std::copy(value.begin(), value.end(), e.data);
    }
}

}  // namespace llmfs
