#!/usr/bin/python3
"""Continued pretraining from a checkpoint (section 5.4's model_and_optimizer.pth, exercise 5.4), run
by real PyTorch with the book's own code: the goldens of `llmfs-train --save X.pth --with-optimizer`,
`llmfs-train --resume X.pth` and ch05_exercise_5_4. From the repository root, with BOOK a checkout of
github.com/rasbt/LLMs-from-scratch (commit 28c65cd):

    OPENBLAS_CORETYPE=Haswell nice -n 10 /usr/bin/python3 tests/goldens/resume_reference.py BOOK

writes, for every configuration NAME in CONFIGS, into data/golden/train/:
    resume_NAME_first.txt        what the first run prints (gpt_train.py's train_model_simple)
    resume_NAME.txt              what exercise 5.4's continuation prints (from model_and_optimizer.pth)
    resume_NAME_model_only.txt   the same continuation from model.pth, with a fresh AdamW
    resume_NAME_records.txt      the SHA-256 of every tensor record of the two files PyTorch saved
and data/golden/default/ch05_exercise_5_4.txt, the exercise's golden: resume_NAME.txt of the first
(--pytorch 2) configuration, the continuation ch05_exercise_5_4 prints from its checkpoint.
Options: --out DIR (write DIR/golden/train/... instead of the repository's data/), --keep DIR (also
keep the .pth files PyTorch wrote, as DIR/NAME_model_and_optimizer.pth and DIR/NAME_model.pth).

Each configuration trains on data/the-verdict.txt, or on its first bytes (the CTest's
train-verdict-head.txt), copied as "the-verdict.txt" into a temporary working directory, where
main() and the notebook read it. The first run is gpt_train.py's main() with the model and optimizer kept: the book's own functions
(GPTModel, create_dataloader_v1, train_model_simple, imported from the checkout's gpt_train.py as
train_reference.py imports it) in main()'s order: torch.manual_seed(seed), GPTModel(cfg), AdamW(lr,
weight_decay), the two loaders, train_model_simple(..., eval_freq=5, eval_iter=1, "Every effort
moves you"). Its output is asserted equal to main()'s own for the same configuration. Then, as
section 5.4 saves them:
    torch.save(model.state_dict(), "model.pth")
    torch.save({"model_state_dict": model.state_dict(), "optimizer_state_dict": optimizer.state_dict()},
               "model_and_optimizer.pth")
The continuation is exercise 5.4's solution (ch05/01_main-chapter-code/exercise-solutions.ipynb), in
this order:
    checkpoint = torch.load("model_and_optimizer.pth")        # weights_only=True: 1.13 refuses the
    model = GPTModel(cfg)                                     #   optimizer's float param_groups
    model.load_state_dict(checkpoint["model_state_dict"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.0004, weight_decay=0.1)
    optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
    model.train()
    torch.manual_seed(seed); train_loader, val_loader = (the notebook's loaders)
    train_model_simple(model, train_loader, val_loader, optimizer, device, num_epochs=1,
                       eval_freq=5, eval_iter=5, start_context="Every effort moves you", tokenizer)
and from model.pth the same with torch.load("model.pth", weights_only=True) and no
optimizer.load_state_dict (a fresh AdamW with lr 0.0004, weight decay 0.1).

The records file: one line per record of each zip archive, "FILE RECORD SHA256 WHAT" (WHAT: the
state dict key or optimizer state the tensor is, for a reader), for the records data.pkl and
data/N; the pickle's hash is of 1.13's pickle (a --pytorch 2 file written by the suite carries 2.x's
param_groups keys, so its pickle differs: the test compares the pickle of the 1.13 configuration
only). "--pytorch 2" configurations run with torch2x_adamw installed (PyTorch 2.x's CPU AdamW step),
"1.13" ones with 1.13's own AdamW, in both runs.
"""
import contextlib
import hashlib
import io
import os
import pathlib
import shutil
import sys
import zipfile

