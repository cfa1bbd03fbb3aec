#!/usr/bin/python3
"""Generate data/tests/train_cases.txt: the goldens of common/torch/loss_test.cpp and
common/train/data_test.cpp (cross_entropy's bits, and the DataLoader's batches and random draws).
From the repository root (a few seconds):

    /usr/bin/python3 tests/goldens/make_train_goldens.py > data/tests/train_cases.txt

Real PyTorch output (Debian's python3-torch 1.13.1, CPU capability AVX2). Format: the "case NAME" /
lines / "end" blocks of common/test_support.hpp's load_cases; one "key value..." per line. Float
values are IEEE bit patterns in hex (float32: 8 digits), hashes FNV-1a 64 over the little-endian
bytes of a float32 array.

cross_entropy/...   torch.manual_seed(seed); logits = torch.randn(N, V) * scale (scale a power of
    two: exact); targets = torch.randint(0, V, (N,)); loss = F.cross_entropy(logits, targets)
    (log_softmax over V, then nll_loss with mean reduction). Keys: seed N V scale, logits_fnv1a64,
    targets (all N), loss (bits), log_softmax_fnv1a64 (of F.log_softmax(logits, dim=1)),
    grad_fnv1a64 (of logits.grad after loss.backward(): NllLossBackward0, then
    LogSoftmaxBackward0), grad_head (the bits of the gradient's first min(8, N*V) elements).

linear/...          a Linear layer's backward, as autograd runs it (AddmmBackward0 or MmBackward0):
        torch.manual_seed(seed); x = torch.randn(N, in); layer = nn.Linear(in, out, bias=bias)
        dy = torch.randn(N, out); x.requires_grad_(); layer(x).backward(dy)
    Keys: seed N in out bias, dx_fnv1a64, dw_fnv1a64, db_fnv1a64 (bias only), dw_head, db_head.

embedding/...       GPTModel's two embeddings and their sum, backward (EmbeddingBackward0, and the
    position embedding's broadcast over the batch summed by AddBackward0's sum_to):
        torch.manual_seed(seed); tok = nn.Embedding(V, C); pos = nn.Embedding(context, C)
        ids = torch.randint(0, V, (B, T)); dy = torch.randn(B, T, C)
        (tok(ids) + pos(torch.arange(T))).backward(dy)
    Keys: seed V C context B T, ids (all B*T), tok_fnv1a64, pos_fnv1a64, tok_head (the first 4
    elements of the row of ids[0]), pos_head.

gelu/...            the book's GELU (chapter 4's class, its elementary ops) backward:
        torch.manual_seed(seed); x = torch.randn(n) * scale; dy = torch.randn(n)
        x.requires_grad_(); GELU()(x).backward(dy)
    Keys: seed n scale, dx_fnv1a64, dx_head (the first 8).

layernorm/...       the book's LayerNorm (chapter 4's class: mean, var, sub, add, sqrt, div, mul, add)
    backward, scale and shift drawn so that their gradients' roles show:
        torch.manual_seed(seed); x = torch.randn(N, C) * xscale; ln = LayerNorm(C)
        ln.scale.data = torch.randn(C); ln.shift.data = torch.randn(C); dy = torch.randn(N, C)
        x.requires_grad_(); ln(x).backward(dy)
    Keys: seed N C xscale, dx_fnv1a64, dscale_fnv1a64, dshift_fnv1a64, dx_head, dscale_head.

attention/...       the book's MultiHeadAttention (ch05 previous_chapters.py) forward and backward in
    training mode (dropout drawn with the default CPU Bernoulli kernel):
        torch.manual_seed(seed); x = torch.randn(B, T, C)
        mha = MultiHeadAttention(C, C, context, p, NH, qkv_bias); dy = torch.randn(B, T, C)
        x.requires_grad_(); y = mha(x); y.backward(dy)
    Keys: seed B T C context NH p qkv_bias, y_fnv1a64, dx_fnv1a64, and per parameter
    (W_query.weight ... out_proj.bias, named as the module names them) NAME_fnv1a64.

gpt/...             the book's GPTModel (ch05 previous_chapters.py) in training mode, one batch's loss
    and backward, as train_model_simple's first step computes them:
        torch.manual_seed(seed); model = GPTModel(cfg); model.train()
        inputs = torch.randint(0, V, (B, T)); targets = torch.randint(0, V, (B, T))
        logits = model(inputs); loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
        loss.backward()
    Keys: seed V context C NH L p qkv_bias B T, loss (bits), logits_fnv1a64, and for every
    parameter in model.named_parameters() order NAME_fnv1a64 of its gradient.

adamw/...           torch.optim.AdamW on one parameter, many steps:
        torch.manual_seed(seed); p = nn.Parameter(torch.randn(n) * 0.02)
        opt = torch.optim.AdamW([p], lr=lr, weight_decay=wd)
        for each step: p.grad = torch.randn(n) * gscale; opt.step()
    with PyTorch 1.13's own AdamW (version 1.13). Keys: seed n lr wd gscale steps version, and
    "at STEP P_FNV1A64 EXP_AVG_FNV1A64" lines at the checkpoints (every step up to 5, then some).

loader/...          the book's create_dataloader_v1 loader over a dataset of n items (the items are
    their indices), as calc_loss_loader and train_model_simple walk it:
        torch.manual_seed(seed)
        loader = DataLoader(range(n), batch_size=b, shuffle=..., drop_last=..., num_workers=0)
        for epoch in range(epochs): for batch in loader: ...  (each epoch's batches; a "partial"
        epoch stops after its first batch, as calc_loss_loader(num_batches=1) does)
        next_rand: bits of torch.rand(1) after the last epoch (where the generator stands).
    Keys: seed n batch_size shuffle drop_last, epoch lines "epoch full|partial i0 i1 ... | i2 ...",
    next_rand.
"""
import struct

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

