"""Train the GPT of :mod:`formulated.models.torch` on Tiny Shakespeare (chapter 18).

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
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import torch
import torch.nn.functional as F

from ._checks import as_token_ids, check_int, check_real_type
from .tokenizers import CharTokenizer
from .data import tiny_shakespeare_path
from ._checks import check_token_tensor
from .models.torch import GPT, GPTConfig, count_parameters, flops_per_token

__all__ = ["TrainConfig", "PRESETS", "TrainResult", "CheckpointError", "make_config", "train",
           "load_data", "evaluate", "sample", "next_token_probs", "shape_distribution",
           "load_checkpoint", "plot_losses",
           "resolve_device", "main"]

DEFAULT_DATA = tiny_shakespeare_path()
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
        # Every field is stored as a plain Python value (NumPy numbers are accepted and
        # converted): the configuration goes into the checkpoint, which loads weights-only.
        for name in ("L", "A", "H", "n_ctx", "B", "max_steps", "eval_batch", "log_interval"):
            setattr(self, name, check_int(getattr(self, name), name))
        for name in ("warmup_steps", "eval_interval", "ckpt_interval", "threads", "seed"):
            setattr(self, name, check_int(getattr(self, name), name, 0, "an integer >= 0"))
        if self.F is not None:
            self.F = check_int(self.F, "F", what="a positive integer or None")
        for name in ("lr", "min_lr", "weight_decay", "grad_clip"):
            v = check_real_type(getattr(self, name), name, "a finite number >= 0")
            if not v >= 0 or not math.isfinite(v):
                raise ValueError(f"{name}: expected a finite number >= 0, got {v!r}")
            setattr(self, name, v)
        if self.lr <= 0:
            raise ValueError(f"lr: expected a learning rate > 0, got {self.lr!r}")
        if self.min_lr > self.lr:
            raise ValueError(f"min_lr: expected at most lr={self.lr}, got {self.min_lr}")
        for name in ("beta1", "beta2"):
            v = check_real_type(getattr(self, name), name, "a value in [0, 1)")
            if not 0.0 <= v < 1.0:
                raise ValueError(f"{name}: expected a value in [0, 1), got {v!r}")
            setattr(self, name, v)
        self.val_fraction = check_real_type(self.val_fraction, "val_fraction", "a value in (0, 1)")
        if not 0.0 < self.val_fraction < 1.0:
            raise ValueError(f"val_fraction: expected a value in (0, 1), got {self.val_fraction!r}")
        self.dropout = check_real_type(self.dropout, "dropout", "a probability in [0, 1)")
        if isinstance(self.data, bytes) or not isinstance(self.data, (str, os.PathLike)):
            raise TypeError(f"data: expected a path to a text file (str or os.PathLike), got "
                            f"{self.data!r} ({type(self.data).__name__})")
        self.data = os.fspath(self.data)
        if isinstance(self.device, torch.device):
            self.device = str(self.device)
        for name in ("gelu", "device", "compile", "amp"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name}: expected a string, got {getattr(self, name)!r} "
                                f"({type(getattr(self, name)).__name__})")
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
    if preset is not None and (not isinstance(preset, str) or preset not in PRESETS):
        raise ValueError(f"preset: expected one of {sorted(PRESETS)} or None, got {preset!r}")
    _check_override_names(overrides)
    values = dict(PRESETS[preset]) if preset is not None else {}
    values.update(overrides)
    return TrainConfig(**values)


def _check_override_names(overrides: dict[str, Any]) -> None:
    known = {f.name for f in fields(TrainConfig)}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise TypeError(f"overrides: unknown field(s) {unknown}; expected some of {sorted(known)}")


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
    n_ctx = check_int(n_ctx, "n_ctx")
    if not isinstance(ids, torch.Tensor):
        raise TypeError(f"ids: expected a 1-D tensor of token ids, got {type(ids).__name__}")
    if ids.dim() != 1 or len(ids) < 2:
        raise ValueError(f"ids: expected a 1-D tensor of at least 2 token ids, got shape "
                         f"{tuple(ids.shape)}")
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
    cfg = _model_config(model)
    ids = _ids_1d(ids, "ids", cfg.V)
    if len(ids) < 2:
        raise ValueError(f"ids: expected at least 2 token ids (an input and the token after it), "
                         f"got {len(ids)}")
    n_ctx = check_int(n_ctx, "n_ctx")
    if n_ctx > cfg.n_ctx:
        raise ValueError(f"n_ctx: expected at most the model's n_ctx={cfg.n_ctx}, got {n_ctx}")
    batch = check_int(batch, "batch")
    world = check_int(world, "world")
    rank = check_int(rank, "rank", 0, "an integer >= 0")
    if rank >= world:
        raise ValueError(f"rank: expected 0 <= rank < world={world}, got {rank}")
    if autocast is not None and not callable(autocast):
        raise TypeError(f"autocast: expected None or a function returning a context manager, "
                        f"got {type(autocast).__name__}")
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    X, Y = val_windows(ids, n_ctx)
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


def _model_config(model: Any) -> GPTConfig:
    """The :class:`GPTConfig` of a GPT (also through ``torch.compile``'s wrapper)."""
    cfg = getattr(model, "cfg", None) if isinstance(model, torch.nn.Module) else None
    if not isinstance(cfg, GPTConfig):
        raise TypeError(f"model: expected a formulated.models.torch.GPT, got {type(model).__name__}")
    return cfg


def _ids_1d(ids: Any, name: str, V: int) -> torch.Tensor:
    """A 1-D sequence of token ids in ``0 .. V-1`` as an int64 CPU tensor (checked on the CPU,
    before anything reaches a GPU, where a bad id is a device-side assert)."""
    if isinstance(ids, torch.Tensor):
        check_token_tensor(ids, name, V, values=False)
        if ids.dim() != 1:
            raise ValueError(f"{name}: expected 1 dimension of token ids, got shape "
                             f"{tuple(ids.shape)}")
        return check_token_tensor(ids.cpu().long(), name, V)
    return torch.from_numpy(as_token_ids(ids, name, V, ndim=1))


def _check_tokenizer(tokenizer: Any, cfg: GPTConfig) -> None:
    V = getattr(tokenizer, "vocab_size", None)
    if not (hasattr(tokenizer, "encode") and hasattr(tokenizer, "decode")) \
            or not isinstance(V, int):
        raise TypeError(f"tokenizer: expected a CharTokenizer, got {type(tokenizer).__name__}")
    if V != cfg.V:
        raise ValueError(f"tokenizer: its vocabulary has V={V} tokens but the model's has "
                         f"V={cfg.V}; expected the tokenizer the model was trained with")


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
    if not isinstance(logits, torch.Tensor) or logits.is_complex() or logits.dtype == torch.bool:
        raise TypeError(f"logits: expected a real tensor, got "
                        f"{getattr(logits, 'dtype', type(logits).__name__)}")
    z = logits.detach().float().cpu().reshape(-1)
    V = z.numel()
    if V == 0:
        raise ValueError("logits: expected at least one logit, got an empty tensor")
    if bool(torch.isnan(z).any()):
        raise ValueError(f"logits: expected no NaN, got {int(torch.isnan(z).sum())} NaN of {V} "
                         f"(a model with NaN weights?)")
    temperature = check_real_type(temperature, "temperature", "a number >= 0")
    if not temperature >= 0 or not math.isfinite(temperature):
        raise ValueError(f"temperature: expected a number >= 0, got {temperature!r}")
    if top_k is not None:
        if isinstance(top_k, (bool, np.bool_)) or not isinstance(top_k, (int, np.integer)):
            raise TypeError(f"top_k: expected None or an integer >= 1, got {top_k!r} "
                            f"({type(top_k).__name__})")
        if not top_k >= 1:
            raise ValueError(f"top_k: expected None or an integer >= 1, got {top_k!r}")
        top_k = int(top_k)
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
    cfg = _model_config(model)
    _check_tokenizer(tokenizer, cfg)
    if not isinstance(prompt, str) or not prompt:
        raise ValueError(f"prompt: expected a non-empty string, got {prompt!r}")
    shape_distribution(torch.zeros(2), temperature, top_k)  # validates both, before any work
    ids = tokenizer.encode(prompt)[-cfg.n_ctx:]
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
    cfg = _model_config(model)
    _check_tokenizer(tokenizer, cfg)
    if not isinstance(prompt, str) or not prompt:
        raise ValueError(f"prompt: expected a non-empty string, got {prompt!r}")
    max_new_tokens = check_int(max_new_tokens, "max_new_tokens", 0, "an integer >= 0")
    shape_distribution(torch.zeros(2), temperature, top_k)  # validates both, before any work
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator: expected None or a torch.Generator, got "
                        f"{type(generator).__name__}")
    if seed is not None:
        seed = check_int(seed, "seed", -2**63, "None or an integer")
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
    step = ck["step"]
    if isinstance(step, bool) or not isinstance(step, int) or step < 0:
        raise CheckpointError(f"checkpoint: {str(path)!r} has step={step!r}; expected an "
                              f"integer >= 0")
    return ck


