#!/usr/bin/python3
"""Generate data/tests/print_cases.txt: PyTorch's own `repr` text for many tensors.

The goldens for common/torch/print_test.cpp, which checks llmfs::format_tensor (a C++ port of
torch/_tensor_str.py) and llmfs::python_float_repr against the real thing.

Generated with PyTorch 1.13 (Debian's python3-torch, torch.__version__ == "1.13.0a0") printing as
PyTorch 2.x does (torch2x_print.py), under
Python 3.11, from the repository root:

    /usr/bin/python3 tests/goldens/make_print_goldens.py > data/tests/print_cases.txt

File format (plain text, one block per case, easy to parse without a JSON library):

    case <group>/<name>
    dtype float32 | int64 | float64        float64 means "a python_float_repr case"
    shape <d0> <d1> ...                    nothing after "shape" for a 0-D tensor
    option <key>=<value>                   zero or more; torch.set_printoptions(key=value)
    suffix <text>                          zero or more; e.g. grad_fn=<MmBackward0>
    values <v> <v> ...                     float32: 8-hex-digit bit patterns;
                                           float64: 16-hex-digit bit patterns; int64: decimal
    expect <n>                             followed by exactly n lines of PyTorch's text
    <line 1>
    ...
    end

Lines starting with '#' (outside the expected text) are comments. The "suffix" lines are the
grad_fn / requires_grad parts that the caller of format_tensor supplies; they are read off
the real autograd tensor exactly as _str_intern does, and the expected text is PyTorch's repr
of that same tensor.
"""

import math
import struct
import sys

import torch

import torch2x_print  # noqa: F401  PyTorch 2.x's printing (see torch2x_print.py)
import torch.nn.functional as F

CASES = []  # (name, tensor, options)


def case(name, tensor, **options):
    CASES.append((name, tensor, options))


def caller_suffixes(t):
    """The suffixes _str_intern derives from autograd state (what our C++ callers pass in)."""
    if t.grad_fn is not None:
        return ["grad_fn=<{}>".format(type(t.grad_fn).__name__)]
    if t.requires_grad:
        return ["requires_grad=True"]
    return []


def float32_bits(x):
    return "{:08x}".format(struct.unpack("<I", struct.pack("<f", x))[0])


def float64_bits(x):
    return "{:016x}".format(struct.unpack("<Q", struct.pack("<d", x))[0])


def pytorch_repr(t, options):
    torch.set_printoptions(**options)
    try:
        return repr(t)
    finally:
        torch.set_printoptions(profile="default")


def emit_block(out, name, dtype, shape, options, suffixes, values, text):
    lines = text.split("\n")
    out.write("case {}\n".format(name))
    out.write("dtype {}\n".format(dtype))
    out.write(("shape " + " ".join(str(d) for d in shape)).rstrip() + "\n")
    for key, value in options.items():
        out.write("option {}={}\n".format(key, value))
    for suffix in suffixes:
        out.write("suffix {}\n".format(suffix))
    out.write(("values " + " ".join(values)).rstrip() + "\n")
    out.write("expect {}\n".format(len(lines)))
    for line in lines:
        out.write(line + "\n")
    out.write("end\n")


# ----------------------------------------------------------------------------------------
# The cases.
# ----------------------------------------------------------------------------------------

gen = torch.Generator().manual_seed(123)


def randn(*shape, scale=1.0):
    return torch.randn(*shape, generator=gen) * scale


# The book's chapter-3 toy input ("Your journey starts with one step").
inputs = torch.tensor(
    [[0.43, 0.15, 0.89],
     [0.55, 0.87, 0.66],
     [0.57, 0.85, 0.64],
     [0.22, 0.58, 0.33],
     [0.77, 0.25, 0.10],
     [0.05, 0.80, 0.55]])
attn_scores_2 = inputs @ inputs[1]
attn_weights_2 = torch.softmax(attn_scores_2, dim=0)

# --- 0-D scalar tensors -------------------------------------------------------------------
case("scalar/fixed", attn_scores_2[0].clone())
case("scalar/int_valued", torch.tensor(1.0))
case("scalar/zero", torch.tensor(0.0))
case("scalar/negative_zero", torch.tensor(-0.0))
case("scalar/sum_of_weights", attn_weights_2.sum())
case("scalar/tiny_sci", torch.tensor(1.23456e-5))
case("scalar/huge_sci", torch.tensor(1.23456e10))
case("scalar/nan", torch.tensor(float("nan")))
case("scalar/neg_inf", torch.tensor(float("-inf")))
case("scalar/int64", torch.tensor(42))
case("scalar/int64_negative", torch.tensor(-7))

