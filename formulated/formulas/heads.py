"""Attention and its heads (chapters 8-10): scaled dot-product attention, Concat, the split
and merge of heads, multi-head self-attention one head at a time and batched.

A module of the package :mod:`formulated.formulas` (whose face exports every name and
states the conventions)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._checks import (
    as_float_array,
    as_mask,
    check_mask_kind,
    check_nonempty,
    check_positive_int,
    check_real,
    check_shape,
    checked,
)
from .masking import masked_softmax, softmax

__all__ = [
    "attention",
    "concat",
    "split_heads",
    "merge_heads",
    "multi_head_self_attention",
    "multi_head_self_attention_batched",
]


# --------------------------------------------------------------------------------------
# Attention


def _attention_args(
    Q: Any, K: Any, V: Any, mask: Any = None, scale: Any = None, kind: Any = "additive"
) -> tuple:
    kind = check_mask_kind(kind)
    Q = as_float_array(Q, "Q")
    K = as_float_array(K, "K")
    V = as_float_array(V, "V")
    for name, arr in (("Q", Q), ("K", K), ("V", V)):
        if arr.ndim < 2:
            raise ValueError(
                f"{name}: expected an array of shape (..., n, D), got {arr.shape}"
            )
        check_nonempty(
            arr, name, "attention needs at least one query, one key and widths >= 1"
        )
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(
            f"K: expected the same width D as Q (D={Q.shape[-1]}), got shape {K.shape}"
        )
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(
            f"V: expected as many rows as K (m={K.shape[-2]}), got shape {V.shape}"
        )
    if not (Q.shape[:-2] == K.shape[:-2] == V.shape[:-2]):
        raise ValueError(
            f"K, V: expected the same leading (batch) shape as Q "
            f"{Q.shape[:-2]}, got K {K.shape[:-2]} and V {V.shape[:-2]}"
        )
    scale = None if scale is None else check_real(scale, "scale")
    _check_no_overflow(Q, K, scale)
    if mask is not None:
        mask = as_mask(mask)
        nm = (Q.shape[-2], K.shape[-2])
        if mask.shape[-2:] != nm:
            raise ValueError(
                f"mask: expected shape (n, m) = {nm} (queries, keys), got {mask.shape}"
            )
    return Q, K, V, mask, scale, kind


def _check_no_overflow(Q: np.ndarray, K: np.ndarray, scale: float | None) -> None:
    """The scores ``Q K^T * scale`` of :func:`attention` are finite: an overflow is a
    ``ValueError`` naming ``Q, K`` (the product overflows) or ``scale``.

    By Cauchy-Schwarz every score, and every partial sum of it, is at most
    ``max|q| max|k|`` in size, so the product is computed here only when that bound
    (times ``scale``) is not safely below the largest float."""
    s = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    limit = np.finfo(np.float64).max / 4
    with np.errstate(over="ignore", invalid="ignore"):
        bound = np.linalg.norm(Q, axis=-1).max() * np.linalg.norm(K, axis=-1).max()
        if bound < limit and bound * abs(s) < limit:
            return
        raw = Q @ np.swapaxes(K, -1, -2)
        scores = raw * s
    if np.all(np.isfinite(scores)):
        return
    who = "Q, K" if not np.all(np.isfinite(raw)) else "scale"
    idx = tuple(int(i) for i in np.argwhere(~np.isfinite(scores))[0])
    raise ValueError(
        f"{who}: expected scores Q K^T * scale (scale={s}) to be "
        f"finite, got {scores[idx]} at index {idx} (overflow)"
    )


@checked(_attention_args)
def attention(Q, K, V, mask=None, scale=None, kind="additive"):
    """Attention ``softmax(Q K^T / sqrt(D) + mask) V``: Q ``(n, D)`` -> ``(n, D_v)``.

    (Masked) scaled dot-product attention.

    Shapes: ``Q (n, D)``, ``K (m, D)``, ``V (m, D_v)``, ``mask (n, m)`` or None ->
    ``(n, D_v)``; leading batch axes are allowed (``(..., n, D)``, e.g.
    ``(B, A, n, D)``).  ``scale`` multiplies the scores: ``None`` (the default) is the
    formula's ``1/sqrt(D)``, ``1.0`` leaves them unscaled (the slides' worked example),
    any other finite number is used as given.  ``mask`` and ``kind`` are as in
    :func:`masked_softmax` (additive 0/-inf by default; ``kind="multiplicative"``
    reproduces the source box ``softmax(Mask * Q K^T / sqrt(D)) V``, failing for scores
    <= 0).  ``kind`` is checked even without a mask; empty ``Q``, ``K`` or ``V`` (no
    query, no key, width 0) raise ``ValueError``, and so do scores that overflow (the
    message names ``Q, K`` or ``scale``).

    Definition: def-08-attention, def-09-masked-attention.
    Checked by: tests/test_formulas.py::test_attention_matches_sdpa
    Checked by: tests/test_formulas.py::test_causal_attention_matches_sdpa_is_causal
    """
    scale = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale  # 1/sqrt(D)
    scores = Q @ np.swapaxes(K, -1, -2) * scale  # (..., n, m) = Q K^T / sqrt(D)
    weights = softmax(scores) if mask is None else masked_softmax(scores, mask, kind)
    return weights @ V  # (..., n, D_v)


def _concat_args(*Xs: Any) -> tuple[np.ndarray, ...]:
    if not Xs:
        raise ValueError("Xs: expected at least one array to concatenate, got none")
    arrs = [as_float_array(X, f"Xs[{k}]") for k, X in enumerate(Xs)]
    first = arrs[0]
    if first.ndim < 2:
        raise ValueError(
            f"Xs[0]: expected an array of shape (..., n, D), got {first.shape}"
        )
    for k, arr in enumerate(arrs[1:], start=1):
        check_shape(arr, f"Xs[{k}]", list(first.shape[:-1]) + [None])
    return tuple(arrs)


@checked(_concat_args)
def concat(*Xs):
    """Concat: matrices side by side, ``Concat(X_1..X_A)[:, (k-1)D : kD] = X_k``.

    ``k`` is 1-based here.

    Shapes: ``A`` arrays ``(n, D)`` -> ``(n, A*D)`` (widths may differ; leading axes
    allowed).  In code, head ``k`` (0-based) fills columns ``k*D .. (k+1)*D - 1``.

    Definition: def-10-concat.
    Checked by: tests/test_formulas.py::test_concat_matches_torch_cat
    """
    return np.concatenate(Xs, axis=-1)  # (..., n, D_1 + ... + D_A)


def _split_heads_args(X: Any, A: Any) -> tuple[np.ndarray, int]:
    X = as_float_array(X, "X", ndim=3)
    A = check_positive_int(A, "A")
    if X.shape[2] % A:
        raise ValueError(
            f"A: expected a number of heads dividing the width {X.shape[2]}, got {A}"
        )
    return X, A


@checked(_split_heads_args)
def split_heads(X, A):
    """Split the width into ``A`` heads: ``(B, n, A*D) -> (B, A, n, D)``.

    As in "Notations" Step 7.2.

    Column ``d`` of ``X`` becomes head ``d // D``, position ``d % D`` (0-based), i.e. a
    reshape to ``(B, n, A, D)`` followed by swapping the ``n`` and ``A`` axes.  ``A``
    must divide the width.

    Definition: def-10-split.
    Checked by:
    tests/test_formulas.py::test_split_and_merge_heads_match_torch_view_transpose
    """
    B, n, W = X.shape  # W = A*D
    return X.reshape(B, n, A, W // A).transpose(0, 2, 1, 3)  # (B, A, n, D)


def _heads_x(X: Any) -> np.ndarray:
    return as_float_array(X, "X", ndim=4)


@checked(_heads_x)
def merge_heads(X):
    """Merge heads back ("Notations" Step 7.4): ``(B, A, n, D) -> (B, n, A*D)``.

    The inverse of :func:`split_heads`: swap the ``A`` and ``n`` axes, then reshape,
    which is Concat(head_1, ..., head_A) for every sequence of the batch.

    Definition: def-10-split.
    Checked by:
    tests/test_formulas.py::test_split_and_merge_heads_match_torch_view_transpose
    """
    B, A, n, D = X.shape
    return X.transpose(0, 2, 1, 3).reshape(B, n, A * D)


def _check_mhsa_weights(H: int, W_q: Any, W_k: Any, W_v: Any, W_o: Any):
    W_q = as_float_array(W_q, "W_q", ndim=3)
    A, _, D = W_q.shape
    check_shape(W_q, "W_q", (A, H, D))
    W_k = as_float_array(W_k, "W_k", ndim=3)
    check_shape(W_k, "W_k", (A, H, D))
    W_v = as_float_array(W_v, "W_v", ndim=3)
    check_shape(W_v, "W_v", (A, H, None))
    W_o = as_float_array(W_o, "W_o", ndim=2)
    check_shape(W_o, "W_o", (A * W_v.shape[2], H))
    return W_q, W_k, W_v, W_o


def _mhsa_args(
    X: Any, mask: Any, W_q: Any, W_k: Any, W_v: Any, W_o: Any, kind: Any = "additive"
) -> tuple:
    kind = check_mask_kind(kind)
    X = as_float_array(X, "X", ndim=2)
    check_nonempty(
        X, "X", "self-attention needs at least one token (n >= 1) and a width H >= 1"
    )
    W_q, W_k, W_v, W_o = _check_mhsa_weights(X.shape[1], W_q, W_k, W_v, W_o)
    return X, mask, W_q, W_k, W_v, W_o, kind


@checked(_mhsa_args)
def multi_head_self_attention(X, mask, W_q, W_k, W_v, W_o, kind="additive"):
    """Masked multi-head self-attention, one head at a time: ``(n, H) -> (n, H)``.

    The box's definition:

    ``MultiHeadSA(X, Mask) = Concat(head_1, ..., head_A) W_o`` with
    ``head_i = Attention(X W_q[i], X W_k[i], X W_v[i], Mask)`` (scaled by
    ``1/sqrt(D)``).

    Shapes: ``X (n, H)``, ``mask (n, n)`` or None, ``W_q, W_k, W_v (A, H, D)``,
    ``W_o (A*D, H)`` -> ``(n, H)``.  ``W_q[i]`` (0-based) is the math's ``W^Q_{i+1}``.

    Definition: def-10-mhsa.
    Checked by: tests/test_formulas.py::test_mhsa_matches_nn_multihead_attention
    """
    heads = [
        attention(X @ W_q[i], X @ W_k[i], X @ W_v[i], mask, kind=kind)
        for i in range(W_q.shape[0])
    ]
    return concat(*heads) @ W_o


def _mhsa_batched_args(
    X: Any, mask: Any, W_q: Any, W_k: Any, W_v: Any, W_o: Any, kind: Any = "additive"
) -> tuple:
    kind = check_mask_kind(kind)
    X = as_float_array(X, "X", ndim=3)
    check_nonempty(
        X,
        "X",
        "self-attention needs at least one sequence (B >= 1), one "
        "token (n >= 1) and a width H >= 1",
    )
    W_q, W_k, W_v, W_o = _check_mhsa_weights(X.shape[2], W_q, W_k, W_v, W_o)
    return X, mask, W_q, W_k, W_v, W_o, kind


@checked(_mhsa_batched_args)
def multi_head_self_attention_batched(
    X: Any, mask: Any, W_q: Any, W_k: Any, W_v: Any, W_o: Any, kind: str = "additive"
) -> np.ndarray:
    """Multi-head self-attention for a batch, all heads at once
    ("Notations" Steps 7.1-7.4).

    Same weights and result as :func:`multi_head_self_attention`, applied to each
    sequence: 7.1 project with the heads' matrices side by side,
    ``Q = X [W_q[0] ... W_q[A-1]]`` ``(B, n, A*D)``; 7.2 :func:`split_heads` to
    ``(B, A, n, D)``; 7.3 attention on every (sequence, head) pair at once;
    7.4 :func:`merge_heads` to ``(B, n, A*D)`` and project by ``W_o``.

    Shapes: ``X (B, n, H)``, ``mask (n, n)`` or None, ``W_q, W_k, W_v (A, H, D)``,
    ``W_o (A*D, H)`` -> ``(B, n, H)``.
    """
    A, H = W_q.shape[0], X.shape[2]

    # (A, H, D) -> (H, A*D), head i in block i
    def side_by_side(W: np.ndarray) -> np.ndarray:
        return W.transpose(1, 0, 2).reshape(H, -1)

    Q = split_heads(X @ side_by_side(W_q), A)  # (B, A, n, D)
    K = split_heads(X @ side_by_side(W_k), A)
    V = split_heads(X @ side_by_side(W_v), A)
    C = attention(Q, K, V, mask, kind=kind)  # (B, A, n, D_v); the mask broadcasts
    return merge_heads(C) @ W_o
