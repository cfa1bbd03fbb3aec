#include "llmfs/nn/module.hpp"

#include <fmt/format.h>

namespace llmfs {

namespace {

// torch.nn.modules.module._addindent: indents every line but the first.
std::string add_indent(const std::string& s, int spaces) {
    std::string out;
    for (char c : s) {
        out += c;
        if (c == '\n') out.append(static_cast<std::size_t>(spaces), ' ');
    }
    return out;
}

std::string join_lines(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& line : lines) out += "\n  " + line;
    return out + "\n";
}

// Module.__repr__
std::string module_text(const ModuleRepr& m) {
    std::vector<std::string> lines;
    std::size_t extra_lines = 0;
    if (!m.extra_repr.empty()) {
        std::string::size_type start = 0, end;
        while ((end = m.extra_repr.find('\n', start)) != std::string::npos) {
            lines.push_back(m.extra_repr.substr(start, end - start));
            start = end + 1;
        }
        lines.push_back(m.extra_repr.substr(start));
        extra_lines = lines.size();
    }
    for (const auto& [key, child] : m.children) lines.push_back("(" + key + "): " + add_indent(repr(child), 2));
    std::string main = m.name + "(";
    if (extra_lines == 1 && m.children.empty()) main += lines.front();
    else if (!lines.empty()) main += join_lines(lines);
    return main + ")";
}

// ModuleList.__repr__ of PyTorch 2.x: runs of equal children print once, as "(i-j): n x ...".
std::string module_list_text(const ModuleRepr& m) {
    if (m.children.empty()) return m.name + "()";
    std::vector<std::string> lines;
    for (std::size_t start = 0; start < m.children.size();) {
        const std::string block = repr(m.children[start].second);
        std::size_t end = start;
        while (end + 1 < m.children.size() && repr(m.children[end + 1].second) == block) ++end;
        const std::string local = start == end ? fmt::format("({}): {}", start, block)
                                               : fmt::format("({}-{}): {} x {}", start, end, end - start + 1, block);
        lines.push_back(add_indent(local, 2));
        start = end + 1;
    }
    return m.name + "(" + join_lines(lines) + ")";
}

ModuleRepr leaf(std::string name, std::string extra_repr = {}) { return {std::move(name), std::move(extra_repr), {}, false}; }

ModuleRepr sequence(std::string name, std::vector<ModuleRepr> items, bool module_list) {
    ModuleRepr m{std::move(name), {}, {}, module_list};
    for (std::size_t i = 0; i < items.size(); ++i) m.children.emplace_back(std::to_string(i), std::move(items[i]));
    return m;
}

}  // namespace

std::string repr(const ModuleRepr& module) { return module.module_list ? module_list_text(module) : module_text(module); }

void rename_children(ModuleRepr& module, const std::string& from, const std::string& to) {
    for (auto& [name, child] : module.children) {
        if (name == from) name = to;
        rename_children(child, from, to);
    }
}

ModuleRepr module_repr(const Linear& linear) {
    ModuleRepr plain = leaf("Linear", fmt::format("in_features={}, out_features={}, bias={}", linear.in_features(),
                                                  linear.out_features(), linear.bias ? "True" : "False"));
    if (!linear.lora) return plain;
    // appendix E's LinearWithLoRA: children linear, lora (LoRALayer has no extra_repr)
    const char* name = linear.lora->form == LoRAForm::merged ? "LinearWithLoRAMerged" : "LinearWithLoRA";
    return {name, {}, {{"linear", std::move(plain)}, {"lora", leaf("LoRALayer")}}, false};
}

ModuleRepr module_repr(const Dropout& dropout) { return leaf("Dropout", "p=" + python_float_repr(dropout.p()) + ", inplace=False"); }

ModuleRepr module_repr(const LayerNorm&) { return leaf("LayerNorm"); }  // the book's LayerNorm has no extra_repr

ModuleRepr module_repr(const Embedding& embedding) {
    return leaf("Embedding", fmt::format("{}, {}", embedding.weight.size(0), embedding.weight.size(1)));
}

ModuleRepr module_repr(const CausalAttention& a) {
    return {"CausalAttention", {},
            {{"W_query", module_repr(a.W_query)}, {"W_key", module_repr(a.W_key)}, {"W_value", module_repr(a.W_value)},
             {"dropout", module_repr(a.dropout)}},
            false};
}

ModuleRepr module_repr(const MultiHeadAttentionWrapper& wrapper) {
    std::vector<ModuleRepr> heads;
    for (const auto& head : wrapper.heads) heads.push_back(module_repr(head));
    return {"MultiHeadAttentionWrapper", {}, {{"heads", sequence("ModuleList", std::move(heads), true)}}, false};
}

ModuleRepr module_repr(const MultiHeadAttention& a) {
    return {"MultiHeadAttention", {},
            {{"W_query", module_repr(a.W_query)}, {"W_key", module_repr(a.W_key)}, {"W_value", module_repr(a.W_value)},
             {"out_proj", module_repr(a.out_proj)}, {"dropout", module_repr(a.dropout)}},
            false};
}

ModuleRepr module_repr(const FeedForward& ff) {
    // self.layers = nn.Sequential(nn.Linear(C, 4C), GELU(), nn.Linear(4C, C))
    return {"FeedForward", {}, {{"layers", sequence("Sequential", {module_repr(ff.fc1), leaf("GELU"), module_repr(ff.fc2)}, false)}}, false};
}

ModuleRepr module_repr(const TransformerBlock& b) {
    return {"TransformerBlock", {},
            {{"att", module_repr(b.att)}, {"ff", module_repr(b.ff)}, {"norm1", module_repr(b.norm1)},
             {"norm2", module_repr(b.norm2)}, {"drop_shortcut", module_repr(b.drop_shortcut)}},
            false};
}

ModuleRepr module_repr(const GPTModel& model) {
    std::vector<ModuleRepr> blocks;
    for (const auto& block : model.trf_blocks) blocks.push_back(module_repr(block));
    return {"GPTModel", {},
            {{"tok_emb", module_repr(model.tok_emb)}, {"pos_emb", module_repr(model.pos_emb)},
             {"drop_emb", module_repr(model.drop_emb)}, {"trf_blocks", sequence("Sequential", std::move(blocks), false)},
             {"final_norm", module_repr(model.final_norm)}, {"out_head", module_repr(model.out_head)}},
            false};
}

}  // namespace llmfs
