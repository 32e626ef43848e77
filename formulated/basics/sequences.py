"""Chapter 4, sequences before attention: cosine similarity, the RNN recurrence and
backpropagation through time, the LSTM cell.

Definitions: def-04-cosine, def-04-rnn, def-04-bptt, def-04-lstm (chapters/04_sequences.md).
Part of :mod:`formulated.basics`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import as_float_array, check_shape, checked
from ..formulas import sigmoid
from .networks import activation_pair, tanh

__all__ = [
    "cosine_similarity",
    "rnn_forward",
    "rnn_backward",
    "bptt_gradient_norms",
    "LSTMParams",
    "lstm_cell",
    "lstm_forward",
]


def _cosine_args(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = as_float_array(a, "a")
    b = as_float_array(b, "b")
    for name, v in (("a", a), ("b", b)):
        if v.ndim == 0 or v.shape[-1] == 0:
            raise ValueError(
                f"{name}: expected vectors along the last axis, "
                f"shape (..., H) with H >= 1, got shape {v.shape}"
            )
    if a.shape[-1:] != b.shape[-1:]:
        raise ValueError(
            f"b: expected vectors of width {a.shape[-1:]} like a, got shape {b.shape}"
        )
    try:
        np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    except ValueError:
        raise ValueError(
            f"b: expected leading dimensions that broadcast with a's "
            f"{a.shape[:-1]}, got shape {b.shape}"
        ) from None
    if np.any(np.linalg.norm(a, axis=-1) == 0) or np.any(
        np.linalg.norm(b, axis=-1) == 0
    ):
        raise ValueError(
            "a, b: expected non-zero vectors (the angle of a zero "
            "vector is undefined), got a zero vector"
        )
    return a, b


@checked(_cosine_args)
def cosine_similarity(a, b):
    """``cos(a, b) = a·b / (‖a‖ ‖b‖)`` along the last axis: ``(..., H) -> (...)``.

    The leading axes broadcast.

    Definition: def-04-cosine.
    Checked by: tests/test_basics.py::test_cosine_similarity_against_torch
    """
    na = np.linalg.norm(a, axis=-1)  # ‖a‖, (...)
    nb = np.linalg.norm(b, axis=-1)
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


def _rnn_forward_args(
    X: np.ndarray,
    h0: np.ndarray,
    W_xh: np.ndarray,
    W_hh: np.ndarray,
    b_h: np.ndarray,
    activation: str = "tanh",
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, str]:
    X, h0, W_xh, W_hh, b_h = _check_rnn(X, h0, W_xh, W_hh, b_h)
    activation_pair(activation)  # a known activation name
    return X, h0, W_xh, W_hh, b_h, activation


@checked(_rnn_forward_args)
def rnn_forward(X, h0, W_xh, W_hh, b_h, activation="tanh"):
    """The recurrence ``h_t = g(h_{t−1} W_hh + x_t W_xh + b_h)`` over a sequence.

    ``X (n, d)``, ``h0 (H,)``, ``W_xh (d, H)``, ``W_hh (H, H)``, ``b_h (H,)``
    ``-> (n, H)``, row t holding h_t.  The same weights serve every step.  (The slides
    write column vectors, ``W_hh h_{t−1}``; with rows the matrices act from the right.)

    Definition: def-04-rnn.
    Checked by: tests/test_basics.py::test_rnn_forward_against_nn_rnn
    """
    g, _ = activation_pair(activation)
    h = h0
    states = []
    for x_t in X:
        h = g(h @ W_hh + x_t @ W_xh + b_h)
        states.append(h)
    return np.array(states).reshape(len(X), W_hh.shape[0])


def _grad_from_output(activation: str, h: np.ndarray) -> np.ndarray:
    """g'(a) written with the output h = g(a) (what the forward pass kept)."""
    if activation == "tanh":
        return 1.0 - h**2
    if activation == "sigmoid":
        return h * (1.0 - h)
    if activation == "relu":
        return (h > 0).astype(np.float64)
    return np.ones_like(h)


def _rnn_backward_args(
    X: np.ndarray,
    h0: np.ndarray,
    W_xh: np.ndarray,
    W_hh: np.ndarray,
    b_h: np.ndarray,
    states: np.ndarray,
    dstates: np.ndarray,
    activation: str = "tanh",
) -> tuple[
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    str,
]:
    X, h0, W_xh, W_hh, b_h = _check_rnn(X, h0, W_xh, W_hh, b_h)
    n, H = len(X), W_hh.shape[0]
    states = as_float_array(states, "states", ndim=2)
    check_shape(states, "states", (n, H))
    dstates = as_float_array(dstates, "dstates", ndim=2)
    check_shape(dstates, "dstates", (n, H))
    activation_pair(activation)  # a known activation name
    return X, h0, W_xh, W_hh, b_h, states, dstates, activation


