"""The NumPy formulas: one small function per boxed definition of the sources.

Every function states its formula and its shapes in the docstring, in the book's
notation: ``n`` sequence length, ``V`` vocabulary size, ``H`` model width, ``A`` heads,
``D`` width per head, ``F`` feed-forward width, ``B`` batch size.  Vectors are rows; a
sequence is an ``(n, H)`` matrix.

**Indexing.** The math in the book is 1-based (tokens :math:`x_1, \\dots, x_n`,
vocabulary ids :math:`1, \\dots, V`); the code is 0-based (``x[0]`` is :math:`x_1`,
token ids are ``0 .. V-1``).  A formula's index :math:`i` is the code's ``i - 1``.

**Dtypes.** Inputs may be any float dtype (integers are converted to float64); a float32
computation stays float32.  Functions that build arrays from nothing (masks, positional
encodings) return float64.

**Masks.** The book's masks are *additive*: ``0`` where a query may attend to a key,
``-inf`` where it may not, added to the scores before the softmax.  The sources write
the masks with ``1``/``-inf`` and *multiply* them into the scores;
``kind="multiplicative"`` builds and applies that literal version so a chapter can show
why it fails (a negative score times ``-inf`` is ``+inf``, and ``0 * -inf`` is NaN).

**Checks.** A formula's body is its computation; its arguments are checked by the function
named in its ``@checked(...)`` line (defined just above it), which raises an error naming
the argument, what was expected and what came.

**Definitions.** A function that implements a boxed definition of the book names it in
its docstring (``Definition: def-11-ffn``) together with the tests that check it against
an independent reference (``Checked by: tests/...::test_...``); the book shows the
function's source under that box (:mod:`booktools.sphinx_source`).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._checks import (as_array, as_float_array, as_token_ids, check_eps, check_ffn, check_nonempty,
                      check_positive_int, check_real, check_shape, checked)

__all__ = [
    "diag", "stack", "one_hot", "embed",
    "softmax", "mask_bidirectional", "mask_autoregressive", "masked_softmax",
    "attention", "concat", "split_heads", "merge_heads",
    "multi_head_self_attention", "multi_head_self_attention_batched",
    "relu", "sigmoid", "gelu", "ffn_relu", "ffn_gelu",
    "layer_norm", "layer_norm_std_eps",
    "positional_encoding_sinusoidal",
    "cross_entropy", "cross_entropy_from_logits",
]

MASK_KINDS = ("additive", "multiplicative")
GELU_APPROXIMATIONS = ("erf", "tanh", "sigmoid")


# --------------------------------------------------------------------------------------
# Small matrices: diag, Stack, OneHot, embedding lookup


def _vector_x(x: Any) -> np.ndarray:
    return as_float_array(x, "x", ndim=1)


@checked(_vector_x)
def diag(x: Any) -> np.ndarray:
    """Diagonal matrix: ``diag(x)[i, j] = x[i]`` if ``i == j`` else ``0``.

    Shapes: ``(n,) -> (n, n)``.

    Definition: def-07-diag.
    Checked by: tests/test_formulas.py::test_diag_matches_torch
    """
    return np.diag(x)


def _stack_args(x: Any, n: Any) -> tuple[np.ndarray, int]:
    return as_float_array(x, "x", ndim=1), check_positive_int(n, "n")


@checked(_stack_args)
def stack(x: Any, n: int) -> np.ndarray:
    """Stack_n: the row vector ``x`` repeated ``n`` times, ``Stack_n(x)[i, j] = x[j]``.

    Shapes: ``(H,) -> (n, H)``.  Returns a new array (not a broadcast view), so it can
    be edited.

    Definition: def-07-stack.
    Checked by: tests/test_formulas.py::test_stack_matches_torch_expand
    """
    return np.tile(x, (n, 1))


def _one_hot_args(ids: Any, V: Any) -> tuple[np.ndarray, int]:
    V = check_positive_int(V, "V")
    return as_token_ids(ids, "ids", V), V


@checked(_one_hot_args)
def one_hot(ids: Any, V: int) -> np.ndarray:
    """OneHot: ``one_hot(ids, V)[i, j] = 1`` if ``j == ids[i]`` else ``0``.

    Shapes: ``(n,) -> (n, V)`` (any leading shape ``(...,) -> (..., V)``), float64.
    The math writes token ids as ``1 .. V``; the code uses ``0 .. V-1``.  Float ids
    (even ``2.0``) and ids outside ``0 .. V-1`` raise an error naming ``ids``.

    Definition: def-07-onehot.
    Checked by: tests/test_formulas.py::test_one_hot_matches_torch
    """
    return (ids[..., None] == np.arange(V)).astype(np.float64)


def _embed_args(ids: Any, W_e: Any) -> tuple[np.ndarray, np.ndarray]:
    W_e = as_float_array(W_e, "W_e", ndim=2)
    return as_token_ids(ids, "ids", W_e.shape[0]), W_e


@checked(_embed_args)
def embed(ids: Any, W_e: Any) -> np.ndarray:
    """Token embedding: row lookup ``W_e[ids]``, equal to ``one_hot(ids, V) @ W_e``.

    Shapes: ``ids (n,)``, ``W_e (V, H) -> (n, H)`` (any leading shape of ``ids``).
    Row ``j`` (0-based) of ``W_e`` is the embedding of token id ``j``, the math's token
    ``j + 1``.

    Definition: def-07-embedding.
    Checked by: tests/test_formulas.py::test_embed_matches_nn_embedding_and_one_hot
    """
    return W_e[ids]  # (n, H): row ids[i] of W_e


# --------------------------------------------------------------------------------------
# Softmax and masks


def _check_axis(axis: Any, ndim: int) -> int:
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"axis: expected an integer axis, got {axis!r} "
                        f"({type(axis).__name__})")
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis: expected an axis in {-ndim}..{ndim - 1} (the array "
                         f"has {ndim} dimension(s)), got {axis}")
    return int(axis)


def _softmax_args(X: Any, axis: Any = -1, name: str = "X") -> tuple[np.ndarray, int]:
    """The checks of :func:`softmax`, with errors naming the caller's argument ``name``:
    a real array of at least one dimension, without NaN or ``+inf``, with at least one
    finite value in every slice along ``axis``."""
    X = as_float_array(X, name, allow_inf=True)
    if X.ndim < 1:
        raise ValueError(f"{name}: expected an array with at least 1 dimension (a "
                         f"vector of scores), got a scalar")
    axis = _check_axis(axis, X.ndim)
    check_nonempty(X, name,
                   "a softmax needs at least one value in every slice (0/0 otherwise)")
    if np.any(X == np.inf):
        idx = tuple(int(i) for i in np.argwhere(X == np.inf)[0])
        raise ValueError(f"{name}: expected values below +inf, got +inf at index "
                         f"{idx}; softmax of a +inf score is inf/inf, undefined")
    m = np.max(X, axis=axis, keepdims=True)
    if np.any(m == -np.inf):
        idx = tuple(int(i) for i in np.argwhere(m == -np.inf)[0])
        raise ValueError(f"{name}: expected at least one finite value in every slice "
                         f"along axis {axis}, got a slice that is entirely -inf (index "
                         f"{idx} of the max); its softmax would be 0/0")
    return X, axis


@checked(_softmax_args)
def softmax(X: Any, axis: int = -1) -> np.ndarray:
    """Softmax along ``axis``: ``softmax(X)[i, j] = exp(X[i, j]) / sum_k exp(X[i, k])``.

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


