"""The ``book`` preset's run as shipped with the book, for the live pages of ``make live``.

Chapter 18 trains the ``book`` preset while the book is built, and its page shows that run.  A
reader who makes the page live (``make live``, then Live Code) would otherwise wait for the same
training again before the page's later cells have a model; there, the chapter loads this run
instead (unless the reader asks to retrain).  The run is deterministic (one thread, seed 0), so
the file holds the model the build trained: the same weights, losses and samples.

``make live`` starts its Jupyter server with ``FORMULATED_LIVE=1`` in the environment
(:data:`LIVE_ENV`); its kernels inherit it, and :func:`is_live` reads it.  The static build never
sets it, so the book keeps training for real.

``data/checkpoints/book_run.pth`` is an ordinary checkpoint of :func:`~.loop.train` (optimizer
state included); ``sh data/checkpoints/make_book_run.sh`` rewrites it.
"""

from __future__ import annotations

import os

from ..data import DATA_DIR
from ..models.trainable import count_parameters
from .checkpoint import CheckpointError, load_checkpoint
from .config import TrainConfig
from .loop import TrainResult

__all__ = ["LIVE_ENV", "BOOK_RUN", "is_live", "load_run"]

#: The environment variable ``make live`` sets to ``"1"`` for its kernels.
LIVE_ENV = "FORMULATED_LIVE"

#: The ``book`` preset's run, trained by ``data/checkpoints/make_book_run.sh``.
BOOK_RUN = DATA_DIR / "checkpoints" / "book_run.pth"


def is_live() -> bool:
    """Whether this kernel serves a live page of ``make live`` (``FORMULATED_LIVE=1``)."""
    return os.environ.get(LIVE_ENV) == "1"


def load_run(path: str | os.PathLike = BOOK_RUN) -> TrainResult:
    """The :class:`~.loop.TrainResult` of a finished run, read from its checkpoint instead of
    training: model (on the CPU, in eval mode), tokenizer, configuration, history, step and
    last validation loss as the run recorded them.

    The checkpoint keeps no clock of its own, so ``seconds`` is the time of the run's last
    evaluation (seconds since its ``train`` call began, on the machine that trained it) and
    ``tokens_per_s`` the tokens of every step over that time less the evaluations (start-up
    included, so a little below the steady rate :func:`~.loop.train` reports).
    """
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise TypeError(
            f"path: expected a checkpoint file or run directory (str or "
            f"os.PathLike), got {type(path).__name__}"
        )
    model, tok, ck = load_checkpoint(path)
    cfg = TrainConfig.from_dict(ck["config"])
    h = ck["history"]
    if not h.get("val_step") or h["val_step"][-1] != ck["step"]:
        raise CheckpointError(
            f"checkpoint: {str(path)!r} does not end with an evaluation "
            f"at its step {ck['step']}: not a finished run"
        )
    seconds = float(h["val_seconds"][-1])
    training = max(seconds - float(h["eval_seconds"][-1]), 1e-9)
    return TrainResult(
        model=model,
        tokenizer=tok,
        config=cfg,
        history=h,
        step=int(ck["step"]),
        val_loss=float(h["val_loss"][-1]),
        seconds=seconds,
        tokens_per_s=ck["step"] * cfg.B * cfg.model.n_ctx / training,
        device="cpu",
        out_dir=None,
        n_params=count_parameters(model),
    )
