"""The one private PyTorch op of the package, and the public optimizer where it fails.

``formulated.training.optim`` steps AdamW with ``torch._fused_adamw_`` (so that a GPU run does
not import ``torch._dynamo`` at its start).  These tests pin down that

* the private op is called from one small function only, which is ``torch.optim.AdamW(fused=True)``
  bit for bit on the CPU (weights, moments and step counts, over several scheduled steps);
* where the op is missing, raises (PyTorch < 2.4 on a CPU) or computes something else, a run
  gets the public ``torch.optim.AdamW`` instead, and trains to the same weights to rounding;
* the torch range that pyproject.toml declares starts at the version the CI pins.
"""

from __future__ import annotations

import ast
import re

import pytest
import torch
from _chapters import ROOT

from formulated.models.trainable import GPT, GPTConfig
from formulated.training import make_config, optim, train_step
from formulated.training.optim import (
    AdamW,
    fused_adamw_works,
    lr_lambda,
    make_optimizers,
)

CPU = torch.device("cpu")


def _two_groups(model: torch.nn.Module) -> list[dict]:
    """Weight decay on the matrix, none on the bias (as make_optimizers splits them)."""
    return [
        {"params": [model.weight], "weight_decay": 0.1},
        {"params": [model.bias], "weight_decay": 0.0},
    ]


@pytest.mark.parametrize(
    "device",
    [
        "cpu",
        pytest.param(
            "cuda",
            marks=pytest.mark.skipif(
                not torch.cuda.is_available(), reason="no CUDA device"
            ),
        ),
    ],
)
def test_fused_step_is_torch_fused_adamw_bit_for_bit(device):
    """Eight steps with a decaying rate, two groups, one parameter without a gradient at step
    3: weights, both moments and the step counts equal torch's fused AdamW's exactly."""
    torch.manual_seed(0)
    ours, ref = torch.nn.Linear(7, 5).to(device), torch.nn.Linear(7, 5).to(device)
    ref.load_state_dict(ours.state_dict())
    start = ours.weight.detach().clone()
    kw = dict(lr=3e-2, betas=(0.8, 0.95), eps=1e-6)
    opts = [
        AdamW(_two_groups(ours), **kw),
        torch.optim.AdamW(_two_groups(ref), fused=True, **kw),
    ]
    scheds = [torch.optim.lr_scheduler.LambdaLR(o, lambda s: 0.7**s) for o in opts]
    for step in range(8):
        x = torch.randn(6, 7).to(device)
        for model, opt, sched in zip((ours, ref), opts, scheds):
            model(x).tanh().sum().backward()
            if step == 3:
                model.bias.grad = None  # skipped by both: its moments and count stay
            opt.step()
            opt.zero_grad(set_to_none=True)
            sched.step()
    for p, q in zip(ours.parameters(), ref.parameters()):
        assert torch.equal(p, q)
        a, b = opts[0].state[p], opts[1].state[q]
        assert set(a) == set(b) == {"step", "exp_avg", "exp_avg_sq"}
        assert all(torch.equal(a[k], b[k]) for k in a)
    assert float(opts[0].state[ours.bias]["step"]) == 7.0
    assert float((ours.weight.detach() - start).abs().min()) > 0  # every weight moved


def test_the_private_ops_are_called_from_one_function():
    """Every ``torch._name(...)`` call of optim.py is inside ``_fused_adamw_step``, and every
    caller of ``_fused_adamw_step`` is AdamW.step or the probe fused_adamw_works."""
    tree = ast.parse((ROOT / "formulated" / "training" / "optim.py").read_text())
    where: dict[str, set[str]] = {}
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                    f = node.func
                    if (
                        isinstance(f.value, ast.Name)
                        and f.value.id == "torch"
                        and f.attr.startswith("_")
                    ):
                        where.setdefault(f"torch.{f.attr}", set()).add(fn.name)
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id == "_fused_adamw_step"
                ):
                    where.setdefault("_fused_adamw_step", set()).add(fn.name)
    assert where == {
        "torch._foreach_add_": {"_fused_adamw_step"},
        "torch._fused_adamw_": {"_fused_adamw_step"},
        "_fused_adamw_step": {"step", "fused_adamw_works"},
    }
    body = next(
        n
        for n in tree.body
        if isinstance(n, ast.FunctionDef) and n.name == "_fused_adamw_step"
    ).body
    assert len(body) <= 3  # docstring and the two calls: nothing else relies on the op


def _tiny_run(monkeypatch: pytest.MonkeyPatch, op: object | None) -> tuple[type, list]:
    """Four scheduled steps of a small GPT with the optimizer make_optimizers picks, with
    ``torch._fused_adamw_`` replaced by ``op`` (removed when None; untouched when ``...``)."""
    monkeypatch.setattr(optim, "_FUSED_WORKS", {})  # the probe tries again
    if op is None:
        monkeypatch.delattr(torch, "_fused_adamw_")
    elif op is not ...:
        monkeypatch.setattr(torch, "_fused_adamw_", op)
    cfg = make_config(
        "book", L=1, A=2, H=16, n_ctx=16, B=2, warmup_steps=2, max_steps=4
    )
    torch.manual_seed(0)
    model = GPT(GPTConfig(V=11, n_ctx=16, L=1, A=2, H=16))
    opts = make_optimizers(model, cfg, CPU)
    scheds = [torch.optim.lr_scheduler.LambdaLR(o, lr_lambda(cfg)) for o in opts]
    gen = torch.Generator().manual_seed(1)
    for _ in range(4):
        x, y = (torch.randint(0, 11, (2, 16), generator=gen) for _ in range(2))
        train_step(model, opts, scheds, x, y, cfg.grad_clip)
    return type(opts[0]), [p.detach().clone() for p in model.parameters()]


def _refuses(*args, **kwargs):
    raise RuntimeError("\"_fused_adamw_kernel_cpu_\" not implemented for 'CPU'")


def _does_nothing(*args, **kwargs):
    return None


@pytest.mark.parametrize(
    "op",
    [None, _refuses, _does_nothing],
    ids=["missing", "raises", "computes-something-else"],
)
def test_public_adamw_where_the_fused_op_is_missing_or_refuses(monkeypatch, op):
    """The run takes torch.optim.AdamW (exactly that class, fused off) and ends at the weights
    of the fused run to float32 rounding; the probe says no, and says yes again with the op."""
    kind, fused = _tiny_run(monkeypatch, ...)
    assert kind is AdamW and fused_adamw_works(CPU)
    kind, public = _tiny_run(monkeypatch, op)
    assert kind is torch.optim.AdamW and not fused_adamw_works(CPU)
    moved = max(float((a - b).abs().max()) for a, b in zip(fused, public))
    assert moved < 1e-5, f"public and fused AdamW differ by {moved}"


def test_torch_range_starts_at_the_version_ci_tests():
    """pyproject.toml's lower bound on torch is the version .ci/constraints.txt pins (the only
    one the suite runs on), and the installed torch satisfies it."""
    spec = re.search(
        r'^\s*"(torch[^"]*)"', (ROOT / "pyproject.toml").read_text(), re.M
    )[1]
    pinned = re.search(
        r"^torch==(\d+\.\d+)", (ROOT / ".ci" / "constraints.txt").read_text(), re.M
    )[1]
    assert re.search(r">=\s*(\d+\.\d+)", spec)[1] == pinned, spec
    installed = tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2])
    assert installed >= tuple(int(x) for x in pinned.split("."))