# --- fixed-point mode (precision 4) -------------------------------------------------------
case("fixed/notebook_attn_scores", attn_scores_2)
case("fixed/notebook_attn_weights", attn_weights_2)
case("fixed/notebook_inputs_2d", inputs)
case("fixed/batch_3d", torch.stack((inputs, inputs)))
case("fixed/randn_4d", randn(2, 2, 3, 3))
case("fixed/mixed_sign_2d", randn(4, 3))
case("fixed/wide_range_under_1000", torch.tensor([123.4567, -9.87, 0.5, 0.25]))
# Exact binary ties at the 5th decimal: Python (and glibc) round them half-to-even.
case("fixed/rounding_ties_exact_in_binary",
     torch.tensor([0.03125, 0.09375, 1.15625, -0.21875, 2.40625, 5.34375]))
case("fixed/float32_not_decimal_tie", torch.tensor([0.12345, 0.56785, 1.00005, -3.14155]))
case("fixed/one_row", torch.tensor([[0.1, 0.2, 0.3]]))
case("fixed/one_column", torch.tensor([[0.1], [-0.2], [0.3]]))
case("int_valued/max_exactly_1e8_not_sci", torch.tensor([1.0e8, 5.0e7]))

# --- integer-valued float tensors ("1." style) --------------------------------------------
case("int_valued/small", torch.tensor([1.0, 2.0, 3.0]))
case("int_valued/negative_and_zero", torch.tensor([-1.0, 0.0, 100.0]))
case("int_valued/ones_2d", torch.ones(2, 3))
case("int_valued/causal_mask", torch.triu(torch.ones(4, 4), diagonal=1))
case("int_valued/ratio_over_1000_is_sci", torch.tensor([1.0, 2000.0]))
case("int_valued/over_1e8_is_sci", torch.tensor([3.0e9, 2.0e9]))
case("int_valued/with_inf_and_nan",
     torch.tensor([1.0, float("inf"), float("-inf"), float("nan"), 2.0]))
case("int_valued/negative_zero", torch.tensor([-0.0, 1.0, 2.0]))

# --- scientific mode ----------------------------------------------------------------------
case("sci/ratio", torch.tensor([1.0e-3, 2.0, 0.5]))
case("sci/tiny_min", torch.tensor([5.0e-5, 6.0e-5, 7.5e-5]))
case("sci/huge_max", torch.tensor([1.5e8, 2.0e8, 1.0e8 + 4.0]))
case("sci/mixed_sign_2d", torch.tensor([[1.0e-6, -2.5], [3.0e2, -4.0e-3]]))
case("sci/gradients_like", randn(3, 4, scale=1.0e-5))
case("sci/huge_exponent", torch.tensor([1.0e-38, 3.0e38, -1.0e-45]))

# --- zeros, infinities and NaN --------------------------------------------------------------
case("special/all_zero_1d", torch.zeros(5))
case("special/all_zero_2d", torch.zeros(2, 3))
case("special/negative_zero_fixed", torch.tensor([-0.0, 0.5, 1.25]))
case("special/negative_zero_only", torch.tensor([-0.0, 0.0]))
case("special/nan_with_fixed", torch.tensor([float("nan"), 1.5, -2.25]))
case("special/inf_with_fixed", torch.tensor([float("inf"), 0.5, float("-inf")]))
case("special/nan_with_sci", torch.tensor([float("nan"), 1.0e-5, 2.0]))
case("special/all_nan", torch.full((3,), float("nan")))
case("special/all_inf", torch.tensor([float("inf"), float("-inf")]))
case("special/zero_with_sci", torch.tensor([0.0, 1.0e-5, -0.0]))
masked = (inputs @ inputs.T).masked_fill(torch.triu(torch.ones(6, 6), diagonal=1).bool(),
                                         float("-inf"))
case("special/masked_attention_scores", masked)
case("special/masked_softmax", torch.softmax(masked / 3 ** 0.5, dim=-1))
case("special/default_nan_0_over_0", torch.tensor([0.0, 1.0]) / torch.tensor([0.0, 3.0]))

