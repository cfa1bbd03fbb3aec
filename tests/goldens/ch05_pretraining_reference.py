#!/usr/bin/python3
"""The ch05 notebook's sections 5.1 and 5.2 (evaluating and training the 124M GPT), run for real on
the CPU. From the repository root, with BOOK a checkout of github.com/rasbt/LLMs-from-scratch
(commit 28c65cd):

    OPENBLAS_CORETYPE=Haswell nice -n 10 /usr/bin/python3 tests/goldens/ch05_pretraining_reference.py BOOK \
        > data/golden/default/ch05_pretraining.txt
    OPENBLAS_CORETYPE=Haswell nice -n 10 /usr/bin/python3 tests/goldens/ch05_pretraining_reference.py BOOK \
        --pytorch 1.13 > data/golden/default/ch05_pretraining_torch113.txt

Reads the code cells of BOOK/ch05/01_main-chapter-code/ch05.ipynb from the start of the notebook up
to the "## 5.3" heading and runs them in order in one namespace (as ch05_reference.py does for 5.3),
with torch2x_print.py imported first so tensors print as PyTorch 2.x prints them. Standard output
gets what the notebook shows for each cell, concatenated with no separators: the printed text, then
the text/plain form of a final bare expression not silenced by a ';' (none of these cells has one:
`model.eval();  # ...` is silenced, as IPython silences it, ignoring the comment).

--pytorch 2 (the default): torch2x_adamw.py is installed first, so `torch.optim.AdamW(...).step()`
and `optimizer.zero_grad()` compute as PyTorch 2.x's (the notebook ran 2.9). --pytorch 1.13: torch's own.

What is changed around the notebook's code (never the code itself):
- `tiktoken` is tiktoken_stub.py (OpenAI's GPT-2 encoder); `previous_chapters` is imported from the
  checkout's ch05/01_main-chapter-code (put first on sys.path; no bytecode is written there).
- The cells run in a temporary working directory, where "the-verdict.txt" does not exist, so the
  5.1.3 cell takes its download branch: `requests.get` is replaced by a function that returns the
  committed data/the-verdict.txt (its bytes decoded as UTF-8, as `response.text`) for exactly the
  notebook's URL and raises for any other; the cell then writes its copy into that temporary directory.
- `torch.cuda.is_available()` and `torch.backends.mps.is_available()` return False, so every
  device the notebook picks is the CPU (this machine has neither anyway).
- Cells in SKIP are not run (the version listing and the plot).

Standard error gets the comparison with the outputs stored in the notebook (a PyTorch 2.9 run on
macOS/MPS), cell by cell: which cells differ, with the first differing line of each.
"""
import ast
import contextlib
import io
import json
import os
import pathlib
import sys
import tempfile
import tokenize

sys.dont_write_bytecode = True  # never write __pycache__ into the book's checkout or this tree
HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
VERDICT = ROOT / "data" / "the-verdict.txt"
VERDICT_URL = ("https://raw.githubusercontent.com/rasbt/LLMs-from-scratch/main/"
               "ch02/01_main-chapter-code/the-verdict.txt")
sys.path.insert(0, str(HERE))

import torch2x_print  # noqa: E402,F401  PyTorch 2.x's tensor printing; imports torch
import torch  # noqa: E402

USAGE = ("usage: ch05_pretraining_reference.py BOOK [--pytorch 2|1.13]\n"
         "BOOK: a checkout of github.com/rasbt/LLMs-from-scratch (commit 28c65cd), "
         "containing ch05/01_main-chapter-code/ch05.ipynb")

# Code cells of 5.1-5.2 not run, by the first line of their source, with the reason.
SKIP = {
    "from importlib.metadata import version":
        "version listing (matplotlib, numpy, tiktoken, torch, tensorflow): not the book's computation, "
        "and matplotlib/tiktoken/tensorflow are not installed here",
    "import matplotlib.pyplot as plt":
        "5.2 figure: plot_losses draws the loss curves and saves loss-plot.pdf "
        "(output '<Figure size 500x300 with 2 Axes>'); matplotlib is not installed",
}


def usage_error(message=None):
    if message:
        print(message, file=sys.stderr)
    print(USAGE, file=sys.stderr)
    sys.exit(2)


