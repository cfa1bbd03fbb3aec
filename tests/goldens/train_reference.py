#!/usr/bin/python3
"""The book's chapter-5 training script, ch05/01_main-chapter-code/gpt_train.py, run by real PyTorch
for several small configurations: the goldens of llmfs-train. From the repository root, with BOOK a
checkout of github.com/rasbt/LLMs-from-scratch (commit 28c65cd):

    OPENBLAS_CORETYPE=Haswell nice -n 10 /usr/bin/python3 tests/goldens/train_reference.py BOOK

writes data/golden/train/<name>.txt for every configuration in CONFIGS, data/golden/train/INDEX.tsv,
and the step dumps data/tests/train_steps_<name>.txt of the configurations in DUMPS.
Options: --out DIR (write DIR/golden/train/... and DIR/tests/... instead of the repository's data/),
--only NAME[,NAME...] (those configurations only; INDEX.tsv is then not rewritten), --no-dumps.

gpt_train.py is imported from the checkout as a module (its directory first on sys.path; no bytecode
is written there) and its own `main(gpt_config, settings)` runs each configuration; nothing of its
code is copied. Around it:
- `tiktoken` is tiktoken_stub.py (OpenAI's GPT-2 encoder); `matplotlib`/`matplotlib.pyplot` are empty
  stand-in modules (not installed here; main() never plots).
- main() runs in a temporary working directory holding a copy of data/the-verdict.txt as
  "the-verdict.txt", so it takes its "file exists" branch and downloads nothing.
- main() calls torch.manual_seed(123) itself. For a configuration with another seed S,
  torch.manual_seed is wrapped while main() runs: a call with 123 seeds S instead (any other value
  passes through); the wrapper is removed afterwards.
- torch.cuda.is_available() returns False (the device is the CPU; there is no GPU here anyway).
- --pytorch 2 configurations run with torch2x_adamw installed (PyTorch 2.x's CPU AdamW step and
  zero_grad(set_to_none=True)); --pytorch 1.13 ones with torch 1.13's own optimizer.
- main() fixes eval_freq=5, eval_iter=1, start_context="Every effort moves you", drop_last=True for
  training and False for validation, stride = context_length, train_ratio 0.90.
Each golden is what main() prints (stdout), byte for byte: the "Ep N (Step NNNNNN): Train loss X,
Val loss Y" lines and, after each epoch, the 50-token greedy sample.

The step dumps: train_model_simple does not expose its steps, so a loop written here repeats it
with the book's own functions (gpt_train.GPTModel, create_dataloader_v1, calc_loss_batch,
evaluate_model) in its order of random draws: torch.manual_seed(seed), GPTModel(cfg), AdamW, the two
loaders, then `for input_batch, target_batch in train_loader:` with zero_grad/loss/backward/step and
evaluate_model after steps 0, 5, ... (evaluating draws from the generator: each pass over a loader
draws a base seed, the shuffling train loader one more). It stops after DUMP_STEPS steps and
asserts that its losses equal, bit for bit, the first training losses of main()'s own run of the
same configuration (recorded by wrapping gpt_train.calc_loss_batch), and its first evaluation too.
The record format is documented at the top of each dump file (HEADER below).
"""
import contextlib
import hashlib
import io
import os
import pathlib
import shutil
import struct
import sys
import tempfile
import types

sys.dont_write_bytecode = True  # never write __pycache__ into the book's checkout or this tree
HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

import torch  # noqa: E402

USAGE = ("usage: train_reference.py BOOK [--out DIR] [--only NAME[,NAME...]] [--no-dumps]\n"
         "BOOK: a checkout of github.com/rasbt/LLMs-from-scratch (commit 28c65cd), "
         "containing ch05/01_main-chapter-code/gpt_train.py")

START_CONTEXT = "Every effort moves you"   # fixed in gpt_train.main()
EVAL_FREQ, EVAL_ITER = 5, 1                # fixed in gpt_train.main()
DUMP_STEPS = 3


def C(name, seed, ctx, emb, heads, layers, drop, qkv, lr, epochs, batch, pytorch, wd=0.1):
    return dict(name=name, seed=seed, pytorch=pytorch,
                gpt=dict(vocab_size=50257, context_length=ctx, emb_dim=emb, n_heads=heads,
                         n_layers=layers, drop_rate=drop, qkv_bias=qkv),
                settings=dict(learning_rate=lr, num_epochs=epochs, batch_size=batch, weight_decay=wd))


