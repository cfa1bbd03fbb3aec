#include "llmfs/torch/numpy_print.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <stdexcept>

namespace llmfs {

namespace {

constexpr int kPrecision = 8;           // np.get_printoptions()["precision"]
constexpr std::size_t kThreshold = 1000;  // ["threshold"]: more elements are summarized
constexpr std::size_t kEdgeItems = 3;     // ["edgeitems"]
constexpr std::size_t kLineWidth = 75;    // ["linewidth"]

std::string chars(float value, std::chars_format format) {
    char buffer[64];
    const auto r = std::to_chars(buffer, buffer + sizeof buffer, value, format);  // shortest float32 round trip
    return std::string(buffer, r.ptr);
}

std::string chars(double value, std::chars_format format, int precision) {
    char buffer[128];
    const auto r = std::to_chars(buffer, buffer + sizeof buffer, value, format, precision);  // correctly rounded
    return std::string(buffer, r.ptr);
}

// Dragon4's unique digits, at most kPrecision after the point, trailing zeros dropped: "-0.11010301",
// "1." (positional); {"2.5", "+03"} (scientific: mantissa and exponent).
struct Digits {
    std::string integer, fraction, exponent;  // exponent: "" (positional) or "-05"
};

void drop_trailing_zeros(std::string& s) {
    while (!s.empty() && s.back() == '0') s.pop_back();
}

Digits positional(float x) {
    std::string s = chars(x, std::chars_format::fixed);
    std::size_t dot = s.find('.');
    if (dot != std::string::npos && s.size() - dot - 1 > static_cast<std::size_t>(kPrecision)) {
        s = chars(static_cast<double>(x), std::chars_format::fixed, kPrecision);  // the float's exact value, rounded
        dot = s.find('.');
    }
    Digits d;
    d.integer = s.substr(0, dot);
    d.fraction = dot == std::string::npos ? "" : s.substr(dot + 1);
    drop_trailing_zeros(d.fraction);
    return d;
}

Digits scientific(float x) {
    std::string s = chars(x, std::chars_format::scientific);  // "2.5e+03", "1e-05"
    std::size_t e = s.find('e');
    std::size_t dot = s.find('.');
    if (dot != std::string::npos && e - dot - 1 > static_cast<std::size_t>(kPrecision)) {
        s = chars(static_cast<double>(x), std::chars_format::scientific, kPrecision);
        e = s.find('e');
        dot = s.find('.');
    }
    Digits d;
    const std::size_t int_end = dot == std::string::npos ? e : dot;
    d.integer = s.substr(0, int_end);
    d.fraction = dot == std::string::npos ? "" : s.substr(dot + 1, e - dot - 1);
    drop_trailing_zeros(d.fraction);
    d.exponent = s.substr(e + 1);  // "+03", "-05"
    return d;
}

// FloatingFormat: the layout every element shares, from the elements shown.
struct FloatFormat {
    bool exp_format = false;
    std::size_t pad_left = 0, pad_right = 0, precision = 0, exp_size = 0;

    explicit FloatFormat(const std::vector<float>& shown) {
        float max_val = 0.0f, min_val = 0.0f;
        bool any = false;
        for (const float v : shown) {
            if (!std::isfinite(v)) throw std::invalid_argument("numpy_str: only finite values are printed here (a NaN or infinity)");
            const float a = std::fabs(v);
            if (a == 0.0f) continue;
            max_val = any ? std::max(max_val, a) : a;
            min_val = any ? std::min(min_val, a) : a;
            any = true;
        }
        // max_val >= 1.e8 or (min_val < 0.0001 or max_val/min_val > 1000.), computed in float32 as NumPy does
        exp_format = any && (max_val >= 1.e8f || min_val < 0.0001f || max_val / min_val > 1000.0f);
        for (const float v : shown) {
            const Digits d = exp_format ? scientific(v) : positional(v);
            pad_left = std::max(pad_left, d.integer.size());
            precision = std::max(precision, d.fraction.size());
            if (exp_format) exp_size = std::max(exp_size, d.exponent.size() - 1);
        }
        pad_right = exp_format ? exp_size + 2 + precision : precision;
    }

