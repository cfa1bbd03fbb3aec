// A port of torch/_tensor_str.py (PyTorch 2.x: 2.4 and later), restricted to what llmfs prints: dense CPU
// tensors of dtype float32 or int64. Each piece below names the Python function it mirrors,
// and keeps its structure, so the two can be read side by side.
//
// PyTorch formats every float32 element by first turning it into a Python float (a double)
// and then applying Python's str.format, e.g. '{:.4f}'. glibc's snprintf is correctly rounded
// just like Python's, so formatting the same double with "%.4f" gives the same digits; only
// NaN differs (glibc writes "-nan" for a NaN with the sign bit set, Python always "nan").
#include "llmfs/torch/print.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

namespace llmfs {

PrintOptions& print_options() {
    static PrintOptions options;  // torch._tensor_str.PRINT_OPTS
    return options;
}

namespace {

// ---------------------------------------------------------------------------------------
// Python's str.format for the few format specs _tensor_str.py uses.
// ---------------------------------------------------------------------------------------

// Python writes non-finite floats as "nan", "inf", "-inf" in every presentation type.
std::string python_nonfinite(double value) {
    if (std::isnan(value)) return "nan";
    return value > 0 ? "inf" : "-inf";
}

// printf-style formatting of one finite double.
std::string c_format(const char* spec, int precision, double value) {
    char buffer[512];  // enough for "%.*f" of the largest float32 at any sane precision
    const int n = std::snprintf(buffer, sizeof buffer, spec, precision, value);
    return std::string(buffer, static_cast<std::size_t>(std::max(n, 0)));
}

// '{:.<precision>f}'.format(value)
std::string python_fixed(double value, int precision) {
    if (!std::isfinite(value)) return python_nonfinite(value);
    return c_format("%.*f", precision, value);
}

// '{:.<precision>e}'.format(value): mantissa, 'e', exponent sign, at least two digits.
std::string python_sci(double value, int precision) {
    if (!std::isfinite(value)) return python_nonfinite(value);
    return c_format("%.*e", precision, value);
}

// '{:>width}': Python right-aligns numbers in a field of at least `width` characters.
std::string pad_left(const std::string& text, int width) {
    const auto size = static_cast<int>(text.size());
    return size >= width ? text : std::string(static_cast<std::size_t>(width - size), ' ') + text;
}

// Python's repr of a tuple of ints: "(0, 3)", "(5,)".
std::string python_tuple_repr(const Shape& shape) {
    std::string text = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i > 0) text += ", ";
        text += std::to_string(shape[i]);
    }
    if (shape.size() == 1) text += ",";
    return text + ")";
}

// ---------------------------------------------------------------------------------------
// The tensor being printed: a contiguous row-major block, indexed like `self[i]` in Python.
// ---------------------------------------------------------------------------------------

template <class T>
struct TensorView {
    Shape shape;
    const T* data;

    std::size_t dim() const { return shape.size(); }
    std::size_t size(std::size_t d) const { return shape[d]; }
    std::size_t numel() const {
        std::size_t n = 1;
        for (std::size_t d : shape) n *= d;
        return n;
    }
    // self[i]: the (dim - 1)-dimensional sub-tensor at index i of the first dimension.
    TensorView operator[](std::size_t i) const {
        TensorView sub{Shape(shape.begin() + 1, shape.end()), data};
        sub.data += i * sub.numel();
        return sub;
    }
};

// get_summarized_data: the elements that will actually be shown when the tensor is
// summarised (the first and last `edgeitems` entries along every dimension), flattened.
// PyTorch builds its _Formatter from these only, so hidden values never affect the layout.
template <class T>
void append_summarized_data(const TensorView<T>& self, std::vector<T>& out) {
    const auto edgeitems = static_cast<std::size_t>(print_options().edgeitems);
    if (self.dim() == 0) {
        out.push_back(*self.data);
        return;
    }
    const std::size_t n = self.size(0);
    std::vector<std::size_t> kept;
    if (n > 2 * edgeitems) {
        for (std::size_t i = 0; i < edgeitems; ++i) kept.push_back(i);
        for (std::size_t i = n - edgeitems; i < n; ++i) kept.push_back(i);
    } else {
        for (std::size_t i = 0; i < n; ++i) kept.push_back(i);
    }
    for (std::size_t i : kept) {
        if (self.dim() == 1) {
            out.push_back(self.data[i]);
        } else {
            append_summarized_data(self[i], out);
        }
    }
}

