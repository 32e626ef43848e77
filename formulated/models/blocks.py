"""The building blocks of the NumPy models of :mod:`formulated.models.reference`: GPT-3's
locally banded sparse masks (chapter 14), the multi-head attention with the biases real models
add, and the post-LN and pre-LN transformer blocks (chapter 12), built only from the core formulas
of :mod:`formulated.formulas`.  :mod:`formulated.models.reference` re-exports them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._checks import as_float_array, check_positive_int, check_shape, checked
from ..formulas import (
    attention,
    concat,
    ffn_gelu,
    ffn_relu,
    layer_norm,
    mask_autoregressive,
    multi_head_self_attention,
)
from .params import BIAS_FIELDS, Block, check_block

__all__ = [
    "GELU_KINDS",
    "FFN_KINDS",
    "mask_sparse_banded",
    "gpt3_masks",
    "default_window",
    "multi_head_self_attention_biased",
    "block_post_ln",
    "block_pre_ln",
]

#: The GELU forms the forwards accept (chapter 11): the boxes' sigmoid form, tanh, exact erf.
GELU_KINDS = ("sigmoid", "tanh", "erf")
#: The feed-forward networks a block accepts: GELU (every model) or ReLU (000's BERT box).
FFN_KINDS = ("gelu", "relu")


# ---------------------------------------------------------------------------------------------
# Masks: GPT-3's locally banded sparse attention
# ---------------------------------------------------------------------------------------------


def _mask_values(n: int, kind: str) -> tuple[Any, Any]:
    """The (allowed, blocked) entries that :func:`mask_autoregressive` uses for ``kind``, so the
    banded mask speaks exactly the same convention as the core masks."""
    ref = mask_autoregressive(2, kind=kind)
    return ref[1, 0], ref[0, 1]


def _mask_sparse_banded_args(
    n: Any, window: Any, kind: Any = "additive"
) -> tuple[int, int, Any]:
    # kind is checked where it is used, by mask_autoregressive (through _mask_values)
    return check_positive_int(n, "n"), check_positive_int(window, "window"), kind


@checked(_mask_sparse_banded_args)
def mask_sparse_banded(n, window, kind="additive"):
    """GPT-3's locally banded attention mask :math:`\\text{Mask}^{ST}`, ``(n, n)``.

    Position ``i`` may attend to position ``j`` iff ``0 ≤ i − j < window``: itself and
    the ``window − 1`` positions before it (the "local" pattern of the Sparse
    Transformer that GPT-3 cites).  It is causal, Toeplitz (depends on ``i − j`` only),
    and equals the autoregressive mask when ``window ≥ n``.  ``kind`` is as for
    :func:`mask_autoregressive`.

    Definition: def-14-banded.
    Checked by: tests/test_models.py::test_banded_mask_equals_gpt_neo_local_pattern
    """
    i, j = np.indices((n, n))
    allowed = (i - j >= 0) & (i - j < window)
    ok, blocked = _mask_values(n, kind)
    return np.where(allowed, ok, blocked).astype(np.float64)


def default_window(n_ctx: int) -> int:
    """Our default band width for GPT-3's sparse layers: ``⌈√n_ctx⌉``.

    The sources and the GPT-3 paper do not give the width; the Sparse Transformer chose its
    local window of the order of ``√n`` so that attention costs ``O(n√n)``."""
    return max(1, math.ceil(math.sqrt(check_positive_int(n_ctx, "n_ctx"))))


def gpt3_masks(n: int, L: int, window: int, kind: str = "additive") -> list[np.ndarray]:
    """The mask of each layer of GPT-3 (box of 001): layer ``l`` (1-based) uses the sparse banded
    mask when ``l`` is odd and the dense autoregressive mask when ``l`` is even.  Returned as a
    0-based list: ``masks[0]`` belongs to layer 1 (sparse)."""
    L = check_positive_int(L, "L")
    return [
        mask_sparse_banded(n, window, kind)
        if l % 2 == 1
        else mask_autoregressive(n, kind)
        for l in range(1, L + 1)
    ]


# ---------------------------------------------------------------------------------------------
# Building blocks
# ---------------------------------------------------------------------------------------------


def multi_head_self_attention_biased(
    X: np.ndarray, mask: np.ndarray, blk: Block
) -> np.ndarray:
    """``MultiHeadSA(X, Mask)`` of the box, plus the biases real models add, ``(n, H) -> (n, H)``.

    ``head_i = Attention(X W_i^Q + b_i^Q, X W_i^K + b_i^K, X W_i^V + b_i^V, Mask)`` and the result
    is ``Concat(head_1..head_A) W^O + b^O``.  Without biases this is exactly the core
    :func:`~formulated.formulas.multi_head_self_attention`, which is then called.  The biases
    must be finite and of shape ``b_q, b_k (A, D)``, ``b_v (A, D_v)``, ``b_o (H,)``: a wrong
    shape would otherwise broadcast silently.
    """
    b_q, b_k, b_v, b_o = _check_biases(blk)
    X = _check_block_input(X, blk)
    if b_q is None and b_k is None and b_v is None and b_o is None:
        return multi_head_self_attention(X, mask, blk.W_q, blk.W_k, blk.W_v, blk.W_o)
    A = blk.W_q.shape[0]

    def b(v: np.ndarray | None, W: np.ndarray) -> np.ndarray:
        return (
            np.zeros(W.shape[::2]) if v is None else v
        )  # (A, D): a missing bias acts as zero

    heads = [
        attention(
            X @ blk.W_q[i] + b(b_q, blk.W_q)[i],
            X @ blk.W_k[i] + b(b_k, blk.W_k)[i],
            X @ blk.W_v[i] + b(b_v, blk.W_v)[i],
            mask,
        )
        for i in range(A)
    ]
    out = concat(*heads) @ blk.W_o
    return out if b_o is None else out + b_o


def _check_biases(blk: Any) -> tuple[np.ndarray | None, ...]:
    """Check the block's weights and return its attention biases, each finite and of the shape
    its weight implies (``None`` kept)."""
    if not isinstance(blk, Block):
        raise TypeError(f"blk: expected a Block, got {type(blk).__name__}")
    W_q = as_float_array(blk.W_q, "blk.W_q", ndim=3)
    A, H, D = W_q.shape
    check_shape(as_float_array(blk.W_k, "blk.W_k", ndim=3), "blk.W_k", (A, H, D))
    W_v = as_float_array(blk.W_v, "blk.W_v", ndim=3)
    check_shape(W_v, "blk.W_v", (A, H, None))
    W_o = as_float_array(blk.W_o, "blk.W_o", ndim=2)
    check_shape(W_o, "blk.W_o", (A * W_v.shape[2], None))
    expected = {
        "b_q": (A, D),
        "b_k": (A, D),
        "b_v": (A, W_v.shape[2]),
        "b_o": (W_o.shape[1],),
    }
    out = []
    for name in BIAS_FIELDS:
        v = getattr(blk, name)
        if v is not None:
            v = as_float_array(v, f"blk.{name}")
            check_shape(v, f"blk.{name}", expected[name])
        out.append(v)
    return tuple(out)


def _check_block_input(X: Any, blk: Block) -> np.ndarray:
    """``X`` is an ``(n, H)`` sequence with the block's width ``H`` (rows of ``W_q[i]``)."""
    X = as_float_array(X, "X", ndim=2)
    check_shape(X, "X", (None, np.shape(blk.W_q)[1]))
    return X


