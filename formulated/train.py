"""Train the GPT of :mod:`formulated.torch_gpt` on Tiny Shakespeare (chapter 18).

One loop for a notebook, a terminal and a cluster:

* notebook: ``result = train("book", out_dir="runs/book")`` returns the trained model, its
  tokenizer and the loss history (``plot_losses(result)``, ``sample(result.model, ...)``);
* terminal: ``python -m formulated.train --preset cpu --out runs/cpu`` (``--resume`` continues,
  ``--device``, ``--lr`` and the other fields of :class:`TrainConfig` override the preset);
* several GPUs or nodes: ``torchrun --nproc_per_node=K -m formulated.train --preset gpu --out runs/g``
  runs data-parallel (DDP): each of the ``K`` processes computes the gradient of its ``B/K``
  sequences of the same global batch and DDP averages the gradients, so the run computes what one
  process would with batch ``B``.

The objective is chapter 17's mean cross-entropy of the next character; the optimiser is AdamW
with linear warm-up and cosine decay of the learning rate and gradient-norm clipping.  The
validation loss is the mean over the *whole* validation split, cut into consecutive windows of
``n_ctx`` characters (every character but the first is predicted exactly once).

Checkpoints (``<out_dir>/ckpt.pt``) hold the model, optimiser, scheduler, step, random-number
states, configuration, tokenizer and history; they are written to a temporary file and renamed,
so a crash never leaves a half-written checkpoint, and resuming continues the run exactly.
Ctrl-C saves a checkpoint at the last finished step and stops cleanly.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import signal
import sys
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Iterator

import torch
import torch.nn.functional as F

from .tokenizers import CharTokenizer
from .torch_gpt import GPT, GPTConfig, count_parameters, flops_per_token

__all__ = ["TrainConfig", "PRESETS", "TrainResult", "CheckpointError", "make_config", "train",
           "load_data", "evaluate", "sample", "next_token_probs", "shape_distribution",
           "load_checkpoint", "plot_losses",
           "resolve_device", "main"]

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT / "data" / "tinyshakespeare.txt"
CKPT_NAME = "ckpt.pt"
CKPT_FORMAT = "formulated-gpt-checkpoint"
CKPT_VERSION = 1


class CheckpointError(RuntimeError):
    """A checkpoint that is missing, unreadable or incompatible with the requested run."""


@dataclass
class TrainConfig:
    """Everything that defines a run.  ``B`` is the *global* batch (sequences per step)."""

    # model (book notation: L layers, A heads, H width, n_ctx context, F FFN width)
    L: int = 4
    A: int = 4
    H: int = 128
    n_ctx: int = 128
    F: int | None = None
    dropout: float = 0.0
    gelu: str = "erf"
    # optimisation
    B: int = 32
    max_steps: int = 1000
    lr: float = 2e-3
    min_lr: float = 2e-4
    warmup_steps: int = 50
    weight_decay: float = 0.1
    beta1: float = 0.9
    beta2: float = 0.99
    grad_clip: float = 1.0
    # evaluation, logging, checkpoints (0 = only at the end)
    eval_interval: int = 0
    ckpt_interval: int = 0
    log_interval: int = 10
    eval_batch: int = 64
    # data and runtime
    data: str = str(DEFAULT_DATA)
    val_fraction: float = 0.1
    seed: int = 0
    device: str = "auto"
    compile: str = "auto"  # auto: one compiled block on CUDA, eager elsewhere; blocks/model/off
    amp: str = "auto"  # auto: bf16 autocast on CUDA, float32 elsewhere; bf16 forces it; off
    threads: int = 0

    def __post_init__(self) -> None:
        for name in ("L", "A", "H", "n_ctx", "B", "max_steps", "eval_batch", "log_interval"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name}: expected a positive integer, got {v!r}")
        for name in ("warmup_steps", "eval_interval", "ckpt_interval", "threads", "seed"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"{name}: expected an integer >= 0, got {v!r}")
        for name in ("lr", "min_lr", "weight_decay", "grad_clip"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not v >= 0 \
                    or not math.isfinite(v):
                raise ValueError(f"{name}: expected a finite number >= 0, got {v!r}")
        if self.lr <= 0:
            raise ValueError(f"lr: expected a learning rate > 0, got {self.lr!r}")
        if self.min_lr > self.lr:
            raise ValueError(f"min_lr: expected at most lr={self.lr}, got {self.min_lr}")
        for name in ("beta1", "beta2"):
            if not 0.0 <= getattr(self, name) < 1.0:
                raise ValueError(f"{name}: expected a value in [0, 1), got {getattr(self, name)!r}")
        if not 0.0 < self.val_fraction < 1.0:
            raise ValueError(f"val_fraction: expected a value in (0, 1), got {self.val_fraction!r}")
        if self.compile not in ("auto", "off", "blocks", "model"):
            raise ValueError(f"compile: expected 'auto', 'off', 'blocks' or 'model', "
                             f"got {self.compile!r}")
        if self.amp not in ("auto", "bf16", "off"):
            raise ValueError(f"amp: expected 'auto', 'bf16' or 'off', got {self.amp!r}")
        self.model_config(65)  # validates L, A, H, F, dropout together

    def model_config(self, V: int) -> GPTConfig:
        return GPTConfig(V=V, n_ctx=self.n_ctx, L=self.L, A=self.A, H=self.H, F=self.F,
                         dropout=self.dropout, gelu=self.gelu)


# Presets.  `book` runs inside the book build (about a minute on one CPU core); `cpu` is the full
# CPU run of benchmarks/train_cpu.py (about 4 minutes on 2 cores); `gpu` the one-GPU run of
# benchmarks/train_gpu.py.  How they were tuned: benchmarks/README.md.
PRESETS: dict[str, dict[str, Any]] = {
    # One thread: the same numbers on every machine, and no slowdown when the build shares
    # its cores (two threads that wait for each other lose badly to a busy neighbour).
    "book": dict(L=2, A=4, H=64, n_ctx=64, B=32, max_steps=1500, lr=5e-3, min_lr=1e-4,
                 warmup_steps=50, eval_interval=250, eval_batch=128, threads=1),
    "cpu": dict(L=4, A=4, H=128, n_ctx=128, B=16, max_steps=2000, lr=3e-3, min_lr=1e-4,
                warmup_steps=50, eval_interval=500, ckpt_interval=500, eval_batch=64),
    "gpu": dict(L=6, A=6, H=384, n_ctx=256, B=64, max_steps=2000, lr=1e-3, min_lr=1e-4,
                warmup_steps=100, dropout=0.2, eval_interval=500, ckpt_interval=1000,
                eval_batch=128, log_interval=50),
}

# Fields a resumed run may change; every other field must match the checkpoint's.
RESUMABLE = {"max_steps", "eval_interval", "ckpt_interval", "log_interval", "eval_batch",
             "device", "compile", "amp", "threads"}


def make_config(preset: str | None = "book", **overrides: Any) -> TrainConfig:
    """A :class:`TrainConfig` from a preset name (or ``None`` for the defaults) and overrides."""
    if preset is not None and preset not in PRESETS:
        raise ValueError(f"preset: expected one of {sorted(PRESETS)}, got {preset!r}")
    known = {f.name for f in fields(TrainConfig)}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise TypeError(f"overrides: unknown field(s) {unknown}; expected some of {sorted(known)}")
    values = dict(PRESETS[preset]) if preset is not None else {}
    values.update(overrides)
    return TrainConfig(**values)


# -- device and data ---------------------------------------------------------------------------

def resolve_device(device: str = "auto") -> torch.device:
    """``"auto"`` picks CUDA, then Apple's MPS, then the CPU; anything else is taken literally."""
    if device == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as e:
        raise ValueError(f"device: expected 'auto', 'cpu', 'cuda', 'cuda:K' or 'mps', "
                         f"got {device!r}") from e
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device: {device!r} was asked for, but this PyTorch sees no CUDA GPU")
    if dev.type == "mps" and not torch.backends.mps.is_available():
        raise ValueError(f"device: {device!r} was asked for, but MPS is not available here")
    return dev


