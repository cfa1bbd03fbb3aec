#!/usr/bin/python3
"""The ch05 notebook's section 5.3 ("Decoding strategies to control randomness"), run for real:
the goldens of chapters/ch05/decoding.cpp (ch05_decoding). From the repository root:

    BOOK=/path/to/LLMs-from-scratch   # a checkout of github.com/rasbt/LLMs-from-scratch
    /usr/bin/python3 tests/goldens/ch05_reference.py $BOOK > data/golden/default/ch05_decoding.txt
    cp data/golden/default/ch05_decoding.txt data/golden/mkl/ch05_decoding.txt

(the same file for both --bernoulli modes: these cells draw no dropout, and llmfs samples with
PyTorch's default exponential_ kernel in both; MKL's could not be verified).

Reads the code cells of section 5.3 from the book's notebook (ch05/01_main-chapter-code/ch05.ipynb,
JSON), skips the ones that need the trained GPT model or draw a figure (SKIP below), and runs the
rest in order in one namespace under Debian's PyTorch 1.13 (default CPU `exponential_` kernel, as
the book's own outputs were made: see common/torch/sampling.hpp), with torch2x_print.py (beside this script) imported
first so tensors print as PyTorch 2.x prints them. Standard output gets what the notebook shows for
each cell, concatenated in order with no separators (like data/golden/*/ch0*.txt): the cell's
printed text, then, as IPython displays it, the text/plain form of the cell's last expression
if it is an expression statement not ending in ';' (no 5.3 cell has one).

Standard error gets the comparison with the outputs stored in the notebook, cell by cell.
--compare-only: print only that comparison (exit status 1 if any cell differs).
Without BOOK: the usage line on stderr, exit status 2 (book_checkout.py).
"""
import ast
import contextlib
import io
import json
import pathlib
import sys

sys.dont_write_bytecode = True  # never write __pycache__ into the source tree
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import book_checkout  # noqa: E402

NOTEBOOK_IN_BOOK = "ch05/01_main-chapter-code/ch05.ipynb"
BOOK, OPTIONS = book_checkout.argument("ch05_reference.py BOOK [--compare-only]", NOTEBOOK_IN_BOOK)
NOTEBOOK = pathlib.Path(BOOK, NOTEBOOK_IN_BOOK)

import torch2x_print  # noqa: E402,F401  PyTorch 2.x's tensor printing; imports torch
import torch  # noqa: E402

# Code cells of 5.3 not run, by the first line of their source, with the reason.
SKIP = {
    "# NEW: use CPU here as inference is cheap with ":
        "5.3 intro: moves the trained `model` to the CPU and runs generate_text_simple with it",
    "# Plotting":
        "5.3.1 figure: matplotlib bar plot of scaled_probas (output '<Figure size 500x300 with 1 Axes>')",
    "torch.manual_seed(123)\n\ntoken_ids = generate(":
        "5.3.3: generate(model=model, ...) needs the trained `model` and `tokenizer` from 5.1-5.2",
}


def section_cells(nb):
    """The code cells between the '## 5.3' and '## 5.4' markdown headings."""
    cells, inside = [], False
    for cell in nb["cells"]:
        src = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and "## 5.3 Decoding strategies" in src:
            inside = True
        elif cell["cell_type"] == "markdown" and "## 5.4 " in src:
            break
        elif inside and cell["cell_type"] == "code":
            cells.append(cell)
    return cells


def skip_reason(src):
    for prefix, reason in SKIP.items():
        if src.startswith(prefix):
            return reason
    return None


def stored_output(cell):
    """What the notebook stored for a cell: stream text, and text/plain of results and displays."""
    parts = []
    for out in cell.get("outputs", []):
        if out["output_type"] == "stream":
            parts.append("".join(out["text"]))
        elif "text/plain" in out.get("data", {}):
            parts.append("".join(out["data"]["text/plain"]) + "\n")
    return "".join(parts)


def plain_text(value):
    try:
        from IPython.core.formatters import PlainTextFormatter
        return PlainTextFormatter()(value)
    except ImportError:  # IPython is python3-ipython; the 5.3 cells never need this
        return repr(value)


def run_cell(src, namespace):
    """Run one cell as IPython would: all statements, then display the last expression's value."""
    tree = ast.parse(src)
    display = bool(tree.body) and isinstance(tree.body[-1], ast.Expr) and not src.rstrip().endswith(";")
    body = tree.body[:-1] if display else tree.body
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(compile(ast.Module(body=body, type_ignores=[]), "<cell>", "exec"), namespace)
        if display:
            value = eval(compile(ast.Expression(tree.body[-1].value), "<cell>", "eval"), namespace)
            if value is not None:
                print(plain_text(value))
    return buffer.getvalue()


def main(options):
    if options not in ([], ["--compare-only"]):
        sys.stderr.write("usage: ch05_reference.py BOOK [--compare-only]\n")
        return 2
    compare_only = options == ["--compare-only"]
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    namespace = {"__name__": "__main__", "torch": torch}
    report, differ, out = [], 0, []
    for cell in section_cells(nb):
        src = "".join(cell["source"])
        label = f"In [{cell.get('execution_count')}] {src.splitlines()[0][:60]!r}"
        reason = skip_reason(src)
        if reason:
            report.append(f"SKIPPED {label}: {reason}")
            continue
        text = run_cell(src, namespace)
        out.append(text)
        stored = stored_output(cell)
        if text == stored:
            report.append(f"same    {label}" + ("" if text else " (no output)"))
        else:
            differ += 1
            report.append(f"DIFFERS {label}\n  notebook: {stored!r}\n  ours:     {repr(text)}")
    if not compare_only:
        sys.stdout.write("".join(out))
    print(f"torch {torch.__version__}; {NOTEBOOK}", file=sys.stderr)
    print("\n".join(report), file=sys.stderr)
    print(f"{differ} of the run cells differ from the notebook's stored outputs", file=sys.stderr)
    return 1 if (compare_only and differ) else 0


if __name__ == "__main__":
    sys.exit(main(OPTIONS))
