"""GPT, GPT-2, GPT-3, BERT and RoBERTa as NumPy functions of their parameters (chapters 13–16).

Each model of the sources is a short boxed computation. Here each box is one function, built only
from the core formulas of :mod:`formulated.formulas` (``one_hot``, ``multi_head_self_attention``,
``attention``, ``concat``, ``ffn_gelu``, ``layer_norm``, ``softmax``, the masks, ``diag``,
``stack``).  Notation is the book's: ``V`` vocabulary size, ``n`` sequence length (at most the
context size ``n_ctx``), ``H`` model width, ``A`` heads, ``D`` width per head, ``F`` FFN width,
``L`` layers.  Math is 1-based, code is 0-based: token :math:`x_1` is ``x[0]``, layer
:math:`l = 1` is ``blocks[0]``.

The parameters (:class:`~formulated.models.params.Config`, the containers, the seeded
constructors and the parameter count) are in :mod:`formulated.models.params`, which describes
their layout; the building blocks (GPT-3's banded masks, the biased multi-head attention, the
post-LN and pre-LN blocks) are in :mod:`formulated.models.blocks`; the options ``gelu``
(the boxes use ``x·σ(1.702x)``; GPT and GPT-2 use the tanh approximation, BERT and RoBERTa
the exact erf form) and ``eps`` (the LayerNorm epsilon) are keyword options of the forward
functions here.

**Definitions.** A function that implements a boxed definition of the book names it in its
docstring (``Definition: def-11-ffn``) together with the tests that check it against an
independent reference (``Checked by: tests/...::test_...``); the book shows the function's
source under that box (:mod:`booktools.sphinx.source`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import (
    as_array,
    as_float_array,
    as_token_ids,
    check_positive_int,
    check_segment_ids,
    check_shape,
    checked,
    is_int,
)
from ..formulas import (
    diag,
    layer_norm,
    mask_autoregressive,
    mask_bidirectional,
    one_hot,
    softmax,
    stack,
)
from .blocks import GELU_KINDS, block_post_ln, block_pre_ln, default_window, gpt3_masks
from .params import BERTParams, Config, GPTParams, RoBERTaParams, check_params

__all__ = [
    "gpt_probabilities",
    "gpt",
    "decoder_pre_ln",
    "gpt2_probabilities",
    "gpt2",
    "gpt3_probabilities",
    "gpt3",
    "bert_input",
    "roberta_input",
    "bert_probabilities",
    "bert",
    "roberta_probabilities",
    "roberta",
]


# ---------------------------------------------------------------------------------------------
# Input checks shared by the forwards
# ---------------------------------------------------------------------------------------------


def _check_gelu(gelu: str) -> None:
    # eps is not checked here: every model reaches it through formulas.layer_norm, which applies
    # the one rule for it (_checks.check_eps) where it divides.
    if not isinstance(gelu, str) or gelu not in GELU_KINDS:
        raise ValueError(f"gelu: expected one of {GELU_KINDS}, got {gelu!r}")


def _check_ids(x: Any, cfg: Config, name: str = "x") -> np.ndarray:
    """Token ids ``(n,)`` or a batch ``(B, n)``, each in ``0..V-1``, with ``1 ≤ n ≤ n_ctx``."""
    x = as_array(x, name)  # a ragged batch is named here, before its size is read
    if x.size == 0:  # [] is a float array to NumPy: say "empty", not "float ids"
        raise ValueError(f"{name}: expected at least one token, got shape {x.shape}")
    ids = as_token_ids(x, name, cfg.V, ndim=(1, 2))
    n = ids.shape[-1]
    if n == 0:
        raise ValueError(f"{name}: expected at least one token, got shape {ids.shape}")
    if n > cfg.n_ctx:
        raise ValueError(
            f"{name}: expected a sequence of at most n_ctx={cfg.n_ctx} tokens "
            f"(the rows of W_p), got n={n}"
        )
    return ids


def _batched(fn: Any, ids: np.ndarray, *others: np.ndarray) -> np.ndarray:
    """Apply a one-sequence function to each row of a batch (the boxes are per sequence)."""
    if ids.ndim == 1:
        return fn(ids, *others)
    return np.stack([fn(row, *(o[b] for o in others)) for b, row in enumerate(ids)])


def _select_row(Y: np.ndarray, j: Any, name: str) -> np.ndarray:
    n = Y.shape[-2]
    if not is_int(j):
        raise TypeError(f"{name}: expected an integer position (0-based), got {j!r}")
    if not 0 <= j < n:
        raise ValueError(
            f"{name}: expected a position in 0..{n - 1} (0-based), got {j}"
        )
    return Y[..., j, :]


def _embed_args(
    ids: Any, W_e: Any, W_p: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    W_e = as_float_array(W_e, "W_e", ndim=2)
    W_p = as_float_array(W_p, "W_p", ndim=2)
    check_shape(W_p, "W_p", (None, W_e.shape[1]))
    ids = as_token_ids(ids, "ids", W_e.shape[0], ndim=1)
    if len(ids) > W_p.shape[0]:
        raise ValueError(
            f"ids: expected at most n_ctx={W_p.shape[0]} positions (the rows of "
            f"W_p), got {len(ids)}"
        )
    return ids, W_e, W_p


@checked(_embed_args)
def _embed(ids, W_e, W_p):
    """The boxes' embedding ``X_0 = OneHot(x) W_e + W_p[:n]``: ``(n,) -> (n, H)``.

    Shapes: ``ids (n,)``, ``W_e (V, H)``, ``W_p (n_ctx, H)`` with ``n <= n_ctx``
    ``-> (n, H)``.

    Definition: def-07-input.
    Checked by: tests/test_models.py::test_input_embedding_is_the_first_hidden_state
    """
    return one_hot(ids, W_e.shape[0]) @ W_e + W_p[: len(ids)]


# ---------------------------------------------------------------------------------------------
# GPT (post-LN), GPT-2 (pre-LN + final LayerNorm), GPT-3 (GPT-2 with sparse layers)
# ---------------------------------------------------------------------------------------------


def _gpt_args(x: Any, params: Any, *, gelu: Any = "sigmoid", eps: Any = 1e-5) -> tuple:
    cfg = _check_gpt(params, need_final=False)
    _check_gelu(gelu)
    return _check_ids(x, cfg), params, gelu, eps


@checked(_gpt_args)
def gpt_probabilities(x, params, *, gelu="sigmoid", eps=1e-5):
    """The GPT box's matrix ``Y = Softmax(X_L W_eᵀ)``: ``(n,) -> (n, V)``.

    Batched, ``(B, n) -> (B, n, V)``.

    Row ``i`` (0-based) is the distribution of the token after ``x[0..i]``.  Post-LN
    layers, autoregressive mask, de-embedding with the tied ``W_e``.  ``gelu`` picks the
    GELU form (``"sigmoid"``: the box's ``x·σ(1.702x)``; the real GPT uses ``"tanh"``).

    Definition: def-13-gpt.
    Checked by: tests/test_models.py::test_parity_with_transformers
    """

    def one(seq):  # (n,) -> (n, V); x may be a batch
        X = _embed(seq, params.W_e, params.W_p)  # (n, H)
        mask = mask_autoregressive(len(seq))
        for blk in params.blocks:
            X = block_post_ln(X, blk, mask, gelu=gelu, eps=eps)
        return softmax(X @ params.W_e.T)

    return _batched(one, x)


def gpt(x: Any, params: GPTParams, **options: Any) -> np.ndarray:
    """``GPT(x) = Y_{n,:}``: the next-token distribution after the whole sequence, ``(V,)``
    (``(B, V)`` for a batch).  Options as in :func:`gpt_probabilities`."""
    return gpt_probabilities(x, params, **options)[..., -1, :]


def _check_gpt(params: Any, need_final: bool) -> Config:
    if not isinstance(params, GPTParams):
        raise TypeError(f"params: expected GPTParams, got {type(params).__name__}")
    cfg = check_params(params)
    if need_final and (params.gamma_f is None or params.beta_f is None):
        raise ValueError(
            "params.gamma_f/beta_f: GPT-2 and GPT-3 need the final LayerNorm, got "
            "None (build the parameters with init_gpt2)"
        )
    return cfg


def _gpt2_args(x: Any, params: Any, *, gelu: Any = "sigmoid", eps: Any = 1e-5) -> tuple:
    cfg = _check_gpt(params, need_final=True)
    _check_gelu(gelu)
    return _check_ids(x, cfg), params, gelu, eps


def _gpt3_args(
    x: Any, params: Any, *, window: Any = None, gelu: Any = "sigmoid", eps: Any = 1e-5
) -> tuple:
    cfg = _check_gpt(params, need_final=True)
    _check_gelu(gelu)
    ids = _check_ids(x, cfg)
    w = (
        default_window(cfg.n_ctx)
        if window is None
        else check_positive_int(window, "window")
    )
    return ids, params, w, gelu, eps


def _decoder_args(
    X: Any, params: Any, masks: Any, *, gelu: Any = "sigmoid", eps: Any = 1e-5
) -> tuple:
    if (
        not isinstance(params, GPTParams)
        or params.gamma_f is None
        or params.beta_f is None
    ):
        raise TypeError(
            f"params: expected GPTParams with the final LayerNorm (gamma_f, "
            f"beta_f), got {type(params).__name__}"
        )
    masks = list(masks)
    if len(masks) != len(params.blocks):
        raise ValueError(
            f"masks: expected one mask per layer (L={len(params.blocks)}), "
            f"got {len(masks)}"
        )
    return X, params, masks, gelu, eps


@checked(_decoder_args)
def decoder_pre_ln(X, params, masks, *, gelu="sigmoid", eps=1e-5):
    """GPT-2's layers and de-embedding: ``X_0 (n, H) -> Y (n, V)``.

    ``Y = Softmax(LayerNorm_f(X_L) W_eᵀ)``; pre-LN layer ``l`` uses ``masks[l]`` (GPT-2:
    all autoregressive; GPT-3: dense and banded in turn).

    Definition: def-14-gpt2.
    Checked by: tests/test_models.py::test_parity_with_transformers
    """
    for blk, mask in zip(params.blocks, masks):
        X = block_pre_ln(X, blk, mask, gelu=gelu, eps=eps)
    X = layer_norm(X, params.gamma_f, params.beta_f, eps)  # the final LayerNorm
    return softmax(X @ params.W_e.T)  # (n, V)


@checked(_gpt2_args)
def gpt2_probabilities(x, params, *, gelu="sigmoid", eps=1e-5):
    """The GPT-2 box's matrix ``Softmax(LayerNorm(X_L) W_eᵀ)``: ``(n,) -> (n, V)``.

    Batched, ``(B, n) -> (B, n, V)``.  Pre-LN layers and a final LayerNorm; the real
    GPT-2 uses ``gelu="tanh"``.

    Definition: def-14-gpt2.
    Checked by: tests/test_models.py::test_parity_with_transformers
    """

    def one(seq):  # (n,) -> (n, V); x may be a batch
        X = _embed(seq, params.W_e, params.W_p)  # (n, H)
        masks = [mask_autoregressive(len(seq))] * len(params.blocks)  # all causal
        return decoder_pre_ln(X, params, masks, gelu=gelu, eps=eps)

    return _batched(one, x)


def gpt2(x: Any, params: GPTParams, **options: Any) -> np.ndarray:
    """``GPT-2(x)``: the last row of :func:`gpt2_probabilities`, ``(V,)`` or ``(B, V)``."""
    return gpt2_probabilities(x, params, **options)[..., -1, :]


@checked(_gpt3_args)
def gpt3_probabilities(x, params, *, window=None, gelu="sigmoid", eps=1e-5):
    """The GPT-3 box's matrix: GPT-2 with banded odd layers, ``(n,) -> (n, V)``.

    Its odd layers (1-based) use :func:`~formulated.models.blocks.mask_sparse_banded`.

    ``window`` is the band width (default :func:`default_window` of ``n_ctx``).  Shapes
    as in :func:`gpt2_probabilities`.

    Definition: def-14-gpt3.
    Checked by: tests/test_models.py::test_parity_with_transformers
    Checked by:
    tests/test_models.py::test_gpt3_default_window_matches_gpt_neo_with_that_window
    """

    def one(seq):  # (n,) -> (n, V); x may be a batch
        X = _embed(seq, params.W_e, params.W_p)  # (n, H)
        masks = gpt3_masks(len(seq), len(params.blocks), window)  # dense, banded, ...
        return decoder_pre_ln(X, params, masks, gelu=gelu, eps=eps)

    return _batched(one, x)


def gpt3(x: Any, params: GPTParams, **options: Any) -> np.ndarray:
    """``GPT-3(x)``: the last row of :func:`gpt3_probabilities`, ``(V,)`` or ``(B, V)``."""
    return gpt3_probabilities(x, params, **options)[..., -1, :]


# ---------------------------------------------------------------------------------------------
# BERT and RoBERTa
# ---------------------------------------------------------------------------------------------


def _masked_copy(
    x: np.ndarray, j_masked: Any, specials: set[int], mask_id: int
) -> np.ndarray:
    """``x`` with position ``j_masked`` (a sentence token, not one of ``specials``) replaced
    by ``mask_id``; ``None`` masks nothing."""
    x_masked = x.copy()
    if j_masked is not None:
        content = [i for i in range(len(x)) if i not in specials]
        if not is_int(j_masked) or j_masked not in content:
            raise ValueError(
                f"j_masked: expected the 0-based position of a sentence "
                f"token, one of {content}, got {j_masked!r}"
            )
        x_masked[j_masked] = mask_id
    return x_masked


def _bert_input_args(
    x_A: Any, x_B: Any, j_masked: Any, *, cls_id: Any, sep_id: Any, mask_id: Any
) -> tuple:
    a = as_token_ids(x_A, "x_A", ndim=1)
    b = as_token_ids(x_B, "x_B", ndim=1)
    _check_special_ids(cls_id=cls_id, sep_id=sep_id, mask_id=mask_id)
    return a, b, j_masked, cls_id, sep_id, mask_id


@checked(_bert_input_args)
def bert_input(x_A, x_B, j_masked, *, cls_id, sep_id, mask_id):
    """Build BERT's input from two sentences (001's construction), 0-based.

    ``x = ([CLS], x_A, [SEP], x_B, [SEP])`` of length ``n = n_A + n_B + 3``; the segment
    ids are ``t_i = 0`` for ``[CLS]``, sentence A and the first ``[SEP]`` and ``1``
    after it; ``x'`` is ``x`` with position ``j_masked`` replaced by ``[MASK]``
    (``None``: nothing masked).  Only a position of a real token (not
    ``[CLS]``/``[SEP]``) may be masked.

    Returns ``(x', t, x)``, three int arrays of shape ``(n,)``.

    Definition: def-15-input.
    Checked by: tests/test_models.py::test_bert_input_matches_the_bert_tokenizer
    """
    x = np.concatenate([[cls_id], x_A, [sep_id], x_B, [sep_id]]).astype(np.int64)
    n_A = len(x_A)
    # 1-based i ≤ n_A + 2  ⇔  0-based i ≤ n_A + 1
    t = (np.arange(len(x)) > n_A + 1).astype(np.int64)
    x_masked = _masked_copy(x, j_masked, {0, n_A + 1, len(x) - 1}, mask_id)  # x'
    return x_masked, t, x


def _check_special_ids(**specials: Any) -> None:
    for name, v in specials.items():
        if not is_int(v) or v < 0:
            raise ValueError(
                f"{name}: expected a non-negative integer token id, got {v!r}"
            )


def _roberta_input_args(
    x_A: Any, x_B: Any, j_masked: Any, *, bos_id: Any, eos_id: Any, mask_id: Any
) -> tuple:
    a = as_token_ids(x_A, "x_A", ndim=1)
    _check_special_ids(bos_id=bos_id, eos_id=eos_id, mask_id=mask_id)
    b = None if x_B is None else as_token_ids(x_B, "x_B", ndim=1)
    return a, b, j_masked, bos_id, eos_id, mask_id


@checked(_roberta_input_args)
def roberta_input(x_A, x_B, j_masked, *, bos_id, eos_id, mask_id):
    """RoBERTa's input ``<s> x_A </s></s> x_B </s>``: ``(x', x)``, each ``(n,)``.

    ``<s> x_A </s>`` for one sentence; for a pair the real tokenizer doubles the
    separator between sentences.  No segment ids.  ``x'`` is ``x`` with position
    ``j_masked`` (0-based, a sentence token) replaced by ``<mask>``.  The special ids
    must be non-negative integers, as for :func:`bert_input`.

    Definition: def-15-roberta.
    Checked by: tests/test_models.py::test_roberta_input_matches_the_roberta_tokenizer
    """
    parts = [[bos_id], x_A, [eos_id]]
    if x_B is not None:
        parts += [[eos_id], x_B, [eos_id]]
    x = np.concatenate(parts).astype(np.int64)
    specials = {0, len(x_A) + 1, len(x) - 1} | (
        {len(x_A) + 2} if x_B is not None else set()
    )
    return _masked_copy(x, j_masked, specials, mask_id), x  # (x', x)


def _encoder_head(
    X: np.ndarray, p: BERTParams | RoBERTaParams, gelu: str, eps: float
) -> np.ndarray:
    """De-embedding ``Softmax(X_L W_eᵀ)``, with the MLM head transform and output bias when the
    parameters carry them (the boxes omit both)."""
    if p.W_t is not None:
        from ..formulas import gelu as gelu_fn

        X = layer_norm(
            gelu_fn(X @ p.W_t + p.b_t, approximation=gelu), p.gamma_t, p.beta_t, eps
        )
    logits = X @ p.W_e.T
    if p.b_out is not None:
        logits = logits + p.b_out
    return softmax(logits)


def _check_encoder(params: Any, cls: type) -> Config:
    if not isinstance(params, cls):
        raise TypeError(f"params: expected {cls.__name__}, got {type(params).__name__}")
    cfg = check_params(params)
    groups = [("gamma_e", "beta_e"), ("W_t", "b_t", "gamma_t", "beta_t")]
    for g in groups:
        present = [getattr(params, k) is not None for k in g]
        if any(present) and not all(present):
            raise ValueError(
                f"params: expected all or none of {g}, got "
                f"{[k for k, p in zip(g, present) if p]} only"
            )
    return cfg


def _bert_args(
    x: Any,
    t: Any,
    params: Any,
    *,
    gelu: Any = "sigmoid",
    ffn: Any = "gelu",
    eps: Any = 1e-5,
) -> tuple:
    cfg = _check_encoder(params, BERTParams)
    _check_gelu(gelu)
    if ffn not in ("gelu", "relu"):
        raise ValueError(f"ffn: expected 'gelu' or 'relu', got {ffn!r}")
    ids = _check_ids(x, cfg)
    return ids, check_segment_ids(t, ids), params, gelu, ffn, eps


@checked(_bert_args)
def bert_probabilities(x, t, params, *, gelu="sigmoid", ffn="gelu", eps=1e-5):
    """The BERT box's ``Softmax(X_L W_eᵀ)``: ``(n,), (n,) -> (n, V)``, or batched.

    ``X_0 = OneHot(x) W_e + W_p + diag(1 − t) Stack_n(w_A) + diag(t) Stack_n(w_B)``: the
    segment vector ``w_A`` goes to the tokens with ``t_i = 0`` (sentence A, as 001
    builds ``t``) — the box itself writes ``diag(t)`` in front of ``w_A``, which pairs
    the labels the other way round.  Post-LN layers with the bidirectional mask.
    ``ffn="relu"`` gives 000's BERT box; the real BERT uses ``gelu="erf"`` and
    ``eps=1e-12`` and the omitted pieces of :class:`BERTParams`.  Row ``j`` is the
    distribution of the token at position ``j``.

    Definition: def-15-bert.
    Checked by: tests/test_models.py::test_parity_with_transformers
    """

    def one(seq, ts):  # (n,), (n,) -> (n, V)
        n = len(seq)
        X = _embed(seq, params.W_e, params.W_p)
        X = X + diag(1.0 - ts) @ stack(params.w_A, n) + diag(ts) @ stack(params.w_B, n)
        # omitted by the box: LayerNorm of the embeddings
        if params.gamma_e is not None:
            X = layer_norm(X, params.gamma_e, params.beta_e, eps)
        mask = mask_bidirectional(n)
        for blk in params.blocks:
            X = block_post_ln(X, blk, mask, gelu=gelu, eps=eps, ffn=ffn)
        return _encoder_head(X, params, gelu, eps)

    return _batched(one, x, t)


def bert(
    x: Any, t: Any, params: BERTParams, *, j_masked: int, **options: Any
) -> np.ndarray:
    """``BERT(x') = Y_{j_masked,:}``: the distribution of the masked token, ``(V,)``
    (``j_masked`` 0-based).  Options as in :func:`bert_probabilities`."""
    Y = bert_probabilities(x, t, params, **options)
    return _select_row(Y, j_masked, "j_masked")


def _roberta_args(
    x: Any, params: Any, *, gelu: Any = "sigmoid", eps: Any = 1e-5
) -> tuple:
    cfg = _check_encoder(params, RoBERTaParams)
    _check_gelu(gelu)
    ids = _check_ids(x, cfg)
    if params.pad_id is not None and np.any(ids == params.pad_id):
        raise ValueError(
            f"x: contains the padding id {params.pad_id}; this forward "
            f"handles unpadded sequences only "
            f"(padding shifts RoBERTa's positions)"
        )
    return ids, params, gelu, eps


@checked(_roberta_args)
def roberta_probabilities(x, params, *, gelu="sigmoid", eps=1e-5):
    """The RoBERTa box's ``Softmax(X_L W_eᵀ)``: ``(n,) -> (n, V)``, or batched.

    BERT without segment ids: ``X_0 = OneHot(x) W_e + W_p``, post-LN layers with GELU
    and the bidirectional mask.  The real model uses ``gelu="erf"``, ``eps=1e-5`` and
    the omitted pieces of :class:`RoBERTaParams`.

    Definition: def-15-roberta.
    Checked by: tests/test_models.py::test_parity_with_transformers
    """

    def one(seq):  # (n,) -> (n, V)
        n = len(seq)
        X = _embed(seq, params.W_e, params.W_p)
        # omitted by the box: the single token-type vector
        if params.w_type is not None:
            X = X + stack(params.w_type, n)
        if params.gamma_e is not None:
            X = layer_norm(X, params.gamma_e, params.beta_e, eps)
        mask = mask_bidirectional(n)
        for blk in params.blocks:
            X = block_post_ln(X, blk, mask, gelu=gelu, eps=eps)
        return _encoder_head(X, params, gelu, eps)

    return _batched(one, x)


def roberta(
    x: Any, params: RoBERTaParams, *, j_masked: int, **options: Any
) -> np.ndarray:
    """``RoBERTa(x') = Y_{j_masked,:}``, ``(V,)`` (``j_masked`` 0-based)."""
    return _select_row(
        roberta_probabilities(x, params, **options), j_masked, "j_masked"
    )
