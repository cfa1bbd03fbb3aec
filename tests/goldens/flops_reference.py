"""The first benchmark cell of the book's FLOPS analysis
(ch04/02_performance-analysis/flops-analysis.ipynb of rasbt/LLMs-from-scratch, "Simple benchmark
with fixed batch size"): the reference for ch04_flops.

    BOOK=/path/to/LLMs-from-scratch   # a checkout of github.com/rasbt/LLMs-from-scratch
    /usr/bin/python3 tests/goldens/flops_reference.py $BOOK > data/golden/default/ch04_flops.txt
    cp data/golden/default/ch04_flops.txt data/golden/mkl/    # no dropout: the same file
    /usr/bin/python3 tests/goldens/flops_reference.py $BOOK --detail     (stderr: per-module MACs)
    /usr/bin/python3 tests/goldens/flops_reference.py $BOOK --cpu-check  (stderr: gpt-small run for
                                                          real on CPU, bfloat16 as in the cell; 1-2 min)

The cell's source is read from the book's notebook and executed as it stands, with
`llms_from_scratch` importing from the checkout's pkg/ (the book's own package). Two stand-ins:

  * thop (not installable here) is a stub module in sys.modules whose `profile` re-implements
    thop 0.1.1 (the notebook's "thop version: 0.1.1-2209072238", i.e. Lyken17/pytorch-OpCounter at
    43c064a, 2022-09-07) for the module types GPTModel contains. See `profile` below and NOTES.md.
  * device: the cell's `device = torch.device("cuda" if torch.cuda.is_available() else "cpu")` is
    patched to `torch.device("meta")`, and the cell runs under a TorchFunctionMode that gives every
    factory call without a device (torch.empty/ones/zeros/arange/tensor/randint/...) device="meta"
    (what PyTorch 2.x's `with torch.device("meta"):` does). So the four models (up to GPT-2 XL,
    1.5B parameters) are built and run as shapes only, in about a second. thop's counts depend on
    module types, in_features and output shapes only, so this changes no number; --cpu-check runs
    the unpatched cell's gpt-small on real CPU tensors and prints both counts.

stdout is exactly the cell's output (4 lines); the notebook's stored output is checked against it
at the end (an assertion; the comparison is reported on stderr).
"""
import json
import sys
import types

import torch
import torch.nn as nn
from torch.overrides import TorchFunctionMode

sys.dont_write_bytecode = True  # write nothing into the book's checkout
import book_checkout  # noqa: E402

NOTEBOOK_IN_BOOK = "ch04/02_performance-analysis/flops-analysis.ipynb"
BOOK, OPTIONS = book_checkout.argument("flops_reference.py BOOK [--detail] [--cpu-check]", NOTEBOOK_IN_BOOK)
sys.path.insert(0, f"{BOOK}/pkg")

NOTEBOOK = f"{BOOK}/{NOTEBOOK_IN_BOOK}"
DEVICE_LINE = 'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")'

DETAIL = "--detail" in OPTIONS


# --- thop 0.1.1's `profile`, re-implemented -------------------------------------------------------
# thop/profile.py `register_hooks` maps exact module types (looked up with type(m), not isinstance)
# to counting hooks. Only the entries relevant to GPTModel are rules here; every other registered
# type is listed so that meeting one is an error rather than a silent zero.

def count_linear(m, x, y):
    # thop/vision/basic_hooks.py count_linear: total_mul = m.in_features, num_elements = y.numel(),
    # calculate_linear -> in_features * y.numel() (bias not counted)
    return m.in_features * y.numel()


def zero_ops(m, x, y):
    return 0


def count_normalization(m, x, y):
    # basic_hooks.count_normalization: 2 * x.numel(), doubled again with affine/elementwise_affine.
    # Only nn.LayerNorm / BatchNorm / InstanceNorm (exact types) get it; the book's LayerNorm doesn't.
    flops = 2 * x[0].numel()
    if getattr(m, "affine", False) or getattr(m, "elementwise_affine", False):
        flops *= 2
    return flops