def load_data(path: str | os.PathLike = DEFAULT_DATA, val_fraction: float = 0.1
              ) -> tuple[CharTokenizer, torch.Tensor, torch.Tensor]:
    """Read a text file, build its character vocabulary and split it: first ``1 - val_fraction``
    of the characters for training, the rest for validation (never trained on).

    Returns ``(tokenizer, train_ids, val_ids)``, the ids as int64 tensors on the CPU.
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"data: expected a text file, got {str(p)!r}, which does not exist")
    text = p.read_text(encoding="utf-8")
    tok = CharTokenizer.from_text(text)
    ids = torch.tensor(tok.encode(text), dtype=torch.long)
    n_train = int(len(ids) * (1.0 - val_fraction))
    return tok, ids[:n_train], ids[n_train:]


def val_windows(ids: torch.Tensor, n_ctx: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Cut a split into consecutive windows: inputs ``ids[s:s+n]``, targets ``ids[s+1:s+n+1]``
    for ``s = 0, n, 2n, ...``; the last window is shorter and its missing targets are ``-100``
    (ignored).  Because attention is causal, padding at the *end* of a window changes nothing
    before it.  Returns ``(X, Y)`` of shape ``(W, n_ctx)``; ``(Y >= 0).sum() == len(ids) - 1``.
    """
    m = len(ids) - 1
    W = -(-m // n_ctx)
    X = torch.zeros(W * n_ctx, dtype=torch.long)
    Y = torch.full((W * n_ctx,), -100, dtype=torch.long)
    X[:m] = ids[:-1]
    Y[:m] = ids[1:]
    return X.view(W, n_ctx), Y.view(W, n_ctx)


@torch.no_grad()
def evaluate(model: torch.nn.Module, ids: torch.Tensor, n_ctx: int, batch: int = 64,
             autocast: Any = None, rank: int = 0, world: int = 1) -> float:
    """Mean next-character cross-entropy over the whole split ``ids`` (see :func:`val_windows`).

    With ``world > 1`` each process evaluates every ``world``-th window and the sums are added
    across processes.
    """
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    X, Y = val_windows(ids.cpu(), n_ctx)
    X, Y = X[rank::world].to(device), Y[rank::world].to(device)
    total = torch.zeros((), dtype=torch.float64, device=device)
    count = torch.zeros((), dtype=torch.float64, device=device)
    ctx = autocast if autocast is not None else contextlib.nullcontext
    with _eager(model):
        for i in range(0, len(X), batch):
            with ctx():
                logits, _ = model(X[i:i + batch])
            y = Y[i:i + batch]
            total += F.cross_entropy(logits.float().reshape(-1, logits.size(-1)), y.reshape(-1),
                                     ignore_index=-100, reduction="sum").double()
            count += (y >= 0).sum()
    if world > 1:
        import torch.distributed as dist
        both = torch.stack([total, count])
        dist.all_reduce(both)
        total, count = both[0], both[1]
    model.train(was_training)
    return float(total / count)


def _eager(model: torch.nn.Module) -> Any:
    """Run compiled modules eagerly (evaluation has other shapes; recompiling would cost more)."""
    compiled = any(getattr(m, "_compiled_call_impl", None) is not None for m in model.modules())
    stance = getattr(getattr(torch, "compiler", None), "set_stance", None)
    if compiled and stance is not None:
        return stance("force_eager")
    return contextlib.nullcontext()


# -- sampling ----------------------------------------------------------------------------------

def shape_distribution(logits: torch.Tensor, temperature: float = 1.0,
                       top_k: int | None = None) -> torch.Tensor:
    """``p = softmax(z / T)`` restricted to the ``top_k`` largest logits: ``(V,) -> (V,)``.

    ``T < 1`` sharpens the distribution, ``T > 1`` flattens it, ``T = 0`` puts all the mass on
    the argmax (greedy decoding); top-k sets every probability outside the ``k`` largest to 0 and
    renormalises the rest (the softmax does it, since ``exp(-inf) = 0``).
    """
    z = logits.detach().float().cpu().reshape(-1)
    V = z.numel()
    if not isinstance(temperature, (int, float)) or isinstance(temperature, bool) \
            or not temperature >= 0 or not math.isfinite(temperature):
        raise ValueError(f"temperature: expected a number >= 0, got {temperature!r}")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int)
                              or not top_k >= 1):
        raise ValueError(f"top_k: expected None or an integer >= 1, got {top_k!r}")
    if temperature == 0:
        return F.one_hot(torch.argmax(z), V).float()
    z = z / temperature
    if top_k is not None and top_k < V:
        kth = torch.topk(z, top_k).values[-1]
        z = z.masked_fill(z < kth, float("-inf"))
    return torch.softmax(z, dim=-1)


