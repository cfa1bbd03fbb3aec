#!/usr/bin/python3
"""Goldens for `llmfs-generate --weights FILE`: synthetic GPT-2 checkpoints in exactly the layout of
Hugging Face's openai-community/gpt2 `model.safetensors`, loaded and run with the book's own code.

    BOOK=/path/to/LLMs-from-scratch   # a checkout of github.com/rasbt/LLMs-from-scratch
    OPENBLAS_CORETYPE=Haswell /usr/bin/python3 tests/goldens/make_safetensors_goldens.py $BOOK [--skip-124m] [--keep-files]

writes data/tests/weights_cases.txt (or --out FILE) and, while it runs, the checkpoint files in a
new temporary folder (tempfile.mkdtemp), removed at the end unless --keep-files. BOOK, the first
positional argument as in every golden script (book_checkout.py), is where the book's sources
are read from. Nothing is written anywhere else: bytecode writing is switched off before
importing from this project or the checkout.

What it does (NOTES.md has the details and the evidence for the layout):

1. Writes each checkpoint by hand (struct + json, no safetensors package) as safetensors 0.2.3-0.3.0
   wrote (the real gpt2 file came from 0.2.x too, but from a version that ordered tensors by Rust
   HashMap iteration: same entries, other order): 8-byte little-endian header length N; N bytes of
   compact JSON (no spaces, no padding), `{"__metadata__":{"format":"pt"}` first, then one entry per
   tensor in byte order of the names, each `{"dtype":"F32","shape":[...],"data_offsets":[begin,end]}`;
   then the tensors' float32 little-endian bytes in that same order, back to back. Tensor names have
   no `transformer.` prefix; `h.N.attn.bias` (the [1, 1, ctx, ctx] causal mask, F32 ones on and
   below the diagonal) is present, `h.N.attn.masked_bias` and `lm_head.weight` are not.
2. Values (the recipe a C++ writer with a bit-exact torch.randn reproduces byte for byte):
   `torch.manual_seed(FILE_SEED)`, then for every tensor in file order (sorted names):
     - `h.N.attn.bias`: no draw; `torch.tril(torch.ones(ctx, ctx)).view(1, 1, ctx, ctx)`;
     - `*.ln_1.weight`, `*.ln_2.weight`, `ln_f.weight`: `torch.randn(shape) * 0.125 + 1.0`;
     - everything else: `torch.randn(shape) * SCALE` (SCALE a power of two, so exact).
   Two variants of each file are checked to read back the same values, and their SHA-256 recorded:
   `pad8` (header padded with spaces to a multiple of 8, as safetensors >= 0.3.1 writes) and
   `scrambled` (data in reverse order, header entries in the other order, `__metadata__` last,
   header padded with spaces to N % 8 == 3 so the data starts at an odd offset).
3. Reads the file back (a reader that validates like safetensors' `read_metadata`), then runs the
   book: `gpt = GPTModel(cfg)`; `load_weights_into_gpt(gpt, params)` (exec'd verbatim from
   ch05/02_alternative_weight_loading/weight-loading-hf-safetensors.ipynb); `torch.manual_seed(S)`;
   `generate(...)` (ch05/01_main-chapter-code/gpt_generate.py, identical to ch05.ipynb's and to
   llms_from_scratch.ch05's); `token_ids_to_text`.
"""
import argparse
import hashlib
import json
import os
import struct
import sys
import tempfile
import time
import types

sys.dont_write_bytecode = True  # never write __pycache__ into this project or the book's checkout

import numpy as np  # noqa: E402
import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import book_checkout  # noqa: E402
import empty_modules  # noqa: E402

NOTEBOOK_IN_BOOK = "ch05/02_alternative_weight_loading/weight-loading-hf-safetensors.ipynb"
BOOK, OPTIONS = book_checkout.argument(
    "make_safetensors_goldens.py BOOK [--skip-124m] [--keep-files] [--out FILE]", NOTEBOOK_IN_BOOK)