def _check_kind(kind: str) -> str:
    if not isinstance(kind, str) or kind not in MASK_KINDS:
        raise ValueError(f"kind: expected one of {MASK_KINDS}, got {kind!r}")
    return kind


def _mask_args(n: Any, kind: Any = "additive") -> tuple[int, str]:
    return check_positive_int(n, "n"), _check_kind(kind)


@checked(_mask_args)
def mask_bidirectional(n: int, kind: str = "additive") -> np.ndarray:
    """Bidirectional mask Mask_BD: every query may attend to every key.

    Shapes: ``() -> (n, n)``.  ``kind="additive"`` (the default, used by the book) gives
    all zeros; ``kind="multiplicative"`` gives the sources' literal all-ones matrix.

    Definition: def-09-masks.
    Checked by: tests/test_formulas.py::test_masks_match_torch_constructions
    """
    return np.zeros((n, n)) if kind == "additive" else np.ones((n, n))


@checked(_mask_args)
def mask_autoregressive(n: int, kind: str = "additive") -> np.ndarray:
    """Autoregressive (causal) mask Mask_AR: query ``i`` may attend to keys
    ``j <= i`` only.

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


def _as_mask(mask: Any, name: str = "mask") -> np.ndarray:
    """A float mask; a boolean mask (True = may attend, as in torch) becomes 0/-inf."""
    arr = as_array(mask, name)  # names a ragged mask or one that requires grad
    if arr.dtype == bool:
        return np.where(arr, 0.0, -np.inf)
    arr = as_float_array(arr, name, allow_inf=True)
    if np.any(arr == np.inf):
        raise ValueError(f"{name}: expected values below +inf (0 or -inf, or 1 or -inf "
                         "for a multiplicative mask), got +inf")
    return arr


def _masked_softmax_args(scores: Any, mask: Any,
                         kind: Any = "additive") -> tuple[np.ndarray, np.ndarray, str]:
    kind = _check_kind(kind)
    scores = as_float_array(scores, "scores", allow_inf=True)
    mask = _as_mask(mask)
    if scores.ndim < 1:
        raise ValueError(f"scores: expected an array of shape (..., n, m), "
                         f"got {scores.shape}")
    check_nonempty(scores, "scores", "a softmax needs at least one score in every row")
    try:
        joint = np.broadcast_shapes(mask.shape, scores.shape)
    except ValueError:
        joint = None
    # a mask that enlarges the scores would invent rows or batches
    if joint != scores.shape:
        raise ValueError(f"mask: expected a shape broadcastable to the scores' shape "
                         f"{scores.shape} without enlarging it, got {mask.shape}")
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
            "scores + mask.")
    full = np.all(masked == -np.inf, axis=-1)
    if np.any(full):
        idx = tuple(int(i) for i in np.argwhere(full)[0])
        raise ValueError(f"mask: expected at least one allowed position in every row, "
                         f"got a row with every position masked (row index {idx}); its "
                         f"softmax would be 0/0")
    _softmax_args(masked, -1, "scores")


@checked(_masked_softmax_args)
def masked_softmax(scores: Any, mask: Any, kind: str = "additive") -> np.ndarray:
    """Masked softmax over the last axis.

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


