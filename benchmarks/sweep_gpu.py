"""Tune the `gpu` preset: run ``train_gpu.py`` once per variant, each in a fresh process.

    python benchmarks/sweep_gpu.py                        # the default variants below
    python benchmarks/sweep_gpu.py "" "dropout=0.15 max_steps=900 eval_interval=450"

Each argument is one variant: space-separated ``key=value`` overrides of the preset ("" is the
preset itself).  Every variant is a new process because the target counts from process start
(compilation included).  Prints one table row per variant: when val <= 1.47 was first reached,
the final val loss, the wall time, the throughput, when the first logged steps were done and every
evaluation, as ``train_gpu.py`` reported them.  Runs take about 35 s each on an H100; the val
split is never trained on, whatever the variant.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

DEFAULT_VARIANTS = [
    "",  # the preset
    "optimizer=muon muon_lr=0.02 max_steps=700 eval_interval=100",  # Muon for the blocks
    "optimizer=muon muon_lr=0.04 max_steps=600 eval_interval=100",
    "lr=2.5e-3 warmup_steps=50 max_steps=900 eval_interval=300",  # a shorter schedule
    "B=192 lr=2.5e-3 max_steps=700 eval_interval=350",  # fewer, larger steps
]

PATTERNS = {
    "reached": re.compile(r"first reached at step (\d+) \(val ([\d.]+)\), ([\d.]+) s"),
    "final": re.compile(r"final val loss\s+([\d.]+)"),
    "wall": re.compile(r"wall time\s+([\d.]+) s"),
    "tok_s": re.compile(r"tokens/s\s+([\d,]+)"),
    "mfu": re.compile(r"MFU\s+([\d.]+) %"),
    "start": re.compile(r"first \d+ steps done ([\d.]+) s"),
}
# Every evaluation: "step 250  val 1.6012  at 12.3 s after process start".
EVAL = re.compile(r"step\s+(\d+)\s+val ([\d.]+)\s+at\s+([\d.]+) s")


def run_variant(variant: str, timeout_s: float) -> dict[str, str]:
    """Run ``train_gpu.py`` with the overrides of ``variant``; the figures it printed."""
    cmd = [sys.executable, str(HERE / "train_gpu.py"), *variant.split()]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    t0 = time.time()
    try:
        p = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout_s, env=env
        )
        text, rc = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        text = (
            (e.stdout or b"").decode()
            if isinstance(e.stdout, bytes)
            else (e.stdout or "")
        )
        rc = "timeout"
    row = {
        "variant": variant or "(preset)",
        "rc": str(rc),
        "seconds": f"{time.time() - t0:.0f}",
    }
    for key, pat in PATTERNS.items():
        m = pat.search(text)
        row[key] = " / ".join(m.groups()) if m else "-"
    row["evals"] = " ".join(f"{st}:{v}@{t}" for st, v, t in EVAL.findall(text)) or "-"
    # rc 1 means "ran and missed the target" only when the run reported its figures: a Python
    # exception also exits with 1, and must show as the failure it is.
    if rc not in (0, 1) or row["final"] == "-":
        row["error"] = text.strip().splitlines()[-1] if text.strip() else "(no output)"
    return row


def main(argv: list[str]) -> int:
    variants = argv or DEFAULT_VARIANTS
    rows = []
    for v in variants:
        row = run_variant(v, timeout_s=300)
        rows.append(row)
        print(" | ".join(f"{k} {val}" for k, val in row.items()), flush=True)
    print(
        "\nvariant | step / val / seconds at val <= 1.47 | final val | wall s | tokens/s | MFU % "
        "| first steps done s | evaluations step:val@s"
    )
    for r in rows:
        print(
            f"{r['variant']} | {r['reached']} | {r['final']} | {r['wall']} | {r['tok_s']} | "
            f"{r['mfu']} | {r['start']} | {r['evals']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
