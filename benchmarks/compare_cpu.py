"""Time to loss on the CPU: nanoGPT's README setting (a) against our `cpu` preset (b), one run.

    .venv/bin/python benchmarks/compare_cpu.py                  # both runs, then the comparison
    .venv/bin/python benchmarks/compare_cpu.py --b lr=4e-3      # (b) with overrides of the preset
    .venv/bin/python benchmarks/compare_cpu.py --steps 0.25     # a quick proxy: both runs at 1/4
    .venv/bin/python benchmarks/compare_cpu.py --seeds 0 1 2    # each seed (a) then (b); a table

(a) trains *our* model (the book's GPT-2 block) with the hyper-parameters of nanoGPT's README
command for CPUs, exactly: ``python train.py config/train_shakespeare_char.py --device=cpu
--compile=False --eval_iters=20 --log_interval=1 --block_size=64 --batch_size=12 --n_layer=4
--n_head=4 --n_embd=128 --max_iters=2000 --lr_decay_iters=2000 --dropout=0.0`` (so lr 1e-3 with
100 warm-up steps and cosine decay to 1e-4, AdamW betas (0.9, 0.99), weight decay 0.1, clipping
at 1.0; evaluation every 250 steps).  (b) trains the `cpu` preset.  Each run is a fresh process
(``--child``), one after the other on the same interpreter, and the clock of each starts with
its process (imports, data, model included).

Both curves are the validation loss over the *whole* validation split.  Those evaluations are
measurement, not training: their time is taken off each run's clock (``eval_seconds`` of the
history), so how often a curve is sampled does not change it.  nanoGPT's own ``estimate_loss``
(20 batches of each split every 250 steps, about 5 % of its time) is therefore not charged to
(a) either, which favors (a).  The ratio is
**time for (b) to first reach val <= 1.70 / total time of (a)**; the same ratio with the
evaluations counted is printed too.  The val split is never trained on.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from _common import process_start

T0 = process_start()

HERE = Path(__file__).resolve().parent
TARGET = 1.70

#: nanoGPT's README CPU command, in our configuration's names (see the docstring).
NANOGPT_README_CPU = dict(
    model=dict(L=4, A=4, H=128, n_ctx=64, dropout=0.0),
    B=12,
    max_steps=2000,
    lr=1e-3,
    min_lr=1e-4,
    warmup_steps=100,
    beta1=0.9,
    beta2=0.99,
    weight_decay=0.1,
    grad_clip=1.0,
    eval_interval=250,
    log_interval=1,
)

#: Whole-split evaluations of (b): often enough to see when it passes the target.
CURVE_POINTS_B = 10


def child(which: str, overrides: list[str], steps: float) -> None:
    """One run in this process; prints one JSON line with its curve and figures."""
    import time

    import torch

    from formulated.training import make_config, train
    from formulated.training.cli import parse_overrides

    given = parse_overrides(overrides)
    if which == "a":
        cfg = make_config(None, **dict(NANOGPT_README_CPU, device="cpu", **given))
    else:
        cfg = make_config("cpu", **dict(dict(device="cpu", ckpt_interval=0), **given))
        if "eval_interval" not in given:
            cfg = replace(cfg, eval_interval=max(1, cfg.max_steps // CURVE_POINTS_B))
    if steps != 1.0:  # a proxy: the same schedule shape, fewer steps
        n = max(1, round(cfg.max_steps * steps))
        cfg = replace(
            cfg,
            max_steps=n,
            warmup_steps=min(cfg.warmup_steps, n // 2),
            eval_interval=max(1, round(cfg.eval_interval * steps)),
        )
    res = train(config=cfg, progress=False)
    h = res.history
    offset = res.started_at - T0
    curve = [
        {"step": s, "val": v, "wall": offset + t, "train": offset + t - e}
        for s, v, t, e in zip(
            h["val_step"], h["val_loss"], h["val_seconds"], h["eval_seconds"]
        )
    ]
    print(
        json.dumps(
            {
                "run": which,
                "config": repr(res.config),
                "curve": curve,
                "final_val": res.val_loss,
                "wall": time.time() - T0,
                "train": time.time() - T0 - h["eval_seconds"][-1],
                "tokens_per_s": res.tokens_per_s,
                "threads": res.config.threads or torch.get_num_threads(),
                "n_params": res.n_params,
            }
        ),
        flush=True,
    )


def run_child(which: str, overrides: list[str], steps: float) -> dict:
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        which,
        "--steps",
        str(steps),
        f"--{which}",
        *overrides,
    ]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=HERE.parent)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or not lines:
        raise SystemExit(
            f"run ({which}) failed:\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}"
        )
    return json.loads(lines[-1])


def first_at_or_below(curve: list[dict], target: float) -> dict | None:
    return next((c for c in curve if c["val"] <= target), None)


def report(a: dict, b: dict) -> dict:
    """Print both curves and the comparison; return the figures of one row of the table."""
    for name, r in (("(a) nanoGPT README CPU setting", a), ("(b) cpu preset", b)):
        print(
            f"{name}: {r['n_params']:,} parameters, {r['threads']} threads, "
            f"{r['tokens_per_s']:,.0f} tokens/s"
        )
        print(f"  {r['config']}")
        print(
            "   step    val (whole split)   s from process start: without evals / with"
        )
        for c in r["curve"]:
            print(
                f"  {c['step']:5d}   {c['val']:.4f}              {c['train']:7.1f} / "
                f"{c['wall']:7.1f}"
            )
        print(
            f"  end: val {r['final_val']:.4f}, {r['train']:.1f} s without evaluations, "
            f"{r['wall']:.1f} s with them"
        )
    hit = first_at_or_below(b["curve"], TARGET)
    row = dict(
        a_final=a["final_val"],
        b_final=b["final_val"],
        a_train=a["train"],
        b_steps=b["curve"][-1]["step"],
        hit=hit,
    )
    if hit is None:
        print(
            f"(b) never reached val <= {TARGET}: ratio undefined (> {b['train'] / a['train']:.2f})"
        )
        return row
    row.update(ratio=hit["train"] / a["train"], ratio_wall=hit["wall"] / a["wall"])
    print(
        f"(b) first at val <= {TARGET}: step {hit['step']} of {row['b_steps']} "
        f"({hit['step'] / row['b_steps']:.0%} of its steps; val {hit['val']:.4f})"
    )
    print(
        f"ratio = time for (b) to reach {TARGET} / total time of (a) = "
        f"{hit['train']:.1f} / {a['train']:.1f} = {hit['train'] / a['train']:.2f}  "
        f"(evaluations counted: {hit['wall']:.1f} / {a['wall']:.1f} = "
        f"{hit['wall'] / a['wall']:.2f})"
    )
    print(f"final val: (a) {a['final_val']:.4f}, (b) {b['final_val']:.4f}")
    return row


def table(rows: dict[int, dict]) -> None:
    """One line per seed: the figures the `cpu` preset's targets are stated in."""
    print(
        f"\nseed | (a) final | (b) first <= {TARGET}: step (share of steps) / time ratio "
        f"(with evals) | (b) final"
    )
    for seed, r in rows.items():
        hit = r["hit"]
        got = (
            "never"
            if hit is None
            else f"{hit['step']} ({hit['step'] / r['b_steps']:.0%}) / {r['ratio']:.2f} "
            f"({r['ratio_wall']:.2f})"
        )
        print(f"{seed:4d} | {r['a_final']:.4f} | {got} | {r['b_final']:.4f}")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--child", choices=["a", "b"], help=argparse.SUPPRESS)
    p.add_argument(
        "--a", nargs="*", default=[], metavar="KEY=VALUE", help="overrides of (a)"
    )
    p.add_argument(
        "--b", nargs="*", default=[], metavar="KEY=VALUE", help="overrides of (b)"
    )
    p.add_argument(
        "--steps",
        type=float,
        default=1.0,
        help="fraction of both runs' steps (a shorter proxy; 1 = the real runs)",
    )
    p.add_argument(
        "--seeds",
        type=int,
        nargs="*",
        default=None,
        metavar="SEED",
        help="run the comparison once per seed (both settings; seed=SEED added to "
        "the overrides of each) and end with a table",
    )
    args = p.parse_args(argv)
    if args.child:
        child(args.child, args.a if args.child == "a" else args.b, args.steps)
        return 0
    rows = {}
    for seed in args.seeds if args.seeds else [None]:
        extra = [] if seed is None else [f"seed={seed}"]
        if seed is not None:
            print(f"=== seed {seed} ===", flush=True)
        a = run_child("a", args.a + extra, args.steps)
        b = run_child("b", args.b + extra, args.steps)
        rows[seed] = report(a, b)
    if args.seeds:
        table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
