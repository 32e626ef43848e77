"""Checkpoints: written atomically, read with every field checked before anything is written.

``<out_dir>/ckpt.pt`` holds the model, optimizer(s), scheduler, step, random-number states,
configuration, tokenizer and history.  It is written to a temporary file and renamed, so a crash
never leaves a half-written checkpoint, and resuming continues the run exactly.
"""

from __future__ import annotations

import os
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any, Callable

import torch

from .._checks import is_int
from ..models.trainable import GPT, GPTConfig
from ..tokenizers import CharTokenizer
from .config import MODEL_FIELDS, RESUMABLE, TrainConfig
from .runtime import resolve_device

__all__ = [
    "CheckpointError",
    "CKPT_NAME",
    "CKPT_FORMAT",
    "CKPT_VERSION",
    "save_atomic",
    "load_torch_file",
    "read_checkpoint",
    "checkpoint_model",
    "check_resume_state",
    "check_compatible",
    "load_checkpoint",
    "rng_state",
    "set_rng_state",
]

CKPT_NAME = "ckpt.pt"
CKPT_FORMAT = "formulated-gpt-checkpoint"
# Version 2: ``config`` holds the model's configuration under "model" (version 1: flat).
CKPT_VERSION = 2
READABLE_VERSIONS = (1, 2)
REQUIRED = {
    "model",
    "optimizer",
    "scheduler",
    "step",
    "config",
    "model_config",
    "tokenizer",
    "rng",
    "history",
}
HISTORY_KEYS = ("step", "loss", "val_step", "val_loss", "val_seconds")


class CheckpointError(RuntimeError):
    """A checkpoint that is missing, unreadable or incompatible with the requested run."""


