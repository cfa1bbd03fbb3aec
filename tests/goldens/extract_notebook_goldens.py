"""Cut the `mkl` goldens for the ch03_* programs out of the zh chapter-3 notebook.

The notebook (shared/seeds/003_41235867b3c0037e.txt, a real .ipynb run on Colab with PyTorch 2.6
and MKL) is the first acceptance test. Its code cells' outputs are concatenated per program, in
notebook order, skipping the first cell (`torch version: ...`).

    python3 tests/goldens/extract_notebook_goldens.py ../shared/seeds/003_41235867b3c0037e.txt data/golden/mkl

Which execution counts belong to which program is listed in SECTIONS below.
"""
import json
import pathlib
import sys

# execution_count ranges (inclusive) of the code cells whose outputs each program prints.
SECTIONS = {
    "naive_attention": [(3, 14)],
    "scaled_attention": [(17, 24)],
    "causal_attention": [(25, 30), (33, 34)],
    "dropout": [(31, 32)],
    "multihead_attention": [(35, 38)],
}


def cell_text(cell):
    parts = []
    for out in cell.get("outputs", []):
        text = out.get("text") or out.get("data", {}).get("text/plain", [])
        parts.append("".join(text))
    return "".join(parts)


def main(notebook, outdir):
    cells = [c for c in json.load(open(notebook, encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
    by_count = {c["execution_count"]: c for c in cells}
    outdir = pathlib.Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    used = 0
    for name, ranges in SECTIONS.items():
        text = ""
        for first, last in ranges:
            for n in range(first, last + 1):
                t = cell_text(by_count[n])
                used += bool(t)
                text += t
        (outdir / f"ch03_{name}.txt").write_text(text, encoding="utf-8")
    print(f"{used} output cells written to {outdir}")


if __name__ == "__main__":
    main(*sys.argv[1:])
