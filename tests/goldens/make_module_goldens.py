"""Goldens of print(module) for common/nn/module_test.cpp: data/tests/module_cases.txt.

    (cd tests/goldens && /usr/bin/python3 make_module_goldens.py) > data/tests/module_cases.txt

Real PyTorch 1.13 prints the book's modules (classes from ch03_reference.py and ch04_reference.py).
One rule changed in PyTorch 2.x, which the notebooks run: nn.ModuleList.__repr__ prints runs of
equal consecutive children once, as "(0-1): 2 x CausalAttention(...)" (torch/nn/modules/container.py,
ModuleList.__repr__, added in 2.1). 1.13 has no such method, so `modulelist_repr_2x` below restates
it and is installed on nn.ModuleList; nn.Sequential is unchanged in 2.x and lists every child.

Each case is "case NAME", the text of print(module), then "end".
"""
import torch.nn as nn
from torch.nn.modules.module import _addindent

import ch04_reference as ch04
from ch03_reference import CausalAttention, MultiHeadAttention, MultiHeadAttentionWrapper


def modulelist_repr_2x(self):
    """PyTorch 2.x's ModuleList.__repr__: equal consecutive children grouped."""
    list_of_reprs = [repr(item) for item in self]
    if len(list_of_reprs) == 0:
        return self._get_name() + "()"
    start_end_indices = [[0, 0]]
    repeated_blocks = [list_of_reprs[0]]
    for i, r in enumerate(list_of_reprs[1:], 1):
        if r == repeated_blocks[-1]:
            start_end_indices[-1][1] += 1
            continue
        start_end_indices.append([i, i])
        repeated_blocks.append(r)
    lines = []
    main_str = self._get_name() + "("
    for (start_id, end_id), b in zip(start_end_indices, repeated_blocks):
        local_repr = f"({start_id}): {b}"
        if start_id != end_id:
            n = end_id - start_id + 1
            local_repr = f"({start_id}-{end_id}): {n} x {b}"
        local_repr = _addindent(local_repr, 2)
        lines.append(local_repr)
    main_str += "\n  " + "\n  ".join(lines) + "\n"
    main_str += ")"
    return main_str


nn.ModuleList.__repr__ = modulelist_repr_2x

TINY = {"vocab_size": 10, "context_length": 4, "emb_dim": 4, "n_heads": 2, "n_layers": 2,
        "drop_rate": 0.0, "qkv_bias": True}

CASES = {
    "causal_attention": lambda: CausalAttention(3, 2, 6, 0.5),
    "wrapper_two_heads": lambda: MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=2),
    "wrapper_one_head": lambda: MultiHeadAttentionWrapper(3, 2, 6, 0.1, num_heads=1),
    "multihead_attention": lambda: MultiHeadAttention(8, 8, 5, 0.25, num_heads=2, qkv_bias=True),
    "feed_forward": lambda: ch04.FeedForward(TINY),
    "transformer_block_124M": lambda: ch04.TransformerBlock(ch04.GPT_CONFIG_124M),
    "gpt_tiny": lambda: ch04.GPTModel(TINY),
}

if __name__ == "__main__":
    for name, make in CASES.items():
        print(f"case {name}\n{make()}\nend")