template <class T>
std::vector<T> all_data(const TensorView<T>& self) {
    return std::vector<T>(self.data, self.data + self.numel());
}

// ---------------------------------------------------------------------------------------
// _Formatter: picks integer / fixed / scientific notation and the common column width.
// PyTorch's `floating_dtype` flag is expressed here by overloading on the element type.
// ---------------------------------------------------------------------------------------

class Formatter {
public:
    // Floating-point tensors. Only nonzero finite values take part in the decision and in the
    // width; zeros, infinities and NaNs are simply formatted in whatever mode results.
    explicit Formatter(const std::vector<float>& values) {
        const int precision = print_options().precision;
        std::vector<float> nonzero_finite_vals;
        for (float v : values) {
            if (std::isfinite(v) && v != 0.0f) nonzero_finite_vals.push_back(v);
        }
        // "no valid number, do nothing" -- note PyTorch returns before honouring
        // PRINT_OPTS.sci_mode here, so an all-zero tensor prints "0." even with sci_mode=True.
        if (nonzero_finite_vals.empty()) return;

        // Computed in double, like tensor_totype().
        double nonzero_finite_min = std::abs(static_cast<double>(nonzero_finite_vals[0]));
        double nonzero_finite_max = nonzero_finite_min;
        for (float v : nonzero_finite_vals) {
            const double a = std::abs(static_cast<double>(v));
            nonzero_finite_min = std::min(nonzero_finite_min, a);
            nonzero_finite_max = std::max(nonzero_finite_max, a);
        }
        for (float v : nonzero_finite_vals) {
            if (v != std::ceil(v)) {
                int_mode_ = false;
                break;
            }
        }

        // PyTorch >= 2.4 (PR 126859): decide the notation first -- the automatic rule unless
        // set_printoptions(sci_mode=...) forces one -- then take the column width from that
        // notation. (1.13 took the width from the automatic notation even when sci_mode was
        // forced, e.g. tensor([  100.0000,     0.0100]) for sci_mode=False.) Integer values never
        // fall below 1e-4, so one condition serves both int and fixed mode.
        sci_mode_ = print_options().sci_mode.has_value()
                        ? *print_options().sci_mode
                        : nonzero_finite_max / nonzero_finite_min > 1000.0 || nonzero_finite_max > 1.0e8 ||
                              nonzero_finite_min < 1.0e-4;
        for (float v : nonzero_finite_vals) {
            if (sci_mode_) {
                widen(python_sci(v, precision).size());
            } else if (int_mode_) {
                widen(python_fixed(v, 0).size() + 1);  // +1 for the "." appended to every finite value
            } else {
                widen(python_fixed(v, precision).size());
            }
        }
    }

    // Integer tensors: '{}'.format(value) of every value decides the width.
    explicit Formatter(const std::vector<std::int64_t>& values) {
        for (std::int64_t v : values) widen(std::to_string(v).size());
    }

    int width() const { return max_width_; }

    // _Formatter.format for a floating-point element.
    std::string format(float element) const {
        const double value = element;  // PyTorch formats the Python float, i.e. the double
        const int precision = print_options().precision;
        std::string ret;
        if (sci_mode_) {
            ret = python_sci(value, precision);
        } else if (int_mode_) {
            ret = python_fixed(value, 0);
            if (std::isfinite(value)) ret += ".";
        } else {
            ret = python_fixed(value, precision);
        }
        return pad_left(ret, max_width_);
    }

    // _Formatter.format for an integer element.
    std::string format(std::int64_t value) const {
        return pad_left(std::to_string(value), max_width_);
    }

private:
    void widen(std::size_t width) { max_width_ = std::max(max_width_, static_cast<int>(width)); }

    bool int_mode_ = true;
    bool sci_mode_ = false;
    int max_width_ = 1;
};

// ---------------------------------------------------------------------------------------
// The recursive layout.
// ---------------------------------------------------------------------------------------

