#!/usr/bin/python3
"""Run one of the book's ch04 bonus scripts (04_gqa .. 08_deltanet) under real PyTorch 1.13, patched
only where llmfs must differ, and print what it prints: the reference for the llmfs programs

    ch04_kv_mha ch04_gqa ch04_mla ch04_swa ch04_kv_ffn ch04_moe
    ch04_memory_estimator_{gqa,mla,swa,moe}

Usage:

    OPENBLAS_CORETYPE=Haswell COLUMNS=80 /usr/bin/python3 script_reference.py BOOK [--prog NAME] PROGRAM [ARGS...]

BOOK, always the first argument: a checkout of rasbt/LLMs-from-scratch (the goldens: commit 28c65cd).

PROGRAM is one of the names above, or ch04_kv_mha@05 / ch04_kv_mha@06 for the (identical, see
tests/goldens/README.md) copies of gpt_with_kv_mha.py in 05_mla / 06_swa, or plot_{gqa,mla,swa,moe,deltanet} for
the plot scripts (then the output file is redirected, see PLOTS below). ARGS are handed to the
script's argparse unchanged (sys.argv[0] is the script's file name, so argparse's `prog` is e.g.
`gpt_with_kv_gqa.py`, as with `python gpt_with_kv_gqa.py ...`). `--prog NAME` sets sys.argv[0]
(and so argparse's usage line) to NAME instead, e.g. `--prog ch04_gqa`: argparse wraps the usage
line according to the length of the program name, so help/error text depends on it.
COLUMNS sets argparse's wrapping width (COLUMNS - 2); unset and not a terminal it is 80 -> 78.

What is patched (each replacement must match exactly once, or this script stops):
  * GPT scripts: `model.to(device, dtype=torch.bfloat16)` -> `dtype=torch.float32`, and
    `torch.device("cuda" if torch.cuda.is_available() else "cpu")` -> `torch.device("cpu")`.
    (No CUDA here anyway, so every other `torch.cuda.is_available()` branch is untaken, as on any
    CPU-only machine.)
  * `import tiktoken` gets a stand-in module whose get_encoding("gpt2") is OpenAI's GPT-2
    encoder.py (make_tokenizer_goldens.py beside this script, which is what tiktoken's gpt2
    encoding equals). That file needs Debian's python3-regex, missing on this machine: if
    `import regex` fails, a stand-in translating GPT-2's one pattern to stdlib `re` (exact for
    ASCII) is used, and encode("Hello, I am") == [15496, 11, 314, 716] is asserted.
  * torch2x_print is imported first (PyTorch 2.x tensor printing; these scripts only print an
    int64 tensor, which 1.13 and 2.x print alike).
  * estimators: nothing (they import neither torch nor tiktoken).
  * plot scripts: only the output path (PLOTS).

STDOUT/STDERR: the script's stdout is captured and, when the script ends (normally, by SystemExit
or by an exception), split: these timing / memory lines go to stderr, everything else to stdout
(in that order: stdout first, then the stderr lines):
  * the blank line + `Time: {total_time:.2f} sec` (main prints f"\\nTime: ..."; both lines go)
  * `{int(len/total_time)} tokens/sec`
  * `Avg FFN time/call: {:.3f} ms` (gpt_with_kv_ffn.py) / `Avg MoE FF time/call: {:.3f} ms`
    (gpt_with_kv_moe.py): printed INSIDE generate_text_simple_cached, i.e. between the IN and
    the OUT block
  * CUDA-only lines, never printed here: `Avg FFN mem delta/call: ...`,
    `Avg MoE FF mem delta/call: ...`, `Max memory allocated: ... GB`
argparse's own messages (usage + error) go to the real stderr directly; --help to stdout.
Exit status is the script's: 0, 2 for argparse errors, 1 (+ traceback on stderr) for an
exception; without BOOK or a known PROGRAM: this text on stderr, exit status 2.
"""
import io
import os
import re
import sys
import types

sys.dont_write_bytecode = True  # never write __pycache__ into the read-only book checkout

