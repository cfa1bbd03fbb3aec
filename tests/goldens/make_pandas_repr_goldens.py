#!/usr/bin/python3
"""repr(df) as a notebook shows it, run by real pandas: data/tests/pandas_repr_cases.json for
common/text/pandas_repr_test.cpp. From the repository root:

    /usr/bin/python3 tests/goldens/make_pandas_repr_goldens.py > data/tests/pandas_repr_cases.json

Each case: "index" (the frame's integer index labels), "columns" (name, "int64" or "object",
values; null an object NaN) and "repr", pandas' repr of that frame under Jupyter's display options
(notebook_cells.jupyter_display_options). The frames are chapter 6's kinds (df: labels and texts;
balanced_df: int labels under a shuffled index) at the edges of pandas' rules: 60 and 61 rows
(display.max_rows), texts of 49 to 51 characters with the leading space (display.max_colwidth 50),
columns narrower than their header, index widths 1 to 5, NaN, negative numbers, \\t \\r \\n in a text,
and non-ASCII text (widths in code points).
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import notebook_cells  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

notebook_cells.jupyter_display_options()
rng = random.Random(123)
WORDS = ("Go until jurong point crazy Available only in bugis n great world la e buffet Cine there got amore wat "
         "Ok lar Joking wif u oni Free entry in 2 a wkly comp to win FA Cup final tkts 21st May 2005 "
         "Will ü b going to esplanade fr home? 日本語 テキスト naïve café £1000 cash").split()


def text(words):
    return " ".join(rng.choice(WORDS) for _ in range(words))


def case(name, index, columns):
    # None: NaN, as read_csv gives a missing text
    frame = pd.DataFrame({c: pd.Series([np.nan if x is None else x for x in v], dtype=dtype, index=index)
                          for c, dtype, v in columns}, index=index)
    cols = [{"name": c, "dtype": dtype,
             "values": [None if (dtype == "object" and x is None) else (int(x) if dtype == "int64" else x) for x in v]}
            for c, dtype, v in columns]
    return {"name": name, "index": [int(i) for i in index], "columns": cols, "repr": repr(frame)}


cases = []
labels = lambda n: [rng.choice(["ham", "spam"]) for _ in range(n)]
cases.append(case("three rows, a long text, NaN", [0, 1, 2],
                  [("Label", "object", ["ham", "spam", "ham"]),
                   ("Text", "object", ["Go until jurong point, crazy.. Available only in bugis n great world la e buffet...",
                                       None, "Ok lar..."])]))
for n in (5, 59, 60, 61, 75, 130):
    cases.append(case(f"{n} rows of labels and texts", list(range(n)),
                      [("Label", "object", labels(n)), ("Text", "object", [text(rng.randint(1, 14)) for _ in range(n)])]))
for n in (12, 61, 1494):
    index = rng.sample(range(5572), n)
    cases.append(case(f"{n} rows, int labels under a shuffled index", index,
                      [("Label", "int64", [rng.randint(0, 1) for _ in range(n)]),
                       ("Text", "object", [text(rng.randint(1, 12)) for _ in range(n)])]))
cases.append(case("texts of 48 to 52 characters", list(range(5)),
                  [("Text", "object", ["x" * k for k in (48, 49, 50, 51, 52)])]))
cases.append(case("a one-letter column in a long frame", list(range(70)),
                  [("L", "object", [rng.choice("ab") for _ in range(70)]), ("n", "int64", [rng.randint(-9, 9) for _ in range(70)])]))
cases.append(case("negative and wide numbers", [7, 8, 9],
                  [("Label", "int64", [-5, 123456789012, 0]), ("T", "object", ["a", "bb", ""])]))
cases.append(case("tabs, returns and newlines shown escaped", [0, 1],
                  [("Text", "object", ["a\tb", "line one\nline two\r"])]))
cases.append(case("non-ASCII text, cut in code points", list(range(3)),
                  [("Text", "object", ["ü" * 60, "日本語" * 20, "naïve café " * 5])]))
cases.append(case("index of 100000", [3, 100000, 42],
                  [("Label", "object", ["spam", "ham", "ham"])]))
json.dump({"pandas": pd.__version__, "cases": cases}, sys.stdout, ensure_ascii=False, indent=1)
sys.stdout.write("\n")