# --------------------------------------------------------------------------------------
# Attention


def _attention_args(Q: Any, K: Any, V: Any, mask: Any = None, scale: Any = True,
                    kind: Any = "additive") -> tuple:
    kind = _check_kind(kind)
    Q = as_float_array(Q, "Q")
    K = as_float_array(K, "K")
    V = as_float_array(V, "V")
    for name, arr in (("Q", Q), ("K", K), ("V", V)):
        if arr.ndim < 2:
            raise ValueError(f"{name}: expected an array of shape (..., n, D), "
                             f"got {arr.shape}")
        check_nonempty(arr, name,
                       "attention needs at least one query, one key and widths >= 1")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"K: expected the same width D as Q (D={Q.shape[-1]}), "
                         f"got shape {K.shape}")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"V: expected as many rows as K (m={K.shape[-2]}), "
                         f"got shape {V.shape}")
    if not (Q.shape[:-2] == K.shape[:-2] == V.shape[:-2]):
        raise ValueError(f"K, V: expected the same leading (batch) shape as Q "
                         f"{Q.shape[:-2]}, got K {K.shape[:-2]} and V {V.shape[:-2]}")
    scale = bool(scale) if isinstance(scale, (bool, np.bool_)) else check_real(scale,
                                                                                "scale")
    if mask is not None:
        mask = _as_mask(mask)
        nm = (Q.shape[-2], K.shape[-2])
        if mask.shape[-2:] != nm:
            raise ValueError(f"mask: expected shape (n, m) = {nm} "
                             f"(queries, keys), got {mask.shape}")
    return Q, K, V, mask, scale, kind


