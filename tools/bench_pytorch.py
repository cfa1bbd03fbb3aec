"""PyTorch's side of docs/performance.md's tables (not part of the tests).

    /usr/bin/python3 tools/bench_pytorch.py build                 # torch.manual_seed(123); GPTModel(GPT_CONFIG_124M)
    /usr/bin/python3 tools/bench_pytorch.py generate [--tokens N] [--kv-cache] [--load N]
    /usr/bin/python3 tools/bench_pytorch.py mha [--batch B --tokens T --dim D --heads H]
    /usr/bin/python3 tools/bench_pytorch.py mha --book BOOK [--json]   # the MHA notebook's own variants
    /usr/bin/python3 tools/bench_pytorch.py train [--context-length T] [--batch-size B] [--steps N] [--json]
        # the book's training step on GPT_CONFIG_124M (zero_grad, forward, cross_entropy, backward,
        # AdamW step), as llmfs-bench train times it
    /usr/bin/python3 tools/bench_pytorch.py finetune [--lora] [--context-length T] [--batch-size B] [--steps N] [--json]
        # one step of chapter 6's fine-tuning (appendix E's LoRA with --lora), as llmfs-bench finetune
    /usr/bin/time -f "%e s" /usr/bin/python3 tools/bench_pytorch.py generate --tokens 50   # whole process
    /usr/bin/time -f "%M KB" /usr/bin/python3 tools/bench_pytorch.py variant --book BOOK NAME [ARGS...]
        # one run of a bonus GPT script (NAME: ch04_kv_mha, ch04_gqa, ch04_mla, ch04_swa, ch04_kv_ffn,
        # ch04_moe) in float32, as tests/goldens/script_reference.py patches it: prompt and decode
        # times of its GPTModel.forward calls, as llmfs-bench variants reports them

It runs the book's own classes (tests/goldens/ch04_reference.py, ch03_reference.py and the KV-cache
bonus in kv_cache_reference.py) in eval mode, single process, PyTorch's default threads, and prints
the same figures as llmfs-bench: each timing is the median of --repeat runs.
"""
import argparse
import contextlib
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "goldens"))

import torch  # noqa: E402

import ch03_reference as ch03  # noqa: E402
import ch04_reference as ch04  # noqa: E402
import kv_cache_reference as kv  # noqa: E402


def median_time(repeat, fn):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def build(args):
    def make():
        torch.manual_seed(123)
        ch04.GPTModel(ch04.GPT_CONFIG_124M)
    print(f"build gpt2-small (seed 123): {median_time(args.repeat, make):.3f} s")


@contextlib.contextmanager
def busy_processes(n):
    """n CPU-bound processes beside the measurement, as llmfs-bench generate --load n starts them
    (each also ends itself after 10 minutes)."""
    procs = [subprocess.Popen([sys.executable, "-c", "import time\nend = time.time() + 600\nwhile time.time() < end: pass"])
             for _ in range(n)]
    try:
        time.sleep(0.2)  # let them get going
        yield
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def generate(args):
    decode_once(args, "")
    if args.load > 0:
        with busy_processes(args.load):
            decode_once(args, f"beside {args.load} busy process{'' if args.load == 1 else 'es'}: ")


def decode_once(args, label):
    torch.manual_seed(123)
    start = time.perf_counter()
    model = (kv.GPTModelCached if args.kv_cache else ch04.GPTModel)(ch04.GPT_CONFIG_124M)
    model.eval()
    build_s = time.perf_counter() - start
    idx = torch.tensor(ch04.tokenizer().encode("Hello, I am")).unsqueeze(0)
    first = []
    start = time.perf_counter()
    with torch.no_grad():
        if args.kv_cache:  # generate_text_simple_cached, timing the first token apart
            model.reset_kv_cache()
            logits = model(idx, use_cache=True)
            for step in range(args.tokens):
                next_idx = logits[:, -1].argmax(dim=-1, keepdim=True)
                idx = torch.cat([idx, next_idx], dim=1)
                if step == 0:
                    first.append(time.perf_counter() - start)
                if step + 1 < args.tokens:
                    logits = model(next_idx, use_cache=True)
        else:  # generate_text_simple
            for step in range(args.tokens):
                logits = model(idx[:, -1024:])
                next_idx = torch.argmax(torch.softmax(logits[:, -1, :], dim=-1), dim=-1, keepdim=True)
                idx = torch.cat((idx, next_idx), dim=1)
                if step == 0:
                    first.append(time.perf_counter() - start)
    total = time.perf_counter() - start
    decode = (args.tokens - 1) / (total - first[0]) if args.tokens > 1 else 0.0
    print(f"{label}build {build_s:.3f} s, prompt (1st token) {first[0]:.3f} s, decode {decode:.1f} tokens/s "
          f"({args.tokens} new tokens in {total:.2f} s, {'KV cache' if args.kv_cache else 'no cache'})")


