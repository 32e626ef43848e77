"""Looking inside a trained GPT (chapter 19): its attention weights, and what each head attends
to, measured over a whole split.

:func:`attention_weights` runs the PyTorch GPT of :mod:`formulated.models.trainable` and returns,
besides the logits, every head's attention matrix ``softmax(Q K^T / sqrt(D) + M)``, which the
model's fused kernel never stores.  :func:`head_shares` averages, for each head, the weight a
query puts on one *nameable* position (Definition: def-19-head-share): the previous character,
itself, the first letter of the current word, the start of the line, the last newline, the last
space, the first position of the window.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch

from ._checks import as_token_ids, check_int, check_token_tensor, checked
from .models.trainable import GPT

__all__ = [
    "attention_weights",
    "PATTERNS",
    "pattern_targets",
    "head_shares",
    "CHECKPOINT",
    "load_shakespeare_gpt",
    "export_weights",
]

#: The model chapter 19 looks inside: trained by ``python -m formulated.training`` with the
#: command recorded in the file (``info["command"]``) and in ``data/README.md``.
CHECKPOINT = (
    Path(__file__).resolve().parents[1]
    / "data"
    / "checkpoints"
    / "shakespeare_char_4x128.pth"
)


def export_weights(
    run_dir: str | os.PathLike, out: str | os.PathLike, command: str = ""
) -> dict:
    """Write the weights (float32), configuration, tokenizer, step and last validation loss of a
    training run's ``ckpt.pt`` to ``out`` — a few MB, without the optimizer's state."""
    from .training import load_checkpoint

    if isinstance(out, bytes) or not isinstance(out, (str, os.PathLike)):
        raise TypeError(
            f"out: expected a file path (str or os.PathLike), got {type(out).__name__}"
        )
    if Path(out).is_dir():
        raise IsADirectoryError(
            f"out: expected a file path for the weights, got {str(out)!r}, "
            f"which is a directory"
        )
    model, tok, ck = load_checkpoint(run_dir)
    h = ck["history"]
    info = {
        "model": {k: v.float().contiguous() for k, v in model.state_dict().items()},
        "model_config": ck["model_config"],
        "tokenizer": tok.to_dict(),
        "step": ck["step"],
        "val_loss": float(h["val_loss"][-1]),
        "val_step": int(h["val_step"][-1]),
        "command": command,
    }
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    # Written next to ``out`` and renamed over it: an interrupted export never leaves the
    # shipped file half-written (the script that makes it replaces it on purpose).
    tmp = Path(out).with_name(Path(out).name + ".tmp")
    try:
        torch.save(info, tmp)
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    return info


def load_shakespeare_gpt(path: str | os.PathLike = CHECKPOINT) -> tuple[GPT, Any, dict]:
    """``(model in eval mode, its CharTokenizer, info)`` from a weights-only checkpoint.

    ``info`` holds ``val_loss`` (the whole validation split, as recorded by the training run),
    ``step``, ``command`` (the command that reproduces the file) and ``model_config``.
    """
    from .models.trainable import GPTConfig
    from .tokenizers import CharTokenizer
    from .training.checkpoint import load_torch_file

    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise TypeError(
            f"path: expected the checkpoint file (str or os.PathLike), got "
            f"{type(path).__name__}"
        )
    p = Path(path)
    if p.is_dir():
        raise IsADirectoryError(
            f"path: expected the checkpoint file, got {str(p)!r}, which is a directory"
        )
    ck = load_torch_file(
        p,
        lambda: FileNotFoundError(
            f"path: expected the checkpoint file, got {str(p)!r}, which does not exist"
        ),
        lambda e: ValueError(
            f"path: {str(p)!r} is not a readable torch file (corrupt or "
            f"truncated: {type(e).__name__}: {str(e)[:120]})"
        ),
    )
    keys = {"model", "model_config", "tokenizer"}
    if not isinstance(ck, dict) or not keys <= set(ck):
        got = sorted(ck) if isinstance(ck, dict) else type(ck).__name__
        raise ValueError(
            f"path: expected weights written by export_weights (entries "
            f"{sorted(keys)}), got {got} in {str(p)!r}"
        )
    try:
        model = GPT(GPTConfig.from_dict(ck["model_config"]))
        model.load_state_dict(ck["model"])
        tok = CharTokenizer.from_dict(ck["tokenizer"])
    except (RuntimeError, TypeError, ValueError, KeyError) as e:
        raise ValueError(
            f"path: the weights in {str(p)!r} do not fit their own model "
            f"configuration and tokenizer ({str(e)[:200]})"
        ) from e
    info = {k: v for k, v in ck.items() if k not in ("model", "tokenizer")}
    return model.eval(), tok, info


@torch.no_grad()
def attention_weights(
    model: GPT, idx: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(logits (B, n, V), weights (B, L, A, n, n))`` for ids ``idx`` ``(B, n)``.

    ``weights[b, l, a, i, j]`` is how much query ``i`` of head ``a`` in layer ``l`` takes from
    position ``j`` (0 for ``j > i``); each row sums to 1.  Same computation as ``model(idx)``,
    with the attention written out.
    Checked by: tests/test_analysis.py::test_weights_match_transformers
    """
    if not isinstance(model, GPT):
        raise TypeError(
            f"model: expected a formulated.models.trainable.GPT, got "
            f"{type(model).__name__}"
        )
    if not isinstance(idx, torch.Tensor) or idx.dim() != 2 or 0 in idx.shape:
        raise ValueError(
            f"idx: expected a (B, n) tensor of token ids with B, n >= 1, got "
            f"{getattr(idx, 'shape', type(idx).__name__)}"
        )
    B, n = idx.shape
    cfg = model.cfg
    if n > cfg.n_ctx:
        raise ValueError(f"idx: expected at most n_ctx={cfg.n_ctx} positions, got {n}")
    check_token_tensor(
        idx, "idx", cfg.V
    )  # not the embedding's "index out of range in self"
    X = model.W_e(idx) + model.W_p(torch.arange(n, device=idx.device))
    future = torch.ones(n, n, dtype=torch.bool, device=idx.device).triu(1)
    maps = []
    for blk in model.blocks:
        A, D = blk.attn.A, blk.attn.D
        q, k, v = blk.attn.qkv(blk.ln_1(X)).split(cfg.H, dim=2)
        q, k, v = (u.view(B, n, A, D).transpose(1, 2) for u in (q, k, v))
        S = (q @ k.transpose(-1, -2)) / math.sqrt(D)
        P = torch.softmax(S.masked_fill(future, float("-inf")), dim=-1)  # (B, A, n, n)
        maps.append(P)
        X = X + blk.attn.proj((P @ v).transpose(1, 2).reshape(B, n, cfg.H))
        X = X + blk.ffn(blk.ln_2(X))
    logits = model.ln_f(X) @ model.W_e.weight.T
    return logits, torch.stack(maps, dim=1)


