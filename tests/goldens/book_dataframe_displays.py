#!/usr/bin/python3
"""The book's own DataFrame displays in ch06.ipynb (`df` and `balanced_df`, printed by pandas 2.3 over
the whole SMS Spam Collection, which is not here), as cases for common/text/pandas_repr_test.cpp
in the schema of make_pandas_repr_goldens.py. From the repository root:

    python3 tests/goldens/book_dataframe_displays.py BOOK > data/tests/ch06/book_dataframe_displays.json

Each case's "repr" is the notebook's stored text/plain output, verbatim. Its frame is one that
agrees with the display in every row shown: the shown index labels and labels; a text shown cut
(49 characters ending in "...") continued past 50 characters, the others as shown; the rows not
shown short ("x", index labels of at most the shown width, label 0 or "ham"), as many as the
footer counts. A repr of that frame equal to the stored one is pandas 2.3's layout reproduced:
widths, justification, the cut, the dots row and the footer.
"""
import json
import re
import sys

sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
import book_checkout  # noqa: E402

NOTEBOOK = "ch06/01_main-chapter-code/ch06.ipynb"
BOOK, _ = book_checkout.argument("book_dataframe_displays.py BOOK", NOTEBOOK)
nb = json.load(open(f"{BOOK}/{NOTEBOOK}", encoding="utf-8"))
cases = []
for cell in nb["cells"]:
    if cell["cell_type"] != "code":
        continue
    last = "".join(cell["source"]).strip().splitlines()[-1].strip()
    if last not in ("df", "balanced_df"):
        continue
    shown = "".join(next(o for o in cell["outputs"] if o["output_type"] == "execute_result")["data"]["text/plain"])
    lines = shown.split("\n")
    total = int(re.fullmatch(r"\[(\d+) rows x 2 columns\]", lines[-1]).group(1))
    rows = [line for line in lines[1:-2] if not line.startswith("...")]
    index, labels, texts = [], [], []
    for line in rows:
        m = re.fullmatch(r"(\d+) +(\S+)  (.*)", line)
        index.append(int(m.group(1)))
        labels.append(m.group(2))
        text = m.group(3).strip()
        texts.append(text[:-3] + " and on past fifty characters, to be cut" if len(text) == 49 and text.endswith("...") else text)
    numeric = last == "balanced_df"
    head, tail = len(rows) // 2, len(rows) - len(rows) // 2
    width = max(len(str(i)) for i in index)
    unused = (i for i in range(10 ** (width - 1), 10 ** width) if i not in index)
    middle = total - len(rows)
    full_index = index[:head] + ([next(unused) for _ in range(middle)] if numeric else list(range(head, head + middle))) + index[head:]
    full_labels = labels[:head] + (["0" if numeric else "ham"] * middle) + labels[head:]
    full_texts = texts[:head] + ["x"] * middle + texts[head:]
    cases.append({"name": f"the book's `{last}` (pandas 2.3, the whole collection)", "index": full_index,
                  "columns": [{"name": "Label", "dtype": "int64" if numeric else "object",
                               "values": [int(x) for x in full_labels] if numeric else full_labels},
                              {"name": "Text", "dtype": "object", "values": full_texts}],
                  "repr": shown})
json.dump({"pandas": "2.3.3 (the book's notebook, " + book_checkout.COMMIT + ")", "cases": cases}, sys.stdout, ensure_ascii=False)
sys.stdout.write("\n")