def _check_scores(scores: np.ndarray, Q: np.ndarray, K: np.ndarray, s: float) -> None:
    """The scores ``Q K^T * s`` are finite (an overflow names ``Q, K`` or ``scale``)."""
    if not np.all(np.isfinite(scores)):
        with np.errstate(over="ignore", invalid="ignore"):
            raw = Q @ np.swapaxes(K, -1, -2)
        who = "Q, K" if not np.all(np.isfinite(raw)) else "scale"
        idx = tuple(int(i) for i in np.argwhere(~np.isfinite(scores))[0])
        raise ValueError(f"{who}: expected scores Q K^T * scale (scale={s}) to be "
                         f"finite, got {scores[idx]} at index {idx} (overflow)")


@checked(_attention_args)
def attention(Q: Any, K: Any, V: Any, mask: Any = None, scale: bool | float = True,
              kind: str = "additive") -> np.ndarray:
    """(Masked) scaled dot-product attention: ``softmax(Q K^T / sqrt(D) + mask) V``.

    Shapes: ``Q (n, D)``, ``K (m, D)``, ``V (m, D_v)``, ``mask (n, m)`` or None ->
    ``(n, D_v)``; leading batch axes are allowed (``(..., n, D)``, e.g.
    ``(B, A, n, D)``).  ``scale=True`` divides the scores by ``sqrt(D)``;
    ``scale=False`` does not (the slides' worked example); a number multiplies the
    scores by it.  ``mask`` and ``kind`` are as in :func:`masked_softmax` (additive
    0/-inf by default; ``kind="multiplicative"`` reproduces the source box
    ``softmax(Mask * Q K^T / sqrt(D)) V``, failing for scores <= 0).  ``kind`` is
    checked even without a mask; ``scale`` must be a bool or a finite number; empty
    ``Q``, ``K`` or ``V`` (no query, no key, width 0) raise ``ValueError``.

    Definition: def-08-attention, def-09-masked-attention.
    Checked by: tests/test_formulas.py::test_attention_matches_sdpa
    Checked by: tests/test_formulas.py::test_causal_attention_matches_sdpa_is_causal
    """
    if isinstance(scale, bool):  # True: the formula's 1/sqrt(D); False: unscaled
        scale = 1 / math.sqrt(Q.shape[-1]) if scale else 1.0
    with np.errstate(over="ignore", invalid="ignore"):  # _check_scores reports overflow
        scores = Q @ np.swapaxes(K, -1, -2) * scale  # (..., n, m) = Q K^T / sqrt(D)
    _check_scores(scores, Q, K, scale)
    weights = softmax(scores) if mask is None else masked_softmax(scores, mask, kind)
    return weights @ V  # (..., n, D_v)


def _concat_args(*Xs: Any) -> tuple[np.ndarray, ...]:
    if not Xs:
        raise ValueError("Xs: expected at least one array to concatenate, got none")
    arrs = [as_float_array(X, f"Xs[{k}]") for k, X in enumerate(Xs)]
    first = arrs[0]
    if first.ndim < 2:
        raise ValueError(f"Xs[0]: expected an array of shape (..., n, D), "
                         f"got {first.shape}")
    for k, arr in enumerate(arrs[1:], start=1):
        check_shape(arr, f"Xs[{k}]", list(first.shape[:-1]) + [None])
    return tuple(arrs)


