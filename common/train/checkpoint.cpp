#include "llmfs/train/checkpoint.hpp"

#include <cstring>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace llmfs {

namespace {

[[noreturn]] void fail(const std::string& file, const std::string& what,
                       const std::string& hint = "save it as the book does: torch.save({\"model_state_dict\": model.state_dict(), "
                                                 "\"optimizer_state_dict\": optimizer.state_dict()}, PATH)") {
    throw std::runtime_error(fmt::format("{}: {}; {}", file, what, hint));
}

// The model's parameters (not the mask buffers), in model.parameters() order.
std::vector<GptStateEntry> parameters(const GPTModel& model) {
    std::vector<GptStateEntry> out;
    for (auto& e : gpt_state_entries(model))
        if (!e.buffer) out.push_back(std::move(e));
    return out;
}

PyRef str(const char* s) { return PyValue::make_str(s); }

}  // namespace

PyRef adamw_state_dict(const GPTModel& model, AdamW& optimizer, std::vector<float>& steps) {
    auto& state = optimizer.state();
    const auto params = parameters(model);
    if (params.size() != state.size()) throw std::logic_error("adamw_state_dict: the optimizer is not over this model");
    steps.assign(state.size(), 0.0f);
    std::vector<std::pair<PyRef, PyRef>> per_param;
    std::vector<PyRef> indices;
    for (std::size_t i = 0; i < state.size(); ++i) {
        indices.push_back(PyValue::make_int(static_cast<std::int64_t>(i)));
        if (state[i].exp_avg.empty()) continue;  // never stepped: no entry, as in PyTorch
        steps[i] = state[i].step;
        const auto& shape = params[i].shape;
        per_param.emplace_back(PyValue::make_int(static_cast<std::int64_t>(i)),
                               PyValue::make_dict({{str("step"), PyValue::make_tensor(&steps[i], {})},
                                                   {str("exp_avg"), PyValue::make_tensor(state[i].exp_avg.data(), shape)},
                                                   {str("exp_avg_sq"), PyValue::make_tensor(state[i].exp_avg_sq.data(), shape)}}));
    }
    const AdamWOptions& o = optimizer.options();
    std::vector<std::pair<PyRef, PyRef>> group = {
        {str("lr"), PyValue::make_float(o.lr)},
        {str("betas"), PyValue::make_tuple({PyValue::make_float(o.beta1), PyValue::make_float(o.beta2)})},
        {str("eps"), PyValue::make_float(o.eps)},
        {str("weight_decay"), PyValue::make_float(o.weight_decay)},
        {str("amsgrad"), PyValue::make_bool(false)},
        {str("foreach"), PyValue::make_none()},
        {str("maximize"), PyValue::make_bool(false)},
        {str("capturable"), PyValue::make_bool(false)}};
    if (o.version == PyTorchVersion::v2) {
        group.emplace_back(str("differentiable"), PyValue::make_bool(false));
        group.emplace_back(str("fused"), PyValue::make_none());
    }
    group.emplace_back(str("params"), PyValue::make_list(std::move(indices)));
    return PyValue::make_dict({{str("state"), PyValue::make_dict(std::move(per_param))},
                               {str("param_groups"), PyValue::make_list({PyValue::make_dict(std::move(group))})}});
}

void save_checkpoint(const std::filesystem::path& path, const GPTModel& model, AdamW& optimizer) {
    std::vector<std::vector<float>> masks;
    std::vector<float> steps;
    // The state dict's tensors first (keys 0, 1, ...), then the optimizer's, as torch.save meets them.
    const PyRef root = PyValue::make_dict({{str("model_state_dict"), gpt_state_dict(model, masks)},
                                           {str("optimizer_state_dict"), adamw_state_dict(model, optimizer, steps)}});
    write_torch_save(path, *root);
}