@torch.no_grad()
def next_token_probs(model: GPT, tokenizer: CharTokenizer, prompt: str,
                     temperature: float = 1.0, top_k: int | None = None) -> torch.Tensor:
    """The distribution of the character after ``prompt`` (its last ``n_ctx`` characters),
    shaped by temperature and top-k: ``(V,)`` on the CPU."""
    if not isinstance(prompt, str) or not prompt:
        raise ValueError(f"prompt: expected a non-empty string, got {prompt!r}")
    ids = tokenizer.encode(prompt)[-model.cfg.n_ctx:]
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    with _eager(model):
        logits, _ = model(torch.tensor([ids], dtype=torch.long, device=device))
    model.train(was_training)
    return shape_distribution(logits[0, -1], temperature, top_k)

@torch.no_grad()
def sample(model: GPT, tokenizer: CharTokenizer, prompt: str = "\n", max_new_tokens: int = 200,
           temperature: float = 1.0, top_k: int | None = None,
           generator: torch.Generator | None = None, seed: int | None = 0) -> str:
    """Continue ``prompt`` by ``max_new_tokens`` characters, one at a time.

    Each step takes the last ``n_ctx`` characters, computes ``p = softmax(logits / T)`` for the
    next one, keeps only the ``top_k`` largest probabilities (renormalised) if asked, and draws
    from ``p``.  ``temperature == 0`` means greedy decoding (argmax).  Sampling uses ``generator``
    if given, else a fresh one seeded with ``seed``, so the same call gives the same text.
    """
    if not isinstance(prompt, str) or not prompt:
        raise ValueError(f"prompt: expected a non-empty string, got {prompt!r}")
    if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int) or max_new_tokens < 0:
        raise ValueError(f"max_new_tokens: expected an integer >= 0, got {max_new_tokens!r}")
    shape_distribution(torch.zeros(2), temperature, top_k)  # validates both, before any work
    ids = tokenizer.encode(prompt)
    device = next(model.parameters()).device
    if generator is None:
        generator = torch.Generator(device="cpu")
        generator.manual_seed(0 if seed is None else seed)
    was_training = model.training
    model.eval()
    idx = torch.tensor([ids], dtype=torch.long, device=device)
    out: list[int] = []
    with _eager(model):
        for _ in range(max_new_tokens):
            logits, _ = model(idx[:, -model.cfg.n_ctx:])
            p = shape_distribution(logits[0, -1], temperature, top_k)
            if temperature == 0:
                nxt = int(torch.argmax(p))
            else:
                nxt = int(torch.multinomial(p, 1, generator=generator))
            out.append(nxt)
            idx = torch.cat([idx, torch.tensor([[nxt]], device=device)], dim=1)
    model.train(was_training)
    return tokenizer.decode(out)


