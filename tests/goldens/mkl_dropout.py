"""Make PyTorch without MKL (Debian's build) draw dropout masks as PyTorch *with* MKL does.

PyTorch's MKL Bernoulli kernel (aten/src/ATen/native/cpu/DistributionKernels.cpp, used by the
Linux/Colab wheels on Intel CPUs) takes one 32-bit draw from the CPU generator as a seed and runs
Intel VSL's MCG31m1 generator from it: x0 = seed mod (2^31 - 1) (0 becomes 1),
x_{k+1} = 1132489760 * x_k mod (2^31 - 1), u_k = x_k / (2^31 - 1); element k is 1 iff u_k < p.
Large tensors are split into chunks that skip ahead in the same stream, so the result is one
continuous stream. See docs/pytorch-cpu-rng.md.

`install()` replaces torch.nn.functional.dropout by `input * (mask / (1 - p))` with such a mask,
which is what at::native::_dropout_impl computes (noise.bernoulli_(1 - p); noise.div_(1 - p);
input * noise). Checked against the seed notebooks: with it, tests/goldens/ch03_reference.py
dropout --bernoulli mkl prints the zh notebook's dropout cells exactly.
"""
import torch

M = 2**31 - 1
A = 1132489760


def mkl_bernoulli(numel, p):
    # torch.randint(0, 2**32 - 1) is random() % (2**32 - 1): one 32-bit draw, equal to it but for
    # the single value 2**32 - 1.
    seed = int(torch.randint(0, 2**32 - 1, (1,)))
    x = seed % M or 1
    mask = torch.empty(numel)
    values = []
    for _ in range(numel):
        values.append(1.0 if x / M < p else 0.0)
        x = (A * x) % M
    mask[:] = torch.tensor(values)
    return mask


def mkl_dropout(input, p=0.5, training=True, inplace=False):
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return input * torch.zeros_like(input)
    noise = mkl_bernoulli(input.numel(), 1 - p).view(input.shape)
    noise.div_(1 - p)
    return input * noise


def install():
    torch.nn.functional.dropout = mkl_dropout


def run_section(sections, argv):
    """Command line of the *_reference.py scripts: SECTION [--bernoulli mkl]."""
    args = argv[1:]
    if args[1:] == ["--bernoulli", "mkl"]:
        install()
        args = args[:1]
    if len(args) != 1 or args[0] not in sections:
        raise SystemExit(f"usage: {argv[0]} {'|'.join(sections)} [--bernoulli mkl]")
    sections[args[0]]()