def _check_finite_tensors(obj: Any, key: str, path: Path) -> None:
    """Raise :class:`CheckpointError` naming the first tensor under ``obj`` with NaN or ±inf
    (weights like that make every later probability NaN, and training would carry them on)."""
    if isinstance(obj, torch.Tensor):
        if (obj.is_floating_point() or obj.is_complex()) and not bool(torch.isfinite(obj).all()):
            bad = int((~torch.isfinite(obj)).sum())
            raise CheckpointError(f"checkpoint: {str(path)!r} has {bad} NaN or infinite "
                                  f"value(s) in {key}; expected finite numbers (the run that "
                                  f"wrote it diverged, or the file is damaged)")
    elif isinstance(obj, dict):
        for k, v in obj.items():
            _check_finite_tensors(v, f"{key}[{k!r}]", path)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            _check_finite_tensors(v, f"{key}[{i}]", path)


def _checkpoint_model(ck: dict, path: Path) -> tuple[GPTConfig, CharTokenizer]:
    """The model configuration and tokenizer of a checkpoint, checked against each other and
    against the weights (finite, a dict of tensors)."""
    try:
        mcfg = GPTConfig.from_dict(ck["model_config"])
    except (TypeError, ValueError) as e:
        raise CheckpointError(f"checkpoint: {str(path)!r} has an invalid model_config: "
                              f"{str(e)[:200]}") from e
    try:
        tok = CharTokenizer.from_dict(ck["tokenizer"])
    except Exception as e:  # from_dict of a damaged dict: KeyError, TypeError, ValueError...
        raise CheckpointError(f"checkpoint: {str(path)!r} has an invalid tokenizer: "
                              f"{type(e).__name__}: {str(e)[:200]}") from e
    if tok.vocab_size != mcfg.V:
        raise CheckpointError(f"checkpoint: {str(path)!r} has a tokenizer of V={tok.vocab_size} "
                              f"tokens but model_config V={mcfg.V}; expected the same V")
    weights = ck["model"]
    if not isinstance(weights, dict) or not all(isinstance(v, torch.Tensor)
                                                for v in weights.values()):
        raise CheckpointError(f"checkpoint: {str(path)!r} has a model entry of type "
                              f"{type(weights).__name__}; expected a dict of tensors (a "
                              f"state_dict)")
    for k, v in weights.items():
        _check_finite_tensors(v, f"model[{k!r}]", path)
    return mcfg, tok