# -- checkpoints -------------------------------------------------------------------------------

def _save_atomic(obj: dict, path: Path) -> None:
    """Write to ``path.tmp``, flush it to disk, then rename over ``path`` (atomic on POSIX)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        torch.save(obj, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _read_checkpoint(path: Path) -> dict:
    if not path.is_file():
        raise CheckpointError(f"checkpoint: expected a file at {str(path)!r}, found none "
                              f"(start without resume to create it)")
    try:
        ck = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises RuntimeError, EOFError, UnpicklingError, ...
        raise CheckpointError(f"checkpoint: {str(path)!r} is truncated or corrupt and cannot be "
                              f"read ({type(e).__name__}: {str(e)[:120]})") from e
    if not isinstance(ck, dict) or ck.get("format") != CKPT_FORMAT:
        raise CheckpointError(f"checkpoint: {str(path)!r} is not a checkpoint of "
                              f"formulated.train (no {CKPT_FORMAT!r} marker)")
    if ck.get("version") != CKPT_VERSION:
        raise CheckpointError(f"checkpoint: expected format version {CKPT_VERSION}, got "
                              f"{ck.get('version')!r} in {str(path)!r}")
    missing = {"model", "optimizer", "scheduler", "step", "config", "model_config",
               "tokenizer", "rng", "history"} - set(ck)
    if missing:
        raise CheckpointError(f"checkpoint: {str(path)!r} lacks {sorted(missing)}")
    return ck


def load_checkpoint(path: str | os.PathLike, device: str = "cpu"
                    ) -> tuple[GPT, CharTokenizer, dict]:
    """Load a trained model for sampling: ``(model in eval mode, tokenizer, checkpoint dict)``.

    ``path`` may be the file or the run directory that holds ``ckpt.pt``.
    """
    p = Path(path)
    if p.is_dir():
        p = p / CKPT_NAME
    ck = _read_checkpoint(p)
    try:
        model = GPT(GPTConfig.from_dict(ck["model_config"]))
        model.load_state_dict(ck["model"])
        tok = CharTokenizer.from_dict(ck["tokenizer"])
    except (RuntimeError, ValueError, TypeError) as e:
        raise CheckpointError(f"checkpoint: {str(p)!r} does not fit its own model "
                              f"configuration: {str(e)[:200]}") from e
    return model.to(resolve_device(device)).eval(), tok, ck


# -- the run -----------------------------------------------------------------------------------

@dataclass
class TrainResult:
    """What :func:`train` returns.

    ``history`` holds ``step``/``loss`` (training loss of every step's batch) and
    ``val_step``/``val_loss``/``val_seconds`` (whole validation split; seconds since the call of
    :func:`train` began).  ``tokens_per_s`` is the steady training throughput (after the first
    logged steps, which include compilation; evaluations excluded); ``seconds`` the whole call;
    ``started_at`` its ``time.time()``; ``mfu`` the model-FLOPs utilisation on known GPUs.
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
        return (f"TrainResult(step={self.step}, val_loss={self.val_loss:.4f}, "
                f"seconds={self.seconds:.1f}, tokens_per_s={self.tokens_per_s:,.0f}, "
                f"device={self.device!r}, interrupted={self.interrupted})")


class _StopFlag:
    """SIGINT (Ctrl-C, or the notebook's interrupt button) and, in a single process, SIGTERM (a
    job scheduler's notice) set a flag that the loop reads between steps, so a checkpoint is
    never taken in the middle of an optimiser step.  A second Ctrl-C interrupts at once.
    (Under torchrun, SIGTERM stays fatal: the launcher sends it when another process failed.)"""

    def __init__(self, sigterm: bool = True) -> None:
        self.stop = False
        self._signals = (signal.SIGINT, signal.SIGTERM) if sigterm else (signal.SIGINT,)
        self._old: dict[int, Any] = {}

    def __enter__(self) -> "_StopFlag":
        import threading
        if threading.current_thread() is threading.main_thread():
            for sig in self._signals:
                self._old[sig] = signal.signal(sig, self._handle)
        return self

    def _handle(self, signum: int, frame: Any) -> None:
        if self.stop and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.stop = True

    def __exit__(self, *exc: Any) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)


