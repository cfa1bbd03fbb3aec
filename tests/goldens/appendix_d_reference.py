#!/usr/bin/python3
"""Appendix D of the book (appendix-D/01_main-chapter-code/appendix-D.ipynb): the learning-rate
warmup, cosine decay, gradient clipping and the modified training function `train_model`, run by
real PyTorch from the notebook's own cells. From the repository root, with BOOK a checkout of
github.com/rasbt/LLMs-from-scratch (commit 28c65cd):

    OPENBLAS_CORETYPE=Haswell nice -n 10 /usr/bin/python3 tests/goldens/appendix_d_reference.py BOOK

(--notebook-only: the notebook runs alone, below; the unit goldens are written too, the train runs
and INDEX.tsv not.)
writes data/tests/appendix_d_cases.txt (the unit goldens of common/train/lr_schedule_test.cpp and
clip_grad_test.cpp) and data/golden/train/appendix_d/<name>.txt with its INDEX.tsv (the goldens of
llmfs-train's appendix-D loop). Option: --out DIR (write DIR/tests/... and DIR/golden/... instead).

The notebook's code cells are read from the checkout's .ipynb and executed as they are (found by
a line each contains, so that a cell moved in the notebook is still found); nothing of their code
is copied here. Around them:
- `tiktoken` is tiktoken_stub.py (OpenAI's GPT-2 encoder); matplotlib is an empty stand-in.
- schedule/...: the warmup cell ("Apply the calculated learning rate", constant peak after warmup)
  and the cosine cell ("min_lr = 0.1 * initial_lr") run over a stand-in loader of L batches
  (their loop bodies only count steps) with the cell's own AdamW on a 1-parameter model. Keys: L
  n_epochs initial_lr peak_lr warmup_steps, lrs (track_lrs, each float.hex()).
- clip/...: the notebook's find_highest_gradient cell, then torch.nn.utils.clip_grad_norm_ (1.13's:
  torch.norm of each gradient, torch.norm of their stack) on parameters whose gradients are
  torch.randn(n) * scale, n from `sizes`, drawn in order after torch.manual_seed(seed). Keys: seed
  sizes scale max_norm, norms (each gradient's torch.norm, float32 bits), total (the returned
  total norm's bits), highest_before, highest_after (find_highest_gradient's bits), clipped_fnv1a64
  (FNV-1a 64 over the clipped gradients' float32 bytes, concatenated in order).
- train runs (CONFIGS): the notebook's train_model cell ("def train_model(") executed in a namespace
  holding `math` and previous_chapters' calc_loss_batch, as the notebook's earlier cells leave
  them; then as the notebook's section D.4 calls it: torch.manual_seed(seed), GPTModel(cfg),
  AdamW(lr=peak_lr, weight_decay=0.1), the loaders of section D's first cells over the text (90/10
  split, stride = context), train_model(..., eval_freq=5, eval_iter=1, start_context="Every effort
  moves you", warmup_steps, initial_lr, min_lr). ORIG_BOOK_VERSION is set in that namespace for
  the configurations that ask for it; a max_norm other than the book's 1.0 is passed by wrapping
  torch.nn.utils.clip_grad_norm_ for the run. --pytorch 2 runs use torch2x_adamw (PyTorch 2.x's
  CPU AdamW step, as train_reference.py does). The golden is what train_model prints.
- the notebook (NOTEBOOK_RUNS): every code cell in order (notebook_run below says how), writing
  data/golden/default/appendix_d_training_<name>.txt (what the cells print) and <name>_d3.txt (what
  the cells before section D.4 print), PyTorch 2.x's AdamW (torch2x_adamw) as the notebook ran.
"""
import contextlib
import io
import json
import math
import os
import pathlib
import sys
import types

sys.dont_write_bytecode = True
HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

import torch  # noqa: E402

import book_checkout  # noqa: E402
import notebook_cells  # noqa: E402

