#!/usr/bin/python3
"""The book's chapter-7 script, ch07/01_main-chapter-code/gpt_instruction_finetuning.py, run by real
PyTorch with --test_mode (its small GPT: 12 dimensions, 1 layer, 2 heads, context 120, on the
first 10 training, validation and test entries): the goldens of llmfs-finetune-instruction
--test_mode. From the repository root, with BOOK a checkout of github.com/rasbt/LLMs-from-scratch:

    OPENBLAS_CORETYPE=Haswell /usr/bin/python3 tests/goldens/finetune_instruction_reference.py BOOK

writes data/golden/finetune/test_mode.txt (what the script prints),
data/golden/finetune/instruction-data-with-response-standalone.json (the responses it saves) and
data/golden/finetune/Smalltestmodel-sft-standalone_records.txt (the weights it saves: one line per
record of PyTorch's zip, "FILE RECORD SHA256 WHAT", for data.pkl and each tensor's data/N, WHAT
naming the state dict key; the pickle's hash is 1.13's, as resume_reference.py's records are).

The script is imported from the checkout as a module (nothing of its code is copied) and its
main(test_mode=True) runs in a temporary working directory holding a copy of the checkout's
instruction-data.json, so it downloads nothing. Around it:
- `tiktoken` is tiktoken_stub.py (OpenAI's GPT-2 encoder); `tqdm` a stand-in that returns its
  iterable (tqdm draws its bar on stderr only); `gpt_download` a stand-in (test mode never
  downloads); main() reads the global `args.test_mode` (the script sets it under __main__), set here.
- torch.cuda.is_available() returns False; PyTorch 2.x's AdamW step (torch2x_adamw.py), as llmfs's
  AdamW defaults to.
- importlib.metadata.version: the package versions main() prints first are those of this machine,
  not something llmfs can print; their lines ("<package> version: X") are left out of the golden,
  and so is "Training completed in X minutes." (llmfs prints its own time on stderr).
"""
import contextlib
import importlib.metadata
import io
import os
import pathlib
import re
import shutil
import sys
import tempfile
import types

sys.dont_write_bytecode = True
HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

import book_checkout  # noqa: E402
import notebook_cells  # noqa: E402

SCRIPT_IN_BOOK = "ch07/01_main-chapter-code/gpt_instruction_finetuning.py"
BOOK, _ = book_checkout.argument("finetune_instruction_reference.py BOOK", SCRIPT_IN_BOOK)
FOLDER = pathlib.Path(BOOK, SCRIPT_IN_BOOK).parent.resolve()

import tiktoken_stub  # noqa: E402

tiktoken_stub.install()
import torch  # noqa: E402
import torch2x_adamw  # noqa: E402

tqdm_stub = types.ModuleType("tqdm")
tqdm_stub.tqdm = lambda iterable, **kwargs: iterable
sys.modules["tqdm"] = tqdm_stub
gpt_download_stub = types.ModuleType("gpt_download")
gpt_download_stub.download_and_load_gpt2 = None
sys.modules["gpt_download"] = gpt_download_stub
importlib.metadata.version = lambda name: "(left out)"
torch.cuda.is_available = lambda: False

sys.path.insert(0, str(FOLDER))
import gpt_instruction_finetuning as script  # noqa: E402

script.args = types.SimpleNamespace(test_mode=True)
torch.set_num_threads(1)
torch2x_adamw.install()

OUT = ROOT / "data" / "golden" / "finetune"
buffer = io.StringIO()
cwd = os.getcwd()
with tempfile.TemporaryDirectory() as tmp:
    shutil.copyfile(FOLDER / "instruction-data.json", os.path.join(tmp, "instruction-data.json"))
    os.chdir(tmp)
    try:
        with contextlib.redirect_stdout(buffer):
            script.main(test_mode=True)
        shutil.copyfile("instruction-data-with-response-standalone.json", OUT / "instruction-data-with-response-standalone.json")
        pth = "Smalltestmodel-sft-standalone.pth"
        records = notebook_cells.pth_records(pth, [f"finetune_instruction_reference.py: the records of PyTorch {torch.__version__}'s {pth}"])
        (OUT / "Smalltestmodel-sft-standalone_records.txt").write_text(records, encoding="utf-8")
    finally:
        os.chdir(cwd)
lines = [line for line in buffer.getvalue().split("\n")
         if not line.endswith(" version: (left out)") and not re.fullmatch(r"Training completed in [0-9.]+ minutes\.", line)]
(OUT / "test_mode.txt").write_text("\n".join(lines), encoding="utf-8")
print(f"torch {torch.__version__}; OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}; wrote {OUT}", file=sys.stderr)