namespace {

// optimizer.state_dict() as load_state_dict reads it: every check made, nothing changed yet.
struct LoadedAdamW {
    std::vector<AdamWState> state;
    AdamWOptions options;
};

LoadedAdamW read_adamw_state_dict(const TorchStateDict& checkpoint, const GPTModel& model, const AdamW& optimizer) {
    const std::string& file = checkpoint.name();
    const PyValue* opt = checkpoint.file().root().get("optimizer_state_dict");
    if (opt == nullptr) fail(file, "no \"optimizer_state_dict\" (it is a model's state dict alone)");
    if (!opt->is_dict()) fail(file, fmt::format("\"optimizer_state_dict\" is a {}, not a dict", opt->type_name()));
    const auto params = parameters(model);
    const std::size_t n = params.size();
    // param_groups: one group of AdamW over every parameter, in order.
    const PyValue* groups = opt->get("param_groups");
    if (groups == nullptr || groups->type != PyValue::Type::list || groups->items.size() != 1 || !groups->items[0]->is_dict())
        fail(file, "\"param_groups\" is not a list of one dict (the book's AdamW has one parameter group)");
    const PyValue& g = *groups->items[0];
    const auto number = [&](const PyValue* v, const char* key) {
        if (v != nullptr && v->type == PyValue::Type::floating) return v->floating;
        if (v != nullptr && v->type == PyValue::Type::integer) return static_cast<double>(v->integer);
        fail(file, fmt::format("param_groups[0][\"{}\"] is {}, not a number", key, v == nullptr ? "missing" : v->type_name()));
    };
    AdamWOptions options = optimizer.options();
    options.lr = number(g.get("lr"), "lr");
    options.eps = number(g.get("eps"), "eps");
    options.weight_decay = number(g.get("weight_decay"), "weight_decay");
    const PyValue* betas = g.get("betas");
    if (betas == nullptr || betas->type != PyValue::Type::tuple || betas->items.size() != 2) fail(file, "param_groups[0][\"betas\"] is not a pair");
    options.beta1 = number(betas->items[0].get(), "betas");
    options.beta2 = number(betas->items[1].get(), "betas");
    for (const char* flag : {"amsgrad", "maximize"}) {
        const PyValue* v = g.get(flag);
        if (v != nullptr && !(v->type == PyValue::Type::boolean && !v->boolean))
            fail(file, fmt::format("param_groups[0][\"{}\"] is set; the suite's AdamW is the book's, without {}", flag, flag),
                 "train with torch.optim.AdamW's defaults for it");
    }
    const PyValue* ids = g.get("params");
    if (ids == nullptr || ids->type != PyValue::Type::list) fail(file, "param_groups[0][\"params\"] is not a list");
    if (ids->items.size() != n)
        fail(file, fmt::format("the optimizer's state is for {} parameters, the model has {}", ids->items.size(), n),
             "the checkpoint does not fit the model's config (n_layers, qkv_bias)");
    for (std::size_t i = 0; i < n; ++i)
        if (ids->items[i]->type != PyValue::Type::integer || ids->items[i]->integer != static_cast<std::int64_t>(i))
            fail(file, fmt::format("param_groups[0][\"params\"][{}] is not {}", i, i));
    // state: {i: {"step", "exp_avg", "exp_avg_sq"}} for the parameters stepped so far.
    const PyValue* state = opt->get("state");
    if (state == nullptr || !state->is_dict()) fail(file, "\"optimizer_state_dict\" has no \"state\" dict");
    std::vector<AdamWState> loaded(n);
    for (const auto& [k, v] : state->entries) {
        if (k->type != PyValue::Type::integer || k->integer < 0 || static_cast<std::uint64_t>(k->integer) >= n)
            fail(file, fmt::format("optimizer state entry {} is not a parameter index 0..{}", k->type == PyValue::Type::integer ? std::to_string(k->integer) : k->type_name(), n - 1));
        const std::size_t i = static_cast<std::size_t>(k->integer);
        const std::string where = fmt::format("optimizer state of parameter {} ({})", i, params[i].name);
        if (!v->is_dict()) fail(file, where + " is not a dict");
        const PyValue* step = v->get("step");
        if (step != nullptr && step->type == PyValue::Type::tensor && step->tensor.dtype == "float32" && step->tensor.numel() == 1) {
            std::memcpy(&loaded[i].step, step->tensor.data, sizeof(float));
        } else if (step != nullptr && (step->type == PyValue::Type::integer || step->type == PyValue::Type::floating)) {
            loaded[i].step = static_cast<float>(step->type == PyValue::Type::integer ? static_cast<double>(step->integer) : step->floating);
        } else {
            fail(file, where + ": \"step\" is not a float32 scalar tensor or a number");
        }
        for (const char* key : {"exp_avg", "exp_avg_sq"}) {
            const PyValue* t = v->get(key);
            if (t == nullptr || t->type != PyValue::Type::tensor) fail(file, fmt::format("{}: no tensor \"{}\"", where, key));
            if (t->tensor.dtype != "float32") fail(file, fmt::format("{}: \"{}\" is {}, not float32", where, key, t->tensor.dtype));
            if (t->tensor.shape != params[i].shape)
                fail(file, fmt::format("{}: \"{}\" has shape [{}], the parameter has [{}]", where, key, fmt::join(t->tensor.shape, ", "),
                                       fmt::join(params[i].shape, ", ")),
                     "the checkpoint does not fit the model's config");
            auto& dst = std::string(key) == "exp_avg" ? loaded[i].exp_avg : loaded[i].exp_avg_sq;
            dst.resize(static_cast<std::size_t>(t->tensor.numel()));
            std::memcpy(dst.data(), t->tensor.data, static_cast<std::size_t>(t->tensor.nbytes()));
        }
    }
    if (optimizer.state().size() != n) throw std::logic_error("load_checkpoint: the optimizer is not over this model");
    return {std::move(loaded), options};
}

}  // namespace

bool has_optimizer_state(const TorchStateDict& checkpoint) { return checkpoint.file().root().get("optimizer_state_dict") != nullptr; }

void load_adamw_state_dict(const TorchStateDict& checkpoint, const GPTModel& model, AdamW& optimizer) {
    LoadedAdamW loaded = read_adamw_state_dict(checkpoint, model, optimizer);
    optimizer.state() = std::move(loaded.state);
    optimizer.options() = loaded.options;
}

void load_checkpoint(const TorchStateDict& checkpoint, GPTModel& model, AdamW& optimizer) {
    LoadedAdamW loaded = read_adamw_state_dict(checkpoint, model, optimizer);
    load_state_dict(model, checkpoint);  // checks everything before it copies
    optimizer.state() = std::move(loaded.state);
    optimizer.options() = loaded.options;
}

void load_checkpoint(const std::filesystem::path& path, GPTModel& model, AdamW& optimizer) {
    load_checkpoint(TorchStateDict::open(path), model, optimizer);
}

}  // namespace llmfs
