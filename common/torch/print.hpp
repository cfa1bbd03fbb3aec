// PyTorch-faithful printing: a re-implementation of torch/_tensor_str.py as PyTorch 2.x (2.4+) prints.
//
//   repr(t)                 -> what `print(t)` shows for a torch.float32 / torch.int64 tensor
//   format_size({2, 6, 3})  -> "torch.Size([2, 6, 3])"
//   python_float_repr(x)    -> Python's repr(float), e.g. "1.0", "0.00020173587836325169", "1e-05"
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <xtensor/xarray.hpp>
#include <xtensor/xeval.hpp>

namespace llmfs {

using Shape = std::vector<std::size_t>;

// torch.set_printoptions(...) state; the defaults are PyTorch's.
struct PrintOptions {
    int precision = 4;
    int threshold = 1000;  // summarise (with "...") when numel > threshold
    int edgeitems = 3;
    int linewidth = 80;
    std::optional<bool> sci_mode;  // nullopt: PyTorch decides; false: never scientific; true: always
};

// The process-wide options, like torch's PRINT_OPTS. `print_options().sci_mode = false;`
// mirrors `torch.set_printoptions(sci_mode=False)`.
PrintOptions& print_options();

// Text of `print(tensor)` for a contiguous row-major float32 tensor of the given shape
// (empty shape = 0-D scalar tensor). `suffixes` are the trailing "key=value" parts PyTorch
// appends, e.g. {"grad_fn=<MmBackward0>"} or {"requires_grad=True"}.
std::string format_tensor(const Shape& shape, const float* data,
                          const std::vector<std::string>& suffixes = {});
// Same for torch.int64 tensors (no dtype suffix, as int64 is PyTorch's default integer type).
std::string format_tensor(const Shape& shape, const std::int64_t* data,
                          const std::vector<std::string>& suffixes = {});

// Convenience for any xtensor expression of float or int64 values.
template <class E>
std::string repr(const xt::xexpression<E>& expr, const std::vector<std::string>& suffixes = {}) {
    using value_type = typename E::value_type;
    xt::xarray<value_type, xt::layout_type::row_major> a = expr.derived_cast();
    Shape shape(a.shape().begin(), a.shape().end());
    return format_tensor(shape, a.data(), suffixes);
}

// "torch.Size([2, 6, 3])"
std::string format_size(const Shape& shape);

// Python's repr() of a float (shortest round-trip digits, Python's exponent rules).
std::string python_float_repr(double value);

// The value to give fmt::format for an f-string's float: f"{loss:.3f}" prints any NaN as "nan",
// but fmt prints the sign bit x86's default NaN (0 / 0) carries ("-nan"): a NaN without it.
double python_format_value(double value);

}  // namespace llmfs