# name, seed, context, emb, heads, layers, dropout, qkv_bias, lr, epochs, batch size, --pytorch
CONFIGS = [
    C("c16_e16_h2_l2_d01", 123, 16, 16, 2, 2, 0.1, False, 5e-4, 2, 2, "2"),
    C("c16_e16_h2_l2_d01_torch113", 123, 16, 16, 2, 2, 0.1, False, 5e-4, 2, 2, "1.13"),
    C("c8_e8_h1_l1_d01_qkv", 123, 8, 8, 1, 1, 0.1, True, 1e-3, 3, 2, "2"),
    C("c8_e8_h1_l1_d01_qkv_torch113", 123, 8, 8, 1, 1, 0.1, True, 1e-3, 3, 2, "1.13"),
    C("c32_e32_h4_l2_d00_seed7", 7, 32, 32, 4, 2, 0.0, False, 5e-4, 2, 2, "2"),
    C("c32_e32_h4_l2_d00_seed7_torch113", 7, 32, 32, 4, 2, 0.0, False, 5e-4, 2, 2, "1.13"),
    C("c16_e16_h4_l1_d01_qkv_b3_seed2024", 2024, 16, 16, 4, 1, 0.1, True, 1e-3, 2, 3, "2"),
    C("c24_e32_h2_l1_d00_qkv", 123, 24, 32, 2, 1, 0.0, True, 5e-4, 3, 2, "2"),
    C("c20_e12_h3_l2_d01_b3_seed7", 7, 20, 12, 3, 2, 0.1, False, 1e-3, 2, 3, "2"),
    # the book's GPT_CONFIG_124M and OTHER_SETTINGS with a small width and depth
    C("book_c256_e48_h12_l2", 123, 256, 48, 12, 2, 0.1, False, 5e-4, 10, 2, "2"),
    # the book's 124M model itself, context 64, one epoch
    C("gpt124m_c64_ep1", 123, 64, 768, 12, 12, 0.1, False, 5e-4, 1, 2, "2"),
]
# configurations whose first DUMP_STEPS optimizer steps are dumped bit for bit (the _torch113 twin
# shows 1.13's own AdamW: its step-2 and step-3 values differ from 2.x's in some elements)
DUMPS = ["c8_e8_h1_l1_d01_qkv", "c32_e32_h4_l2_d00_seed7", "c8_e8_h1_l1_d01_qkv_torch113"]

HEADER = """\
# The first {steps} optimizer steps of the book's training loop (ch05 gpt_train.py, train_model_simple's
# order of random draws) for configuration {name}, PyTorch {torch} with --pytorch {pytorch}
# ({adamw}), OPENBLAS_CORETYPE=Haswell. Made by tests/goldens/train_reference.py.
# One record per line, fields separated by one space. Float32 values are written as their bit
# patterns, 0x%08x; sha256 is of the tensor's float32 bytes, little-endian, contiguous, row-major.
# Shapes are dimensions joined by 'x'. Records:
#   config KEY=VALUE ...                       the configuration (flags of llmfs-train)
#   init NAME SHAPE SHA256 V0 V1 V2 V3 V-4 V-3 V-2 V-1
#                                              every parameter after GPTModel(cfg), named_parameters() order
#   input STEP ROW ID ...                      the step's input_batch row (token ids), STEP from 0
#   target STEP ROW ID ...                     the step's target_batch row
#   loss STEP BITS REPR                        calc_loss_batch's loss: float32 bits and repr(loss.item())
#   param STEP NAME SHAPE GRAD_SHA256 VALUE_SHA256 G0 G1 G2 G3 G-4 G-3 G-2 G-1 V0 V1 V2 V3 V-4 V-3 V-2 V-1
#                                              after optimizer.step(): the gradient (G) and the new value (V)
#   eval STEP TRAIN_REPR VAL_REPR              evaluate_model after that step (train_model_simple's
#                                              `global_step % eval_freq == 0`), as Python floats
"""


def usage_error(message=None):
    if message:
        print(message, file=sys.stderr)
    print(USAGE, file=sys.stderr)
    sys.exit(2)


def parse_args(argv):
    book, out, only, dumps = None, ROOT / "data", None, True
    rest = list(argv)
    while rest:
        arg = rest.pop(0)
        if arg == "--out" and rest:
            out = pathlib.Path(rest.pop(0))
        elif arg == "--only" and rest:
            only = rest.pop(0).split(",")
        elif arg == "--no-dumps":
            dumps = False
        elif arg.startswith("-") or book is not None:
            usage_error(f"unexpected argument {arg!r}")
        else:
            book = arg
    if book is None:
        usage_error()
    script = pathlib.Path(book) / "ch05" / "01_main-chapter-code" / "gpt_train.py"
    if not script.is_file():
        usage_error(f"{script} not found")
    names = [c["name"] for c in CONFIGS]
    for n in only or []:
        if n not in names:
            usage_error(f"unknown configuration {n!r}; known: {', '.join(names)}")
    return pathlib.Path(book).resolve(), out, only, dumps


