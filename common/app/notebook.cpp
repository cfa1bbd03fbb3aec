#include "llmfs/app/notebook.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace llmfs {

std::string with_commas(std::size_t n) {
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string to_text(const std::vector<std::int64_t>& list) { return fmt::format("[{}]", fmt::join(list, ", ")); }

std::string ipython_repr(const StateDict& state) {
    if (state.empty()) return "OrderedDict()";
    constexpr std::size_t kWidth = 79, kIndent = 13;  // pretty's max_width; len("OrderedDict([")
    std::vector<std::string> items;  // ('name', tensor(...)) on one line
    std::vector<std::string> tensors;
    bool one_line = true;
    for (const auto& [name, value] : state) {
        tensors.push_back(repr(value));
        items.push_back("('" + name + "', " + tensors.back() + ")");
        one_line = one_line && tensors.back().find('\n') == std::string::npos;
    }
    const std::string flat = fmt::format("OrderedDict([{}])", fmt::join(items, ", "));
    if (one_line && flat.size() <= kWidth) return flat;

    // Broken: one item per line at the list's indentation; an item that does not fit (a multi-line
    // tensor always) breaks after its key, its tensor's lines indented one more.
    const std::string item_sep = ",\n" + std::string(kIndent, ' ');
    std::string out = "OrderedDict([";
    for (std::size_t i = 0; i < state.size(); ++i) {
        if (i) out += item_sep;
        const std::size_t closing = i + 1 == state.size() ? 2 : 1;  // "])" or ","
        if (tensors[i].find('\n') == std::string::npos && kIndent + items[i].size() + closing <= kWidth) {
            out += items[i];
            continue;
        }
        std::string lines = tensors[i];
        for (std::size_t at = 0; (at = lines.find('\n', at)) != std::string::npos; at += kIndent + 2)
            lines.insert(at + 1, std::string(kIndent + 1, ' '));
        out += "('" + state[i].first + "',\n" + std::string(kIndent + 1, ' ') + lines + ")";
    }
    return out + "])";
}

}  // namespace llmfs
