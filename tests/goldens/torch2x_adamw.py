"""Give Debian's PyTorch 1.13 the CPU AdamW step of PyTorch 2.x (the notebooks ran 2.9). Call install().

What 2.x runs for `torch.optim.AdamW(model.parameters(), lr=..., weight_decay=...)` on CPU tensors,
read in PyTorch 2.9's torch/optim/adam.py (as in the ROCm/pytorch fork at commit 10b22ea, whose
version.txt reads 2.9.0; that copy carries unresolved merge markers against 2.8 that differ only in
`# type: ignore` comments and casts, never in an operation):

- `class AdamW(Adam)` passes `decoupled_weight_decay=True`; `Adam.step` builds the state in
  `_init_group`: `step = torch.tensor(0.0, dtype=_get_scalar_dtype())` (float32, on the CPU),
  `exp_avg`/`exp_avg_sq = torch.zeros_like(p, memory_format=torch.preserve_format)`.
- `adam()`: foreach and fused are both None, so `_default_to_fused_or_foreach(params,
  differentiable, use_fused=False)` decides; its `foreach` requires every parameter's device type
  to be in `torch.utils._foreach_utils._get_foreach_kernels_supported_devices()`, which is
  `["cuda", "xpu", "mtia", privateuse1]` in 2.9 (`["cuda", "xpu", privateuse1]` in 2.4-2.8): never
  "cpu". So CPU tensors take `_single_tensor_adam` (capturable and differentiable False).
- `_single_tensor_adam`, per parameter in order, the non-capturable branch (lr, betas floats):

      step_t += 1
      param.mul_(1 - lr * weight_decay)                     # decoupled_weight_decay
      exp_avg.lerp_(grad, 1 - beta1)
      exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
      step = _get_value(step_t)                             # step_t.item(): a Python float
      bias_correction1 = 1 - beta1**step
      bias_correction2 = 1 - beta2**step
      step_size = lr / bias_correction1
      bias_correction2_sqrt = bias_correction2**0.5
      denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
      param.addcdiv_(exp_avg, denom, value=-step_size)

- `Optimizer.zero_grad(set_to_none=True)` is 2.x's default (1.13: False, which zeroes the old
  gradient and adds the new one into it: only the sign of a zero can differ). install() sets it.

1.13's `_single_tensor_adamw` differs in two places: `exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)`
instead of lerp_, and `math.sqrt(bias_correction2)` (`_dispatch_sqrt`) instead of `** 0.5`. The other
calls are the same ATen kernels in both versions, so they run here as 1.13's kernels. lerp_ with a
scalar weight below 0.5 is `fma(weight, end - self, self)` in 2.x's vectorised CPU kernel
(`lerp_vec`: `vec::fmadd(weight, end - start, start)`); 1.13's CPU lerp_ gives exactly that on this
machine (self_check() verifies it against an exact float32 fma, vector body and tails), so lerp_ is
called as 2.x calls it.

    /usr/bin/python3 tests/goldens/torch2x_adamw.py     # the self-check, on stdout
"""
import math

import torch

_installed = {}


def _get_value(x):
    return x.item() if isinstance(x, torch.Tensor) else x


