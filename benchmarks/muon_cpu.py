"""The time of one Muon update on a CPU: torch's ``torch.optim.Muon`` (the baseline) against
:class:`formulated.training.optim.Muon` (the same update, matrices of one shape batched), on
the block matrices of the `cpu` preset's model, and the whole training step with each.

    .venv/bin/python benchmarks/muon_cpu.py              # 2 threads, as compare_cpu.py
    .venv/bin/python benchmarks/muon_cpu.py --threads 1

Both optimizers step the same model in alternating rounds (so a busy neighbor slows both
alike); each figure is the median over the rounds of the mean time per step in a round.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from formulated.models.trainable import GPT  # noqa: E402
from formulated.training import make_config  # noqa: E402
from formulated.training.optim import Muon, lr_lambda, make_optimizers  # noqa: E402
from formulated.training.step import train_step  # noqa: E402


def block_matrices(model: GPT) -> list[torch.nn.Parameter]:
    return [
        p
        for n, p in model.named_parameters()
        if n.startswith("blocks.") and p.dim() == 2
    ]


def time_updates(
    opt: torch.optim.Optimizer, params: list, rounds: int, n: int
) -> list[float]:
    """Seconds per ``opt.step()`` (gradients fixed), one mean per round."""
    for p in params:
        p.grad = torch.randn_like(p) * 1e-3
    out = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(n):
            opt.step()
        out.append((time.perf_counter() - t) / n)
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    cfg = make_config("cpu", device="cpu")
    V = 65
    model = GPT(type(cfg.model)(**{**cfg.model.to_dict(), "V": V}))
    params = block_matrices(model)
    kw = dict(
        lr=1e-4, weight_decay=0.0
    )  # tiny steps: the weights stay those of the model
    opts = {
        "torch.optim.Muon (baseline)": torch.optim.Muon(params, **kw),
        "formulated Muon": Muon(params, **kw),
    }
    upd: dict[str, list[float]] = {k: [] for k in opts}
    for _ in range(args.rounds):
        for name, opt in opts.items():
            upd[name] += time_updates(opt, params, 1, 20)
    # the whole step: the preset's optimizers, with Muon either torch's or ours
    x = torch.randint(0, V, (cfg.B, cfg.model.n_ctx))
    y = torch.randint(0, V, (cfg.B, cfg.model.n_ctx))
    steps = {}
    for name, cls in (
        ("torch.optim.Muon (baseline)", torch.optim.Muon),
        ("formulated Muon", Muon),
    ):
        adamw, _ = make_optimizers(model, cfg, torch.device("cpu"))
        muon = cls(params, lr=cfg.muon_lr, weight_decay=cfg.weight_decay)
        opt_list = [adamw, muon]
        scheds = [
            torch.optim.lr_scheduler.LambdaLR(o, lr_lambda(cfg)) for o in opt_list
        ]
        steps[name] = (opt_list, scheds)
    whole: dict[str, list[float]] = {k: [] for k in steps}
    for r in range(args.rounds + 1):
        for name, (opt_list, scheds) in steps.items():
            t = time.perf_counter()
            for _ in range(5):
                train_step(model, opt_list, scheds, x, y, cfg.grad_clip)
            if r:  # the first round warms both up
                whole[name].append((time.perf_counter() - t) / 5)
    print(
        f"{args.threads} thread(s), torch {torch.__version__}; the `cpu` preset's model "
        f"({len(params)} block matrices), batch {cfg.B} x {cfg.model.n_ctx}"
    )
    print(f"{'':30s} {'Muon update, ms':>16s} {'whole step, ms':>15s}")
    base_u, base_s = (
        statistics.median(upd["torch.optim.Muon (baseline)"]),
        statistics.median(whole["torch.optim.Muon (baseline)"]),
    )
    for name in opts:
        u, s = statistics.median(upd[name]), statistics.median(whole[name])
        print(
            f"{name:30s} {u * 1e3:10.2f} ({u / base_u:.2f}) {s * 1e3:9.1f} ({s / base_s:.2f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
