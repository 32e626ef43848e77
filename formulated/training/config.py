"""What defines a training run: :class:`TrainConfig` (which *contains* the model's
:class:`~formulated.models.trainable.GPTConfig`), the presets, and the overrides of a preset.

A preset is small data: the fields that differ from the defaults, the model's under ``"model"``.
Overrides name any field of either, flat (``L=2``, ``lr=1e-3``, ``eps=1e-6``): the names of the
two configurations are disjoint, so :func:`with_overrides` routes each to its owner.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, fields, replace
from typing import Any

import torch

from .._checks import check_int, check_real_type
from ..data import tiny_shakespeare_path
from ..models.trainable import GPTConfig

__all__ = [
    "TrainConfig",
    "PRESETS",
    "DEFAULT_PRESET",
    "RESUMABLE",
    "MODEL_FIELDS",
    "make_config",
    "with_overrides",
    "check_override_names",
]

#: The preset of a run that names none (the notebook's ``train()``, the command line).
DEFAULT_PRESET = "book"

#: Named training runs, as overrides of TrainConfig's defaults: ``book`` runs inside the book
#: build (about a minute on one CPU core), ``cpu`` is the full CPU run of train_cpu.py and
#: compare_cpu.py (2 cores), ``gpu`` the one-GPU run of train_gpu.py (benchmarks/README.md).
PRESETS: dict[str, dict[str, Any]] = {
    # One thread: the same numbers on every machine, and no slowdown when the build shares
    # its cores (two threads that wait for each other lose badly to a busy neighbor).
    "book": dict(
        model=dict(L=2, A=4, H=64, n_ctx=64),
        B=32,
        max_steps=1500,
        lr=5e-3,
        min_lr=1e-4,
        warmup_steps=50,
        eval_interval=250,
        eval_batch=128,
        threads=1,
    ),
    # Muon (muon_lr) for the blocks' matrices, AdamW (lr) for the rest, on nanoGPT's README
    # CPU model and context (64): passes val 1.70 before 75 % of its steps, in less time than
    # that setting's whole run, and ends well below it (benchmarks/compare_cpu.py).
    # The cosine reaches min_lr at 80 % of the steps; the last fifth trains at min_lr.
    "cpu": dict(
        model=dict(L=4, A=4, H=128, n_ctx=64),
        B=32,
        max_steps=760,
        lr=5e-3,
        min_lr=1e-4,
        warmup_steps=20,
        decay_frac=0.8,
        optimizer="muon",
        muon_lr=0.04,
        eval_interval=200,
        ckpt_interval=200,
        eval_batch=64,
    ),
    # nanoGPT's shakespeare_char model; eager (compiling costs more than it saves in a run
    # this short), batch 128 at twice the rate for half the steps.  Its measured times on one
    # H100 live in one place: benchmarks/README.md.  A whole-split evaluation costs there a
    # small part of 50 steps: evaluating that often finds when val passes 1.47 without a wait.
    "gpu": dict(
        model=dict(L=6, A=6, H=384, n_ctx=256, dropout=0.2),
        B=128,
        max_steps=1000,
        lr=2e-3,
        min_lr=1e-4,
        warmup_steps=100,
        eval_interval=50,
        ckpt_interval=1000,
        eval_batch=128,
        log_interval=50,
        compile="off",
    ),
}

# Fields a resumed run may change; every other field must match the checkpoint's.
RESUMABLE = {
    "max_steps",
    "eval_interval",
    "ckpt_interval",
    "log_interval",
    "eval_batch",
    "device",
    "compile",
    "amp",
    "threads",
}

#: Model fields that a run may set (``V`` comes from the data's vocabulary).
MODEL_FIELDS = tuple(f.name for f in fields(GPTConfig) if f.name != "V")

OPTIMIZERS = ("adamw", "muon")


@dataclass
class TrainConfig:
    """Everything that defines a run.  ``B`` is the *global* batch (sequences per step).

    ``model`` is the model's configuration; its ``V`` is replaced by the vocabulary size of the
    data when the run starts.  ``optimizer``: ``"adamw"`` for every parameter, or ``"muon"``
    (:class:`~formulated.training.optim.Muon` for the matrices of the blocks, AdamW for
    embeddings, biases and gains, at ``lr`` and ``muon_lr``).  The schedule's cosine reaches
    ``min_lr`` after ``decay_frac`` of ``max_steps`` (nanoGPT's ``lr_decay_iters``) and stays
    there.  ``eval_interval``/``ckpt_interval`` 0: only at the end.
    """

    model: GPTConfig = field(default_factory=GPTConfig)
    # optimization
    B: int = 32
    max_steps: int = 1000
    lr: float = 2e-3
    min_lr: float = 2e-4
    warmup_steps: int = 50
    decay_frac: float = 1.0
    weight_decay: float = 0.1
    beta1: float = 0.9
    beta2: float = 0.99
    grad_clip: float = 1.0
    optimizer: str = "adamw"
    muon_lr: float = 0.02
    # evaluation, logging, checkpoints (0 = only at the end)
    eval_interval: int = 0
    ckpt_interval: int = 0
    log_interval: int = 10
    eval_batch: int = 64
    # data and runtime
    data: str = field(default_factory=lambda: str(tiny_shakespeare_path()))
    val_fraction: float = 0.1
    seed: int = 0
    device: str = "auto"
    compile: str = (
        "auto"  # auto: one compiled block on CUDA, eager elsewhere; blocks/model/off
    )
    amp: str = (
        "auto"  # auto: bf16 autocast on CUDA, float32 elsewhere; bf16 forces it; off
    )
    threads: int = 0

    def __post_init__(self) -> None:
        # Every field is stored as a plain Python value (NumPy numbers are accepted and
        # converted): the configuration goes into the checkpoint, which loads weights-only.
        if isinstance(self.model, dict):
            self.model = GPTConfig.from_dict(self.model)
        if not isinstance(self.model, GPTConfig):
            raise TypeError(
                f"model: expected a GPTConfig (or a dict of its fields), got "
                f"{type(self.model).__name__}"
            )
        for name in ("B", "max_steps", "eval_batch", "log_interval"):
            setattr(self, name, check_int(getattr(self, name), name))
        for name in (
            "warmup_steps",
            "eval_interval",
            "ckpt_interval",
            "threads",
            "seed",
        ):
            setattr(
                self, name, check_int(getattr(self, name), name, 0, "an integer >= 0")
            )
        for name in ("lr", "min_lr", "weight_decay", "grad_clip", "muon_lr"):
            v = check_real_type(getattr(self, name), name, "a finite number >= 0")
            if not v >= 0 or not math.isfinite(v):
                raise ValueError(f"{name}: expected a finite number >= 0, got {v!r}")
            setattr(self, name, v)
        if self.lr <= 0:
            raise ValueError(f"lr: expected a learning rate > 0, got {self.lr!r}")
        if self.min_lr > self.lr:
            raise ValueError(
                f"min_lr: expected at most lr={self.lr}, got {self.min_lr}"
            )
        self._check_decay_frac()
        for name in ("beta1", "beta2"):
            v = check_real_type(getattr(self, name), name, "a value in [0, 1)")
            if not 0.0 <= v < 1.0:
                raise ValueError(f"{name}: expected a value in [0, 1), got {v!r}")
            setattr(self, name, v)
        self.val_fraction = check_real_type(
            self.val_fraction, "val_fraction", "a value in (0, 1)"
        )
        if not 0.0 < self.val_fraction < 1.0:
            raise ValueError(
                f"val_fraction: expected a value in (0, 1), got {self.val_fraction!r}"
            )
        if isinstance(self.data, bytes) or not isinstance(
            self.data, (str, os.PathLike)
        ):
            raise TypeError(
                f"data: expected a path to a text file (str or os.PathLike), got "
                f"{self.data!r} ({type(self.data).__name__})"
            )
        self.data = os.fspath(self.data)
        if isinstance(self.device, torch.device):
            self.device = str(self.device)
        self._check_choices()

    def _check_decay_frac(self) -> None:
        v = check_real_type(
            self.decay_frac, "decay_frac", "a share of max_steps in (0, 1]"
        )
        if not 0.0 < v <= 1.0:
            raise ValueError(
                f"decay_frac: expected a share of max_steps in (0, 1], got {v!r}"
            )
        if v < 1.0 and round(v * self.max_steps) <= self.warmup_steps:
            raise ValueError(
                f"decay_frac: expected the decay to end after the warm-up "
                f"(decay_frac * max_steps > warmup_steps={self.warmup_steps}), got "
                f"{v!r} * {self.max_steps} = {round(v * self.max_steps)}"
            )
        self.decay_frac = v

    def _check_choices(self) -> None:
        for name in ("device", "compile", "amp", "optimizer"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(
                    f"{name}: expected a string, got {getattr(self, name)!r} "
                    f"({type(getattr(self, name)).__name__})"
                )
        if self.compile not in ("auto", "off", "blocks", "model"):
            raise ValueError(
                f"compile: expected 'auto', 'off', 'blocks' or 'model', "
                f"got {self.compile!r}"
            )
        if self.amp not in ("auto", "bf16", "off"):
            raise ValueError(f"amp: expected 'auto', 'bf16' or 'off', got {self.amp!r}")
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(
                f"optimizer: expected one of {list(OPTIMIZERS)}, got {self.optimizer!r}"
            )

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "TrainConfig":
        """The inverse of :func:`dataclasses.asdict`; also reads the flat form of version-1
        checkpoints, whose model fields sat next to the training fields."""
        if not isinstance(d, dict):
            raise TypeError(
                f"config: expected a dict of TrainConfig fields, got {type(d).__name__}"
            )
        values = dict(d)
        model = values.pop("model", None)
        base = cls(model=model) if model is not None else cls()
        return with_overrides(base, values)


def check_override_names(overrides: dict[str, Any]) -> None:
    """Raise naming every override that is neither a training nor a model field."""
    known = {f.name for f in fields(TrainConfig)} | set(MODEL_FIELDS)
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise TypeError(
            f"overrides: unknown field(s) {unknown}; expected some of {sorted(known)}"
        )


def with_overrides(cfg: TrainConfig, overrides: dict[str, Any]) -> TrainConfig:
    """``cfg`` with some fields replaced; model fields (``L``, ``H``, ``eps``...) go to
    ``cfg.model``, and ``model=`` replaces the whole model configuration first."""
    check_override_names(overrides)
    train_kw = {k: v for k, v in overrides.items() if k not in MODEL_FIELDS}
    model_kw = {k: v for k, v in overrides.items() if k in MODEL_FIELDS}
    if "model" in train_kw:
        cfg = replace(cfg, model=train_kw.pop("model"))
    if model_kw:
        train_kw["model"] = replace(cfg.model, **model_kw)
    return replace(cfg, **train_kw) if train_kw else cfg


def make_config(preset: str | None = DEFAULT_PRESET, **overrides: Any) -> TrainConfig:
    """A :class:`TrainConfig` from a preset name (or ``None`` for the defaults) and overrides."""
    if preset is not None and (not isinstance(preset, str) or preset not in PRESETS):
        raise ValueError(
            f"preset: expected one of {sorted(PRESETS)} or None, got {preset!r}"
        )
    check_override_names(overrides)
    values = dict(PRESETS[preset]) if preset is not None else {}
    model = dict(values.pop("model", {}))
    if "model" in overrides:  # a whole model configuration replaces the preset's
        given = overrides["model"]
        if not isinstance(given, (GPTConfig, dict)):
            raise TypeError(
                f"model: expected a GPTConfig (or a dict of its fields), got "
                f"{type(given).__name__}"
            )
        model = given.to_dict() if isinstance(given, GPTConfig) else dict(given)
        model.pop("V", None)
    model.update({k: v for k, v in overrides.items() if k in MODEL_FIELDS})
    values.update(
        {k: v for k, v in overrides.items() if k not in MODEL_FIELDS and k != "model"}
    )
    return TrainConfig(model=GPTConfig(**model), **values)
