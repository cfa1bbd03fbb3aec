"""Chapter 6's notebook (ch06/01_main-chapter-code/ch06.ipynb, read from the checkout BOOK), its
sections 6.2 and 6.3, executed cell by cell by pandas 1.5.3 and PyTorch 1.13 on a collection given
as DATA (data/tests/ch06/sms_clean.tsv for the golden) instead of the downloaded one: what each
cell prints. The download cell is replaced by the path (it would print "already exists"), the
DataFrame displays (a cell's last line `df` or `balanced_df`) show the frame as Jupyter does, with
Jupyter's display options (notebook_cells.run_cell, jupyter_display_options), and the CSVs are
written into a temporary folder.

pandas 2.x's value_counts() (the notebook ran 2.3) names its result "count" and its index after the
column, which its repr prints ("Label" above the rows, "Name: count"); 1.5.3 names the result after
the column. value_counts is wrapped to name them as 2.x does, nothing else changed
(notebook_cells.pandas2x_value_counts).

usage: /usr/bin/python3 tests/goldens/ch06_reference.py BOOK DATA > data/golden/default/ch06_data.txt
"""
import json
import os
import pathlib
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import book_checkout  # noqa: E402
import notebook_cells  # noqa: E402

NOTEBOOK = "ch06/01_main-chapter-code/ch06.ipynb"
BOOK, REST = book_checkout.argument("ch06_reference.py BOOK DATA", NOTEBOOK)
if len(REST) != 1:
    sys.stderr.write("usage: ch06_reference.py BOOK DATA\n")
    sys.exit(2)
DATA = os.path.abspath(REST[0])


def main():
    import tiktoken_stub
    tiktoken_stub.install()
    notebook_cells.pandas2x_value_counts()
    notebook_cells.jupyter_display_options()
    nb = json.loads(pathlib.Path(BOOK, NOTEBOOK).read_text(encoding="utf-8"))
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    start = next(i for i, c in enumerate(cells) if "download_and_unzip_spam_data(url" in c)
    end = next(i for i, c in enumerate(cells) if "print(f\"{len(train_loader)} training batches\")" in c)
    ns = {"__name__": "__main__"}
    with tempfile.TemporaryDirectory() as tmp:
        cwd = os.getcwd()
        os.chdir(tmp)
        try:
            exec("from pathlib import Path\ndata_file_path = Path(%r)" % DATA, ns)
            for cell in cells[start + 1:end + 1]:
                if cell.strip().splitlines()[-1].strip() in ("df", "balanced_df"):  # a DataFrame display
                    notebook_cells.run_cell(cell, ns, NOTEBOOK)
                else:
                    exec(compile(cell, NOTEBOOK, "exec"), ns)
        finally:
            os.chdir(cwd)


if __name__ == "__main__":
    main()