def _last(flags: np.ndarray) -> np.ndarray:
    """For each position i, the last j <= i with ``flags[j]`` (-1 if none)."""
    pos = np.where(flags, np.arange(len(flags)), -1)
    return np.maximum.accumulate(pos)


def _word_start(c: np.ndarray) -> np.ndarray:
    letter = np.char.isalpha(c)
    start = letter & np.concatenate([[False], ~letter[:-1]])
    return _last(start)


def _line_start(c: np.ndarray) -> np.ndarray:
    nl = _last(c == "\n")  # last newline at or before i
    before = np.concatenate([[-1], nl[:-1]])  # last newline strictly before i
    return np.where(before >= 0, before + 1, -1)


#: Each pattern maps the characters of a window ``(n,)`` to one target position per query
#: (``-1``: no target, the query is left out of that pattern's average).
PATTERNS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "previous character": lambda c: np.arange(len(c)) - 1,
    "itself": lambda c: np.arange(len(c)),
    "start of the word": _word_start,
    "start of the line": _line_start,
    "last newline": lambda c: _last(c == "\n"),
    "last space": lambda c: _last(c == " "),
    "first position": lambda c: np.zeros(len(c), dtype=int),
}


def pattern_targets(chars: np.ndarray | str) -> dict[str, np.ndarray]:
    """Every pattern's target position for each query of one window, ``{name: (n,)}``."""
    c = np.array(list(chars)) if isinstance(chars, str) else np.asarray(chars)
    if c.ndim != 1 or c.size == 0 or c.dtype.kind != "U":
        raise TypeError(
            f"chars: expected a non-empty string or 1-D array of characters, got "
            f"{type(chars).__name__} of shape {c.shape}, dtype {c.dtype}"
        )
    return {name: fn(c).astype(np.int64) for name, fn in PATTERNS.items()}