# The book's classes as the chapter goldens run them (importing defines them and changes nothing:
# torch2x_print only affects forced sci_mode printing, which this script never uses).
from ch03_reference import MultiHeadAttention  # the book's chapter-3 class
from ch04_reference import GELU, LayerNorm, GPTModel  # chapter 4's, as ch05's previous_chapters.py has them

torch.set_num_threads(1)


def hex32(values):
    return " ".join("%08x" % struct.unpack("<I", struct.pack("<f", v))[0] for v in values)


def fnv1a64(t):
    h = 0xCBF29CE484222325
    for b in t.detach().contiguous().numpy().astype("<f4").tobytes():
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def cross_entropy_case(seed, n, v, scale):
    torch.manual_seed(seed)
    logits = torch.randn(n, v) * scale
    targets = torch.randint(0, v, (n,))
    logits.requires_grad_(True)
    loss = F.cross_entropy(logits, targets)
    loss.backward()
    print(f"case cross_entropy/seed{seed}/N{n}/V{v}/scale{scale}")
    print(f"seed {seed}\nN {n}\nV {v}\nscale {scale}")
    print(f"logits_fnv1a64 {fnv1a64(logits.detach())}")
    print("targets " + " ".join(str(t) for t in targets.tolist()))
    print(f"loss {hex32([loss.item()])}")
    print(f"log_softmax_fnv1a64 {fnv1a64(F.log_softmax(logits.detach(), dim=1))}")
    print(f"grad_fnv1a64 {fnv1a64(logits.grad)}")
    print(f"grad_head {hex32(logits.grad.reshape(-1)[:8].tolist())}")
    print("end")


