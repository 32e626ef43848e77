"""Softmax and attention masks (chapters 2 and 9): the stable softmax, the bidirectional and
autoregressive masks, the masked softmax (additive, or the sources' multiplicative form).

A module of the package :mod:`formulated.formulas` (whose face exports every name and
states the conventions, masks included)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import (
    as_float_array,
    as_mask,
    check_int,
    check_mask_kind,
    check_nonempty,
    check_positive_int,
    checked,
)

__all__ = ["softmax", "mask_bidirectional", "mask_autoregressive", "masked_softmax"]


# --------------------------------------------------------------------------------------
# Softmax and masks


def _check_axis(axis: Any, ndim: int) -> int:
    check_int(axis, "axis", None, "an integer axis")
    return check_int(
        axis,
        "axis",
        -ndim,
        f"an axis in {-ndim}..{ndim - 1} (the array has {ndim} dimension(s))",
        maximum=ndim - 1,
    )


def _softmax_args(X: Any, axis: Any = -1, name: str = "X") -> tuple[np.ndarray, int]:
    """The checks of :func:`softmax`, with errors naming the caller's argument ``name``:
    a real array of at least one dimension, without NaN or ``+inf``, with at least one
    finite value in every slice along ``axis``."""
    X = as_float_array(X, name, allow_inf=True)
    if X.ndim < 1:
        raise ValueError(
            f"{name}: expected an array with at least 1 dimension (a "
            f"vector of scores), got a scalar"
        )
    axis = _check_axis(axis, X.ndim)
    check_nonempty(
        X, name, "a softmax needs at least one value in every slice (0/0 otherwise)"
    )
    if np.any(X == np.inf):
        idx = tuple(int(i) for i in np.argwhere(X == np.inf)[0])
        raise ValueError(
            f"{name}: expected values below +inf, got +inf at index "
            f"{idx}; softmax of a +inf score is inf/inf, undefined"
        )
    m = np.max(X, axis=axis, keepdims=True)
    if np.any(m == -np.inf):
        idx = tuple(int(i) for i in np.argwhere(m == -np.inf)[0])
        raise ValueError(
            f"{name}: expected at least one finite value in every slice "
            f"along axis {axis}, got a slice that is entirely -inf (index "
            f"{idx} of the max); its softmax would be 0/0"
        )
    return X, axis


@checked(_softmax_args)
def softmax(X, axis=-1):
    """Softmax: ``softmax(X)[i, j] = exp(X[i, j]) / sum_k exp(X[i, k])``.

    Shapes: any, e.g. ``(n, H) -> (n, H)``; each slice along ``axis`` sums to 1.
    Numerically stable: the row maximum is subtracted first (softmax is shift
    invariant), so ``softmax([1000, 1001])`` is finite.  ``-inf`` entries get
    probability 0.  A row that is entirely ``-inf`` has no softmax (0/0) and raises
    ``ValueError``; so do NaN and ``+inf``, an empty array (nothing to normalize) and an
    ``axis`` that ``X`` does not have.

    Definition: def-02-softmax.
    Checked by: tests/test_formulas.py::test_softmax_matches_torch
    Checked by: tests/test_formulas.py::test_softmax_is_stable_for_large_inputs
    """
    # exp(X - max) / sum exp(X - max) is the same softmax, and exp never overflows
    E = np.exp(X - X.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def _mask_args(n: Any, kind: Any = "additive") -> tuple[int, str]:
    return check_positive_int(n, "n"), check_mask_kind(kind)


@checked(_mask_args)
def mask_bidirectional(n, kind="additive"):
    """Bidirectional mask Mask_BD ``(n, n)``: every query may attend to every key.

    Shapes: ``() -> (n, n)``.  ``kind="additive"`` (the default, used by the book) gives
    all zeros; ``kind="multiplicative"`` gives the sources' literal all-ones matrix.

    Definition: def-09-masks.
    Checked by: tests/test_formulas.py::test_masks_match_torch_constructions
    """
    return np.zeros((n, n)) if kind == "additive" else np.ones((n, n))


@checked(_mask_args)
def mask_autoregressive(n, kind="additive"):
    """Autoregressive mask Mask_AR ``(n, n)``: query ``i`` sees keys ``j <= i``.

    Shapes: ``() -> (n, n)``.  ``kind="additive"`` (the default): ``0`` where
    ``j <= i``, ``-inf`` where ``j > i``, to be *added* to the scores.
    ``kind="multiplicative"``: the sources' literal ``1`` where ``j <= i``, ``-inf``
    where ``j > i``, meant to be multiplied into the scores -- which is wrong for scores
    ``<= 0`` (see :func:`masked_softmax`).

    Definition: def-09-masks.
    Checked by: tests/test_formulas.py::test_masks_match_torch_constructions
    """
    # j > i: strictly above the diagonal
    future = np.triu(np.ones((n, n), dtype=bool), k=1)
    allowed = 0.0 if kind == "additive" else 1.0
    return np.where(future, -np.inf, allowed)


def _masked_softmax_args(
    scores: Any, mask: Any, kind: Any = "additive"
) -> tuple[np.ndarray, np.ndarray, str]:
    kind = check_mask_kind(kind)
    scores = as_float_array(scores, "scores", allow_inf=True)
    mask = as_mask(mask)
    if scores.ndim < 1:
        raise ValueError(
            f"scores: expected an array of shape (..., n, m), got {scores.shape}"
        )
    check_nonempty(scores, "scores", "a softmax needs at least one score in every row")
    try:
        joint = np.broadcast_shapes(mask.shape, scores.shape)
    except ValueError:
        joint = None
    # a mask that enlarges the scores would invent rows or batches
    if joint != scores.shape:
        raise ValueError(
            f"mask: expected a shape broadcastable to the scores' shape "
            f"{scores.shape} without enlarging it, got {mask.shape}"
        )
    return scores, mask, kind


def _check_masked(masked: np.ndarray, scores: np.ndarray, kind: str) -> None:
    """The masked scores can be normalized: no NaN or ``+inf`` from a multiplicative
    mask, at least one allowed position in every row, then :func:`softmax`'s checks
    (naming ``scores``)."""
    bad = np.isnan(masked) | (masked == np.inf)
    if kind == "multiplicative" and np.any(bad):
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        s = np.broadcast_to(scores, masked.shape)[idx]
        raise ValueError(
            f"mask: the multiplicative mask gives mask * scores = {masked[idx]} at "
            f"index {idx} (score {s} times -inf); a 1/-inf mask only blocks "
            "positive scores. Use the additive mask (kind='additive'): "
            "scores + mask."
        )
    full = np.all(masked == -np.inf, axis=-1)
    if np.any(full):
        idx = tuple(int(i) for i in np.argwhere(full)[0])
        raise ValueError(
            f"mask: expected at least one allowed position in every row, "
            f"got a row with every position masked (row index {idx}); its "
            f"softmax would be 0/0"
        )
    _softmax_args(masked, -1, "scores")


@checked(_masked_softmax_args)
def masked_softmax(scores, mask, kind="additive"):
    """Masked softmax over the last axis: ``(..., n, m) -> (..., n, m)``.

    ``kind="additive"`` (default): ``softmax(scores + mask)`` with ``mask`` 0 (attend) /
    -inf (blocked), so blocked positions get weight exactly 0.  A boolean ``mask`` means
    True = may attend (as in ``torch``).  ``kind="multiplicative"``: the sources'
    literal ``softmax(mask * scores)`` with a 1/-inf mask.  It only works when every
    blocked score is positive: a negative score times -inf is +inf and ``0 * -inf`` is
    NaN, and this function then raises ``ValueError`` saying so (``torch`` would return
    NaN silently).

    Shapes: ``scores (..., n, m)``, ``mask`` broadcastable to it (usually ``(n, m)``) ->
    ``(..., n, m)``.  The mask may not enlarge the result: ``scores (3, 1)`` with a
    ``(3, 3)`` mask, or ``(n, m)`` scores with a ``(B, n, m)`` mask, raise
    ``ValueError``.  A row whose every position is masked raises ``ValueError`` (its
    softmax would be 0/0); so do empty scores.

    Definition: def-09-masked-attention.
    Checked by: tests/test_formulas.py::test_masked_softmax_matches_torch
    """
    if kind == "additive":
        masked = scores + mask  # -inf where blocked
    else:
        with np.errstate(invalid="ignore"):  # 0 * -inf = NaN: _check_masked says so
            masked = mask * scores
    _check_masked(masked, scores, kind)
    return softmax(masked, axis=-1)  # (..., n, m)