def save_atomic(obj: dict, path: Path) -> None:
    """Write to ``path.tmp``, flush it to disk, then rename over ``path`` (atomic on POSIX)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        torch.save(obj, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def load_torch_file(
    path: Path,
    missing: Callable[[], Exception],
    unreadable: Callable[[Exception], Exception],
) -> Any:
    """What ``torch.load`` reads from the file ``path`` onto the CPU, tensors and plain data
    only (``weights_only``: a file cannot run code).  No file at ``path`` raises
    ``missing()``, a file torch cannot read ``unreadable(e)``: the caller's own error,
    which names its argument (:func:`read_checkpoint`,
    :func:`formulated.analysis.load_shakespeare_gpt`)."""
    if not path.is_file():
        raise missing()
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises RuntimeError, EOFError, UnpicklingError, ...
        raise unreadable(e) from e


def read_checkpoint(path: Path) -> dict:
    """The checkpoint dict at ``path``: ours, of a readable version, with every entry present."""
    ck = load_torch_file(
        path,
        lambda: CheckpointError(
            f"checkpoint: expected a file at {str(path)!r}, found "
            f"none (start without resume to create it)"
        ),
        lambda e: CheckpointError(
            f"checkpoint: {str(path)!r} is truncated or corrupt and "
            f"cannot be read ({type(e).__name__}: {str(e)[:120]})"
        ),
    )
    if not isinstance(ck, dict) or ck.get("format") != CKPT_FORMAT:
        raise CheckpointError(
            f"checkpoint: {str(path)!r} is not a checkpoint of "
            f"formulated.training (no {CKPT_FORMAT!r} marker)"
        )
    if ck.get("version") not in READABLE_VERSIONS:
        raise CheckpointError(
            f"checkpoint: expected format version {CKPT_VERSION} (or 1), got "
            f"{ck.get('version')!r} in {str(path)!r}"
        )
    missing = REQUIRED - set(ck)
    if missing:
        raise CheckpointError(f"checkpoint: {str(path)!r} lacks {sorted(missing)}")
    step = ck["step"]
    if not is_int(step) or step < 0:
        raise CheckpointError(
            f"checkpoint: {str(path)!r} has step={step!r}; expected an integer >= 0"
        )
    return ck


def _check_finite_tensors(obj: Any, key: str, path: Path) -> None:
    """Raise :class:`CheckpointError` naming the first tensor under ``obj`` with NaN or ±inf
    (weights like that make every later probability NaN, and training would carry them on)."""
    if isinstance(obj, torch.Tensor):
        if (obj.is_floating_point() or obj.is_complex()) and not bool(
            torch.isfinite(obj).all()
        ):
            bad = int((~torch.isfinite(obj)).sum())
            raise CheckpointError(
                f"checkpoint: {str(path)!r} has {bad} NaN or infinite "
                f"value(s) in {key}; expected finite numbers (the run that "
                f"wrote it diverged, or the file is damaged)"
            )
    elif isinstance(obj, dict):
        for k, v in obj.items():
            _check_finite_tensors(v, f"{key}[{k!r}]", path)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            _check_finite_tensors(v, f"{key}[{i}]", path)


def checkpoint_model(ck: dict, path: Path) -> tuple[GPTConfig, CharTokenizer]:
    """The model configuration and tokenizer of a checkpoint, checked against each other and
    against the weights (finite, a dict of tensors)."""
    try:
        mcfg = GPTConfig.from_dict(ck["model_config"])
    except (TypeError, ValueError) as e:
        raise CheckpointError(
            f"checkpoint: {str(path)!r} has an invalid model_config: {str(e)[:200]}"
        ) from e
    try:
        tok = CharTokenizer.from_dict(ck["tokenizer"])
    except (
        Exception
    ) as e:  # from_dict of a damaged dict: KeyError, TypeError, ValueError...
        raise CheckpointError(
            f"checkpoint: {str(path)!r} has an invalid tokenizer: "
            f"{type(e).__name__}: {str(e)[:200]}"
        ) from e
    if tok.vocab_size != mcfg.V:
        raise CheckpointError(
            f"checkpoint: {str(path)!r} has a tokenizer of V={tok.vocab_size} "
            f"tokens but model_config V={mcfg.V}; expected the same V"
        )
    weights = ck["model"]
    if not isinstance(weights, dict) or not all(
        isinstance(v, torch.Tensor) for v in weights.values()
    ):
        raise CheckpointError(
            f"checkpoint: {str(path)!r} has a model entry of type "
            f"{type(weights).__name__}; expected a dict of tensors (a "
            f"state_dict)"
        )
    for k, v in weights.items():
        _check_finite_tensors(v, f"model[{k!r}]", path)
    return mcfg, tok


def _check_rng(rng: Any, bad: Any) -> None:
    ranks = rng.get("ranks") if isinstance(rng, dict) else None
    if (
        not isinstance(ranks, list)
        or not ranks
        or not all(
            isinstance(r, dict) and isinstance(r.get("cpu"), torch.Tensor)
            for r in ranks
        )
    ):
        raise bad(
            "rng", "expected {'batch': generator state, 'ranks': [{'cpu': state, ...}]}"
        )
    key = "rng['batch']"
    try:  # a throw-away generator accepts exactly the states that the run will restore
        for key, state in [("rng['batch']", rng.get("batch"))] + [
            (f"rng['ranks'][{i}]['cpu']", r["cpu"]) for i, r in enumerate(ranks)
        ]:
            torch.Generator().set_state(state)
    except (TypeError, RuntimeError) as e:
        raise bad(key, f"not a random-number generator state ({str(e)[:120]})") from e


def check_resume_state(ck: dict, path: Path) -> TrainConfig:
    """Check what only a resumed run reads (training configuration, optimizer, random-number
    states, history), before anything is written; returns the checkpoint's configuration."""

    def bad(key: str, why: str) -> CheckpointError:
        return CheckpointError(f"checkpoint: {str(path)!r} has an invalid {key}: {why}")

    old = ck["config"]
    if not isinstance(old, dict):
        raise bad(
            "config", f"expected a dict of TrainConfig fields, got {type(old).__name__}"
        )
    known = {f.name for f in fields(TrainConfig)} | set(MODEL_FIELDS)
    unknown = sorted(set(old) - known)
    if unknown:
        raise bad(
            "config", f"unknown field(s) {unknown}; expected some of {sorted(known)}"
        )
    try:
        old_cfg = TrainConfig.from_dict(old)
    except (TypeError, ValueError) as e:
        raise bad("config", str(e)[:200]) from e
    checkpoint_model(ck, path)
    states = {"optimizer": ck["optimizer"], "scheduler": ck["scheduler"]}
    if "muon" in ck:  # the optimizer of the matrices with optimizer="muon"
        muon = ck["muon"] if isinstance(ck["muon"], dict) else {}
        states.update(
            {
                "muon['optimizer']": muon.get("optimizer"),
                "muon['scheduler']": muon.get("scheduler"),
            }
        )
    for key, state in states.items():
        if not isinstance(state, dict):
            raise bad(key, "expected a state_dict")
        _check_finite_tensors(state.get("state", {}), f"{key}['state']", path)
    _check_rng(ck["rng"], bad)
    history = ck["history"]
    if not isinstance(history, dict) or not all(
        isinstance(history.get(k), list) for k in HISTORY_KEYS
    ):
        raise bad(
            "history",
            f"expected a dict of lists {list(HISTORY_KEYS)}, got {history!r:.80}",
        )
    return old_cfg


