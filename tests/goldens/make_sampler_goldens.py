#!/usr/bin/python3
"""Generate data/tests/sampler_cases.txt: the goldens of common/torch/sampling_test.cpp, which checks
llmfs's exponential_, torch.multinomial(p, 1) and the book's sampling step (common/torch/sampling.hpp).

From the repository root (~15 s):

    /usr/bin/python3 tests/goldens/make_sampler_goldens.py > data/tests/sampler_cases.txt

Everything here is real PyTorch output (Debian's python3-torch 1.13.1, no MKL: the default CPU
`exponential_` kernel, the one the book's ch05 outputs were made with; x86-64 wheels 2.0-2.6 draw
exponential_ through MKL instead, which llmfs does not reproduce). The algorithm, its PyTorch sources
and how it was verified against PyTorch are summarised in common/torch/sampling.hpp.

Format: the "case NAME" / lines / "end" blocks that common/test_support.hpp's load_cases reads;
'#' lines before the first case are comments. Inside a case, one "key value..." per line.
Float values are IEEE bit patterns in hex (float32: 8 digits, float64: 16), indices are decimal,
hashes are FNV-1a 64 over the little-endian bytes of a float32 (or float64) array.

Kinds of case (the NAME's first component):

exponential/...   torch.manual_seed(seed); t = torch.empty(n, dtype).exponential_()
    dtype float32|float64, seed, n, values (only when n <= 64), fnv1a64 (of all n values),
    next_rand: bits of torch.rand(1) drawn right after (where the generator stands: 2n words on).

sample/...        the book's generate() step (ch05 gpt_generate.py, notebook 5.3.3) on FIXED logits,
                  repeated `steps` times from one seed, as generate() would draw step after step:
        torch.manual_seed(logits_seed); logits = torch.randn(1, vocab) * scale   (or: logits hex ...)
        if top_k != none: top_logits, _ = torch.topk(logits, top_k); min_val = top_logits[:, -1]
                          logits = torch.where(logits < min_val, torch.tensor(float("-inf")), logits)
        torch.manual_seed(seed)
        repeat steps times:
          if temperature > 0: l = logits / temperature; l = l - l.max(dim=-1, keepdim=True).values
                              probs = torch.softmax(l, dim=-1); idx = torch.multinomial(probs, 1)
          else:               idx = torch.argmax(logits, dim=-1, keepdim=True)      (draws nothing)
    keys: vocab; logits ("randn SEED SCALE": scale is a power of two, so the product is exact; or
    "hex" and V float32 bit patterns); logits_fnv1a64 (of the [1, V] float32 logits before top-k);
    temperature (Python repr; PyTorch divides by float32(temperature)); top_k (k or none);
    min_val and kept (top-k threshold bits and how many logits survive, ties included), only with
    top_k; probs_fnv1a64 and probs_nonzero (the softmax row, only when temperature > 0);
    probs (all V bit patterns, only when vocab <= 64); seed; steps; samples (the indices);
    next_rand (bits of torch.rand(1) after the last step).

multinomial/...   torch.multinomial(p, 1) on a given weight row, `steps` times from one seed:
    probs: "hex" and the float32 bit patterns, or "ones V" (torch.ones(V): unnormalised weights),
    or "onehot V I" (torch.zeros(V) with p[I] = 1); shape (1d: p is [V]; 2d: [1, V]); seed, steps,
    samples, next_rand.

notebook/...      the ch05 notebook's 5.3.1 cells (1-D, dim=0, no max-subtraction):
    probas = torch.softmax(next_token_logits / T, dim=0) (T = 1: torch.softmax(next_token_logits,
    dim=0), no division); torch.manual_seed(123); draws = [torch.multinomial(probas, 1).item()
    for _ in range(1000)]; counts = torch.bincount(draws, minlength=9). Keys: logits hex ...,
    temperature, probs, seed, steps, samples (all 1000), counts, next_rand.
"""
import struct
import sys

