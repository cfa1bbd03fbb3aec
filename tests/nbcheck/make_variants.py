#!/usr/bin/env python3
"""Make the llmfs-nbcheck test notebooks derived from ch03_zh.ipynb. From this directory:

    python3 make_variants.py

ch03_zh.ipynb, ch03_ja_export.txt and ch03_ko_export.txt are the project's seed notebooks as they
came (shared/seeds/003_*, 000_*, 001_*: zh .ipynb run on Colab with PyTorch 2.6; ja and ko plain-text
exports). ch04_book.ipynb is the book's ch04 notebook (rasbt/LLMs-from-scratch,
ch04/01_main-chapter-code/ch04.ipynb at commit 921e91a0, run by the author on macOS with PyTorch
2.2.1), unchanged but for its one figure, whose PNG data is shortened to "iVBORw0KGgo=".
ch03_exercises_book.ipynb, ch04_exercises_book.ipynb and ch05_exercises_book.ipynb are the book's
exercise-solutions.ipynb of ch03/01_main-chapter-code, ch04/01_main-chapter-code and
ch05/01_main-chapter-code at commit 28c65cd, unchanged.
ch05_book.ipynb is the book's ch05/01_main-chapter-code/ch05.ipynb at commit 28c65cd (last changed in
be5e2a3; 5.1 run on macOS, 5.2 on Apple's MPS device), its figures' PNG data shortened as above.
appendix_d_book.ipynb is the book's appendix-D/01_main-chapter-code/appendix-D.ipynb at commit 28c65cd
(last changed in 58f45ae; run on Apple's MPS device), its figures' PNG data shortened as above.
ch02_book.ipynb and ch02_exercises_book.ipynb are the book's ch02/01_main-chapter-code/ch02.ipynb
(last changed in be5e2a3) and exercise-solutions.ipynb at commit 28c65cd, unchanged.
This script writes:
  ch03_zh_one_number_changed.ipynb  one printed number changed (-0.4519 -> -0.4619 in the first
                                    output line of the 3.5.3 CausalAttention cell): that cell must differ
  ch03_zh_rewritten.ipynb           every code comment rewritten and every markdown cell dropped:
                                    must report exactly what the original does
  ch03_zh_incomplete.ipynb          code cells 12, 22 and 38 deleted (the book's cells of 3.3.2, 3.4.1
                                    and 3.6.2 missing), cell 27 never run (no outputs, no execution
                                    count), cell 28 raised a NameError: --strict reports each, exit 1
  ch03_zh_seed_changed.ipynb        code cell 31's torch.manual_seed(123) made 124, its first printed
                                    number changed: that cell differs, naming the changed line
  ch03_zh_edited_close.ipynb        the 3.5.3 CausalAttention cell given a line of its own
                                    (context_vecs * 1.0001) and its first number moved by one unit:
                                    close, and the close note names the edit as the cause
  ch02_like.ipynb                   chapter 2's first cells (two of them cut): checked against the ch02 programs
  appendix_a_like.ipynb             a notebook of a chapter the programs do not cover (appendix A's
                                    dtype cells): exit 2
  markdown_only.ipynb               no code cells: exit 2
  broken.ipynb                      truncated JSON: exit 2
"""
import io
import json
import tokenize

nb = json.load(open("ch03_zh.ipynb", encoding="utf-8"))


def dump(notebook, name):
    with open(name, "w", encoding="utf-8") as f:
        json.dump(notebook, f, ensure_ascii=False, indent=1)
        f.write("\n")


def with_causal_output_changed(first_number, code_line=None):
    """A copy of the notebook whose 3.5.3 CausalAttention cell prints first_number for -0.4519,
    and, if code_line is given, runs it before print(context_vecs)."""
    notebook = json.loads(json.dumps(nb))
    for cell in notebook["cells"]:
        for out in cell.get("outputs", []):
            text = out.get("text")
            if text and text[0].startswith("tensor([[[-0.4519,  0.2216],"):
                text[0] = text[0].replace("-0.4519", first_number, 1)
                if code_line:
                    source = "".join(cell["source"])
                    assert "\nprint(context_vecs)\n" in source
                    source = source.replace("\nprint(context_vecs)\n", "\n" + code_line + "\nprint(context_vecs)\n", 1)
                    cell["source"] = source.splitlines(keepends=True)
                return notebook
    raise AssertionError("the 3.5.3 output cell was not found")


