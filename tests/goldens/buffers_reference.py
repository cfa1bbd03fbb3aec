"""The book's "Understanding PyTorch Buffers" notebook
(ch03/03_understanding-buffers/understanding-buffers.ipynb of rasbt/LLMs-from-scratch), run cell by
cell on a CPU-only machine: the reference for ch03_buffers.

    BOOK=/path/to/LLMs-from-scratch   # a checkout of github.com/rasbt/LLMs-from-scratch
    OPENBLAS_CORETYPE=Haswell /usr/bin/python3 tests/goldens/buffers_reference.py $BOOK \
        > data/golden/default/ch03_buffers.txt
    cp data/golden/default/ch03_buffers.txt data/golden/mkl/   # dropout 0.0 draws nothing
    OPENBLAS_CORETYPE=Haswell /usr/bin/python3 tests/goldens/buffers_reference.py $BOOK --markers
                                                  (the same, with a "### cell N" line before each cell)

The code cells are read from the book's notebook and executed in order, in one namespace,
as a notebook kernel would. What each cell shows is printed:
  * everything the cell print()s, then
  * the value of the cell's last statement if it is an expression (IPython's default
    ast_node_interactivity='last_expr') and not None, formatted by IPython's own text/plain
    formatter (IPython.core.formatters.PlainTextFormatter, i.e. IPython.lib.pretty with the
    notebook's defaults: max_width 79, newline '\\n'), followed by a newline as the notebook shows it.
With --markers, a line "### cell N" precedes each code cell's output, N = 1..16 = the cell's
execution count in the stored notebook (= its ordinal among the code cells); cells that show
nothing still get their marker.

Patches (only these):
  * the two torch.save / torch.load paths "model.pth" point into a fresh temporary directory
    (removed at exit), so nothing is written next to the book.
Device: none. Cell 3 picks the device itself (mps, else cuda, else cpu); on this CPU-only machine
it picks cpu, which is what the program must reproduce. Cell 4 (the stored notebook's
RuntimeError on CUDA) therefore runs and prints the context vectors.

Tensors print as PyTorch 2.x prints them (torch2x_print, beside this script; it changes nothing
here as no cell forces sci_mode). Every module has dropout 0.0, which in PyTorch draws no random
numbers, so both Bernoulli kernels give this output. The stored notebook ran on CUDA: its outputs
differ in the device prints, cell 3's "Machine has GPU", and cell 4 (a RuntimeError there).
"""
import ast
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import book_checkout  # noqa: E402

NOTEBOOK_IN_BOOK = "ch03/03_understanding-buffers/understanding-buffers.ipynb"
BOOK, OPTIONS = book_checkout.argument("buffers_reference.py BOOK [--markers]", NOTEBOOK_IN_BOOK)
NOTEBOOK = os.path.join(BOOK, NOTEBOOK_IN_BOOK)

import torch2x_print  # noqa: F401,E402

from IPython.core.formatters import PlainTextFormatter  # noqa: E402


def code_cells(path):
    nb = json.load(open(path, encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def run_cell(src, ns, fmt):
    tree = ast.parse(src)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, "<cell>", "exec"), ns)
    if last is not None:
        value = eval(compile(last, "<cell>", "eval"), ns)
        if value is not None:
            sys.stdout.write(fmt(value) + "\n")


def main():
    markers = "--markers" in OPTIONS
    tmp = tempfile.mkdtemp(prefix="buffers_")
    model_path = os.path.join(tmp, "model.pth")
    fmt = PlainTextFormatter()
    ns = {"__name__": "__main__"}
    try:
        for n, src in enumerate(code_cells(NOTEBOOK), start=1):
            patched = src.replace('"model.pth"', repr(model_path))
            assert patched.count(repr(model_path)) == src.count('"model.pth"')
            if markers:
                print(f"### cell {n}")
            sys.stdout.flush()
            run_cell(patched, ns, fmt)
            sys.stdout.flush()
    finally:
        if os.path.exists(model_path):
            os.remove(model_path)
        os.rmdir(tmp)


if __name__ == "__main__":
    main()