import torch

torch.set_num_threads(1)

BOOK_LOGITS = [4.51, 0.89, -1.90, 6.75, 1.63, -1.62, -1.89, 6.28, 1.79]
TEMPERATURES = [0.0, 0.1, 0.5, 1, 1.4, 5]
TOP_KS = [None, 1, 3, 25, 50]
STEPS = 20


def hex32(t):
    return " ".join("%08x" % struct.unpack("<I", struct.pack("<f", v))[0] for v in t.reshape(-1).tolist())


def hex64(t):
    return " ".join("%016x" % struct.unpack("<Q", struct.pack("<d", v))[0] for v in t.reshape(-1).tolist())


def fnv1a64(t):
    h = 0xCBF29CE484222325
    for b in t.detach().contiguous().numpy().astype(t.numpy().dtype.newbyteorder("<")).tobytes():
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def next_rand():
    return hex32(torch.rand(1))


def emit(name, lines):
    print("case " + name)
    for key, value in lines:
        print(f"{key} {value}")
    print("end")


def exponential_cases():
    for dtype, tag, hexf in [(torch.float32, "float32", hex32), (torch.float64, "float64", hex64)]:
        for seed in [0, 123, 2**32 + 5]:
            for n in [1, 2, 9, 17, 64, 1000, 50257]:
                torch.manual_seed(seed)
                t = torch.empty(n, dtype=dtype).exponential_()
                lines = [("dtype", tag), ("seed", seed), ("n", n)]
                if n <= 64:
                    lines.append(("values", hexf(t)))
                lines += [("fnv1a64", fnv1a64(t)), ("next_rand", next_rand())]
                emit(f"exponential/{tag}/seed{seed}/n{n}", lines)
    # A fresh torch.Generator() (PyTorch's default seed 67280421310721).
    gen = torch.Generator()
    t = torch.empty(9).exponential_(generator=gen)
    emit("exponential/float32/default_generator/n9",
         [("dtype", "float32"), ("seed", 67280421310721), ("n", 9), ("values", hex32(t)), ("fnv1a64", fnv1a64(t)),
          ("next_rand", hex32(torch.rand(1, generator=gen)))])


def sample_case(name, logits_desc, logits, temperature, top_k, seed):
    V = logits.shape[-1]
    lines = [("vocab", V), ("logits", logits_desc), ("logits_fnv1a64", fnv1a64(logits)),
             ("temperature", repr(temperature)), ("top_k", "none" if top_k is None else top_k)]
    if top_k is not None:
        top_logits, _ = torch.topk(logits, top_k)
        min_val = top_logits[:, -1]
        logits = torch.where(logits < min_val, torch.tensor(float("-inf")).to(logits.device), logits)
        lines += [("min_val", hex32(min_val)), ("kept", int((logits > float("-inf")).sum()))]
    probs = None
    if temperature > 0.0:
        scaled = logits / temperature
        shifted = scaled - scaled.max(dim=-1, keepdim=True).values
        probs = torch.softmax(shifted, dim=-1)
        assert torch.equal(probs, torch.softmax(scaled, dim=-1))  # the max-subtraction changes no bit
        lines += [("probs_fnv1a64", fnv1a64(probs)), ("probs_nonzero", int((probs != 0).sum()))]
        if V <= 64:
            lines.append(("probs", hex32(probs)))
    torch.manual_seed(seed)
    samples = []
    for _ in range(STEPS):
        if probs is not None:
            idx = torch.multinomial(probs, num_samples=1)
        else:
            idx = torch.argmax(logits, dim=-1, keepdim=True)
        assert idx.shape == (1, 1)
        samples.append(int(idx))
    lines += [("seed", seed), ("steps", STEPS), ("samples", " ".join(map(str, samples))), ("next_rand", next_rand())]
    emit(name, lines)