// _scalar_str
template <class T>
std::string scalar_str(const TensorView<T>& self, const Formatter& formatter) {
    return formatter.format(*self.data);
}

// _vector_str: one bracketed row, wrapped so that each line holds as many elements as fit in
// linewidth after the indentation (never fewer than one).
template <class T>
std::string vector_str(const TensorView<T>& self, int indent, bool summarize,
                       const Formatter& formatter) {
    const PrintOptions& opts = print_options();
    // length includes spaces and comma between elements
    const int element_length = formatter.width() + 2;
    const auto elements_per_line = static_cast<std::size_t>(std::max(
        1.0, std::floor(static_cast<double>(opts.linewidth - indent) / element_length)));

    const std::size_t n = self.size(0);
    const auto edgeitems = static_cast<std::size_t>(opts.edgeitems);
    std::vector<std::string> data;
    if (summarize && n > 2 * edgeitems) {
        for (std::size_t i = 0; i < edgeitems; ++i) data.push_back(formatter.format(self.data[i]));
        data.emplace_back(" ...");
        for (std::size_t i = n - edgeitems; i < n; ++i) data.push_back(formatter.format(self.data[i]));
    } else {
        for (std::size_t i = 0; i < n; ++i) data.push_back(formatter.format(self.data[i]));
    }

    const std::string line_break = ",\n" + std::string(static_cast<std::size_t>(indent + 1), ' ');
    std::string text = "[";
    for (std::size_t i = 0; i < data.size(); ++i) {
        if (i > 0) text += (i % elements_per_line == 0) ? line_break : ", ";
        text += data[i];
    }
    return text + "]";
}

// _tensor_str_with_formatter: sub-tensors separated by a comma, dim - 1 newlines (so blocks of
// 3-D and 4-D tensors get blank lines between them) and indentation one deeper than ours.
template <class T>
std::string tensor_str_with_formatter(const TensorView<T>& self, int indent, bool summarize,
                                      const Formatter& formatter) {
    const std::size_t dim = self.dim();
    if (dim == 0) return scalar_str(self, formatter);
    if (dim == 1) return vector_str(self, indent, summarize, formatter);

    const std::size_t n = self.size(0);
    const auto edgeitems = static_cast<std::size_t>(print_options().edgeitems);
    std::vector<std::string> slices;
    if (summarize && n > 2 * edgeitems) {
        for (std::size_t i = 0; i < edgeitems; ++i) {
            slices.push_back(tensor_str_with_formatter(self[i], indent + 1, summarize, formatter));
        }
        slices.emplace_back("...");
        for (std::size_t i = n - edgeitems; i < n; ++i) {
            slices.push_back(tensor_str_with_formatter(self[i], indent + 1, summarize, formatter));
        }
    } else {
        for (std::size_t i = 0; i < n; ++i) {
            slices.push_back(tensor_str_with_formatter(self[i], indent + 1, summarize, formatter));
        }
    }

    const std::string separator =
        "," + std::string(dim - 1, '\n') + std::string(static_cast<std::size_t>(indent + 1), ' ');
    std::string text = "[";
    for (std::size_t i = 0; i < slices.size(); ++i) {
        if (i > 0) text += separator;
        text += slices[i];
    }
    return text + "]";
}

// _tensor_str
template <class T>
std::string tensor_str(const TensorView<T>& self, int indent) {
    if (self.numel() == 0) return "[]";
    const bool summarize = self.numel() > static_cast<std::size_t>(print_options().threshold);
    std::vector<T> shown;
    if (summarize) {
        append_summarized_data(self, shown);
    } else {
        shown = all_data(self);
    }
    const Formatter formatter(shown);
    return tensor_str_with_formatter(self, indent, summarize, formatter);
}