def check_compatible(
    ck: dict, cfg: TrainConfig, tok: CharTokenizer | None, path: Path
) -> None:
    """Raise unless ``cfg`` (and the data's tokenizer, unless ``None``) may continue ``ck``."""
    old = TrainConfig.from_dict(ck["config"])
    now_model, old_model = asdict(cfg.model), asdict(old.model)
    # The vocabulary is compared through the tokenizer (V comes from the data).
    diffs = [
        f"{k}: checkpoint {old_model[k]!r}, now {v!r}"
        for k, v in now_model.items()
        if k != "V" and old_model[k] != v
    ]
    diffs += [
        f"{k}: checkpoint {getattr(old, k)!r}, now {v!r}"
        for k, v in asdict(cfg).items()
        if k not in RESUMABLE and k not in ("data", "model") and getattr(old, k) != v
    ]
    if tok is not None and ck["tokenizer"] != tok.to_dict():
        diffs.append(
            "tokenizer: the data gives another vocabulary than the checkpoint's"
        )
    if diffs:
        raise CheckpointError(
            f"checkpoint: {str(path)!r} is incompatible with the requested "
            f"run; differing: " + "; ".join(diffs)
        )


def load_checkpoint(
    path: str | os.PathLike, device: str = "cpu"
) -> tuple[GPT, CharTokenizer, dict]:
    """Load a trained model for sampling: ``(model in eval mode, tokenizer, checkpoint dict)``.

    ``path`` may be the file or the run directory that holds ``ckpt.pt``.
    """
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise TypeError(
            f"path: expected a checkpoint file or run directory (str or "
            f"os.PathLike), got {type(path).__name__}"
        )
    p = Path(path)
    if p.is_dir():
        p = p / CKPT_NAME
    ck = read_checkpoint(p)
    mcfg, tok = checkpoint_model(ck, p)
    try:
        model = GPT(mcfg)
        model.load_state_dict(ck["model"])
    except (RuntimeError, ValueError, TypeError) as e:
        raise CheckpointError(
            f"checkpoint: {str(p)!r} does not fit its own model "
            f"configuration: {str(e)[:200]}"
        ) from e
    return model.to(resolve_device(device)).eval(), tok, ck


def rng_state(device: torch.device) -> dict:
    """The random-number state of this process (CPU, and the GPU's on CUDA)."""
    st = {"cpu": torch.get_rng_state()}
    if device.type == "cuda":
        st["cuda"] = torch.cuda.get_rng_state(device)
    return st


def set_rng_state(st: dict, device: torch.device) -> None:
    torch.set_rng_state(st["cpu"])
    if device.type == "cuda" and "cuda" in st:
        torch.cuda.set_rng_state(st["cuda"], device)