# One printed number changed.
dump(with_causal_output_changed("-0.4619"), "ch03_zh_one_number_changed.ipynb")
# A line of one's own in the 3.5.3 cell, and its output a unit off: close, because of the edit.
dump(with_causal_output_changed("-0.4520", "context_vecs = context_vecs * 1.0001"), "ch03_zh_edited_close.ipynb")


# Every comment rewritten (Python's tokenizer finds them, never inside strings); markdown dropped.
def rewrite_comments(source):
    code = "".join(source)
    tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    lines = code.splitlines(keepends=True)
    for tok in reversed([t for t in tokens if t.type == tokenize.COMMENT]):
        row, col = tok.start
        line = lines[row - 1]
        lines[row - 1] = line[:col] + "# (a comment, rewritten)" + line[col + len(tok.string):]
    return "".join(lines)


rewritten = json.loads(json.dumps(nb))
rewritten["cells"] = [c for c in rewritten["cells"] if c["cell_type"] == "code"]
for cell in rewritten["cells"]:
    cell["source"] = rewrite_comments(cell["source"])
dump(rewritten, "ch03_zh_rewritten.ipynb")


# Three of the book's cells deleted, one never run, one that raised an error.
incomplete = json.loads(json.dumps(nb))
code = [c for c in incomplete["cells"] if c["cell_type"] == "code"]
code[26]["outputs"], code[26]["execution_count"] = [], None  # code cell 27 never ran
code[27]["outputs"] = [{"output_type": "error", "ename": "NameError", "evalue": "name 'masked_simple' is not defined",
                        "traceback": ["NameError: name 'masked_simple' is not defined"]}]  # code cell 28
deleted = [code[11], code[21], code[37]]  # code cells 12, 22, 38
incomplete["cells"] = [c for c in incomplete["cells"] if not any(c is d for d in deleted)]
dump(incomplete, "ch03_zh_incomplete.ipynb")

# A changed seed, and what it printed then.
seeded = json.loads(json.dumps(nb))
cell = [c for c in seeded["cells"] if c["cell_type"] == "code"][30]  # code cell 31
assert cell["source"][0] == "torch.manual_seed(123)\n", cell["source"][0]
cell["source"][0] = "torch.manual_seed(124)\n"
text = cell["outputs"][0]["text"]
first = text[0]
digit = next(i for i, ch in enumerate(first) if ch.isdigit() and ch != "0")
text[0] = first[:digit] + str((int(first[digit]) % 9) + 1) + first[digit + 1:]
dump(seeded, "ch03_zh_seed_changed.ipynb")


def code_cell(source, output):
    return {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": source,
            "outputs": [{"output_type": "stream", "name": "stdout", "text": output}]}


other = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
    code_cell('with open("the-verdict.txt", "r", encoding="utf-8") as f:\n    raw_text = f.read()\n'
              'print("Total number of character:", len(raw_text))\nprint(raw_text[:99])',
              "Total number of character: 20479\nI HAD always thought Jack Gisburn rather a cheap genius--"
              "though a good fellow enough--so it was no \n"),
    code_cell('import re\ntext = "Hello, world. This, is a test."\nresult = re.split(r\'(\\s)\', text)\nprint(result)',
              "['Hello,', ' ', 'world.', ' ', 'This,', ' ', 'is', ' ', 'a', ' ', 'test.']\n"),
    code_cell("vocab_size = len(all_words)\nprint(vocab_size)", "1130\n"),
]}
dump(other, "ch02_like.ipynb")

appendix_a = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
    code_cell("tensor1d = torch.tensor([1, 2, 3])\nprint(tensor1d.dtype)", "torch.int64\n"),
    code_cell("floatvec = torch.tensor([1.0, 2.0, 3.0])\nprint(floatvec.dtype)", "torch.float32\n"),
    code_cell("floatvec = tensor1d.to(torch.float32)\nprint(floatvec.dtype)", "torch.float32\n"),
]}
dump(appendix_a, "appendix_a_like.ipynb")

dump({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
      "cells": [{"cell_type": "markdown", "metadata": {}, "source": "# Only prose"}]}, "markdown_only.ipynb")

with open("broken.ipynb", "w", encoding="utf-8") as f:
    f.write(json.dumps(nb, ensure_ascii=False)[:5000])
