#!/usr/bin/env python3
"""Which lines of the book's exercise solutions a student copy still shows (issue 61's check).

    python3 tests/classroom/book_solution_lines.py BOOK [STUDENT_DIR]

BOOK is a checkout of the book's repository (tests/goldens/book_checkout.py); STUDENT_DIR defaults
to chapters/exercises/student (what `llmfs-exercise student-sources` and `handout` write). A line
counts when the book's exercise-solutions.ipynb of chapters 2 to 5 has it and no chapter notebook
(chNN.ipynb of chapters 2 to 7) does, compared without comments and with runs of spaces made one.
It is looked for in each student file's comments and C++ string literals (the notebook cells that
--annotate prints). Prints each file with the lines it shows, then "total N"; exit 1 when N > 0.
Run by hand after editing a solution: the book's notebooks are not part of this project.
"""
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "goldens"))
import book_checkout  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def norm(line):
    """A code line without its comment, its spaces collapsed; "" for a comment line."""
    text = line.strip()
    if text.startswith("#"):
        return ""
    return " ".join(re.sub(r"\s+#.*$", "", text).split())


def code_lines(path):
    lines = set()
    for cell in json.load(open(path, encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "code":
            lines.update(n for n in map(norm, "".join(cell["source"]).splitlines()) if n)
    return lines


def shown_lines(source):
    """The student file's comment lines and the lines of its string literals."""
    out = [re.sub(r"^//\s?", "", t.strip()) for t in source.splitlines() if t.strip().startswith("//")]
    for literal in re.finditer(r'"((?:[^"\\]|\\.)*)"', source):
        out += literal.group(1).encode().decode("unicode_escape").split("\n")
    return out


def main():
    book, rest = book_checkout.argument("book_solution_lines.py BOOK [STUDENT_DIR]",
                                        "ch05/01_main-chapter-code/exercise-solutions.ipynb")
    student = rest[0] if rest else os.path.join(ROOT, "chapters", "exercises", "student")
    chapter = set()
    for ch in ["ch02", "ch03", "ch04", "ch05", "ch06", "ch07"]:
        for nb in glob.glob(os.path.join(book, ch, "01_main-chapter-code", "*.ipynb")):
            if "exercise" not in os.path.basename(nb):
                chapter |= code_lines(nb)
    solution_only = {ch: code_lines(os.path.join(book, ch, "01_main-chapter-code", "exercise-solutions.ipynb")) - chapter
                     for ch in ["ch02", "ch03", "ch04", "ch05"]}
    total = 0
    for path in sorted(glob.glob(os.path.join(student, "exercise_*.cpp"))):
        ch = "ch0" + os.path.basename(path).split("_")[1]
        hits = sorted({norm(t) for t in shown_lines(open(path, encoding="utf-8").read())
                       if len(norm(t)) > 3 and norm(t) in solution_only.get(ch, set())})
        total += len(hits)
        print(os.path.basename(path), len(hits), *hits, sep="\n  " if hits else " ")
    print("total", total)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
