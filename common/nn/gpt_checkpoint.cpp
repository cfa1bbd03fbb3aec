#include "llmfs/nn/gpt_checkpoint.hpp"

#include <cstring>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "llmfs/nn/safetensors.hpp"

namespace llmfs {

namespace {

[[noreturn]] void fail(const std::string& file, const std::string& what, const std::string& hint) {
    throw std::runtime_error(fmt::format("{}: {}; {}", file, what, hint));
}

std::vector<std::uint64_t> dims(std::initializer_list<std::size_t> d) { return std::vector<std::uint64_t>(d.begin(), d.end()); }
std::string shape_string(const std::vector<std::uint64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

void add_linear(std::vector<GptStateEntry>& out, const std::string& name, const Linear& layer) {
    out.push_back({name + ".weight", const_cast<float*>(layer.weight.data.data()), dims({layer.out_features(), layer.in_features()})});
    if (layer.bias) out.push_back({name + ".bias", const_cast<float*>(layer.bias->data.data()), dims({layer.out_features()})});
}
void add_norm(std::vector<GptStateEntry>& out, const std::string& name, const LayerNorm& norm) {
    out.push_back({name + ".scale", const_cast<float*>(norm.scale.data.data()), dims({norm.scale.data.size()})});
    out.push_back({name + ".shift", const_cast<float*>(norm.shift.data.data()), dims({norm.shift.data.size()})});
}

// torch.triu(torch.ones(T, T), diagonal=1): [T, T]
std::vector<float> triu_mask(std::size_t T) {
    std::vector<float> m(T * T, 0.0f);
    for (std::size_t r = 0; r < T; ++r)
        for (std::size_t c = r + 1; c < T; ++c) m[r * T + c] = 1.0f;
    return m;
}

}  // namespace

std::vector<GptStateEntry> gpt_state_entries(const GPTModel& model) {
    const std::size_t T = model.pos_emb.weight.data.shape()[0];
    std::vector<GptStateEntry> out;
    out.push_back({"tok_emb.weight", const_cast<float*>(model.tok_emb.weight.data.data()), dims({model.tok_emb.weight.data.shape()[0], model.tok_emb.weight.data.shape()[1]})});
    out.push_back({"pos_emb.weight", const_cast<float*>(model.pos_emb.weight.data.data()), dims({T, model.pos_emb.weight.data.shape()[1]})});
    for (std::size_t l = 0; l < model.trf_blocks.size(); ++l) {
        const TransformerBlock& b = model.trf_blocks[l];
        const std::string p = fmt::format("trf_blocks.{}.", l);
        out.push_back({p + "att.mask", nullptr, dims({T, T}), true});  // register_buffer("mask", ...): before the sub-modules
        add_linear(out, p + "att.W_query", b.att.W_query);
        add_linear(out, p + "att.W_key", b.att.W_key);
        add_linear(out, p + "att.W_value", b.att.W_value);
        add_linear(out, p + "att.out_proj", b.att.out_proj);
        add_linear(out, p + "ff.layers.0", b.ff.fc1);
        add_linear(out, p + "ff.layers.2", b.ff.fc2);
        add_norm(out, p + "norm1", b.norm1);
        add_norm(out, p + "norm2", b.norm2);
    }
    add_norm(out, "final_norm", model.final_norm);
    add_linear(out, "out_head", model.out_head);
    return out;
}

PyRef gpt_state_dict(const GPTModel& model, std::vector<std::vector<float>>& masks, std::string_view shortcut_dropout) {
    const std::size_t T = model.pos_emb.weight.data.shape()[0];
    std::vector<std::pair<PyRef, PyRef>> entries;
    masks.clear();
    masks.reserve(model.trf_blocks.size());
    for (const auto& e : gpt_state_entries(model)) {
        const float* data = e.data;
        if (e.buffer) {
            masks.push_back(triu_mask(T));
            data = masks.back().data();
        }
        entries.emplace_back(PyValue::make_str(e.name), PyValue::make_tensor(data, e.shape));
    }
    // state_dict._metadata: {"version": 1} for every module of named_modules(), in that order.
    std::vector<std::string> modules = {"", "tok_emb", "pos_emb", "drop_emb", "trf_blocks"};
    for (std::size_t l = 0; l < model.trf_blocks.size(); ++l) {
        const std::string p = fmt::format("trf_blocks.{}", l);
        for (const char* m : {"", ".att", ".att.W_query", ".att.W_key", ".att.W_value", ".att.out_proj", ".att.dropout", ".ff", ".ff.layers",
                              ".ff.layers.0", ".ff.layers.1", ".ff.layers.2", ".norm1", ".norm2"})
            modules.push_back(p + m);
        modules.push_back(fmt::format("{}.{}", p, shortcut_dropout));
    }
    modules.insert(modules.end(), {"final_norm", "out_head"});
    std::vector<std::pair<PyRef, PyRef>> metadata;
    for (auto& m : modules)
        metadata.emplace_back(PyValue::make_str(std::move(m)), PyValue::make_dict({{PyValue::make_str("version"), PyValue::make_int(1)}}));
    PyRef state = PyValue::make_dict({{PyValue::make_str("_metadata"), PyValue::make_dict(std::move(metadata), true)}});
    return PyValue::make_dict(std::move(entries), true, std::move(state));
}

void save_state_dict(const std::filesystem::path& path, const GPTModel& model, std::string_view shortcut_dropout) {
    std::vector<std::vector<float>> masks;
    write_torch_save(path, *gpt_state_dict(model, masks, shortcut_dropout));
}

// ---- reading ------------------------------------------------------------------------------------

TorchStateDict TorchStateDict::open(const std::filesystem::path& path) { return TorchStateDict(TorchSaveFile::open(path)); }

TorchStateDict::TorchStateDict(TorchSaveFile file) : file_(std::move(file)) {
    const PyValue& root = file_.root();
    const std::string hint = "save it with torch.save(model.state_dict(), PATH) or torch.save({\"model_state_dict\": model.state_dict(), ...}, PATH)";
    if (!root.is_dict()) fail(name(), fmt::format("the file holds a {}, not a state dict", root.type_name()), hint);
    value_ = &root;
    if (const PyValue* inner = root.get("model_state_dict")) {
        if (!inner->is_dict()) fail(name(), fmt::format("\"model_state_dict\" is a {}, not a state dict", inner->type_name()), hint);
        value_ = inner;
    }
    for (const auto& [k, v] : value_->entries) {
        if (k->type != PyValue::Type::string)
            fail(name(), fmt::format("a state dict key of type {}", k->type_name()),
                 root.get("optimizer_state_dict") || root.get("state") ? "is it an optimizer's state dict alone? give the model's" : hint);
        if (v->type != PyValue::Type::tensor) fail(name(), fmt::format("entry \"{}\" is a {}, not a tensor", k->string, v->type_name()), hint);
        tensors_.emplace_back(k->string, &v->tensor);
    }
}

const TorchTensor* TorchStateDict::find(const std::string& name) const {
    for (const auto& [n, t] : tensors_)
        if (n == name) return t;
    return nullptr;
}

GPTConfig infer_gpt_config(const TorchStateDict& state, std::optional<std::size_t> n_heads, std::string* how) {
    const std::string hint = "is it the state dict of the book's GPTModel (keys tok_emb.weight, trf_blocks.0.att.W_query.weight, ...)?";
    const auto matrix = [&](const std::string& name) {
        const TorchTensor* t = state.find(name);
        if (t == nullptr) fail(state.name(), fmt::format("no tensor \"{}\"", name), hint);
        if (t->shape.size() != 2 || t->shape[0] == 0 || t->shape[1] == 0)
            fail(state.name(), fmt::format("tensor \"{}\" has shape {}, expected a non-empty matrix", name, shape_string(t->shape)), hint);
        return t->shape;
    };
    const auto tok = matrix("tok_emb.weight");  // [V, C]
    const auto pos = matrix("pos_emb.weight");  // [context_length, C]
    GPTConfig cfg;
    cfg.vocab_size = static_cast<std::size_t>(tok[0]);
    cfg.emb_dim = static_cast<std::size_t>(tok[1]);
    cfg.context_length = static_cast<std::size_t>(pos[0]);
    cfg.drop_rate = 0.0;
    if (pos[1] != tok[1])
        fail(state.name(), fmt::format("tensor \"pos_emb.weight\" has shape {}, the model expects [{}, {}]", shape_string(pos), pos[0], tok[1]), hint);
    if (cfg.vocab_size > (1u << 24) || cfg.emb_dim > (1u << 16) || cfg.context_length > (1u << 20))
        fail(state.name(), fmt::format("shapes {} and {} are beyond any GPT this suite runs", shape_string(tok), shape_string(pos)), hint);
    std::set<std::size_t> blocks;
    for (const auto& [name, t] : state.tensors()) {
        if (name.rfind("trf_blocks.", 0) != 0) continue;
        const std::string digits = name.substr(11, name.find('.', 11) == std::string::npos ? std::string::npos : name.find('.', 11) - 11);
        if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
        blocks.insert(static_cast<std::size_t>(std::stoul(digits)));
    }
    if (blocks.empty()) fail(state.name(), "no transformer blocks (tensors \"trf_blocks.0.*\")", hint);
    if (*blocks.rbegin() + 1 != blocks.size()) {
        std::size_t gap = 0;
        while (blocks.count(gap)) ++gap;
        fail(state.name(), fmt::format("blocks up to trf_blocks.{} but no trf_blocks.{}", *blocks.rbegin(), gap), "the state dict is not complete");
    }
    cfg.n_layers = blocks.size();
    cfg.qkv_bias = state.find("trf_blocks.0.att.W_query.bias") != nullptr;
    cfg.n_heads = gpt2_n_heads(state.name(), cfg.emb_dim, cfg.n_layers, n_heads, how);
    return cfg;
}

void load_state_dict(GPTModel& model, const TorchStateDict& state) {
    const std::string& file = state.name();
    const auto entries = gpt_state_entries(model);
    // Strict, as model.load_state_dict(...): the missing and the unexpected keys first.
    std::set<std::string> expected;
    for (const auto& e : entries) expected.insert(e.name);
    for (const auto& [name, t] : state.tensors())
        if (!expected.count(name))
            fail(file, fmt::format("unexpected key \"{}\" for the book's GPTModel", name),
                 name.find(".bias") != std::string::npos ? "was it saved with qkv_bias=True? the model's config must match the file's"
                                                         : "is it a state dict of the book's GPTModel (chapter 4)?");
    // Every tensor checked before anything is copied, in the model's order.
    std::vector<std::pair<const GptStateEntry*, const TorchTensor*>> copies;
    for (const auto& e : entries) {
        const TorchTensor* t = state.find(e.name);
        if (t == nullptr)
            fail(file, fmt::format("missing key \"{}\" of the book's GPTModel", e.name),
                 e.name.find(".bias") != std::string::npos ? "was it saved with qkv_bias=False? the model's config must match the file's"
                                                           : "the state dict is not complete");
        if (t->dtype != "float32")
            fail(file, fmt::format("tensor \"{}\" is {}; the suite loads float32", e.name, t->dtype),
                 "convert before saving: torch.save({k: v.float() for k, v in model.state_dict().items()}, PATH)");
        if (t->shape != e.shape)
            fail(file, fmt::format("tensor \"{}\" has shape {}, the model expects {}", e.name, shape_string(t->shape), shape_string(e.shape)),
                 "the file does not fit the model's config (vocab_size, emb_dim, context_length, n_layers, qkv_bias)");
        if (e.buffer) {
            const auto mask = triu_mask(static_cast<std::size_t>(e.shape[0]));
            if (std::memcmp(t->data, mask.data(), mask.size() * sizeof(float)) != 0)
                fail(file, fmt::format("tensor \"{}\" is not the causal mask torch.triu(torch.ones({}, {}), diagonal=1)", e.name, e.shape[0], e.shape[0]),
                     "this suite's attention always masks causally, as the book's does with its own mask");
            continue;
        }
        copies.emplace_back(&e, t);
    }
    // param.copy_(input_param): memcpy, as the file's data may not be aligned for a float.
    for (const auto& [e, t] : copies) std::memcpy(e->data, t->data, static_cast<std::size_t>(t->nbytes()));
}

}  // namespace llmfs