# --- 80-column line wrapping ----------------------------------------------------------------
case("wrap/fixed_1d_25", randn(25))
case("wrap/fixed_1d_exactly_one_line", randn(9).abs() + 1.0)
case("wrap/fixed_1d_mixed_sign_10", torch.linspace(-2.2, 1.9, 10))
case("wrap/int_valued_1d_30", torch.arange(30, dtype=torch.float32) - 10)
case("wrap/fixed_2d_3x20", randn(3, 20))
case("wrap/fixed_3d_2x2x15", randn(2, 2, 15))
case("wrap/fixed_4d_2x2x2x12", randn(2, 2, 2, 12))
case("wrap/sci_1d_20", randn(20, scale=1.0e-3) + torch.linspace(-1, 1, 20))
case("wrap/sci_2d_3x12", randn(3, 12, scale=1.0e-6))
case("wrap/wide_fixed_values", randn(16, scale=300.0))

# --- summarisation (numel > 1000) -------------------------------------------------------
case("summarized/1d_1001", randn(1001))
case("summarized/1d_int_valued", torch.arange(2000, dtype=torch.float32))
case("summarized/2d_40x40", randn(40, 40))
case("summarized/2d_3x400_rows_kept", randn(3, 400))
case("summarized/2d_400x3_columns_kept", randn(400, 3))
case("summarized/3d_logits_like_2x4x1200", randn(2, 4, 1200, scale=2.0))
case("summarized/4d_2x2x20x20", randn(2, 2, 20, 20))
hidden = randn(2000)
hidden[1000] = 1.0e6  # not among the printed edge items, so it must not trigger sci mode
case("summarized/hidden_outlier_ignored", hidden)
hidden_tiny = randn(30, 40)
hidden_tiny[15, 20] = 1.0e-9
case("summarized/hidden_tiny_2d_ignored", hidden_tiny)
case("summarized/sci", randn(1500, scale=1.0e-6))
case("summarized/exactly_threshold_not_summarized",
     torch.rand(10, 100, generator=gen) + 0.5)

# --- print-option overrides -------------------------------------------------------------
case("options/sci_false_tiny", torch.tensor([5.0e-5, 6.0e-5, 1.5]), sci_mode=False)
case("options/sci_false_ratio", torch.tensor([1.0e-3, 2.0, 1234.5]), sci_mode=False)
case("options/sci_false_int_valued_ratio", torch.tensor([1.0, 20000.0]), sci_mode=False)
case("options/sci_true_fixed_data", torch.tensor([0.5, -1.25, 3.0]), sci_mode=True)
case("options/sci_true_int_valued", torch.tensor([1.0, 2.0, -3.0]), sci_mode=True)
case("options/sci_true_all_zero", torch.zeros(3), sci_mode=True)
case("options/sci_false_summarized", randn(1200, scale=1.0e-5), sci_mode=False)
# PyTorch 2.x (PR 126859): with sci_mode forced, the width comes from the forced notation.
case("options_2x/sci_false_wide_ratio", torch.tensor([1.0e2, 1.0e-2]), sci_mode=False)
case("options_2x/sci_false_tiny_negative", torch.tensor([-1.0e-5, 1.0]), sci_mode=False)
case("options_2x/sci_false_int_valued_wide", torch.tensor([1.0, 1.0e5]), sci_mode=False)
case("options_2x/sci_false_scalar_tiny", torch.tensor(1.0e-5), sci_mode=False)
case("options_2x/sci_true_fixed_range", torch.tensor([0.5, -0.25]), sci_mode=True)
case("options_2x/sci_false_wrapping", randn(24, scale=1.0e-3) * torch.tensor([1.0e3, 1.0] * 12), sci_mode=False)
case("options_2x/sci_true_wrapping", randn(3, 9), sci_mode=True)
case("options_2x/sci_false_layer_norm_means", torch.tensor([[-2.9802e-08], [0.0]]), sci_mode=False)
case("options/precision_2", randn(2, 3), precision=2)
case("options/threshold_5_edgeitems_2", torch.arange(10, dtype=torch.float32),
     threshold=5, edgeitems=2)
case("options/linewidth_40", randn(12), linewidth=40)

