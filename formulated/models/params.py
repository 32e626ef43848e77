"""The parameters of the NumPy models (chapters 13–16): configuration, containers, seeded random
initialization and the parameter count λ (def-16-theta, def-16-lambda).

The forward functions that use them are in :mod:`formulated.models.reference`; every public name
here is re-exported by :mod:`formulated.models`.

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
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from .._checks import (
    check_finite,
    check_nonnegative_int,
    check_positive_int,
    check_real,
    check_shape,
    checked,
    is_int,
)

__all__ = [
    "Config",
    "Block",
    "GPTParams",
    "EncoderExtras",
    "BERTParams",
    "RoBERTaParams",
    "init_gpt",
    "init_gpt2",
    "init_gpt3",
    "init_bert",
    "init_roberta",
    "check_params",
    "check_block",
    "num_parameters",
    "named_arrays",
    "parameter_count",
    "parameter_breakdown",
]

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
            object.__setattr__(
                self, name, check_positive_int(getattr(self, name), name)
            )
        if self.F is None:
            object.__setattr__(self, "F", 4 * self.H)
        if self.D is None:
            if self.H % self.A:
                raise ValueError(
                    f"D: expected H divisible by A to default D = H // A, got "
                    f"H={self.H}, A={self.A}; pass D explicitly"
                )
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
    """GPT, GPT-2 and GPT-3 parameters: ``W_e (V, H)``, ``W_p (n_ctx, H)``, blocks.

    ``L`` blocks, and the final LayerNorm ``gamma_f, beta_f (H,)`` that GPT-2 and GPT-3
    add (``None`` for GPT).

    Definition: def-16-theta.
    Checked by:
    tests/test_models.py::test_loaded_params_hold_every_parameter_of_the_model
    """

    config: Config
    W_e: np.ndarray
    W_p: np.ndarray
    blocks: list[Block]
    gamma_f: np.ndarray | None = None
    beta_f: np.ndarray | None = None


@dataclass(kw_only=True)
class EncoderExtras:
    """What BERT and RoBERTa have beyond their boxes (keyword fields; ``None`` = as in the box):

    - ``gamma_e, beta_e (H,)``: the LayerNorm applied to the embedding sum;
    - ``W_t (H, H), b_t (H,), gamma_t, beta_t (H,)``: the MLM head's transform
      ``LayerNorm(GELU(X W_t + b_t))`` applied before de-embedding;
    - ``b_out (V,)``: the output bias added to the logits.
    """

    gamma_e: np.ndarray | None = None
    beta_e: np.ndarray | None = None
    W_t: np.ndarray | None = None
    b_t: np.ndarray | None = None
    gamma_t: np.ndarray | None = None
    beta_t: np.ndarray | None = None
    b_out: np.ndarray | None = None


@dataclass
class BERTParams(EncoderExtras):
    """Parameters of BERT.  The box's: ``W_e (V, H)``, ``W_p (n_ctx, H)``, the segment vectors
    ``w_A, w_B (H,)`` and ``L`` blocks; the pieces the box omits are those of
    :class:`EncoderExtras`."""

    config: Config
    W_e: np.ndarray
    W_p: np.ndarray
    w_A: np.ndarray
    w_B: np.ndarray
    blocks: list[Block]


@dataclass
class RoBERTaParams(EncoderExtras):
    """Parameters of RoBERTa: ``W_e (V, H)``, ``W_p (n_ctx, H)``, ``L`` blocks.  Omitted by the
    box: those of :class:`EncoderExtras`, as for BERT, plus

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
    pad_id: int | None = None


Params = GPTParams | BERTParams | RoBERTaParams


