"""Turning next-token logits into the distribution a sampler draws from (chapter 19).

Three filters, applied in this order (the order of ``transformers``' ``generate``):

* temperature ``T`` — divide the logits by ``T`` (Definition: def-19-temperature);
* top-k — keep the ``k`` largest logits (Definition: def-19-top-k);
* top-p, the *nucleus* — keep the smallest set of most probable tokens whose probability
  adds up to at least ``p`` (Definition: def-19-top-p).

A removed token gets the logit ``-inf``, so the softmax gives it probability 0 and
renormalizes the rest.  Every function takes logits ``(V,)`` or a batch ``(..., V)``, as a
NumPy array or anything it reads as one (a list, a tensor without gradient), and returns a
NumPy array; the filters act on the last axis.  These are the book's formulas, in NumPy like
every formula; the sampler of the trainable model computes its own filter in torch
(:func:`formulated.models.trainable.shape_distribution`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import formulas
from ._checks import as_array, check_int, check_real_type, checked

__all__ = [
    "apply_temperature",
    "top_k_mask",
    "top_p_mask",
    "filter_logits",
    "sampling_distribution",
]


def _check_logits(z: Any, name: str = "z") -> np.ndarray:
    """A real array of at least one logit on the last axis, without NaN, as float64."""
    arr = as_array(z, name)  # a ragged nested list, a tensor that requires grad: named
    if (
        arr.dtype == bool
        or not np.issubdtype(arr.dtype, np.number)
        or np.issubdtype(arr.dtype, np.complexfloating)
    ):
        raise TypeError(f"{name}: expected real numbers, got dtype {arr.dtype}")
    z = arr.astype(np.float64)
    if z.ndim == 0 or z.shape[-1] == 0:
        raise ValueError(
            f"{name}: expected shape (..., V) with V >= 1, got {tuple(z.shape)}"
        )
    if np.isnan(z).any():
        raise ValueError(
            f"{name}: expected no NaN, got NaN among {tuple(z.shape)} logits"
        )
    return z


def _temperature_args(z: Any, temperature: Any) -> tuple[Any, float]:
    z = _check_logits(z)
    T = check_real_type(temperature, "temperature", "a number > 0")
    if not (T > 0 and math.isfinite(T)):
        raise ValueError(
            f"temperature: expected a finite number > 0 (T = 0 is greedy "
            f"decoding, an argmax, not a division), got {temperature!r}"
        )
    return z, T


def _check_k(k: Any, name: str = "k") -> int:
    return check_int(k, name, 1, "an integer >= 1")


def _check_p(p: Any, name: str = "p") -> float:
    p = check_real_type(p, name, "a number in (0, 1]")
    if not 0.0 < p <= 1.0:
        raise ValueError(f"{name}: expected a probability mass in (0, 1], got {p!r}")
    return p


def _top_k_args(z: Any, k: Any) -> tuple[Any, int]:
    return _check_logits(z), _check_k(k)


def _top_p_args(z: Any, p: Any) -> tuple[Any, float]:
    return _check_logits(z), _check_p(p)


def _filter_args(
    z: Any, temperature: Any, top_k: Any, top_p: Any
) -> tuple[Any, float, int | None, float | None]:
    """The checks of :func:`filter_logits` and :func:`sampling_distribution`, whose
    messages name ``top_k`` and ``top_p`` (the masks' own name ``k`` and ``p``)."""
    z, T = _temperature_args(z, temperature)
    return (
        z,
        T,
        None if top_k is None else _check_k(top_k, "top_k"),
        None if top_p is None else _check_p(top_p, "top_p"),
    )


@checked(_temperature_args)
def apply_temperature(z, temperature):
    """``z / T`` for a temperature ``T > 0``: ``(..., V) -> (..., V)``.

    Definition: def-19-temperature.
    Checked by: tests/test_sampling.py::test_temperature_matches_transformers
    """
    return z / temperature  # (..., V)


@checked(_top_k_args)
def top_k_mask(z, k):
    """Which logits top-k keeps, ``z_v >= (k-th largest)``: a boolean ``(..., V)``.

    Ties with the ``k``-th largest logit are all kept (so more than ``k`` may survive);
    ``k >= V`` keeps every token.

    Definition: def-19-top-k.
    Checked by: tests/test_sampling.py::test_top_k_matches_transformers
    """
    kth = np.sort(z, axis=-1)[..., [-min(k, z.shape[-1])]]  # (..., 1), k-th largest
    return z >= kth


@checked(_top_p_args)
def top_p_mask(z, p):
    """Which logits the nucleus of mass ``p`` keeps, a boolean ``(..., V)``.

    With ``π = softmax(z)`` sorted in decreasing order, ``π_(1) >= π_(2) >= ...``, token
    ``(i)`` is kept when the tokens ranked above it hold less than ``p``:
    ``π_(1) + ... + π_(i-1) < p``.  That is the smallest set of most probable tokens
    whose mass reaches ``p``; the most probable token is always kept, and ``p = 1``
    keeps every token.

    Definition: def-19-top-p.
    Checked by: tests/test_sampling.py::test_top_p_matches_transformers
    """
    if p == 1.0:  # every token (the sums below may round up to 1 at the tail)
        return np.ones(z.shape, dtype=bool)
    probs = formulas.softmax(z)
    order = np.argsort(-probs, axis=-1, kind="stable")  # most probable first
    sorted_p = np.take_along_axis(probs, order, axis=-1)
    above = np.cumsum(sorted_p, axis=-1) - sorted_p  # the mass ranked above each token
    keep = np.empty(z.shape, dtype=bool)
    np.put_along_axis(keep, order, above < p, axis=-1)  # back in the vocabulary's order
    return keep


@checked(_filter_args)
def filter_logits(z, temperature=1.0, top_k=None, top_p=None):
    """Temperature, then top-k, then top-p: the logits with every removed token at
    ``-inf``.

    ``(..., V) -> (..., V)``; ``None`` skips a filter.  Each filter sees the logits left
    by the one before (top-p renormalizes over what top-k kept), as in ``transformers``.
    Checked by: tests/test_sampling.py::test_chain_matches_transformers
    """
    z = apply_temperature(z, temperature)
    if top_k is not None:
        z = np.where(top_k_mask(z, top_k), z, -np.inf)
    if top_p is not None:
        z = np.where(top_p_mask(z, top_p), z, -np.inf)
    return z


@checked(_filter_args)
def sampling_distribution(z, temperature=1.0, top_k=None, top_p=None):
    """Sampler's ``softmax(filter_logits(z, T, k, p))``: ``(..., V) -> (..., V)``.

    The distribution the sampler draws from: zero outside the kept tokens and
    renormalized inside.

    The logits are first shifted so that the largest is 0 (a shift changes none of the
    filters nor the softmax): then ``z / T`` stays defined as ``T -> 0``, the others
    going to ``-inf``, the one-hot limit, even for ``T`` below the smallest float32.

    Definitions: def-19-temperature, def-19-top-k, def-19-top-p.
    Checked by: tests/test_sampling.py::test_chain_matches_transformers
    """
    z = z - z.max(axis=-1, keepdims=True)  # the same distribution, largest logit 0
    with np.errstate(over="ignore"):  # z / tiny T overflows to -inf: intended
        return formulas.softmax(filter_logits(z, temperature, top_k, top_p))
