"""Benchmark of the `gpu` preset: val loss <= 1.47 within 30 seconds of process start, one H100.

    python benchmarks/train_gpu.py [key=value ...]

Compilation, data loading and every evaluation count (the clock starts with the process).
Prints the same figures as ``train_cpu.py`` plus the model-FLOPs utilization (MFU: achieved
training FLOP/s over the GPU's dense bf16 peak, FLOPs counted as 6N + 12 L H n per token).
Baseline: nanoGPT's shakespeare_char config first reached val <= 1.47 65 s after process start.

It also prints where the start-up's seconds go (:class:`StartupClock`): the time from process
start at which the imports, CUDA, the data, the model, the optimizers and the first steps were
done, and what each evaluation cost.  The clock synchronizes the GPU at those few points only
(seven per run), so the figures are the run's own.
"""

from __future__ import annotations

import sys
import tempfile
import time

import torch

T_TORCH = time.time()

from _common import parse_overrides, process_start, report  # noqa: E402

from formulated.training import loop, train, train_step  # noqa: E402

T_FORMULATED = time.time()
T0 = process_start()

TARGET, LIMIT_S = 1.47, 30.0

#: The training steps after which the start-up clock reads the time (the GPU synchronized).
MARK_STEPS = (1, 2, 10, 50)


class StartupClock:
    """Seconds from process start at which each phase of a run was done, read by wrapping the
    functions that :mod:`formulated.training.loop` calls (it looks each up at call time), and
    the step it is given (:meth:`step`, around ``train_step``)."""

    def __init__(self, t0: float) -> None:
        self.t0, self.rows, self.steps, self.evals = t0, [], 0, []
        self.step = train_step  # install() wraps it
        self.mark("python + import torch", T_TORCH)
        self.mark("import formulated.training", T_FORMULATED)

    def mark(self, what: str, at: float | None = None) -> None:
        if at is None:
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            at = time.time()
        self.rows.append((what, at - self.t0))

    def install(self) -> None:
        def after(name: str, what: str):
            fn = getattr(loop, name)

            def wrapped(*a, **k):
                out = fn(*a, **k)
                self.mark(what)
                return out

            setattr(loop, name, wrapped)

        after("_setup_device", "CUDA initialized (context)")
        after("load_data", "text read and encoded")
        after("Batches", "training split on the GPU")
        make_optimizers = loop.make_optimizers

        def optimizers(*a, **k):
            self.mark("model built, on the GPU")
            out = make_optimizers(*a, **k)
            self.mark("optimizers built")
            return out

        loop.make_optimizers = optimizers
        evaluate = loop.evaluate

        def step(*a, **k):
            out = train_step(*a, **k)
            self.steps += 1
            if self.steps in MARK_STEPS:
                self.mark(f"training step {self.steps} done")
            return out

        def evaluation(*a, **k):
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            t = time.perf_counter()
            out = evaluate(*a, **k)
            self.evals.append(
                time.perf_counter() - t
            )  # evaluate returns a float: synced
            return out

        self.step, loop.evaluate = step, evaluation

    def print(self) -> None:
        print(
            "start-up: seconds from process start at which each phase was done (and its own)"
        )
        last = 0.0
        for what, at in self.rows:
            print(f"  {what:<32s} {at:6.2f} s  (+{at - last:5.2f})")
            last = at
        print(
            "evaluations (whole val split): "
            + ", ".join(f"{e:.2f}" for e in self.evals)
            + " s"
        )


def main(argv: list[str]) -> int:
    if not torch.cuda.is_available():
        print(
            "no CUDA GPU: this benchmark needs one (see train_cpu.py for the CPU benchmark)"
        )
        return 2
    overrides = parse_overrides(argv)
    clock = StartupClock(T0)
    clock.install()
    with tempfile.TemporaryDirectory() as d:
        res = train(
            "gpu",
            d,
            overwrite=True,
            progress=sys.stderr.isatty(),
            step=clock.step,
            **overrides,
        )
    gpu = torch.cuda.get_device_name()
    mem = torch.cuda.max_memory_allocated() / 2**30
    mfu = f"{100 * res.mfu:.1f} %" if res.mfu is not None else "n/a (unknown GPU peak)"
    ok = report(
        res,
        T0,
        TARGET,
        LIMIT_S,
        extra=f"MFU              {mfu} of {gpu}'s dense bf16 peak; "
        f"peak GPU memory {mem:.2f} GiB",
    )
    clock.print()
    print("--- sample (temperature 0.8, top-k 20) ---")
    print(res.model.sample(res.tokenizer, "\n", 500, temperature=0.8, top_k=20, seed=0))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