def linear_case(seed, n, fan_in, fan_out, bias):
    torch.manual_seed(seed)
    x = torch.randn(n, fan_in)
    layer = torch.nn.Linear(fan_in, fan_out, bias=bias)
    dy = torch.randn(n, fan_out)
    x.requires_grad_(True)
    layer(x).backward(dy)
    print(f"case linear/seed{seed}/N{n}/in{fan_in}/out{fan_out}/{'bias' if bias else 'nobias'}")
    print(f"seed {seed}\nN {n}\nin {fan_in}\nout {fan_out}\nbias {int(bias)}")
    print(f"dx_fnv1a64 {fnv1a64(x.grad)}")
    print(f"dw_fnv1a64 {fnv1a64(layer.weight.grad)}")
    print(f"dw_head {hex32(layer.weight.grad.reshape(-1)[:4].tolist())}")
    if bias:
        print(f"db_fnv1a64 {fnv1a64(layer.bias.grad)}")
        print(f"db_head {hex32(layer.bias.grad[:4].tolist())}")
    print("end")


def embedding_case(seed, v, c, context, b, t):
    torch.manual_seed(seed)
    tok = torch.nn.Embedding(v, c)
    pos = torch.nn.Embedding(context, c)
    ids = torch.randint(0, v, (b, t))
    dy = torch.randn(b, t, c)
    (tok(ids) + pos(torch.arange(t))).backward(dy)
    print(f"case embedding/seed{seed}/V{v}/C{c}/context{context}/B{b}/T{t}")
    print(f"seed {seed}\nV {v}\nC {c}\ncontext {context}\nB {b}\nT {t}")
    print("ids " + " ".join(str(i) for i in ids.reshape(-1).tolist()))
    print(f"tok_fnv1a64 {fnv1a64(tok.weight.grad)}")
    print(f"pos_fnv1a64 {fnv1a64(pos.weight.grad)}")
    print(f"tok_head {hex32(tok.weight.grad[ids[0, 0]][:4].tolist())}")
    print(f"pos_head {hex32(pos.weight.grad[0][:4].tolist())}")
    print("end")


def gelu_case(seed, n, scale):
    torch.manual_seed(seed)
    x = torch.randn(n) * scale
    dy = torch.randn(n)
    x.requires_grad_(True)
    GELU()(x).backward(dy)
    print(f"case gelu/seed{seed}/n{n}/scale{scale}")
    print(f"seed {seed}\nn {n}\nscale {scale}")
    print(f"dx_fnv1a64 {fnv1a64(x.grad)}")
    print(f"dx_head {hex32(x.grad[:8].tolist())}")
    print("end")


def layernorm_case(seed, n, c, xscale):
    torch.manual_seed(seed)
    x = torch.randn(n, c) * xscale
    ln = LayerNorm(c)
    ln.scale.data = torch.randn(c)
    ln.shift.data = torch.randn(c)
    dy = torch.randn(n, c)
    x.requires_grad_(True)
    ln(x).backward(dy)
    print(f"case layernorm/seed{seed}/N{n}/C{c}/xscale{xscale}")
    print(f"seed {seed}\nN {n}\nC {c}\nxscale {xscale}")
    print(f"dx_fnv1a64 {fnv1a64(x.grad)}")
    print(f"dscale_fnv1a64 {fnv1a64(ln.scale.grad)}")
    print(f"dshift_fnv1a64 {fnv1a64(ln.shift.grad)}")
    print(f"dx_head {hex32(x.grad.reshape(-1)[:4].tolist())}")
    print(f"dscale_head {hex32(ln.scale.grad[:4].tolist())}")
    print("end")


def attention_case(seed, b, t, c, context, nh, p, qkv_bias):
    torch.manual_seed(seed)
    x = torch.randn(b, t, c)
    mha = MultiHeadAttention(c, c, context, p, nh, qkv_bias)
    dy = torch.randn(b, t, c)
    x.requires_grad_(True)
    y = mha(x)
    y.backward(dy)
    print(f"case attention/seed{seed}/B{b}/T{t}/C{c}/context{context}/NH{nh}/p{p}/{'qkv_bias' if qkv_bias else 'no_bias'}")
    print(f"seed {seed}\nB {b}\nT {t}\nC {c}\ncontext {context}\nNH {nh}\np {p}\nqkv_bias {int(qkv_bias)}")
    print(f"y_fnv1a64 {fnv1a64(y.detach())}")
    print(f"dx_fnv1a64 {fnv1a64(x.grad)}")
    for name, param in mha.named_parameters():
        print(f"{name}_fnv1a64 {fnv1a64(param.grad)}")
    print("end")