def parse_args(argv):
    book, version, rest = None, "2", list(argv)
    while rest:
        arg = rest.pop(0)
        if arg == "--pytorch" and rest:
            version = rest.pop(0)
        elif arg.startswith("--pytorch="):
            version = arg.split("=", 1)[1]
        elif arg.startswith("-") or book is not None:
            usage_error(f"unexpected argument {arg!r}")
        else:
            book = arg
    if book is None:
        usage_error()
    if version not in ("2", "1.13"):
        usage_error(f"--pytorch must be 2 or 1.13, not {version!r}")
    notebook = pathlib.Path(book) / "ch05" / "01_main-chapter-code" / "ch05.ipynb"
    if not notebook.is_file():
        usage_error(f"{notebook} not found")
    return pathlib.Path(book).resolve(), version


def section_cells(nb):
    """The code cells from the start of the notebook to the '## 5.3' markdown heading."""
    cells = []
    for cell in nb["cells"]:
        src = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and "## 5.3 " in src:
            break
        if cell["cell_type"] == "code":
            cells.append(cell)
    return cells


def skip_reason(src):
    for prefix, reason in SKIP.items():
        if src.startswith(prefix):
            return reason
    return None


def stored_output(cell):
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
    except ImportError:  # IPython is not installed here; no 5.1-5.2 cell displays a value
        return repr(value)


def ends_with_semicolon(src):
    """IPython's DisplayHook.quiet(): the last token that is not a comment or a newline is ';'
    (so `model.eval();  # comment` displays nothing)."""
    skip = {tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT, tokenize.ENDMARKER,
            tokenize.INDENT, tokenize.DEDENT}
    tokens = list(tokenize.generate_tokens(io.StringIO(src).readline))
    for tok in reversed(tokens):
        if tok.type not in skip:
            return tok.type == tokenize.OP and tok.string == ";"
    return False


def run_cell(src, namespace):
    tree = ast.parse(src)
    display = bool(tree.body) and isinstance(tree.body[-1], ast.Expr) and not ends_with_semicolon(src)
    body = tree.body[:-1] if display else tree.body
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(compile(ast.Module(body=body, type_ignores=[]), "<cell>", "exec"), namespace)
        if display:
            value = eval(compile(ast.Expression(tree.body[-1].value), "<cell>", "eval"), namespace)
            if value is not None:
                print(plain_text(value))
    return buffer.getvalue()


class _VerdictResponse:
    def __init__(self):
        self.content = VERDICT.read_bytes()
        self.text = self.content.decode("utf-8")
        self.status_code = 200

    def raise_for_status(self):
        pass


def _requests_get(url, *args, **kwargs):
    if url != VERDICT_URL:
        raise RuntimeError(f"ch05_pretraining_reference.py: no network; unexpected URL {url}")
    return _VerdictResponse()


def first_difference(a, b):
    la, lb = a.splitlines(), b.splitlines()
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else "<end>"
        y = lb[i] if i < len(lb) else "<end>"
        if x != y:
            return i + 1, x, y
    return 0, "", ""


def main(argv):
    book, version = parse_args(argv[1:])
    import tiktoken_stub
    tiktoken_stub.install()
    if version == "2":
        import torch2x_adamw
        torch2x_adamw.install()
    import requests
    requests.get = _requests_get
    torch.cuda.is_available = lambda: False
    torch.backends.mps.is_available = lambda: False
    sys.path.insert(0, str(book / "ch05" / "01_main-chapter-code"))

    nb = json.loads((book / "ch05" / "01_main-chapter-code" / "ch05.ipynb").read_text(encoding="utf-8"))
    namespace = {"__name__": "__main__"}
    report, differ, run = [], 0, 0
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            for cell in section_cells(nb):
                src = "".join(cell["source"])
                label = f"In [{cell.get('execution_count')}] {src.splitlines()[0][:60]!r}"
                reason = skip_reason(src)
                if reason:
                    report.append(f"SKIPPED {label}: {reason}")
                    continue
                text = run_cell(src, namespace)
                sys.stdout.write(text)
                sys.stdout.flush()
                run += 1
                stored = stored_output(cell)
                if text == stored:
                    report.append(f"same    {label}" + ("" if text else " (no output)"))
                else:
                    differ += 1
                    n, ours, theirs = first_difference(text, stored)
                    report.append(f"DIFFERS {label}: first at line {n}\n"
                                  f"  notebook: {theirs!r}\n  ours:     {ours!r}")
        finally:
            os.chdir(cwd)
    print(f"torch {torch.__version__} with --pytorch {version} "
          f"({'torch2x_adamw installed' if version == '2' else 'torch 1.13 AdamW'}); "
          f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}; "
          f"notebook ch05/01_main-chapter-code/ch05.ipynb", file=sys.stderr)
    print("\n".join(report), file=sys.stderr)
    print(f"{differ} of the {run} run cells differ from the notebook's stored outputs "
          f"(a PyTorch 2.9 run on macOS/MPS)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
