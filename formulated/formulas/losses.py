"""The losses (chapters 17 and 18): cross entropy of a predicted distribution, and of token
ids under the softmax of logits (log-sum-exp).

A module of the package :mod:`formulated.formulas` (whose face exports every name and
states the conventions)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._checks import as_float_array, as_token_ids, check_nonempty, check_shape, checked

__all__ = ["cross_entropy", "cross_entropy_from_logits"]


# --------------------------------------------------------------------------------------
# Cross entropy


def _cross_entropy_args(y: Any, y_hat: Any) -> tuple[np.ndarray, np.ndarray]:
    y = as_float_array(y, "y")
    y_hat = as_float_array(y_hat, "y_hat")
    if y.ndim < 1:
        raise ValueError(f"y: expected an array of shape (..., V), got {y.shape}")
    check_nonempty(
        y, "y", "a cross entropy needs at least one row and one class (V >= 1)"
    )
    check_shape(y_hat, "y_hat", y.shape)
    for name, arr in (("y", y), ("y_hat", y_hat)):
        if np.any((arr < 0) | (arr > 1)):
            raise ValueError(
                f"{name}: expected probabilities in [0, 1], got values in "
                f"[{arr.min()}, {arr.max()}] "
                f"(logits? use cross_entropy_from_logits)"
            )
    sums = np.atleast_1d(y_hat.sum(axis=-1))
    # the rounding of the softmax that made y_hat, in its own precision
    tol = math.sqrt(np.finfo(y_hat.dtype).eps)
    if np.any(np.abs(sums - 1) > tol):
        bad = float(sums[np.argmax(np.abs(sums - 1))])
        raise ValueError(
            f"y_hat: expected a probability distribution in every row "
            f"(summing to 1 along the last axis), got a row summing to "
            f"{bad}"
        )
    return y, y_hat


@checked(_cross_entropy_args)
def cross_entropy(y, y_hat):
    """Cross entropy of ``y_hat`` against ``y``, in nats: ``(..., V) -> (...)``.

    ``y_hat`` is the predicted distribution, ``y`` the target:

    ``CrossEntropy(y, y_hat) = -sum_j y[j] * log(y_hat[j])`` (natural log, so in nats).
    Terms with ``y[j] = 0`` count as 0 (the convention ``0 log 0 = 0``); if ``y[j] > 0``
    and ``y_hat[j] = 0`` the result is ``+inf``, which is the true value.

    Shapes: ``y, y_hat (V,) -> ()`` as a float, or ``(..., V) -> (...)`` for many rows.
    ``y`` is a one-hot or probability vector; both must have entries in ``[0, 1]``.

    Definition: def-17-loss.
    Checked by: tests/test_formulas.py::test_cross_entropy_matches_torch
    """
    with np.errstate(divide="ignore"):  # log(0) = -inf is meant where y > 0
        log_y_hat = np.log(np.where(y > 0, y_hat, 1.0))  # y = 0 terms: 0 * log 1 = 0
    out = -(y * log_y_hat).sum(axis=-1)
    return float(out) if out.ndim == 0 else out


def _from_logits_args(logits: Any, targets: Any, reduction: Any = "mean") -> tuple:
    if not isinstance(reduction, str) or reduction not in ("mean", "sum", "none"):
        raise ValueError(
            f"reduction: expected 'mean', 'sum' or 'none', got {reduction!r}"
        )
    logits = as_float_array(logits, "logits")
    if logits.ndim < 1:
        raise ValueError(
            f"logits: expected an array of shape (..., V), got {logits.shape}"
        )
    if logits.shape[-1] == 0:
        raise ValueError(
            f"logits: expected at least one class (V >= 1), got shape {logits.shape}"
        )
    check_nonempty(
        logits, "logits", "the loss of no tokens is undefined (its mean would be 0/0)"
    )
    targets = as_token_ids(targets, "targets", logits.shape[-1])
    if targets.shape != logits.shape[:-1]:
        raise ValueError(
            f"targets: expected shape {logits.shape[:-1]} (one id per row "
            f"of logits {logits.shape}), got {targets.shape}"
        )
    return logits, targets, reduction


@checked(_from_logits_args)
def cross_entropy_from_logits(logits, targets, reduction="mean"):
    """Cross entropy of token ids under ``softmax(logits)``: ``(n, V), (n,) -> ()``.

    Computed stably (log-sum-exp):

    ``loss_i = -log softmax(logits_i)[t_i] = logsumexp(logits_i) - logits_i[t_i]``, with
    the maximum subtracted inside the log-sum-exp so that large logits do not overflow.

    Shapes: ``logits (n, V)`` (or ``(..., V)``), ``targets (n,)`` integer ids in
    ``0 .. V-1`` (the math's ``1 .. V``) -> the mean over positions
    (``reduction="mean"``, like ``torch.nn.functional.cross_entropy``), the sum
    (``"sum"``) or ``(n,)`` (``"none"``).  A batch, ``logits (B, n, V)`` and
    ``targets (B, n)``, gives the mean over all ``B n``.

    Definition: def-18-batch-loss.
    Checked by: tests/test_formulas.py::test_cross_entropy_from_logits_matches_torch
    """
    m = logits.max(axis=-1, keepdims=True)
    lse = (m + np.log(np.exp(logits - m).sum(axis=-1, keepdims=True)))[..., 0]
    picked = np.take_along_axis(logits, targets[..., None], axis=-1)[..., 0]
    losses = lse - picked
    if reduction == "none":
        return losses
    if reduction == "mean":
        return float(losses.mean())
    return float(losses.sum())  # reduction == "sum", checked above
