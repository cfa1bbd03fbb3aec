"""The book's ch06/01_main-chapter-code/gpt_class_finetune.py --test_mode, run unmodified from the
checkout BOOK by real PyTorch 1.13 with PyTorch 2.x's AdamW (torch2x_adamw.py) in a temporary
folder holding data/tests/ch06/sms_clean.tsv as sms_spam_collection/SMSSpamCollection.tsv, so that
nothing is downloaded (the script says it skips the download). sms_clean.tsv is sms_small.tsv
without its three messages pandas reads as NaN ("NA", "", "null"), which the book's SpamDataset
cannot tokenize; this script writes it. tiktoken is tiktoken_stub.py;
tensorflow and tqdm (gpt_download.py's imports, unused in test mode) are empty modules. Its stdout
goes to data/tests/ch06/finetune_test_mode.txt, the CSVs it writes to data/tests/ch06/clean/, and
its plots are discarded.

usage: OPENBLAS_CORETYPE=Haswell /usr/bin/python3 tests/goldens/make_ch06_script_goldens.py BOOK
"""
import contextlib
import io
import os
import pathlib
import runpy
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import book_checkout  # noqa: E402

SCRIPT = "ch06/01_main-chapter-code/gpt_class_finetune.py"
BOOK, _ = book_checkout.argument("make_ch06_script_goldens.py BOOK", SCRIPT)
OUT = pathlib.Path(__file__).resolve().parents[2] / "data" / "tests" / "ch06"


def main():
    import matplotlib
    matplotlib.use("Agg")
    import tiktoken_stub
    import torch2x_adamw
    tiktoken_stub.install()
    torch2x_adamw.install()
    import empty_modules
    empty_modules.install("tensorflow", "tqdm")
    script = pathlib.Path(BOOK, SCRIPT).resolve()
    sys.path.insert(0, str(script.parent))
    lines = (OUT / "sms_small.tsv").read_bytes().split(b"\n")
    clean = b"\n".join(line for line in lines if line not in (b"ham\tNA", b"ham\t", b"ham\tnull"))
    assert len(lines) - 3 == len(clean.split(b"\n"))
    (OUT / "sms_clean.tsv").write_bytes(clean)
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "sms_spam_collection"))
        shutil.copy(OUT / "sms_clean.tsv", os.path.join(tmp, "sms_spam_collection", "SMSSpamCollection.tsv"))
        cwd = os.getcwd()
        os.chdir(tmp)
        printed = io.StringIO()
        try:
            sys.argv = [str(script), "--test_mode"]
            with contextlib.redirect_stdout(printed):
                runpy.run_path(str(script), run_name="__main__")
        finally:
            os.chdir(cwd)
        (OUT / "clean").mkdir(exist_ok=True)
        for name in ("train.csv", "validation.csv", "test.csv"):
            shutil.copy(pathlib.Path(tmp, name), OUT / "clean" / name)
    (OUT / "finetune_test_mode.txt").write_text(printed.getvalue())


if __name__ == "__main__":
    main()