@checked(_concat_args)
def concat(*Xs: Any) -> np.ndarray:
    """Concat: put matrices side by side, ``Concat(X_1..X_A)[:, (k-1)D : kD] = X_k``
    (1-based k).

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
        raise ValueError(f"A: expected a number of heads dividing the width "
                         f"{X.shape[2]}, got {A}")
    return X, A


@checked(_split_heads_args)
def split_heads(X: Any, A: int) -> np.ndarray:
    """Split the width into ``A`` heads ("Notations" Step 7.2):
    ``(B, n, A*D) -> (B, A, n, D)``.

    Column ``d`` of ``X`` becomes head ``d // D``, position ``d % D`` (0-based), i.e. a
    reshape to ``(B, n, A, D)`` followed by swapping the ``n`` and ``A`` axes.  ``A``
    must divide the width.

    Definition: def-10-split.
    Checked by:
    tests/test_formulas.py::test_split_and_merge_heads_match_torch_view_transpose
    """
    B, n, W = X.shape  # W = A*D
    return X.reshape(B, n, A, W // A).transpose(0, 2, 1, 3)  # (B, A, n, D)


def merge_heads(X: Any) -> np.ndarray:
    """Merge heads back ("Notations" Step 7.4): ``(B, A, n, D) -> (B, n, A*D)``.

    The inverse of :func:`split_heads`: swap the ``A`` and ``n`` axes, then reshape,
    which is Concat(head_1, ..., head_A) for every sequence of the batch.

    Definition: def-10-split.
    Checked by:
    tests/test_formulas.py::test_split_and_merge_heads_match_torch_view_transpose
    """
    X = as_float_array(X, "X", ndim=4)
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


def _mhsa_args(X: Any, mask: Any, W_q: Any, W_k: Any, W_v: Any, W_o: Any,
               kind: Any = "additive") -> tuple:
    kind = _check_kind(kind)
    X = as_float_array(X, "X", ndim=2)
    check_nonempty(X, "X", "self-attention needs at least one token (n >= 1) and a "
                   "width H >= 1")
    W_q, W_k, W_v, W_o = _check_mhsa_weights(X.shape[1], W_q, W_k, W_v, W_o)
    return X, mask, W_q, W_k, W_v, W_o, kind


@checked(_mhsa_args)
def multi_head_self_attention(X: Any, mask: Any, W_q: Any, W_k: Any, W_v: Any, W_o: Any,
                              kind: str = "additive") -> np.ndarray:
    """Masked multi-head self-attention, one head at a time (the box's definition):

    ``MultiHeadSA(X, Mask) = Concat(head_1, ..., head_A) W_o`` with
    ``head_i = Attention(X W_q[i], X W_k[i], X W_v[i], Mask)`` (scaled by
    ``1/sqrt(D)``).

    Shapes: ``X (n, H)``, ``mask (n, n)`` or None, ``W_q, W_k, W_v (A, H, D)``,
    ``W_o (A*D, H)`` -> ``(n, H)``.  ``W_q[i]`` (0-based) is the math's ``W^Q_{i+1}``.

    Definition: def-10-mhsa.
    Checked by: tests/test_formulas.py::test_mhsa_matches_nn_multihead_attention
    """
    heads = [attention(X @ W_q[i], X @ W_k[i], X @ W_v[i], mask, kind=kind)
             for i in range(W_q.shape[0])]
    return concat(*heads) @ W_o


def multi_head_self_attention_batched(X: Any, mask: Any, W_q: Any, W_k: Any, W_v: Any,
                                      W_o: Any, kind: str = "additive") -> np.ndarray:
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
    kind = _check_kind(kind)
    X = as_float_array(X, "X", ndim=3)
    check_nonempty(X, "X", "self-attention needs at least one sequence (B >= 1), one "
                   "token (n >= 1) and a width H >= 1")
    W_q, W_k, W_v, W_o = _check_mhsa_weights(X.shape[2], W_q, W_k, W_v, W_o)
    A, H = W_q.shape[0], X.shape[2]

    # (A, H, D) -> (H, A*D), head i in block i
    def side_by_side(W: np.ndarray) -> np.ndarray:
        return W.transpose(1, 0, 2).reshape(H, -1)

    Q = split_heads(X @ side_by_side(W_q), A)  # (B, A, n, D)
    K = split_heads(X @ side_by_side(W_k), A)
    V = split_heads(X @ side_by_side(W_v), A)
    C = attention(Q, K, V, mask, kind=kind)  # (B, A, n, D_v); the mask broadcasts
    return merge_heads(C) @ W_o


# --------------------------------------------------------------------------------------
# Activations and feed-forward networks


def _array_x(x: Any) -> np.ndarray:
    return as_float_array(x, "x")


@checked(_array_x)
def relu(x: Any) -> np.ndarray:
    """ReLU: ``max(0, x)`` elementwise.  Shapes: any -> same.

    Definition: def-03-activations.
    Checked by: tests/test_formulas.py::test_relu_and_sigmoid_match_torch
    """
    return np.maximum(x, 0)


@checked(_array_x)
def sigmoid(x: Any) -> np.ndarray:
    """Logistic sigmoid ``1 / (1 + exp(-x))`` elementwise, without overflow for
    large ``|x|``.

    Shapes: any -> same.

    Definition: def-03-activations.
    Checked by: tests/test_formulas.py::test_relu_and_sigmoid_match_torch
    """
    e = np.exp(-np.abs(x))  # <= 1: never overflows
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


# NumPy has no erf; math.erf is accurate to double precision
_erf = np.frompyfunc(math.erf, 1, 1)


def gelu(x: Any, approximation: str = "erf") -> np.ndarray:
    """GELU elementwise, ``x * Phi(x)`` with ``Phi`` the standard normal CDF.

    - ``"erf"`` (exact): ``x * (1 + erf(x / sqrt(2))) / 2``;
    - ``"tanh"`` (GPT-2's form):
      ``x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))) / 2``;
    - ``"sigmoid"`` (the sources' box): ``x * sigmoid(1.702 x)``.

    On ``[-8, 8]`` the tanh form differs from the exact one by at most about 4.7e-4 and
    the sigmoid form by about 2.0e-2 (measured in the tests).  Shapes: any -> same.

    Definition: def-11-gelu, def-11-gelu-approx.
    Checked by: tests/test_formulas.py::test_gelu_matches_torch
    Checked by: tests/test_formulas.py::test_gelu_approximation_errors_measured_on_grid
    """
    x = as_float_array(x, "x")
    if approximation == "erf":
        return x * (1 + np.asarray(_erf(x / math.sqrt(2)), dtype=x.dtype)) / 2
    if approximation == "tanh":
        return x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))) / 2
    if approximation == "sigmoid":
        return x * sigmoid(1.702 * x)
    raise ValueError(f"approximation: expected one of {GELU_APPROXIMATIONS}, "
                     f"got {approximation!r}")


@checked(check_ffn)
def ffn_relu(X: Any, W1: Any, b1: Any, W2: Any, b2: Any) -> np.ndarray:
    """Feed-forward ReLU network: ``FFN_ReLU(X) = max(0, X W1 + b1) W2 + b2``,
    row by row.

    Shapes: ``X (n, H)``, ``W1 (H, F)``, ``b1 (F,)``, ``W2 (F, H)``, ``b2 (H,)`` ->
    ``(n, H)`` (leading axes of ``X`` allowed).

    Definition: def-11-ffn.
    Checked by: tests/test_formulas.py::test_ffns_match_torch
    """
    return relu(X @ W1 + b1) @ W2 + b2  # (n, F) -> (n, H)


def _ffn_gelu_args(X: Any, W1: Any, b1: Any, W2: Any, b2: Any,
                   approximation: Any = "erf") -> tuple:
    return (*check_ffn(X, W1, b1, W2, b2), approximation)  # gelu checks approximation


@checked(_ffn_gelu_args)
def ffn_gelu(X: Any, W1: Any, b1: Any, W2: Any, b2: Any,
             approximation: str = "erf") -> np.ndarray:
    """Feed-forward GELU network: ``FFN_GELU(X) = GELU(X W1 + b1) W2 + b2``, row by row.

    ``approximation`` picks the GELU form (see :func:`gelu`; the sources' box uses
    ``"sigmoid"``, GPT-2 uses ``"tanh"``).  Shapes: ``X (n, H)``, ``W1 (H, F)``,
    ``b1 (F,)``, ``W2 (F, H)``, ``b2 (H,)`` -> ``(n, H)`` (leading axes of ``X``
    allowed).

    Definition: def-11-ffn.
    Checked by: tests/test_formulas.py::test_ffns_match_torch
    """
    return gelu(X @ W1 + b1, approximation) @ W2 + b2  # (n, F) -> (n, H)


# --------------------------------------------------------------------------------------
# Layer normalization


def _check_ln(X: Any, gamma: Any, beta: Any, eps: Any = 1e-5) -> tuple:
    X = as_float_array(X, "X")
    if X.ndim < 1:
        raise ValueError(f"X: expected an array of shape (..., H), got {X.shape}")
    check_nonempty(X, "X", "LayerNorm needs at least one row and H >= 1 columns (the "
                   "mean of an empty row is undefined)")
    gamma = as_float_array(gamma, "gamma", ndim=1)
    check_shape(gamma, "gamma", (X.shape[-1],))
    beta = as_float_array(beta, "beta", ndim=1)
    check_shape(beta, "beta", (X.shape[-1],))
    eps = check_eps(eps)
    return X, gamma, beta, eps


def _check_spread(spread: np.ndarray, eps: float, what: str) -> None:
    """With ``eps = 0`` a constant row divides 0 by 0: say so instead of
    returning NaN."""
    if eps == 0 and np.any(spread == 0):
        idx = tuple(int(i) for i in np.argwhere(spread[..., 0] == 0)[0])
        row = "X" if not idx else f"row {idx[0] if len(idx) == 1 else idx} of X"
        raise ValueError(f"eps: eps=0 is only defined for rows that are not constant, "
                         f"got {row} with {what} 0, whose normalization is 0/0; use "
                         f"eps > 0 (GPT and GPT-2 use 1e-5)")


@checked(_check_ln)
def layer_norm(X: Any, gamma: Any, beta: Any, eps: float = 1e-5) -> np.ndarray:
    """Layer normalization of each row (the box's definition, as
    ``torch.nn.LayerNorm``):

    ``LayerNorm(X)[i, j]
    = gamma[j] * (X[i, j] - mu_i) / sqrt(sigma_i^2 + eps) + beta[j]`` with ``mu_i`` the
    row mean and ``sigma_i^2`` the *biased* row variance (divide by ``H``).

    Shapes: ``X (n, H)`` (or ``(..., H)``), ``gamma (H,)``, ``beta (H,)`` -> same as
    ``X``.  ``eps = 0`` (the formula without its safety term) is allowed for rows that
    are not constant; a constant row then raises ``ValueError``, as does an empty ``X``.

    Definition: def-12-layernorm.
    Checked by: tests/test_formulas.py::test_layer_norm_matches_torch
    """
    mu = X.mean(axis=-1, keepdims=True)  # (n, 1)
    var = ((X - mu) ** 2).mean(axis=-1, keepdims=True)
    _check_spread(var, eps, "variance")
    return gamma * (X - mu) / np.sqrt(var + eps) + beta


@checked(_check_ln)
def layer_norm_std_eps(X: Any, gamma: Any, beta: Any, eps: float = 1e-5) -> np.ndarray:
    """The "Notations" code variant of layer normalization: ``eps`` added to the std,
    not the variance.

    ``gamma[j] * (X[i, j] - mu_i) / (sigma_i + eps) + beta[j]``, ``sigma_i`` the biased
    row standard deviation.  Differs from :func:`layer_norm` (and ``torch``) noticeably
    only when ``sigma_i`` is small compared with ``sqrt(eps)``.

    Shapes: ``X (n, H)`` (or ``(..., H)``), ``gamma (H,)``, ``beta (H,)`` -> same as
    ``X``.  ``eps = 0`` is allowed for rows that are not constant, as in
    :func:`layer_norm`.

    Definition: def-12-layernorm-std-eps.
    Checked by:
    tests/test_formulas.py::test_layer_norm_std_eps_matches_the_notations_code
    """
    mu = X.mean(axis=-1, keepdims=True)  # (n, 1)
    sigma = np.sqrt(((X - mu) ** 2).mean(axis=-1, keepdims=True))
    _check_spread(sigma, eps, "standard deviation")
    return gamma * (X - mu) / (sigma + eps) + beta


# --------------------------------------------------------------------------------------
# Positional encoding


def positional_encoding_sinusoidal(n: int, H: int) -> np.ndarray:
    """Sinusoidal positional encoding (Vaswani et al. 2017), float64.

    ``PE[pos, 2k] = sin(pos / 10000^(2k/H))`` and
    ``PE[pos, 2k+1] = cos(pos / 10000^(2k/H))`` with 0-based position ``pos = 0 .. n-1``
    and column ``2k`` / ``2k+1`` (0-based), exactly the paper's (and its code's)
    convention.  Row ``pos`` is the math's token ``x_{pos+1}``.  For odd ``H`` the last
    (sine) column is kept and its cosine partner dropped.

    Shapes: ``() -> (n, H)``.

    Definition: def-07-sinusoidal.
    Checked by:
    tests/test_formulas.py::test_positional_encoding_matches_vaswani_reference
    """
    n, H = check_positive_int(n, "n"), check_positive_int(H, "H")
    pos = np.arange(n)[:, None]  # (n, 1)
    two_k = np.arange(0, H, 2)  # (ceil(H/2),): the even columns 0, 2, 4, ...
    angle = pos / 10000.0 ** (two_k / H)  # (n, ceil(H/2))
    PE = np.empty((n, H))
    PE[:, 0::2] = np.sin(angle)
    PE[:, 1::2] = np.cos(angle[:, : H // 2])
    return PE


# --------------------------------------------------------------------------------------
# Cross entropy


def _cross_entropy_args(y: Any, y_hat: Any) -> tuple[np.ndarray, np.ndarray]:
    y = as_float_array(y, "y")
    y_hat = as_float_array(y_hat, "y_hat")
    if y.ndim < 1:
        raise ValueError(f"y: expected an array of shape (..., V), got {y.shape}")
    check_nonempty(y, "y",
                   "a cross entropy needs at least one row and one class (V >= 1)")
    check_shape(y_hat, "y_hat", y.shape)
    for name, arr in (("y", y), ("y_hat", y_hat)):
        if np.any((arr < 0) | (arr > 1)):
            raise ValueError(f"{name}: expected probabilities in [0, 1], got values in "
                             f"[{arr.min()}, {arr.max()}] "
                             f"(logits? use cross_entropy_from_logits)")
    sums = np.atleast_1d(y_hat.sum(axis=-1))
    # the rounding of the softmax that made y_hat, in its own precision
    tol = math.sqrt(np.finfo(y_hat.dtype).eps)
    if np.any(np.abs(sums - 1) > tol):
        bad = float(sums[np.argmax(np.abs(sums - 1))])
        raise ValueError(f"y_hat: expected a probability distribution in every row "
                         f"(summing to 1 along the last axis), got a row summing to "
                         f"{bad}")
    return y, y_hat


@checked(_cross_entropy_args)
def cross_entropy(y: Any, y_hat: Any) -> np.ndarray | float:
    """Cross entropy of a predicted distribution ``y_hat`` against a target ``y``:

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
        raise ValueError(f"reduction: expected 'mean', 'sum' or 'none', "
                         f"got {reduction!r}")
    logits = as_float_array(logits, "logits")
    if logits.ndim < 1:
        raise ValueError(f"logits: expected an array of shape (..., V), "
                         f"got {logits.shape}")
    if logits.shape[-1] == 0:
        raise ValueError(f"logits: expected at least one class (V >= 1), "
                         f"got shape {logits.shape}")
    check_nonempty(logits, "logits", "the loss of no tokens is undefined (its mean "
                   "would be 0/0)")
    targets = as_token_ids(targets, "targets", logits.shape[-1])
    if targets.shape != logits.shape[:-1]:
        raise ValueError(f"targets: expected shape {logits.shape[:-1]} (one id per row "
                         f"of logits {logits.shape}), got {targets.shape}")
    return logits, targets, reduction


@checked(_from_logits_args)
def cross_entropy_from_logits(logits: Any, targets: Any,
                              reduction: str = "mean") -> np.ndarray | float:
    """Cross entropy of token ids under ``softmax(logits)``, computed
    stably (log-sum-exp):

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
