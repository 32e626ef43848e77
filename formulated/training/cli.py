"""The command line of :func:`~formulated.training.loop.train`, and the parsing of overrides that
the benchmarks share (``--lr 1e-3`` here, ``lr=1e-3`` in ``benchmarks/*.py``).

    python -m formulated.training --preset cpu --out runs/cpu        (--resume continues)
    torchrun --nproc_per_node=4 -m formulated.training --preset gpu --out runs/gpu4
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import fields
from typing import Any

from ..models.trainable import GPTConfig
from .checkpoint import CheckpointError
from .config import DEFAULT_PRESET, MODEL_FIELDS, PRESETS, TrainConfig
from .loop import train
from .runtime import dist_info

__all__ = ["override_types", "parse_value", "parse_overrides", "main"]

_TYPES = {"int": int, "float": float, "str": str}


def override_types() -> dict[str, type]:
    """The type of every field a run may override: the training fields and the model's."""
    out: dict[str, type] = {}
    for cls, names in ((TrainConfig, None), (GPTConfig, MODEL_FIELDS)):
        for f in fields(cls):
            if f.name == "model" or (names is not None and f.name not in names):
                continue
            # The annotations are strings ("int", "float", "int | None"): take the first type.
            out[f.name] = _TYPES[str(f.type).split(" ")[0]]
    return out


def parse_value(name: str, text: str) -> Any:
    """``text`` as the type of field ``name`` (``"None"`` for the optional ``F``)."""
    types = override_types()
    if name not in types:
        raise ValueError(
            f"name: expected a field of TrainConfig or of its model, one of "
            f"{sorted(types)}; got {name!r}"
        )
    if name == "F" and text == "None":
        return None
    try:
        return types[name](text)
    except ValueError as e:
        raise ValueError(
            f"{name}: expected {types[name].__name__}, got {text!r}"
        ) from e


def parse_overrides(argv: list[str]) -> dict[str, Any]:
    """``["lr=1e-3", "max_steps=500"]`` -> ``{"lr": 0.001, "max_steps": 500}`` (typed)."""
    # A lone string is iterable too, and would be read one character at a time.
    if isinstance(argv, (str, bytes)) or not isinstance(argv, (list, tuple)):
        raise TypeError(
            f"argv: expected a list of 'key=value' strings, got {argv!r} "
            f"({type(argv).__name__})"
        )
    out: dict[str, Any] = {}
    for a in argv:
        if not isinstance(a, str) or "=" not in a:
            raise ValueError(
                f"argv: expected key=value items (a field of TrainConfig or of "
                f"its model), got {a!r}"
            )
        k, v = a.split("=", 1)
        if k not in override_types():
            raise ValueError(
                f"argv: expected key=value with a key among "
                f"{sorted(override_types())}, got {a!r}"
            )
        out[k] = parse_value(k, v)
    return out


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m formulated.training",
        description="Train the book's GPT on Tiny Shakespeare (chapter 18). Under torchrun, "
        "runs data-parallel (DDP) with the global batch B split across processes.",
    )
    p.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        default=None,
        help=f"hyper-parameter preset (default: {DEFAULT_PRESET!r}, or the "
        f"checkpoint's with --resume)",
    )
    p.add_argument("--out", required=True, help="run directory; receives ckpt.pt")
    p.add_argument(
        "--resume", action="store_true", help="continue the checkpoint in --out"
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="start afresh even if --out already holds a checkpoint",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--sample",
        type=int,
        default=300,
        help="characters to sample at the end (0: none)",
    )
    for name, typ in override_types().items():
        p.add_argument(f"--{name}", type=typ, default=None, help=f"override {name}")
    return p


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status (130 after Ctrl-C, as shells do)."""
    args = _parser().parse_args(argv)
    overrides = {
        name: getattr(args, name)
        for name in override_types()
        if getattr(args, name) is not None
    }
    try:
        res = train(
            args.preset,
            args.out,
            resume=args.resume,
            overwrite=args.overwrite,
            progress=not args.no_progress,
            **overrides,
        )
    except (
        CheckpointError,
        FileExistsError,
        FileNotFoundError,
        ValueError,
        TypeError,
    ) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    rank, _, world = dist_info()
    if rank == 0:
        print(
            f"step {res.step}  val loss {res.val_loss:.4f}  "
            f"{res.tokens_per_s:,.0f} tokens/s  {res.seconds:.1f} s  ({res.device}"
            f"{f', {world} processes' if world > 1 else ''})"
        )
        if args.sample and not res.interrupted:
            print(
                res.model.sample(
                    res.tokenizer, "\n", args.sample, temperature=0.8, top_k=20
                )
            )
    if world > 1:
        import torch.distributed as dist

        if dist.is_initialized():
            dist.destroy_process_group()
    return 130 if res.interrupted else 0