def gpt_case(seed, v, context, c, nh, layers, p, qkv_bias, b, t):
    cfg = {"vocab_size": v, "context_length": context, "emb_dim": c, "n_heads": nh, "n_layers": layers,
           "drop_rate": p, "qkv_bias": qkv_bias}
    torch.manual_seed(seed)
    model = GPTModel(cfg)
    model.train()
    inputs = torch.randint(0, v, (b, t))
    targets = torch.randint(0, v, (b, t))
    logits = model(inputs)
    loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
    loss.backward()
    print(f"case gpt/seed{seed}/V{v}/context{context}/C{c}/NH{nh}/L{layers}/p{p}/{'qkv_bias' if qkv_bias else 'no_bias'}/B{b}/T{t}")
    print(f"seed {seed}\nV {v}\ncontext {context}\nC {c}\nNH {nh}\nL {layers}\np {p}\nqkv_bias {int(qkv_bias)}\nB {b}\nT {t}")
    print(f"loss {hex32([loss.item()])}")
    print(f"logits_fnv1a64 {fnv1a64(logits.detach())}")
    for name, param in model.named_parameters():
        print(f"{name}_fnv1a64 {fnv1a64(param.grad)}")
    print("end")


def adamw_case(seed, n, lr, wd, gscale, steps):
    torch.manual_seed(seed)
    p = torch.nn.Parameter(torch.randn(n) * 0.02)
    opt = torch.optim.AdamW([p], lr=lr, weight_decay=wd)
    print(f"case adamw/1.13/seed{seed}/n{n}/lr{lr}/wd{wd}/gscale{gscale}/steps{steps}")
    print(f"seed {seed}\nn {n}\nlr {lr!r}\nwd {wd!r}\ngscale {gscale!r}\nsteps {steps}\nversion 1.13")
    checkpoints = set(range(1, 6)) | {10, 100, 1269, 1270, 1271, steps}
    lines = []
    for step in range(1, steps + 1):
        p.grad = torch.randn(n) * gscale
        opt.step()
        if step in checkpoints:
            lines.append(f"{step} {fnv1a64(p.detach())} {fnv1a64(opt.state[p]['exp_avg'])}")
    print("at " + " | ".join(lines))
    print("end")


def loader_case(seed, n, batch_size, shuffle, drop_last, epochs):
    torch.manual_seed(seed)
    loader = DataLoader(range(n), batch_size=batch_size, shuffle=shuffle, drop_last=drop_last, num_workers=0)
    name = f"loader/seed{seed}/n{n}/b{batch_size}/{'shuffle' if shuffle else 'ordered'}/{'drop_last' if drop_last else 'keep_last'}/{'-'.join(epochs)}"
    print(f"case {name}")
    print(f"seed {seed}\nn {n}\nbatch_size {batch_size}\nshuffle {int(shuffle)}\ndrop_last {int(drop_last)}")
    for kind in epochs:
        batches = []
        for batch in loader:
            batches.append(" ".join(str(i) for i in batch.tolist()))
            if kind == "partial":
                break
        print(f"epoch {kind} " + " | ".join(batches))
    print(f"next_rand {hex32(torch.rand(1).tolist())}")
    print("end")


print(f"# Generated by tests/goldens/make_train_goldens.py with torch {torch.__version__} -- do not edit.")
print("# Formats: see the docstring of tests/goldens/make_train_goldens.py.")
for seed, n, v, scale in [(0, 1, 1, 1.0), (1, 1, 7, 1.0), (2, 3, 8, 1.0), (3, 5, 9, 4.0), (4, 6, 50257, 1.0),
                          (5, 17, 1000, 0.25), (6, 31, 15, 8.0), (7, 64, 50257, 2.0), (8, 300, 33, 1.0),
                          (9, 512, 50257, 1.0), (10, 1030, 20, 1.0)]:
    cross_entropy_case(seed, n, v, scale)