sys.path.remove(HERE)
MAIN_GOLDENS = HERE  # make_tokenizer_goldens.py, beside this script in tests/goldens/
NOTEBOOK = os.path.join(BOOK, NOTEBOOK_IN_BOOK)
CH05 = os.path.join(BOOK, "ch05", "01_main-chapter-code")
OUT_CASES = os.path.join(os.path.dirname(os.path.dirname(HERE)), "data", "tests", "weights_cases.txt")

# ---------------------------------------------------------------------------------------------
# The checkpoints
# ---------------------------------------------------------------------------------------------

# Each synthetic file: its shapes (as Hugging Face's GPT-2 config names them) and the value recipe.
# SCALE = 2^scale_log2 is chosen so the next-token logits look like a trained model's (standard
# deviation about 3, top probability 2-50%): greedy steps are far from ties, and sampling at
# temperature 0.7-1.5 neither always picks the top token nor picks uniformly among 50257.
FILES = {
    # tiny: the real vocabulary (so the GPT-2 tokenizer decodes every id), a 32-token context (so a
    # 40-token generation exercises generate's idx[:, -context_size:] window), emb_dim 128 and
    # 2 layers (a 25.7 MB file the C++ test writes in well under a second); 128 / 64 = 2 heads by the
    # head_dim-64 rule that all four real GPT-2 sizes follow, and the same file is also run with
    # 4 heads (head_dim 32) as an explicit override.
    "tiny": dict(vocab_size=50257, n_positions=32, n_embd=128, n_layer=2, seed=20250101, scale_log2=-2),
    # 124M: exactly gpt2's names, shapes and dtype. Its header is 14339 bytes; the real file's is
    # 14283: the same 161 entries, but stored in another (unsorted) order, so its data_offsets have
    # 56 fewer digits in all (NOTES.md).
    "gpt2": dict(vocab_size=50257, n_positions=1024, n_embd=768, n_layer=12, seed=124, scale_log2=-3),
}

LN_WEIGHT_SCALE = 0.125  # LayerNorm weights: randn * 0.125 + 1.0
LN_WEIGHTS = ("ln_1.weight", "ln_2.weight", "ln_f.weight")


def hf_gpt2_tensors(spec):
    """(name, shape) of every tensor in HF's GPT-2 model.safetensors, sorted as the file stores them."""
    d, ctx, v = spec["n_embd"], spec["n_positions"], spec["vocab_size"]
    out = [("wte.weight", (v, d)), ("wpe.weight", (ctx, d)), ("ln_f.weight", (d,)), ("ln_f.bias", (d,))]
    for i in range(spec["n_layer"]):
        p = "h.%d." % i
        out += [
            (p + "ln_1.weight", (d,)), (p + "ln_1.bias", (d,)),
            (p + "attn.bias", (1, 1, ctx, ctx)),
            (p + "attn.c_attn.weight", (d, 3 * d)), (p + "attn.c_attn.bias", (3 * d,)),
            (p + "attn.c_proj.weight", (d, d)), (p + "attn.c_proj.bias", (d,)),
            (p + "ln_2.weight", (d,)), (p + "ln_2.bias", (d,)),
            (p + "mlp.c_fc.weight", (d, 4 * d)), (p + "mlp.c_fc.bias", (4 * d,)),
            (p + "mlp.c_proj.weight", (4 * d, d)), (p + "mlp.c_proj.bias", (d,)),
        ]
    # safetensors sorts by (dtype descending, then name); all are F32, so by name, as Rust's
    # String ordering: bytewise (so "h.1." < "h.10." < "h.11." < "h.2.").
    return sorted(out, key=lambda item: item[0].encode("utf-8"))


def draw_values(spec):
    """name -> float32 tensor, drawn in file order from torch.manual_seed(spec['seed'])."""
    scale = 2.0 ** spec["scale_log2"]
    torch.manual_seed(spec["seed"])
    values = {}
    for name, shape in hf_gpt2_tensors(spec):
        if name.endswith(".attn.bias"):
            ctx = shape[-1]
            values[name] = torch.tril(torch.ones(ctx, ctx)).view(1, 1, ctx, ctx)
        elif name.endswith(LN_WEIGHTS):
            values[name] = torch.randn(shape) * LN_WEIGHT_SCALE + 1.0
        else:
            values[name] = torch.randn(shape) * scale
        assert values[name].dtype == torch.float32 and values[name].is_contiguous()
    return values


