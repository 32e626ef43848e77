"""The optimiser and the learning-rate schedule of a run.

AdamW with decoupled weight decay on the matrices (embeddings included) and none on biases and
LayerNorm gains; or, with ``optimizer="muon"``, torch's Muon (momentum orthogonalised by
Newton-Schulz iterations) for the matrices inside the blocks and AdamW for the rest.  One
schedule multiplies every learning rate: linear warm-up, then cosine decay to ``min_lr / lr``.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import torch

from ..models.trainable import GPT
from .config import TrainConfig

__all__ = ["lr_lambda", "make_optimizers", "AdamW", "Muon"]


def lr_lambda(cfg: TrainConfig) -> Callable[[int], float]:
    """Multiplier of ``lr`` at a step: linear warm-up, then cosine decay to ``min_lr``.

    ``f(s) = (s + 1) / w`` for ``s < w``, then ``m + (1 - m) (1 + cos(pi t)) / 2`` with
    ``t = (s - w) / (max_steps - w)`` (capped at 1) and ``m = min_lr / lr``.

    Definition: def-18-schedule.
    Checked by: tests/test_train.py::test_lr_schedule_matches_torch_schedulers
    """
    floor = cfg.min_lr / cfg.lr

    def f(step: int) -> float:
        if step < cfg.warmup_steps:
            return (step + 1) / cfg.warmup_steps
        span = max(1, cfg.max_steps - cfg.warmup_steps)
        t = min(1.0, (step - cfg.warmup_steps) / span)
        return floor + (1.0 - floor) * 0.5 * (1.0 + math.cos(math.pi * t))
    return f


def _undecorated(method: Callable[..., Any]) -> Callable[..., Any]:
    """A method of ``torch.optim.Optimizer`` without the wrapper that imports ``torch._dynamo``
    on first use (``functools.wraps`` keeps the plain function as ``__wrapped__``)."""
    return getattr(method, "__wrapped__", method)


class _WithoutDynamo:
    """torch.optim's bookkeeping (parameter groups, gradients to zero, state to save and load)
    without importing ``torch._dynamo``: its methods are wrapped so that the compiler skips
    them, and the wrapper imports the compiler on first use, which took about as long as
    importing torch at a GPU run's start (benchmarks/README.md)."""

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        _undecorated(torch.optim.Optimizer.add_param_group)(self, param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        _undecorated(torch.optim.Optimizer.zero_grad)(self, set_to_none)

    def state_dict(self) -> dict[str, Any]:
        return _undecorated(torch.optim.Optimizer.state_dict)(self)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        _undecorated(torch.optim.Optimizer.load_state_dict)(self, state_dict)


class AdamW(_WithoutDynamo, torch.optim.Optimizer):
    """AdamW in PyTorch's fused kernel, without importing ``torch._dynamo``.

    Per parameter ``theta`` with gradient ``g`` at step ``t`` (1-based), rate ``eta``:
    ``m <- b1 m + (1 - b1) g``, ``v <- b2 v + (1 - b2) g^2``, then
    ``theta <- theta (1 - eta lambda) - eta (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)``.

    The update is ``torch.optim.AdamW(fused=True)``'s, kernel and state alike (``step``,
    ``exp_avg``, ``exp_avg_sq``): checkpoints of either load into the other.  It exists for
    the start-up of a run (see :class:`_WithoutDynamo`).

    The update direction ``u_t`` of def-18-step for AdamW, as one kernel.
    Checked by: tests/test_train.py::test_adamw_is_torch_fused_adamw_bit_for_bit
    """

    def __init__(self, params: Any, lr: float, betas: tuple[float, float], eps: float = 1e-8,
                 weight_decay: float = 0.0) -> None:
        _check_adamw_args(lr, betas, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      amsgrad=False, maximize=False, foreach=None,
                                      capturable=False, differentiable=False, fused=True))

    @torch.no_grad()
    def step(self, closure: None = None) -> None:
        """One update of every parameter that has a gradient (one kernel per group)."""
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if not params:  # nothing to update (the fused kernel refuses empty lists)
                continue
            state = [self._state(p) for p in params]
            steps = [s["step"] for s in state]
            torch._foreach_add_(steps, 1)                           # t <- t + 1
            b1, b2 = group["betas"]
            torch._fused_adamw_(params, [p.grad for p in params],
                                [s["exp_avg"] for s in state], [s["exp_avg_sq"] for s in state],
                                [], steps, amsgrad=False, lr=group["lr"], beta1=b1, beta2=b2,
                                weight_decay=group["weight_decay"], eps=group["eps"],
                                maximize=False, grad_scale=None, found_inf=None)

    def _state(self, p: torch.Tensor) -> dict[str, torch.Tensor]:
        """The moments of ``p`` (zeros at first) and its step count, as torch's AdamW keeps
        them for the fused kernel (a float32 scalar on ``p``'s device)."""
        s = self.state[p]
        if not s:
            s["step"] = torch.zeros((), dtype=torch.float32, device=p.device)
            s["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            s["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        return s


def _check_adamw_args(lr: Any, betas: Any, eps: Any, weight_decay: Any) -> None:
    """The hyper-parameters of :class:`AdamW`, as ``torch.optim.AdamW`` checks them."""
    for name, v in (("lr", lr), ("eps", eps), ("weight_decay", weight_decay)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < float("inf"):
            raise ValueError(f"{name}: expected a finite number >= 0, got {v!r}")
    if not (isinstance(betas, (tuple, list)) and len(betas) == 2
            and all(isinstance(b, (int, float)) and 0 <= b < 1 for b in betas)):
        raise ValueError(f"betas: expected two numbers in [0, 1), got {betas!r}")


if hasattr(torch.optim, "Muon"):  # PyTorch 2.9 and later
    class Muon(_WithoutDynamo, torch.optim.Muon):
        """``torch.optim.Muon``, unchanged, without importing ``torch._dynamo`` (its update
        calls no compiler; only the bookkeeping of :class:`_WithoutDynamo` did)."""
else:
    Muon = None


def _adamw(groups: list[dict], cfg: TrainConfig, device: torch.device) -> torch.optim.Optimizer:
    """:class:`AdamW` where PyTorch has the fused kernel for ``device`` (CUDA, and the CPU
    since PyTorch 2.4), else ``torch.optim.AdamW``."""
    kw: dict[str, Any] = dict(lr=cfg.lr, betas=(cfg.beta1, cfg.beta2))
    if device.type in ("cuda", "cpu") and hasattr(torch, "_fused_adamw_"):
        return AdamW(groups, **kw)
    return torch.optim.AdamW(groups, **kw)


def make_optimizers(model: GPT, cfg: TrainConfig, device: torch.device
                    ) -> list[torch.optim.Optimizer]:
    """``[AdamW]``, or ``[AdamW, Muon]`` with ``cfg.optimizer == "muon"``: the parameters split
    between them, each parameter in exactly one."""
    muon: list[torch.nn.Parameter] = []
    if cfg.optimizer == "muon":
        # Muon orthogonalises 2-D updates: the blocks' matrices.  The embedding (also the tied
        # output layer) and the positions are lookup tables, left to AdamW as usual.
        muon = [p for name, p in model.named_parameters()
                if p.dim() == 2 and name.startswith("blocks.")]
    in_muon = {id(p) for p in muon}
    rest = [p for p in model.parameters() if id(p) not in in_muon]
    groups = [{"params": [p for p in rest if p.dim() >= 2], "weight_decay": cfg.weight_decay},
              {"params": [p for p in rest if p.dim() < 2], "weight_decay": 0.0}]
    opts: list[torch.optim.Optimizer] = [_adamw(groups, cfg, device)]
    if muon:
        if Muon is None:
            raise ValueError(f"optimizer: 'muon' needs PyTorch 2.9 or later (torch.optim.Muon); "
                             f"this is {torch.__version__}: use optimizer='adamw'")
        opts.append(Muon(muon, lr=cfg.muon_lr, weight_decay=cfg.weight_decay))
    return opts