def _check_resume_state(ck: dict, path: Path) -> TrainConfig:
    """Check what only a resumed run reads (training configuration, optimiser, random-number
    states, history), before anything is written; returns the checkpoint's configuration."""
    def bad(key: str, why: str) -> CheckpointError:
        return CheckpointError(f"checkpoint: {str(path)!r} has an invalid {key}: {why}")

    old = ck["config"]
    if not isinstance(old, dict):
        raise bad("config", f"expected a dict of TrainConfig fields, got {type(old).__name__}")
    known = {f.name for f in fields(TrainConfig)}
    unknown = sorted(set(old) - known)
    if unknown:
        raise bad("config", f"unknown field(s) {unknown}; expected some of {sorted(known)}")
    try:
        old_cfg = TrainConfig(**old)
    except (TypeError, ValueError) as e:
        raise bad("config", str(e)[:200]) from e
    _checkpoint_model(ck, path)
    if not isinstance(ck["optimizer"], dict) or not isinstance(ck["scheduler"], dict):
        raise bad("optimizer" if not isinstance(ck["optimizer"], dict) else "scheduler",
                  "expected a state_dict")
    _check_finite_tensors(ck["optimizer"].get("state", {}), "optimizer['state']", path)
    rng = ck["rng"]
    ranks = rng.get("ranks") if isinstance(rng, dict) else None
    if not isinstance(ranks, list) or not ranks or not all(
            isinstance(r, dict) and isinstance(r.get("cpu"), torch.Tensor) for r in ranks):
        raise bad("rng", "expected {'batch': generator state, 'ranks': [{'cpu': state, ...}]}")
    try:  # a throw-away generator accepts exactly the states that the run will restore
        for key, state in [("rng['batch']", rng.get("batch"))] + [
                (f"rng['ranks'][{i}]['cpu']", r["cpu"]) for i, r in enumerate(ranks)]:
            torch.Generator().set_state(state)
    except (TypeError, RuntimeError) as e:
        raise bad(key, f"not a random-number generator state ({str(e)[:120]})") from e
    history = ck["history"]
    want = ("step", "loss", "val_step", "val_loss", "val_seconds")
    if not isinstance(history, dict) or not all(isinstance(history.get(k), list) for k in want):
        raise bad("history", f"expected a dict of lists {list(want)}, got {history!r:.80}")
    return old_cfg


