"""Layer normalization (chapter 12): the box's definition (as ``torch.nn.LayerNorm``) and the
"Notations" code variant with ``eps`` added to the standard deviation.

A module of the package :mod:`formulated.formulas` (whose face exports every name and
states the conventions)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import as_float_array, check_eps, check_nonempty, check_shape, checked

__all__ = ["layer_norm", "layer_norm_std_eps"]


# --------------------------------------------------------------------------------------
# Layer normalization


def _check_ln(X: Any, gamma: Any, beta: Any, eps: Any = 1e-5) -> tuple:
    X = as_float_array(X, "X")
    if X.ndim < 1:
        raise ValueError(f"X: expected an array of shape (..., H), got {X.shape}")
    check_nonempty(
        X,
        "X",
        "LayerNorm needs at least one row and H >= 1 columns (the "
        "mean of an empty row is undefined)",
    )
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
        raise ValueError(
            f"eps: eps=0 is only defined for rows that are not constant, "
            f"got {row} with {what} 0, whose normalization is 0/0; use "
            f"eps > 0 (GPT and GPT-2 use 1e-5)"
        )


@checked(_check_ln)
def layer_norm(X, gamma, beta, eps=1e-5):
    """LayerNorm of each row, as ``torch.nn.LayerNorm``: ``(n, H) -> (n, H)``.

    Layer normalization, the box's definition:

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
def layer_norm_std_eps(X, gamma, beta, eps=1e-5):
    """Layer normalization with ``eps`` added to the std: ``(n, H) -> (n, H)``.

    The "Notations" code variant: ``eps`` added to the std, not the variance.

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
