"""Chapter 1, learning from data: the linear model, the squared loss and its gradient, the closed
form (normal equations) and gradient descent with the regimes of its learning rate.

Definitions: def-01-linear-model, def-01-squared-loss, def-01-normal-equations,
def-01-gradient-descent (chapters/01_learning_from_data.md).  Part of :mod:`formulated.basics`.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .._checks import (
    as_float_array,
    check_finite,
    check_positive_int,
    check_positive_number,
    check_shape,
    checked,
)

__all__ = [
    "add_bias",
    "linear_predict",
    "squared_loss",
    "squared_loss_grad",
    "linear_regression_closed_form",
    "gradient_descent",
    "learning_rate_regime",
]


def add_bias(X: np.ndarray) -> np.ndarray:
    """Prepend a column of ones, so that θ_0 becomes an ordinary weight: ``(r, p) -> (r, p+1)``."""
    X = as_float_array(X, "X", ndim=2)
    return np.hstack([np.ones((X.shape[0], 1), dtype=X.dtype), X])


def _check_theta(X: np.ndarray, theta: np.ndarray) -> np.ndarray:
    theta = as_float_array(theta, "theta", ndim=1)
    check_shape(theta, "theta", (X.shape[1] + 1,))
    return theta


def _predict_args(X: Any, theta: Any) -> tuple[np.ndarray, np.ndarray]:
    X = as_float_array(X, "X", ndim=2)
    return X, _check_theta(X, theta)


@checked(_predict_args)
def linear_predict(X, theta):
    """Linear model ``ŷ_i = θ_0 + Σ_j θ_j x_ij``: ``X (r, p), θ (p+1,) -> ŷ (r,)``.

    Definition: def-01-linear-model.
    Checked by: tests/test_basics.py::test_linear_predict_and_squared_loss_against_torch
    """
    return theta[0] + X @ theta[1:]  # (r,)


def _loss_args(y_hat: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    y_hat = as_float_array(y_hat, "y_hat")
    y = as_float_array(y, "y")
    if y_hat.shape != y.shape:
        raise ValueError(f"y: expected the shape of y_hat {y_hat.shape}, got {y.shape}")
    return y_hat, y


@checked(_loss_args)
def squared_loss(y_hat, y):
    """Squared-error loss ``L = ½ Σ_i (ŷ_i − y_i)²``: ``(r,), (r,) -> ()``.

    A sum, not a mean, as in the slides.

    Definition: def-01-squared-loss.
    Checked by: tests/test_basics.py::test_linear_predict_and_squared_loss_against_torch
    """
    return 0.5 * float(np.sum((y_hat - y) ** 2))


def _data_args(X: Any, y: Any, *rest: Any) -> tuple:
    """``X (r, p)`` and ``y (r,)`` as float arrays; the other arguments unchanged."""
    X = as_float_array(X, "X", ndim=2)
    y = as_float_array(y, "y", ndim=1)
    check_shape(y, "y", (X.shape[0],))
    return (X, y, *rest)


@checked(_data_args)
def squared_loss_grad(X, y, theta):
    """Gradient of ``½ Σ_i (ŷ_i − y_i)²`` in θ: ``X̃ᵀ (ŷ − y)``, shape ``(p+1,)``.

    Component 0 is ``Σ_i (ŷ_i − y_i)``, component j is ``Σ_i (ŷ_i − y_i) x_ij``:
    equation (3) of the slides, with ŷ the model's prediction and y the observed value.

    Definition: def-01-squared-loss.
    Checked by: tests/test_basics.py::test_squared_loss_grad_against_autograd
    """
    residual = linear_predict(X, theta) - y
    return add_bias(X).T @ residual


def _closed_form_args(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    X, y = _data_args(X, y)
    Xb = add_bias(X)
    if np.linalg.matrix_rank(Xb) < Xb.shape[1]:
        raise ValueError(
            f"X: expected linearly independent columns "
            f"(with the bias column), got rank "
            f"{np.linalg.matrix_rank(Xb)} for {Xb.shape[1]} columns"
        )
    return X, y


@checked(_closed_form_args)
def linear_regression_closed_form(X, y):
    """Least squares in one step: solve ``X̃ᵀX̃ θ = X̃ᵀ y`` for θ ``(p+1,)``.

    They are equation (3) of the slides set to zero.  Raises if the columns of X̃ are
    linearly dependent (then the minimizer is not unique).

    Definition: def-01-normal-equations.
    Checked by: tests/test_basics.py::test_closed_form_matches_lstsq
    """
    Xb = add_bias(X)  # (r, p+1): the column of ones carries θ_0
    return np.linalg.solve(Xb.T @ Xb, Xb.T @ y)


def _gradient_descent_args(
    grad: Callable[[np.ndarray], np.ndarray], theta0: np.ndarray, lr: float, steps: int
) -> tuple[Callable[[np.ndarray], np.ndarray], np.ndarray, float, int]:
    theta0 = as_float_array(theta0, "theta0", ndim=1).astype(np.float64)
    lr = check_positive_number(lr, "lr", "a positive learning rate")
    steps = check_positive_int(steps, "steps")
    if not callable(grad):
        raise TypeError(
            f"grad: expected a function theta -> gradient, got {type(grad).__name__}"
        )
    return grad, theta0, lr, steps


@checked(_gradient_descent_args)
def gradient_descent(grad, theta0, lr, steps):
    """Iterate ``θ ← θ − α ∂L/∂θ``: the trajectory ``(steps+1, p)``, row 0 θ_0.

    If θ stops being finite (the iteration diverged), the trajectory ends at the last
    finite point, so its length tells how long the divergence took.  ``grad(theta)``
    must return an array of θ's shape ``(p,)``, finite at θ_0 (later, an overflow is
    taken as divergence).

    Definition: def-01-gradient-descent.
    Checked by:
    tests/test_basics.py::test_gradient_descent_matches_torch_sgd_and_converges
    """
    theta = theta0
    path = [theta.copy()]
    with np.errstate(over="ignore", invalid="ignore"):
        for step in range(steps):
            g = _gradient(grad(theta), theta.shape, first=step == 0)
            theta = theta - lr * g
            if not np.all(np.isfinite(theta)):
                break
            path.append(theta.copy())
    return np.array(path)


def _gradient(g: Any, shape: tuple[int, ...], first: bool) -> np.ndarray:
    """Check what ``grad(theta)`` returned: numeric, θ's shape (a scalar would broadcast
    silently), and finite at the starting point, where no divergence can have happened yet."""
    g = np.asarray(g)
    if (
        g.dtype == object
        or g.dtype == bool
        or not np.issubdtype(g.dtype, np.number)
        or np.iscomplexobj(g)
    ):
        raise TypeError(f"grad(theta): expected a real array, got dtype {g.dtype}")
    check_shape(g, "grad(theta)", shape)
    g = g.astype(np.float64)
    if first:
        check_finite(g, "grad(theta) at theta0")
    return g


def learning_rate_regime(lr: float, hessian: np.ndarray) -> str:
    """How gradient descent behaves on a quadratic loss with this (symmetric) Hessian.

    Along an eigenvector with eigenvalue λ > 0 the error is multiplied by ``1 − αλ`` at every
    step, so with λ_max the largest eigenvalue:

    - ``"converges"``: α ≤ 1/λ_max, every factor in [0, 1): a smooth descent;
    - ``"oscillates"``: 1/λ_max < α < 2/λ_max, the steepest direction overshoots and changes
      sign at every step but still shrinks;
    - ``"cycles"``: α = 2/λ_max, that direction bounces back and forth forever;
    - ``"diverges"``: α > 2/λ_max, it grows geometrically.
    """
    hessian = as_float_array(hessian, "hessian", ndim=2)
    if hessian.size == 0:
        raise ValueError(
            f"hessian: expected a non-empty square matrix (one row per parameter), "
            f"got shape {hessian.shape}"
        )
    if hessian.shape[0] != hessian.shape[1] or not np.allclose(hessian, hessian.T):
        raise ValueError(
            f"hessian: expected a symmetric square matrix, got shape {hessian.shape}"
        )
    lr = check_positive_number(lr, "lr", "a positive learning rate")
    lam_max = float(np.linalg.eigvalsh(hessian)[-1])
    if lam_max <= 0:
        raise ValueError(
            f"hessian: expected a positive largest eigenvalue, got {lam_max}"
        )
    x = lr * lam_max
    if np.isclose(x, 2.0, rtol=1e-12, atol=0):
        return "cycles"
    if x <= 1.0:
        return "converges"
    return "oscillates" if x < 2.0 else "diverges"
