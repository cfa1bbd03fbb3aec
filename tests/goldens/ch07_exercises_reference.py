"""The book's exercise solutions of chapter 7 that run without GPT-2's weights, run for real: the
reference for ch07_exercise_7_1 and 7_2.

    BOOK=/path/to/LLMs-from-scratch   # a checkout of github.com/rasbt/LLMs-from-scratch
    for e in 7_1 7_2; do (cd tests/goldens && /usr/bin/python3 ch07_exercises_reference.py $BOOK $e) \\
        > data/golden/default/ch07_exercise_$e.txt; cp data/golden/default/ch07_exercise_$e.txt data/golden/mkl/; done

(without BOOK: the usage line on stderr, exit status 2; see book_checkout.py)

It runs the code cells of the book's ch07/01_main-chapter-code/exercise-solutions.ipynb under one
"## Exercise 7.N" heading as they are, in one namespace as Jupyter does (notebook_cells.run_cell).
Standard output gets what the notebook shows.

  7_1   "Exercise 7.1: Changing prompt styles": the Phi-3 format_input on two entries.
  7_2   "Exercise 7.2: Instruction and input masking": InstructionDataset with instruction lengths,
        custom_collate_fn masking them with -100, a loader of three entries, inputs[1] and
        targets[1], both decoded.

Exercises 7.3 and 7.4 are prose and commands (the exercise_experiments.py script fine-tunes GPT-2
medium). tiktoken is tiktoken_stub (OpenAI's GPT-2 encoder); torch2x_print makes tensors print as
PyTorch 2.x prints them. Nothing is random: the mkl and default goldens are the same file.
"""
import json
import pathlib
import sys

import book_checkout
from notebook_cells import exercise_cells, run_cell

NOTEBOOK_IN_BOOK = "ch07/01_main-chapter-code/exercise-solutions.ipynb"
USAGE = "ch07_exercises_reference.py BOOK 7_1|7_2"
BOOK, ARGS = book_checkout.argument(USAGE, NOTEBOOK_IN_BOOK)


def main():
    if len(ARGS) != 1 or ARGS[0] not in ("7_1", "7_2"):
        sys.stderr.write(f"which exercise: 7_1 or 7_2\nusage: {USAGE}\n")
        sys.exit(2)
    import torch2x_print  # noqa: F401  PyTorch 2.x's tensor printing; imports torch
    import tiktoken_stub
    tiktoken_stub.install()
    nb = json.loads(pathlib.Path(BOOK, NOTEBOOK_IN_BOOK).read_text(encoding="utf-8"))
    heading = {"7_1": "## Exercise 7.1:", "7_2": "## Exercise 7.2:"}[ARGS[0]]
    cells = exercise_cells(nb, heading)
    if not cells:
        sys.exit(f"{NOTEBOOK_IN_BOOK} has no code cells under {heading!r}")
    ns = {"__name__": "__main__"}
    for k, src in enumerate(cells):
        run_cell(src, ns, f"{NOTEBOOK_IN_BOOK}: {heading} cell {k + 1}")


if __name__ == "__main__":
    main()
