#!/usr/bin/python3
"""Appendix E of the book (appendix-E/01_main-chapter-code/appendix-E.ipynb): LoRA on chapter 6's
spam classifier, every code cell run in order by real PyTorch, in one namespace, from a checkout.
From the repository root, with BOOK a checkout of github.com/rasbt/LLMs-from-scratch (28c65cd):

    OPENBLAS_CORETYPE=Haswell /usr/bin/python3 tests/goldens/appendix_e_reference.py BOOK DATA \\
        --emb-dim 12 --n-heads 2 --n-layers 2 > data/golden/default/appendix_e_lora_e12_h2_l2.txt

prints what the cells print: the golden of `appendix_e_lora --data DATA --emb-dim 12 --n-heads 2
--n-layers 2` (DATA: data/tests/ch06/sms_clean.tsv). Around the cells, nothing of whose code is
copied here (they are read from the .ipynb):
- the first cell (package versions) is left out;
- the SMS Spam Collection is DATA, copied into a temporary working folder as
  sms_spam_collection/SMSSpamCollection.tsv; previous_chapters.download_and_unzip_spam_data is a
  stand-in that does nothing (the program never downloads: it prints no "already exists" line);
- OpenAI's weights are not loaded: gpt_download is a stand-in module, load_weights_into_gpt does
  nothing, and GPTModel(BASE_CONFIG) is built with emb_dim, n_heads, n_layers changed by the flags,
  so the model is the random one GPTModel draws at that point of the notebook (no seed of its own:
  the generator's state after the loaders' cells), as the program's model without --weights; the
  head cell's literal `in_features=768` is read as the changed emb_dim;
- no CUDA and no MPS here: the device cell prints "Device: cpu";
- matplotlib is a stand-in that draws nothing; "Training completed in X minutes." is left out
  (the program writes it to standard error: the minutes are the machine's);
- AdamW is PyTorch 2.x's CPU step (torch2x_adamw.py), as the notebook ran 2.9.
--until E.3 stops before section E.4's first cell (the program's --stop-after E.3). --notebook OUT
also writes the book's notebook with each cell's output replaced by what it printed here (the
version cell's kept, the cells not run cleared: executed_notebook.py), llmfs-nbcheck's test
notebook; there the timing line stays, as Jupyter shows it. The 124M model without size flags:

    /usr/bin/python3 tests/goldens/appendix_e_reference.py BOOK data/tests/ch06/sms_clean.tsv \\
        --until E.3 --notebook tests/nbcheck/appendix_e_random124m_e3.ipynb > /dev/null
"""
import json
import os
import pathlib
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import book_checkout  # noqa: E402
import notebook_cells  # noqa: E402

NOTEBOOK = os.path.join("appendix-E", "01_main-chapter-code", "appendix-E.ipynb")
USAGE = ("appendix_e_reference.py BOOK DATA [--emb-dim N] [--n-heads N] [--n-layers N] [--until E.3] "
         "[--notebook OUT.ipynb]")


def main():
    book, rest = book_checkout.argument(USAGE, NOTEBOOK)
    data, changes, options = notebook_cells.parse(rest, USAGE, until=("E.3",))
    plt = notebook_cells.install_stand_ins()
    import torch2x_adamw
    torch2x_adamw.install()
    folder = pathlib.Path(book, NOTEBOOK).parent
    sys.path.insert(0, str(folder))
    import previous_chapters as pc
    original_gpt = pc.GPTModel
    pc.GPTModel = lambda cfg: original_gpt({**cfg, **changes})
    pc.load_weights_into_gpt = lambda model, params: None
    pc.download_and_unzip_spam_data = lambda *args, **kwargs: None
    pc.plt = plt
    emb = changes.get("emb_dim", 768)
    nb = json.loads(pathlib.Path(book, NOTEBOOK).read_text(encoding="utf-8"))
    sources = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    ns = {"__name__": "__main__"}
    until_e3 = options["--until"] == "E.3"
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "sms_spam_collection"))
        shutil.copyfile(data, os.path.join(tmp, "sms_spam_collection", "SMSSpamCollection.tsv"))
        os.chdir(tmp)
        try:
            printed, out = notebook_cells.run_cells(
                sources, ns, "appendix-E", transform=lambda source: source.replace("in_features=768", f"in_features={emb}"),
                stop=lambda source: until_e3 and "class LoRALayer(" in source)  # section E.4 starts there
        finally:
            os.chdir(cwd)
    sys.stdout.write(out)
    if options["--notebook"]:
        import executed_notebook
        executed_notebook.write(pathlib.Path(book, NOTEBOOK), printed, options["--notebook"], keep=(0,))


if __name__ == "__main__":
    main()
