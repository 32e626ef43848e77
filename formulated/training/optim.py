"""The optimizer and the learning-rate schedule of a run.

AdamW with decoupled weight decay on the matrices (embeddings included) and none on biases and
LayerNorm gains; or, with ``optimizer="muon"``, Muon (momentum orthogonalized by Newton-Schulz
iterations; torch's update, computed in batches) for the matrices inside the blocks and AdamW
for the rest.  One schedule multiplies every learning rate: linear warm-up, then cosine decay
to ``min_lr / lr``, reached after ``decay_frac`` of the steps.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import torch

from .._checks import checked, is_int
from ..models.trainable import GPT
from .config import TrainConfig

__all__ = ["lr_lambda", "make_optimizers", "AdamW", "Muon", "fused_adamw_works"]


def _lr_lambda_args(cfg: Any) -> TrainConfig:
    # TrainConfig checks its own fields (lr > 0, warmup_steps >= 1, ...) when it is made
    if not isinstance(cfg, TrainConfig):
        raise TypeError(f"cfg: expected a TrainConfig, got {type(cfg).__name__}")
    return cfg


@checked(_lr_lambda_args)
def lr_lambda(cfg):
    """Multiplier of ``lr`` per step: warm-up, cosine decay to ``min_lr``, then flat.

    ``f(s) = (s + 1) / w`` for ``s < w``, then ``m + (1 - m) (1 + cos(pi t)) / 2`` with
    ``t = (s - w) / (d - w)`` (capped at 1), ``m = min_lr / lr``, and ``d`` where the
    decay ends: ``decay_frac * max_steps``, rounded (``max_steps`` by default).

    Definition: def-18-schedule.
    Checked by: tests/test_train.py::test_lr_schedule_matches_torch_schedulers,
    tests/test_train.py::test_lr_schedule_decay_frac_matches_torch_schedulers
    """
    floor = cfg.min_lr / cfg.lr
    end = round(cfg.decay_frac * cfg.max_steps)

    def f(step):
        if step < cfg.warmup_steps:
            return (step + 1) / cfg.warmup_steps
        t = min(1.0, (step - cfg.warmup_steps) / max(1, end - cfg.warmup_steps))
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


def _fused_adamw_step(
    params: list[torch.Tensor],
    grads: list[torch.Tensor],
    exp_avgs: list[torch.Tensor],
    exp_avg_sqs: list[torch.Tensor],
    steps: list[torch.Tensor],
    *,
    lr: float,
    betas: tuple[float, float],
    eps: float,
    weight_decay: float,
) -> None:
    """One AdamW update of ``params`` in place, by PyTorch's fused kernel: ``t <- t + 1``,
    then the update of :class:`AdamW` (moments and steps updated in place too).

    The package's only calls of private PyTorch ops (``torch._fused_adamw_``, the kernel behind
    ``torch.optim.AdamW(fused=True)``, and ``torch._foreach_add_``).  Private ops may
    change or vanish in any release, and before PyTorch 2.4 the kernel refuses CPU tensors;
    :func:`fused_adamw_works` tries it before a run relies on it, and :func:`make_optimizers`
    takes ``torch.optim.AdamW`` when it is missing or refuses.

    Checked by: tests/test_optim.py::test_fused_step_is_torch_fused_adamw_bit_for_bit
    """
    torch._foreach_add_(steps, 1)  # t <- t + 1
    torch._fused_adamw_(
        params,
        grads,
        exp_avgs,
        exp_avg_sqs,
        [],
        steps,
        amsgrad=False,
        lr=lr,
        beta1=betas[0],
        beta2=betas[1],
        weight_decay=weight_decay,
        eps=eps,
        maximize=False,
        grad_scale=None,
        found_inf=None,
    )


_FUSED_WORKS: dict[tuple[str, torch.dtype], bool] = {}


def fused_adamw_works(device: torch.device, dtype: torch.dtype = torch.float32) -> bool:
    """Whether :func:`_fused_adamw_step` runs here and computes AdamW's first step.

    Tried once per device type and dtype on one number: ``theta = 1``, ``g = 1/2``,
    ``eta = 1/10``, ``lambda = 1/2``, whose first step is ``theta (1 - eta lambda) - eta g /
    (|g| + eps) = 0.95 - 0.1 = 0.85`` (to ``1e-3``).  False where the op is missing, raises
    (PyTorch < 2.4 on a CPU, a device without the kernel) or computes something else.

    Checked by: tests/test_optim.py::test_public_adamw_where_the_fused_op_is_missing_or_refuses
    """
    key = (device.type, dtype)
    if key not in _FUSED_WORKS:
        try:
            theta, grad, m, v, t = (
                torch.full((1,), x, dtype=dtype, device=device)
                for x in (1.0, 0.5, 0.0, 0.0, 0.0)
            )
            _fused_adamw_step(
                [theta],
                [grad],
                [m],
                [v],
                [t.float()],
                lr=0.1,
                betas=(0.9, 0.99),
                eps=1e-8,
                weight_decay=0.5,
            )
            _FUSED_WORKS[key] = abs(theta.item() - 0.85) < 1e-3
        except Exception:  # noqa: BLE001 -- any refusal of a private op means "not here"
            _FUSED_WORKS[key] = False
    return _FUSED_WORKS[key]


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

    def __init__(
        self,
        params: Any,
        lr: float,
        betas: tuple[float, float],
        eps: float = 1e-8,
        weight_decay: float = 0.0,
    ) -> None:
        _check_adamw_args(lr, betas, eps, weight_decay)
        super().__init__(
            params,
            dict(
                lr=lr,
                betas=betas,
                eps=eps,
                weight_decay=weight_decay,
                amsgrad=False,
                maximize=False,
                foreach=None,
                capturable=False,
                differentiable=False,
                fused=True,
            ),
        )

    @torch.no_grad()
    def step(self, closure: None = None) -> None:
        """One update of every parameter that has a gradient (one kernel per group)."""
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if not params:  # nothing to update (the fused kernel refuses empty lists)
                continue
            state = [self._state(p) for p in params]
            _fused_adamw_step(
                params,
                [p.grad for p in params],
                [s["exp_avg"] for s in state],
                [s["exp_avg_sq"] for s in state],
                [s["step"] for s in state],
                lr=group["lr"],
                betas=group["betas"],
                eps=group["eps"],
                weight_decay=group["weight_decay"],
            )

    def _state(self, p: torch.Tensor) -> dict[str, torch.Tensor]:
        """The moments of ``p`` (zeros at first) and its step count, as torch's AdamW keeps
        them for the fused kernel (a float32 scalar on ``p``'s device)."""
        s = self.state[p]
        if not s:
            s["step"] = torch.zeros((), dtype=torch.float32, device=p.device)
            s["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            s["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        return s


def _check_rates(**named: Any) -> None:
    """Each value a finite number >= 0 (a rate, a decay, a momentum); bools refused."""
    for name, v in named.items():
        if (
            isinstance(v, bool)
            or not isinstance(v, (int, float))
            or not 0 <= v < float("inf")
        ):
            raise ValueError(f"{name}: expected a finite number >= 0, got {v!r}")


def _check_adamw_args(lr: Any, betas: Any, eps: Any, weight_decay: Any) -> None:
    """The hyper-parameters of :class:`AdamW`, as ``torch.optim.AdamW`` checks them."""
    _check_rates(lr=lr, eps=eps, weight_decay=weight_decay)
    if not (
        isinstance(betas, (tuple, list))
        and len(betas) == 2
        and all(isinstance(b, (int, float)) and 0 <= b < 1 for b in betas)
    ):
        raise ValueError(f"betas: expected two numbers in [0, 1), got {betas!r}")


class Muon(_WithoutDynamo, torch.optim.Optimizer):
    """``torch.optim.Muon``'s update, with the matrices of one shape orthogonalized together.

    Per matrix ``W`` of shape ``(r, c)`` with gradient ``G``, rate ``eta``, weight decay
    ``lambda`` and momentum ``mu``: ``M <- mu M + (1 - mu) G``; ``U = mu M + (1 - mu) G``
    (Nesterov; ``U = M`` without); ``O = NS(U)``, ``ns_steps`` quintic Newton-Schulz
    iterations in bfloat16 from ``U / ||U||_F`` (about ``U``'s polar factor); then
    ``W <- W (1 - eta lambda) - eta sqrt(max(1, r / c)) O``.

    Coefficients, precision and state (``momentum_buffer``) are torch's, so checkpoints of
    either load into the other.  What differs is how it is computed: the ``L`` matrices of each
    shape go through the iterations as one batch (one product for all of them instead of one
    each), which takes about 0.6 of the time of torch's update on a 2-core CPU
    (benchmarks/muon_cpu.py) and rounds an entry of ``O`` to a neighboring bfloat16 value now
    and then; and it never imports ``torch._dynamo`` (see :class:`_WithoutDynamo`).  A group's
    ``split=k`` cuts each of its matrices into ``k`` blocks of rows, each orthogonalized and
    scaled as a matrix of its own: the fused ``qkv`` weight is W^Q, W^K and W^V of
    def-10-mhsa, stacked.

    The update direction ``u_t`` of def-18-step for the blocks' matrices in the ``cpu`` preset.
    Checked by: tests/test_training_config.py::test_muon_is_torch_muon_to_bfloat16_rounding
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        weight_decay: float = 0.1,
        momentum: float = 0.95,
        nesterov: bool = True,
        ns_coefficients: tuple[float, float, float] = (3.4445, -4.775, 2.0315),
        eps: float = 1e-7,
        ns_steps: int = 5,
        adjust_lr_fn: str | None = None,
        split: int = 1,
    ) -> None:
        _check_muon_args(lr, weight_decay, momentum, ns_steps, adjust_lr_fn)
        super().__init__(
            params,
            dict(
                lr=lr,
                weight_decay=weight_decay,
                momentum=momentum,
                nesterov=nesterov,
                ns_coefficients=ns_coefficients,
                eps=eps,
                ns_steps=ns_steps,
                adjust_lr_fn=adjust_lr_fn,
                split=split,
            ),
        )
        for group in self.param_groups:
            _check_muon_group(group)

    @torch.no_grad()
    def step(self, closure: None = None) -> None:
        """One update of every matrix that has a gradient."""
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            k = group.get("split", 1)  # absent from torch's checkpoints: one block each
            mu = group["momentum"]
            blocks = []
            for p in params:
                state = self.state[p]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = torch.zeros_like(p.grad)
                M = state["momentum_buffer"]
                M.lerp_(p.grad, 1 - mu)  # M <- mu M + (1 - mu) G
                U = (
                    p.grad.lerp(M, mu) if group["nesterov"] else M
                )  # Nesterov: U = mu M + ..
                blocks += U.chunk(k, dim=0)
            O = _orthogonalize(blocks, group)
            for i, p in enumerate(params):
                p.mul_(
                    1 - group["lr"] * group["weight_decay"]
                )  # decoupled weight decay
                scale = _muon_scale(O[i * k].shape, group["adjust_lr_fn"])
                p.add_(torch.cat(O[i * k : (i + 1) * k]), alpha=-scale * group["lr"])


def _orthogonalize(
    updates: list[torch.Tensor], group: dict[str, Any]
) -> list[torch.Tensor]:
    """``NS(U)`` of each update, as ``torch.optim.Muon`` computes it one at a time: wide
    (``r <= c``) in bfloat16, scaled to Frobenius norm 1, then ``X <- a X + (b A + c A^2) X``
    with ``A = X X^T``; the updates of one shape are stacked into one batch."""
    a, b, c = group["ns_coefficients"]
    out: list[torch.Tensor | None] = [None] * len(updates)
    by_shape: dict[tuple[int, int], list[int]] = {}
    for i, U in enumerate(updates):
        by_shape.setdefault(tuple(U.shape), []).append(i)
    for (r, cols), idx in by_shape.items():
        X = torch.stack([updates[i] for i in idx]).bfloat16()
        X = X.mT if r > cols else X  # wide: X X^T is the small side
        X = X / X.norm(dim=(1, 2), keepdim=True).clamp(min=group["eps"])
        for _ in range(group["ns_steps"]):
            A = X @ X.mT
            X = torch.baddbmm(X, torch.baddbmm(A, A, A, beta=b, alpha=c), X, beta=a)
        X = X.mT if r > cols else X
        for j, i in enumerate(idx):
            out[i] = X[j]
    return out  # type: ignore[return-value]


def _check_muon_group(group: dict[str, Any]) -> None:
    """Matrices only, each cut into ``split`` blocks of equal height."""
    k = group["split"]
    if not is_int(k) or k < 1:
        raise ValueError(f"split: expected an integer >= 1, got {k!r}")
    for p in group["params"]:
        if p.dim() != 2 or p.shape[0] % k:
            raise ValueError(
                f"params: Muon expects 2-D matrices whose rows split into "
                f"{k} equal blocks, got a parameter of shape {tuple(p.shape)}"
            )


def _muon_scale(shape: torch.Size, adjust_lr_fn: str | None) -> float:
    """The factor of ``eta`` for a matrix ``(r, c)``: ``sqrt(max(1, r / c))`` (Muon's own,
    ``None`` or ``"original"``) or ``0.2 sqrt(max(r, c))`` (``"match_rms_adamw"``), as torch's."""
    r, c = shape
    return (
        0.2 * math.sqrt(max(r, c))
        if adjust_lr_fn == "match_rms_adamw"
        else math.sqrt(max(1.0, r / c))
    )


def _check_muon_args(
    lr: Any, weight_decay: Any, momentum: Any, ns_steps: Any, adjust_lr_fn: Any
) -> None:
    """The hyper-parameters of :class:`Muon`, as ``torch.optim.Muon`` checks them."""
    _check_rates(lr=lr, weight_decay=weight_decay, momentum=momentum)
    if not is_int(ns_steps) or not 0 <= ns_steps < 100:
        raise ValueError(f"ns_steps: expected an integer in [0, 100), got {ns_steps!r}")
    if adjust_lr_fn not in (None, "original", "match_rms_adamw"):
        raise ValueError(
            f"adjust_lr_fn: expected None, 'original' or 'match_rms_adamw', "
            f"got {adjust_lr_fn!r}"
        )


def _adamw(
    groups: list[dict], cfg: TrainConfig, device: torch.device
) -> torch.optim.Optimizer:
    """:class:`AdamW` where the fused kernel works for ``device`` and the parameters' dtypes
    (:func:`fused_adamw_works`; CUDA and CPU are the devices it is tested on), else the public
    ``torch.optim.AdamW``: the same update, to rounding, with the same state."""
    kw: dict[str, Any] = dict(lr=cfg.lr, betas=(cfg.beta1, cfg.beta2))
    dtypes = {p.dtype for g in groups for p in g["params"]}
    if device.type in ("cuda", "cpu") and all(
        fused_adamw_works(device, d) for d in dtypes
    ):
        return AdamW(groups, **kw)
    return torch.optim.AdamW(groups, **kw)


def make_optimizers(
    model: GPT, cfg: TrainConfig, device: torch.device
) -> list[torch.optim.Optimizer]:
    """``[AdamW]``, or ``[AdamW, Muon]`` with ``cfg.optimizer == "muon"``: the parameters split
    between them, each parameter in exactly one."""
    muon: list[dict[str, Any]] = []
    if cfg.optimizer == "muon":
        # Muon orthogonalizes 2-D updates: the blocks' matrices.  The embedding (also the tied
        # output layer) and the positions are lookup tables, left to AdamW as usual.  The fused
        # qkv weight holds three matrices of def-10-mhsa, W^Q, W^K and W^V (each of all heads):
        # each is orthogonalized on its own (split=3), which trains faster per token than the
        # 3H x H stack (benchmarks/README.md).
        mats = [
            (n, p)
            for n, p in model.named_parameters()
            if p.dim() == 2 and n.startswith("blocks.")
        ]
        muon = [
            {
                "params": [p for n, p in mats if n.endswith("attn.qkv.weight")],
                "split": 3,
            },
            {"params": [p for n, p in mats if not n.endswith("attn.qkv.weight")]},
        ]
    in_muon = {id(p) for g in muon for p in g["params"]}
    rest = [p for p in model.parameters() if id(p) not in in_muon]
    groups = [
        {"params": [p for p in rest if p.dim() >= 2], "weight_decay": cfg.weight_decay},
        {"params": [p for p in rest if p.dim() < 2], "weight_decay": 0.0},
    ]
    opts: list[torch.optim.Optimizer] = [_adamw(groups, cfg, device)]
    if muon:
        opts.append(Muon(muon, lr=cfg.muon_lr, weight_decay=cfg.weight_decay))
    return opts