@checked(_rnn_backward_args)
def rnn_backward(X, h0, W_xh, W_hh, b_h, states, dstates, activation="tanh"):
    """Backpropagation through time for :func:`rnn_forward`.

    ``dstates (n, H)`` holds ∂L/∂h_t coming from the outputs at each step (zeros where a
    step has no loss).  Walking from t = n down to 1, the gradient reaching h_t is that
    direct part plus what flows back from h_{t+1}:  ``δ_t = ∂L/∂h_t``,
    ``∂L/∂a_t = δ_t ⊙ g'(a_t)``, ``δ_{t−1} += ∂L/∂a_t W_hhᵀ``.  Returns the gradients of
    ``W_xh, W_hh, b_h, h0, X`` and ``"dh"`` ``(n, H)``, the total ∂L/∂h_t at every step.

    Definition: def-04-bptt.
    Checked by: tests/test_basics.py::test_rnn_backward_against_autograd
    """
    n, H = len(X), W_hh.shape[0]
    grads = {
        "W_xh": np.zeros_like(W_xh),
        "W_hh": np.zeros_like(W_hh),
        "b_h": np.zeros_like(b_h),
        "X": np.zeros_like(X),
        "dh": np.zeros((n, H)),
    }
    carry = np.zeros(H)  # ∂L/∂h_t arriving from step t+1
    for t in reversed(range(n)):
        h_prev = states[t - 1] if t > 0 else h0
        dh = dstates[t] + carry
        grads["dh"][t] = dh
        da = dh * _grad_from_output(activation, states[t])  # through the activation
        grads["W_xh"] += np.outer(X[t], da)
        grads["W_hh"] += np.outer(h_prev, da)
        grads["b_h"] += da
        grads["X"][t] = da @ W_xh.T
        carry = da @ W_hh.T
    grads["h0"] = carry
    return grads


def bptt_gradient_norms(
    X: np.ndarray,
    h0: np.ndarray,
    W_xh: np.ndarray,
    W_hh: np.ndarray,
    b_h: np.ndarray,
    activation: str = "tanh",
) -> np.ndarray:
    """How much a loss on the last state feels each earlier state: ``‖∂L/∂h_t‖`` for t = 0..n.

    The loss is ``L = Σ_i (h_n)_i / √H`` (a fixed direction of unit length), so entry t is the
    size of the signal that backpropagation through time delivers to h_t after ``n − t`` steps
    back; entry 0 is h0.  Returns shape ``(n+1,)``.
    """
    X = as_float_array(X, "X", ndim=2)
    if len(X) == 0:
        raise ValueError(
            f"X: expected at least one time step (the loss sits on the last state "
            f"h_n), got shape {X.shape}"
        )
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
            raise ValueError(
                f"W_i: expected d + H > H rows (input width d ≥ 1), got shape {W.shape}"
            )

    @property
    def H(self) -> int:
        return self.W_i.shape[1]

    @property
    def d(self) -> int:
        return self.W_i.shape[0] - self.H


def _lstm_cell_args(
    x: np.ndarray, h_prev: np.ndarray, c_prev: np.ndarray, p: LSTMParams
) -> tuple:
    if not isinstance(p, LSTMParams):
        raise TypeError(f"p: expected LSTMParams, got {type(p).__name__}")
    x = as_float_array(x, "x", ndim=1)
    check_shape(x, "x", (p.d,))
    h_prev = as_float_array(h_prev, "h_prev", ndim=1)
    check_shape(h_prev, "h_prev", (p.H,))
    c_prev = as_float_array(c_prev, "c_prev", ndim=1)
    check_shape(c_prev, "c_prev", (p.H,))
    return x, h_prev, c_prev, p


@checked(_lstm_cell_args)
def lstm_cell(x, h_prev, c_prev, p):
    """One LSTM step: ``x (d,), h_{t−1}, C_{t−1} (H,) -> h_t, C_t (H,), gates``.

    ``i_t = σ([x_t, h_{t−1}] W_i + b_i)``, ``f_t = σ(… W_f + b_f)``,
    ``o_t = σ(… W_o + b_o)``, ``C̃_t = tanh(… W_C + b_C)``,
    ``C_t = f_t ⊙ C_{t−1} + i_t ⊙ C̃_t`` and — the equation the slides leave out —
    ``h_t = o_t ⊙ tanh(C_t)``.

    Definition: def-04-lstm.
    Checked by: tests/test_basics.py::test_lstm_against_nn_lstm
    """
    z = np.concatenate([x, h_prev])  # [x_t, h_{t−1}], (d + H,)
    i = sigmoid(z @ p.W_i + p.b_i)
    f = sigmoid(z @ p.W_f + p.b_f)
    c_tilde = tanh(z @ p.W_C + p.b_C)
    o = sigmoid(z @ p.W_o + p.b_o)
    c = f * c_prev + i * c_tilde
    h = o * tanh(c)
    return h, c, {"i": i, "f": f, "o": o, "C_tilde": c_tilde}


def lstm_forward(
    X: np.ndarray, h0: np.ndarray, c0: np.ndarray, p: LSTMParams
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
