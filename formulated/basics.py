"""Machine-learning basics, one small NumPy function per formula (chapters 1–4 and 17).

- chapter 1, learning from data: linear regression, squared loss and its gradient, the closed
  form, gradient descent and the regimes of the learning rate;
- chapter 2, probabilities and information: softmax with a temperature, information content,
  entropy, cross-entropy and Kullback–Leibler divergence, in any logarithm base;
- chapter 3, neural networks: sigmoid, tanh, ReLU and their derivatives, a two-layer network
  with its backward pass written out by hand;
- chapter 4, sequences before attention: cosine similarity, the RNN recurrence and
  backpropagation through time, the LSTM cell;
- chapter 17, the training objective: log-likelihood of a sequence, a model given by an explicit
  joint table, a tiny attention model, and the GPT, BERT and XLNet objectives.

Vectors are rows, as everywhere in the book: a sequence of ``n`` inputs of width ``d`` is an
``(n, d)`` array, and a layer computes ``x @ W + b``.  Positions are 0-based in the code.
Everything is float64 so that the checks against PyTorch reach ``1e-10``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from itertools import permutations
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from ._checks import (as_float_array, as_token_ids, check_ffn, check_finite, check_positive_int,
                      check_shape)
from .formulas import cross_entropy_from_logits, relu, sigmoid, softmax

__all__ = [
    # chapter 1
    "add_bias", "linear_predict", "squared_loss", "squared_loss_grad",
    "linear_regression_closed_form", "gradient_descent", "learning_rate_regime",
    # chapter 2
    "softmax_temperature", "information_content", "entropy", "cross_entropy", "kl_divergence",
    # chapter 3
    "sigmoid", "sigmoid_grad", "tanh", "relu", "tanh_grad", "relu_grad", "ACTIVATIONS",
    "mlp2_forward", "mlp2_backward",
    # chapter 4
    "cosine_similarity", "rnn_forward", "rnn_backward", "bptt_gradient_norms",
    "LSTMParams", "lstm_cell", "lstm_forward",
    # chapter 17
    "sequence_log_likelihood", "JointTableModel", "TinyAttentionModel",
    "gpt_log_likelihood", "xlnet_log_likelihood", "xlnet_expected_log_likelihood",
    "bert_log_likelihood",
]


def _positive_number(value: Any, name: str, what: str = "a positive finite number", *,
                     allow_zero: bool = False) -> float:
    """Return ``value`` as a float, raising unless it is a real number, finite and > 0 (≥ 0).

    A string such as ``"0.1"`` or ``None`` is a ``TypeError`` naming the argument (NumPy would
    otherwise complain about a ufunc); NumPy scalars (``np.float32(0.1)``) are accepted.
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected {what}, got {value!r} ({type(value).__name__})")
    value = float(value)
    if not np.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"{name}: expected {what}, got {value}")
    return value


def _seed(seed: Any) -> int | None:
    """A seed for ``np.random.default_rng``: an integer ≥ 0 (``None``: fresh entropy)."""
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed: expected an integer >= 0, got {seed!r}")
    return int(seed)


# =============================================================================================
# Chapter 1 — learning from data
# =============================================================================================

def add_bias(X: np.ndarray) -> np.ndarray:
    """Prepend a column of ones, so that θ_0 becomes an ordinary weight: ``(r, p) -> (r, p+1)``."""
    X = as_float_array(X, "X", ndim=2)
    return np.hstack([np.ones((X.shape[0], 1), dtype=X.dtype), X])


def _check_theta(X: np.ndarray, theta: np.ndarray) -> np.ndarray:
    theta = as_float_array(theta, "theta", ndim=1)
    check_shape(theta, "theta", (X.shape[1] + 1,))
    return theta