@torch.no_grad()
def single_tensor_adamw_2x(params, grads, exp_avgs, exp_avg_sqs, state_steps, *,
                           beta1, beta2, lr, weight_decay, eps, maximize=False):
    """PyTorch 2.9's `_single_tensor_adam` with decoupled_weight_decay=True, amsgrad False,
    float lr/betas, real tensors, not capturable, not differentiable."""
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg = exp_avgs[i]
        exp_avg_sq = exp_avg_sqs[i]
        step_t = state_steps[i]
        step_t += 1
        if weight_decay != 0:
            param.mul_(1 - lr * weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step = _get_value(step_t)
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2**0.5
        denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        param.addcdiv_(exp_avg, denom, value=-step_size)


@torch.no_grad()
def _step_2x(self, closure=None):
    """AdamW.step as 2.9's Adam.step runs it for CPU float32 parameters."""
    loss = None
    if closure is not None:
        with torch.enable_grad():
            loss = closure()
    for group in self.param_groups:
        if group.get("amsgrad") or group.get("capturable") or group.get("differentiable") \
                or group.get("foreach") or group.get("fused"):
            raise NotImplementedError("torch2x_adamw: only the default CPU AdamW path is restated")
        params, grads, exp_avgs, exp_avg_sqs, steps = [], [], [], [], []
        for p in group["params"]:
            if p.grad is None:
                continue
            if p.grad.is_sparse or p.device.type != "cpu" or torch.is_complex(p):
                raise NotImplementedError("torch2x_adamw: dense real CPU parameters only")
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = torch.tensor(0.0, dtype=torch.float32)
                state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            steps.append(state["step"])
        beta1, beta2 = group["betas"]
        single_tensor_adamw_2x(params, grads, exp_avgs, exp_avg_sqs, steps,
                               beta1=beta1, beta2=beta2, lr=group["lr"],
                               weight_decay=group["weight_decay"], eps=group["eps"],
                               maximize=group.get("maximize", False))
    return loss


def _zero_grad_2x(self, set_to_none: bool = True):
    return _installed["zero_grad"](self, set_to_none=set_to_none)


def install(zero_grad=True):
    """torch.optim.AdamW.step computes as PyTorch 2.x's; with zero_grad, Optimizer.zero_grad()
    defaults to set_to_none=True as in 2.x."""
    if "step" not in _installed:
        _installed["step"] = torch.optim.AdamW.step
        torch.optim.AdamW.step = _step_2x
    if zero_grad and "zero_grad" not in _installed:
        _installed["zero_grad"] = torch.optim.Optimizer.zero_grad
        torch.optim.Optimizer.zero_grad = _zero_grad_2x


def uninstall():
    if "step" in _installed:
        torch.optim.AdamW.step = _installed.pop("step")
    if "zero_grad" in _installed:
        torch.optim.Optimizer.zero_grad = _installed.pop("zero_grad")


def fma32(a, b, c):
    """Exact float32 fma(a, b, c) elementwise: a*b is exact in float64, TwoSum keeps the error of
    the float64 sum, and a float64 sum that lands on a float32 midpoint is resolved by that error."""
    a, b, c = a.double(), b.double(), c.double()
    p = a * b
    s = p + c
    bb = s - p
    e = (p - (s - bb)) + (c - bb)
    f = s.float()
    up = torch.nextafter(f, torch.full_like(f, math.inf))
    dn = torch.nextafter(f, torch.full_like(f, -math.inf))
    mid_hi = (f.double() + up.double()) / 2
    mid_lo = (f.double() + dn.double()) / 2
    r = torch.where((s == mid_hi) & (e > 0), up, f)
    r = torch.where((s == mid_hi) & (e < 0), f, r)
    return torch.where((s == mid_lo) & (e < 0), dn, r)


def self_check(out=print):
    """One and several steps of 1.13's AdamW and the 2.x restatement on the same random tensors."""
    gen = torch.Generator().manual_seed(20260101)
    ok = True
    # lerp_ is 2.x's fma form (vector body and scalar tails)
    for n in (1, 7, 8, 9, 15, 16, 17, 1000003):
        m = torch.randn(n, generator=gen) * 1e-3
        g = torch.randn(n, generator=gen) * 1e-2
        w = torch.tensor(0.1, dtype=torch.float32).expand(n)
        bad = int((m.clone().lerp_(g, 1 - 0.9) != fma32(w, g - m, m)).sum())
        ok &= bad == 0
    out(f"lerp_(grad, 1 - 0.9) == fma(0.1f, grad - m, m) exactly (sizes 1..1000003): {ok}")
    # bias corrections: math.sqrt (1.13) and ** 0.5 (2.x) as Python floats
    diff_t = [t for t in range(1, 5001)
              if math.sqrt(1 - 0.999 ** float(t)) != (1 - 0.999 ** float(t)) ** 0.5]
    out(f"steps t in 1..5000 where math.sqrt(1 - 0.999**t) != (1 - 0.999**t)**0.5: "
        f"{len(diff_t)}, the first {diff_t[:5]}")

    shapes = [(50257, 16), (16,), (48, 16), (1000, 3)]
    params0 = [torch.randn(s, generator=gen) * 0.02 for s in shapes]
    grads_seq = [[torch.randn(s, generator=gen) * 10 ** (-2 - k % 3) for s in shapes] for k in range(5)]
    total = sum(p.numel() for p in params0)
    results = {}
    for mode in ("1.13", "2.x"):
        params = [torch.nn.Parameter(p.clone()) for p in params0]
        opt = torch.optim.AdamW(params, lr=5e-4, weight_decay=0.1)
        step = _step_2x if mode == "2.x" else _installed.get("step", torch.optim.AdamW.step)
        results[mode] = []
        for grads in grads_seq:
            for p, g in zip(params, grads):
                p.grad = g.clone()
            step(opt)
            results[mode].append(
                ([p.detach().clone() for p in params],
                 [opt.state[p]["exp_avg"].clone() for p in params]))
    for k in range(len(grads_seq)):
        (pa, ma), (pb, mb) = results["1.13"][k], results["2.x"][k]
        dp = sum(int((a != b).sum()) for a, b in zip(pa, pb))
        dm = sum(int((a != b).sum()) for a, b in zip(ma, mb))
        out(f"after step {k + 1}: parameters differing between 1.13 and 2.x: {dp} of {total}; "
            f"exp_avg differing: {dm}")
    # the restatement against an independent float64 model of 2.x's formula for step 1
    params = [torch.nn.Parameter(p.clone()) for p in params0]
    opt = torch.optim.AdamW(params, lr=5e-4, weight_decay=0.1)
    for p, g in zip(params, grads_seq[0]):
        p.grad = g.clone()
    _step_2x(opt)
    bad = 0
    for p0, g, p in zip(params0, grads_seq[0], params):
        q = p0 * torch.tensor(1 - 5e-4 * 0.1, dtype=torch.float32)
        m = fma32(torch.full_like(g, 0.1), g - torch.zeros_like(g), torch.zeros_like(g))
        v = torch.zeros_like(g).mul(0.999).addcmul(g, g, value=1 - 0.999)
        denom = (v.sqrt() / (1 - 0.999 ** 1.0) ** 0.5).add(1e-8)
        q = q.addcdiv(m, denom, value=-(5e-4 / (1 - 0.9 ** 1.0)))
        bad += int((q != p.detach()).sum())
    out(f"step 1 of the restatement vs the formula with an explicit fma for lerp: {bad} elements differ")
    return ok and bad == 0


if __name__ == "__main__":
    import sys
    sys.exit(0 if self_check() else 1)
