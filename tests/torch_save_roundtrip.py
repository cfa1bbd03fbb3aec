#!/usr/bin/python3
"""PyTorch loads the suite's torch.save files (CTest "torch_save: PyTorch loads the suite's files").

    torch_save_roundtrip.py CHECKPOINT_TEST DATA_TESTS [--exact]

runs CHECKPOINT_TEST (the checkpoint_test binary) with LLMFS_PTH_OUT set to a temporary folder,
where its case "the suite's model.pth and model_and_optimizer.pth for PyTorch to load" writes
ours_NAME.pth and ours_NAME_and_optimizer.pth from PyTorch's data/tests/pth files; then, for each:
  - torch.load(ours_NAME.pth, weights_only=True): the same keys, tensors (bit for bit) and
    _metadata as PyTorch's own NAME.pth (so the same logits);
  - torch.load(ours_NAME_and_optimizer.pth) (1.13 refuses an optimizer's floats with
    weights_only=True; 2.x accepts them): a third AdamW step continued from PyTorch's checkpoint,
    its parameters' FNV-1a 64 equal to pth_cases.txt's params3_fnv1a64 (with --exact: CTest passes it
    where it runs the test under the goldens' OpenBLAS kernel), and an AdamW over those
    parameters takes the optimizer state with load_state_dict.
Prints "torch_save: SKIPPED ..." when torch cannot be imported.
"""
import os
import subprocess
import sys
import tempfile

try:
    import torch
except ImportError:
    print("torch_save: SKIPPED (no torch for /usr/bin/python3)")
    sys.exit(0)


def fnv1a64(tensors):
    h = 0xCBF29CE484222325
    for t in tensors:
        for b in t.contiguous().numpy().astype("<f4").tobytes():
            h ^= b
            h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def cases(path):
    out, name, fields = {}, None, {}
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("case "):
            name, fields = line[5:], {}
        elif line == "end":
            out[name] = fields
        elif name:
            k, _, v = line.partition(" ")
            fields[k] = v
    return out


def main():
    binary, data = sys.argv[1], sys.argv[2]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, LLMFS_PTH_OUT=tmp)
        subprocess.run([binary, "the suite's model.pth and model_and_optimizer.pth for PyTorch to load"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        for name, c in cases(os.path.join(data, "pth_cases.txt")).items():
            theirs = torch.load(os.path.join(data, "pth", c["file"]))
            ours = torch.load(os.path.join(tmp, "ours_" + c["file"]), weights_only=True)
            same = list(ours.keys()) == list(theirs.keys()) and all(
                ours[k].dtype == theirs[k].dtype and torch.equal(ours[k], theirs[k]) for k in theirs) and ours._metadata == theirs._metadata
            print(f"{name}: ours_{c['file']} with weights_only=True: {'same as PyTorch' if same else 'DIFFERENT'}")
            failures += not same
            ck = torch.load(os.path.join(tmp, "ours_" + c["optimizer_file"]))
            params = [v for k, v in ck["model_state_dict"].items() if not k.endswith(".att.mask")]
            got = fnv1a64(params)
            optimizer = torch.optim.AdamW([torch.nn.Parameter(p.clone()) for p in params], lr=1.0)
            optimizer.load_state_dict(ck["optimizer_state_dict"])
            group = optimizer.param_groups[0]
            ok = (got == c["params3_fnv1a64"] or "--exact" not in sys.argv) and group["lr"] == 0.0004 and group["weight_decay"] == 0.1 and \
                float(optimizer.state_dict()["state"][0]["step"]) == 3.0
            print(f"{name}: ours_{c['optimizer_file']}: params {got} (PyTorch {c['params3_fnv1a64']}), "
                  f"step 3, lr {group['lr']}: {'ok' if ok else 'DIFFERENT'}")
            failures += not ok
    sys.exit(1 if failures else 0)


main()
