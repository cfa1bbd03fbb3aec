#!/usr/bin/python3
"""Chapter 6's notebook (ch06/01_main-chapter-code/ch06.ipynb) from section 6.4 on: every code cell
run in order by real PyTorch, in one namespace, from a checkout, on a small SMS collection and a
small random GPT. From the repository root, with BOOK a checkout of
github.com/rasbt/LLMs-from-scratch (28c65cd):

    OPENBLAS_CORETYPE=Haswell /usr/bin/python3 tests/goldens/ch06_finetune_reference.py BOOK DATA \\
        --emb-dim 12 --n-heads 2 --n-layers 2 --records data/golden/default/ch06_finetune_e12_h2_l2_records.txt \\
        > data/golden/default/ch06_finetune_e12_h2_l2.txt

prints what the cells from 6.4 on print: the golden of `ch06_finetune --data DATA --emb-dim 12
--n-heads 2 --n-layers 2` (DATA: data/tests/ch06/sms_clean.tsv). The cells of 6.2 and 6.3 run too
(ch06_data's golden is theirs: ch06_reference.py). Around the cells, nothing of whose code is
copied here (they are read from the .ipynb):
- the first cell (package versions) is left out; the download cell is replaced by
  `data_file_path = Path(DATA)` (the program never downloads); a cell's DataFrame display (its last
  line `df` or `balanced_df`) shows the frame as Jupyter does, with Jupyter's display options;
- OpenAI's weights are not loaded (notebook_cells.py's stand-ins: gpt_download, and
  previous_chapters.load_weights_into_gpt does nothing); BASE_CONFIG is updated by the flags right
  after its cell, so GPTModel(BASE_CONFIG) is the random model drawn at that point of the notebook
  (no seed of its own: the generator's state after the loaders' cells), as the program's model
  without --weights;
- no CUDA and no MPS here: the device cell prints "Device: cpu"; matplotlib draws nothing;
- "Training completed in X minutes." is left out (the program writes it to standard error);
- the last cell shows its value as Jupyter does (model.load_state_dict's `<All keys matched
  successfully>`), the only cell from 6.4 on whose value the notebook shows;
- AdamW is PyTorch 2.x's CPU step (torch2x_adamw.py), as the notebook ran 2.9.
--until 6.6 stops before section 6.7's first cell (the program's --stop-after 6.6). --records OUT
writes the records of the review_classifier.pth that 6.8's cell saved (notebook_cells.pth_records:
each tensor's and the pickle's SHA-256, as PyTorch 1.13 wrote them), the golden
data/golden/default/ch06_finetune_e12_h2_l2_records.txt of the flags above. --notebook OUT
also writes the book's notebook with each cell's output replaced by what it printed here (the
version cell's kept, the cells not run cleared: executed_notebook.py), llmfs-nbcheck's test
notebook; there the timing line stays, as Jupyter shows it. The 124M model without size flags:

    /usr/bin/python3 tests/goldens/ch06_finetune_reference.py BOOK data/tests/ch06/sms_clean.tsv \\
        --until 6.6 --notebook tests/nbcheck/ch06/ch06_random124m_6_6.ipynb > /dev/null

(beside it: sms_spam_collection/SMSSpamCollection.tsv, a link to data/tests/ch06/sms_clean.tsv).
"""
import json
import os
import pathlib
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import book_checkout  # noqa: E402
import notebook_cells  # noqa: E402

NOTEBOOK = os.path.join("ch06", "01_main-chapter-code", "ch06.ipynb")
USAGE = ("ch06_finetune_reference.py BOOK DATA [--emb-dim N] [--n-heads N] [--n-layers N] [--until 6.6] "
         "[--notebook OUT.ipynb] [--records OUT.txt]")


def main():
    book, rest = book_checkout.argument(USAGE, NOTEBOOK)
    data, changes, options = notebook_cells.parse(rest, USAGE, until=("6.6",))
    plt = notebook_cells.install_stand_ins()
    notebook_cells.pandas2x_value_counts()  # the notebook ran pandas 2.3 (ch06_reference.py)
    notebook_cells.jupyter_display_options()
    import torch2x_adamw
    torch2x_adamw.install()
    sys.path.insert(0, str(pathlib.Path(book, NOTEBOOK).parent))
    import previous_chapters as pc
    pc.load_weights_into_gpt = lambda model, params: None
    pc.plt = plt
    nb = json.loads(pathlib.Path(book, NOTEBOOK).read_text(encoding="utf-8"))
    sources = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    ns = {"__name__": "__main__"}
    until_6_6 = options["--until"] == "6.6"

    def transform(source):
        if "download_and_unzip_spam_data(url" in source:
            return "from pathlib import Path\ndata_file_path = Path(%r)" % data
        return source

    def after(source):
        if "CHOOSE_MODEL = " in source:
            ns["BASE_CONFIG"].update(changes)

    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            printed, out = notebook_cells.run_cells(
                sources, ns, "ch06", transform=transform, after=after,
                stop=lambda source: until_6_6 and "def train_classifier_simple(" in source,  # section 6.7 starts there
                printed_from=lambda source: "CHOOSE_MODEL = " in source,
                shown=lambda source: source.strip().splitlines()[-1].strip() in ("df", "balanced_df")
                or source.rstrip().endswith("model.load_state_dict(model_state_dict)"))
            if options["--records"] and not until_6_6:
                import torch
                records = notebook_cells.pth_records("review_classifier.pth", [
                    f"ch06_finetune_reference.py: the records of PyTorch {torch.__version__}'s review_classifier.pth "
                    f"(BASE_CONFIG changed by {changes})"])
                pathlib.Path(cwd, options["--records"]).write_text(records, encoding="utf-8")
        finally:
            os.chdir(cwd)
    sys.stdout.write(out)
    if options["--notebook"]:
        import executed_notebook
        executed_notebook.write(pathlib.Path(book, NOTEBOOK), printed, options["--notebook"], keep=(0,))


if __name__ == "__main__":
    main()
