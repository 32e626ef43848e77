"""The training loop of chapter 18: :func:`train` (one call for a notebook, a terminal and a
cluster), around the step :func:`~formulated.training.step.train_step` (its ``step``
argument: another function with the same arguments replaces it) and
:func:`~formulated.training.step.evaluate` (the mean loss over a whole split).

The objective is chapter 17's mean cross-entropy of the next character; the optimizer and the
schedule are those of :mod:`formulated.training.optim`, with gradient-norm clipping.  The
validation loss is the mean over the *whole* validation split, cut into consecutive windows of
``n_ctx`` characters (every character but the first is predicted exactly once).

Under ``torchrun`` the run is data-parallel (DDP): each of the ``K`` processes computes the
gradient of its ``B/K`` sequences of the same global batch and DDP averages the gradients, so
the run computes what one process would with batch ``B``.  Ctrl-C saves a checkpoint at the
last finished step and stops cleanly.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Callable

import torch

from .._checks import check_int
from ..models.trainable import GPT, count_parameters, flops_per_token
from ..tokenizers import CharTokenizer
from .checkpoint import (
    CKPT_FORMAT,
    CKPT_NAME,
    CKPT_VERSION,
    CheckpointError,
    check_compatible,
    check_resume_state,
    read_checkpoint,
    rng_state,
    save_atomic,
    set_rng_state,
)
from .config import (
    DEFAULT_PRESET,
    TrainConfig,
    check_override_names,
    make_config,
    with_overrides,
)
from .data import Batches, load_data
from .optim import lr_lambda, make_optimizers
from .runtime import StopFlag, autocast_factory, dist_info, peak_flops, resolve_device
from .step import evaluate, train_step

__all__ = ["TrainResult", "train"]


@dataclass
class TrainResult:
    """What :func:`train` returns.

    ``history`` holds ``step``/``loss`` (training loss of every step's batch) and
    ``val_step``/``val_loss``/``val_seconds`` (whole validation split; seconds since the call of
    :func:`train` began) and ``eval_seconds`` (the time spent evaluating up to then, included in
    ``val_seconds``).  ``tokens_per_s`` is the steady training throughput (after the first
    logged steps, which include compilation; evaluations excluded); ``seconds`` the whole call;
    ``started_at`` its ``time.time()``; ``mfu`` the model-FLOPs utilization on known GPUs.
    """

    model: GPT
    tokenizer: CharTokenizer
    config: TrainConfig
    history: dict[str, list]
    step: int
    val_loss: float
    seconds: float
    tokens_per_s: float
    device: str
    interrupted: bool = False
    out_dir: str | None = None
    n_params: int = 0
    mfu: float | None = None
    started_at: float = 0.0
    first_log_seconds: float = 0.0

    def __repr__(self) -> str:
        # Two lines: a notebook shows the whole result within 88 columns.
        return (
            f"TrainResult(step={self.step}, val_loss={self.val_loss:.4f}, "
            f"seconds={self.seconds:.1f},\n            "
            f"tokens_per_s={self.tokens_per_s:,.0f}, device={self.device!r}, "
            f"interrupted={self.interrupted})"
        )


# -- the run: configuration, set-up, loop ------------------------------------------------------


def _run_config(
    preset: str | None,
    ckpt_path: Path | None,
    resume: bool,
    overwrite: bool,
    config: TrainConfig | None,
    stop_at_step: int | None,
    overrides: dict[str, Any],
) -> tuple[TrainConfig, dict | None]:
    """The configuration of the run and the checkpoint to resume (read and checked before
    anything is written), after checking that the arguments fit together."""
    check_override_names(overrides)
    if config is not None:
        if not isinstance(config, TrainConfig):
            raise TypeError(
                f"config: expected a TrainConfig (see make_config), got "
                f"{type(config).__name__}"
            )
        # A config is the whole run: a preset or overrides next to it would be silently ignored.
        if preset is not None:
            raise TypeError(
                f"config: expected either a preset or a config, got both "
                f"(preset={preset!r}); use make_config({preset!r}, ...)"
            )
        if overrides:
            raise TypeError(
                f"config: expected no overrides next to a whole config, got "
                f"{sorted(overrides)}; use dataclasses.replace(config, ...)"
            )
    ck = None
    if resume:
        if ckpt_path is None:
            raise ValueError(
                "resume: expected an out_dir that holds the checkpoint, got None"
            )
        ck = read_checkpoint(ckpt_path)
        ck_cfg = check_resume_state(ck, ckpt_path)
        if config is None and preset is None:
            config = with_overrides(ck_cfg, overrides)
    elif ckpt_path is not None and ckpt_path.exists() and not overwrite:
        raise FileExistsError(
            f"out_dir: {str(ckpt_path.parent)!r} already holds a checkpoint; "
            f"pass resume=True (--resume) to continue it or overwrite=True "
            f"(--overwrite) to start over"
        )
    cfg = (
        config
        if config is not None
        else make_config(preset or DEFAULT_PRESET, **overrides)
    )
    if ck is not None:
        check_compatible(
            ck, cfg, None, ckpt_path
        )  # the tokenizer once the data is read
        # Nothing left to do would still rewrite the checkpoint: refuse instead.
        if cfg.max_steps <= ck["step"]:
            raise ValueError(
                f"max_steps: expected more than the checkpoint's step "
                f"{ck['step']} to continue the run, got {cfg.max_steps}; pass a "
                f"larger max_steps (--max_steps)"
            )
        if stop_at_step is not None and stop_at_step <= ck["step"]:
            raise ValueError(
                f"stop_at_step: expected more than the checkpoint's step "
                f"{ck['step']}, got {stop_at_step}"
            )
    return cfg, ck


def _check_out_dir(out: Path) -> None:
    """``out_dir`` can receive ``ckpt.pt``: a directory, or a path where one can be made, that
    this process can write.  Checked before anything is trained, so that a run is never lost at
    its first save."""
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(
            f"out_dir: expected a directory for {CKPT_NAME}, got "
            f"{str(out)!r}, which is a file"
        )
    parent = out
    while not parent.exists():  # the directory that the save would create it in
        parent = parent.parent
    if not parent.is_dir():
        raise NotADirectoryError(
            f"out_dir: expected a directory path, got {str(out)!r}, "
            f"inside {str(parent)!r}, which is a file"
        )
    try:  # write access as the save will need it (os.access misses read-only file systems)
        with tempfile.TemporaryFile(dir=parent):
            pass
    except OSError as e:
        raise PermissionError(
            f"out_dir: expected a directory this process can write, got "
            f"{str(out)!r} ({str(parent)!r} cannot be written: "
            f"{e.strerror})"
        ) from e


def _setup_device(cfg: TrainConfig, local_rank: int, world: int) -> torch.device:
    """Start the process group under torchrun and pick this process's device."""
    if world > 1:
        import torch.distributed as dist

        if not dist.is_initialized():
            backend = (
                "nccl"
                if torch.cuda.is_available() and cfg.device in ("auto", "cuda")
                else "gloo"
            )
            dist.init_process_group(backend=backend)
        if cfg.B % world:
            raise ValueError(
                f"B: expected a multiple of the {world} processes, got {cfg.B}"
            )
    device = resolve_device(cfg.device)
    if device.type == "cuda":
        # set_device needs an index: a bare "cuda" (what "auto" gives) means the first GPU.
        device = torch.device("cuda", local_rank if world > 1 else (device.index or 0))
        torch.cuda.set_device(device)
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    return device


class _Run:
    """The state of one run: data, model, optimizers, schedule, batches, history, clocks.

    Built from the configuration (and the checkpoint to resume); :meth:`loop` trains,
    :meth:`save` writes the checkpoint, :meth:`result` is what :func:`train` returns.
    """

    def __init__(
        self,
        cfg: TrainConfig,
        ck: dict | None,
        out: Path | None,
        t_start: float,
        device: torch.device,
        step: Callable[..., torch.Tensor],
    ) -> None:
        self.train_step = step
        self.rank, _, self.world = dist_info()
        self.ddp = self.world > 1
        self.out, self.ckpt_path = out, (out / CKPT_NAME if out is not None else None)
        self.device, self.t_start = device, t_start
        self.autocast = autocast_factory(cfg.amp, device)
        # data (kept on the device: batches are gathered there, no copies per step).
        self.tok, train_ids, self.val_ids = load_data(cfg.data, cfg.val_fraction)
        if ck is not None:
            check_compatible(ck, cfg, self.tok, self.ckpt_path)
        self.cfg = cfg = replace(cfg, model=replace(cfg.model, V=self.tok.vocab_size))
        self.batches = Batches(
            train_ids, cfg.model.n_ctx, cfg.B, cfg.seed, device, self.rank, self.world
        )
        # model, optimizers, schedule: the same initial weights in every process.
        torch.manual_seed(cfg.seed)
        self.model = GPT(cfg.model).to(device)
        self.n_params = count_parameters(self.model)
        self.opts = make_optimizers(self.model, cfg, device)
        self.scheds = [
            torch.optim.lr_scheduler.LambdaLR(o, lr_lambda(cfg)) for o in self.opts
        ]
        torch.manual_seed(
            cfg.seed + 1 + self.rank
        )  # dropout: a different stream per process
        self.history: dict[str, list] = {
            "step": [],
            "loss": [],
            "val_step": [],
            "val_loss": [],
            "val_seconds": [],
            "eval_seconds": [],
        }
        self.step = 0
        if ck is not None:
            self._restore(ck)
        self.eval_clock = 0.0
        self.net = self._compiled()
        # what the loop sets: last validation loss, Ctrl-C seen, throughput, first log
        self.val = (
            self.history["val_loss"][-1] if self.history["val_loss"] else float("nan")
        )
        self.interrupted = False
        self.tokens_per_s = 0.0
        self.first: tuple[float, int, float] | None = None

    def _restore(self, ck: dict) -> None:
        try:
            self.model.load_state_dict(ck["model"])
            self.opts[0].load_state_dict(ck["optimizer"])
            self.scheds[0].load_state_dict(ck["scheduler"])
            if len(self.opts) > 1:
                self.opts[1].load_state_dict(ck["muon"]["optimizer"])
                self.scheds[1].load_state_dict(ck["muon"]["scheduler"])
        except (RuntimeError, ValueError, KeyError) as e:
            raise CheckpointError(
                f"checkpoint: {str(self.ckpt_path)!r} does not fit the model: "
                f"{str(e)[:200]}"
            ) from e
        # The scheduler's max_steps may have changed (a longer run): rebuild its lambda.
        for o, s in zip(self.opts, self.scheds):
            s.lr_lambdas = [lr_lambda(self.cfg)] * len(o.param_groups)
        self.step = ck["step"]
        per_rank = ck["rng"]["ranks"]
        try:  # checked by check_resume_state; a CUDA state is only checked here
            self.batches.generator.set_state(ck["rng"]["batch"])
            set_rng_state(
                per_rank[self.rank] if self.rank < len(per_rank) else per_rank[0],
                self.device,
            )
        except (RuntimeError, TypeError) as e:
            raise CheckpointError(
                f"checkpoint: {str(self.ckpt_path)!r} has an invalid rng: "
                f"{str(e)[:200]}"
            ) from e
        self.history = {k: list(v) for k, v in ck["history"].items()}
        self.history.setdefault(
            "eval_seconds", [float("nan")] * len(self.history["val_step"])
        )

    def _compiled(self) -> torch.nn.Module:
        """Compile (one transformer block, reused by every layer) and wrap in DDP."""
        mode = self.cfg.compile
        if mode == "auto":
            mode = "blocks" if self.device.type == "cuda" else "off"
        if mode != "off" and hasattr(torch, "compile"):
            if mode == "model":
                self.model.compile()
            else:
                for b in self.model.blocks:
                    b.compile()
        if not self.ddp:
            return self.model
        from torch.nn.parallel import DistributedDataParallel as DDP

        return DDP(
            self.model,
            device_ids=[self.device.index] if self.device.type == "cuda" else None,
        )

    def save(self, final_step: int) -> None:
        """Write the checkpoint (every process takes part: the random states are gathered)."""
        states = [rng_state(self.device)]
        if self.ddp:
            import torch.distributed as dist

            states = [None] * self.world
            dist.all_gather_object(states, rng_state(self.device))
            states = [{k: v.cpu() for k, v in s.items()} for s in states]
        if self.ckpt_path is None or self.rank != 0:
            return
        self.out.mkdir(parents=True, exist_ok=True)
        ck = {
            "format": CKPT_FORMAT,
            "version": CKPT_VERSION,
            "step": final_step,
            "model": self.model.state_dict(),
            "optimizer": self.opts[0].state_dict(),
            "scheduler": self.scheds[0].state_dict(),
            "config": asdict(self.cfg),
            "model_config": self.model.cfg.to_dict(),
            "tokenizer": self.tok.to_dict(),
            "rng": {"batch": self.batches.generator.get_state(), "ranks": states},
            "history": self.history,
            "world_size": self.world,
        }
        if len(self.opts) > 1:
            ck["muon"] = {
                "optimizer": self.opts[1].state_dict(),
                "scheduler": self.scheds[1].state_dict(),
            }
        save_atomic(ck, self.ckpt_path)

    def evaluate(self) -> float:
        """The whole validation split, recorded in the history with its time."""
        t0 = time.perf_counter()
        v = evaluate(
            self.model,
            self.val_ids,
            self.cfg.model.n_ctx,
            self.cfg.eval_batch,
            self.autocast,
            self.rank,
            self.world,
        )
        t1 = time.perf_counter()
        self.eval_clock += t1 - t0
        for key, value in (
            ("val_step", self.step),
            ("val_loss", v),
            ("val_seconds", t1 - self.t_start),
            ("eval_seconds", self.eval_clock),
        ):
            self.history[key].append(value)
        return v

    def step_once(self) -> torch.Tensor:
        """The step (:func:`train`'s ``step``, by default ``train_step``) on the next
        batch."""
        x, y = self.batches.next()
        loss = self.train_step(
            self.net, self.opts, self.scheds, x, y, self.cfg.grad_clip, self.autocast
        )
        self.step += 1
        return loss

    def should_stop(self, flag: StopFlag) -> bool:
        """Ctrl-C seen; under DDP every process agrees (once per log interval)."""
        stop = flag.stop
        if self.ddp and self.step % self.cfg.log_interval == 0:
            import torch.distributed as dist

            s = torch.tensor([float(stop)], device=self.device)
            dist.all_reduce(s)
            stop = bool(s.item() > 0)
        return stop

    def loop(self, stop_at_step: int | None, progress: bool) -> None:
        """Train until ``max_steps`` (or ``stop_at_step``, or Ctrl-C), then save."""
        cfg = self.cfg
        log = _Log(self, progress and self.rank == 0)
        self.net.train()
        with StopFlag(sigterm=not self.ddp) as flag:
            try:
                while self.step < cfg.max_steps:
                    if stop_at_step is not None and self.step >= stop_at_step:
                        break
                    if self.should_stop(flag):
                        self.interrupted = True
                        break
                    log.add(self.step_once())
                    last = self.step == cfg.max_steps
                    if self.step % cfg.log_interval == 0 or last:
                        log.flush()
                    if (
                        cfg.eval_interval and self.step % cfg.eval_interval == 0
                    ) or last:
                        self.val = self.evaluate()
                        log.after_eval()
                    if (
                        cfg.ckpt_interval
                        and self.step % cfg.ckpt_interval == 0
                        and not last
                    ):
                        self.save(self.step)
            except KeyboardInterrupt:
                # A second Ctrl-C (or one outside the main thread): stop now; the step in flight
                # is lost, the one before it is saved.
                self.interrupted = True
                for o in self.opts:
                    o.zero_grad(set_to_none=True)
            log.flush_losses()
            h = self.history
            if self.interrupted and (
                not h["val_step"] or h["val_step"][-1] != self.step
            ):
                self.val = float("nan")
            self.save(self.step)
        log.close()
        self.tokens_per_s = log.tokens_per_s()
        self.first = log.first

    def mfu(self) -> float | None:
        """Model-FLOPs utilization of the steady throughput, on GPUs of known peak."""
        if self.device.type != "cuda":
            return None
        peak = peak_flops(self.device)
        if not peak:
            return None
        return flops_per_token(self.model.cfg, self.n_params) * self.tokens_per_s / peak


class _Log:
    """Training losses (copied to the host once per log interval, not per step), the progress
    bar, and the clocks of the throughput: from the first logged step (after compilation) to
    the last, without the time spent evaluating."""

    def __init__(self, run: _Run, bar: bool) -> None:
        self.run = run
        self.pending: list[torch.Tensor] = []
        self.pending_steps: list[int] = []
        self.tokens_per_step = run.cfg.B * run.cfg.model.n_ctx
        self.t_train = time.perf_counter()
        self.t_log, self.steps_log, self.steps_done = self.t_train, 0, 0
        self.first: tuple[float, int, float] | None = None
        self.last_flush: tuple[float, int, float] | None = None
        self.tps = 0.0
        self.bar = None
        if bar:
            from tqdm.auto import tqdm

            self.bar = tqdm(
                total=run.cfg.max_steps,
                initial=run.step,
                desc="training",
                unit="step",
                mininterval=0.5,
                dynamic_ncols=True,
            )
            # In a notebook the bar is a widget row (label, bar, status) whose bar has no width
            # of its own: the long status would squeeze it to a square.  With a minimum width
            # the status wraps onto its own line instead.
            container = getattr(self.bar, "container", None)
            if container is not None:
                container.children[1].layout.min_width = "12em"

    def add(self, loss: torch.Tensor) -> None:
        self.pending.append(loss)
        self.pending_steps.append(self.run.step)
        self.steps_log += 1
        self.steps_done += 1

    def flush_losses(self) -> list[float]:
        losses = (
            torch.stack(self.pending).float().cpu().tolist() if self.pending else []
        )
        self.run.history["step"] += self.pending_steps
        self.run.history["loss"] += losses
        self.pending, self.pending_steps = [], []
        return losses

    def flush(self) -> None:
        losses = self.flush_losses()
        now = time.perf_counter()
        self.tps = self.steps_log * self.tokens_per_step / max(now - self.t_log, 1e-9)
        self.t_log, self.steps_log = now, 0
        self.last_flush = (now, self.steps_done, self.run.eval_clock)
        if self.first is None:
            self.first = self.last_flush
        if self.bar is not None:
            self.bar.set_postfix(
                loss=f"{losses[-1]:.3f}",
                val=f"{self.run.val:.3f}",
                tok_s=f"{self.tps:,.0f}",
                refresh=False,
            )
            self.bar.update(self.run.step - self.bar.n)

    def after_eval(self) -> None:
        self.t_log = time.perf_counter()
        if self.bar is not None:
            self.bar.set_postfix(
                loss=f"{self.run.history['loss'][-1]:.3f}",
                val=f"{self.run.val:.3f}",
                tok_s=f"{self.tps:,.0f}",
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

    def tokens_per_s(self) -> float:
        first, last = self.first, self.last_flush
        if first is not None and last is not None and last[1] > first[1]:
            span = (last[0] - first[0]) - (last[2] - first[2])
            return (last[1] - first[1]) * self.tokens_per_step / max(span, 1e-9)
        span = time.perf_counter() - self.t_train - self.run.eval_clock
        return self.steps_done * self.tokens_per_step / max(span, 1e-9)


def train(
    preset: str | None = None,
    out_dir: str | os.PathLike | None = None,
    *,
    resume: bool = False,
    overwrite: bool = False,
    progress: bool = True,
    config: TrainConfig | None = None,
    stop_at_step: int | None = None,
    step: Callable[..., torch.Tensor] = train_step,
    **overrides: Any,
) -> TrainResult:
    """Train a GPT; the one call of the notebook (and of the command line).

    ``preset`` names an entry of :data:`~formulated.training.config.PRESETS` (default
    ``"book"``); ``overrides`` replace fields of it (``lr=1e-3``, ``max_steps=100``, ``L=2``,
    ``device="cpu"``...), or ``config`` gives the whole :class:`TrainConfig`.  ``out_dir``
    receives ``ckpt.pt`` (none is written when it is ``None``).  ``resume=True`` continues the
    checkpoint there, with the checkpoint's configuration (plus ``overrides`` such as a larger
    ``max_steps``) unless a preset or config is given, which must then agree with it; starting
    afresh over an existing checkpoint needs ``overwrite=True``.  ``stop_at_step`` pauses the
    run there (checkpoint saved, schedule unchanged), to be continued later with ``resume=True``.
    ``step`` is called for every training step with the arguments of
    :func:`~formulated.training.step.train_step` (the default) and returns the loss.
    """
    t_start = time.perf_counter()
    started_at = time.time()
    if out_dir is not None and (
        isinstance(out_dir, bytes) or not isinstance(out_dir, (str, os.PathLike))
    ):
        raise TypeError(
            f"out_dir: expected None or a directory path (str or os.PathLike), got "
            f"{type(out_dir).__name__}"
        )
    if not callable(step):
        raise TypeError(
            f"step: expected a function like train_step(model, optimizers, schedulers, "
            f"x, y, grad_clip, autocast), got {type(step).__name__}"
        )
    if stop_at_step is not None:
        stop_at_step = check_int(
            stop_at_step, "stop_at_step", 0, "None or an integer >= 0"
        )
    out = Path(out_dir) if out_dir is not None else None
    if out is not None:
        _check_out_dir(out)
    cfg, ck = _run_config(
        preset,
        out / CKPT_NAME if out is not None else None,
        resume,
        overwrite,
        config,
        stop_at_step,
        overrides,
    )
    rank, local_rank, world = dist_info()
    device = _setup_device(cfg, local_rank, world)
    threads_before = torch.get_num_threads()
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    try:
        run = _Run(cfg, ck, out, t_start, device, step)
        run.loop(stop_at_step, progress)
    finally:
        torch.set_num_threads(threads_before)
    if run.interrupted and rank == 0:
        where = f" to {str(run.ckpt_path)!r}" if run.ckpt_path is not None else ""
        print(
            f"Interrupted at step {run.step}; checkpoint saved{where}. "
            f"Continue with resume=True (--resume).",
            file=sys.stderr,
        )
    seconds = time.perf_counter() - t_start
    run.model.eval()
    return TrainResult(
        model=run.model,
        tokenizer=run.tok,
        config=run.cfg,
        history=run.history,
        step=run.step,
        val_loss=run.val,
        seconds=seconds,
        tokens_per_s=run.tokens_per_s,
        device=str(device),
        interrupted=run.interrupted,
        out_dir=str(out) if out is not None else None,
        n_params=run.n_params,
        mfu=run.mfu(),
        started_at=started_at,
        first_log_seconds=(run.first[0] - t_start) if run.first else 0.0,
    )
