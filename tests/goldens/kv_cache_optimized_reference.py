"""The book's optimized KV-cache script, ch04/03_kv-cache/gpt_with_kv_cache_optimized.py, `main()`,
under real PyTorch: the reference for ch04_kv_cache_optimized.

    BOOK=/path/to/LLMs-from-scratch   # a checkout of github.com/rasbt/LLMs-from-scratch
    OPENBLAS_CORETYPE=Haswell /usr/bin/python3 tests/goldens/kv_cache_optimized_reference.py $BOOK \
        > data/golden/default/ch04_kv_cache_optimized.txt
    cp data/golden/default/ch04_kv_cache_optimized.txt data/golden/mkl/   # eval mode: no dropout drawn

The script runs unmodified from the checkout (runpy, as `__main__`). Stand-ins, no edits:
  * tiktoken -> tiktoken_stub (OpenAI's GPT-2 encoder), put into sys.modules first;
  * the script's own `print` is given (through runpy's init_globals, a module-level name that
    shadows the builtin) a wrapper that sends its two timing lines ("\\nTime: ... sec" and
    "... tokens/sec") to stderr, as the C++ program does, so stdout is deterministic.
Device: the script picks cuda if available, else cpu; on a CPU-only machine no patch is needed, and
the CUDA-only lines (synchronize, "Max memory allocated") do not run.

The script's kv_window_size is 1024 = the context length, so neither chunking nor the window's
shift happens, and the ids equal the plain-cache script's: the comparison with
data/golden/default/ch04_kv_cache.txt goes to stderr.
"""
import builtins
import io
import os
import re
import runpy
import sys

sys.dont_write_bytecode = True  # write nothing into the book's checkout

import book_checkout  # noqa: E402
import tiktoken_stub  # noqa: E402

PLAIN_GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "golden", "default",
                            "ch04_kv_cache.txt")


def _print(*args, **kwargs):
    if "file" not in kwargs and args and isinstance(args[0], str) and (
            args[0].startswith("\nTime: ") or args[0].endswith(" tokens/sec")):
        kwargs["file"] = sys.stderr
    builtins.print(*args, **kwargs)


def ids_of(text):
    m = re.search(r"Output: tensor\(\[\[(.*?)\]\]\)", text, re.S)
    return [int(t) for t in m.group(1).replace("\n", " ").split(",")]


def main():
    book, options = book_checkout.argument("kv_cache_optimized_reference.py BOOK",
                                           "ch04/03_kv-cache/gpt_with_kv_cache_optimized.py")
    if options:
        sys.stderr.write("usage: kv_cache_optimized_reference.py BOOK\n")
        sys.exit(2)
    tiktoken_stub.install()
    script = os.path.join(book, "ch04", "03_kv-cache", "gpt_with_kv_cache_optimized.py")
    sys.path.insert(0, os.path.dirname(script))
    sys.argv = [script]
    real, buf = sys.stdout, io.StringIO()
    sys.stdout = buf
    try:
        runpy.run_path(script, init_globals={"print": _print}, run_name="__main__")
    finally:
        sys.stdout = real
    out = buf.getvalue()
    sys.stdout.write(out)
    sys.stdout.flush()
    plain_text = open(PLAIN_GOLDEN, encoding="utf-8").read()
    mine, plain = ids_of(out), ids_of(plain_text)
    print(f"ids: {len(mine)} here, {len(plain)} in {PLAIN_GOLDEN}; identical: {mine == plain}", file=sys.stderr)
    print("stdout identical to the plain-cache golden:", out == plain_text, file=sys.stderr)


if __name__ == "__main__":
    main()
