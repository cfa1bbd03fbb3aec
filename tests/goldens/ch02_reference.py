"""The book's chapter-2 notebook (ch02/01_main-chapter-code/ch02.ipynb of rasbt/LLMs-from-scratch),
run cell by cell: the reference for the ch02_* programs, one section (program) at a time.

    BOOK=/path/to/LLMs-from-scratch   # a checkout of github.com/rasbt/LLMs-from-scratch
    for s in tokenizing simple_tokenizer bpe data_sampling embeddings; do
      /usr/bin/python3 tests/goldens/ch02_reference.py $BOOK $s > data/golden/default/ch02_$s.txt
      cp data/golden/default/ch02_$s.txt data/golden/mkl/    # no dropout: both kernels alike
    done
    /usr/bin/python3 tests/goldens/ch02_reference.py $BOOK all --markers   (every cell, "### cell N" first)
    for s in exercise_2_1 exercise_2_2; do     # the exercise programs, from exercise-solutions.ipynb
      /usr/bin/python3 tests/goldens/ch02_reference.py $BOOK $s > data/golden/default/ch02_$s.txt
      cp data/golden/default/ch02_$s.txt data/golden/mkl/
    done

The code cells are read from the book's notebook and executed in order, in one namespace, as a
notebook kernel would, in the notebook's own folder (its cell 2 finds the-verdict.txt there and
downloads nothing). What each cell shows is kept: everything it print()s, then the value of its
last statement if that is an expression and not None, as repr() (IPython is not installed here;
its PlainTextFormatter shows these cells' strings, short lists and ints as repr does: checked, as
every cell's output is compared with the notebook's stored one and the differences are counted on
stderr). A section's golden is what its cells show, in order.

Stand-ins (only these): tiktoken is not packaged here, so tiktoken_stub.py (OpenAI's GPT-2
encoder.py over data/gpt2, which gives tiktoken's "gpt2" ids) plays it, and
importlib.metadata.version("tiktoken") answers "0.7.0"; the version cells (1, 26: tiktoken's
version, 35: PyTorch's) are left out of every section, as the programs leave them out. Cell 17
raises KeyError('Hello') in the notebook, on purpose: here too, and it shows nothing (the program
prints nothing for it and says why under --annotate). Cell 2 (the download) belongs to no program:
its stored output is empty, while the value of its last statement (a string) is shown here. The BPE cells (28, 29, 30, 34) are also
checked against the notebook's stored outputs, which tiktoken printed: the script fails if they differ.
The exercise sections run exercise-solutions.ipynb the same way (its cell 1, the versions, left out);
each of its cells past the first must show what the stored notebook shows, or the script fails.
"""
import ast
import contextlib
import importlib.metadata
import io
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import book_checkout  # noqa: E402

NOTEBOOK_IN_BOOK = "ch02/01_main-chapter-code/ch02.ipynb"
EXERCISE_NOTEBOOK_IN_BOOK = "ch02/01_main-chapter-code/exercise-solutions.ipynb"
EXERCISES = {  # the exercise programs, from exercise-solutions.ipynb (its cell 1 prints versions)
    "exercise_2_1": range(2, 12),
    "exercise_2_2": [12, 13, 14],
}
SECTIONS = {  # program -> the code cells (execution counts) it reproduces
    "tokenizing": range(3, 13),
    "simple_tokenizer": range(13, 25),
    "bpe": [25, 27, 28, 29],
    "data_sampling": [30, 31, 32, 33, 34] + list(range(36, 42)),
    "embeddings": range(42, 54),
}
VERSION_CELLS = {1, 26, 35}
ERROR_CELLS = {17: KeyError}
BPE_CELLS = {28, 29, 30, 34}  # their outputs come from tiktoken: checked against the stored notebook
USAGE = f"ch02_reference.py BOOK {{{'|'.join(list(SECTIONS) + list(EXERCISES))}|all}} [--markers]"
BOOK, ARGS = book_checkout.argument(USAGE, NOTEBOOK_IN_BOOK)
MARKERS = "--markers" in ARGS
ARGS = [a for a in ARGS if a != "--markers"]
if len(ARGS) != 1 or (ARGS[0] not in SECTIONS and ARGS[0] not in EXERCISES and ARGS[0] != "all"):
    sys.stderr.write(f"usage: {USAGE}\n")
    sys.exit(2)

import torch2x_print  # noqa: F401,E402
import tiktoken_stub  # noqa: E402

tiktoken_stub.install()
_version = importlib.metadata.version
importlib.metadata.version = lambda name: "0.7.0" if name == "tiktoken" else _version(name)


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


def stored_output(cell):
    text = ""
    for out in cell.get("outputs", []):
        if out["output_type"] == "stream":
            text += "".join(out["text"])
        elif out["output_type"] == "execute_result":
            text += "".join(out["data"]["text/plain"]) + "\n"
    return text


def main():
    exercise = ARGS[0] in EXERCISES
    nb_path = os.path.join(BOOK, EXERCISE_NOTEBOOK_IN_BOOK if exercise else NOTEBOOK_IN_BOOK)
    cells = [c for c in json.load(open(nb_path, encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
    fmt = repr
    ns = {"__name__": "__main__"}
    shown = {}
    os.chdir(os.path.dirname(nb_path))
    for n, cell in enumerate(cells, start=1):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            try:
                run_cell("".join(cell["source"]), ns, fmt)
            except Exception as e:  # noqa: BLE001
                if exercise or not isinstance(e, ERROR_CELLS.get(n, ())):
                    raise
                sys.stderr.write(f"cell {n} raised {type(e).__name__}: {e} (as in the notebook)\n")
        shown[n] = buf.getvalue()
        if (exercise or n in BPE_CELLS) and n > 1 and shown[n] != stored_output(cell):
            raise SystemExit(f"cell {n}: the tokenizer stand-in printed {shown[n]!r}, "
                             f"the notebook's tiktoken {stored_output(cell)!r}")
    differ = [n for n, cell in enumerate(cells, start=1)
              if n not in VERSION_CELLS and (exercise or n not in ERROR_CELLS) and shown[n] != stored_output(cell)]
    sys.stderr.write(f"cells whose output differs from the stored notebook's: {differ or 'none'}\n")
    wanted = range(1, len(cells) + 1) if ARGS[0] == "all" else {**SECTIONS, **EXERCISES}[ARGS[0]]
    for n in wanted:
        if n in VERSION_CELLS:
            continue
        if MARKERS:
            print(f"### cell {n}")
        sys.stdout.write(shown[n])


if __name__ == "__main__":
    main()