def _dist_info() -> tuple[int, int, int]:
    """``(rank, local_rank, world_size)`` from torchrun's environment (``(0, 0, 1)`` alone)."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    return int(os.environ.get("RANK", "0")), int(os.environ.get("LOCAL_RANK", "0")), world


def _use_bf16(amp: str, device: torch.device) -> bool:
    """Whether to run under bf16 autocast: ``"auto"`` means on a CUDA GPU that supports bf16
    (on the CPU it is slower than float32); ``"bf16"`` forces it on any device."""
    if amp == "bf16":
        return True
    return amp == "auto" and device.type == "cuda" and torch.cuda.is_bf16_supported()


def _lr_lambda(cfg: TrainConfig):
    """Multiplier of ``lr`` at a step: linear warm-up, then cosine decay to ``min_lr``."""
    floor = cfg.min_lr / cfg.lr

    def f(step: int) -> float:
        if step < cfg.warmup_steps:
            return (step + 1) / cfg.warmup_steps
        span = max(1, cfg.max_steps - cfg.warmup_steps)
        t = min(1.0, (step - cfg.warmup_steps) / span)
        return floor + (1.0 - floor) * 0.5 * (1.0 + math.cos(math.pi * t))
    return f


def _make_optimizer(model: GPT, cfg: TrainConfig, device: torch.device) -> torch.optim.AdamW:
    # Weight decay on the matrices only (embeddings included), not on biases and LayerNorm gains.
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": cfg.weight_decay},
              {"params": no_decay, "weight_decay": 0.0}]
    kw: dict[str, Any] = dict(lr=cfg.lr, betas=(cfg.beta1, cfg.beta2))
    if device.type in ("cuda", "cpu"):
        kw["fused"] = True  # one kernel for the whole update
    try:
        return torch.optim.AdamW(groups, **kw)
    except (RuntimeError, TypeError):
        kw.pop("fused", None)
        return torch.optim.AdamW(groups, **kw)


def _rng_state(device: torch.device) -> dict:
    st = {"cpu": torch.get_rng_state()}
    if device.type == "cuda":
        st["cuda"] = torch.cuda.get_rng_state(device)
    return st


def _set_rng_state(st: dict, device: torch.device) -> None:
    torch.set_rng_state(st["cpu"])
    if device.type == "cuda" and "cuda" in st:
        torch.cuda.set_rng_state(st["cuda"], device)


def _check_compatible(ck: dict, cfg: TrainConfig, tok: CharTokenizer, path: Path) -> None:
    old = ck["config"]
    diffs = [f"{k}: checkpoint {old.get(k)!r}, now {v!r}" for k, v in asdict(cfg).items()
             if k not in RESUMABLE and k != "data" and old.get(k) != v]
    if ck["tokenizer"] != tok.to_dict():
        diffs.append("tokenizer: the data gives another vocabulary than the checkpoint's")
    if diffs:
        raise CheckpointError(f"checkpoint: {str(path)!r} is incompatible with the requested "
                              f"run; differing: " + "; ".join(diffs))


def train(preset: str | None = None, out_dir: str | os.PathLike | None = None, *,
          resume: bool = False, overwrite: bool = False, progress: bool = True,
          config: TrainConfig | None = None, stop_at_step: int | None = None,
          **overrides: Any) -> TrainResult:
    """Train a GPT; the one call of the notebook (and of the command line).

    ``preset`` names an entry of :data:`PRESETS` (default ``"book"``); ``overrides`` replace
    fields of it (``lr=1e-3``, ``max_steps=100``, ``device="cpu"``...), or ``config`` gives the
    whole :class:`TrainConfig`.  ``out_dir`` receives ``ckpt.pt`` (none is written when it is
    ``None``).  ``resume=True`` continues the checkpoint there, with the checkpoint's
    configuration (plus ``overrides`` such as a larger ``max_steps``) unless a preset or config is
    given, which must then agree with it; starting afresh over an existing checkpoint needs
    ``overwrite=True``.
    ``stop_at_step`` pauses the run there (checkpoint saved, schedule unchanged), to be
    continued later with ``resume=True``.
    """
    t_start = time.perf_counter()
    started_at = time.time()
    rank, local_rank, world = _dist_info()
    ddp = world > 1
    out = Path(out_dir) if out_dir is not None else None
    ckpt_path = out / CKPT_NAME if out is not None else None

    # 1. the checkpoint to resume, if any: read and checked before anything is written.
    ck = None
    if resume:
        if ckpt_path is None:
            raise ValueError("resume: expected an out_dir that holds the checkpoint, got None")
        ck = _read_checkpoint(ckpt_path)
        if config is None and preset is None:
            base = {k: v for k, v in ck["config"].items()}
            base.update(overrides)
            config = TrainConfig(**base)
    elif ckpt_path is not None and ckpt_path.exists() and not overwrite:
        raise FileExistsError(f"out_dir: {str(out)!r} already holds a checkpoint; pass "
                              f"resume=True (--resume) to continue it or overwrite=True "
                              f"(--overwrite) to start over")
    cfg = config if config is not None else make_config(preset or "book", **overrides)

    # 2. processes, device, precision.
    if ddp:
        import torch.distributed as dist
        if not dist.is_initialized():
            backend = "nccl" if torch.cuda.is_available() and cfg.device in ("auto", "cuda") \
                else "gloo"
            dist.init_process_group(backend=backend)
        if cfg.B % world:
            raise ValueError(f"B: expected a multiple of the {world} processes, got {cfg.B}")
    device = resolve_device(cfg.device)
    if device.type == "cuda":
        if ddp:
            device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    threads_before = torch.get_num_threads()
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    use_bf16 = _use_bf16(cfg.amp, device)

    def autocast() -> Any:
        # Matrix products in bf16, weights, optimiser and loss in float32.
        if use_bf16:
            return torch.autocast(device_type=device.type, dtype=torch.bfloat16)
        return contextlib.nullcontext()

    # 3. data (kept on the device: batches are gathered there, no copies per step).
    tok, train_ids, val_ids = load_data(cfg.data, cfg.val_fraction)
    if ck is not None:
        _check_compatible(ck, cfg, tok, ckpt_path)
    if len(train_ids) <= cfg.n_ctx + 1:
        raise ValueError(f"n_ctx: expected fewer than {len(train_ids) - 1} positions (the "
                         f"training split), got {cfg.n_ctx}")
    train_dev = train_ids.to(device)

    # 4. model, optimiser, schedule; the same initial weights in every process.
    torch.manual_seed(cfg.seed)
    model = GPT(cfg.model_config(tok.vocab_size)).to(device)
    n_params = count_parameters(model)
    opt = _make_optimizer(model, cfg, device)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, _lr_lambda(cfg))
    batch_gen = torch.Generator(device="cpu")
    batch_gen.manual_seed(cfg.seed)
    torch.manual_seed(cfg.seed + 1 + rank)  # dropout: a different stream per process
    history: dict[str, list] = {"step": [], "loss": [], "val_step": [], "val_loss": [],
                                "val_seconds": []}
    step = 0
    if ck is not None:
        try:
            model.load_state_dict(ck["model"])
            opt.load_state_dict(ck["optimizer"])
            sched.load_state_dict(ck["scheduler"])
        except (RuntimeError, ValueError, KeyError) as e:
            raise CheckpointError(f"checkpoint: {str(ckpt_path)!r} does not fit the model: "
                                  f"{str(e)[:200]}") from e
        # The scheduler's max_steps may have changed (a longer run): rebuild its lambda.
        sched.lr_lambdas = [_lr_lambda(cfg)] * len(opt.param_groups)
        step = int(ck["step"])
        batch_gen.set_state(ck["rng"]["batch"])
        per_rank = ck["rng"]["ranks"]
        _set_rng_state(per_rank[rank] if rank < len(per_rank) else per_rank[0], device)
        history = {k: list(v) for k, v in ck["history"].items()}

    # 5. speed: compile (one transformer block, reused by every layer) and DDP.
    mode = cfg.compile
    if mode == "auto":
        mode = "blocks" if device.type == "cuda" else "off"
    if mode != "off" and hasattr(torch, "compile"):
        if mode == "model":
            model.compile()
        else:
            for b in model.blocks:
                b.compile()
    net: torch.nn.Module = model
    if ddp:
        from torch.nn.parallel import DistributedDataParallel as DDP
        net = DDP(model, device_ids=[device.index] if device.type == "cuda" else None)

    B_local = cfg.B // world
    offsets = torch.arange(cfg.n_ctx + 1, device=device)

    def get_batch() -> tuple[torch.Tensor, torch.Tensor]:
        # Every process draws the same global batch and keeps its slice of it.
        starts = torch.randint(len(train_ids) - cfg.n_ctx - 1, (cfg.B,), generator=batch_gen)
        starts = starts[rank * B_local:(rank + 1) * B_local].to(device, non_blocking=True)
        chunk = train_dev[starts[:, None] + offsets]
        return chunk[:, :-1], chunk[:, 1:]

    def save(final_step: int) -> None:
        states = [_rng_state(device)]
        if ddp:
            import torch.distributed as dist
            states = [None] * world
            dist.all_gather_object(states, _rng_state(device))
            states = [{k: v.cpu() for k, v in s.items()} for s in states]
        if ckpt_path is None or rank != 0:
            return
        out.mkdir(parents=True, exist_ok=True)
        _save_atomic({
            "format": CKPT_FORMAT, "version": CKPT_VERSION, "step": final_step,
            "model": model.state_dict(), "optimizer": opt.state_dict(),
            "scheduler": sched.state_dict(), "config": asdict(cfg),
            "model_config": model.cfg.to_dict(), "tokenizer": tok.to_dict(),
            "rng": {"batch": batch_gen.get_state(), "ranks": states},
            "history": history, "world_size": world,
        }, ckpt_path)

    clock = {"eval": 0.0}

    def do_eval() -> float:
        t0 = time.perf_counter()
        v = evaluate(model, val_ids, cfg.n_ctx, cfg.eval_batch, autocast, rank, world)
        t1 = time.perf_counter()
        clock["eval"] += t1 - t0
        history["val_step"].append(step)
        history["val_loss"].append(v)
        history["val_seconds"].append(t1 - t_start)  # since this call of train() began
        return v

    # 6. the loop.
    bar = None
    if progress and rank == 0:
        from tqdm.auto import tqdm
        bar = tqdm(total=cfg.max_steps, initial=step, desc="training", unit="step",
                   mininterval=0.5, dynamic_ncols=True)
    tokens_per_step = cfg.B * cfg.n_ctx
    pending: list[torch.Tensor] = []
    pending_steps: list[int] = []
    t_train = time.perf_counter()
    t_log, steps_log, steps_done = t_train, 0, 0
    # Throughput is measured from the first logged step (after compilation) to the last,
    # without the time spent evaluating.
    first: tuple[float, int, float] | None = None
    last_flush: tuple[float, int, float] | None = None
    tps = 0.0
    interrupted = False
    val = history["val_loss"][-1] if history["val_loss"] else float("nan")
    net.train()
    with _StopFlag(sigterm=not ddp) as flag:
        try:
            while step < cfg.max_steps:
                if stop_at_step is not None and step >= stop_at_step:
                    break
                stop = flag.stop
                if ddp and step % cfg.log_interval == 0:  # agree on stopping, all together
                    import torch.distributed as dist
                    s = torch.tensor([float(stop)], device=device)
                    dist.all_reduce(s)
                    stop = bool(s.item() > 0)
                if stop:
                    interrupted = True
                    break
                x, y = get_batch()
                with autocast():
                    _, loss = net(x, y)
                loss.backward()
                if cfg.grad_clip > 0:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
                opt.step()
                sched.step()
                opt.zero_grad(set_to_none=True)
                step += 1
                steps_log += 1
                steps_done += 1
                pending.append(loss.detach())
                pending_steps.append(step)
                last = step == cfg.max_steps
                if step % cfg.log_interval == 0 or last:
                    # One device->host copy per log interval, not per step.
                    losses = torch.stack(pending).float().cpu().tolist()
                    history["step"] += pending_steps
                    history["loss"] += losses
                    pending, pending_steps = [], []
                    now = time.perf_counter()
                    tps = steps_log * tokens_per_step / max(now - t_log, 1e-9)
                    t_log, steps_log = now, 0
                    last_flush = (now, steps_done, clock["eval"])
                    if first is None:
                        first = last_flush
                    if bar is not None:
                        bar.set_postfix(loss=f"{losses[-1]:.3f}", val=f"{val:.3f}",
                                        tok_s=f"{tps:,.0f}", refresh=False)
                        bar.update(step - bar.n)
                if (cfg.eval_interval and step % cfg.eval_interval == 0) or last:
                    val = do_eval()
                    t_log = time.perf_counter()
                    if bar is not None:
                        bar.set_postfix(loss=f"{history['loss'][-1]:.3f}", val=f"{val:.3f}",
                                        tok_s=f"{tps:,.0f}")
                if cfg.ckpt_interval and step % cfg.ckpt_interval == 0 and not last:
                    save(step)
        except KeyboardInterrupt:
            # A second Ctrl-C (or one outside the main thread): stop now; the step in flight
            # is lost, the one before it is saved.
            interrupted = True
            opt.zero_grad(set_to_none=True)
        if pending:
            history["step"] += pending_steps
            history["loss"] += torch.stack(pending).float().cpu().tolist()
        if interrupted and (not history["val_step"] or history["val_step"][-1] != step):
            val = float("nan")
        save(step)
    if bar is not None:
        bar.close()
    torch.set_num_threads(threads_before)
    if interrupted and rank == 0:
        where = f" to {str(ckpt_path)!r}" if ckpt_path is not None else ""
        print(f"Interrupted at step {step}; checkpoint saved{where}. "
              f"Continue with resume=True (--resume).", file=sys.stderr)
    seconds = time.perf_counter() - t_start
    if first is not None and last_flush is not None and last_flush[1] > first[1]:
        span = (last_flush[0] - first[0]) - (last_flush[2] - first[2])
        tokens_per_s = (last_flush[1] - first[1]) * tokens_per_step / max(span, 1e-9)
    else:
        span = time.perf_counter() - t_train - clock["eval"]
        tokens_per_s = steps_done * tokens_per_step / max(span, 1e-9)
    mfu = None
    if device.type == "cuda":
        peak = _peak_flops(device)
        if peak:
            mfu = flops_per_token(model.cfg, n_params) * tokens_per_s / peak
    model.eval()
    return TrainResult(model=model, tokenizer=tok, config=cfg, history=history, step=step,
                       val_loss=val, seconds=seconds, tokens_per_s=tokens_per_s,
                       device=str(device), interrupted=interrupted,
                       out_dir=str(out) if out is not None else None, n_params=n_params, mfu=mfu,
                       started_at=started_at,
                       first_log_seconds=(first[0] - t_start) if first is not None else 0.0)


def _peak_flops(device: torch.device) -> float | None:
    """Dense bf16 peak of known GPUs (FLOP/s), for the model-FLOPs utilisation."""
    name = torch.cuda.get_device_name(device)
    table = {"H100": 989e12, "H200": 989e12, "A100": 312e12, "L4": 121e12, "A10": 125e12}
    for k, v in table.items():
        if k in name:
            return v
    return None


def plot_losses(result: TrainResult | dict, ax: Any = None, title: str = "Training curve") -> Any:
    """Training loss per step (light) and its running mean, with the validation points."""
    import matplotlib.pyplot as plt
    h = result.history if isinstance(result, TrainResult) else result
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.5))
    steps, losses = h["step"], h["loss"]
    ax.plot(steps, losses, color="tab:blue", alpha=0.3, lw=0.8, label="train (batch)")
    k = max(1, len(losses) // 30)
    if len(losses) >= k > 1:
        kernel = torch.ones(k) / k
        smooth = torch.conv1d(torch.tensor(losses, dtype=torch.float32)[None, None],
                              kernel[None, None]).flatten().tolist()
        ax.plot(steps[k - 1:], smooth, color="tab:blue", lw=1.5, label=f"train (mean of {k})")
    if h["val_step"]:
        ax.plot(h["val_step"], h["val_loss"], "o-", color="tab:red", label="val (whole split)")
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy (nats per character)")
    ax.set_title(title)
    ax.legend()
    return ax


# -- command line ------------------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m formulated.train",
        description="Train the book's GPT on Tiny Shakespeare (chapter 18). Under torchrun, "
                    "runs data-parallel (DDP) with the global batch B split across processes.")
    p.add_argument("--preset", choices=sorted(PRESETS), default=None,
                   help="hyper-parameter preset (default: 'book', or the checkpoint's with --resume)")
    p.add_argument("--out", required=True, help="run directory; receives ckpt.pt")
    p.add_argument("--resume", action="store_true", help="continue the checkpoint in --out")
    p.add_argument("--overwrite", action="store_true",
                   help="start afresh even if --out already holds a checkpoint")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--sample", type=int, default=300,
                   help="characters to sample at the end (0: none)")
    for f in fields(TrainConfig):
        typ = {"int": int, "float": float, "str": str}.get(str(f.type).split(" ")[0], None)
        if f.name == "F":
            typ = int
        if typ is None:
            typ = type(f.default)
        p.add_argument(f"--{f.name}", type=typ, default=None, help=f"override {f.name}")
    return p


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status (130 after Ctrl-C, as shells do)."""
    args = _parser().parse_args(argv)
    overrides = {f.name: getattr(args, f.name) for f in fields(TrainConfig)
                 if getattr(args, f.name) is not None}
    try:
        res = train(args.preset, args.out, resume=args.resume, overwrite=args.overwrite,
                    progress=not args.no_progress, **overrides)
    except (CheckpointError, FileExistsError, FileNotFoundError, ValueError, TypeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    rank, _, world = _dist_info()
    if rank == 0:
        print(f"step {res.step}  val loss {res.val_loss:.4f}  "
              f"{res.tokens_per_s:,.0f} tokens/s  {res.seconds:.1f} s  ({res.device}"
              f"{f', {world} processes' if world > 1 else ''})")
        if args.sample and not res.interrupted:
            print(sample(res.model, res.tokenizer, "\n", args.sample, temperature=0.8, top_k=20))
    if world > 1:
        import torch.distributed as dist
        if dist.is_initialized():
            dist.destroy_process_group()
    return 130 if res.interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