def header_json(entries, metadata):
    """The header as serde_json writes safetensors' Metadata: compact, __metadata__ first."""
    obj = {}
    if metadata is not None:
        obj["__metadata__"] = metadata
    for name, dtype, shape, begin, end in entries:
        obj[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [begin, end]}
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=True).encode("utf-8")


def write_safetensors(path, tensors, metadata=None, pad=None, scrambled=False):
    """Writes `tensors` (name -> contiguous float32 tensor, in the order to store them).

    pad=None is how safetensors 0.2.x-0.3.0 wrote (the real gpt2 file: no padding); pad=(m, r)
    appends spaces to the header until N % m == r: (8, 0) is what safetensors >= 0.3.1 does (the
    data then starts at a multiple of 8). Returns (N, data bytes).

    scrambled=True writes a file that is just as valid but orders things as no current writer does
    (as the real gpt2 file, written from Rust HashMaps by safetensors <= 0.2.2, may): the data in
    REVERSE order of `tensors`, the header entries in the order of `tensors` (so header order and
    data order disagree), and `__metadata__` LAST instead of first. A loader that finds tensors by
    name and offsets reads the same values."""
    order = list(tensors.items())
    data_order = order[::-1] if scrambled else order
    spans, offset = {}, 0
    for name, t in data_order:
        n = t.numel() * 4
        spans[name] = (offset, offset + n)
        offset += n
    entries = [(name, "F32", tuple(t.shape)) + spans[name] for name, t in order]
    if scrambled:
        header = header_json(entries, None)
        assert header.endswith(b"}")
        header = header[:-1] + b',"__metadata__":' + json.dumps(
            metadata, separators=(",", ":")).encode("utf-8") + b"}"
    else:
        header = header_json(entries, metadata)
    if pad is not None:
        header += b" " * ((pad[1] - len(header)) % pad[0])
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header)))
        f.write(header)
        for _, t in data_order:
            f.write(t.numpy().astype("<f4", copy=False).tobytes())
    return len(header), offset


class SafetensorsError(Exception):
    pass


def _no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise SafetensorsError("duplicate key %r in header" % dup[0])
    return dict(pairs)


DTYPE_BYTES = {"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "I16": 2, "U16": 2, "F16": 2,
               "BF16": 2, "I32": 4, "U32": 4, "F32": 4, "F64": 8, "I64": 8, "U64": 8}


NP_DTYPES = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "I64": "<i8", "I32": "<i4", "I16": "<i2",
             "I8": "i1", "U8": "u1", "BOOL": "?", "BF16": "<i2"}


