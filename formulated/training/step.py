"""One training step and the evaluation of chapter 18: :func:`train_step` (forward, backward,
clipping, the optimizers' and schedulers' step) and :func:`evaluate` (the mean loss over a
whole split, cut into consecutive windows of ``n_ctx`` tokens).

The loop of :mod:`formulated.training.loop` calls both; :func:`~formulated.training.loop.train`
takes the step as its ``step`` argument (this :func:`train_step` by default), so another
step with the same arguments changes what the loop does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from contextlib import nullcontext
from typing import Any

import torch
import torch.nn.functional as F

from .._checks import (
    as_token_ids,
    check_int,
    check_real_type,
    check_token_tensor,
    checked,
)
from ..models.trainable import GPTConfig, run_eagerly
from .data import val_windows

__all__ = ["train_step", "evaluate"]


# -- one training step ---------------------------------------------------------------------------


def _check_step_args(
    model: Any,
    optimizers: Any,
    schedulers: Any,
    x: Any,
    y: Any,
    grad_clip: Any,
    autocast: Any,
) -> tuple:
    """The arguments of :func:`train_step`, returned in order (``x`` and ``y`` are checked
    by the model)."""
    if not isinstance(model, torch.nn.Module):
        raise TypeError(
            f"model: expected a torch.nn.Module (a GPT), got {type(model).__name__}"
        )
    if (
        isinstance(optimizers, torch.optim.Optimizer)
        or not isinstance(optimizers, Sequence)
        or not all(isinstance(o, torch.optim.Optimizer) for o in optimizers)
    ):
        raise TypeError(
            f"optimizers: expected a list of torch.optim.Optimizer, got "
            f"{type(optimizers).__name__}"
        )
    if (
        not isinstance(schedulers, Sequence)
        or len(schedulers) != len(optimizers)
        or not all(
            isinstance(s, torch.optim.lr_scheduler.LRScheduler) for s in schedulers
        )
    ):
        raise TypeError(
            f"schedulers: expected a list of {len(optimizers)} "
            f"torch.optim.lr_scheduler.LRScheduler (one per optimizer), got "
            f"{type(schedulers).__name__}"
        )
    for name, t in (("x", x), ("y", y)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(
                f"{name}: expected a (B, n) tensor of token ids, got {type(t).__name__}"
            )
    grad_clip = check_real_type(grad_clip, "grad_clip", "a number >= 0")
    if not grad_clip >= 0 or not math.isfinite(grad_clip):
        raise ValueError(
            f"grad_clip: expected a finite number >= 0 (0 = no clipping), got "
            f"{grad_clip!r}"
        )
    if not callable(autocast):
        raise TypeError(
            f"autocast: expected a function returning a context manager, got "
            f"{type(autocast).__name__}"
        )
    return model, optimizers, schedulers, x, y, grad_clip, autocast


@checked(_check_step_args)
def train_step(model, optimizers, schedulers, x, y, grad_clip, autocast=nullcontext):
    """One training step (def-18-step) on a batch ``x, y (B, n)``; returns its loss.

    ``model(x, y)`` gives the loss of def-18-batch-loss; its gradient is clipped to the
    norm ``grad_clip`` (def-18-clip; 0 = no clipping); each optimizer (AdamW, and Muon
    for the blocks' matrices in the ``cpu`` preset) updates its parameters at the rate
    that its scheduler sets (def-18-schedule) and the scheduler moves on one step.  The
    loss stays on the device (reading it would wait for the GPU).

    Definition: def-18-step.
    Checked by: tests/test_train.py::test_train_step_is_one_adamw_step_by_hand,
    tests/test_train.py::test_the_loop_calls_the_public_train_step
    """
    with autocast():
        _, loss = model(x, y)  # forward and loss
    loss.backward()  # g = grad of the loss
    if grad_clip > 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)  # clip g
    for optimizer, scheduler in zip(optimizers, schedulers):
        optimizer.step()  # theta <- update(g, eta_t)
        scheduler.step()  # t <- t + 1
        optimizer.zero_grad(set_to_none=True)
    return loss.detach()


# -- evaluation --------------------------------------------------------------------------------


@torch.no_grad()
def evaluate(
    model: torch.nn.Module,
    ids: torch.Tensor,
    n_ctx: int,
    batch: int = 64,
    autocast: Any = None,
    rank: int = 0,
    world: int = 1,
) -> float:
    """Mean next-character cross-entropy over the whole split ``ids`` (see :func:`val_windows`).

    With ``world > 1`` each process evaluates every ``world``-th window and the sums are added
    across processes.
    """
    cfg = _model_config(model)
    ids = _ids_1d(ids, "ids", cfg.V)
    if len(ids) < 2:
        raise ValueError(
            f"ids: expected at least 2 token ids (an input and the token after it), "
            f"got {len(ids)}"
        )
    n_ctx = check_int(n_ctx, "n_ctx")
    if n_ctx > cfg.n_ctx:
        raise ValueError(
            f"n_ctx: expected at most the model's n_ctx={cfg.n_ctx}, got {n_ctx}"
        )
    batch = check_int(batch, "batch")
    world = check_int(world, "world")
    rank = check_int(rank, "rank", 0, "an integer >= 0")
    if rank >= world:
        raise ValueError(f"rank: expected 0 <= rank < world={world}, got {rank}")
    if autocast is not None and not callable(autocast):
        raise TypeError(
            f"autocast: expected None or a function returning a context manager, "
            f"got {type(autocast).__name__}"
        )
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    X, Y = val_windows(ids, n_ctx)
    X, Y = X[rank::world].to(device), Y[rank::world].to(device)
    total = torch.zeros((), dtype=torch.float64, device=device)
    count = torch.zeros((), dtype=torch.float64, device=device)
    ctx = autocast if autocast is not None else nullcontext
    with run_eagerly(model):
        for i in range(0, len(X), batch):
            with ctx():
                logits, _ = model(X[i : i + batch])
            y = Y[i : i + batch]
            total += F.cross_entropy(
                logits.float().reshape(-1, logits.size(-1)),
                y.reshape(-1),
                ignore_index=-100,
                reduction="sum",
            ).double()
            count += (y >= 0).sum()
    if world > 1:
        import torch.distributed as dist

        both = torch.stack([total, count])
        dist.all_reduce(both)
        total, count = both[0], both[1]
    model.train(was_training)
    return float(total / count)


def _model_config(model: Any) -> GPTConfig:
    """The :class:`GPTConfig` of a GPT (also through ``torch.compile``'s wrapper)."""
    cfg = getattr(model, "cfg", None) if isinstance(model, torch.nn.Module) else None
    if not isinstance(cfg, GPTConfig):
        raise TypeError(
            f"model: expected a formulated.models.trainable.GPT, got {type(model).__name__}"
        )
    return cfg


def _ids_1d(ids: Any, name: str, V: int) -> torch.Tensor:
    """A 1-D sequence of token ids in ``0 .. V-1`` as an int64 CPU tensor (checked on the CPU,
    before anything reaches a GPU, where a bad id is a device-side assert)."""
    if isinstance(ids, torch.Tensor):
        check_token_tensor(ids, name, V, values=False)
        if ids.dim() != 1:
            raise ValueError(
                f"{name}: expected 1 dimension of token ids, got shape "
                f"{tuple(ids.shape)}"
            )
        return check_token_tensor(ids.cpu().long(), name, V)
    return torch.from_numpy(as_token_ids(ids, name, V, ndim=1))