NOTEBOOK = os.path.join("appendix-D", "01_main-chapter-code", "appendix-D.ipynb")
HEAD_BYTES = 3000  # the text "head3000": data/the-verdict.txt's first 3000 bytes (tests/CMakeLists.txt)


def T(name, text, seed, ctx, emb, heads, layers, drop, qkv, peak_lr, epochs, batch, pytorch,
      warmup, initial_lr, min_lr, max_norm=1.0, orig=False):
    return dict(name=name, text=text, seed=seed, pytorch=pytorch,
                gpt=dict(vocab_size=50257, context_length=ctx, emb_dim=emb, n_heads=heads,
                         n_layers=layers, drop_rate=drop, qkv_bias=qkv),
                peak_lr=peak_lr, epochs=epochs, batch=batch, warmup=warmup, initial_lr=initial_lr,
                min_lr=min_lr, max_norm=max_norm, orig=orig)


CONFIGS = [
    # the notebook's D.4 call (initial_lr 1e-5, min_lr 1e-5, peak 0.001), tiny model, short text
    T("head3000_c8_e8_h1_l1_d01", "head3000", 123, 8, 8, 1, 1, 0.1, False, 1e-3, 2, 2, "1.13", 15, 1e-5, 1e-5),
    T("head3000_c8_e8_h1_l1_d01_max03", "head3000", 123, 8, 8, 1, 1, 0.1, False, 1e-3, 2, 2, "1.13", 15, 1e-5, 1e-5,
      max_norm=0.3),
    T("head3000_c8_e8_h1_l1_d01_max03_orig", "head3000", 123, 8, 8, 1, 1, 0.1, False, 1e-3, 2, 2, "1.13", 15, 1e-5,
      1e-5, max_norm=0.3, orig=True),
    T("head3000_c16_e16_h2_l2_d01_pt2", "head3000", 123, 16, 16, 2, 2, 0.1, False, 1e-3, 2, 2, "2", 4, 3e-5, 1e-6,
      max_norm=0.5),
    T("head3000_c8_e8_h1_l1_d00_qkv_seed7", "head3000", 7, 8, 8, 1, 1, 0.0, True, 5e-3, 3, 3, "1.13", 10, 1e-4, 1e-5,
      max_norm=0.25),
    # the notebook's settings (15 epochs, 20% warmup) at a small width and depth, the whole text
    T("verdict_c256_e48_h12_l2_ep15", "verdict", 123, 256, 48, 12, 2, 0.1, False, 1e-3, 15, 2, "2", 27, 1e-5, 1e-5),
]

CLIP_CASES = [  # seed, sizes, scale, max_norm
    (0, [3], 1.0, 1.0),
    (1, [8, 13, 100], 0.01, 1.0),
    (2, [1000, 4099, 64, 7], 0.05, 1.0),
    (3, [50257 * 8 + 3, 256 * 8, 8, 8, 24 * 8], 0.001, 1.0),
    (4, [40000, 17], 0.1, 100.0),
    (5, [33, 5000], 0.02, 0.25),
    (6, [1, 2, 3, 4, 5, 6, 7, 9, 14, 23, 1005, 1007], 0.3, 1.0),  # every tail length n % 8
]

SCHEDULE_CASES = [  # L (batches per epoch), n_epochs, initial_lr, peak_lr, warmup_steps
    (9, 15, 0.0001, 0.01, 27),       # the notebook's numbers
    (7, 3, 3e-05, 0.001, 4),
    (5, 2, 1e-5, 1e-3, 1),
    (39, 2, 1e-5, 1e-3, 15),
]


def fnv1a64(values):
    h = 0xCBF29CE484222325
    for b in values.astype("<f4").tobytes():
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def bits(t):
    import struct
    return "%08x" % struct.unpack("<I", struct.pack("<f", float(t)))[0]


