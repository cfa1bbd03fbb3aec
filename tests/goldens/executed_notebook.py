"""A book notebook as if Jupyter had run some of its code cells here: write(BOOK_NOTEBOOK, outputs,
OUT) copies the .ipynb, giving each code cell whose index (0-based among code cells) is a key of
`outputs` one stdout stream with that text (no output when it is empty), and clearing the outputs
and execution counts of the others (cells that did not run here), except those in `keep` (the
package-versions cell: its output is the book's). Used by the golden scripts that execute a
notebook's cells (appendix_e_reference.py, ch06_reference.py) to leave llmfs-nbcheck's test
notebooks: what real PyTorch printed, cell by cell, on the tests' small data."""
import json
import pathlib


def write(book_notebook, outputs, out, keep=()):
    nb = json.loads(pathlib.Path(book_notebook).read_text(encoding="utf-8"))
    k = -1
    count = 0
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        k += 1
        if k in keep:
            count = cell.get("execution_count") or count
            continue
        if k in outputs:
            count += 1
            cell["execution_count"] = count
            text = outputs[k]
            cell["outputs"] = ([{"name": "stdout", "output_type": "stream", "text": text.splitlines(keepends=True)}]
                               if text else [])
        else:
            cell["execution_count"] = None
            cell["outputs"] = []
    pathlib.Path(out).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