def read_safetensors(path, f32_only=True):
    """safetensors.torch.load_file's result (name -> tensor), checking the file as the Rust crate's
    SafeTensors::read_metadata does (plus: duplicate keys are an error; with f32_only, any dtype
    but F32 is too)."""
    with open(path, "rb") as f:
        buf = f.read()
    if len(buf) < 8:
        raise SafetensorsError("HeaderTooSmall")
    n = struct.unpack("<Q", buf[:8])[0]
    if n > 100_000_000:
        raise SafetensorsError("HeaderTooLarge")
    if 8 + n > len(buf):
        raise SafetensorsError("InvalidHeaderLength")
    try:
        text = buf[8:8 + n].decode("utf-8")
    except UnicodeDecodeError as e:
        raise SafetensorsError("InvalidHeader: %s" % e)
    try:
        header = json.loads(text, object_pairs_hook=_no_duplicates)
    except ValueError as e:
        raise SafetensorsError("InvalidHeaderDeserialization: %s" % e)
    if not isinstance(header, dict):
        raise SafetensorsError("InvalidHeaderDeserialization: not an object")
    meta = header.pop("__metadata__", None)
    if meta is not None and not (isinstance(meta, dict) and all(isinstance(v, str) for v in meta.values())):
        raise SafetensorsError("InvalidHeaderDeserialization: __metadata__ must map strings to strings")
    def usize(x):
        return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 2**64

    infos = []
    for name, info in header.items():
        if not isinstance(info, dict) or not {"dtype", "shape", "data_offsets"} <= set(info):
            raise SafetensorsError("InvalidHeaderDeserialization: entry %r needs dtype, shape, data_offsets" % name)
        if info["dtype"] not in DTYPE_BYTES:
            raise SafetensorsError("InvalidHeaderDeserialization: unknown dtype %r" % info["dtype"])
        shape, offsets = info["shape"], info["data_offsets"]
        if not (isinstance(shape, list) and all(usize(d) for d in shape)):
            raise SafetensorsError("InvalidHeaderDeserialization: %r: shape must be non-negative integers" % name)
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(usize(o) for o in offsets)):
            raise SafetensorsError("InvalidHeaderDeserialization: %r: data_offsets must be 2 non-negative integers" % name)
        infos.append((tuple(offsets), name, info))
    infos.sort(key=lambda x: x[0])
    start = 0
    for (b, e), name, info in infos:
        if b != start or e < b:
            raise SafetensorsError("InvalidOffset(%r)" % name)
        start = e
        count = 1
        for d in info["shape"]:
            count *= d
        if count * DTYPE_BYTES[info["dtype"]] >= 2**64:
            raise SafetensorsError("ValidationOverflow")
        if e - b != count * DTYPE_BYTES[info["dtype"]]:
            raise SafetensorsError("TensorInvalidInfo")
    if 8 + n + start != len(buf):
        raise SafetensorsError("MetadataIncompleteBuffer")
    out = {}
    for (b, e), name, info in sorted(infos, key=lambda x: x[1]):
        if f32_only and info["dtype"] != "F32":
            raise SafetensorsError("%s: dtype %s, this loader reads F32" % (name, info["dtype"]))
        npt = np.dtype(NP_DTYPES[info["dtype"]])
        arr = np.frombuffer(buf, dtype=npt, count=(e - b) // npt.itemsize, offset=8 + n + b)
        t = torch.from_numpy(arr.copy()).reshape(tuple(info["shape"]))
        out[name] = t.view(torch.bfloat16) if info["dtype"] == "BF16" else t
    return out, meta


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            h.update(chunk)
    return h.hexdigest()


# ---------------------------------------------------------------------------------------------
# The book's code
# ---------------------------------------------------------------------------------------------

def import_book():
    """GPTModel (ch05 previous_chapters.py), generate/text_to_token_ids/token_ids_to_text
    (ch05 gpt_generate.py), assign/load_weights_into_gpt (the safetensors notebook's cells).

    The only patch: empty stand-in modules for what those files import but the functions used
    never touch (tiktoken, tensorflow, tqdm are not installed here)."""
    empty_modules.install("tiktoken", "tensorflow", "tqdm", "requests")
    sys.path.insert(0, CH05)
    import previous_chapters  # noqa: E402
    import gpt_generate  # noqa: E402
    sys.path.remove(CH05)
    assert gpt_generate.GPTModel is previous_chapters.GPTModel

    with open(NOTEBOOK, encoding="utf-8") as f:
        cells = ["".join(c["source"]) for c in json.load(f)["cells"] if c["cell_type"] == "code"]
    ns = {"torch": torch}
    for marker in ("def assign(", "def load_weights_into_gpt("):
        (src,) = [c for c in cells if marker in c]
        exec(compile(src, NOTEBOOK + ":" + marker, "exec"), ns)
    book = types.SimpleNamespace(
        GPTModel=previous_chapters.GPTModel,
        generate=gpt_generate.generate,
        text_to_token_ids=gpt_generate.text_to_token_ids,
        token_ids_to_text=gpt_generate.token_ids_to_text,
        load_weights_into_gpt=ns["load_weights_into_gpt"],
    )
    return book


def _ascii_regex_standin():
    """A stand-in for the `regex` module (Debian's python3-regex) when it is not installed.

    make_tokenizer_goldens.py compiles GPT-2's pattern with \\p{L} and \\p{N}; stdlib `re` has
    neither. On ASCII text, [A-Za-z] and [0-9] match exactly what they match, so the stand-in
    is exact for the prompts used here (all ASCII: asserted in encode_prompt). Decoding never uses
    the pattern."""
    import re as std_re
    mod = types.ModuleType("regex")

    def compile_(pattern, flags=0):
        pattern = pattern.replace(r"[^\s\p{L}\p{N}]", r"[^\sA-Za-z0-9]")
        pattern = pattern.replace(r"\p{L}", r"[A-Za-z]").replace(r"\p{N}", r"[0-9]")
        return std_re.compile(pattern, flags)

    mod.compile = compile_
    mod.findall = std_re.findall
    mod.STANDIN = True
    return mod


def tokenizer():
    """As tests/goldens/ch04_reference.py's tokenizer(): OpenAI's encoder.py stands in for tiktoken."""
    try:
        import regex  # noqa: F401
    except ImportError:
        sys.modules["regex"] = _ascii_regex_standin()
    sys.path.insert(0, MAIN_GOLDENS)
    import make_tokenizer_goldens as gpt2  # noqa: E402
    sys.path.remove(MAIN_GOLDENS)
    # the book's examples (also in make_tokenizer_goldens.BOOK_EXAMPLES)
    assert gpt2.encode("Every effort moves you") == [6109, 3626, 6100, 345]
    assert gpt2.encode("Hello, I am") == [15496, 11, 314, 716]
    return gpt2


def infer_config(params, n_heads=None):
    """The book's BASE_CONFIG, from the tensors' shapes (what the C++ does; see NOTES.md)."""
    vocab, emb = params["wte.weight"].shape
    ctx = params["wpe.weight"].shape[0]
    layers = 1 + max(int(k.split(".")[1]) for k in params if k.startswith("h."))
    if n_heads is None:
        assert emb % 64 == 0
        n_heads = emb // 64
    return {"vocab_size": vocab, "context_length": ctx, "drop_rate": 0.0, "qkv_bias": True,
            "emb_dim": emb, "n_layers": layers, "n_heads": n_heads}


# ---------------------------------------------------------------------------------------------
# The cases
# ---------------------------------------------------------------------------------------------

P_EVERY = "Every effort moves you"
P_HELLO = "Hello, I am"

TEMPS = [0.0, 0.7, 1.0, 1.5]
TOPKS = [None, 1, 25, 50]


def plan():
    """(file, n_heads, seed, prompt, max_new_tokens, temperature, top_k, eos) for every case.
    eos is None, or ("greedy-token", k): the k-th new token of the same case run with eos_id=None."""
    cases = []
    # tiny, 2 heads: the whole temperature x top_k grid for both prompts
    for t in TEMPS:
        for k in TOPKS:
            cases.append(("tiny", 2, 123, P_EVERY, 20, t, k, None))
            cases.append(("tiny", 2, 42, P_HELLO, 15, t, k, None))
    # tiny: early stop at an end-of-sequence id that occurs (greedy and sampled)
    cases.append(("tiny", 2, 123, P_EVERY, 20, 0.0, None, ("token", 6)))
    cases.append(("tiny", 2, 123, P_EVERY, 20, 1.0, 25, ("token", 4)))
    cases.append(("tiny", 2, 7, P_HELLO, 20, 1.5, None, ("token", 1)))   # stops before any new token
    # tiny: 40 new tokens from 4 (or 5) prompt tokens pass the 32-token context: the window slides
    cases.append(("tiny", 2, 123, P_EVERY, 40, 0.0, None, None))
    cases.append(("tiny", 2, 5, P_HELLO, 40, 1.0, 50, None))
    # tiny, 4 heads (head_dim 32): the same file under an explicit head count
    cases.append(("tiny", 4, 123, P_EVERY, 20, 0.0, None, None))
    cases.append(("tiny", 4, 123, P_EVERY, 20, 1.0, 25, None))
    cases.append(("tiny", 4, 42, P_HELLO, 15, 0.7, 50, None))
    # 124M (gpt2 shapes): the book's own calls, and a few more
    cases.append(("gpt2", 12, 123, P_EVERY, 25, 0.0, None, None))
    cases.append(("gpt2", 12, 123, P_EVERY, 25, 1.5, 50, None))     # ch05.ipynb 5.5
    cases.append(("gpt2", 12, 123, P_EVERY, 25, 1.0, 50, None))     # gpt_generate.py main()
    cases.append(("gpt2", 12, 123, "Every effort moves", 30, 1.0, 1, None))  # the safetensors notebook
    cases.append(("gpt2", 12, 42, P_HELLO, 20, 0.7, None, None))
    cases.append(("gpt2", 12, 7, P_HELLO, 20, 1.0, 25, None))
    cases.append(("gpt2", 12, 123, P_EVERY, 25, 1.0, 50, ("token", 5)))
    return cases


def fmt_opt(x):
    return "none" if x is None else str(x)


def escape(text):
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


def case_name(file, heads, seed, prompt, max_new, temp, top_k, eos):
    tag = {P_EVERY: "every", P_HELLO: "hello"}.get(prompt, "every3")
    name = "%s.h%d.%s.s%d.n%d.t%s.k%s" % (file, heads, tag, seed, max_new, temp, fmt_opt(top_k))
    if eos is not None:
        name += ".eos%d" % eos[1]
    return name


def run_generate(book, gpt, tok, cfg, seed, prompt, max_new, temp, top_k, eos_id):
    if getattr(sys.modules.get("regex"), "STANDIN", False):
        assert prompt.isascii(), "the regex stand-in is exact for ASCII prompts only"
    torch.manual_seed(seed)
    token_ids = book.generate(
        model=gpt,
        idx=book.text_to_token_ids(prompt, tok),
        max_new_tokens=max_new,
        context_size=cfg["context_length"],
        top_k=top_k,
        temperature=temp,
        eos_id=eos_id,
    )
    return token_ids.squeeze(0).tolist(), book.token_ids_to_text(token_ids, tok)


def greedy_margin(gpt, ids, n_prompt, context_size, eos_id):
    """Smallest gap between the largest and second-largest logit over the greedy steps of a run
    (how far each argmax was from a tie; a C++ result that differs at a step with a tiny margin
    points at rounding, not at a loading bug)."""
    margin = float("inf")
    steps = len(ids) - n_prompt + (1 if eos_id is not None else 0)
    with torch.no_grad():
        for k in range(steps):
            prefix = torch.tensor(ids[:n_prompt + k]).unsqueeze(0)[:, -context_size:]
            top = torch.topk(gpt(prefix)[0, -1], 2).values
            margin = min(margin, (top[0] - top[1]).item())
    return margin


def f32hex(x):
    return "%08x" % struct.unpack("<I", struct.pack("<f", x))[0]


def main():
    ap = argparse.ArgumentParser(prog="make_safetensors_goldens.py BOOK")
    ap.add_argument("--skip-124m", action="store_true")
    ap.add_argument("--keep-files", action="store_true")
    ap.add_argument("--out", default=OUT_CASES)
    args = ap.parse_args(OPTIONS)

    book = import_book()
    tok = tokenizer()
    files_dir = tempfile.mkdtemp(prefix="llmfs_safetensors_goldens.")
    lines = [
        "# weights_cases.txt: made by make_safetensors_goldens.py (PyTorch %s, OPENBLAS_CORETYPE=%s)"
        % (torch.__version__, os.environ.get("OPENBLAS_CORETYPE", "unset")),
        "# 'case file.NAME': a synthetic checkpoint (recipe in NOTES.md); 'case NAME.hH....': one generate() call.",
        "# Regenerate: OPENBLAS_CORETYPE=Haswell /usr/bin/python3 tests/goldens/make_safetensors_goldens.py (never edit by hand).",
    ]
    timings = {}
    cases = plan()
    for file in FILES:
        if file == "gpt2" and args.skip_124m:
            continue
        spec = FILES[file]
        path = os.path.join(files_dir, file + ".safetensors")
        t0 = time.perf_counter()
        values = draw_values(spec)
        t1 = time.perf_counter()
        n, data_len = write_safetensors(path, values, metadata={"format": "pt"})
        t2 = time.perf_counter()
        digest = sha256_file(path)
        t3 = time.perf_counter()
        params, meta = read_safetensors(path)
        t4 = time.perf_counter()
        with open(path, "rb") as f:
            f.seek(8)
            header_sha = hashlib.sha256(f.read(n)).hexdigest()
        assert meta == {"format": "pt"}
        for k, v in values.items():
            assert torch.equal(params[k], v), k
        # variants that must read back the same: header padded to a multiple of 8 (safetensors
        # >= 0.3.1), and scrambled (data reversed, header order != data order, __metadata__ last,
        # padded with spaces to N % 8 == 3 as the real gpt2 file's N = 14283 is, so that the data
        # starts at an odd offset)
        variants = {}
        for tag, kw in (("pad8", dict(pad=(8, 0))), ("scrambled", dict(pad=(8, 3), scrambled=True))):
            vpath = path + "." + tag
            vn, _ = write_safetensors(vpath, values, metadata={"format": "pt"}, **kw)
            vparams, vmeta = read_safetensors(vpath)
            assert vmeta == {"format": "pt"} and vparams.keys() == params.keys()
            assert all(torch.equal(vparams[k], params[k]) for k in params)
            variants[tag] = (vn, sha256_file(vpath), os.path.getsize(vpath))
            os.remove(vpath)
            del vparams
        del values
        size = os.path.getsize(path)
        assert size == 8 + n + data_len

        heads_used = sorted({c[1] for c in cases if c[0] == file})
        lines += ["case file.%s" % file,
                  "kind file",
                  "vocab_size %d" % spec["vocab_size"],
                  "n_positions %d" % spec["n_positions"],
                  "n_embd %d" % spec["n_embd"],
                  "n_layer %d" % spec["n_layer"],
                  "value_seed %d" % spec["seed"],
                  "scale 2^%d" % spec["scale_log2"],
                  "ln_weight randn*0.125+1.0",
                  "layout names sorted bytewise; data in that order; compact JSON; __metadata__ first; no padding",
                  "tensors %d" % len(params),
                  "header_length %d" % n,
                  "data_length %d" % data_len,
                  "file_size %d" % size,
                  "data_start %d" % (8 + n),
                  "header_sha256 %s" % header_sha,
                  "sha256 %s" % digest,
                  "pad8_header_length %d" % variants["pad8"][0],
                  "pad8_sha256 %s" % variants["pad8"][1],
                  "scrambled_header_length %d" % variants["scrambled"][0],
                  "scrambled_sha256 %s" % variants["scrambled"][1]]
        for name in ("h.0.attn.bias", "h.0.attn.c_attn.weight", "h.0.ln_1.weight", "wte.weight"):
            flat = params[name].reshape(-1)
            lines.append("sample %s first %s last %s" % (
                name, " ".join(f32hex(v) for v in flat[:4].tolist()), f32hex(flat[-1].item())))
        lines.append("end")
        timings[file] = dict(draw=t1 - t0, write=t2 - t1, sha256=t3 - t2, read=t4 - t3, size=size)

        for heads in heads_used:
            cfg = infer_config(params, n_heads=heads)
            t5 = time.perf_counter()
            gpt = book.GPTModel(cfg)
            t6 = time.perf_counter()
            book.load_weights_into_gpt(gpt, params)
            t7 = time.perf_counter()
            timings[file]["model_init_h%d" % heads] = t6 - t5
            timings[file]["load_weights_h%d" % heads] = t7 - t6

            # the loaded weights are views (q_w.T etc.); a contiguous copy must give the same bits
            idx = book.text_to_token_ids(P_EVERY, tok)
            with torch.no_grad():
                logits = gpt(idx)
                gpt_c = book.GPTModel(cfg)
                gpt_c.load_state_dict({k: v.contiguous() for k, v in gpt.state_dict().items()})
                same = torch.equal(gpt_c(idx), logits)
                gpt.eval()
                same_eval = torch.equal(gpt(idx), logits)
                gpt.train()  # as the notebook leaves it (drop_rate 0.0: no effect)
            del gpt_c
            assert same_eval
            lines += ["case logits.%s.h%d" % (file, heads),
                      "kind logits",
                      "file %s" % file,
                      "n_heads %d" % heads,
                      "contiguous_copy_identical %s" % same]
            for prompt in (P_EVERY, P_HELLO):
                idx = book.text_to_token_ids(prompt, tok)
                with torch.no_grad():
                    last = gpt(idx)[0, -1]
                top = torch.topk(last, 5)
                lines.append("first_step_top5 %s | %s | %s" % (
                    prompt.encode("utf-8").hex(), " ".join(map(str, top.indices.tolist())),
                    " ".join(f32hex(v) for v in top.values.tolist())))
            lines.append("end")

            t_gen, n_gen = 0.0, 0
            for c in cases:
                f_, h_, seed, prompt, max_new, temp, top_k, eos = c
                if f_ != file or h_ != heads:
                    continue
                eos_id = None
                if eos is not None:
                    ids0, _ = run_generate(book, gpt, tok, cfg, seed, prompt, max_new, temp, top_k, None)
                    n_prompt = len(tok.encode(prompt))
                    eos_id = ids0[n_prompt + eos[1] - 1]
                tg = time.perf_counter()
                ids, text = run_generate(book, gpt, tok, cfg, seed, prompt, max_new, temp, top_k, eos_id)
                t_gen += time.perf_counter() - tg
                n_gen += len(ids) - len(tok.encode(prompt))
                if eos is not None:
                    assert len(ids) < len(ids0) and ids == ids0[:len(ids)] and eos_id not in ids[len(tok.encode(prompt)):]
                margin = None
                if temp == 0.0:
                    margin = greedy_margin(gpt, ids, len(tok.encode(prompt)), cfg["context_length"], eos_id)
                lines += ["case " + case_name(*c),
                          "kind generate",
                          "file %s" % file,
                          "n_heads %d" % heads,
                          "config " + " ".join("%s=%s" % (k, cfg[k]) for k in
                                               ("vocab_size", "context_length", "emb_dim", "n_layers",
                                                "n_heads", "drop_rate", "qkv_bias")),
                          "seed %d" % seed,
                          "prompt_hex %s" % prompt.encode("utf-8").hex(),
                          "prompt %s" % escape(prompt),
                          "max_new_tokens %d" % max_new,
                          "temperature %s" % temp,
                          "top_k %s" % fmt_opt(top_k),
                          "eos_id %s" % fmt_opt(eos_id),
                          "ids %s" % " ".join(map(str, ids)),
                          "new_tokens %d" % (len(ids) - len(tok.encode(prompt))),
                          "text_hex %s" % text.encode("utf-8").hex(),
                          "text %s" % escape(text)]
                if margin is not None:
                    lines.append("greedy_min_margin %.6g" % margin)
                lines.append("end")
            timings[file]["generate_h%d" % heads] = (t_gen, n_gen)
            del gpt
        del params
        if not args.keep_files:
            os.remove(path)

    if not args.keep_files and not os.listdir(files_dir):
        os.rmdir(files_dir)
    elif args.keep_files:
        print("kept the checkpoint files in %s" % files_dir)
    with open(args.out, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    n_cases = sum(1 for line in lines if line.startswith("case "))
    print("wrote %d cases to %s" % (n_cases, args.out))
    for file, t in timings.items():
        print(file, json.dumps({k: (round(v, 3) if isinstance(v, float) else v) for k, v in t.items()}))


if __name__ == "__main__":
    main()