def load_checkpoint(path: str | os.PathLike, device: str = "cpu"
                    ) -> tuple[GPT, CharTokenizer, dict]:
    """Load a trained model for sampling: ``(model in eval mode, tokenizer, checkpoint dict)``.

    ``path`` may be the file or the run directory that holds ``ckpt.pt``.
    """
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path: expected a checkpoint file or run directory (str or "
                        f"os.PathLike), got {type(path).__name__}")
    p = Path(path)
    if p.is_dir():
        p = p / CKPT_NAME
    ck = _read_checkpoint(p)
    mcfg, tok = _checkpoint_model(ck, p)
    try:
        model = GPT(mcfg)
        model.load_state_dict(ck["model"])
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


def _check_compatible(ck: dict, cfg: TrainConfig, tok: CharTokenizer | None, path: Path) -> None:
    """Raise unless ``cfg`` (and the data's tokenizer, unless ``None``) may continue ``ck``."""
    old = ck["config"]
    diffs = [f"{k}: checkpoint {old.get(k)!r}, now {v!r}" for k, v in asdict(cfg).items()
             if k not in RESUMABLE and k != "data" and old.get(k) != v]
    if tok is not None and ck["tokenizer"] != tok.to_dict():
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
    _check_override_names(overrides)
    if config is not None:
        if not isinstance(config, TrainConfig):
            raise TypeError(f"config: expected a TrainConfig (see make_config), got "
                            f"{type(config).__name__}")
        # A config is the whole run: a preset or overrides next to it would be silently ignored.
        if preset is not None:
            raise TypeError(f"config: expected either a preset or a config, got both "
                            f"(preset={preset!r}); use make_config({preset!r}, ...)")
        if overrides:
            raise TypeError(f"config: expected no overrides next to a whole config, got "
                            f"{sorted(overrides)}; use dataclasses.replace(config, ...)")
    if out_dir is not None and (isinstance(out_dir, bytes)
                                or not isinstance(out_dir, (str, os.PathLike))):
        raise TypeError(f"out_dir: expected None or a directory path (str or os.PathLike), got "
                        f"{type(out_dir).__name__}")
    if stop_at_step is not None:
        stop_at_step = check_int(stop_at_step, "stop_at_step", 0, "None or an integer >= 0")
    out = Path(out_dir) if out_dir is not None else None
    ckpt_path = out / CKPT_NAME if out is not None else None

    # 1. the checkpoint to resume, if any: read and checked before anything is written.
    ck = None
    if resume:
        if ckpt_path is None:
            raise ValueError("resume: expected an out_dir that holds the checkpoint, got None")
        ck = _read_checkpoint(ckpt_path)
        ck_cfg = _check_resume_state(ck, ckpt_path)
        if config is None and preset is None:
            config = replace(ck_cfg, **overrides)
    elif ckpt_path is not None and ckpt_path.exists() and not overwrite:
        raise FileExistsError(f"out_dir: {str(out)!r} already holds a checkpoint; pass "
                              f"resume=True (--resume) to continue it or overwrite=True "
                              f"(--overwrite) to start over")
    cfg = config if config is not None else make_config(preset or "book", **overrides)
    if ck is not None:
        _check_compatible(ck, cfg, None, ckpt_path)  # the tokenizer once the data is read
        # Nothing left to do would still rewrite the checkpoint: refuse instead.
        if cfg.max_steps <= ck["step"]:
            raise ValueError(f"max_steps: expected more than the checkpoint's step "
                             f"{ck['step']} to continue the run, got {cfg.max_steps}; pass a "
                             f"larger max_steps (--max_steps)")
        if stop_at_step is not None and stop_at_step <= ck["step"]:
            raise ValueError(f"stop_at_step: expected more than the checkpoint's step "
                             f"{ck['step']}, got {stop_at_step}")

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
        step = ck["step"]
        per_rank = ck["rng"]["ranks"]
        try:  # checked by _check_resume_state; a CUDA state is only checked here
            batch_gen.set_state(ck["rng"]["batch"])
            _set_rng_state(per_rank[rank] if rank < len(per_rank) else per_rank[0], device)
        except (RuntimeError, TypeError) as e:
            raise CheckpointError(f"checkpoint: {str(ckpt_path)!r} has an invalid rng: "
                                  f"{str(e)[:200]}") from e
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