sys.dont_write_bytecode = True
HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

import torch  # noqa: E402

import book_checkout  # noqa: E402
import train_reference  # noqa: E402

USAGE = "resume_reference.py BOOK [--out DIR] [--keep DIR]"
START_CONTEXT = "Every effort moves you"
LR, WEIGHT_DECAY = 0.0004, 0.1   # section 5.2's AdamW, and exercise 5.4's before load_state_dict



def R(name, pytorch, head=None):
    """One layer, 12 heads (GPT_CONFIG_124M's count, which exercise 5.4's config keeps) of width 2,
    the notebook's dropout 0.1, context 16; the text the-verdict.txt, or its first `head` bytes
    (the CTest's train-verdict-head.txt: about 18 steps an epoch instead of 144)."""
    cfg = train_reference.C(name, 123, 16, 24, 12, 1, 0.1, False, LR, 1, 2, pytorch, wd=WEIGHT_DECAY)
    cfg["head"] = head
    return cfg


# The first is exercise 5.4's checkpoint (its continuation is the exercise's golden, on the whole
# text as the notebook's); the second checks 1.13's files and both continuations in seconds.
CONFIGS = [R("c16_e24_h12_l1_d01", "2"), R("c16_e24_h12_l1_d01_head3000_torch113", "1.13", head=3000)]


def parse_args():
    book, rest = book_checkout.argument(USAGE, "ch05/01_main-chapter-code/gpt_train.py")
    out, keep = ROOT / "data", None
    while rest:
        arg = rest.pop(0)
        if arg == "--out" and rest:
            out = pathlib.Path(rest.pop(0))
        elif arg == "--keep" and rest:
            keep = pathlib.Path(rest.pop(0))
        else:
            sys.stderr.write(f"unexpected argument {arg!r}\nusage: {USAGE}\n")
            sys.exit(2)
    return pathlib.Path(book).resolve(), out, keep


def train(gpt_train, model, optimizer, text_data, cfg, num_epochs, eval_iter):
    """train_model_simple over new loaders; what it prints."""
    import tiktoken
    train_loader, val_loader = train_reference.loaders(gpt_train, text_data, cfg)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        gpt_train.train_model_simple(model, train_loader, val_loader, optimizer, torch.device("cpu"),
                                     num_epochs=num_epochs, eval_freq=5, eval_iter=eval_iter,
                                     start_context=START_CONTEXT, tokenizer=tiktoken.get_encoding("gpt2"))
    return buffer.getvalue()


def workdir(cfg):
    """train_reference.in_workdir with the configuration's text."""
    text = (ROOT / "data" / "the-verdict.txt").read_bytes()
    return train_reference.in_workdir(None if cfg["head"] is None else text[:cfg["head"]])


def main_output(gpt_train, cfg):
    """What gpt_train.main() prints for the configuration (seed 123, as its own)."""
    buffer = io.StringIO()
    with workdir(cfg), train_reference.pytorch_version(cfg["pytorch"]), contextlib.redirect_stdout(buffer):
        gpt_train.main(dict(cfg["gpt"]), dict(cfg["settings"]))
    return buffer.getvalue()


def first_run(gpt_train, cfg, text_data):
    """gpt_train.main()'s run, keeping the model and the optimizer."""
    g, s = cfg["gpt"], cfg["settings"]
    torch.manual_seed(cfg["seed"])
    model = gpt_train.GPTModel(dict(g))
    optimizer = torch.optim.AdamW(model.parameters(), lr=s["learning_rate"], weight_decay=s["weight_decay"])
    text = train(gpt_train, model, optimizer, text_data, cfg, s["num_epochs"], eval_iter=1)
    return model, optimizer, text


