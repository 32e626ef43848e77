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

__all__ = ["lr_lambda", "make_optimizers"]


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


def _adamw(groups: list[dict], cfg: TrainConfig, device: torch.device) -> torch.optim.AdamW:
    kw: dict[str, Any] = dict(lr=cfg.lr, betas=(cfg.beta1, cfg.beta2))
    if device.type in ("cuda", "cpu"):
        kw["fused"] = True  # one kernel for the whole update
    try:
        return torch.optim.AdamW(groups, **kw)
    except (RuntimeError, TypeError):
        kw.pop("fused", None)
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
        opts.append(torch.optim.Muon(muon, lr=cfg.muon_lr, weight_decay=cfg.weight_decay))
    return opts