def mha_notebook(args):
    """The bonus notebook ch03/02_bonus_efficient-multihead-attention/mha-implementations.ipynb, from
    a checkout of the book: its setup and class cells run as they stand (cell 3 makes the input,
    torch.randn(8, 1024, 768) on the CPU; each construction cell runs one forward, the warm-up),
    then its `functions` dict (cell 59, the notebook's labels) is timed as its CPU %timeit cell
    calls it: grad mode on, training mode, dropout 0.0. PyTorch 1.13 has no
    F.scaled_dot_product_attention (2.0+): variants 5 and 6 then run through 1.13's private
    F._scaled_dot_product_attention (its math kernel, the same boolean-mask convention), marked
    "stand_in" in the JSON. FlexAttention (9) needs PyTorch >= 2.5 on CUDA and is not defined."""
    import json
    import torch.nn.functional as F
    if (args.batch, args.tokens, args.dim, args.heads) != (8, 1024, 768, 12):
        raise SystemExit("--book runs the notebook's own sizes: --batch 8 --tokens 1024 --dim 768 --heads 12")
    path = os.path.join(args.book, "ch03", "02_bonus_efficient-multihead-attention", "mha-implementations.ipynb")
    cells = ["".join(c["source"]) for c in json.load(open(path, encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
    stand_in = not hasattr(F, "scaled_dot_product_attention")
    if stand_in:
        F.scaled_dot_product_attention = lambda q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False: \
            F._scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, False, is_causal)[0]
    ns = {"__name__": "__main__"}
    with contextlib.redirect_stdout(sys.stderr):  # the cells' own prints (shapes, versions)
        for src in cells:
            if "functions = {" in src:
                exec(compile(src, "<functions cell>", "exec"), ns)
                break
            if not src.lstrip().startswith(("# pip", "!", "%")) and "%timeit" not in src:
                exec(compile(src, "<notebook cell>", "exec"), ns)
    x = ns["embeddings"]
    flop = 2.0 * args.batch * args.tokens * args.dim * args.dim * 4 + 4.0 * args.batch * args.tokens ** 2 * args.dim
    report = {"batch": args.batch, "tokens": args.tokens, "dim": args.dim, "heads": args.heads,
              "torch": torch.__version__, "threads": torch.get_num_threads(), "variants": []}
    for label, fn in ns["functions"].items():
        seconds = median_time(args.repeat, lambda: fn(x))
        entry = {"name": label, "ms": seconds * 1e3}
        if stand_in and label.startswith(("5)", "6)")):
            entry["stand_in"] = "F._scaled_dot_product_attention (PyTorch 1.13)"
        report["variants"].append(entry)
        if not args.json:
            print(f"{label}: {seconds * 1e3:.1f} ms ({flop / seconds / 1e9:.1f} GFLOP/s)"
                  + (" [1.13 stand-in for F.scaled_dot_product_attention]" if "stand_in" in entry else ""))
    if args.json:
        print(json.dumps(report, indent=2))


def mha(args):
    if args.book:
        return mha_notebook(args)
    torch.manual_seed(123)
    x = torch.rand(args.batch, args.tokens, args.dim)
    hs = args.dim // args.heads
    flop = 2.0 * args.batch * args.tokens * args.dim * args.dim * 4 + 4.0 * args.batch * args.tokens ** 2 * args.dim
    variants = [
        ("1) CausalAttention MHA wrapper class from chapter 3",
         ch03.MultiHeadAttentionWrapper(args.dim, hs, args.tokens, 0.0, args.heads)),
        ("2) The multi-head attention class from chapter 3",
         ch03.MultiHeadAttention(args.dim, args.dim, args.tokens, 0.0, args.heads)),
    ]
    with torch.no_grad():
        for name, module in variants:
            module.eval()
            seconds = median_time(args.repeat, lambda: module(x))
            print(f"{name}: {seconds * 1e3:.1f} ms ({flop / seconds / 1e9:.1f} GFLOP/s)")


def time_steps(step, steps):
    """One warm-up call of step() (the optimizer's state and the allocator's blocks are made there),
    then `steps` timed calls, each reported on stderr: (the times, their median, the median CPU time
    of all threads, the peak RSS of the process in bytes)."""
    import resource
    print("warm-up step...", file=sys.stderr)
    step()
    times, cpu = [], []
    for _ in range(steps):
        start, cpu_start = time.perf_counter(), time.process_time()
        step()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - cpu_start)
        print(f"step {len(times)}/{steps}: {times[-1]:.3f} s ({cpu[-1]:.3f} s of CPU)", file=sys.stderr)
    return times, sorted(times)[len(times) // 2], sorted(cpu)[len(cpu) // 2], resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def train(args):
    """The training step of the book's train_model_simple (ch05) on GPT_CONFIG_124M with the given
    context length, dropout 0.1, qkv_bias False, torch.optim.AdamW(lr=5e-4, weight_decay=0.1):
    optimizer.zero_grad(); loss = cross_entropy(model(x).flatten(0, 1), y.flatten()); loss.backward();
    optimizer.step(). The batch is random token ids (the numbers do not change the work). One warm-up
    step, then --steps timed steps: the median and the tokens/s it gives; the peak RSS of the process."""
    import json
    import torch.nn.functional as F
    cfg = dict(ch04.GPT_CONFIG_124M, context_length=args.context_length, drop_rate=0.1, qkv_bias=False)
    torch.manual_seed(123)
    model = ch04.GPTModel(cfg)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=0.1)
    shape = (args.batch_size, args.context_length)
    inputs = torch.randint(0, cfg["vocab_size"], shape)
    targets = torch.randint(0, cfg["vocab_size"], shape)

    def step():
        optimizer.zero_grad()
        loss = F.cross_entropy(model(inputs).flatten(0, 1), targets.flatten())
        loss.backward()
        optimizer.step()

    times, seconds, cpu_s, rss = time_steps(step, args.steps)
    tokens = args.batch_size * args.context_length
    report = {"context_length": args.context_length, "batch_size": args.batch_size, "steps": args.steps,
              "torch": torch.__version__, "threads": torch.get_num_threads(), "step_s": seconds,
              "steps_s": times, "tokens_per_s": tokens / seconds, "cpu_s": cpu_s, "peak_rss_bytes": rss}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"PyTorch {torch.__version__}, {torch.get_num_threads()} threads: training step {args.batch_size} x "
              f"{args.context_length} tokens, median {seconds:.3f} s of {args.steps} "
              f"({tokens / seconds:.1f} tokens/s); {cpu_s:.3f} s of CPU (all threads, median); peak RSS {rss / 1e6:.0f} MB")


