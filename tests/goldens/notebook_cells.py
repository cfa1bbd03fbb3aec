"""What the golden scripts that execute a notebook's cells with a small random GPT share
(appendix_e_reference.py, ch06_finetune_reference.py; ch06_reference.py uses the pandas one): the stand-ins for what this machine lacks
or the program never does, and their command line.

- install_stand_ins(): tiktoken is tiktoken_stub.py (OpenAI's GPT-2 encoder); matplotlib is a
  stand-in that draws nothing; tensorflow an empty module; gpt_download a module whose
  download_and_load_gpt2 returns (None, None) (OpenAI's weights are not loaded: the model is the
  random one GPTModel draws); torch.cuda is unavailable. Returns matplotlib.pyplot's stand-in.
- pandas2x_value_counts(): pandas 1.5.3's value_counts() named as 2.x names it (ch06_reference.py).
- jupyter_display_options(): pandas' display options as a notebook has them (display.max_columns
  20, not the 0 a script in a terminal gets, which sizes the repr to the terminal instead of
  display.max_rows; display.width 80): repr(df) is then what Jupyter shows.
- exercise_cells(nb, heading), run_cell(src, ns, name): an exercise-solutions notebook's cells
  under one "## Exercise" heading, each run as Jupyter runs it (ch05_ and ch07_exercises_reference.py).
- parse(rest, usage, until): DATA and --emb-dim/--n-heads/--n-layers N (BASE_CONFIG's changes),
  --until SECTION (one of `until`), --notebook OUT.ipynb, --records OUT.txt.
- pth_records(path, header): the records of a torch.save file of a state dict, one line each,
  "FILE RECORD SHA256 WHAT" for data.pkl ("the pickle") and every tensor's data/N (WHAT: its key),
  after `header`'s comment lines (finetune_instruction_reference.py, ch06_finetune_reference.py).
"""
import ast
import os
import sys
import types


class Anything:
    """matplotlib.pyplot's stand-in: every attribute, call and unpacking gives another stand-in."""

    def __getattr__(self, name):
        return Anything()

    def __call__(self, *args, **kwargs):
        return Anything()

    def __iter__(self):
        return iter((Anything(), Anything()))


def install_stand_ins():
    import tiktoken_stub
    tiktoken_stub.install()
    plt = Anything()
    sys.modules["matplotlib"] = types.ModuleType("matplotlib")
    sys.modules["matplotlib.pyplot"] = plt
    sys.modules["matplotlib"].pyplot = plt
    sys.modules.setdefault("tensorflow", types.ModuleType("tensorflow"))
    gpt_download = types.ModuleType("gpt_download")
    gpt_download.download_and_load_gpt2 = lambda model_size, models_dir: (None, None)
    sys.modules["gpt_download"] = gpt_download
    import torch
    torch.cuda.is_available = lambda: False
    return plt


def parse(rest, usage, until):
    changes, positional, options = {}, [], {"--until": None, "--notebook": None, "--records": None}
    flags = {"--emb-dim": "emb_dim", "--n-heads": "n_heads", "--n-layers": "n_layers"}
    i = 0
    while i < len(rest):
        if rest[i] in flags and i + 1 < len(rest):
            changes[flags[rest[i]]] = int(rest[i + 1])
            i += 2
        elif rest[i] in options and i + 1 < len(rest):
            options[rest[i]] = rest[i + 1]
            i += 2
        else:
            positional.append(rest[i])
            i += 1
    if len(positional) != 1 or options["--until"] not in (None,) + tuple(until):
        sys.exit(f"usage: {usage}")
    return os.path.abspath(positional[0]), changes, options


def jupyter_display_options():
    import pandas as pd
    pd.set_option("display.max_columns", 20)
    pd.set_option("display.width", 80)


def pandas2x_value_counts():
    import pandas as pd
    original = pd.Series.value_counts

    def value_counts(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        result.index.name = self.name
        result.name = "proportion" if kwargs.get("normalize") else "count"
        return result

    pd.Series.value_counts = value_counts


def run_cells(sources, ns, name, transform=lambda source: source, stop=lambda source: False,
              after=lambda source: None, printed_from=lambda source: True, shown=lambda source: False):
    """Executes the notebook's code cells `sources` in order in the namespace `ns`, as Jupyter
    does, but the first (the package versions): each through transform(source) first, up to the
    first for which stop(source) holds; after(source) runs after each; a cell for which
    shown(source) holds shows its last expression's value as Jupyter does (run_cell), the others
    only what they print. Returns (the stdout of each
    cell by its index, what the cells from the first for which printed_from(source) holds printed,
    without the "Training completed in X minutes." lines, which the programs write to stderr)."""
    import contextlib
    import io
    printed, out, printing = {}, [], False
    for k, source in enumerate(sources):
        if k == 0:
            continue  # package versions
        source = transform(source)
        if stop(source):
            break
        printing = printing or printed_from(source)
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            if shown(source):
                run_cell(source, ns, f"<{name} cell {k}>")
            else:
                exec(compile(source, f"<{name} cell {k}>", "exec"), ns)
        after(source)
        printed[k] = buffer.getvalue()
        if printing:
            out += [line for line in printed[k].splitlines(keepends=True) if not line.startswith("Training completed in ")]
    return printed, "".join(out)


def exercise_cells(nb, heading):
    """The code cells between the markdown cell holding `heading` and the next "## Exercise"."""
    cells, inside = [], False
    for cell in nb["cells"]:
        src = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and "## Exercise" in src:
            if inside:
                break
            inside = heading in src
        elif inside and cell["cell_type"] == "code":
            cells.append(src)
    return cells


def run_cell(src, ns, name):
    """Runs a cell as Jupyter does: its last statement's value shown unless the cell ends in ';'."""
    tree = ast.parse(src)
    last = tree.body[-1] if tree.body else None
    shown = isinstance(last, ast.Expr) and not src.rstrip().endswith(";")
    body = tree.body[:-1] if shown else tree.body
    exec(compile(ast.Module(body=body, type_ignores=[]), name, "exec"), ns)
    if shown:
        value = eval(compile(ast.Expression(body=last.value), name, "eval"), ns)
        if value is not None:
            print(repr(value))


def pth_records(path, header):
    import hashlib
    import zipfile
    import torch
    keys = list(torch.load(path, map_location="cpu", weights_only=True).keys())
    lines = [f"# {line}" for line in header] + ["# FILE RECORD SHA256 WHAT"]
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            record = info.filename.partition("/")[2]
            if record == "data.pkl":
                what = "the pickle"
            elif record.startswith("data/"):
                what = keys[int(record[5:])]
            else:
                continue
            lines.append(f"{os.path.basename(path)} {record} {hashlib.sha256(z.read(info)).hexdigest()} {what}")
    return "\n".join(lines) + "\n"
