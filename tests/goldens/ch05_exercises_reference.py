"""The book's exercise solutions of chapter 5, run for real: the reference for ch05_exercise_5_1 and 5_3.

    BOOK=/path/to/LLMs-from-scratch   # a checkout of github.com/rasbt/LLMs-from-scratch
    (cd tests/goldens && OPENBLAS_CORETYPE=Haswell /usr/bin/python3 ch05_exercises_reference.py $BOOK 5_1) \
        > data/golden/KERNEL/ch05_exercise_5_1.txt
    (cd tests/goldens && OPENBLAS_CORETYPE=Haswell /usr/bin/python3 ch05_exercises_reference.py $BOOK 5_3 --untrained) \
        > data/golden/KERNEL/ch05_exercise_5_3.txt

(without BOOK: the usage line on stderr, exit status 2; see book_checkout.py)

Unlike exercises_reference.py (chapters 3 and 4, re-typed), this script runs the code cells of the
book's ch05/01_main-chapter-code/exercise-solutions.ipynb as they are, in one namespace as Jupyter
does, from the ch05/01_main-chapter-code folder's modules (previous_chapters.py, gpt_generate.py).
Standard output gets what the notebook shows: what the cells print, and the value of a cell that
ends in an expression (its repr, as Jupyter shows it; a trailing ";" shows nothing).

  5_1   the cells of "Exercise 5.1" (the toy vocabulary, print_sampled_tokens at temperatures 1,
        0.1 and 5, scaled_probas[temp5_idx][pizza_idx]).
  5_3   the cells of "Exercise 5.3": GPTModel(GPT_CONFIG_124M) after torch.manual_seed(123), loaded
        from model.pth in the current folder, then generate_text_simple and generate(top_k=None,
        temperature=0.0) twice. --untrained leaves out the one line
        `model.load_state_dict(torch.load("model.pth", weights_only=True))`: the model is the one
        GPTModel(GPT_CONFIG_124M) builds after the seed (ch05_exercise_5_3 --untrained; no file).
        The notebook's own output comes from the model chapter 5 trained for 10 epochs.

Stand-ins, for what the cells import but the code run never needs or this machine lacks:
tiktoken -> tiktoken_stub (OpenAI's GPT-2 encoder); empty modules for tensorflow, tqdm and
requests (gpt_generate.py imports them for its download code). torch2x_print is imported first so
tensors print as PyTorch 2.x prints them. No cell draws dropout (5.3's model is in eval mode), and
torch.multinomial uses the default CPU exponential_ kernel in any build: the mkl and default goldens
are the same output.
"""
import json
import os
import pathlib
import sys

import book_checkout
from notebook_cells import exercise_cells, run_cell

FOLDER_IN_BOOK = "ch05/01_main-chapter-code"
NOTEBOOK_IN_BOOK = FOLDER_IN_BOOK + "/exercise-solutions.ipynb"
USAGE = "ch05_exercises_reference.py BOOK 5_1|5_3 [--untrained] [--bernoulli mkl|default]"
BOOK, ARGS = book_checkout.argument(USAGE, NOTEBOOK_IN_BOOK)

LOAD_LINE = 'model.load_state_dict(torch.load("model.pth", weights_only=True))'


def usage_error(why):
    sys.stderr.write(f"{why}\nusage: {USAGE}\n")
    sys.exit(2)


def parse_args(args):
    exercise, untrained = None, False
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--untrained":
            untrained = True
        elif a == "--bernoulli":  # accepted for the goldens' uniform command line: nothing here draws dropout
            if i + 1 >= len(args) or args[i + 1] not in ("mkl", "default"):
                usage_error("--bernoulli takes mkl or default")
            i += 1
        elif a in ("5_1", "5_3") and exercise is None:
            exercise = a
        else:
            usage_error(f"unexpected argument {a!r}")
        i += 1
    if exercise is None:
        usage_error("which exercise: 5_1 or 5_3")
    if untrained and exercise != "5_3":
        usage_error("--untrained is for 5_3")
    return exercise, untrained


def install_stand_ins():
    import tiktoken_stub
    tiktoken_stub.install()
    import empty_modules
    empty_modules.install("tensorflow", "tqdm", "requests")


def main():
    exercise, untrained = parse_args(ARGS)
    import torch2x_print  # noqa: F401  PyTorch 2.x's tensor printing; imports torch

    install_stand_ins()
    sys.path.insert(0, str(pathlib.Path(BOOK, FOLDER_IN_BOOK)))
    nb = json.loads(pathlib.Path(BOOK, NOTEBOOK_IN_BOOK).read_text(encoding="utf-8"))
    heading = {"5_1": "## Exercise 5.1:", "5_3": "## Exercise 5.3:"}[exercise]
    cells = exercise_cells(nb, heading)
    if not cells:
        sys.exit(f"{NOTEBOOK_IN_BOOK} has no code cells under {heading!r}")
    ns = {"__name__": "__main__"}
    for k, src in enumerate(cells):
        if untrained:
            if LOAD_LINE in src:
                src = src.replace(LOAD_LINE + "\n", "")
            elif k == 0:
                sys.exit(f"the first cell of exercise 5.3 has no line {LOAD_LINE!r}")
        run_cell(src, ns, f"{NOTEBOOK_IN_BOOK}: {heading} cell {k + 1}")


if __name__ == "__main__":
    main()
