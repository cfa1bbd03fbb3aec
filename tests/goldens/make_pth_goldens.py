#!/usr/bin/python3
"""Goldens of the torch.save reader and writer (common/nn/torch_save, nn/gpt_checkpoint,
train/checkpoint): small model.pth and model_and_optimizer.pth files written by real PyTorch from
the book's own GPTModel, and what PyTorch computes with them.

    BOOK=/path/to/LLMs-from-scratch   # a checkout of github.com/rasbt/LLMs-from-scratch
    OPENBLAS_CORETYPE=Haswell /usr/bin/python3 tests/goldens/make_pth_goldens.py $BOOK

writes data/tests/pth/{tiny,tiny_qkv}.pth, data/tests/pth/{tiny,tiny_qkv}_and_optimizer.pth and
data/tests/pth_cases.txt. Nothing else is written (bytecode writing is off).

For each config (emb_dim 8, 2 heads, 2 layers, context 4, vocabulary 50, drop_rate 0.0, qkv_bias
False / True), as section 5.4 does:
    torch.manual_seed(123); model = GPTModel(cfg)            (ch05 previous_chapters.py)
    torch.save(model.state_dict(), "NAME.pth")
    x = torch.randint(0, 50, (2, 4)); y = torch.randint(0, 50, (2, 4))
    model.eval(); logits = model(x)                           -> logits_fnv1a64
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.0004, weight_decay=0.1)
    model.train(); 2 x (zero_grad; loss = cross_entropy(model(x).flatten(0, 1), y.flatten()); backward; step)
    torch.save({"model_state_dict": model.state_dict(), "optimizer_state_dict": optimizer.state_dict()},
               "NAME_and_optimizer.pth")
    then one more step: the parameters after it (params3_fnv1a64: FNV-1a 64 over every parameter's
    float32 bytes in model.parameters() order), as exercise 5.4 continues from the checkpoint.
Keys per case: file, vocab context emb heads layers qkv_bias, x, y, logits_fnv1a64 (model.pth's model
on x in eval mode), trained_logits_fnv1a64 (after the two steps), step (optimizer state's step),
state_fnv1a64 (over every exp_avg then exp_avg_sq in parameter order), lr, weight_decay,
params3_fnv1a64. PyTorch here is Debian's 1.13 (its AdamW); its files lack 2.x's byteorder records.
The logits and the third step's parameters are exact under the goldens' OpenBLAS kernel (Haswell).
"""
import copy
import os
import sys

sys.dont_write_bytecode = True

import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import book_checkout  # noqa: E402
import empty_modules  # noqa: E402

BOOK, _ = book_checkout.argument("make_pth_goldens.py BOOK", "ch05/01_main-chapter-code/previous_chapters.py")
sys.path.remove(HERE)
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT_DIR = os.path.join(ROOT, "data", "tests", "pth")
OUT_CASES = os.path.join(ROOT, "data", "tests", "pth_cases.txt")


def import_book():
    """The book's GPTModel; empty stand-ins for the modules previous_chapters.py imports but the
    model never uses (tiktoken is not packaged in Debian)."""
    empty_modules.install("tiktoken", "tqdm")
    ch05 = os.path.join(BOOK, "ch05", "01_main-chapter-code")
    sys.path.insert(0, ch05)
    import previous_chapters  # noqa: E402
    sys.path.remove(ch05)
    return previous_chapters.GPTModel


def fnv1a64(tensors):
    h = 0xCBF29CE484222325
    for t in tensors:
        for b in t.detach().contiguous().float().numpy().astype("<f4").tobytes():
            h ^= b
            h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def case(GPTModel, name, qkv_bias, out):
    cfg = {"vocab_size": 50, "context_length": 4, "emb_dim": 8, "n_heads": 2, "n_layers": 2, "drop_rate": 0.0, "qkv_bias": qkv_bias}
    torch.manual_seed(123)
    model = GPTModel(cfg)
    torch.save(model.state_dict(), os.path.join(OUT_DIR, f"{name}.pth"))
    x = torch.randint(0, 50, (2, 4))
    y = torch.randint(0, 50, (2, 4))
    model.eval()
    with torch.no_grad():
        logits = model(x)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.0004, weight_decay=0.1)
    model.train()

    def step():
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x).flatten(0, 1), y.flatten())
        loss.backward()
        optimizer.step()

    step()
    step()
    torch.save({"model_state_dict": model.state_dict(), "optimizer_state_dict": optimizer.state_dict()},
               os.path.join(OUT_DIR, f"{name}_and_optimizer.pth"))
    model.eval()
    with torch.no_grad():
        trained = model(x)
    state = copy.deepcopy(optimizer.state_dict()["state"])  # the saved values, not the live ones
    params = list(model.parameters())
    model.train()
    step()
    out.append(f"case model/{name}")
    out.append(f"file {name}.pth")
    out.append(f"optimizer_file {name}_and_optimizer.pth")
    out.append(f"vocab 50\ncontext 4\nemb 8\nheads 2\nlayers 2\nqkv_bias {int(qkv_bias)}")
    out.append("x " + " ".join(str(int(v)) for v in x.flatten()))
    out.append("y " + " ".join(str(int(v)) for v in y.flatten()))
    out.append(f"logits_fnv1a64 {fnv1a64([logits])}")
    out.append(f"trained_logits_fnv1a64 {fnv1a64([trained])}")
    out.append(f"step {float(state[0]['step'])}")
    out.append(f"state_fnv1a64 {fnv1a64([state[i]['exp_avg'] for i in range(len(params))] + [state[i]['exp_avg_sq'] for i in range(len(params))])}")
    out.append("lr 0.0004\nweight_decay 0.1")
    out.append(f"params3_fnv1a64 {fnv1a64(params)}")
    out.append("end")


def main():
    GPTModel = import_book()
    os.makedirs(OUT_DIR, exist_ok=True)
    out = [f"# make_pth_goldens.py {book_checkout.REPOSITORY} (torch {torch.__version__})"]
    case(GPTModel, "tiny", False, out)
    case(GPTModel, "tiny_qkv", True, out)
    with open(OUT_CASES, "w") as f:
        f.write("\n".join(out) + "\n")


main()
