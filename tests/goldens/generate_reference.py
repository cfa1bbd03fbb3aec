"""Reference output for llmfs-generate: the book's GPTModel + generate_text_simple under PyTorch.

    /usr/bin/python3 tests/goldens/generate_reference.py > data/golden/generate_cases.txt

For each case: torch.manual_seed(seed); model = GPTModel(cfg); model.eval(); greedy generation
from the prompt (encoded with <|endoftext|> allowed). The file holds one block per case:

    case <TAB> model <TAB> seed <TAB> max_new_tokens <TAB> hex(UTF-8 prompt)
    <ids separated by spaces>
    <decoded text, newlines escaped as \\n>

tests/check_generate.cmake runs llmfs-generate for each case and compares.
"""
import copy

import torch

import torch2x_print  # noqa: F401  PyTorch 2.x's printing (see torch2x_print.py)

import ch04_reference as ch04

SIZES = {  # exercise 4.2
    "gpt2-small": {},
    "gpt2-medium": {"emb_dim": 1024, "n_layers": 24, "n_heads": 16},
    "gpt2-xl": {"emb_dim": 1600, "n_layers": 48, "n_heads": 25},
}

CASES = [
    ("gpt2-small", 123, 6, "Hello, I am"),
    ("gpt2-small", 0, 10, "Every effort moves you"),
    ("gpt2-small", 42, 8, "The quick brown fox jumps over the lazy dog."),
    ("gpt2-small", 2024, 5, "Café naïve — 東京 🙂 <|endoftext|> new text"),
    ("gpt2-small", 7, 7, "  leading spaces\tand tabs\n"),
    ("gpt2-medium", 1, 4, "In the beginning"),
    ("gpt2-xl", 123, 2, "Hello, I am"),
]


def main():
    tok = ch04.tokenizer()
    for name, seed, max_new, prompt in CASES:
        cfg = copy.deepcopy(ch04.GPT_CONFIG_124M)
        cfg.update(SIZES[name])
        torch.manual_seed(seed)
        model = ch04.GPTModel(cfg)
        model.eval()
        idx = torch.tensor(tok.encode(prompt)).unsqueeze(0)
        out = ch04.generate_text_simple(model, idx, max_new, cfg["context_length"])
        ids = out.squeeze(0).tolist()
        text = tok.decode(ids)
        print(f"case\t{name}\t{seed}\t{max_new}\t{prompt.encode('utf-8').hex()}")
        print(" ".join(map(str, ids)))
        print(text.replace("\\", "\\\\").replace("\n", "\\n"))


if __name__ == "__main__":
    main()