def flags(cfg):
    g, s = cfg["gpt"], cfg["settings"]
    parts = [f"--seed {cfg['seed']}", f"--context-length {g['context_length']}",
             f"--emb-dim {g['emb_dim']}", f"--n-heads {g['n_heads']}", f"--n-layers {g['n_layers']}",
             f"--drop-rate {g['drop_rate']}"]
    if g["qkv_bias"]:
        parts.append("--qkv-bias")
    parts += [f"--lr {s['learning_rate']}", f"--weight-decay {s['weight_decay']}",
              f"--epochs {s['num_epochs']}", f"--batch-size {s['batch_size']}",
              f"--eval-freq {EVAL_FREQ}", f"--eval-iter {EVAL_ITER}",
              f'--start-context "{START_CONTEXT}"']
    return " ".join(parts)


def import_gpt_train(book):
    import tiktoken_stub
    tiktoken_stub.install()
    for name in ("matplotlib", "matplotlib.pyplot"):
        sys.modules.setdefault(name, types.ModuleType(name))
    sys.modules["matplotlib"].pyplot = sys.modules["matplotlib.pyplot"]
    sys.path.insert(0, str(book / "ch05" / "01_main-chapter-code"))
    import gpt_train
    return gpt_train


@contextlib.contextmanager
def seeded(seed):
    """While active, torch.manual_seed(123) seeds `seed` instead."""
    original = torch.manual_seed

    def manual_seed(s):
        return original(seed if s == 123 else s)

    torch.manual_seed = manual_seed
    try:
        yield
    finally:
        torch.manual_seed = original


@contextlib.contextmanager
def pytorch_version(version):
    import torch2x_adamw
    if version == "2":
        torch2x_adamw.install()
    try:
        yield
    finally:
        torch2x_adamw.uninstall()


@contextlib.contextmanager
def in_workdir(text=None):
    """A temporary working directory holding data/the-verdict.txt (or the bytes `text`) as
    "the-verdict.txt", where main() and the notebook read it."""
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        if text is None:
            shutil.copyfile(ROOT / "data" / "the-verdict.txt", os.path.join(tmp, "the-verdict.txt"))
        else:
            pathlib.Path(tmp, "the-verdict.txt").write_bytes(text)
        os.chdir(tmp)
        try:
            yield
        finally:
            os.chdir(cwd)


def loaders(gpt_train, text_data, cfg):
    """main()'s (and the notebook's) two loaders over text_data; building them draws nothing."""
    g, s = cfg["gpt"], cfg["settings"]
    split_idx = int(0.90 * len(text_data))
    train_loader = gpt_train.create_dataloader_v1(
        text_data[:split_idx], batch_size=s["batch_size"], max_length=g["context_length"],
        stride=g["context_length"], drop_last=True, shuffle=True, num_workers=0)
    val_loader = gpt_train.create_dataloader_v1(
        text_data[split_idx:], batch_size=s["batch_size"], max_length=g["context_length"],
        stride=g["context_length"], drop_last=False, shuffle=False, num_workers=0)
    return train_loader, val_loader


def run_main(gpt_train, cfg):
    """gpt_train.main() for one configuration: (its stdout, the training losses, the eval losses)."""
    train_losses = []
    original = gpt_train.calc_loss_batch

    def calc_loss_batch(input_batch, target_batch, model, device):
        loss = original(input_batch, target_batch, model, device)
        if model.training:
            train_losses.append(loss.detach().clone())
        return loss

    gpt_train.calc_loss_batch = calc_loss_batch
    buffer = io.StringIO()
    try:
        with in_workdir(), seeded(cfg["seed"]), pytorch_version(cfg["pytorch"]), \
                contextlib.redirect_stdout(buffer):
            tr, va, _, _ = gpt_train.main(dict(cfg["gpt"]), dict(cfg["settings"]))
    finally:
        gpt_train.calc_loss_batch = original
    return buffer.getvalue(), train_losses, list(zip(tr, va))


def bits(x):
    return "0x%08x" % struct.unpack("<I", struct.pack("<f", x))[0]


def tensor_fields(t):
    a = t.detach().contiguous().reshape(-1).numpy().astype("<f4")
    sha = hashlib.sha256(a.tobytes()).hexdigest()
    ends = [bits(float(v)) for v in a[:4]] + [bits(float(v)) for v in a[-4:]]
    return sha, ends


def shape_str(t):
    return "x".join(str(d) for d in t.shape)