def variant(args):
    """The script's main(), with its GPTModel.forward timed: the first call is the prompt, the
    max_new_tokens one-token calls after it the decode (the last one's logits unused, as in the script)."""
    import io
    import re
    import script_reference as ref
    ref.BOOK = os.path.join(args.book, "ch04")
    sys.modules["tiktoken"] = ref.fake_tiktoken()
    import torch2x_print  # noqa: F401
    path = os.path.join(ref.BOOK, ref.SCRIPTS[args.name])
    with open(path, encoding="utf-8") as f:
        src = f.read()
    for old, new in ref.GPT_PATCHES:
        src = ref.patch(src, old, new)
    g = {"__name__": "bench_variant", "__file__": path}
    exec(compile(src, path, "exec"), g)
    calls = []
    forward = g["GPTModel"].forward

    def timed(self, *a, **k):
        start = time.perf_counter()
        out = forward(self, *a, **k)
        calls.append(time.perf_counter() - start)
        return out

    g["GPTModel"].forward = timed
    sys.argv = [os.path.basename(path)] + args.args
    real, sys.stdout = sys.stdout, io.StringIO()
    try:
        g["main"]()
    finally:
        out, sys.stdout = sys.stdout.getvalue(), real
    script_time = re.search(r"^Time: ([0-9.]+) sec$", out, re.M).group(1)
    decode = sum(calls[1:])
    print(f"{args.name}: prompt {calls[0]:.3f} s, decode {(len(calls) - 1) / decode:.2f} tokens/s "
          f"({len(calls) - 1} calls in {decode:.2f} s), script Time: {script_time} s, torch threads {torch.get_num_threads()}")


class LoRALayer(torch.nn.Module):
    """Appendix E's LoRALayer, LinearWithLoRA and replace_linear_with_lora, as its notebook's cells
    define them (appendix-E/01_main-chapter-code/appendix-E.ipynb)."""

    def __init__(self, in_dim, out_dim, rank, alpha):
        super().__init__()
        import math
        self.A = torch.nn.Parameter(torch.empty(in_dim, rank))
        torch.nn.init.kaiming_uniform_(self.A, a=math.sqrt(5))
        self.B = torch.nn.Parameter(torch.zeros(rank, out_dim))
        self.alpha = alpha
        self.rank = rank

    def forward(self, x):
        return (self.alpha / self.rank) * (x @ self.A @ self.B)


