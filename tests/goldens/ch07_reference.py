#!/usr/bin/python3
"""The ch07 notebook's data sections (7.2 the instruction data, 7.3 the batches, 7.4 the data
loaders), run for real: the goldens of chapters/ch07/{instruction_data,batches,data_loaders}.cpp.
From the repository root:

    BOOK=/path/to/LLMs-from-scratch   # a checkout of github.com/rasbt/LLMs-from-scratch
    for s in 7.2:instruction_data 7.3:batches 7.4:data_loaders; do
      /usr/bin/python3 tests/goldens/ch07_reference.py $BOOK ${s%%:*} > data/golden/default/ch07_${s#*:}.txt
      cp data/golden/default/ch07_${s#*:}.txt data/golden/mkl/ch07_${s#*:}.txt
    done

(the same file for both --bernoulli modes: these cells draw no dropout).

Runs the notebook's code cells from "## 7.2" up to "## 7.5" in order, in one namespace, under
Debian's PyTorch 1.13 on the CPU, in the book's ch07/01_main-chapter-code folder, so that the
notebook's download_and_load_file finds instruction-data.json there and downloads nothing (it
never writes: the file exists). tiktoken is tiktoken_stub.py (OpenAI's GPT-2 encoder, beside this
script); torch2x_print.py is imported first so tensors print as PyTorch 2.x prints them. Standard
output gets what the cells of SECTION (7.2, 7.3 or 7.4) print, in order; the cells of the
sections before it run too, silently (7.4 needs 7.2's data and 7.3's functions). Standard error
gets the comparison with the outputs stored in the notebook (made on a Mac: "Device: mps" and
device='mps:0' differ from the CPU's).
--compare-only: print only that comparison (exit status 1 if any cell differs).
Without BOOK: the usage line on stderr, exit status 2 (book_checkout.py).
"""
import ast
import contextlib
import io
import json
import os
import pathlib
import sys

sys.dont_write_bytecode = True  # never write __pycache__ into the source tree
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import book_checkout  # noqa: E402

FOLDER_IN_BOOK = "ch07/01_main-chapter-code"
NOTEBOOK_IN_BOOK = FOLDER_IN_BOOK + "/ch07.ipynb"
USAGE = "ch07_reference.py BOOK 7.2|7.3|7.4 [--compare-only]"
BOOK, OPTIONS = book_checkout.argument(USAGE, NOTEBOOK_IN_BOOK)
NOTEBOOK = pathlib.Path(BOOK, NOTEBOOK_IN_BOOK).resolve()
SECTIONS = ["7.2", "7.3", "7.4"]

import tiktoken_stub  # noqa: E402

tiktoken_stub.install()
import torch2x_print  # noqa: E402,F401  PyTorch 2.x's tensor printing; imports torch
import torch  # noqa: E402


def section_cells(nb):
    """(section, cell) for the code cells from '## 7.2' up to '## 7.5'."""
    cells, section = [], None
    for cell in nb["cells"]:
        src = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            heading = next((line for line in src.splitlines() if line.startswith("## ")), None)
            if heading:
                number = heading.split()[1]
                if number == "7.5":
                    break
                if number in SECTIONS:
                    section = number
        elif section and cell["cell_type"] == "code":
            cells.append((section, cell))
    return cells


def stored_output(cell):
    parts = []
    for out in cell.get("outputs", []):
        if out["output_type"] == "stream":
            parts.append("".join(out["text"]))
        elif "text/plain" in out.get("data", {}):
            parts.append("".join(out["data"]["text/plain"]) + "\n")
    return "".join(parts)


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
                print(repr(value))
    return buffer.getvalue()


def main(options):
    compare_only = "--compare-only" in options
    rest = [o for o in options if o != "--compare-only"]
    if len(rest) != 1 or rest[0] not in SECTIONS:
        sys.stderr.write(f"usage: {USAGE}\n")
        return 2
    wanted = rest[0]
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    os.chdir(NOTEBOOK.parent)  # instruction-data.json is there: download_and_load_file only reads it
    namespace = {"__name__": "__main__"}
    report, differ, out = [], 0, []
    for section, cell in section_cells(nb):
        src = "".join(cell["source"])
        text = run_cell(src, namespace)
        if section != wanted:
            continue
        out.append(text)
        label = f"In [{cell.get('execution_count')}] {src.splitlines()[0][:60]!r}"
        stored = stored_output(cell)
        if text == stored:
            report.append(f"same    {label}" + ("" if text else " (no output)"))
        else:
            differ += 1
            report.append(f"DIFFERS {label}\n  notebook: {stored[:300]!r}\n  ours:     {text[:300]!r}")
    if not compare_only:
        sys.stdout.write("".join(out))
    print(f"torch {torch.__version__}; {NOTEBOOK_IN_BOOK} section {wanted}", file=sys.stderr)
    print("\n".join(report), file=sys.stderr)
    print(f"{differ} of the run cells differ from the notebook's stored outputs", file=sys.stderr)
    return 1 if (compare_only and differ) else 0


if __name__ == "__main__":
    sys.exit(main(OPTIONS))