def cells(book):
    nb = json.loads(pathlib.Path(book, NOTEBOOK).read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def cell(sources, needle, avoid=None):
    found = [s for s in sources if needle in s and (avoid is None or avoid not in s)]
    if len(found) != 1:
        raise SystemExit(f"the notebook has {len(found)} code cells containing {needle!r}, expected 1")
    return found[0]


def schedule_cases(sources):
    warm = cell(sources, "Apply the calculated learning rate", avoid="math.cos")
    cosine = cell(sources, "min_lr = 0.1 * initial_lr")
    out = []
    for L, n_epochs, initial_lr, peak_lr, warmup_steps in SCHEDULE_CASES:
        for kind, source in (("warmup", warm), ("cosine", cosine)):
            ns = dict(torch=torch, model=torch.nn.Linear(1, 1), train_loader=[(None, None)] * L,
                      n_epochs=n_epochs, initial_lr=initial_lr, peak_lr=peak_lr, warmup_steps=warmup_steps,
                      total_training_steps=L * n_epochs)
            if kind == "cosine":
                ns["optimizer"] = torch.optim.AdamW(ns["model"].parameters(), weight_decay=0.1)
            exec(compile(source, f"<appendix-D {kind} cell>", "exec"), ns)
            out.append(f"case schedule/{kind}/L{L}/ep{n_epochs}/w{warmup_steps}/peak{peak_lr}\n"
                       f"kind {kind}\nL {L}\nn_epochs {n_epochs}\ninitial_lr {initial_lr!r}\npeak_lr {peak_lr!r}\n"
                       f"warmup_steps {warmup_steps}\nlrs {' '.join(float(x).hex() for x in ns['track_lrs'])}\nend\n")
    return out


def clip_cases(sources):
    ns = {}
    exec(compile(cell(sources, "def find_highest_gradient("), "<appendix-D find_highest_gradient cell>", "exec"),
         {"__builtins__": __builtins__, "print": lambda *a, **k: None, "model": torch.nn.Linear(1, 1)}, ns)
    find_highest_gradient = ns["find_highest_gradient"]
    out = []
    for seed, sizes, scale, max_norm in CLIP_CASES:
        torch.manual_seed(seed)
        model = torch.nn.Module()
        params = []
        for i, n in enumerate(sizes):
            p = torch.nn.Parameter(torch.zeros(n))
            p.grad = torch.randn(n) * scale
            model.register_parameter(f"p{i}", p)
            params.append(p)
        norms = [bits(torch.norm(p.grad.detach(), 2.0)) for p in params]
        before = find_highest_gradient(model)
        total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_norm)
        after = find_highest_gradient(model)
        import numpy as np
        clipped = np.concatenate([p.grad.numpy() for p in params])
        out.append(f"case clip/seed{seed}/n{len(sizes)}/scale{scale}/max{max_norm}\nseed {seed}\n"
                   f"sizes {' '.join(map(str, sizes))}\nscale {scale!r}\nmax_norm {max_norm!r}\n"
                   f"norms {' '.join(norms)}\ntotal {bits(total)}\nhighest_before {bits(before)}\n"
                   f"highest_after {bits(after)}\nclipped_fnv1a64 {fnv1a64(clipped)}\nend\n")
    return out


def flags(cfg):
    g = cfg["gpt"]
    parts = [f"--seed {cfg['seed']}", f"--context-length {g['context_length']}", f"--emb-dim {g['emb_dim']}",
             f"--n-heads {g['n_heads']}", f"--n-layers {g['n_layers']}", f"--drop-rate {g['drop_rate']}"]
    if g["qkv_bias"]:
        parts.append("--qkv-bias")
    parts += [f"--lr {cfg['peak_lr']}", "--weight-decay 0.1", f"--epochs {cfg['epochs']}",
              f"--batch-size {cfg['batch']}", "--eval-freq 5", "--eval-iter 1",
              f"--warmup-steps {cfg['warmup']}", f"--initial-lr {cfg['initial_lr']}", f"--min-lr {cfg['min_lr']}",
              f"--max-norm {cfg['max_norm']}"]
    if cfg["orig"]:
        parts.append("--orig-book-version")
    return " ".join(parts)


