#include "llmfs/text/pandas_repr.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "llmfs/text/python_text.hpp"

namespace llmfs {

namespace {

constexpr std::size_t kMaxRows = 60;     // display.max_rows
constexpr std::size_t kMinRows = 10;     // display.min_rows: 5 at the top, 5 at the bottom
constexpr std::size_t kMaxColwidth = 50;  // display.max_colwidth

std::string rjust(const std::string& s, std::size_t width) {
    const std::size_t n = count_characters(s);
    return n >= width ? s : std::string(width - n, ' ') + s;
}

std::string ljust(const std::string& s, std::size_t width) {
    const std::size_t n = count_characters(s);
    return n >= width ? s : s + std::string(width - n, ' ');
}

// pprint_thing(v, escape_chars=("\t", "\r", "\n")): those three shown as \t, \r, \n
std::string escaped(const std::string& s) {
    std::string out;
    for (const char c : s) {
        if (c == '\t') out += "\\t";
        else if (c == '\r') out += "\\r";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
    return out;
}

// _make_fixed_width(strings, justify, minimum): the widest (at least `minimum`), capped at
// max_colwidth; a longer string cut to width - 3 characters and "..."; then justified.
std::vector<std::string> make_fixed_width(std::vector<std::string> strings, bool right, std::size_t minimum = 0) {
    if (strings.empty()) return strings;
    std::size_t max_len = minimum;
    for (const auto& s : strings) max_len = std::max(max_len, count_characters(s));
    max_len = std::min(max_len, kMaxColwidth);
    for (auto& s : strings) {
        if (count_characters(s) > max_len) s = s.substr(0, byte_offset(s, max_len - 3)) + "...";
        s = right ? rjust(s, max_len) : ljust(s, max_len);
    }
    return strings;
}

}  // namespace

std::string dataframe_repr(const std::vector<std::int64_t>& index, const std::vector<FrameColumn>& columns) {
    const std::size_t n = index.size();
    for (const FrameColumn& c : columns) {
        const std::size_t len = std::visit([](const auto& v) { return v.size(); }, c.values);
        if (len != n)
            throw std::invalid_argument(fmt::format("dataframe_repr: column '{}' has {} values, the index {}", c.name, len, n));
    }
    // The rows shown: all, or the first and last min_rows / 2 with the dots between (tr_row_num).
    const bool truncated = n > kMaxRows;
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < n; ++i)
        if (!truncated || i < kMinRows / 2 || i >= n - kMinRows / 2) rows.push_back(i);
    const std::size_t dots_at = kMinRows / 2;  // the dots row's position among the data rows

    // Each column of text, its header first: the index (left-justified, a blank header), then the columns.
    std::vector<std::vector<std::string>> strcols;
    {
        std::vector<std::string> labels;
        for (const std::size_t i : rows) labels.push_back(std::to_string(index[i]));
        labels = make_fixed_width(labels, false);
        labels.insert(labels.begin(), "");
        strcols.push_back(std::move(labels));
    }
    for (const FrameColumn& c : columns) {
        std::vector<std::string> values;
        bool numeric = false;
        if (const auto* ints = std::get_if<std::vector<std::int64_t>>(&c.values)) {
            numeric = true;
            for (const std::size_t i : rows) values.push_back(fmt::format("{: d}", (*ints)[i]));  // f"{x: d}"
        } else {
            const auto& objects = std::get<std::vector<std::optional<std::string>>>(c.values);
            for (const std::size_t i : rows) values.push_back(" " + (objects[i] ? escaped(*objects[i]) : std::string("NaN")));
        }
        values = make_fixed_width(values, true);  // format_array
        const std::string header = numeric ? " " + c.name : c.name;
        values = make_fixed_width(values, true, count_characters(header));  // _to_str_columns, the header's width the minimum
        std::size_t width = count_characters(header);
        for (const auto& v : values) width = std::max(width, count_characters(v));
        values.insert(values.begin(), rjust(header, width));
        strcols.push_back(std::move(values));
    }
    if (truncated) {  // _insert_dot_separator_vertical
        for (std::size_t k = 0; k < strcols.size(); ++k) {
            const std::size_t width = count_characters(strcols[k][dots_at]);
            const std::string dots = width > 3 ? "..." : "..";
            strcols[k].insert(strcols[k].begin() + 1 + static_cast<std::ptrdiff_t>(dots_at), k == 0 ? ljust(dots, width) : rjust(dots, width));
        }
    }
    // adjoin(1, *strcols): each column but the last left-justified to its widest plus one space
    std::string out;
    const std::size_t lines = strcols.front().size();
    std::vector<std::size_t> widths;
    for (const auto& col : strcols) {
        std::size_t w = 0;
        for (const auto& s : col) w = std::max(w, count_characters(s));
        widths.push_back(w + 1);
    }
    for (std::size_t line = 0; line < lines; ++line) {
        if (line > 0) out += '\n';
        for (std::size_t k = 0; k < strcols.size(); ++k)
            out += k + 1 < strcols.size() ? ljust(strcols[k][line], widths[k]) : strcols[k][line];
    }
    if (truncated) out += fmt::format("\n\n[{} rows x {} columns]", n, columns.size());
    return out;
}

}  // namespace llmfs