def continuation(gpt_train, cfg, text_data, path, with_optimizer):
    """Exercise 5.4's solution, from `path`."""
    g = cfg["gpt"]
    if with_optimizer:
        checkpoint = torch.load(path)
        state = checkpoint["model_state_dict"]
    else:
        state = torch.load(path, weights_only=True)
    model = gpt_train.GPTModel(dict(g))
    model.load_state_dict(state)
    optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
    if with_optimizer:
        optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
    model.train()
    torch.manual_seed(cfg["seed"])
    return train(gpt_train, model, optimizer, text_data, cfg, num_epochs=1, eval_iter=5)


def what_records(model, optimizer):
    """What each data/N record holds, in torch.save's order: the model's tensors, then the
    optimizer's (per parameter: step, exp_avg, exp_avg_sq)."""
    names = list(model.state_dict().keys())
    for i in sorted(optimizer.state_dict()["state"]):
        names += [f"optimizer state {i} {k}" for k in optimizer.state_dict()["state"][i]]
    return names


def records(path, names):
    lines = []
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            folder, _, record = info.filename.partition("/")
            if record == "data.pkl":
                what = "the pickle"
            elif record.startswith("data/"):
                what = names[int(record[5:])]
            else:
                continue
            lines.append(f"{os.path.basename(path)} {record} {hashlib.sha256(z.read(info)).hexdigest()} {what}")
    return lines


def main():
    book, out, keep = parse_args()
    gpt_train = train_reference.import_gpt_train(book)
    torch.cuda.is_available = lambda: False
    gold = out / "golden" / "train"
    gold.mkdir(parents=True, exist_ok=True)
    for cfg in CONFIGS:
        name = cfg["name"]
        main_text = main_output(gpt_train, cfg)
        with workdir(cfg), train_reference.pytorch_version(cfg["pytorch"]):
            with open("the-verdict.txt", "r", encoding="utf-8") as f:
                text_data = f.read()
            model, optimizer, first = first_run(gpt_train, cfg, text_data)
            assert first == main_text, f"{name}: the first run's output differs from gpt_train.main()'s"
            torch.save(model.state_dict(), "model.pth")
            torch.save({"model_state_dict": model.state_dict(), "optimizer_state_dict": optimizer.state_dict()},
                       "model_and_optimizer.pth")
            lines = [f"# resume_reference.py: the records of PyTorch {torch.__version__}'s files for {name}",
                     "# FILE RECORD SHA256 WHAT"]
            lines += records("model.pth", list(model.state_dict().keys()))
            lines += records("model_and_optimizer.pth", what_records(model, optimizer))
            resumed = continuation(gpt_train, cfg, text_data, "model_and_optimizer.pth", with_optimizer=True)
            model_only = continuation(gpt_train, cfg, text_data, "model.pth", with_optimizer=False)
            if keep is not None:
                keep.mkdir(parents=True, exist_ok=True)
                shutil.copyfile("model.pth", keep / f"{name}_model.pth")
                shutil.copyfile("model_and_optimizer.pth", keep / f"{name}_model_and_optimizer.pth")
        (gold / f"resume_{name}_first.txt").write_text(first, encoding="utf-8")
        (gold / f"resume_{name}.txt").write_text(resumed, encoding="utf-8")
        (gold / f"resume_{name}_model_only.txt").write_text(model_only, encoding="utf-8")
        (gold / f"resume_{name}_records.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        if cfg is CONFIGS[0]:
            (out / "golden" / "default").mkdir(parents=True, exist_ok=True)
            (out / "golden" / "default" / "ch05_exercise_5_4.txt").write_text(resumed, encoding="utf-8")
        text = "the-verdict.txt" if cfg["head"] is None else f"the-verdict.txt's first {cfg['head']} bytes"
        print(f"{name}: --pytorch {cfg['pytorch']}, {text}; first run {len(first.splitlines())} lines, continued "
              f"{len(resumed.splitlines())} lines; {train_reference.flags(cfg)}", file=sys.stderr)
    print(f"torch {torch.__version__}; OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
