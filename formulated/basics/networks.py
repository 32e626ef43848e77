"""Chapter 3, neural networks: sigmoid, tanh, ReLU and their derivatives, and a two-layer network
with its backward pass written out by hand.

Definitions: def-03-mlp2, def-03-activations, def-03-backprop (chapters/03_neural_networks.md).
Part of :mod:`formulated.basics`.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .._checks import as_float_array, check_ffn, check_shape, checked
from ..formulas import relu, sigmoid

__all__ = [
    "sigmoid_grad",
    "tanh",
    "tanh_grad",
    "relu_grad",
    "ACTIVATIONS",
    "mlp2_forward",
    "mlp2_backward",
]


# sigmoid(z) = 1 / (1 + e^{−z}) and relu(z) = max(0, z) are the ones of formulated.formulas
# (imported above); this section adds tanh and the three derivatives.
# Each checker reads z as a float array, so the formula below it is the computation alone.


def _sigmoid_grad_args(z: np.ndarray) -> np.ndarray:
    return as_float_array(z, "z")


@checked(_sigmoid_grad_args)
def sigmoid_grad(z):
    """``σ'(z) = σ(z) (1 − σ(z))``, element-wise.

    Definition: def-03-activations.
    Checked by: tests/test_basics.py::test_activations_and_derivatives_against_autograd
    """
    s = sigmoid(z)
    return s * (1.0 - s)


def _tanh_args(z: np.ndarray) -> np.ndarray:
    return as_float_array(z, "z")


@checked(_tanh_args)
def tanh(z):
    """``tanh z = (e^z − e^{−z}) / (e^z + e^{−z})``, element-wise.

    Evaluated with ``np.tanh``: the quotient of exponentials, taken literally, overflows
    to ``inf/inf = nan`` once |z| > 710.

    Definition: def-03-activations.
    Checked by: tests/test_basics.py::test_activations_and_derivatives_against_autograd
    """
    return np.tanh(z)


def _tanh_grad_args(z: np.ndarray) -> np.ndarray:
    return as_float_array(z, "z")


@checked(_tanh_grad_args)
def tanh_grad(z):
    """``tanh'(z) = 1 − tanh(z)²``, element-wise.

    Definition: def-03-activations.
    Checked by: tests/test_basics.py::test_activations_and_derivatives_against_autograd
    """
    return 1.0 - tanh(z) ** 2


def _relu_grad_args(z: np.ndarray) -> np.ndarray:
    return as_float_array(z, "z")


@checked(_relu_grad_args)
def relu_grad(z):
    """``ReLU'(z) = 1 if z > 0 else 0``, element-wise (0 at z = 0, as in PyTorch).

    Definition: def-03-activations.
    Checked by: tests/test_basics.py::test_activations_and_derivatives_against_autograd
    """
    return (z > 0).astype(np.float64)


#: name -> (g, g'): the activation functions of chapter 3 and their derivatives.
ACTIVATIONS: dict[str, tuple[Callable, Callable]] = {
    "sigmoid": (sigmoid, sigmoid_grad),
    "tanh": (tanh, tanh_grad),
    "relu": (relu, relu_grad),
    "identity": (
        lambda z: as_float_array(z, "z"),
        lambda z: np.ones_like(as_float_array(z, "z")),
    ),
}


def activation_pair(name: str) -> tuple[Callable, Callable]:
    """``(g, g')`` for an activation of :data:`ACTIVATIONS`, with a clear error for another name."""
    if name not in ACTIVATIONS:
        raise ValueError(
            f"activation: expected one of {sorted(ACTIVATIONS)}, got {name!r}"
        )
    return ACTIVATIONS[name]


def _mlp2_forward_args(
    X: np.ndarray,
    W1: np.ndarray,
    b1: np.ndarray,
    W2: np.ndarray,
    b2: np.ndarray,
    activation: str = "sigmoid",
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, str]:
    X = as_float_array(X, "X", ndim=2)
    # Same weight checks as the position-wise FFN of chapter 11:
    # a 2-layer net is that formula.
    X, W1, b1, W2, b2 = check_ffn(X, W1, b1, W2, b2)
    activation_pair(activation)  # a known activation name
    return X, W1, b1, W2, b2, activation


@checked(_mlp2_forward_args)
def mlp2_forward(X, W1, b1, W2, b2, activation="sigmoid"):
    """Forward propagation through a two-layer network: ``X (B, d) -> Ŷ (B, k)``.

    ``Z1 = X W1 + b1`` ``(B, F)``, ``A1 = g(Z1)``, ``Ŷ = A1 W2 + b2``.  Returns Ŷ and a
    cache of the intermediate values that :func:`mlp2_backward` needs.

    Definition: def-03-mlp2.
    Checked by: tests/test_basics.py::test_mlp2_backward_against_autograd
    """
    g, _ = activation_pair(activation)
    Z1 = X @ W1 + b1
    A1 = g(Z1)
    Y_hat = A1 @ W2 + b2
    cache = dict(X=X, Z1=Z1, A1=A1, W1=W1, W2=W2, Y_hat=Y_hat, activation=activation)
    return Y_hat, cache


def _mlp2_backward_args(cache: dict, Y: np.ndarray) -> tuple[dict, np.ndarray]:
    Y = as_float_array(Y, "Y", ndim=2)
    check_shape(Y, "Y", cache["Y_hat"].shape)
    return cache, Y


@checked(_mlp2_backward_args)
def mlp2_backward(cache, Y):
    """The loss ``J = ½ Σ (Ŷ − Y)²`` and its gradients, layer by layer (chain rule).

    Going backwards from J: ``∂J/∂Ŷ = Ŷ − Y``; ``∂J/∂W2 = A1ᵀ ∂J/∂Ŷ``;
    ``∂J/∂b2 = Σ_rows ∂J/∂Ŷ``; ``∂J/∂A1 = ∂J/∂Ŷ W2ᵀ``; ``∂J/∂Z1 = ∂J/∂A1 ⊙ g'(Z1)``;
    ``∂J/∂W1 = Xᵀ ∂J/∂Z1``; ``∂J/∂b1 = Σ_rows ∂J/∂Z1``; ``∂J/∂X = ∂J/∂Z1 W1ᵀ``.  Each
    gradient has its parameter's shape.

    Definition: def-03-backprop.
    Checked by: tests/test_basics.py::test_mlp2_backward_against_autograd
    """
    _, g_prime = activation_pair(cache["activation"])
    dY = cache["Y_hat"] - Y  # (B, k)
    dA1 = dY @ cache["W2"].T  # (B, F)
    dZ1 = dA1 * g_prime(cache["Z1"])  # (B, F): through the activation
    grads = {
        "W2": cache["A1"].T @ dY,
        "b2": dY.sum(axis=0),
        "W1": cache["X"].T @ dZ1,
        "b1": dZ1.sum(axis=0),
        "X": dZ1 @ cache["W1"].T,
    }
    return 0.5 * float(np.sum(dY**2)), grads
