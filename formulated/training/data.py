"""The data of a run: the text split into training and validation ids, the random training
batches, and the consecutive windows that cover the validation split."""

from __future__ import annotations

import os
from pathlib import Path

import torch

from .._checks import check_int, check_real_type
from ..data import tiny_shakespeare_path
from ..tokenizers import CharTokenizer

__all__ = ["load_data", "val_windows", "Batches"]


def load_data(
    path: str | os.PathLike | None = None, val_fraction: float = 0.1
) -> tuple[CharTokenizer, torch.Tensor, torch.Tensor]:
    """Read a text file (default: Tiny Shakespeare), build its character vocabulary and split it:
    first ``1 - val_fraction`` of the characters for training, the rest for validation (never
    trained on).

    Returns ``(tokenizer, train_ids, val_ids)``, the ids as int64 tensors on the CPU.
    """
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise TypeError(
            f"path: expected a path to a text file (str or os.PathLike) or None, "
            f"got {path!r} ({type(path).__name__})"
        )
    vf = check_real_type(val_fraction, "val_fraction", "a number in [0, 1)")
    # 'not 0 <= vf < 1' is also True for NaN, which int() below could not convert.
    if not 0.0 <= vf < 1.0:
        raise ValueError(
            f"val_fraction: expected a number in [0, 1) (the share of the text "
            f"kept for validation), got {vf}"
        )
    p = Path(path) if path is not None else tiny_shakespeare_path()
    if not p.is_file():
        what = "a directory" if p.is_dir() else "which does not exist"
        raise FileNotFoundError(f"data: expected a text file, got {str(p)!r}, {what}")
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(
            f"data: expected a UTF-8 text file, got {str(p)!r}, which is not "
            f"UTF-8 text (byte 0x{e.object[e.start]:02x} at offset {e.start})"
        ) from e
    tok = CharTokenizer.from_text(text)
    ids = torch.tensor(tok.encode(text), dtype=torch.long)
    n_train = int(len(ids) * (1.0 - vf))
    return tok, ids[:n_train], ids[n_train:]


def val_windows(ids: torch.Tensor, n_ctx: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Cut a split into consecutive windows: inputs ``ids[s:s+n]``, targets ``ids[s+1:s+n+1]``
    for ``s = 0, n, 2n, ...``; the last window is shorter and its missing targets are ``-100``
    (ignored).  Because attention is causal, padding at the *end* of a window changes nothing
    before it.  Returns ``(X, Y)`` of shape ``(W, n_ctx)``; ``(Y >= 0).sum() == len(ids) - 1``.
    """
    n_ctx = check_int(n_ctx, "n_ctx")
    if not isinstance(ids, torch.Tensor):
        raise TypeError(
            f"ids: expected a 1-D tensor of token ids, got {type(ids).__name__}"
        )
    if ids.dim() != 1 or len(ids) < 2:
        raise ValueError(
            f"ids: expected a 1-D tensor of at least 2 token ids, got shape "
            f"{tuple(ids.shape)}"
        )
    if ids.dtype.is_floating_point or ids.dtype.is_complex or ids.dtype == torch.bool:
        raise TypeError(f"ids: expected integer token ids, got dtype {ids.dtype}")
    m = len(ids) - 1
    W = -(-m // n_ctx)
    X = torch.zeros(W * n_ctx, dtype=torch.long)
    Y = torch.full((W * n_ctx,), -100, dtype=torch.long)
    X[:m] = ids[:-1]
    Y[:m] = ids[1:]
    return X.view(W, n_ctx), Y.view(W, n_ctx)


class Batches:
    """Random training windows, drawn from a seeded generator on the CPU and gathered on the
    device (the whole split lives there: no copy per step).

    Every process draws the same global batch of ``B`` starts and keeps its ``B / world``
    slice, so data parallelism computes what one process would.  ``generator``'s state is what a
    checkpoint saves to continue the same sequence of batches.
    """

    def __init__(
        self,
        train_ids: torch.Tensor,
        n_ctx: int,
        B: int,
        seed: int,
        device: torch.device,
        rank: int = 0,
        world: int = 1,
    ) -> None:
        if len(train_ids) <= n_ctx + 1:
            raise ValueError(
                f"n_ctx: expected fewer than {len(train_ids) - 1} positions (the "
                f"training split), got {n_ctx}"
            )
        self.ids = train_ids.to(device)
        self.n_ctx, self.B, self.device = n_ctx, B, device
        self.lo, self.hi = rank * (B // world), (rank + 1) * (B // world)
        self.offsets = torch.arange(n_ctx + 1, device=device)
        self.generator = torch.Generator(device="cpu")
        self.generator.manual_seed(seed)

    def next(self) -> tuple[torch.Tensor, torch.Tensor]:
        """``(x, y)``, each ``(B / world, n_ctx)``: windows and the same shifted by one."""
        starts = torch.randint(
            len(self.ids) - self.n_ctx - 1, (self.B,), generator=self.generator
        )
        starts = starts[self.lo : self.hi].to(self.device, non_blocking=True)
        chunk = self.ids[starts[:, None] + self.offsets]
        return chunk[:, :-1], chunk[:, 1:]