def linear_predict(X: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """The linear model ``ŷ_i = θ_0 + Σ_j θ_j x_ij``: ``X (r, p), θ (p+1,) -> ŷ (r,)``."""
    X = as_float_array(X, "X", ndim=2)
    theta = _check_theta(X, theta)
    return theta[0] + X @ theta[1:]


def squared_loss(y_hat: np.ndarray, y: np.ndarray) -> float:
    """Squared-error loss ``L = ½ Σ_i (ŷ_i − y_i)²`` (a sum, not a mean, as in the slides)."""
    y_hat = as_float_array(y_hat, "y_hat")
    y = as_float_array(y, "y")
    if y_hat.shape != y.shape:
        raise ValueError(f"y: expected the shape of y_hat {y_hat.shape}, got {y.shape}")
    return 0.5 * float(np.sum((y_hat - y) ** 2))


def squared_loss_grad(X: np.ndarray, y: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Gradient of ``½ Σ_i (ŷ_i − y_i)²`` with respect to θ: ``X̃ᵀ (ŷ − y)``, shape ``(p+1,)``.

    Component 0 is ``Σ_i (ŷ_i − y_i)``, component j is ``Σ_i (ŷ_i − y_i) x_ij``: equation (3)
    of the slides, with ŷ the model's prediction and y the observed value.
    """
    X = as_float_array(X, "X", ndim=2)
    y = as_float_array(y, "y", ndim=1)
    check_shape(y, "y", (X.shape[0],))
    residual = linear_predict(X, theta) - y
    return add_bias(X).T @ residual


def linear_regression_closed_form(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Least squares in one step: solve the normal equations ``X̃ᵀX̃ θ = X̃ᵀ y`` for θ ``(p+1,)``.

    They are equation (3) of the slides set to zero.  Raises if the columns of X̃ are linearly
    dependent (then the minimiser is not unique).
    """
    X = as_float_array(X, "X", ndim=2)
    y = as_float_array(y, "y", ndim=1)
    check_shape(y, "y", (X.shape[0],))
    Xb = add_bias(X)
    if np.linalg.matrix_rank(Xb) < Xb.shape[1]:
        raise ValueError(f"X: expected linearly independent columns (with the bias column), got "
                         f"rank {np.linalg.matrix_rank(Xb)} for {Xb.shape[1]} columns")
    return np.linalg.solve(Xb.T @ Xb, Xb.T @ y)


def gradient_descent(grad: Callable[[np.ndarray], np.ndarray], theta0: np.ndarray, lr: float,
                     steps: int) -> np.ndarray:
    """Iterate ``θ ← θ − α ∂L/∂θ`` and return the trajectory ``(steps+1, p)`` (row 0 is θ_0).

    If θ stops being finite (the iteration diverged), the trajectory ends at the last finite
    point, so its length tells how long the divergence took.  ``grad(theta)`` must return an
    array of θ's shape ``(p,)``, finite at θ_0 (later, an overflow is taken as divergence).
    """
    theta = as_float_array(theta0, "theta0", ndim=1).astype(np.float64)
    lr = _positive_number(lr, "lr", "a positive learning rate")
    steps = check_positive_int(steps, "steps")
    if not callable(grad):
        raise TypeError(f"grad: expected a function theta -> gradient, got {type(grad).__name__}")
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
    if g.dtype == object or g.dtype == bool or not np.issubdtype(g.dtype, np.number) \
            or np.iscomplexobj(g):
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
        raise ValueError(f"hessian: expected a non-empty square matrix (one row per parameter), "
                         f"got shape {hessian.shape}")
    if hessian.shape[0] != hessian.shape[1] or not np.allclose(hessian, hessian.T):
        raise ValueError(f"hessian: expected a symmetric square matrix, got shape {hessian.shape}")
    lr = _positive_number(lr, "lr", "a positive learning rate")
    lam_max = float(np.linalg.eigvalsh(hessian)[-1])
    if lam_max <= 0:
        raise ValueError(f"hessian: expected a positive largest eigenvalue, got {lam_max}")
    x = lr * lam_max
    if np.isclose(x, 2.0, rtol=1e-12, atol=0):
        return "cycles"
    if x <= 1.0:
        return "converges"
    return "oscillates" if x < 2.0 else "diverges"


# =============================================================================================
# Chapter 2 — probabilities and information
# =============================================================================================

def softmax_temperature(z: np.ndarray, temperature: float = 1.0, axis: int = -1) -> np.ndarray:
    """``softmax(z / T)``: logits to probabilities; T < 1 sharpens, T > 1 flattens. Shape kept."""
    temperature = _positive_number(temperature, "temperature")
    z = as_float_array(z, "z")
    return softmax(z / temperature, axis=axis)


def _check_base(base: float) -> float:
    if isinstance(base, (bool, np.bool_)) or not isinstance(base, (int, float, np.number)):
        raise TypeError(f"base: expected a number such as 2 (bits) or np.e (nats), got {base!r}")
    base = float(base)
    if not np.isfinite(base) or base <= 0 or base == 1:
        raise ValueError(f"base: expected a positive number other than 1 (2 for bits, np.e for "
                         f"nats), got {base}")
    return base


def _check_probs(p: np.ndarray, name: str) -> np.ndarray:
    """A probability vector (or a stack of them along the last axis): ≥ 0 and summing to 1."""
    p = as_float_array(p, name, ndim=(1, 2))
    if np.any(p < 0):
        raise ValueError(f"{name}: expected probabilities ≥ 0, got a minimum of {p.min()}")
    sums = p.sum(axis=-1)
    if not np.allclose(sums, 1.0, rtol=0, atol=1e-9):
        bad = float(np.atleast_1d(sums)[np.argmax(np.abs(np.atleast_1d(sums) - 1))])
        raise ValueError(f"{name}: expected probabilities summing to 1 along the last axis, "
                         f"got a sum of {bad}")
    return p


def _xlogy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x · ln y`` with the convention ``0 · ln 0 = 0`` (and ``x · ln 0 = −∞`` for x > 0)."""
    with np.errstate(divide="ignore"):
        return np.where(x > 0, x * np.log(np.where(x > 0, y, 1.0)), 0.0)


def information_content(p: np.ndarray, base: float = np.e) -> np.ndarray:
    """Self-information ``I(x) = −log_b p(x)`` of outcomes with probability p (same shape).

    Base 2 gives bits, base e gives nats.  An impossible outcome (p = 0) carries infinite
    information.
    """
    base = _check_base(base)
    p = as_float_array(p, "p")
    if np.any((p < 0) | (p > 1)):
        raise ValueError(f"p: expected probabilities in [0, 1], got values in "
                         f"[{p.min()}, {p.max()}]")
    with np.errstate(divide="ignore"):
        return -np.log(p) / np.log(base) + 0.0          # + 0.0 turns −0.0 (for p = 1) into 0.0


def entropy(p: np.ndarray, base: float = np.e) -> np.ndarray:
    """Shannon entropy ``H(p) = −Σ_i p_i log_b p_i`` (0 log 0 = 0): ``(V,) -> ()``, ``(m, V) -> (m,)``."""
    base = _check_base(base)
    p = _check_probs(p, "p")
    return -_xlogy(p, p).sum(axis=-1) / np.log(base)


def _check_pair(p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = _check_probs(p, "p")
    q = _check_probs(q, "q")
    if p.shape != q.shape:
        raise ValueError(f"q: expected the shape of p {p.shape}, got {q.shape}")
    return p, q


def cross_entropy(p: np.ndarray, q: np.ndarray, base: float = np.e) -> np.ndarray:
    """Cross-entropy ``H(p, q) = −Σ_i p_i log_b q_i`` of q (model) relative to p (truth).

    Infinite when q gives probability 0 to an outcome that p allows.  Shapes as :func:`entropy`.
    (:func:`formulated.formulas.cross_entropy` is the same quantity in nats, with the model's
    argument named ``y_hat``.)
    """
    base = _check_base(base)
    p, q = _check_pair(p, q)
    return -_xlogy(p, q).sum(axis=-1) / np.log(base)


def kl_divergence(p: np.ndarray, q: np.ndarray, base: float = np.e) -> np.ndarray:
    """Kullback–Leibler divergence ``KL(p ‖ q) = Σ_i p_i log_b (p_i / q_i) = H(p, q) − H(p) ≥ 0``."""
    base = _check_base(base)
    p, q = _check_pair(p, q)
    return (_xlogy(p, p) - _xlogy(p, q)).sum(axis=-1) / np.log(base)


# =============================================================================================
# Chapter 3 — neural networks and backpropagation
# =============================================================================================
# sigmoid(z) = 1 / (1 + e^{−z}) and relu(z) = max(0, z) are the ones of formulated.formulas
# (imported above and re-exported here); this section adds tanh and the three derivatives.

def sigmoid_grad(z: np.ndarray) -> np.ndarray:
    """``σ'(z) = σ(z) (1 − σ(z))``, element-wise."""
    s = sigmoid(z)
    return s * (1.0 - s)


def tanh(z: np.ndarray) -> np.ndarray:
    """``tanh z = (e^z − e^{−z}) / (e^z + e^{−z})``, element-wise.

    Evaluated with ``np.tanh``: the quotient of exponentials, taken literally, overflows to
    ``inf/inf = nan`` once |z| > 710.
    """
    return np.tanh(as_float_array(z, "z"))


def tanh_grad(z: np.ndarray) -> np.ndarray:
    """``tanh'(z) = 1 − tanh(z)²``, element-wise."""
    return 1.0 - tanh(z) ** 2


def relu_grad(z: np.ndarray) -> np.ndarray:
    """``ReLU'(z) = 1 if z > 0 else 0``, element-wise (0 at z = 0, as PyTorch's autograd)."""
    return (as_float_array(z, "z") > 0).astype(np.float64)


#: name -> (g, g'): the activation functions of chapter 3 and their derivatives.
ACTIVATIONS: dict[str, tuple[Callable, Callable]] = {
    "sigmoid": (sigmoid, sigmoid_grad),
    "tanh": (tanh, tanh_grad),
    "relu": (relu, relu_grad),
    "identity": (lambda z: as_float_array(z, "z"), lambda z: np.ones_like(as_float_array(z, "z"))),
}


def _activation(name: str):
    if name not in ACTIVATIONS:
        raise ValueError(f"activation: expected one of {sorted(ACTIVATIONS)}, got {name!r}")
    return ACTIVATIONS[name]


def mlp2_forward(X: np.ndarray, W1: np.ndarray, b1: np.ndarray, W2: np.ndarray, b2: np.ndarray,
                 activation: str = "sigmoid") -> tuple[np.ndarray, dict]:
    """Forward propagation through a two-layer network: ``X (B, d) -> Ŷ (B, k)``.

    ``Z1 = X W1 + b1`` ``(B, F)``, ``A1 = g(Z1)``, ``Ŷ = A1 W2 + b2``.  Returns Ŷ and a cache
    of the intermediate values that :func:`mlp2_backward` needs.
    """
    X = as_float_array(X, "X", ndim=2)
    # Same weight checks as the position-wise FFN of chapter 11: a 2-layer net is that formula.
    X, W1, b1, W2, b2 = check_ffn(X, W1, b1, W2, b2)
    g, _ = _activation(activation)
    Z1 = X @ W1 + b1
    A1 = g(Z1)
    Y_hat = A1 @ W2 + b2
    cache = dict(X=X, Z1=Z1, A1=A1, W1=W1, W2=W2, Y_hat=Y_hat, activation=activation)
    return Y_hat, cache


def mlp2_backward(cache: dict, Y: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
    """The loss ``J = ½ Σ (Ŷ − Y)²`` and its gradients, by the chain rule, layer by layer.

    Going backwards from J: ``∂J/∂Ŷ = Ŷ − Y``; ``∂J/∂W2 = A1ᵀ ∂J/∂Ŷ``; ``∂J/∂b2 = Σ_rows ∂J/∂Ŷ``;
    ``∂J/∂A1 = ∂J/∂Ŷ W2ᵀ``; ``∂J/∂Z1 = ∂J/∂A1 ⊙ g'(Z1)``; ``∂J/∂W1 = Xᵀ ∂J/∂Z1``;
    ``∂J/∂b1 = Σ_rows ∂J/∂Z1``; ``∂J/∂X = ∂J/∂Z1 W1ᵀ``.  Each gradient has its parameter's shape.
    """
    Y = as_float_array(Y, "Y", ndim=2)
    check_shape(Y, "Y", cache["Y_hat"].shape)
    _, g_prime = _activation(cache["activation"])
    dY = cache["Y_hat"] - Y                                   # (B, k)
    dA1 = dY @ cache["W2"].T                                  # (B, F)
    dZ1 = dA1 * g_prime(cache["Z1"])                          # (B, F): through the activation
    grads = {
        "W2": cache["A1"].T @ dY, "b2": dY.sum(axis=0),
        "W1": cache["X"].T @ dZ1, "b1": dZ1.sum(axis=0),
        "X": dZ1 @ cache["W1"].T,
    }
    return 0.5 * float(np.sum(dY ** 2)), grads


# =============================================================================================
# Chapter 4 — sequences before attention
# =============================================================================================

def cosine_similarity(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``cos(a, b) = a·b / (‖a‖ ‖b‖)`` along the last axis (broadcasting): ``(..., H) -> (...)``."""
    a = as_float_array(a, "a")
    b = as_float_array(b, "b")
    for name, v in (("a", a), ("b", b)):
        if v.ndim == 0 or v.shape[-1] == 0:
            raise ValueError(f"{name}: expected vectors along the last axis, shape (..., H) with "
                             f"H >= 1, got shape {v.shape}")
    if a.shape[-1:] != b.shape[-1:]:
        raise ValueError(f"b: expected vectors of width {a.shape[-1:]} like a, got shape {b.shape}")
    try:
        np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    except ValueError:
        raise ValueError(f"b: expected leading dimensions that broadcast with a's {a.shape[:-1]}, "
                         f"got shape {b.shape}") from None
    na = np.linalg.norm(a, axis=-1)
    nb = np.linalg.norm(b, axis=-1)
    if np.any(na == 0) or np.any(nb == 0):
        raise ValueError("a, b: expected non-zero vectors (the angle of a zero vector is undefined), "
                         "got a zero vector")
    return np.sum(a * b, axis=-1) / (na * nb)


def _check_rnn(X, h0, W_xh, W_hh, b_h):
    X = as_float_array(X, "X", ndim=2)
    W_xh = as_float_array(W_xh, "W_xh", ndim=2)
    check_shape(W_xh, "W_xh", (X.shape[1], None))
    H = W_xh.shape[1]
    W_hh = as_float_array(W_hh, "W_hh", ndim=2)
    check_shape(W_hh, "W_hh", (H, H))
    b_h = as_float_array(b_h, "b_h", ndim=1)
    check_shape(b_h, "b_h", (H,))
    h0 = as_float_array(h0, "h0", ndim=1)
    check_shape(h0, "h0", (H,))
    return X, h0, W_xh, W_hh, b_h


def rnn_forward(X: np.ndarray, h0: np.ndarray, W_xh: np.ndarray, W_hh: np.ndarray,
                b_h: np.ndarray, activation: str = "tanh") -> np.ndarray:
    """The recurrence ``h_t = g(h_{t−1} W_hh + x_t W_xh + b_h)`` over a sequence.

    ``X (n, d)``, ``h0 (H,)``, ``W_xh (d, H)``, ``W_hh (H, H)``, ``b_h (H,)`` ``-> (n, H)``,
    row t holding h_t.  The same weights serve every step.  (The slides write column vectors,
    ``W_hh h_{t−1}``; with rows the matrices act from the right.)
    """
    X, h, W_xh, W_hh, b_h = _check_rnn(X, h0, W_xh, W_hh, b_h)
    g, _ = _activation(activation)
    states = []
    for x_t in X:
        h = g(h @ W_hh + x_t @ W_xh + b_h)
        states.append(h)
    return np.array(states).reshape(len(X), W_hh.shape[0])


def _grad_from_output(activation: str, h: np.ndarray) -> np.ndarray:
    """g'(a) written with the output h = g(a) (what the forward pass kept)."""
    if activation == "tanh":
        return 1.0 - h ** 2
    if activation == "sigmoid":
        return h * (1.0 - h)
    if activation == "relu":
        return (h > 0).astype(np.float64)
    return np.ones_like(h)


def rnn_backward(X: np.ndarray, h0: np.ndarray, W_xh: np.ndarray, W_hh: np.ndarray,
                 b_h: np.ndarray, states: np.ndarray, dstates: np.ndarray,
                 activation: str = "tanh") -> dict[str, np.ndarray]:
    """Backpropagation through time for :func:`rnn_forward`.

    ``dstates (n, H)`` holds ∂L/∂h_t coming from the outputs at each step (zeros where a step
    has no loss).  Walking from t = n down to 1, the gradient reaching h_t is that direct part
    plus what flows back from h_{t+1}:  ``δ_t = ∂L/∂h_t``, ``∂L/∂a_t = δ_t ⊙ g'(a_t)``,
    ``δ_{t−1} += ∂L/∂a_t W_hhᵀ``.  Returns the gradients of ``W_xh, W_hh, b_h, h0, X`` and
    ``"dh"`` ``(n, H)``, the total ∂L/∂h_t at every step.
    """
    X, h0, W_xh, W_hh, b_h = _check_rnn(X, h0, W_xh, W_hh, b_h)
    n, H = len(X), W_hh.shape[0]
    states = as_float_array(states, "states", ndim=2)
    check_shape(states, "states", (n, H))
    dstates = as_float_array(dstates, "dstates", ndim=2)
    check_shape(dstates, "dstates", (n, H))
    _activation(activation)
    grads = {"W_xh": np.zeros_like(W_xh), "W_hh": np.zeros_like(W_hh), "b_h": np.zeros_like(b_h),
             "X": np.zeros_like(X), "dh": np.zeros((n, H))}
    carry = np.zeros(H)                                      # ∂L/∂h_t arriving from step t+1
    for t in reversed(range(n)):
        h_prev = states[t - 1] if t > 0 else h0
        dh = dstates[t] + carry
        grads["dh"][t] = dh
        da = dh * _grad_from_output(activation, states[t])   # through the activation
        grads["W_xh"] += np.outer(X[t], da)
        grads["W_hh"] += np.outer(h_prev, da)
        grads["b_h"] += da
        grads["X"][t] = da @ W_xh.T
        carry = da @ W_hh.T
    grads["h0"] = carry
    return grads


def bptt_gradient_norms(X: np.ndarray, h0: np.ndarray, W_xh: np.ndarray, W_hh: np.ndarray,
                        b_h: np.ndarray, activation: str = "tanh") -> np.ndarray:
    """How much a loss on the last state feels each earlier state: ``‖∂L/∂h_t‖`` for t = 0..n.

    The loss is ``L = Σ_i (h_n)_i / √H`` (a fixed direction of unit length), so entry t is the
    size of the signal that backpropagation through time delivers to h_t after ``n − t`` steps
    back; entry 0 is h0.  Returns shape ``(n+1,)``.
    """
    X = as_float_array(X, "X", ndim=2)
    if len(X) == 0:
        raise ValueError(f"X: expected at least one time step (the loss sits on the last state "
                         f"h_n), got shape {X.shape}")
    states = rnn_forward(X, h0, W_xh, W_hh, b_h, activation)
    n, H = states.shape
    dstates = np.zeros((n, H))
    dstates[-1] = 1.0 / np.sqrt(H)
    g = rnn_backward(X, h0, W_xh, W_hh, b_h, states, dstates, activation)
    return np.concatenate([[np.linalg.norm(g["h0"])], np.linalg.norm(g["dh"], axis=1)])


@dataclass(frozen=True)
class LSTMParams:
    """Weights of an LSTM cell acting on the concatenation ``[x_t, h_{t−1}]`` ``(d + H,)``.

    ``W_i, W_f, W_C, W_o``: ``(d + H, H)`` (input, forget, candidate, output);
    ``b_i, b_f, b_C, b_o``: ``(H,)``.
    """

    W_i: np.ndarray
    W_f: np.ndarray
    W_C: np.ndarray
    W_o: np.ndarray
    b_i: np.ndarray
    b_f: np.ndarray
    b_C: np.ndarray
    b_o: np.ndarray

    def __post_init__(self) -> None:
        W = as_float_array(self.W_i, "W_i", ndim=2)
        H = W.shape[1]
        for name in ("W_i", "W_f", "W_C", "W_o"):
            arr = as_float_array(getattr(self, name), name, ndim=2)
            check_shape(arr, name, (W.shape[0], H))
            object.__setattr__(self, name, arr)
        for name in ("b_i", "b_f", "b_C", "b_o"):
            arr = as_float_array(getattr(self, name), name, ndim=1)
            check_shape(arr, name, (H,))
            object.__setattr__(self, name, arr)
        if W.shape[0] <= H:
            raise ValueError(f"W_i: expected d + H > H rows (input width d ≥ 1), got shape {W.shape}")

    @property
    def H(self) -> int:
        return self.W_i.shape[1]

    @property
    def d(self) -> int:
        return self.W_i.shape[0] - self.H


def lstm_cell(x: np.ndarray, h_prev: np.ndarray, c_prev: np.ndarray, p: LSTMParams
              ) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """One LSTM step: ``x (d,), h_{t−1} (H,), C_{t−1} (H,) -> h_t (H,), C_t (H,), gates``.

    ``i_t = σ([x_t, h_{t−1}] W_i + b_i)``, ``f_t = σ(… W_f + b_f)``, ``o_t = σ(… W_o + b_o)``,
    ``C̃_t = tanh(… W_C + b_C)``, ``C_t = f_t ⊙ C_{t−1} + i_t ⊙ C̃_t`` and — the equation the
    slides leave out — ``h_t = o_t ⊙ tanh(C_t)``.
    """
    if not isinstance(p, LSTMParams):
        raise TypeError(f"p: expected LSTMParams, got {type(p).__name__}")
    x = as_float_array(x, "x", ndim=1)
    check_shape(x, "x", (p.d,))
    h_prev = as_float_array(h_prev, "h_prev", ndim=1)
    check_shape(h_prev, "h_prev", (p.H,))
    c_prev = as_float_array(c_prev, "c_prev", ndim=1)
    check_shape(c_prev, "c_prev", (p.H,))
    z = np.concatenate([x, h_prev])
    i = sigmoid(z @ p.W_i + p.b_i)
    f = sigmoid(z @ p.W_f + p.b_f)
    c_tilde = tanh(z @ p.W_C + p.b_C)
    o = sigmoid(z @ p.W_o + p.b_o)
    c = f * c_prev + i * c_tilde
    h = o * tanh(c)
    return h, c, {"i": i, "f": f, "o": o, "C_tilde": c_tilde}


def lstm_forward(X: np.ndarray, h0: np.ndarray, c0: np.ndarray, p: LSTMParams
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Run :func:`lstm_cell` over ``X (n, d)``: returns all h_t and all C_t, each ``(n, H)``.

    Every argument is checked before the first step, so an empty sequence (``n = 0``) still
    rejects a wrong ``h0``, ``c0`` or ``p``; it returns two ``(0, H)`` arrays, like
    :func:`rnn_forward`.
    """
    if not isinstance(p, LSTMParams):
        raise TypeError(f"p: expected LSTMParams, got {type(p).__name__}")
    X = as_float_array(X, "X", ndim=2)
    check_shape(X, "X", (None, p.d))
    h = as_float_array(h0, "h0", ndim=1)
    check_shape(h, "h0", (p.H,))
    c = as_float_array(c0, "c0", ndim=1)
    check_shape(c, "c0", (p.H,))
    hs, cs = [], []
    for x_t in X:
        h, c, _ = lstm_cell(x_t, h, c, p)
        hs.append(h)
        cs.append(c)
    return np.array(hs).reshape(len(X), p.H), np.array(cs).reshape(len(X), p.H)


# =============================================================================================
# Chapter 17 — the training objective
# =============================================================================================

def sequence_log_likelihood(cond_probs: np.ndarray, ids: np.ndarray) -> float:
    """``log P(x) = Σ_j log P(x_j | context_j)`` from the model's conditional distributions.

    ``cond_probs (n, V)``: row j is the model's distribution for position j given its context
    (for GPT, the tokens before it); ``ids (n,)`` the tokens that occurred (0-based ids).
    The negative of this, divided by n, is the cross-entropy loss of the sequence.
    """
    cond_probs = _check_probs(cond_probs, "cond_probs")
    if cond_probs.ndim != 2:
        raise ValueError(f"cond_probs: expected shape (n, V), got {cond_probs.shape}")
    n, V = cond_probs.shape
    ids = as_token_ids(ids, "ids", V, ndim=1)
    check_shape(ids, "ids", (n,))
    with np.errstate(divide="ignore"):
        return float(np.sum(np.log(cond_probs[np.arange(n), ids])))


class JointTableModel:
    """A model that stores the whole joint distribution of sequences of length n over V tokens.

    ``P(x_1, …, x_n) = table[x_1, …, x_n]`` (an array of shape ``(V,) * n`` summing to 1).  Every
    conditional probability is then exact, by marginalising and dividing, so the identities of
    chapter 17 (chain rule, every XLNet order) hold to rounding error.  Only feasible for tiny
    ``V ** n``.
    """

    def __init__(self, table: np.ndarray):
        table = as_float_array(table, "table")
        if table.ndim < 1 or len(set(table.shape)) != 1:
            raise ValueError(f"table: expected shape (V,)*n, got {table.shape}")
        if np.any(table < 0) or not np.isclose(table.sum(), 1.0, rtol=0, atol=1e-9):
            raise ValueError(f"table: expected probabilities ≥ 0 summing to 1, got sum "
                             f"{table.sum()} and minimum {table.min()}")
        self.table = table
        self.n = table.ndim
        self.V = table.shape[0]

    @classmethod
    def random(cls, V: int, n: int, seed: int = 0, concentration: float = 0.3) -> "JointTableModel":
        """A random joint table (Dirichlet): small concentration → a few likely sequences."""
        V, n = check_positive_int(V, "V"), check_positive_int(n, "n")
        concentration = _positive_number(concentration, "concentration")
        rng = np.random.default_rng(_seed(seed))
        return cls(rng.dirichlet(np.full(V ** n, concentration)).reshape((V,) * n))

    def _ids(self, ids) -> np.ndarray:
        ids = as_token_ids(ids, "ids", self.V, ndim=1)
        check_shape(ids, "ids", (self.n,))
        return ids

    def _marginal(self, ids: np.ndarray, keep: Iterable[int]) -> float:
        """P(X_k = x_k for every k in keep), summing the table over the other positions."""
        keep = set(keep)
        index = tuple(int(ids[k]) if k in keep else slice(None) for k in range(self.n))
        return float(np.sum(self.table[index]))

    def log_prob(self, ids: np.ndarray) -> float:
        """``log P(x_1, …, x_n)``."""
        ids = self._ids(ids)
        with np.errstate(divide="ignore"):
            return float(np.log(self.table[tuple(ids)]))

    def cond_log_prob(self, ids: np.ndarray, targets: Sequence[int], visible: Iterable[int]
                      ) -> float:
        """``log P(X_T = x_T | X_S = x_S)`` for target positions T and visible positions S."""
        ids = self._ids(ids)
        targets, visible = _positions(targets, self.n, "targets"), _positions(visible, self.n,
                                                                              "visible")
        if set(targets) & set(visible):
            raise ValueError(f"targets: expected positions not in visible, got {targets} "
                             f"and {visible}")
        den = self._marginal(ids, visible)
        if den == 0:
            raise ValueError(f"visible: the context {[int(ids[k]) for k in visible]} at "
                             f"positions {visible} has probability 0")
        with np.errstate(divide="ignore"):
            return float(np.log(self._marginal(ids, set(targets) | set(visible)) / den))


def _positions(pos: Iterable[int], n: int, name: str) -> list[int]:
    """A list of distinct 0-based positions ``0 .. n-1``, given as integers.

    ``int()`` would truncate ``0.9`` to 0 and read ``"1"`` as 1, so any non-integer entry (float,
    string, bool) is rejected instead.
    """
    what = f"a sequence of distinct integer positions in 0..{n - 1}"
    if isinstance(pos, (str, bytes)):
        raise TypeError(f"{name}: expected {what}, got the string {pos!r}")
    try:
        items = list(pos)
    except TypeError:
        raise TypeError(f"{name}: expected {what}, got {pos!r} ({type(pos).__name__})") from None
    arr = np.asarray(items) if items else np.zeros(0, dtype=np.int64)
    if arr.ndim != 1 or arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name}: expected {what}, got {items!r} (dtype {arr.dtype})")
    out = [int(k) for k in arr]
    if any(k < 0 or k >= n for k in out) or len(set(out)) != len(out):
        raise ValueError(f"{name}: expected distinct positions in 0..{n - 1}, got {out}")
    return out


class TinyAttentionModel:
    """A one-layer attention model that predicts the token at a target position from any set of
    visible positions — so the same parameters serve GPT, BERT and XLNet.

    Slot 0 is a beginning-of-sequence token (``BOS``, id V) at position 0, always visible, so a
    prediction from an empty context is defined; token k of the sequence sits at position k + 1.
    For a target position j the *query* is built from j's position embedding alone (the model
    knows *where* it predicts, not *what* is there — XLNet's query stream), the keys and values
    from token + position embeddings of the visible slots:

    ``q = P_{j+1} W_q``, ``K = (E_s + P_s) W_k``, ``Vv = (E_s + P_s) W_v`` over visible slots s,
    ``h = softmax(q Kᵀ / √H) Vv``, logits ``= (h + P_{j+1}) W_out`` ``(V,)``.

    Parameters: ``E (V+1, H)``, ``P (n+1, H)``, ``W_q, W_k, W_v (H, H)``, ``W_out (H, V)``.
    """

    def __init__(self, V: int, n: int, H: int = 8, seed: int = 0, scale: float = 1.0):
        self.V, self.n, self.H = (check_positive_int(V, "V"), check_positive_int(n, "n"),
                                  check_positive_int(H, "H"))
        # scale 0 is allowed: all projections zero, a model that predicts uniformly
        scale = _positive_number(scale, "scale", "a finite number >= 0", allow_zero=True)
        rng = np.random.default_rng(_seed(seed))
        s = scale / np.sqrt(H)
        self.params = {
            "E": rng.normal(0, 1, (V + 1, H)), "P": rng.normal(0, 1, (n + 1, H)),
            "W_q": rng.normal(0, s, (H, H)), "W_k": rng.normal(0, s, (H, H)),
            "W_v": rng.normal(0, s, (H, H)), "W_out": rng.normal(0, s, (H, V)),
        }

    def logits(self, ids: np.ndarray, visible: np.ndarray) -> np.ndarray:
        """Logits for every target position at once: ``ids (n,)``, ``visible (n, n+1)`` boolean
        (row j: which slots the prediction of position j may see; column 0 is BOS) ``-> (n, V)``.
        """
        ids = as_token_ids(ids, "ids", self.V, ndim=1)
        check_shape(ids, "ids", (self.n,))
        visible = np.asarray(visible)
        if visible.dtype != bool:
            raise TypeError(f"visible: expected a boolean array, got dtype {visible.dtype}")
        check_shape(visible, "visible", (self.n, self.n + 1))
        if not visible[:, 0].all():
            raise ValueError("visible: expected column 0 (BOS) to be visible in every row")
        p = self.params
        slots = np.concatenate([[self.V], ids])                    # BOS, then the tokens
        X = p["E"][slots] + p["P"]                                 # (n+1, H)
        Q = p["P"][1:] @ p["W_q"]                                  # (n, H): position only
        K, Vv = X @ p["W_k"], X @ p["W_v"]                         # (n+1, H)
        scores = np.where(visible, Q @ K.T / np.sqrt(self.H), -np.inf)
        h = softmax(scores, axis=-1) @ Vv                          # (n, H)
        return (h + p["P"][1:]) @ p["W_out"]                       # (n, V)

    def cond_log_prob(self, ids: np.ndarray, targets: Sequence[int], visible: Iterable[int]
                      ) -> float:
        """``Σ_{j ∈ targets} log P(X_j = x_j | X_S = x_S)``: each target predicted separately
        from the same visible set S (the model has no joint distribution over several targets).
        """
        ids = as_token_ids(ids, "ids", self.V, ndim=1)
        check_shape(ids, "ids", (self.n,))
        targets, visible = _positions(targets, self.n, "targets"), _positions(visible, self.n,
                                                                              "visible")
        if set(targets) & set(visible):
            raise ValueError(f"targets: expected positions not in visible, got {targets} "
                             f"and {visible}")
        vis = np.zeros((self.n, self.n + 1), dtype=bool)
        vis[:, 0] = True
        vis[:, [k + 1 for k in visible]] = True
        logits = self.logits(ids, vis)
        # log P(x_j | ...) = −(cross-entropy of the one token x_j under softmax(logits_j))
        return -cross_entropy_from_logits(logits[targets], ids[targets], reduction="sum")


def _objective_args(model: Any, ids: Any) -> np.ndarray:
    """Check the model and the ids of the chapter-17 objectives (before any loop over
    positions: with no position to predict, a wrong input would otherwise give 0.0)."""
    if not callable(getattr(model, "cond_log_prob", None)):
        raise TypeError(f"model: expected a model with a cond_log_prob(ids, targets, visible) "
                        f"method (JointTableModel, TinyAttentionModel), got {type(model).__name__}")
    if not isinstance(ids, (str, bytes)) and np.size(ids) == 0:   # [] would read as float64
        raise ValueError(f"ids: expected at least one token, got {ids!r}")
    ids = as_token_ids(ids, "ids", getattr(model, "V", None), ndim=1)
    n = getattr(model, "n", None)
    if n is not None:
        check_shape(ids, "ids", (n,))
    return ids


def gpt_log_likelihood(model, ids: np.ndarray) -> float:
    """GPT: ``Σ_{j=1}^n log P(x_j | x_1, …, x_{j−1})`` — each token from the tokens before it."""
    ids = _objective_args(model, ids)
    return xlnet_log_likelihood(model, ids, order=range(len(ids)))


def xlnet_log_likelihood(model, ids: np.ndarray, order: Sequence[int]) -> float:
    """XLNet for one factorisation order z (a permutation of 0..n−1, 0-based):
    ``Σ_t log P(x_{z_t} | x_{z_1}, …, x_{z_{t−1}})``.  The tokens stay where they are; only the
    order in which they are predicted changes.
    """
    ids = _objective_args(model, ids)
    order = _positions(order, len(ids), "order")
    if len(order) != len(ids):
        raise ValueError(f"order: expected a permutation of 0..{len(ids) - 1}, got {order}")
    return float(sum(model.cond_log_prob(ids, [z], order[:t]) for t, z in enumerate(order)))


def xlnet_expected_log_likelihood(model, ids: np.ndarray) -> float:
    """XLNet's objective: the average of :func:`xlnet_log_likelihood` over all n! orders
    (exhaustive, so only for small n; XLNet itself samples one order per sequence)."""
    ids = _objective_args(model, ids)
    n = len(ids)
    if n > 7:
        raise ValueError(f"ids: expected at most 7 tokens for an exhaustive average over orders, "
                         f"got {n} ({n}! orders)")
    vals = [xlnet_log_likelihood(model, ids, z) for z in permutations(range(n))]
    return float(np.mean(vals))


def bert_log_likelihood(model, ids: np.ndarray, masked: Sequence[int]) -> float:
    """BERT's objective: ``Σ_{j ∈ M} log P(x_j | x')``, each masked token predicted separately
    from the corrupted sequence x' (every position not in M).  Equals ``log P(x_M | x')`` only if
    the masked tokens are independent given x' (chapter 17)."""
    ids = _objective_args(model, ids)
    masked = _positions(masked, len(ids), "masked")
    if not masked:
        raise ValueError("masked: expected at least one masked position, got none")
    visible = [k for k in range(len(ids)) if k not in masked]
    return float(sum(model.cond_log_prob(ids, [j], visible) for j in masked))