HERE = os.path.dirname(os.path.abspath(__file__))
BOOK = None  # <checkout>/ch04, from the command line
GOLDENS = HERE  # torch2x_print.py, make_tokenizer_goldens.py
PLOT_DIR = os.path.join(os.getcwd(), "plots")

SCRIPTS = {
    "ch04_kv_mha": "04_gqa/gpt_with_kv_mha.py",
    "ch04_kv_mha@05": "05_mla/gpt_with_kv_mha.py",
    "ch04_kv_mha@06": "06_swa/gpt_with_kv_mha.py",
    "ch04_gqa": "04_gqa/gpt_with_kv_gqa.py",
    "ch04_mla": "05_mla/gpt_with_kv_mla.py",
    "ch04_swa": "06_swa/gpt_with_kv_swa.py",
    "ch04_kv_ffn": "07_moe/gpt_with_kv_ffn.py",
    "ch04_moe": "07_moe/gpt_with_kv_moe.py",
    "ch04_memory_estimator_gqa": "04_gqa/memory_estimator_gqa.py",
    "ch04_memory_estimator_mla": "05_mla/memory_estimator_mla.py",
    "ch04_memory_estimator_swa": "06_swa/memory_estimator_swa.py",
    "ch04_memory_estimator_moe": "07_moe/memory_estimator_moe.py",
    "plot_gqa": "04_gqa/plot_memory_estimates_gqa.py",
    "plot_mla": "05_mla/plot_memory_estimates_mla.py",
    "plot_swa": "06_swa/plot_memory_estimates_swa.py",
    "plot_moe": "07_moe/plot_memory_estimates_moe.py",
    "plot_deltanet": "08_deltanet/plot_memory_estimates_gated_deltanet.py",
}

GPT_PATCHES = [
    ("model.to(device, dtype=torch.bfloat16)", "model.to(device, dtype=torch.float32)"),
    ('torch.device("cuda" if torch.cuda.is_available() else "cpu")', 'torch.device("cpu")'),
]

# PLOTS: the book's output names are relative to the cwd; they are rewritten to PLOT_DIR with a
# .png extension (matplotlib picks the format from the extension; the book's are PDF). The MoE plot
# script only saves with --save PATH (else plt.show()); pass --save yourself (the Agg backend is
# forced, so show() would draw nothing).
PLOT_PATCHES = {
    "plot_gqa": [('plt.savefig("kv_bytes_vs_context_length.pdf")',
                  'plt.savefig(__PLOT_DIR__ + "/gqa_kv_bytes_vs_context_length.png")')],
    "plot_mla": [('plt.savefig("kv_bytes_vs_context_length.pdf")',
                  'plt.savefig(__PLOT_DIR__ + "/mla_kv_bytes_vs_context_length.png")')],
    "plot_swa": [('default=Path("kv_bytes_vs_context_length.pdf")',
                  'default=Path(__PLOT_DIR__ + "/swa_kv_bytes_vs_context_length.png")')],
    "plot_moe": [],
    "plot_deltanet": [('plt.savefig("deltanet_memory_plot.pdf", dpi=160)',
                       'plt.savefig(__PLOT_DIR__ + "/deltanet_memory_plot.png", dpi=160)')],
}

TIMING_PATTERNS = [
    re.compile(r"^\nTime: [0-9.]+ sec\n", re.M),
    re.compile(r"^-?\d+ tokens/sec\n", re.M),
    re.compile(r"^Avg (?:FFN|MoE FF) time/call: [0-9.]+ ms\n", re.M),
    re.compile(r"^Avg (?:FFN|MoE FF) mem delta/call: .* MB \(max .* MB\)\n", re.M),
    re.compile(r"^Max memory allocated: [0-9.]+ GB\n", re.M),
]


def patch(src, old, new):
    n = src.count(old)
    if n != 1:
        raise SystemExit(f"script_reference: patch target found {n} times: {old!r}")
    return src.replace(old, new)