def train_run(book, sources, cfg):
    import torch2x_adamw
    sys.path.insert(0, str(pathlib.Path(book, NOTEBOOK).parent))
    import previous_chapters as pc
    text = (ROOT / "data" / "the-verdict.txt").read_bytes()
    if cfg["text"] == "head3000":
        text = text[:HEAD_BYTES]
    text_data = text.decode("utf-8")
    ns = {"math": math, "calc_loss_batch": pc.calc_loss_batch, "torch": torch}
    exec(compile(cell(sources, "def train_model("), "<appendix-D train_model cell>", "exec"), ns)
    ns["ORIG_BOOK_VERSION"] = cfg["orig"]
    g = cfg["gpt"]
    split_idx = int(0.90 * len(text_data))
    train_loader = pc.create_dataloader_v1(text_data[:split_idx], batch_size=cfg["batch"],
                                           max_length=g["context_length"], stride=g["context_length"],
                                           drop_last=True, shuffle=True, num_workers=0)
    val_loader = pc.create_dataloader_v1(text_data[split_idx:], batch_size=cfg["batch"],
                                         max_length=g["context_length"], stride=g["context_length"],
                                         drop_last=False, shuffle=False, num_workers=0)
    original_clip = torch.nn.utils.clip_grad_norm_
    clipped = []

    def clip(parameters, max_norm, *args, **kwargs):
        total = original_clip(parameters, cfg["max_norm"], *args, **kwargs)
        clipped.append(float(total) > cfg["max_norm"])
        return total

    buffer = io.StringIO()
    if cfg["pytorch"] == "2":
        torch2x_adamw.install()
    torch.nn.utils.clip_grad_norm_ = clip
    try:
        with contextlib.redirect_stdout(buffer):
            torch.manual_seed(cfg["seed"])
            model = pc.GPTModel(dict(g))
            optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["peak_lr"], weight_decay=0.1)
            tokenizer = sys.modules["tiktoken"].get_encoding("gpt2")
            _, _, _, lrs = ns["train_model"](
                model, train_loader, val_loader, optimizer, torch.device("cpu"), n_epochs=cfg["epochs"],
                eval_freq=5, eval_iter=1, start_context="Every effort moves you", tokenizer=tokenizer,
                warmup_steps=cfg["warmup"], initial_lr=cfg["initial_lr"], min_lr=cfg["min_lr"])
    finally:
        torch.nn.utils.clip_grad_norm_ = original_clip
        torch2x_adamw.uninstall()
    print(f"{cfg['name']}: {len(lrs)} steps, {len(clipped)} clipping calls, {sum(clipped)} of them scaled down",
          file=sys.stderr)
    return buffer.getvalue()


# The notebook's programs (chapters/appendix_d/training.cpp): name, GPT_CONFIG_124M's changes, n_epochs
NOTEBOOK_RUNS = [
    ("c32_e16_h2_l2_ep2", dict(context_length=32, emb_dim=16, n_heads=2, n_layers=2), 2),
]


