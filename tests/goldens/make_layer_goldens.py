"""Goldens for common/nn/layers_test.cpp: each layer and op on inputs PyTorch draws, as printed.

    (cd tests/goldens && /usr/bin/python3 make_layer_goldens.py) > data/tests/layer_cases.txt

Real PyTorch 1.13.1 (Debian python3-torch, no MKL: dropout uses the default Bernoulli kernel).
Each case is seeded, builds its inputs and layer from the generator in a fixed order (which the
C++ test repeats) and records print(output):

    case <name>
    <PyTorch's text>
    end
"""
import torch

import torch2x_print  # noqa: F401  PyTorch 2.x's printing (see torch2x_print.py)
import torch.nn as nn

from ch03_reference import CausalAttention, MultiHeadAttention
from ch04_reference import GELU, GPTModel, LayerNorm, TransformerBlock

TINY = {"vocab_size": 60, "context_length": 8, "emb_dim": 16, "n_heads": 2, "n_layers": 2,
        "drop_rate": 0.1, "qkv_bias": False}


def case(name, tensor):
    print(f"case {name}\n{tensor}\nend")


def main():
    for seed in (1, 5):
        torch.manual_seed(seed)
        lin = nn.Linear(7, 5)
        case(f"linear_2d_seed{seed}", lin(torch.randn(4, 7)))

        torch.manual_seed(seed)
        lin = nn.Linear(16, 9, bias=False)
        case(f"linear_3d_nobias_seed{seed}", lin(torch.rand(2, 3, 16)))

        torch.manual_seed(seed)
        lin = nn.Linear(16, 9)
        case(f"linear_3d_bias_seed{seed}", lin(torch.rand(2, 3, 16)))

        torch.manual_seed(seed)
        x = torch.randn(2, 3, 10) * 3 + 1
        case(f"layer_norm_seed{seed}", LayerNorm(10)(x))

        torch.manual_seed(seed)
        case(f"gelu_seed{seed}", GELU()(torch.randn(5, 20) * 2))

        torch.manual_seed(seed)
        x = torch.randn(3, 9) * 4
        case(f"softmax_seed{seed}", torch.softmax(x, dim=-1))
        case(f"sum_mean_var_seed{seed}",
             torch.cat([x.sum(dim=-1, keepdim=True), x.mean(dim=-1, keepdim=True),
                        x.var(dim=-1, keepdim=True), x.var(dim=-1, keepdim=True, unbiased=False)], dim=-1))

        torch.manual_seed(seed)
        emb = nn.Embedding(20, 6)
        case(f"embedding_seed{seed}", emb(torch.tensor([[3, 0, 19], [7, 7, 1]])))

        torch.manual_seed(seed)
        x = torch.rand(2, 5, 8)
        mha = MultiHeadAttention(8, 12, 5, 0.0, num_heads=3, qkv_bias=True)
        case(f"multihead_attention_seed{seed}", mha(x))

        torch.manual_seed(seed)
        x = torch.rand(2, 6, 4)
        ca = CausalAttention(4, 3, 6, 0.3)
        case(f"causal_attention_dropout_seed{seed}", ca(x))

        torch.manual_seed(seed)
        x = torch.rand(2, 6, 16)
        block = TransformerBlock(TINY)
        case(f"transformer_block_seed{seed}", block(x))

        torch.manual_seed(seed)
        model = GPTModel(TINY)
        case(f"gpt_tiny_train_seed{seed}", model(torch.tensor([[5, 9, 59, 0, 1], [2, 2, 2, 2, 2]])))


if __name__ == "__main__":
    main()