def count_softmax(m, x, y):
    nfeatures = x[0].size()[m.dim]
    return (x[0].numel() // nfeatures) * (3 * nfeatures - 1)


RULES = {
    nn.Linear: count_linear,
    nn.Dropout: zero_ops,
    nn.Sequential: zero_ops,     # registered, but dfs_count never reads a Sequential's own total
    nn.ReLU: zero_ops,
    nn.LayerNorm: count_normalization,
    nn.Softmax: count_softmax,
}
OTHER_REGISTERED = tuple(t for t in (
    nn.ZeroPad2d, nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.ConvTranspose1d, nn.ConvTranspose2d,
    nn.ConvTranspose3d, nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.InstanceNorm1d,
    nn.InstanceNorm2d, nn.InstanceNorm3d, nn.PReLU, nn.ReLU6, nn.LeakyReLU, nn.MaxPool1d,
    nn.MaxPool2d, nn.MaxPool3d, nn.AdaptiveMaxPool1d, nn.AdaptiveMaxPool2d, nn.AdaptiveMaxPool3d,
    nn.AvgPool1d, nn.AvgPool2d, nn.AvgPool3d, nn.AdaptiveAvgPool1d, nn.AdaptiveAvgPool2d,
    nn.AdaptiveAvgPool3d, nn.Upsample, nn.UpsamplingBilinear2d, nn.UpsamplingNearest2d, nn.RNNCell,
    nn.GRUCell, nn.LSTMCell, nn.RNN, nn.GRU, nn.LSTM, nn.PixelShuffle, nn.SyncBatchNorm))


def profile(model, inputs, custom_ops=None, verbose=True, ret_layer_info=False,
            report_missing=False):
    """thop.profile (thop/profile.py) with verbose=False, no custom_ops: returns (macs, params)."""
    assert not custom_ops and not ret_layer_info
    totals = {}   # module -> its own total_ops (thop: a float64 buffer on every module, start 0)
    hooked = {}   # thop's handler_collection: modules whose exact type has a rule
    handles = []

    def make_hook(fn):
        def hook(m, x, y):
            totals[m] += fn(m, x, y)
        return hook

    for m in model.modules():              # model.apply(add_hooks) reaches every module
        totals[m] = 0
        if type(m) in RULES:
            hooked[m] = True
            handles.append(m.register_forward_hook(make_hook(RULES[type(m)])))
        elif type(m) in OTHER_REGISTERED:
            raise NotImplementedError(type(m))
        # else: no hook; its own ops stay 0 (report_missing=False prints nothing)

    prev_training = model.training
    model.eval()
    with torch.no_grad():
        model(*inputs)

    def params_of(m):                      # count_parameters: all of m.parameters(), recursive
        return sum(p.numel() for p in m.parameters())

    def dfs_count(module, path=""):
        total_ops, total_params = totals[module], 0
        for n, m in module.named_children():
            sub = f"{path}.{n}" if path else n
            if m in hooked and not isinstance(m, (nn.Sequential, nn.ModuleList)):
                m_ops, m_params = totals[m], params_of(m)
                if DETAIL and m_ops:
                    print(f"    {sub} ({type(m).__name__}): {m_ops}", file=sys.stderr)
            else:
                m_ops, m_params = dfs_count(m, sub)
            total_ops += m_ops
            total_params += m_params
        return total_ops, total_params

    total_ops, total_params = dfs_count(model)
    if DETAIL:
        print(f"  total: macs={total_ops} params(thop)={total_params} flops=2*macs={2 * total_ops}",
              file=sys.stderr)
    model.train(prev_training)
    for h in handles:
        h.remove()
    # thop sums float64 tensors and returns .item(): Python floats (exact: all counts < 2**53)
    return float(total_ops), float(total_params)


thop = types.ModuleType("thop")
thop.profile = profile
sys.modules["thop"] = thop


# --- meta device ----------------------------------------------------------------------------------
FACTORIES = {torch.empty, torch.zeros, torch.ones, torch.full, torch.arange, torch.tensor,
             torch.rand, torch.randn, torch.randint, torch.empty_strided}


class MetaDevice(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func in FACTORIES and kwargs.get("device") is None:
            kwargs["device"] = "meta"
        return func(*args, **kwargs)


def cell_source():
    nb = json.load(open(NOTEBOOK, encoding="utf-8"))
    for c in nb["cells"]:
        src = "".join(c["source"])
        if c["cell_type"] == "code" and "from thop import profile" in src:
            return src, "".join(c["outputs"][0]["text"])
    raise SystemExit("cell not found")


def cpu_check(src):
    """gpt-small on real CPU tensors, as the unpatched cell (device resolves to cpu here)."""
    import time
    ns = {"__name__": "__main__"}
    small = src.replace('for size in model_configs:', 'for size in list(model_configs)[:1]:')
    assert small != src
    t = time.time()
    from io import StringIO
    out, sys.stdout = sys.stdout, StringIO()
    try:
        exec(compile(small, "<cell-cpu>", "exec"), ns)
        got = sys.stdout.getvalue()
    finally:
        sys.stdout = out
    print(f"cpu check ({time.time() - t:.0f} s): {got!r}, macs={ns['macs']!r}", file=sys.stderr)
    return ns["macs"]


def main():
    src, stored = cell_source()
    if "--cpu-check" in OPTIONS:
        cpu_macs = cpu_check(src)
    assert src.count(DEVICE_LINE) == 1
    patched = src.replace(DEVICE_LINE, 'device = torch.device("meta")')
    ns = {"__name__": "__main__"}
    from io import StringIO
    buf = StringIO()
    real_stdout, sys.stdout = sys.stdout, buf
    try:
        with MetaDevice():
            exec(compile(patched, "<cell>", "exec"), ns)
    finally:
        sys.stdout = real_stdout
    out = buf.getvalue()
    sys.stdout.write(out)
    print("matches the notebook's stored output byte for byte:", out == stored, file=sys.stderr)
    assert out == stored, (out, stored)
    if "--cpu-check" in OPTIONS:
        small_meta = None
        # recompute gpt-small's count on meta for the comparison
        cfg = dict(ns["BASE_CONFIG"])
        cfg.update(ns["model_configs"]["gpt-small (124M)"])
        with MetaDevice():
            m = ns["GPTModel"](cfg).bfloat16()
            small_meta, _ = profile(m, inputs=(torch.randint(0, 50257, (2, 1024)),))
        print(f"gpt-small macs: cpu {cpu_macs!r}, meta {small_meta!r}, equal: {cpu_macs == small_meta}",
              file=sys.stderr)


if __name__ == "__main__":
    main()