def notebook_run(book, sources, changes, epochs):
    """Every code cell of the notebook in order, as Jupyter runs them, in one namespace, with the
    notebook's folder as the working directory holding data/the-verdict.txt (so its "file exists"
    branch reads it), GPT_CONFIG_124M updated by `changes` right after the first cell (whose own
    GPTModel is built with the changed configuration too), "n_epochs = 15" read as "n_epochs =
    {epochs}", and plt a stand-in. Returns (the outputs of the cells before section D.4, all
    outputs), without the first cell's: its "torch version" line and its "Device: cpu" (a line the
    stored notebook's output of that cell lacks)."""
    import shutil
    import tempfile
    sys.path.insert(0, str(pathlib.Path(book, NOTEBOOK).parent))
    import previous_chapters as pc
    original_gpt, original_plt = pc.GPTModel, pc.plt
    pc.GPTModel = lambda cfg: original_gpt({**cfg, **changes})
    # previous_chapters bound its plt when first imported (the empty module main() installs):
    # its plot_losses, which the last cell calls, needs the stand-in too
    sys.modules["matplotlib.pyplot"] = pc.plt = notebook_cells.Anything()
    sys.modules["matplotlib"].pyplot = sys.modules["matplotlib.pyplot"]
    ns = {"__name__": "__main__"}
    outputs, before_d4 = [], None
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copyfile(ROOT / "data" / "the-verdict.txt", os.path.join(tmp, "the-verdict.txt"))
        os.chdir(tmp)
        try:
            for k, source in enumerate(sources):
                if "def train_model(" in source:
                    before_d4 = "".join(outputs)
                source = source.replace("n_epochs = 15", f"n_epochs = {epochs}")
                buffer = io.StringIO()
                with contextlib.redirect_stdout(buffer):
                    exec(compile(source, f"<appendix-D cell {k}>", "exec"), ns)
                if k == 0:
                    ns["GPT_CONFIG_124M"].update(changes)
                    continue  # "torch version: ...", "Device: cpu"
                outputs.append(buffer.getvalue())
        finally:
            os.chdir(cwd)
            pc.GPTModel, pc.plt = original_gpt, original_plt
    return before_d4, "".join(outputs)


def main():
    only_notebook = "--notebook-only" in sys.argv
    if only_notebook:
        sys.argv.remove("--notebook-only")
    book, rest = book_checkout.argument("appendix_d_reference.py BOOK [--out DIR]", NOTEBOOK)
    out = ROOT / "data"
    if rest[:1] == ["--out"] and len(rest) == 2:
        out = pathlib.Path(rest[1])
    elif rest:
        sys.exit(f"unexpected arguments {rest}")
    import tiktoken_stub
    tiktoken_stub.install()
    for name in ("matplotlib", "matplotlib.pyplot"):
        sys.modules.setdefault(name, types.ModuleType(name))
    sys.modules["matplotlib"].pyplot = sys.modules["matplotlib.pyplot"]
    torch.cuda.is_available = lambda: False
    sources = cells(book)
    if only_notebook:
        CONFIGS.clear()
    (out / "tests").mkdir(parents=True, exist_ok=True)
    header = (f"# Generated by tests/goldens/appendix_d_reference.py with torch {torch.__version__} -- do not edit.\n"
              "# Formats: see the docstring of tests/goldens/appendix_d_reference.py.\n")
    (out / "tests" / "appendix_d_cases.txt").write_text(
        header + "".join(schedule_cases(sources) + clip_cases(sources)), encoding="utf-8")
    gold = out / "golden" / "train" / "appendix_d"
    gold.mkdir(parents=True, exist_ok=True)
    index = ["name\ttext\tflags\tpytorch\tfile"]
    for cfg in CONFIGS:
        (gold / f"{cfg['name']}.txt").write_text(train_run(book, sources, cfg), encoding="utf-8")
        index.append(f"{cfg['name']}\t{cfg['text']}\t{flags(cfg)}\t{cfg['pytorch']}\t{cfg['name']}.txt")
    if not only_notebook:
        (gold / "INDEX.tsv").write_text("\n".join(index) + "\n", encoding="utf-8")
    for name, changes, epochs in NOTEBOOK_RUNS:
        import torch2x_adamw
        torch2x_adamw.install()  # the notebook ran PyTorch 2.x: --pytorch 2, the program's default
        try:
            before_d4, everything = notebook_run(book, sources, changes, epochs)
        finally:
            torch2x_adamw.uninstall()
        default = out / "golden" / "default"
        default.mkdir(parents=True, exist_ok=True)
        (default / f"appendix_d_training_{name}_d3.txt").write_text(before_d4, encoding="utf-8")
        (default / f"appendix_d_training_{name}.txt").write_text(everything, encoding="utf-8")
        print(f"notebook {name}: {everything.count(chr(10))} lines", file=sys.stderr)
    print(f"torch {torch.__version__}; OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
