"""Chapter 2, probabilities and information: softmax with a temperature, information content,
entropy, cross-entropy and Kullback–Leibler divergence, in any logarithm base.

Definitions: def-02-softmax, def-02-temperature, def-02-information, def-02-entropy,
def-02-cross-entropy-kl (chapters/02_probability_information.md).  Part of
:mod:`formulated.basics`.
"""

from __future__ import annotations

import numpy as np

from .. import formulas
from .._checks import (
    as_float_array,
    check_positive_number,
    check_probabilities,
    checked,
)
from ..sampling import apply_temperature

__all__ = [
    "softmax_temperature",
    "information_content",
    "entropy",
    "cross_entropy",
    "kl_divergence",
]


def _softmax_temperature_args(
    z: np.ndarray, temperature: float = 1.0, axis: int = -1
) -> tuple[np.ndarray, float, int]:
    temperature = check_positive_number(temperature, "temperature")
    return as_float_array(z, "z"), temperature, axis


@checked(_softmax_temperature_args)
def softmax_temperature(z, temperature=1.0, axis=-1):
    """``softmax(z / T)``: logits to probabilities at temperature T, shape kept.

    T < 1 sharpens the distribution, T > 1 flattens it.

    Definition: def-02-temperature.
    Checked by: tests/test_basics.py::test_softmax_temperature_against_torch
    """
    return formulas.softmax(apply_temperature(z, temperature), axis=axis)


def _check_base(base: float) -> float:
    if isinstance(base, (bool, np.bool_)) or not isinstance(
        base, (int, float, np.number)
    ):
        raise TypeError(
            f"base: expected a number such as 2 (bits) or np.e (nats), got {base!r}"
        )
    base = float(base)
    if not np.isfinite(base) or base <= 0 or base == 1:
        raise ValueError(
            f"base: expected a positive number other than 1 (2 for bits, np.e for "
            f"nats), got {base}"
        )
    return base


def _xlogy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x · ln y`` with the convention ``0 · ln 0 = 0`` (and ``x · ln 0 = −∞`` for x > 0)."""
    with np.errstate(divide="ignore"):
        return np.where(x > 0, x * np.log(np.where(x > 0, y, 1.0)), 0.0)


def _information_args(p: np.ndarray, base: float = np.e) -> tuple[np.ndarray, float]:
    base = _check_base(base)
    p = as_float_array(p, "p")
    if np.any((p < 0) | (p > 1)):
        raise ValueError(
            f"p: expected probabilities in [0, 1], got values in [{p.min()}, {p.max()}]"
        )
    return p, base


@checked(_information_args)
def information_content(p, base=np.e):
    """Self-information ``I(x) = −log_b p(x)``, element-wise on the probabilities p.

    Base 2 gives bits, base e gives nats.  An impossible outcome (p = 0) carries
    infinite information.

    Definition: def-02-information.
    Checked by: tests/test_basics.py::test_information_quantities_against_torch
    """
    with np.errstate(divide="ignore"):  # -log 0 = inf: an impossible outcome
        return -np.log(p) / np.log(base) + 0.0  # + 0.0 turns −0.0 (for p = 1) into 0.0


def _entropy_args(p: np.ndarray, base: float = np.e) -> tuple[np.ndarray, float]:
    base = _check_base(base)
    return check_probabilities(p, "p"), base


@checked(_entropy_args)
def entropy(p, base=np.e):
    """Shannon entropy ``H(p) = −Σ_i p_i log_b p_i``: ``(..., V) -> (...)``.

    ``(V,) -> ()``, ``(m, V) -> (m,)``; a zero probability adds nothing (0 log 0 = 0).

    Definition: def-02-entropy.
    Checked by: tests/test_basics.py::test_information_quantities_against_torch
    Checked by: tests/test_basics.py::test_information_quantities_with_zeros_and_rows
    """
    return formulas.cross_entropy(p, p) / np.log(base)  # H(p) = H(p, p), in base b


def _pair_args(
    p: np.ndarray, q: np.ndarray, base: float = np.e
) -> tuple[np.ndarray, np.ndarray, float]:
    base = _check_base(base)
    p = check_probabilities(p, "p")
    q = check_probabilities(q, "q")
    if p.shape != q.shape:
        raise ValueError(f"q: expected the shape of p {p.shape}, got {q.shape}")
    return p, q, base


@checked(_pair_args)
def cross_entropy(p, q, base=np.e):
    """Cross-entropy ``H(p, q) = −Σ_i p_i log_b q_i`` of model q against truth p.

    Infinite when q gives probability 0 to an outcome that p allows.  Shapes as
    :func:`entropy`.  In nats this is :func:`formulated.formulas.cross_entropy` (its
    arguments named ``y`` and ``y_hat``), which computes it; another base ``b`` divides
    by ``ln b``.

    Definition: def-02-cross-entropy-kl.
    Checked by: tests/test_basics.py::test_information_quantities_against_torch
    Checked by: tests/test_basics.py::test_cross_entropy_is_entropy_plus_kl
    """
    return formulas.cross_entropy(p, q) / np.log(base)  # nats -> base b


@checked(_pair_args)
def kl_divergence(p, q, base=np.e):
    """Kullback–Leibler divergence ``KL(p ‖ q) = Σ_i p_i log_b (p_i / q_i)``.

    ``KL(p ‖ q) = H(p, q) − H(p) ≥ 0``; shapes as :func:`entropy`.

    Definition: def-02-cross-entropy-kl.
    Checked by: tests/test_basics.py::test_information_quantities_against_torch
    Checked by: tests/test_basics.py::test_cross_entropy_is_entropy_plus_kl
    """
    return (_xlogy(p, p) - _xlogy(p, q)).sum(axis=-1) / np.log(base)