# --- suffixes: grad_fn / requires_grad ------------------------------------------------------
a = randn(3, 4).requires_grad_()
b = randn(4, 2)
case("suffix/mm_fits", a @ b)
a_wide = randn(2, 5).requires_grad_()
b_wide = randn(5, 8)
case("suffix/mm_must_wrap", a_wide @ b_wide)
x3 = randn(2, 3, 4).requires_grad_()
w3 = randn(4, 2)
case("suffix/matmul_3d_fits", x3 @ w3)
w3_wide = randn(4, 8)
case("suffix/matmul_3d_must_wrap", x3 @ w3_wide)
case("suffix/requires_grad_leaf", randn(2, 3).requires_grad_())
case("suffix/requires_grad_1d_wrapped_rows", randn(20).requires_grad_())
linear = torch.nn.Linear(3, 2)
with torch.no_grad():
    linear.weight.copy_(randn(2, 3))
    linear.bias.copy_(randn(2))
case("suffix/linear_addmm", linear(inputs))
case("suffix/softmax", torch.softmax(a @ b, dim=-1))
case("suffix/scalar_loss", F.cross_entropy(a @ randn(4, 5), torch.tensor([0, 3, 1])))
case("suffix/summarized", randn(50, 50).requires_grad_() * 2)
case("suffix/int_valued", torch.ones(2, 2, requires_grad=True) * 3)

# --- int64 ----------------------------------------------------------------------------------
case("int64/1d", torch.tensor([1, 2, 3]))
case("int64/token_ids_2d", torch.tensor([[6109, 3626, 6100, 345], [6109, 1110, 6622, 257]]))
case("int64/negative", torch.tensor([-5, 10, -300, 0]))
case("int64/wrap_1d", torch.arange(40) * 1000 - 7)
case("int64/summarized_1d", torch.arange(2000))
case("int64/summarized_2d", torch.arange(2500).reshape(50, 50) - 1250)
case("int64/extremes", torch.tensor([9223372036854775807, -9223372036854775807 - 1]))
case("int64/3d", torch.arange(24).reshape(2, 3, 4))

# --- empty tensors ----------------------------------------------------------------------------
case("empty/1d", torch.tensor([]))
case("empty/0x3", torch.zeros(0, 3))
case("empty/2x0x4", torch.zeros(2, 0, 4))
case("empty/int64_1d", torch.tensor([], dtype=torch.int64))
case("empty/int64_0x2", torch.zeros(0, 2, dtype=torch.int64))
case("empty/requires_grad", torch.zeros(0, 3, requires_grad=True))

# --- python_float_repr: Python's repr(float) --------------------------------------------------
FLOAT_REPRS = [
    ("one", 1.0), ("tenth", 0.1), ("1e-05", 1e-05), ("0.0001", 0.0001),
    ("1e16", 1e16), ("just_below_1e16", 9999999999999998.0), ("1e15", 1e15),
    ("float32_of_0.0002017", float(torch.tensor(0.00020173587836325169))),
    ("float32_of_0.1", float(torch.tensor(0.1))), ("zero", 0.0), ("negative_zero", -0.0),
    ("denormal_min", 5e-324), ("max", 1.7976931348623157e308), ("inf", math.inf),
    ("neg_inf", -math.inf), ("nan", math.nan), ("two_thirds", 2.0 / 3.0),
    ("negative", -2.5), ("hundred", 100.0), ("1e22", 1e22), ("1.5e-7", 1.5e-7),
    ("1.2345678901234568e+17", 123456789012345678.0), ("0.00012", 0.00012),
    ("dropout_scale", 1.0 / (1.0 - 0.1)), ("sqrt_head_dim", 64 ** 0.5),
]

# ----------------------------------------------------------------------------------------

def main():
    out = sys.stdout
    out.write("# Generated by tests/goldens/make_print_goldens.py with torch {} -- do not edit.\n"
              .format(torch.__version__))
    for name, t, options in CASES:
        text = pytorch_repr(t, options)
        flat = t.detach().reshape(-1).tolist()
        if t.dtype == torch.float32:
            dtype, values = "float32", [float32_bits(v) for v in flat]
        elif t.dtype == torch.int64:
            dtype, values = "int64", [str(v) for v in flat]
        else:
            raise ValueError("unsupported dtype {} in case {}".format(t.dtype, name))
        emit_block(out, name, dtype, list(t.shape), options, caller_suffixes(t), values, text)
    for name, x in FLOAT_REPRS:
        emit_block(out, "float_repr/" + name, "float64", [], {}, [], [float64_bits(x)],
                   repr(x))


if __name__ == "__main__":
    main()
