"""Benchmark of the `cpu` preset: val loss <= 1.70 within 5 minutes of process start, on 2 cores.

    .venv/bin/python benchmarks/train_cpu.py [key=value ...]     (e.g. threads=2 max_steps=900)

Prints the validation loss over the whole val split at each evaluation (with the time since the
process started), the final figures (val loss, wall time, tokens/s, peak RSS), whether the target
was met, and a sample of the trained model.  The checkpoint goes to a temporary directory.
Baseline on this kind of machine: nanoGPT's README CPU command reached val 1.886 in 4 min 50 s.
"""

from __future__ import annotations

import sys
import tempfile

from _common import parse_overrides, process_start, report

T0 = process_start()

import torch  # noqa: E402

from formulated.training import train  # noqa: E402

TARGET, LIMIT_S = 1.70, 300.0


def main(argv: list[str]) -> int:
    overrides = parse_overrides(argv)
    overrides.setdefault("device", "cpu")
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    with tempfile.TemporaryDirectory() as d:
        res = train("cpu", d, overwrite=True, progress=sys.stderr.isatty(), **overrides)
    ok = report(res, T0, TARGET, LIMIT_S)
    print("--- sample (temperature 0.8, top-k 20) ---")
    print(res.model.sample(res.tokenizer, "\n", 500, temperature=0.8, top_k=20, seed=0))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