def _expected_shapes(cfg: Config) -> dict[str, tuple[int, ...]]:
    V, n, H, A, D, F = cfg.V, cfg.n_ctx, cfg.H, cfg.A, cfg.D, cfg.F
    return {
        "W_e": (V, H),
        "W_p": (n, H),
        "w_A": (H,),
        "w_B": (H,),
        "w_type": (H,),
        "gamma_f": (H,),
        "beta_f": (H,),
        "gamma_e": (H,),
        "beta_e": (H,),
        "W_t": (H, H),
        "b_t": (H,),
        "gamma_t": (H,),
        "beta_t": (H,),
        "b_out": (V,),
        "W_q": (A, H, D),
        "W_k": (A, H, D),
        "W_v": (A, H, D),
        "W_o": (A * D, H),
        "W_1": (H, F),
        "b_1": (F,),
        "W_2": (F, H),
        "b_2": (H,),
        "gamma_1": (H,),
        "beta_1": (H,),
        "gamma_2": (H,),
        "beta_2": (H,),
        "b_q": (A, D),
        "b_k": (A, D),
        "b_v": (A, D),
        "b_o": (H,),
    }


def named_arrays(params: Params) -> Iterator[tuple[str, np.ndarray]]:
    """Yield ``(name, array)`` for every parameter array present (``None`` fields skipped).

    Names are ``"W_e"``, ``"blocks[0].W_q"``, ... (0-based layer index): the box's arrays first,
    then the :class:`EncoderExtras` of BERT and RoBERTa."""
    extras = {f.name for f in dataclasses.fields(EncoderExtras)}
    for f in sorted(dataclasses.fields(params), key=lambda f: f.name in extras):
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
        raise TypeError(
            f"params: expected GPTParams, BERTParams or RoBERTaParams, "
            f"got {type(params).__name__}"
        )
    cfg = params.config
    if not isinstance(cfg, Config):
        raise TypeError(f"params.config: expected a Config, got {type(cfg).__name__}")
    if not isinstance(params.blocks, (list, tuple)):
        raise TypeError(
            f"params.blocks: expected a list of L={cfg.L} Block objects, "
            f"got {type(params.blocks).__name__}"
        )
    if len(params.blocks) != cfg.L:
        raise ValueError(
            f"params.blocks: expected L={cfg.L} blocks (config), "
            f"got {len(params.blocks)}"
        )
    for l, blk in enumerate(params.blocks):
        check_block(blk, f"params.blocks[{l}]")
    for f in dataclasses.fields(params):
        value = getattr(params, f.name)
        if (
            f.name not in ("config", "blocks", "pad_id")
            and value is not None
            and not isinstance(value, np.ndarray)
        ):
            raise TypeError(
                f"params.{f.name}: expected a NumPy array or None, "
                f"got {type(value).__name__}"
            )
    shapes = _expected_shapes(cfg)
    for name, arr in named_arrays(params):
        short = name.split(".")[-1]
        if not np.issubdtype(arr.dtype, np.floating):
            raise TypeError(
                f"params.{name}: expected a float array, got dtype {arr.dtype}"
            )
        check_shape(arr, f"params.{name} (config {_cfg_str(cfg)})", shapes[short])
        check_finite(arr, f"params.{name}")
    if isinstance(params, RoBERTaParams) and params.pad_id is not None:
        pad = params.pad_id
        if not is_int(pad):
            raise TypeError(
                f"params.pad_id: expected None or an integer token id, got {pad!r}"
            )
        if not 0 <= pad < cfg.V:
            raise ValueError(
                f"params.pad_id: expected a token id in 0..{cfg.V - 1}, got {pad}"
            )
    return cfg


def check_block(blk: Any, name: str = "blk") -> None:
    """``blk`` is a :class:`Block` whose fields are NumPy arrays (``None`` only for the biases)."""
    if not isinstance(blk, Block):
        raise TypeError(f"{name}: expected a Block, got {type(blk).__name__}")
    for g in dataclasses.fields(blk):
        value = getattr(blk, g.name)
        optional = g.name in BIAS_FIELDS
        if not isinstance(value, np.ndarray) and not (optional and value is None):
            want = "a NumPy array or None" if optional else "a NumPy array"
            raise TypeError(
                f"{name}.{g.name}: expected {want}, got {type(value).__name__}"
            )