// _add_suffixes: each ", key=value" goes on the current line if it still fits in linewidth,
// otherwise on a new line indented to just after "tensor(".
std::string add_suffixes(const std::string& tensor_text, const std::vector<std::string>& suffixes,
                         int indent) {
    const int linewidth = print_options().linewidth;
    // Python: len(s) - s.rfind("\n") + 1, where rfind gives -1 when there is no newline.
    const std::size_t newline = tensor_text.rfind('\n');
    const long rfind = newline == std::string::npos ? -1 : static_cast<long>(newline);
    long last_line_len = static_cast<long>(tensor_text.size()) - rfind + 1;

    std::string text = tensor_text;
    for (const std::string& suffix : suffixes) {
        const auto suffix_len = static_cast<long>(suffix.size());
        if (last_line_len + suffix_len + 2 > linewidth) {
            text += ",\n" + std::string(static_cast<std::size_t>(indent), ' ') + suffix;
            last_line_len = indent + suffix_len;
        } else {
            text += ", " + suffix;
            last_line_len += suffix_len + 2;
        }
    }
    return text + ")";
}

// _str_intern, for a plain dense CPU tensor. float32 is the default dtype and int64 has
// no dtype suffix either, except for empty tensors where the dtype cannot be inferred.
template <class T>
std::string str_intern(const Shape& shape, const T* data,
                       const std::vector<std::string>& caller_suffixes) {
    constexpr bool is_default_dtype = std::is_same_v<T, float>;
    const std::string prefix = "tensor(";
    const int indent = static_cast<int>(prefix.size());
    const TensorView<T> self{shape, data};

    std::vector<std::string> suffixes;
    std::string text;
    if (self.numel() == 0) {
        // Explicitly print the shape if it is not (0,), to match NumPy behavior
        if (self.dim() != 1) suffixes.push_back("size=" + python_tuple_repr(shape));
        if (!is_default_dtype) suffixes.emplace_back("dtype=torch.int64");
        text = "[]";
    } else {
        text = tensor_str(self, indent);
    }
    suffixes.insert(suffixes.end(), caller_suffixes.begin(), caller_suffixes.end());
    return add_suffixes(prefix + text, suffixes, indent);
}

}  // namespace

std::string format_tensor(const Shape& shape, const float* data,
                          const std::vector<std::string>& suffixes) {
    return str_intern(shape, data, suffixes);
}

std::string format_tensor(const Shape& shape, const std::int64_t* data,
                          const std::vector<std::string>& suffixes) {
    return str_intern(shape, data, suffixes);
}

std::string format_size(const Shape& shape) {
    std::string text = "torch.Size([";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i > 0) text += ", ";
        text += std::to_string(shape[i]);
    }
    return text + "])";
}

// Python's float_repr_style 'short': the shortest digits that round-trip, written
// positionally when the decimal exponent is in [-4, 16), otherwise in scientific notation
// with a signed exponent of at least two digits. "1.0", "1e-05", "1e+16", "0.0001".
double python_format_value(double value) { return std::isnan(value) ? std::fabs(value) : value; }

std::string python_float_repr(double value) {
    if (!std::isfinite(value)) return python_nonfinite(value);

    // Shortest round-trip digits as "-d.ddde+XX".
    char buffer[64];
    const auto result =
        std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
    const std::string sci(buffer, result.ptr);
    const std::size_t e = sci.find('e');
    std::string mantissa = sci.substr(0, e);
    const int exponent = std::atoi(sci.c_str() + e + 1);

    std::string sign;
    if (mantissa[0] == '-') {
        sign = "-";
        mantissa.erase(0, 1);
    }
    std::string digits = mantissa;
    digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
    const auto num_digits = static_cast<int>(digits.size());

    if (exponent < -4 || exponent >= 16) {
        std::string text = sign + digits.substr(0, 1);
        if (num_digits > 1) text += "." + digits.substr(1);
        const int magnitude = std::abs(exponent);
        text += exponent < 0 ? "e-" : "e+";
        if (magnitude < 10) text += "0";
        return text + std::to_string(magnitude);
    }
    if (exponent < 0) {
        return sign + "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
    }
    const int integer_digits = exponent + 1;
    if (num_digits <= integer_digits) {
        return sign + digits + std::string(static_cast<std::size_t>(integer_digits - num_digits), '0') +
               ".0";
    }
    return sign + digits.substr(0, static_cast<std::size_t>(integer_digits)) + "." +
           digits.substr(static_cast<std::size_t>(integer_digits));
}

}  // namespace llmfs
