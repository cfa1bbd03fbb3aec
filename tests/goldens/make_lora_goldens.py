"""Appendix E's LoRA fine-tuning on a tiny GPT, as real PyTorch 1.13 computes it with the book's
code: GPTModel and train_classifier_simple (appendix-E/01_main-chapter-code/previous_chapters.py),
LoRALayer, LinearWithLoRA and replace_linear_with_lora (the notebook's cells, executed from
appendix-E.ipynb), on chapter 6's test splits (data/tests/ch06/train.csv, validation.csv) with the
notebook's loaders (batch 8, the training one shuffled after torch.manual_seed(123)).

The model: vocab 50257, context 128, emb_dim 8, 2 heads, 2 layers, drop_rate 0.0, qkv_bias True,
drawn under torch.manual_seed(123); its out_head Linear(8, 2) under torch.manual_seed(123); every
parameter frozen; the adapters added under torch.manual_seed(321) with rank 4 and alpha 6 (so
alpha / rank = 1.5 is a real multiply); torch.manual_seed(123); AdamW(model.parameters(), lr=5e-3,
weight_decay=0.1); train_classifier_simple for 3 epochs, eval_freq 1, eval_iter 1. Under PyTorch
2.x's AdamW (torch2x_adamw.py) and 1.13's own. Each case: what the loop prints, its returned lists
(%.17g), examples_seen, every adapter's A and B afterwards (%.9g, in model.parameters() order), then
the trained model's logits for "Do you have time" (%.9g). Writes data/tests/appendix_e/lora_cases.txt.

usage: OPENBLAS_CORETYPE=Haswell /usr/bin/python3 tests/goldens/make_lora_goldens.py BOOK
"""
import contextlib
import io
import json
import os
import pathlib
import sys
import types

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import book_checkout  # noqa: E402

FOLDER = "appendix-E/01_main-chapter-code"
BOOK, _ = book_checkout.argument("make_lora_goldens.py BOOK", FOLDER + "/appendix-E.ipynb")
ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "data" / "tests" / "appendix_e"
TINY = {"vocab_size": 50257, "context_length": 128, "emb_dim": 8, "n_heads": 2, "n_layers": 2,
        "drop_rate": 0.0, "qkv_bias": True}


def notebook_cells(needles):
    nb = json.loads(pathlib.Path(BOOK, FOLDER, "appendix-E.ipynb").read_text(encoding="utf-8"))
    sources = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    out = []
    for needle in needles:
        found = [s for s in sources if needle in s]
        if len(found) != 1:
            raise SystemExit(f"the notebook has {len(found)} code cells containing {needle!r}, expected 1")
        out.append(found[0])
    return out


def main():
    import tiktoken_stub
    tiktoken_stub.install()
    for name in ("tensorflow", "tqdm", "requests", "matplotlib", "matplotlib.pyplot"):
        try:
            __import__(name)
        except ImportError:
            sys.modules[name] = types.ModuleType(name)
    sys.path.insert(0, str(pathlib.Path(BOOK, FOLDER)))
    import math
    import tiktoken
    import torch
    import torch2x_adamw
    from torch.utils.data import DataLoader
    import previous_chapters as pc

    ns = {"torch": torch, "math": math}
    for source in notebook_cells(["class LoRALayer(", "class LinearWithLoRA(", "def replace_linear_with_lora("]):
        exec(compile(source, "appendix-E.ipynb", "exec"), ns)

    tokenizer = tiktoken.get_encoding("gpt2")
    device = torch.device("cpu")
    data = ROOT / "data" / "tests" / "ch06"
    train_dataset = pc.SpamDataset(csv_file=data / "train.csv", max_length=None, tokenizer=tokenizer)
    val_dataset = pc.SpamDataset(csv_file=data / "validation.csv", max_length=train_dataset.max_length,
                                 tokenizer=tokenizer)
    torch.manual_seed(123)
    train_loader = DataLoader(dataset=train_dataset, batch_size=8, shuffle=True, num_workers=0, drop_last=True)
    val_loader = DataLoader(dataset=val_dataset, batch_size=8, num_workers=0, drop_last=False)
    inputs = torch.tensor(tokenizer.encode("Do you have time")).unsqueeze(0)

    cases = []
    for version in ("2", "1.13"):
        if version == "2":
            torch2x_adamw.install()
        else:
            torch2x_adamw.uninstall()
        torch.manual_seed(123)
        model = pc.GPTModel(TINY)
        torch.manual_seed(123)
        model.out_head = torch.nn.Linear(in_features=TINY["emb_dim"], out_features=2)
        for param in model.parameters():
            param.requires_grad = False
        torch.manual_seed(321)
        ns["replace_linear_with_lora"](model, rank=4, alpha=6)
        torch.manual_seed(123)
        optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=0.1)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            train_losses, val_losses, train_accs, val_accs, examples_seen = pc.train_classifier_simple(
                model, train_loader, val_loader, optimizer, device, num_epochs=3, eval_freq=1, eval_iter=1)
        lists = [" ".join("%.17g" % v for v in values) for values in (train_losses, val_losses, train_accs, val_accs)]
        params = [f"{name} " + " ".join("%.9g" % v for v in p.detach().flatten().tolist())
                  for name, p in model.named_parameters() if p.requires_grad]
        model.eval()
        with torch.no_grad():
            logits = model(inputs)
        cases.append((f"train {version}", printed.getvalue().rstrip("\n") + "\n" + "\n".join(lists) +
                      f"\n{examples_seen}\n" + "\n".join(params) + "\nlogits " +
                      " ".join("%.9g" % v for v in logits.flatten().tolist())))
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "lora_cases.txt", "w") as f:
        f.write(f"# Generated by tests/goldens/make_lora_goldens.py with torch {torch.__version__} -- do not edit.\n")
        for name, text in cases:
            f.write(f"case {name}\n{text}\nend\n")


if __name__ == "__main__":
    main()