def _head_shares_args(model: Any, ids: Any, n_ctx: Any) -> tuple[torch.Tensor, int]:
    """``ids`` as a 1-D int64 tensor of at least 2 ids in ``0..V-1`` (no query without a
    previous position otherwise) and ``n_ctx`` in ``1..model.cfg.n_ctx``.  Float ids were
    truncated by ``torch.as_tensor(..., dtype=long)``, an id >= V named ``idx``."""
    if not isinstance(model, GPT):
        raise TypeError(
            f"model: expected a formulated.models.trainable.GPT, got "
            f"{type(model).__name__}"
        )
    n_max = model.cfg.n_ctx
    n_ctx = (
        n_max
        if n_ctx is None
        else check_int(n_ctx, "n_ctx", 1, f"an integer in 1..{n_max}")
    )
    if n_ctx > n_max:
        raise ValueError(
            f"n_ctx: expected an integer in 1..{n_max} (the model's n_ctx), got {n_ctx}"
        )
    arr = ids.detach().cpu().numpy() if isinstance(ids, torch.Tensor) else ids
    if np.size(arr) < 2:
        raise ValueError(
            f"ids: expected at least 2 token ids (a query and a position before "
            f"it), got {np.size(arr)}"
        )
    arr = as_token_ids(arr, "ids", model.cfg.V, ndim=1)
    return torch.from_numpy(arr), n_ctx


def _head_shares_checked(model: Any, tokenizer: Any, ids: Any, n_ctx: Any) -> tuple:
    """The arguments of :func:`head_shares`, checked by :func:`_head_shares_args`."""
    return (model, tokenizer, *_head_shares_args(model, ids, n_ctx))


@torch.no_grad()
@checked(_head_shares_checked)
def head_shares(model, tokenizer, ids, n_ctx=None):
    """Mean weight ``(L, A)`` of each head on each pattern's target, over ``ids``.

    The split is cut into consecutive windows of ``n_ctx`` (the last one shorter); for
    every query ``i >= 1`` with a target ``t(i)``, the weight ``P[l, a, i, t(i)]`` is
    averaged.  Returns
    ``{pattern: {"share": (L, A), "chance": float, "queries": int}}``; ``chance`` is
    what uniform attention over the visible positions would give, ``mean 1/(i+1)``.

    Definition: def-19-head-share.
    Checked by: tests/test_analysis.py::test_head_shares_by_hand
    """
    L, A = model.cfg.L, model.cfg.A
    sums = {p: torch.zeros(L, A, dtype=torch.float64) for p in PATTERNS}
    chance = {p: 0.0 for p in PATTERNS}
    count = {p: 0 for p in PATTERNS}
    for s in range(0, len(ids) - 1, n_ctx):
        w = ids[s : s + n_ctx]
        _, P = attention_weights(model, w[None])  # (1, L, A, n, n)
        P = P[0].double()
        i = np.arange(len(w))
        for name, t in pattern_targets(tokenizer.decode(w.tolist())).items():
            ok = (t >= 0) & (i >= 1)
            qi, ti = torch.as_tensor(i[ok]), torch.as_tensor(t[ok])
            sums[name] += P[:, :, qi, ti].sum(-1)
            chance[name] += float((1.0 / (i[ok] + 1)).sum())
            count[name] += int(ok.sum())
    return {
        p: {
            "share": (sums[p] / max(count[p], 1)).numpy(),
            "chance": chance[p] / max(count[p], 1),
            "queries": count[p],
        }
        for p in PATTERNS
    }
