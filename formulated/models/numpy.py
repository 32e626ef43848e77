"""GPT, GPT-2, GPT-3, BERT and RoBERTa as NumPy functions of their parameters (chapters 13–16).

Each model of the sources is a short boxed computation. Here each box is one function, built only
from the core formulas of :mod:`formulated.formulas` (``one_hot``, ``multi_head_self_attention``,
``attention``, ``concat``, ``ffn_gelu``, ``layer_norm``, ``softmax``, the masks, ``diag``,
``stack``).  Notation is the book's: ``V`` vocabulary size, ``n`` sequence length (at most the
context size ``n_ctx``), ``H`` model width, ``A`` heads, ``D`` width per head, ``F`` FFN width,
``L`` layers.  Math is 1-based, code is 0-based: token :math:`x_1` is ``x[0]``, layer
:math:`l = 1` is ``blocks[0]``.

Parameter containers
--------------------
A container is a dataclass whose array fields carry the names of the boxes.  **Layout** (all
arrays are float NumPy arrays; the layers are a Python list, one :class:`Block` per layer):

=================  ==================  =====================================================
field              shape               meaning
=================  ==================  =====================================================
``W_e``            ``(V, H)``          token embedding; row ``v`` embeds token id ``v``
``W_p``            ``(n_ctx, H)``      learned positions; row ``i`` is added at position ``i``
``blocks[l].W_q``  ``(A, H, D)``       ``W_q[i]`` is head ``i``'s query matrix :math:`W_i^Q`
``blocks[l].W_k``  ``(A, H, D)``       keys, likewise
``blocks[l].W_v``  ``(A, H, D)``       values, likewise
``blocks[l].W_o``  ``(A*D, H)``        output projection :math:`W^O`; rows ``i*D:(i+1)*D``
                                       multiply head ``i`` (the order of ``Concat``)
``blocks[l].W_1``  ``(H, F)``          FFN, first layer;  ``b_1``: ``(F,)``
``blocks[l].W_2``  ``(F, H)``          FFN, second layer; ``b_2``: ``(H,)``
``gamma_1/beta_1`` ``(H,)``            the LayerNorm around the attention sublayer
``gamma_2/beta_2`` ``(H,)``            the LayerNorm around the FFN sublayer
``gamma_f/beta_f`` ``(H,)``            final LayerNorm (GPT-2 and GPT-3 only)
=================  ==================  =====================================================

Every product is *row-vector times matrix* (``X @ W``), as in the boxes; a PyTorch
``nn.Linear`` stores the transpose (``weight`` is ``(out, in)``), a Hugging Face ``Conv1D``
stores it as is (``(in, out)``) — see :mod:`formulated.models.hf`.

Fields that default to ``None`` are pieces **the boxes omit** but real models have (attention
biases, BERT's embedding LayerNorm and MLM head, ...).  ``None`` means "compute what the box
says"; a loader from a real model fills them in.  Two choices the boxes make differently from
the real models are keyword options of the forward functions instead: ``gelu`` (the boxes use
``x·σ(1.702x)``; GPT and GPT-2 use the tanh approximation, BERT and RoBERTa the exact erf
form) and ``eps`` (the LayerNorm epsilon).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np

from .._checks import (as_float_array, as_token_ids, check_finite, check_positive_int,
                      check_segment_ids, check_shape)
from ..formulas import (attention, concat, diag, ffn_gelu, ffn_relu, layer_norm,
                       mask_autoregressive, mask_bidirectional, multi_head_self_attention,
                       one_hot, softmax, stack)

__all__ = [
    "Config", "Block", "GPTParams", "BERTParams", "RoBERTaParams",
    "init_gpt", "init_gpt2", "init_gpt3", "init_bert", "init_roberta",
    "check_params", "num_parameters", "named_arrays",
    "parameter_count", "parameter_breakdown",
    "mask_sparse_banded", "gpt3_masks", "default_window",
    "multi_head_self_attention_biased", "block_post_ln", "block_pre_ln",
    "gpt_probabilities", "gpt", "gpt2_probabilities", "gpt2", "gpt3_probabilities", "gpt3",
    "bert_input", "roberta_input", "bert_probabilities", "bert",
    "roberta_probabilities", "roberta",
]

GELU_KINDS = ("sigmoid", "tanh", "erf")
FFN_KINDS = ("gelu", "relu")


# ---------------------------------------------------------------------------------------------
# Configuration and parameter containers
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Config:
    """Hyperparameters of a transformer: ``V, n_ctx, H, A, L`` and optionally ``F, D``.

    ``F`` defaults to ``4H`` and ``D`` to ``H // A`` (then ``H`` must be divisible by ``A``), the
    choices of every model in the book.  ``n_ctx`` is the context size: the number of rows of
    ``W_p`` and the longest sequence a model accepts (the boxes call it ``n``).
    """

    V: int
    n_ctx: int
    H: int
    A: int
    L: int
    F: int | None = None
    D: int | None = None

    def __post_init__(self) -> None:
        for name in ("V", "n_ctx", "H", "A", "L"):
            object.__setattr__(self, name, check_positive_int(getattr(self, name), name))
        if self.F is None:
            object.__setattr__(self, "F", 4 * self.H)
        if self.D is None:
            if self.H % self.A:
                raise ValueError(f"D: expected H divisible by A to default D = H // A, got "
                                 f"H={self.H}, A={self.A}; pass D explicitly")
            object.__setattr__(self, "D", self.H // self.A)
        object.__setattr__(self, "F", check_positive_int(self.F, "F"))
        object.__setattr__(self, "D", check_positive_int(self.D, "D"))


@dataclass
class Block:
    """One transformer layer: multi-head attention, FFN and two LayerNorms (shapes in the module
    docstring).  ``b_q, b_k, b_v`` (``(A, D)``) and ``b_o`` (``(H,)``) are the attention biases
    that the boxes omit; ``None`` means no bias, as in the boxes."""

    W_q: np.ndarray
    W_k: np.ndarray
    W_v: np.ndarray
    W_o: np.ndarray
    W_1: np.ndarray
    b_1: np.ndarray
    W_2: np.ndarray
    b_2: np.ndarray
    gamma_1: np.ndarray
    beta_1: np.ndarray
    gamma_2: np.ndarray
    beta_2: np.ndarray
    b_q: np.ndarray | None = None
    b_k: np.ndarray | None = None
    b_v: np.ndarray | None = None
    b_o: np.ndarray | None = None


@dataclass
class GPTParams:
    """Parameters of GPT, GPT-2 and GPT-3: ``W_e (V, H)``, ``W_p (n_ctx, H)``, ``L`` blocks, and
    the final LayerNorm ``gamma_f, beta_f (H,)`` that GPT-2 and GPT-3 add (``None`` for GPT)."""

    config: Config
    W_e: np.ndarray
    W_p: np.ndarray
    blocks: list[Block]
    gamma_f: np.ndarray | None = None
    beta_f: np.ndarray | None = None


@dataclass
class BERTParams:
    """Parameters of BERT.  The box's: ``W_e (V, H)``, ``W_p (n_ctx, H)``, the segment vectors
    ``w_A, w_B (H,)`` and ``L`` blocks.  Omitted by the box (``None`` = as in the box):

    - ``gamma_e, beta_e (H,)``: the LayerNorm applied to the embedding sum;
    - ``W_t (H, H), b_t (H,), gamma_t, beta_t (H,)``: the MLM head's transform
      ``LayerNorm(GELU(X W_t + b_t))`` applied before de-embedding;
    - ``b_out (V,)``: the output bias added to the logits.
    """

    config: Config
    W_e: np.ndarray
    W_p: np.ndarray
    w_A: np.ndarray
    w_B: np.ndarray
    blocks: list[Block]
    gamma_e: np.ndarray | None = None
    beta_e: np.ndarray | None = None
    W_t: np.ndarray | None = None
    b_t: np.ndarray | None = None
    gamma_t: np.ndarray | None = None
    beta_t: np.ndarray | None = None
    b_out: np.ndarray | None = None


@dataclass
class RoBERTaParams:
    """Parameters of RoBERTa: ``W_e (V, H)``, ``W_p (n_ctx, H)``, ``L`` blocks.  Omitted by the
    box, as for :class:`BERTParams`: ``gamma_e, beta_e, W_t, b_t, gamma_t, beta_t, b_out``, plus

    - ``w_type (H,)``: RoBERTa has no segments, but its implementation still adds one
      token-type vector to every position (a single-row token-type table);
    - ``pad_id``: the padding token id.  The real model counts positions after skipping padding
      (its position table starts at row ``pad_id + 1``); this forward handles unpadded
      sequences only, and rejects ``pad_id`` inside ``x`` when it is set.
    """

    config: Config
    W_e: np.ndarray
    W_p: np.ndarray
    blocks: list[Block]
    w_type: np.ndarray | None = None
    gamma_e: np.ndarray | None = None
    beta_e: np.ndarray | None = None
    W_t: np.ndarray | None = None
    b_t: np.ndarray | None = None
    gamma_t: np.ndarray | None = None
    beta_t: np.ndarray | None = None
    b_out: np.ndarray | None = None
    pad_id: int | None = None


Params = GPTParams | BERTParams | RoBERTaParams


def _expected_shapes(cfg: Config) -> dict[str, tuple[int, ...]]:
    V, n, H, A, D, F = cfg.V, cfg.n_ctx, cfg.H, cfg.A, cfg.D, cfg.F
    return {
        "W_e": (V, H), "W_p": (n, H), "w_A": (H,), "w_B": (H,), "w_type": (H,),
        "gamma_f": (H,), "beta_f": (H,), "gamma_e": (H,), "beta_e": (H,),
        "W_t": (H, H), "b_t": (H,), "gamma_t": (H,), "beta_t": (H,), "b_out": (V,),
        "W_q": (A, H, D), "W_k": (A, H, D), "W_v": (A, H, D), "W_o": (A * D, H),
        "W_1": (H, F), "b_1": (F,), "W_2": (F, H), "b_2": (H,),
        "gamma_1": (H,), "beta_1": (H,), "gamma_2": (H,), "beta_2": (H,),
        "b_q": (A, D), "b_k": (A, D), "b_v": (A, D), "b_o": (H,),
    }


def named_arrays(params: Params) -> Iterator[tuple[str, np.ndarray]]:
    """Yield ``(name, array)`` for every parameter array present (``None`` fields skipped).

    Names are ``"W_e"``, ``"blocks[0].W_q"``, ... (0-based layer index)."""
    for f in dataclasses.fields(params):
        value = getattr(params, f.name)
        if f.name == "blocks":
            for l, blk in enumerate(value):
                for g in dataclasses.fields(blk):
                    arr = getattr(blk, g.name)
                    if arr is not None:
                        yield f"blocks[{l}].{g.name}", arr
        elif isinstance(value, np.ndarray):
            yield f.name, value


def check_params(params: Params) -> Config:
    """Check every array of ``params`` against ``params.config``; return the config.

    Raises ``ValueError`` naming the first array whose shape disagrees (e.g. parameters built for
    one config and paired with another) or that holds NaN or ±inf, ``TypeError`` for a
    non-array or non-float array, a ``blocks`` that is not a list of :class:`Block`, or (RoBERTa)
    a ``pad_id`` that is not an integer id in ``0..V-1``."""
    if not isinstance(params, (GPTParams, BERTParams, RoBERTaParams)):
        raise TypeError(f"params: expected GPTParams, BERTParams or RoBERTaParams, "
                        f"got {type(params).__name__}")
    cfg = params.config
    if not isinstance(cfg, Config):
        raise TypeError(f"params.config: expected a Config, got {type(cfg).__name__}")
    if not isinstance(params.blocks, (list, tuple)):
        raise TypeError(f"params.blocks: expected a list of L={cfg.L} Block objects, "
                        f"got {type(params.blocks).__name__}")
    if len(params.blocks) != cfg.L:
        raise ValueError(f"params.blocks: expected L={cfg.L} blocks (config), "
                         f"got {len(params.blocks)}")
    for l, blk in enumerate(params.blocks):
        _check_block_fields(blk, f"params.blocks[{l}]")
    for f in dataclasses.fields(params):
        value = getattr(params, f.name)
        if f.name not in ("config", "blocks", "pad_id") and value is not None \
                and not isinstance(value, np.ndarray):
            raise TypeError(f"params.{f.name}: expected a NumPy array or None, "
                            f"got {type(value).__name__}")
    shapes = _expected_shapes(cfg)
    for name, arr in named_arrays(params):
        short = name.split(".")[-1]
        if not np.issubdtype(arr.dtype, np.floating):
            raise TypeError(f"params.{name}: expected a float array, got dtype {arr.dtype}")
        check_shape(arr, f"params.{name} (config {_cfg_str(cfg)})", shapes[short])
        check_finite(arr, f"params.{name}")
    if isinstance(params, RoBERTaParams) and params.pad_id is not None:
        pad = params.pad_id
        if isinstance(pad, (bool, np.bool_)) or not isinstance(pad, (int, np.integer)):
            raise TypeError(f"params.pad_id: expected None or an integer token id, got {pad!r}")
        if not 0 <= pad < cfg.V:
            raise ValueError(f"params.pad_id: expected a token id in 0..{cfg.V - 1}, got {pad}")
    return cfg


def _check_block_fields(blk: Any, name: str) -> None:
    """``blk`` is a :class:`Block` whose fields are NumPy arrays (``None`` only for the biases)."""
    if not isinstance(blk, Block):
        raise TypeError(f"{name}: expected a Block, got {type(blk).__name__}")
    for g in dataclasses.fields(blk):
        value = getattr(blk, g.name)
        optional = g.name in _BIASES
        if not isinstance(value, np.ndarray) and not (optional and value is None):
            want = "a NumPy array or None" if optional else "a NumPy array"
            raise TypeError(f"{name}.{g.name}: expected {want}, got {type(value).__name__}")


_BIASES = ("b_q", "b_k", "b_v", "b_o")


def _cfg_str(cfg: Config) -> str:
    return (f"V={cfg.V}, n_ctx={cfg.n_ctx}, H={cfg.H}, A={cfg.A}, D={cfg.D}, F={cfg.F}, "
            f"L={cfg.L}")


def num_parameters(params: Params) -> int:
    """The number of scalars in ``params``: the sum of the sizes of all its arrays."""
    return int(sum(arr.size for _, arr in named_arrays(params)))


# ---------------------------------------------------------------------------------------------
# Seeded random constructors
# ---------------------------------------------------------------------------------------------

def _block(cfg: Config, rng: np.random.Generator, scale: float, attention_biases: bool) -> Block:
    A, H, D, F = cfg.A, cfg.H, cfg.D, cfg.F

    def w(*shape: int) -> np.ndarray:
        return rng.normal(0.0, scale, size=shape)

    blk = Block(W_q=w(A, H, D), W_k=w(A, H, D), W_v=w(A, H, D), W_o=w(A * D, H),
                W_1=w(H, F), b_1=np.zeros(F), W_2=w(F, H), b_2=np.zeros(H),
                gamma_1=np.ones(H), beta_1=np.zeros(H), gamma_2=np.ones(H), beta_2=np.zeros(H))
    if attention_biases:
        blk.b_q, blk.b_k, blk.b_v, blk.b_o = (np.zeros((A, D)), np.zeros((A, D)),
                                              np.zeros((A, D)), np.zeros(H))
    return blk


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def init_gpt(config: Config, seed: int = 0, *, scale: float = 0.02,
             attention_biases: bool = False) -> GPTParams:
    """Random GPT parameters: weights ``N(0, scale²)`` (GPT-2's 0.02 by default), biases 0,
    LayerNorm ``γ = 1, β = 0``.  Exactly the arrays of the GPT box unless ``attention_biases``."""
    if not isinstance(config, Config):
        raise TypeError(f"config: expected a Config, got {type(config).__name__}")
    rng = _rng(seed)
    W_e = rng.normal(0.0, scale, size=(config.V, config.H))
    W_p = rng.normal(0.0, scale, size=(config.n_ctx, config.H))
    blocks = [_block(config, rng, scale, attention_biases) for _ in range(config.L)]
    return GPTParams(config, W_e, W_p, blocks)


def init_gpt2(config: Config, seed: int = 0, *, scale: float = 0.02,
              attention_biases: bool = False) -> GPTParams:
    """Random GPT-2 parameters: those of :func:`init_gpt` plus the final LayerNorm."""
    params = init_gpt(config, seed, scale=scale, attention_biases=attention_biases)
    params.gamma_f, params.beta_f = np.ones(config.H), np.zeros(config.H)
    return params


init_gpt3 = init_gpt2  # GPT-3 has GPT-2's parameters; only the masks differ.


def init_bert(config: Config, seed: int = 0, *, scale: float = 0.02,
              attention_biases: bool = False) -> BERTParams:
    """Random BERT parameters (the box's arrays: ``W_e, W_p, w_A, w_B`` and the blocks)."""
    base = init_gpt(config, seed, scale=scale, attention_biases=attention_biases)
    rng = _rng(seed + 1)
    return BERTParams(config, base.W_e, base.W_p, rng.normal(0.0, scale, config.H),
                      rng.normal(0.0, scale, config.H), base.blocks)


def init_roberta(config: Config, seed: int = 0, *, scale: float = 0.02,
                 attention_biases: bool = False) -> RoBERTaParams:
    """Random RoBERTa parameters (the box's arrays: ``W_e, W_p`` and the blocks)."""
    base = init_gpt(config, seed, scale=scale, attention_biases=attention_biases)
    return RoBERTaParams(config, base.W_e, base.W_p, base.blocks)


# ---------------------------------------------------------------------------------------------
# The parameter count λ
# ---------------------------------------------------------------------------------------------

def parameter_breakdown(V: int, n: int, H: int, F: int, D: int, A: int, L: int, *,
                        attention_biases: bool = False,
                        final_layer_norm: bool = False) -> dict[str, int]:
    """The source's λ term by term: ``{"embeddings", "attention", "ffn", "layernorm"}``.

    ``embeddings = V·H + n·H``, ``attention = L·(A·3·H·D + A·D·H)``,
    ``ffn = L·(H·F + F + F·H + H)``, ``layernorm = L·4H``.  Two pieces the formula omits can be
    switched on: ``attention_biases`` adds ``L·(3·A·D + H)`` (the query/key/value and output
    biases of every real model) and ``final_layer_norm`` adds ``2H`` (GPT-2's and GPT-3's).
    """
    V, n, H, F, D, A, L = (check_positive_int(v, k) for v, k in
                           zip((V, n, H, F, D, A, L), "V n H F D A L".split()))
    attn = L * (A * (H * D + H * D + H * D) + A * D * H)
    if attention_biases:
        attn += L * (3 * A * D + H)
    ln = L * (H + H + H + H) + (2 * H if final_layer_norm else 0)
    return {"embeddings": V * H + n * H, "attention": attn,
            "ffn": L * (H * F + F + F * H + H), "layernorm": ln}


def parameter_count(V: int, n: int, H: int, F: int, D: int, A: int, L: int, *,
                    attention_biases: bool = False, final_layer_norm: bool = False) -> int:
    """The source's parameter count λ (Parameters section of 000/001); 116,497,920 for GPT-1.

    .. math:: λ = VH + nH + L(3AHD + ADH) + L(HF + F + FH + H) + L·4H

    The keyword options add what λ leaves out (see :func:`parameter_breakdown`)."""
    return sum(parameter_breakdown(V, n, H, F, D, A, L, attention_biases=attention_biases,
                                   final_layer_norm=final_layer_norm).values())


# ---------------------------------------------------------------------------------------------
# Masks: GPT-3's locally banded sparse attention
# ---------------------------------------------------------------------------------------------

def _mask_values(n: int, kind: str) -> tuple[Any, Any]:
    """The (allowed, blocked) entries that :func:`mask_autoregressive` uses for ``kind``, so the
    banded mask speaks exactly the same convention as the core masks."""
    ref = mask_autoregressive(2, kind=kind)
    return ref[1, 0], ref[0, 1]


def mask_sparse_banded(n: int, window: int, kind: str = "additive") -> np.ndarray:
    """GPT-3's locally banded attention mask :math:`\\text{Mask}^{ST}`, ``(n, n)``.

    Position ``i`` may attend to position ``j`` iff ``0 ≤ i − j < window``: itself and the
    ``window − 1`` positions before it (the "local" pattern of the Sparse Transformer that GPT-3
    cites).  It is causal, Toeplitz (depends on ``i − j`` only), and equals the autoregressive
    mask when ``window ≥ n``.  ``kind`` is as for :func:`mask_autoregressive`.
    """
    n = check_positive_int(n, "n")
    window = check_positive_int(window, "window")
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
    return [mask_sparse_banded(n, window, kind) if l % 2 == 1 else mask_autoregressive(n, kind)
            for l in range(1, L + 1)]


# ---------------------------------------------------------------------------------------------
# Building blocks
# ---------------------------------------------------------------------------------------------

def multi_head_self_attention_biased(X: np.ndarray, mask: np.ndarray, blk: Block) -> np.ndarray:
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
        return np.zeros(W.shape[::2]) if v is None else v  # (A, D): a missing bias acts as zero

    heads = [attention(X @ blk.W_q[i] + b(b_q, blk.W_q)[i], X @ blk.W_k[i] + b(b_k, blk.W_k)[i],
                       X @ blk.W_v[i] + b(b_v, blk.W_v)[i], mask) for i in range(A)]
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
    expected = {"b_q": (A, D), "b_k": (A, D), "b_v": (A, W_v.shape[2]), "b_o": (W_o.shape[1],)}
    out = []
    for name in _BIASES:
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


def block_post_ln(X: np.ndarray, blk: Block, mask: np.ndarray, *, gelu: str = "sigmoid",
                  eps: float = 1e-5, ffn: str = "gelu") -> np.ndarray:
    """One post-LN layer (GPT, BERT, RoBERTa boxes), ``(n, H) -> (n, H)``:

    ``X' = LayerNorm(MultiHeadSA(X, Mask) + X)``, ``X_out = LayerNorm(FFN(X') + X')``.
    ``gelu`` is one of :data:`GELU_KINDS`, ``ffn`` ``"gelu"`` or ``"relu"`` (000's BERT box)."""
    _check_block_options(gelu, ffn)
    _check_block_fields(blk, "blk")
    _check_biases(blk)
    X = _check_block_input(X, blk)
    Xp = layer_norm(multi_head_self_attention_biased(X, mask, blk) + X,
                    blk.gamma_1, blk.beta_1, eps)
    return layer_norm(_ffn(Xp, blk, gelu, ffn) + Xp, blk.gamma_2, blk.beta_2, eps)


def block_pre_ln(X: np.ndarray, blk: Block, mask: np.ndarray, *, gelu: str = "sigmoid",
                 eps: float = 1e-5) -> np.ndarray:
    """One pre-LN layer (GPT-2, GPT-3 boxes), ``(n, H) -> (n, H)``:

    ``X' = MultiHeadSA(LayerNorm(X), Mask) + X``, ``X_out = FFN(LayerNorm(X')) + X'``."""
    _check_block_options(gelu, "gelu")
    _check_block_fields(blk, "blk")
    _check_biases(blk)
    X = _check_block_input(X, blk)
    Xp = multi_head_self_attention_biased(layer_norm(X, blk.gamma_1, blk.beta_1, eps), mask,
                                          blk) + X
    return _ffn(layer_norm(Xp, blk.gamma_2, blk.beta_2, eps), blk, gelu) + Xp


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
    if np.size(x) == 0:  # [] is a float array to NumPy: say "empty", not "float ids"
        raise ValueError(f"{name}: expected at least one token, got shape {np.shape(x)}")
    ids = as_token_ids(x, name, cfg.V, ndim=(1, 2))
    n = ids.shape[-1]
    if n == 0:
        raise ValueError(f"{name}: expected at least one token, got shape {ids.shape}")
    if n > cfg.n_ctx:
        raise ValueError(f"{name}: expected a sequence of at most n_ctx={cfg.n_ctx} tokens "
                         f"(the rows of W_p), got n={n}")
    return ids


def _batched(fn: Any, ids: np.ndarray, *others: np.ndarray) -> np.ndarray:
    """Apply a one-sequence function to each row of a batch (the boxes are per sequence)."""
    if ids.ndim == 1:
        return fn(ids, *others)
    return np.stack([fn(row, *(o[b] for o in others)) for b, row in enumerate(ids)])


def _select_row(Y: np.ndarray, j: Any, name: str) -> np.ndarray:
    n = Y.shape[-2]
    if isinstance(j, (bool, np.bool_)) or not isinstance(j, (int, np.integer)):
        raise TypeError(f"{name}: expected an integer position (0-based), got {j!r}")
    if not 0 <= j < n:
        raise ValueError(f"{name}: expected a position in 0..{n - 1} (0-based), got {j}")
    return Y[..., j, :]


def _embed(ids: np.ndarray, W_e: np.ndarray, W_p: np.ndarray) -> np.ndarray:
    """The boxes' embedding line: ``X_0 = OneHot(x) W_e + W_p`` (the first ``n`` rows of W_p)."""
    return one_hot(ids, W_e.shape[0]) @ W_e + W_p[: len(ids)]


# ---------------------------------------------------------------------------------------------
# GPT (post-LN), GPT-2 (pre-LN + final LayerNorm), GPT-3 (GPT-2 with sparse layers)
# ---------------------------------------------------------------------------------------------

def gpt_probabilities(x: Any, params: GPTParams, *, gelu: str = "sigmoid",
                      eps: float = 1e-5) -> np.ndarray:
    """The GPT box's matrix ``Y = Softmax(X_L W_eᵀ)``: ``(n,) -> (n, V)`` or ``(B, n) -> (B, n, V)``.

    Row ``i`` (0-based) is the distribution of the token after ``x[0..i]``.  Post-LN layers,
    autoregressive mask, de-embedding with the tied ``W_e``.  ``gelu`` picks the GELU form
    (``"sigmoid"``: the box's ``x·σ(1.702x)``; the real GPT uses ``"tanh"``)."""
    cfg = _check_gpt(params, need_final=False)
    _check_gelu(gelu)
    ids = _check_ids(x, cfg)

    def one(seq: np.ndarray) -> np.ndarray:
        X = _embed(seq, params.W_e, params.W_p)
        mask = mask_autoregressive(len(seq))
        for blk in params.blocks:
            X = block_post_ln(X, blk, mask, gelu=gelu, eps=eps)
        return softmax(X @ params.W_e.T)

    return _batched(one, ids)


def gpt(x: Any, params: GPTParams, **options: Any) -> np.ndarray:
    """``GPT(x) = Y_{n,:}``: the next-token distribution after the whole sequence, ``(V,)``
    (``(B, V)`` for a batch).  Options as in :func:`gpt_probabilities`."""
    return gpt_probabilities(x, params, **options)[..., -1, :]


def _check_gpt(params: Any, need_final: bool) -> Config:
    if not isinstance(params, GPTParams):
        raise TypeError(f"params: expected GPTParams, got {type(params).__name__}")
    cfg = check_params(params)
    if need_final and (params.gamma_f is None or params.beta_f is None):
        raise ValueError("params.gamma_f/beta_f: GPT-2 and GPT-3 need the final LayerNorm, got "
                         "None (build the parameters with init_gpt2)")
    return cfg


def _decoder_pre_ln(ids: np.ndarray, params: GPTParams, masks: list[np.ndarray], gelu: str,
                    eps: float) -> np.ndarray:
    X = _embed(ids, params.W_e, params.W_p)
    for blk, mask in zip(params.blocks, masks):
        X = block_pre_ln(X, blk, mask, gelu=gelu, eps=eps)
    X = layer_norm(X, params.gamma_f, params.beta_f, eps)  # the final LayerNorm
    return softmax(X @ params.W_e.T)


def gpt2_probabilities(x: Any, params: GPTParams, *, gelu: str = "sigmoid",
                       eps: float = 1e-5) -> np.ndarray:
    """The GPT-2 box's matrix ``Y = Softmax(LayerNorm(X_L) W_eᵀ)``: ``(n,) -> (n, V)`` or
    ``(B, n) -> (B, n, V)``.  Pre-LN layers and a final LayerNorm; the real GPT-2 uses
    ``gelu="tanh"``."""
    cfg = _check_gpt(params, need_final=True)
    _check_gelu(gelu)
    ids = _check_ids(x, cfg)
    return _batched(lambda s: _decoder_pre_ln(s, params, [mask_autoregressive(len(s))] * cfg.L,
                                              gelu, eps), ids)


def gpt2(x: Any, params: GPTParams, **options: Any) -> np.ndarray:
    """``GPT-2(x)``: the last row of :func:`gpt2_probabilities`, ``(V,)`` or ``(B, V)``."""
    return gpt2_probabilities(x, params, **options)[..., -1, :]


def gpt3_probabilities(x: Any, params: GPTParams, *, window: int | None = None,
                       gelu: str = "sigmoid", eps: float = 1e-5) -> np.ndarray:
    """The GPT-3 box's matrix: GPT-2 whose odd layers (1-based) use :func:`mask_sparse_banded`.

    ``window`` is the band width (default :func:`default_window` of ``n_ctx``).  Shapes as in
    :func:`gpt2_probabilities`."""
    cfg = _check_gpt(params, need_final=True)
    _check_gelu(gelu)
    ids = _check_ids(x, cfg)
    w = default_window(cfg.n_ctx) if window is None else check_positive_int(window, "window")
    return _batched(lambda s: _decoder_pre_ln(s, params, gpt3_masks(len(s), cfg.L, w),
                                              gelu, eps), ids)


def gpt3(x: Any, params: GPTParams, **options: Any) -> np.ndarray:
    """``GPT-3(x)``: the last row of :func:`gpt3_probabilities`, ``(V,)`` or ``(B, V)``."""
    return gpt3_probabilities(x, params, **options)[..., -1, :]


# ---------------------------------------------------------------------------------------------
# BERT and RoBERTa
# ---------------------------------------------------------------------------------------------

def bert_input(x_A: Any, x_B: Any, j_masked: int | None, *, cls_id: int, sep_id: int,
               mask_id: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Build BERT's input from two sentences (001's construction), 0-based.

    ``x = ([CLS], x_A, [SEP], x_B, [SEP])`` of length ``n = n_A + n_B + 3``; the segment ids are
    ``t_i = 0`` for ``[CLS]``, sentence A and the first ``[SEP]`` and ``1`` after it; ``x'`` is
    ``x`` with position ``j_masked`` replaced by ``[MASK]`` (``None``: nothing masked).  Only a
    position of a real token (not ``[CLS]``/``[SEP]``) may be masked.

    Returns ``(x', t, x)``, three int arrays of shape ``(n,)``.
    """
    a = as_token_ids(x_A, "x_A", ndim=1)
    b = as_token_ids(x_B, "x_B", ndim=1)
    _check_special_ids(cls_id=cls_id, sep_id=sep_id, mask_id=mask_id)
    x = np.concatenate([[cls_id], a, [sep_id], b, [sep_id]]).astype(np.int64)
    n_A = len(a)
    t = (np.arange(len(x)) > n_A + 1).astype(np.int64)  # 1-based i ≤ n_A + 2  ⇔  0-based i ≤ n_A + 1
    x_masked = x.copy()
    if j_masked is not None:
        content = [i for i in range(len(x)) if i not in (0, n_A + 1, len(x) - 1)]
        if isinstance(j_masked, (bool, np.bool_)) or not isinstance(j_masked, (int, np.integer)) \
                or j_masked not in content:
            raise ValueError(f"j_masked: expected the 0-based position of a sentence token, one "
                             f"of {content}, got {j_masked!r}")
        x_masked[j_masked] = mask_id
    return x_masked, t, x


def _check_special_ids(**specials: Any) -> None:
    for name, v in specials.items():
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 0:
            raise ValueError(f"{name}: expected a non-negative integer token id, got {v!r}")


def roberta_input(x_A: Any, x_B: Any | None, j_masked: int | None, *, bos_id: int, eos_id: int,
                  mask_id: int) -> tuple[np.ndarray, np.ndarray]:
    """Build RoBERTa's input: ``<s> x_A </s>`` or, for a pair, ``<s> x_A </s></s> x_B </s>`` (the
    real tokenizer doubles the separator between sentences); no segment ids.  Returns
    ``(x', x)`` with position ``j_masked`` (0-based, a sentence token) replaced by ``<mask>``.
    The special ids must be non-negative integers, as for :func:`bert_input`."""
    a = as_token_ids(x_A, "x_A", ndim=1)
    _check_special_ids(bos_id=bos_id, eos_id=eos_id, mask_id=mask_id)
    parts = [[bos_id], a, [eos_id]]
    if x_B is not None:
        parts += [[eos_id], as_token_ids(x_B, "x_B", ndim=1), [eos_id]]
    x = np.concatenate(parts).astype(np.int64)
    specials = {0, len(a) + 1, len(x) - 1} | ({len(a) + 2} if x_B is not None else set())
    x_masked = x.copy()
    if j_masked is not None:
        content = [i for i in range(len(x)) if i not in specials]
        if isinstance(j_masked, (bool, np.bool_)) or not isinstance(j_masked, (int, np.integer)) \
                or j_masked not in content:
            raise ValueError(f"j_masked: expected the 0-based position of a sentence token, one "
                             f"of {content}, got {j_masked!r}")
        x_masked[j_masked] = mask_id
    return x_masked, x


def _encoder_head(X: np.ndarray, p: BERTParams | RoBERTaParams, gelu: str,
                  eps: float) -> np.ndarray:
    """De-embedding ``Softmax(X_L W_eᵀ)``, with the MLM head transform and output bias when the
    parameters carry them (the boxes omit both)."""
    if p.W_t is not None:
        from ..formulas import gelu as gelu_fn
        X = layer_norm(gelu_fn(X @ p.W_t + p.b_t, approximation=gelu), p.gamma_t, p.beta_t, eps)
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
            raise ValueError(f"params: expected all or none of {g}, got "
                             f"{[k for k, p in zip(g, present) if p]} only")
    return cfg


def bert_probabilities(x: Any, t: Any, params: BERTParams, *, gelu: str = "sigmoid",
                       ffn: str = "gelu", eps: float = 1e-5) -> np.ndarray:
    """The BERT box's matrix ``Softmax(X_L W_eᵀ)``: ``(n,), (n,) -> (n, V)`` (or batched).

    ``X_0 = OneHot(x) W_e + W_p + diag(1 − t) Stack_n(w_A) + diag(t) Stack_n(w_B)``: the segment
    vector ``w_A`` goes to the tokens with ``t_i = 0`` (sentence A, as 001 builds ``t``) — the box
    itself writes ``diag(t)`` in front of ``w_A``, which pairs the labels the other way round.
    Post-LN layers with the bidirectional mask.  ``ffn="relu"`` gives 000's BERT box; the real
    BERT uses ``gelu="erf"`` and ``eps=1e-12`` and the omitted pieces of :class:`BERTParams`.
    Row ``j`` is the distribution of the token at position ``j``.
    """
    cfg = _check_encoder(params, BERTParams)
    _check_gelu(gelu)
    if ffn not in ("gelu", "relu"):
        raise ValueError(f"ffn: expected 'gelu' or 'relu', got {ffn!r}")
    ids = _check_ids(x, cfg)
    tt = check_segment_ids(t, ids)

    def one(seq: np.ndarray, ts: np.ndarray) -> np.ndarray:
        n = len(seq)
        X = _embed(seq, params.W_e, params.W_p)
        X = X + diag(1.0 - ts) @ stack(params.w_A, n) + diag(ts) @ stack(params.w_B, n)
        if params.gamma_e is not None:  # omitted by the box: LayerNorm of the embeddings
            X = layer_norm(X, params.gamma_e, params.beta_e, eps)
        mask = mask_bidirectional(n)
        for blk in params.blocks:
            X = block_post_ln(X, blk, mask, gelu=gelu, eps=eps, ffn=ffn)
        return _encoder_head(X, params, gelu, eps)

    return _batched(one, ids, tt)


def bert(x: Any, t: Any, params: BERTParams, *, j_masked: int, **options: Any) -> np.ndarray:
    """``BERT(x') = Y_{j_masked,:}``: the distribution of the masked token, ``(V,)``
    (``j_masked`` 0-based).  Options as in :func:`bert_probabilities`."""
    Y = bert_probabilities(x, t, params, **options)
    return _select_row(Y, j_masked, "j_masked")


def roberta_probabilities(x: Any, params: RoBERTaParams, *, gelu: str = "sigmoid",
                          eps: float = 1e-5) -> np.ndarray:
    """The RoBERTa box's matrix ``Softmax(X_L W_eᵀ)``: ``(n,) -> (n, V)`` (or batched).

    BERT without segment ids: ``X_0 = OneHot(x) W_e + W_p``, post-LN layers with GELU and the
    bidirectional mask.  The real model uses ``gelu="erf"``, ``eps=1e-5`` and the omitted
    pieces of :class:`RoBERTaParams`."""
    cfg = _check_encoder(params, RoBERTaParams)
    _check_gelu(gelu)
    ids = _check_ids(x, cfg)
    if params.pad_id is not None and np.any(ids == params.pad_id):
        raise ValueError(f"x: contains the padding id {params.pad_id}; this forward handles "
                         f"unpadded sequences only (padding shifts RoBERTa's positions)")

    def one(seq: np.ndarray) -> np.ndarray:
        n = len(seq)
        X = _embed(seq, params.W_e, params.W_p)
        if params.w_type is not None:  # omitted by the box: the single token-type vector
            X = X + stack(params.w_type, n)
        if params.gamma_e is not None:
            X = layer_norm(X, params.gamma_e, params.beta_e, eps)
        mask = mask_bidirectional(n)
        for blk in params.blocks:
            X = block_post_ln(X, blk, mask, gelu=gelu, eps=eps)
        return _encoder_head(X, params, gelu, eps)

    return _batched(one, ids)


def roberta(x: Any, params: RoBERTaParams, *, j_masked: int, **options: Any) -> np.ndarray:
    """``RoBERTa(x') = Y_{j_masked,:}``, ``(V,)`` (``j_masked`` 0-based)."""
    return _select_row(roberta_probabilities(x, params, **options), j_masked, "j_masked")