def sample_cases():
    book = torch.tensor([BOOK_LOGITS])
    for T in TEMPERATURES:
        for k in [None, 1, 3]:
            for seed in [123, 7]:
                sample_case(f"sample/v9/book/T{T}/k{k}/seed{seed}", "hex " + hex32(book), book, T, k, seed)
    for V, specs in [(9, [(0, 1), (1, 4)]), (1000, [(0, 1), (123, 4)]), (50257, [(123, 1), (7, 4)])]:
        for logits_seed, scale in specs:
            torch.manual_seed(logits_seed)
            logits = torch.randn(1, V) * scale
            for T in TEMPERATURES:
                for k in TOP_KS:
                    if k is not None and k > V:
                        continue
                    seed = 123 if (V != 9 or T != 1.4) else 2**32 + 5
                    sample_case(f"sample/v{V}/randn{logits_seed}x{scale}/T{T}/k{k}/seed{seed}",
                                f"randn {logits_seed} {scale}", logits, T, k, seed)


def multinomial_case(name, desc, p, shape, seed, steps=10):
    t = p if shape == "1d" else p.reshape(1, -1)
    torch.manual_seed(seed)
    samples = [int(torch.multinomial(t, 1).reshape(-1)[0]) for _ in range(steps)]
    emit(name, [("probs", desc), ("shape", shape), ("seed", seed), ("steps", steps),
                ("samples", " ".join(map(str, samples))), ("next_rand", next_rand())])


def multinomial_cases():
    zeros = torch.tensor([0.0, 0.5, 0.0, 0.25, 0.125, 0.0, 0.125, 0.0, 0.0])
    for shape in ["1d", "2d"]:
        multinomial_case(f"multinomial/zeros9/{shape}", "hex " + hex32(zeros), zeros, shape, 123)
    skew = torch.tensor([1e-30, 3.0, 1e-8, 2.5, 0.0, 7.0, 1e-3, 0.0, 6.5, 0.25, 1e-20, 5.0])
    multinomial_case("multinomial/unnormalised12/1d", "hex " + hex32(skew), skew, "1d", 0, steps=20)
    for V in [9, 1000, 50257]:
        multinomial_case(f"multinomial/ones{V}/2d", f"ones {V}", torch.ones(V), "2d", 123)
        hot = V // 3
        p = torch.zeros(V)
        p[hot] = 1.0
        multinomial_case(f"multinomial/onehot{V}/2d", f"onehot {V} {hot}", p, "2d", 42)


def notebook_cases():
    logits = torch.tensor(BOOK_LOGITS)
    for T in [1, 0.1, 5]:
        probas = torch.softmax(logits, dim=0) if T == 1 else torch.softmax(logits / T, dim=0)
        torch.manual_seed(123)
        draws = [torch.multinomial(probas, num_samples=1).item() for _ in range(1000)]
        counts = torch.bincount(torch.tensor(draws), minlength=9)
        emit(f"notebook/print_sampled_tokens/T{T}",
             [("logits", "hex " + hex32(logits)), ("temperature", repr(T)), ("probs", hex32(probas)), ("seed", 123),
              ("steps", 1000), ("samples", " ".join(map(str, draws))),
              ("counts", " ".join(map(str, counts.tolist()))), ("next_rand", next_rand())])


def main():
    cap = torch.__config__.show().split("CPU capability usage: ")[1].split("\n")[0]
    print(f"# Generated by tests/goldens/make_sampler_goldens.py with torch {torch.__version__} ({cap}, MKL "
          f"{'on' if torch.backends.mkl.is_available() else 'off'}: default exponential_ kernel) -- do not edit.")
    print("# Formats: see the docstring of tests/goldens/make_sampler_goldens.py; the algorithm: common/torch/sampling.hpp.")
    exponential_cases()
    sample_cases()
    multinomial_cases()
    notebook_cases()


if __name__ == "__main__":
    sys.exit(main())
