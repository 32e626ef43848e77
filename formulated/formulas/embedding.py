"""Embeddings and positions (chapter 7): the small matrices diag and Stack, the one-hot
vectors and the embedding lookup, the sinusoidal positional encoding.

A module of the package :mod:`formulated.formulas` (whose face exports every name and
states the conventions: notation, 1-based math and 0-based code, dtypes)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import as_float_array, as_token_ids, check_positive_int, checked

__all__ = ["diag", "stack", "one_hot", "embed", "positional_encoding_sinusoidal"]


# --------------------------------------------------------------------------------------
# Small matrices: diag, Stack, OneHot, embedding lookup


def _vector_x(x: Any) -> np.ndarray:
    return as_float_array(x, "x", ndim=1)


@checked(_vector_x)
def diag(x):
    """Diagonal matrix ``diag(x)[i, i] = x[i]``, 0 elsewhere: ``(n,) -> (n, n)``.

    Definition: def-07-diag.
    Checked by: tests/test_formulas.py::test_diag_matches_torch
    """
    return np.diag(x)


def _stack_args(x: Any, n: Any) -> tuple[np.ndarray, int]:
    return as_float_array(x, "x", ndim=1), check_positive_int(n, "n")


@checked(_stack_args)
def stack(x, n):
    """Stack_n: the row ``x`` repeated ``n`` times, ``Stack_n(x)[i, j] = x[j]``.

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
def one_hot(ids, V):
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
def embed(ids, W_e):
    """Token embedding: row lookup ``W_e[ids]``, equal to ``one_hot(ids, V) @ W_e``.

    Shapes: ``ids (n,)``, ``W_e (V, H) -> (n, H)`` (any leading shape of ``ids``).
    Row ``j`` (0-based) of ``W_e`` is the embedding of token id ``j``, the math's token
    ``j + 1``.

    Definition: def-07-embedding.
    Checked by: tests/test_formulas.py::test_embed_matches_nn_embedding_and_one_hot
    """
    return W_e[ids]  # (n, H): row ids[i] of W_e


# --------------------------------------------------------------------------------------
# Positional encoding


def _pe_args(n: Any, H: Any) -> tuple[int, int]:
    return check_positive_int(n, "n"), check_positive_int(H, "H")


@checked(_pe_args)
def positional_encoding_sinusoidal(n, H):
    """Sinusoidal positional encoding (Vaswani et al. 2017): ``(n, H)``, float64.

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
    pos = np.arange(n)[:, None]  # (n, 1)
    two_k = np.arange(0, H, 2)  # (ceil(H/2),): the even columns 0, 2, 4, ...
    angle = pos / 10000.0 ** (two_k / H)  # (n, ceil(H/2))
    PE = np.empty((n, H))
    PE[:, 0::2] = np.sin(angle)
    PE[:, 1::2] = np.cos(angle[:, : H // 2])
    return PE