for seed, n, fan_in, fan_out, bias in [(0, 1, 3, 2, True), (1, 6, 16, 48, True), (2, 6, 16, 50257, False),
                                       (3, 512, 768, 768, True), (4, 17, 64, 256, True), (5, 300, 33, 7, True),
                                       (6, 1030, 24, 40, True), (7, 512, 768, 3072, False)]:
    linear_case(seed, n, fan_in, fan_out, bias)
for seed, v, c, context, b, t in [(0, 5, 3, 4, 1, 4), (1, 7, 8, 8, 3, 8), (2, 50, 16, 16, 2, 16), (3, 50257, 32, 256, 2, 256),
                                  (4, 13, 768, 256, 2, 256), (5, 3, 40, 20, 9, 20), (6, 20, 33, 64, 5, 37)]:
    embedding_case(seed, v, c, context, b, t)
for seed, n, scale in [(0, 1, 1.0), (1, 7, 1.0), (2, 8, 2.0), (3, 100, 4.0), (4, 3072 * 4, 1.0), (5, 1000, 0.0625),
                       (6, 4099, 8.0)]:
    gelu_case(seed, n, scale)
for seed, n, c, xscale in [(0, 1, 4, 1.0), (1, 3, 8, 2.0), (2, 6, 16, 1.0), (3, 512, 768, 1.0), (4, 17, 33, 4.0),
                           (5, 300, 64, 0.5), (6, 2, 768, 8.0)]:
    layernorm_case(seed, n, c, xscale)
for seed, b, t, c, context, nh, p, qkv_bias in [(0, 1, 4, 8, 4, 2, 0.0, False), (1, 2, 6, 16, 8, 2, 0.0, True),
                                                (2, 2, 16, 32, 16, 4, 0.1, False), (3, 3, 11, 24, 16, 3, 0.1, True),
                                                (4, 2, 64, 64, 64, 4, 0.5, False), (5, 1, 3, 4, 3, 1, 0.0, False),
                                                (6, 2, 256, 96, 256, 12, 0.1, False)]:
    attention_case(seed, b, t, c, context, nh, p, qkv_bias)
for seed, v, context, c, nh, layers, p, qkv_bias, b, t in [(123, 97, 8, 16, 2, 1, 0.0, False, 2, 8),
                                                          (1, 97, 16, 32, 4, 2, 0.1, True, 2, 16),
                                                          (2, 50257, 12, 24, 3, 2, 0.1, False, 3, 10),
                                                          (3, 300, 32, 64, 4, 1, 0.5, True, 2, 32)]:
    gpt_case(seed, v, context, c, nh, layers, p, qkv_bias, b, t)
for seed, n, lr, wd, gscale, steps in [(0, 1, 0.0004, 0.1, 1.0, 5), (1, 7, 0.0004, 0.1, 0.01, 30),
                                       (2, 1000, 0.0005, 0.1, 0.001, 20), (3, 33, 0.001, 0.0, 1.0, 10),
                                       (4, 9, 0.0004, 0.1, 0.0625, 1300), (5, 50257, 0.0004, 0.1, 0.001, 3)]:
    adamw_case(seed, n, lr, wd, gscale, steps)
for seed, n, b, shuffle, drop_last, epochs in [
        (123, 9, 2, True, True, ["full", "full", "full"]),
        (123, 9, 2, False, False, ["full", "full"]),
        (123, 1, 2, True, True, ["full"]),
        (123, 1, 2, False, False, ["full"]),
        (7, 17, 3, True, False, ["partial", "full", "partial", "full"]),
        (42, 100, 8, True, True, ["full", "partial"]),
        (0, 5, 5, True, True, ["full", "full"]),
        (2**40 + 5, 12, 4, True, False, ["full"])]:
    loader_case(seed, n, b, shuffle, drop_last, epochs)