    std::string operator()(float v) const {
        if (exp_format) {
            // min_digits = precision: digits past the unique ones are the value's own, the last rounded
            const std::string s = chars(static_cast<double>(v), std::chars_format::scientific, static_cast<int>(precision));
            const std::size_t e = s.find('e'), dot = s.find('.');
            const std::string integer = s.substr(0, dot == std::string::npos ? e : dot);
            const std::string fraction = dot == std::string::npos ? "" : s.substr(dot + 1, e - dot - 1);
            std::string digits = s.substr(e + 2);
            if (digits.size() < exp_size) digits.insert(0, exp_size - digits.size(), '0');
            return std::string(pad_left - std::min(pad_left, integer.size()), ' ') + integer + "." + fraction + "e" + s[e + 1] + digits;
        }
        const Digits d = positional(v);
        return std::string(pad_left - std::min(pad_left, d.integer.size()), ' ') + d.integer + "." + d.fraction +
               std::string(pad_right - d.fraction.size(), ' ');
    }
};

// _extendLine: `word` onto `line`, flushing the line into `s` when it would pass `width`.
void extend_line(std::string& s, std::string& line, const std::string& word, std::size_t width, const std::string& next_prefix) {
    if (line.size() + word.size() > width && line.size() > next_prefix.size()) {
        while (!line.empty() && line.back() == ' ') line.pop_back();
        s += line + "\n";
        line = next_prefix;
    }
    line += word;
}

}  // namespace

std::string numpy_shape(const std::vector<std::size_t>& shape) {
    std::string out = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
    return out + (shape.size() == 1 ? ",)" : ")");
}

std::string numpy_str(const float* data, const std::vector<std::size_t>& shape) {
    std::size_t size = 1;
    for (const std::size_t d : shape) size *= d;
    if (shape.empty()) return FloatFormat({data[0]})(data[0]);  // a 0-d array prints as its value
    if (size == 0) return "[]";
    const bool summary = size > kThreshold;
    const auto shown_axis = [&](std::size_t n) { return summary && 2 * kEdgeItems < n; };
    std::vector<std::size_t> strides(shape.size(), 1);
    for (std::size_t k = shape.size() - 1; k-- > 0;) strides[k] = strides[k + 1] * shape[k + 1];
    // The indices shown along an axis: all, or the first and last kEdgeItems.
    const auto shown_indices = [&](std::size_t axis) {
        std::vector<std::size_t> idx;
        const std::size_t n = shape[axis];
        for (std::size_t i = 0; i < n; ++i)
            if (!shown_axis(n) || i < kEdgeItems || i >= n - kEdgeItems) idx.push_back(i);
        return idx;
    };
    std::vector<float> shown;  // _leading_trailing(data, edgeitems)
    const std::function<void(std::size_t, std::size_t)> collect = [&](std::size_t axis, std::size_t offset) {
        for (const std::size_t i : shown_indices(axis)) {
            if (axis + 1 == shape.size()) shown.push_back(data[offset + i]);
            else collect(axis + 1, offset + i * strides[axis]);
        }
    };
    collect(0, 0);
    const FloatFormat format(shown);

    // _formatArray's recurser, legacy=False, separator " ", summary_insert "..."
    const std::function<std::string(std::size_t, std::size_t, const std::string&, std::size_t)> recurse =
        [&](std::size_t axis, std::size_t offset, const std::string& hanging_indent, std::size_t curr_width) -> std::string {
        const std::string next_hanging_indent = hanging_indent + " ";
        const std::size_t next_width = curr_width - 1;  // len("]")
        const std::size_t n = shape[axis];
        const bool show_summary = shown_axis(n);
        const std::size_t leading = show_summary ? kEdgeItems : 0, trailing = show_summary ? kEdgeItems : n;
        const auto item = [&](std::size_t i) {
            return axis + 1 == shape.size() ? format(data[offset + i]) : recurse(axis + 1, offset + i * strides[axis], next_hanging_indent, next_width);
        };
        std::string s;
        if (axis + 1 == shape.size()) {
            const std::size_t elem_width = curr_width - 1;  // max(len(separator.rstrip()), len("]"))
            std::string line = hanging_indent;
            for (std::size_t i = 0; i < leading; ++i) {
                extend_line(s, line, item(i), elem_width, hanging_indent);
                line += " ";
            }
            if (show_summary) {
                extend_line(s, line, "...", elem_width, hanging_indent);
                line += " ";
            }
            for (std::size_t i = trailing; i > 1; --i) {
                extend_line(s, line, item(n - i), elem_width, hanging_indent);
                line += " ";
            }
            extend_line(s, line, item(n - 1), elem_width, hanging_indent);
            s += line;
        } else {
            const std::string line_sep(shape.size() - axis - 1, '\n');  // separator.rstrip() + "\n" * (axes_left - 1)
            for (std::size_t i = 0; i < leading; ++i) s += hanging_indent + item(i) + line_sep;
            if (show_summary) s += hanging_indent + "..." + line_sep;
            for (std::size_t i = trailing; i > 1; --i) s += hanging_indent + item(n - i) + line_sep;
            s += hanging_indent + item(n - 1);
        }
        return "[" + s.substr(hanging_indent.size()) + "]";
    };
    return recurse(0, 0, " ", kLineWidth);
}

}  // namespace llmfs