def _check_block_options(gelu: Any, ffn: Any) -> None:
    if not isinstance(gelu, str) or gelu not in GELU_KINDS:
        raise ValueError(f"gelu: expected one of {GELU_KINDS}, got {gelu!r}")
    if not isinstance(ffn, str) or ffn not in FFN_KINDS:
        raise ValueError(f"ffn: expected one of {FFN_KINDS}, got {ffn!r}")


def _ffn(X: np.ndarray, blk: Block, gelu: str, ffn: str = "gelu") -> np.ndarray:
    _check_block_options(gelu, ffn)  # an unknown ffn must not fall through to GELU
    if ffn == "relu":
        return ffn_relu(X, blk.W_1, blk.b_1, blk.W_2, blk.b_2)
    return ffn_gelu(X, blk.W_1, blk.b_1, blk.W_2, blk.b_2, approximation=gelu)


def _block_args(
    X: Any,
    blk: Any,
    mask: Any,
    *,
    gelu: Any = "sigmoid",
    eps: Any = 1e-5,
    ffn: Any = "gelu",
) -> tuple:
    _check_block_options(gelu, ffn)
    check_block(blk, "blk")
    _check_biases(blk)
    return _check_block_input(X, blk), blk, mask, gelu, eps, ffn


def _pre_ln_args(
    X: Any, blk: Any, mask: Any, *, gelu: Any = "sigmoid", eps: Any = 1e-5
) -> tuple:
    return _block_args(X, blk, mask, gelu=gelu, eps=eps)[:5]


@checked(_block_args)
def block_post_ln(X, blk, mask, *, gelu="sigmoid", eps=1e-5, ffn="gelu"):
    """One post-LN layer (GPT, BERT, RoBERTa boxes), ``(n, H) -> (n, H)``.

    ``X' = LayerNorm(MultiHeadSA(X, Mask) + X)``, ``X_out = LayerNorm(FFN(X') + X')``.
    ``gelu`` is one of :data:`GELU_KINDS`, ``ffn`` ``"gelu"`` or ``"relu"`` (000's BERT
    box).

    Definition: def-12-post-ln.
    Checked by: tests/test_models.py::test_parity_with_transformers
    Checked by: tests/test_bad_input_numpy.py::test_block_relu_ffn_matches_torch
    """
    Xp = layer_norm(
        multi_head_self_attention_biased(X, mask, blk) + X, blk.gamma_1, blk.beta_1, eps
    )
    return layer_norm(_ffn(Xp, blk, gelu, ffn) + Xp, blk.gamma_2, blk.beta_2, eps)


@checked(_pre_ln_args)
def block_pre_ln(X, blk, mask, *, gelu="sigmoid", eps=1e-5):
    """One pre-LN layer (GPT-2, GPT-3 boxes), ``(n, H) -> (n, H)``.

    ``X' = MultiHeadSA(LayerNorm(X), Mask) + X``, ``X_out = FFN(LayerNorm(X')) + X'``.

    Definition: def-12-pre-ln.
    Checked by: tests/test_models.py::test_parity_with_transformers
    """
    Xp = (
        multi_head_self_attention_biased(
            layer_norm(X, blk.gamma_1, blk.beta_1, eps), mask, blk
        )
        + X
    )
    return _ffn(layer_norm(Xp, blk.gamma_2, blk.beta_2, eps), blk, gelu) + Xp
