"""The book's chapter-4 script, ch04/01_main-chapter-code/gpt.py, `main()`, under real PyTorch:
the reference for ch04_gpt_script.

    BOOK=/path/to/LLMs-from-scratch   # a checkout of github.com/rasbt/LLMs-from-scratch
    OPENBLAS_CORETYPE=Haswell /usr/bin/python3 tests/goldens/gpt_script_reference.py $BOOK \
        > data/golden/default/ch04_gpt_script.txt
    OPENBLAS_CORETYPE=Haswell /usr/bin/python3 tests/goldens/gpt_script_reference.py $BOOK --bernoulli mkl \
        > data/golden/mkl/ch04_gpt_script.txt

gpt.py runs unmodified from the checkout (runpy, as `__main__`); only `tiktoken` is replaced, by
tiktoken_stub (OpenAI's GPT-2 encoder). The script seeds 123, builds GPTModel(GPT_CONFIG_124M)
(drop_rate 0.1) and calls model.eval() before generating 10 tokens greedily, so no dropout mask is
drawn: --bernoulli mkl (mkl_dropout.py, the MKL kernel's dropout) gives the same bytes, which the
two goldens show.
"""
import os
import runpy
import sys

sys.dont_write_bytecode = True  # write nothing into the book's checkout

import book_checkout  # noqa: E402
import tiktoken_stub  # noqa: E402

USAGE = "gpt_script_reference.py BOOK [--bernoulli mkl]"


def main():
    book, options = book_checkout.argument(USAGE, "ch04/01_main-chapter-code/gpt.py")
    tiktoken_stub.install()
    if options == ["--bernoulli", "mkl"]:
        import mkl_dropout
        mkl_dropout.install()
    elif options:
        sys.stderr.write("usage: " + USAGE + "\n")
        sys.exit(2)
    script = os.path.join(book, "ch04", "01_main-chapter-code", "gpt.py")
    sys.argv = [script]
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