BIAS_FIELDS = ("b_q", "b_k", "b_v", "b_o")


def _cfg_str(cfg: Config) -> str:
    return (
        f"V={cfg.V}, n_ctx={cfg.n_ctx}, H={cfg.H}, A={cfg.A}, D={cfg.D}, F={cfg.F}, "
        f"L={cfg.L}"
    )


def num_parameters(params: Params) -> int:
    """The number of scalars in ``params``: the sum of the sizes of all its arrays."""
    return int(sum(arr.size for _, arr in named_arrays(params)))


# ---------------------------------------------------------------------------------------------
# Seeded random constructors
# ---------------------------------------------------------------------------------------------


def _block(
    cfg: Config, rng: np.random.Generator, scale: float, attention_biases: bool
) -> Block:
    A, H, D, F = cfg.A, cfg.H, cfg.D, cfg.F

    def w(*shape: int) -> np.ndarray:
        return rng.normal(0.0, scale, size=shape)

    blk = Block(
        W_q=w(A, H, D),
        W_k=w(A, H, D),
        W_v=w(A, H, D),
        W_o=w(A * D, H),
        W_1=w(H, F),
        b_1=np.zeros(F),
        W_2=w(F, H),
        b_2=np.zeros(H),
        gamma_1=np.ones(H),
        beta_1=np.zeros(H),
        gamma_2=np.ones(H),
        beta_2=np.zeros(H),
    )
    if attention_biases:
        blk.b_q, blk.b_k, blk.b_v, blk.b_o = (
            np.zeros((A, D)),
            np.zeros((A, D)),
            np.zeros((A, D)),
            np.zeros(H),
        )
    return blk


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def init_gpt(
    config: Config,
    seed: int = 0,
    *,
    scale: float = 0.02,
    attention_biases: bool = False,
) -> GPTParams:
    """Random GPT parameters: weights ``N(0, scale²)`` (GPT-2's 0.02 by default), biases 0,
    LayerNorm ``γ = 1, β = 0``.  Exactly the arrays of the GPT box unless ``attention_biases``."""
    if not isinstance(config, Config):
        raise TypeError(f"config: expected a Config, got {type(config).__name__}")
    scale = check_real(scale, "scale", minimum=0)  # a NaN scale made every weight NaN
    rng = _rng(check_nonnegative_int(seed, "seed"))
    W_e = rng.normal(0.0, scale, size=(config.V, config.H))
    W_p = rng.normal(0.0, scale, size=(config.n_ctx, config.H))
    blocks = [_block(config, rng, scale, attention_biases) for _ in range(config.L)]
    return GPTParams(config, W_e, W_p, blocks)


def init_gpt2(
    config: Config,
    seed: int = 0,
    *,
    scale: float = 0.02,
    attention_biases: bool = False,
) -> GPTParams:
    """Random GPT-2 parameters: those of :func:`init_gpt` plus the final LayerNorm."""
    params = init_gpt(config, seed, scale=scale, attention_biases=attention_biases)
    params.gamma_f, params.beta_f = np.ones(config.H), np.zeros(config.H)
    return params


def init_gpt3(
    config: Config,
    seed: int = 0,
    *,
    scale: float = 0.02,
    attention_biases: bool = False,
) -> GPTParams:
    """Random GPT-3 parameters: GPT-2's arrays, drawn exactly as :func:`init_gpt2` draws them.

    GPT-3 has the same parameters as GPT-2 (what differs is its masks: every other layer is
    banded, see :func:`formulated.models.gpt3_probabilities`), and it was initialized as GPT-2
    was.  So ``init_gpt3(config, seed)`` equals ``init_gpt2(config, seed)``: weights
    ``N(0, scale²)``, biases 0, every LayerNorm (the final one included) ``γ = 1, β = 0``.
    Like :func:`init_gpt2`, this stand-in does not scale the residual projections by
    ``1/sqrt(2L)`` as the trained models' initialization did (the trainable
    :class:`formulated.models.trainable.GPT` does).
    """
    return init_gpt2(config, seed, scale=scale, attention_biases=attention_biases)


