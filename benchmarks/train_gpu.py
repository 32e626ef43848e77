"""Benchmark of the `gpu` preset: val loss <= 1.47 within 30 seconds of process start, one H100.

    python benchmarks/train_gpu.py [key=value ...]

Compilation, data loading and every evaluation count (the clock starts with the process).
Prints the same figures as ``train_cpu.py`` plus the model-FLOPs utilisation (MFU: achieved
training FLOP/s over the GPU's dense bf16 peak, FLOPs counted as 6N + 12 L H n per token).
Baseline: nanoGPT's shakespeare_char config first reached val <= 1.47 65 s after process start.
"""
from __future__ import annotations

import sys
import tempfile

from _common import parse_overrides, process_start, report

T0 = process_start()

import torch  # noqa: E402

from formulated.training import train  # noqa: E402

TARGET, LIMIT_S = 1.47, 30.0


def main(argv: list[str]) -> int:
    if not torch.cuda.is_available():
        print("no CUDA GPU: this benchmark needs one (see train_cpu.py for the CPU benchmark)")
        return 2
    overrides = parse_overrides(argv)
    with tempfile.TemporaryDirectory() as d:
        res = train("gpu", d, overwrite=True, progress=sys.stderr.isatty(), **overrides)
    gpu = torch.cuda.get_device_name()
    mem = torch.cuda.max_memory_allocated() / 2**30
    mfu = f"{100 * res.mfu:.1f} %" if res.mfu is not None else "n/a (unknown GPU peak)"
    ok = report(res, T0, TARGET, LIMIT_S,
                extra=f"MFU              {mfu} of {gpu}'s dense bf16 peak; "
                      f"peak GPU memory {mem:.2f} GiB")
    print("--- sample (temperature 0.8, top-k 20) ---")
    print(res.model.sample(res.tokenizer, "\n", 500, temperature=0.8, top_k=20, seed=0))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