class LinearWithLoRA(torch.nn.Module):
    def __init__(self, linear, rank, alpha):
        super().__init__()
        self.linear = linear
        self.lora = LoRALayer(linear.in_features, linear.out_features, rank, alpha)

    def forward(self, x):
        return self.linear(x) + self.lora(x)


def replace_linear_with_lora(model, rank, alpha):
    for name, module in model.named_children():
        if isinstance(module, torch.nn.Linear):
            setattr(model, name, LinearWithLoRA(module, rank, alpha))
        else:
            replace_linear_with_lora(module, rank, alpha)


def finetune(args):
    """One step of chapter 6's train_classifier_simple on GPT-2 124M's shapes with qkv_bias and a
    two-class head: every parameter frozen but the last block, final_norm and the head (AdamW lr
    5e-5), or with --lora appendix E's adapters (rank 16, alpha 16) on every Linear (AdamW lr 8e-4),
    weight decay 0.1: optimizer.zero_grad(); loss = cross_entropy(model(x)[:, -1, :], y);
    loss.backward(); optimizer.step(). Random weights and batch. One warm-up step, then --steps
    timed steps: the median; the peak RSS of the process."""
    import json
    cfg = dict(ch04.GPT_CONFIG_124M, context_length=1024, drop_rate=0.0, qkv_bias=True)
    torch.manual_seed(123)
    model = ch04.GPTModel(cfg)
    for param in model.parameters():
        param.requires_grad = False
    torch.manual_seed(123)
    model.out_head = torch.nn.Linear(cfg["emb_dim"], 2)
    if args.lora:
        for param in model.out_head.parameters():
            param.requires_grad = False
        replace_linear_with_lora(model, rank=16, alpha=16)
    else:
        for param in model.trf_blocks[-1].parameters():
            param.requires_grad = True
        for param in model.final_norm.parameters():
            param.requires_grad = True
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=8e-4 if args.lora else 5e-5, weight_decay=0.1)
    inputs = torch.randint(0, cfg["vocab_size"], (args.batch_size, args.context_length))
    labels = torch.randint(0, 2, (args.batch_size,))

    def step():
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(inputs)[:, -1, :], labels)
        loss.backward()
        optimizer.step()

    times, seconds, cpu_s, rss = time_steps(step, args.steps)
    report = {"lora": args.lora, "context_length": args.context_length, "batch_size": args.batch_size, "steps": args.steps,
              "torch": torch.__version__, "threads": torch.get_num_threads(), "step_s": seconds, "steps_s": times,
              "cpu_s": cpu_s, "peak_rss_bytes": rss}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"PyTorch {torch.__version__}, {torch.get_num_threads()} threads: {'LoRA' if args.lora else 'chapter 6'} "
              f"fine-tuning step {args.batch_size} x {args.context_length} tokens, median {seconds:.3f} s of {args.steps}; "
              f"{cpu_s:.3f} s of CPU (all threads, median); peak RSS {rss / 1e6:.0f} MB")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("build")
    p.add_argument("--repeat", type=int, default=3)
    p = sub.add_parser("generate")
    p.add_argument("--tokens", type=int, default=50)
    p.add_argument("--kv-cache", action="store_true")
    p.add_argument("--load", type=int, default=0, help="then again beside this many CPU-bound processes")
    p = sub.add_parser("mha")
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--tokens", type=int, default=1024)
    p.add_argument("--dim", type=int, default=768)
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--book", help="a checkout of rasbt/LLMs-from-scratch: time the MHA notebook's own variants")
    p.add_argument("--json", action="store_true", help="with --book: one JSON object, for llmfs-bench mha --pytorch")
    p = sub.add_parser("train")
    p.add_argument("--context-length", type=int, default=256)
    p.add_argument("--batch-size", type=int, default=2)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("finetune")
    p.add_argument("--lora", action="store_true")
    p.add_argument("--context-length", type=int, default=120)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("variant")
    p.add_argument("--book", required=True, help="a checkout of rasbt/LLMs-from-scratch")
    p.add_argument("name", choices=["ch04_kv_mha", "ch04_gqa", "ch04_mla", "ch04_swa", "ch04_kv_ffn", "ch04_moe"])
    p.add_argument("args", nargs=argparse.REMAINDER, help="the script's own arguments")
    args = parser.parse_args()
    {"build": build, "generate": generate, "mha": mha, "train": train, "finetune": finetune, "variant": variant}[args.command](args)


if __name__ == "__main__":
    main()