def init_bert(
    config: Config,
    seed: int = 0,
    *,
    scale: float = 0.02,
    attention_biases: bool = False,
) -> BERTParams:
    """Random BERT parameters (the box's arrays: ``W_e, W_p, w_A, w_B`` and the blocks)."""
    base = init_gpt(config, seed, scale=scale, attention_biases=attention_biases)
    rng = _rng(seed + 1)
    return BERTParams(
        config,
        base.W_e,
        base.W_p,
        rng.normal(0.0, scale, config.H),
        rng.normal(0.0, scale, config.H),
        base.blocks,
    )


def init_roberta(
    config: Config,
    seed: int = 0,
    *,
    scale: float = 0.02,
    attention_biases: bool = False,
) -> RoBERTaParams:
    """Random RoBERTa parameters (the box's arrays: ``W_e, W_p`` and the blocks)."""
    base = init_gpt(config, seed, scale=scale, attention_biases=attention_biases)
    return RoBERTaParams(config, base.W_e, base.W_p, base.blocks)


# ---------------------------------------------------------------------------------------------
# The parameter count λ
# ---------------------------------------------------------------------------------------------


def _parameter_breakdown_args(
    V: Any,
    n: Any,
    H: Any,
    F: Any,
    D: Any,
    A: Any,
    L: Any,
    *,
    attention_biases: Any = False,
    final_ln: Any = False,
) -> tuple:
    """The checker of :func:`parameter_breakdown` (and so of :func:`parameter_count`):
    seven positive integers; the two options are read as truths."""
    sizes = tuple(
        check_positive_int(v, k)
        for v, k in zip((V, n, H, F, D, A, L), "V n H F D A L".split())
    )
    return (*sizes, attention_biases, final_ln)


@checked(_parameter_breakdown_args)
def parameter_breakdown(V, n, H, F, D, A, L, *, attention_biases=False, final_ln=False):
    """The source's λ by term: ``{"embeddings", "attention", "ffn", "layernorm"}``.

    ``embeddings = V·H + n·H``, ``attention = L·(A·3·H·D + A·D·H)``,
    ``ffn = L·(H·F + F + F·H + H)``, ``layernorm = L·4H``.  Two pieces the formula omits
    can be switched on: ``attention_biases`` adds ``L·(3·A·D + H)`` (the query/key/value
    and output biases of every real model) and ``final_ln`` adds ``2H`` (the final
    LayerNorm of GPT-2 and GPT-3).

    Definition: def-16-lambda.
    Checked by:
    tests/test_models.py::test_lambda_terms_match_the_submodules_of_transformers_models
    """
    attn = L * (A * (H * D + H * D + H * D) + A * D * H)
    if attention_biases:
        attn += L * (3 * A * D + H)
    ln = L * (H + H + H + H) + (2 * H if final_ln else 0)
    return {
        "embeddings": V * H + n * H,
        "attention": attn,
        "ffn": L * (H * F + F + F * H + H),
        "layernorm": ln,
    }


def parameter_count(V, n, H, F, D, A, L, **options):
    """The source's parameter count λ, an int; 116,497,920 for GPT-1.

    The sum of :func:`parameter_breakdown`'s terms:

    .. math:: λ = VH + nH + L(3AHD + ADH) + L(HF + F + FH + H) + L·4H

    The keyword ``options`` (``attention_biases``, ``final_ln``) add what λ leaves out;
    :func:`parameter_breakdown` checks every argument.

    Definition: def-16-lambda.
    Checked by: tests/test_models.py::test_lambda_of_gpt1_is_the_sources_number
    Checked by:
    tests/test_models.py::test_lambda_against_real_models_counted_by_transformers
    """
    return sum(parameter_breakdown(V, n, H, F, D, A, L, **options).values())
