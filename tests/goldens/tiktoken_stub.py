"""A stand-in for tiktoken (not packaged in Debian), put into sys.modules before the book's code
imports it: tiktoken.get_encoding("gpt2") returns an object whose encode/decode are OpenAI's GPT-2
encoder.py as make_tokenizer_goldens.py re-types it (it reads data/gpt2 and checks its SHA256SUMS;
needs Debian's python3-regex). tiktoken's "gpt2" encoding gives the same ids.

encode(text, allowed_special=..., disallowed_special="all") follows tiktoken's rule for the one
special token GPT-2 has: "<|endoftext|>" becomes 50256 when allowed, and raises ValueError when it
occurs in the text without being allowed (tiktoken's default).
"""
import operator
import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_tokenizer_goldens as _gpt2  # noqa: E402

SPECIAL = "<|endoftext|>"


class Encoding:
    name = "gpt2"
    n_vocab = 50257
    eot_token = 50256

    def encode(self, text, allowed_special=frozenset(), disallowed_special="all"):
        allowed = allowed_special == "all" or SPECIAL in allowed_special
        if SPECIAL in text and not allowed and disallowed_special:
            raise ValueError(f"Encountered text corresponding to disallowed special token {SPECIAL!r}.")
        if allowed:
            return _gpt2.encode(text)
        return _gpt2.ENC.encode(text)

    def decode(self, tokens):
        # tiktoken takes any integer-like token (its Rust core converts through __index__): the
        # 0-D tensors of list(tensor) too, as ch07's exercise 7.2 decodes them
        return _gpt2.decode([operator.index(t) for t in tokens])


def get_encoding(name):
    assert name == "gpt2", name
    return Encoding()


def install():
    mod = types.ModuleType("tiktoken")
    mod.get_encoding = get_encoding
    mod.Encoding = Encoding
    sys.modules["tiktoken"] = mod
    return mod