def regex_standin():
    """make_tokenizer_goldens.py needs the `regex` module (Debian's python3-regex), which is not
    installed on this machine. This stand-in translates GPT-2's one pattern to stdlib `re`; it is
    exact for ASCII text, and the scripts only ever encode "Hello, I am" (checked in main())."""
    import re as stdre
    gpt2_pat = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
    std_pat = r"""'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+"""
    mod = types.ModuleType("regex")

    def compile(p, flags=0):
        assert p == gpt2_pat, p
        return stdre.compile(std_pat, flags)

    mod.compile = compile
    mod.findall = lambda p, text: p.findall(text)
    return mod


def fake_tiktoken():
    sys.path.insert(0, GOLDENS)
    try:
        import regex  # noqa: F401
    except ImportError:
        sys.modules["regex"] = regex_standin()
    import make_tokenizer_goldens as gpt2
    assert gpt2.encode("Hello, I am") == [15496, 11, 314, 716]

    class Encoding:
        name = "gpt2"

        def encode(self, text, allowed_special=frozenset(), disallowed_special="all"):
            # The scripts only encode "Hello, I am" (no special tokens).
            return gpt2.encode(text)

        def decode(self, ids):
            return gpt2.decode(ids)

    mod = types.ModuleType("tiktoken")

    def get_encoding(name):
        assert name == "gpt2", name
        return Encoding()

    mod.get_encoding = get_encoding
    return mod


TIMING_RE = re.compile("|".join("(?:%s)" % p.pattern for p in TIMING_PATTERNS), re.M)


def split_timing(text):
    """(stdout without the timing lines, the timing lines in the order printed)"""
    timing = "".join(m.group(0) for m in TIMING_RE.finditer(text))
    return TIMING_RE.sub("", text), timing


def main():
    global BOOK
    args = sys.argv[1:]
    if not args or args[0].startswith("-") or not os.path.isdir(os.path.join(args[0], "ch04")):
        sys.stderr.write(__doc__)
        sys.exit(2)
    BOOK, args = os.path.join(args[0], "ch04"), args[1:]
    prog = None
    if args[:1] == ["--prog"] and len(args) >= 2:
        prog, args = args[1], args[2:]
    if not args or args[0] not in SCRIPTS:
        sys.stderr.write(__doc__ + "\nPROGRAM must be one of: " + " ".join(SCRIPTS) + "\n")
        sys.exit(2)
    name, argv = args[0], args[1:]
    path = os.path.join(BOOK, SCRIPTS[name])
    with open(path, encoding="utf-8") as f:
        src = f.read()

    is_gpt = os.path.basename(path).startswith("gpt_with_kv_")
    is_plot = name.startswith("plot_")
    if is_gpt:
        sys.path.insert(0, GOLDENS)
        import torch2x_print  # noqa: F401  (PyTorch 2.x printing)
        sys.modules["tiktoken"] = fake_tiktoken()
        for old, new in GPT_PATCHES:
            src = patch(src, old, new)
    if is_plot:
        import matplotlib
        matplotlib.use("Agg")
        os.makedirs(PLOT_DIR, exist_ok=True)
        for old, new in PLOT_PATCHES[name]:
            src = patch(src, old, new)

    # the plot scripts import their folder's memory_estimator_*.py
    sys.path.insert(0, os.path.dirname(path))
    sys.argv = [prog or os.path.basename(path)] + argv
    g = {"__name__": "__main__", "__file__": path, "__builtins__": __builtins__,
         "__PLOT_DIR__": PLOT_DIR}
    code = compile(src, path, "exec")

    real_stdout = sys.stdout
    buf = io.StringIO()
    sys.stdout = buf
    try:
        exec(code, g)
    finally:
        sys.stdout = real_stdout
        out, timing = split_timing(buf.getvalue()) if is_gpt else (buf.getvalue(), "")
        real_stdout.write(out)
        real_stdout.flush()
        sys.stderr.write(timing)
        sys.stderr.flush()


if __name__ == "__main__":
    main()
