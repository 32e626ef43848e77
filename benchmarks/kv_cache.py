"""Generation speed with and without the KV cache (chapter 19).

    .venv/bin/python benchmarks/kv_cache.py                 # the shipped model, float32, 1 thread
    .venv/bin/python benchmarks/kv_cache.py threads=2 repeats=5 dtype=float64

Greedy generation of N = 64, 128 and 256 characters after a one-character prompt, with the
shipped 4 x 4 x 128 model of ``data/checkpoints`` (context 256): every step without the cache
runs the model on the whole sequence so far (what ``GPT.sample`` does), with it only the new
position.  Each figure is the best of ``repeats`` runs (the least disturbed by other processes).
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from formulated.analysis import load_shakespeare_gpt  # noqa: E402
from formulated.models.kv_cache import tokens_per_second  # noqa: E402


def main(argv: list[str]) -> int:
    opts = {"threads": "1", "repeats": "3", "dtype": "float32"}
    for a in argv:
        k, _, v = a.partition("=")
        if k not in opts or not v:
            raise SystemExit(
                f"argument: expected one of {sorted(opts)} as key=value, got {a!r}"
            )
        opts[k] = v
    torch.set_num_threads(int(opts["threads"]))
    model, tok, info = load_shakespeare_gpt()
    model = model.to(getattr(torch, opts["dtype"]))
    prompt = tok.encode("\n")
    print(
        f"model {model.cfg}; {opts['dtype']}, {opts['threads']} thread(s), best of "
        f"{opts['repeats']}"
    )
    print(f"{'N':>5s} {'uncached tok/s':>15s} {'cached tok/s':>13s} {'speed-up':>9s}")
    for N in (64, 128, 256):
        full = tokens_per_second(
            model, N, use_cache=False, repeats=int(opts["repeats"]), prompt=prompt
        )
        cached = tokens_per_second(
            model, N, use_cache=True, repeats=int(opts["repeats"]), prompt=prompt
        )
        print(f"{N:5d} {full:15,.0f} {cached:13,.0f} {cached / full:8.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
