"""Shared by the training benchmarks: the process clock, overrides and the report.

Overrides are ``key=value`` arguments parsed by :func:`formulated.training.cli.parse_overrides`
(the same types as the ``--key value`` options of ``python -m formulated.training``).
"""

from __future__ import annotations

import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from formulated.training import TrainResult  # noqa: E402
from formulated.training.cli import parse_overrides as parse_key_values  # noqa: E402


def process_start() -> float:
    """``time.time()`` at which this process started (the clock of the targets)."""
    try:
        import psutil

        return psutil.Process(os.getpid()).create_time()
    except Exception:  # psutil missing: the earliest time we can see
        return time.time() - time.process_time()


def parse_overrides(argv: list[str]) -> dict[str, Any]:
    """``["lr=1e-3", "max_steps=500"]`` -> ``{"lr": 0.001, "max_steps": 500}`` (typed); a
    bad argument exits with its message."""
    try:
        return parse_key_values(argv)
    except ValueError as e:
        raise SystemExit(str(e)) from e


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def report(
    res: TrainResult, t0: float, target: float, limit_s: float, extra: str = ""
) -> bool:
    """Print the benchmark's figures; return True when the target is met."""
    wall = time.time() - t0
    offset = res.started_at - t0
    n_val = None
    print(f"device {res.device}; {res.n_params:,} parameters; config: {res.config}")
    print("validation (mean over the whole val split) at each evaluation:")
    hit = None
    for s, v, sec in zip(
        res.history["val_step"], res.history["val_loss"], res.history["val_seconds"]
    ):
        t = offset + sec
        print(f"  step {s:6d}  val {v:.4f}  at {t:6.1f} s after process start")
        if hit is None and v <= target:
            hit = (s, v, t)
    print(f"final val loss   {res.val_loss:.4f}")
    print(
        f"wall time        {wall:.1f} s from process start (training call {res.seconds:.1f} s)"
    )
    print(f"tokens/s         {res.tokens_per_s:,.0f} (steady training throughput)")
    print(
        f"first {res.config.log_interval} steps done {offset + res.first_log_seconds:.1f} s "
        f"after process start (data, model, compilation)"
    )
    print(f"peak RSS         {peak_rss_mb():,.0f} MB")
    if extra:
        print(extra)
    ok = hit is not None and hit[2] <= limit_s
    if hit is None:
        print(f"TARGET MISSED: val never reached <= {target}")
    else:
        print(
            f"target val <= {target} first reached at step {hit[0]} (val {hit[1]:.4f}), "
            f"{hit[2]:.1f} s after process start; limit {limit_s:.0f} s: "
            f"{'MET' if ok else 'MISSED'}"
        )
    del n_val
    return ok