def dump_steps(gpt_train, cfg, main_losses, main_evals):
    """Repeat train_model_simple's first DUMP_STEPS steps with the book's functions; the dump text."""
    g, s = cfg["gpt"], cfg["settings"]
    lines = [HEADER.format(steps=DUMP_STEPS, name=cfg["name"], torch=torch.__version__,
                           pytorch=cfg["pytorch"],
                           adamw="torch2x_adamw: PyTorch 2.x's AdamW" if cfg["pytorch"] == "2"
                           else "torch 1.13's own AdamW")]
    lines.append("config " + " ".join(
        [f"name={cfg['name']}", f"seed={cfg['seed']}", f"pytorch={cfg['pytorch']}"]
        + [f"{k}={v}" for k, v in g.items()] + [f"{k}={v}" for k, v in s.items()]
        + [f"eval_freq={EVAL_FREQ}", f"eval_iter={EVAL_ITER}"]))
    losses, evals = [], []
    with in_workdir(), seeded(cfg["seed"]), pytorch_version(cfg["pytorch"]):
        with open("the-verdict.txt", "r", encoding="utf-8") as f:   # as main() reads it
            text_data = f.read()
        device = torch.device("cpu")
        torch.manual_seed(123)                  # main(): seeds cfg["seed"] through seeded()
        model = gpt_train.GPTModel(dict(g))
        model.to(device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=s["learning_rate"],
                                      weight_decay=s["weight_decay"])
        train_loader, val_loader = loaders(gpt_train, text_data, cfg)
        for name, p in model.named_parameters():
            sha, ends = tensor_fields(p)
            lines.append(" ".join(["init", name, shape_str(p), sha] + ends))
        global_step = -1
        model.train()
        for input_batch, target_batch in train_loader:     # epoch 1
            optimizer.zero_grad()
            loss = gpt_train.calc_loss_batch(input_batch, target_batch, model, device)
            loss.backward()
            optimizer.step()
            global_step += 1
            for kind, batch in (("input", input_batch), ("target", target_batch)):
                for r, row in enumerate(batch.tolist()):
                    lines.append(" ".join([kind, str(global_step), str(r)] + [str(t) for t in row]))
            lines.append(f"loss {global_step} {bits(loss.item())} {loss.item()!r}")
            losses.append(loss.detach().clone())
            for name, p in model.named_parameters():
                gsha, gends = tensor_fields(p.grad)
                vsha, vends = tensor_fields(p)
                lines.append(" ".join(["param", str(global_step), name, shape_str(p), gsha, vsha]
                                      + gends + vends))
            if global_step % EVAL_FREQ == 0:
                tr, va = gpt_train.evaluate_model(model, train_loader, val_loader, device, EVAL_ITER)
                evals.append((tr, va))
                lines.append(f"eval {global_step} {tr!r} {va!r}")
            if global_step + 1 == DUMP_STEPS:
                break
    for k, (a, b) in enumerate(zip(losses, main_losses)):
        assert torch.equal(a, b) and bits(a.item()) == bits(b.item()), \
            f"{cfg['name']}: step {k} loss {a.item()!r} != main()'s {b.item()!r}"
    assert evals and evals[0] == main_evals[0], f"{cfg['name']}: eval {evals[0]} != main()'s {main_evals[0]}"
    print(f"  dump: the {len(losses)} step losses {[repr(x.item()) for x in losses]} and the "
          f"first evaluation {evals[0]} equal main()'s", file=sys.stderr)
    return "\n".join(lines) + "\n"


def main(argv):
    import time
    book, out, only, dumps = parse_args(argv[1:])
    gpt_train = import_gpt_train(book)
    torch.cuda.is_available = lambda: False
    gold_dir, test_dir = out / "golden" / "train", out / "tests"
    gold_dir.mkdir(parents=True, exist_ok=True)
    test_dir.mkdir(parents=True, exist_ok=True)
    index = ["name\tflags\tpytorch\tfile"]
    for cfg in CONFIGS:
        file = f"{cfg['name']}.txt"
        index.append(f"{cfg['name']}\t{flags(cfg)}\t{cfg['pytorch']}\t{file}")
        if only is not None and cfg["name"] not in only:
            continue
        t0 = time.time()
        text, train_losses, evals = run_main(gpt_train, cfg)
        (gold_dir / file).write_text(text, encoding="utf-8")
        print(f"{cfg['name']}: --pytorch {cfg['pytorch']}, {len(train_losses)} steps, "
              f"{time.time() - t0:.1f} s; last line: {text.splitlines()[-1][:70]!r}", file=sys.stderr)
        if dumps and cfg["name"] in DUMPS:
            (test_dir / f"train_steps_{cfg['name']}.txt").write_text(
                dump_steps(gpt_train, cfg, train_losses, evals), encoding="utf-8")
    if only is None:
        (gold_dir / "INDEX.tsv").write_text("\n".join(index) + "\n", encoding="utf-8")
    print(f"torch {torch.__version__}; OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
