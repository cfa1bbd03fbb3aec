"""PyTorch's side of the README's performance table (not part of the tests).

    /usr/bin/python3 tools/bench_pytorch.py build                 # torch.manual_seed(123); GPTModel(GPT_CONFIG_124M)
    /usr/bin/python3 tools/bench_pytorch.py generate [--tokens N] [--kv-cache] [--load N]
    /usr/bin/python3 tools/bench_pytorch.py mha [--batch B --tokens T --dim D --heads H]
    /usr/bin/time -f "%e s" /usr/bin/python3 tools/bench_pytorch.py generate --tokens 50   # whole process

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


def mha(args):
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
    args = parser.parse_args()
    {"build": build, "generate": generate, "mha": mha}[args.command](args)


if __name__ == "__main__":
    main()
