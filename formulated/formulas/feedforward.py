"""Activations and feed-forward networks (chapters 3 and 11): ReLU, sigmoid, GELU (exact and
its tanh and sigmoid approximations), the ReLU and GELU feed-forward networks.

A module of the package :mod:`formulated.formulas` (whose face exports every name and
states the conventions)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._checks import as_float_array, check_ffn, checked

__all__ = ["relu", "sigmoid", "gelu", "ffn_relu", "ffn_gelu"]

GELU_APPROXIMATIONS = ("erf", "tanh", "sigmoid")


# --------------------------------------------------------------------------------------
# Activations and feed-forward networks


def _array_x(x: Any) -> np.ndarray:
    return as_float_array(x, "x")


@checked(_array_x)
def relu(x):
    """ReLU: ``max(0, x)`` elementwise.  Shapes: any -> same.

    Definition: def-03-activations.
    Checked by: tests/test_formulas.py::test_relu_and_sigmoid_match_torch
    """
    return np.maximum(x, 0)


@checked(_array_x)
def sigmoid(x):
    """Logistic sigmoid ``1 / (1 + exp(-x))``, elementwise: any shape -> same.

    Computed without overflow for large ``|x|``.

    Definition: def-03-activations.
    Checked by: tests/test_formulas.py::test_relu_and_sigmoid_match_torch
    """
    e = np.exp(-np.abs(x))  # <= 1: never overflows
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


# NumPy has no erf; math.erf is accurate to double precision
_erf = np.frompyfunc(math.erf, 1, 1)


def _gelu_args(x: Any, approximation: Any = "erf") -> tuple[np.ndarray, str]:
    x = as_float_array(x, "x")
    if not isinstance(approximation, str) or approximation not in GELU_APPROXIMATIONS:
        raise ValueError(
            f"approximation: expected one of {GELU_APPROXIMATIONS}, "
            f"got {approximation!r}"
        )
    return x, approximation


@checked(_gelu_args)
def gelu(x, approximation="erf"):
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
    if approximation == "erf":
        return x * (1 + np.asarray(_erf(x / math.sqrt(2)), dtype=x.dtype)) / 2
    if approximation == "tanh":
        return x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))) / 2
    return x * sigmoid(1.702 * x)  # "sigmoid"


@checked(check_ffn)
def ffn_relu(X, W1, b1, W2, b2):
    """Feed-forward ReLU network, row by row: ``max(0, X W1 + b1) W2 + b2``.

    Shapes: ``X (n, H)``, ``W1 (H, F)``, ``b1 (F,)``, ``W2 (F, H)``, ``b2 (H,)`` ->
    ``(n, H)`` (leading axes of ``X`` allowed).

    Definition: def-11-ffn.
    Checked by: tests/test_formulas.py::test_ffns_match_torch
    """
    return relu(X @ W1 + b1) @ W2 + b2  # (n, F) -> (n, H)


def _ffn_gelu_args(
    X: Any, W1: Any, b1: Any, W2: Any, b2: Any, approximation: Any = "erf"
) -> tuple:
    return (*check_ffn(X, W1, b1, W2, b2), approximation)  # gelu checks approximation


@checked(_ffn_gelu_args)
def ffn_gelu(X, W1, b1, W2, b2, approximation="erf"):
    """Feed-forward GELU network, row by row: ``GELU(X W1 + b1) W2 + b2``.

    ``approximation`` picks the GELU form (see :func:`gelu`; the sources' box uses
    ``"sigmoid"``, GPT-2 uses ``"tanh"``).  Shapes: ``X (n, H)``, ``W1 (H, F)``,
    ``b1 (F,)``, ``W2 (F, H)``, ``b2 (H,)`` -> ``(n, H)`` (leading axes of ``X``
    allowed).

    Definition: def-11-ffn.
    Checked by: tests/test_formulas.py::test_ffns_match_torch
    """
    return gelu(X @ W1 + b1, approximation) @ W2 + b2  # (n, F) -> (n, H)
