"""Small random Hugging Face ``transformers`` models (chapters 13–16): :func:`tiny_model` builds
one of each kind of :data:`KINDS` from a :class:`~formulated.models.params.Config` (nothing is
downloaded), :func:`randomize_` gives it random weights, and :func:`hf_probabilities` computes
its probabilities, for the loaders of :mod:`formulated.models.hf` (which re-exports all four)
to compare with our forwards.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import (
    as_array,
    as_token_ids,
    check_nonnegative_int,
    check_positive_int,
    check_real,
    check_segment_ids,
)
from .params import Config

__all__ = ["KINDS", "tiny_model", "randomize_", "hf_probabilities"]

KINDS = ("openai-gpt", "gpt2", "gpt-neo", "bert", "roberta")


# ---------------------------------------------------------------------------------------------
# Building small random models
# ---------------------------------------------------------------------------------------------


def randomize_(model: Any, seed: int = 0, scale: float = 0.3) -> Any:
    """Overwrite every parameter of ``model`` with seeded random values, in place; return it.

    ``transformers`` initializes LayerNorm with ``γ = 1, β = 0`` and biases with 0.  A parity test
    on such a model could not notice a loader that drops a bias or swaps ``γ`` and ``β``, so
    every parameter gets random values: weights ``N(0, scale²)``, ``γ`` around 1.
    Tied parameters (the LM head and ``W_e``) are one tensor and stay tied.  ``seed`` is an
    integer >= 0 and ``scale`` a finite number >= 0 (a NaN scale would make every weight NaN).
    """
    import torch

    if not hasattr(model, "named_parameters"):
        raise TypeError(
            f"model: expected a torch/transformers model, got {type(model).__name__}"
        )
    seed = check_nonnegative_int(seed, "seed")
    scale = check_real(scale, "scale", minimum=0)

    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=g, dtype=torch.float64).to(p.dtype)
            is_gain = name.endswith("weight") and (
                "LayerNorm" in name or "ln_" in name or "layer_norm" in name
            )
            p.copy_(1.0 + 0.2 * noise if is_gain else scale * noise)
    return model


def tiny_model(
    kind: str,
    config: Config,
    seed: int = 0,
    *,
    window: int | None = None,
    randomize: bool = True,
) -> Any:
    """A float64 ``transformers`` model of the given ``kind`` (see :data:`KINDS`) with our
    ``config``'s sizes, eager attention, in eval mode (dropout off), parameters randomized by
    :func:`randomize_`.  ``window`` is GPT-Neo's local-attention width, a positive integer
    (used by ``"gpt-neo"`` only, checked for every kind)."""
    import torch
    import transformers as T

    if not isinstance(config, Config):
        raise TypeError(f"config: expected a Config, got {type(config).__name__}")
    if window is not None:
        window = check_positive_int(window, "window")
    seed = check_nonnegative_int(seed, "seed")
    c = config
    common = dict(attn_implementation="eager", bos_token_id=None, eos_token_id=None)
    torch.manual_seed(seed)
    if kind == "openai-gpt":
        if c.F != 4 * c.H:
            raise ValueError(
                f"config.F: OpenAI GPT fixes F = 4H = {4 * c.H}, got {c.F}"
            )
        cfg = T.OpenAIGPTConfig(
            vocab_size=c.V,
            n_positions=c.n_ctx,
            n_embd=c.H,
            n_layer=c.L,
            n_head=c.A,
            **common,
        )
        model = T.OpenAIGPTLMHeadModel(cfg)
    elif kind == "gpt2":
        cfg = T.GPT2Config(
            vocab_size=c.V,
            n_positions=c.n_ctx,
            n_embd=c.H,
            n_layer=c.L,
            n_head=c.A,
            n_inner=c.F,
            **common,
        )
        model = T.GPT2LMHeadModel(cfg)
    elif kind == "gpt-neo":
        if c.L % 2:
            raise ValueError(
                f"config.L: GPT-3's alternation needs an even L here, got {c.L}"
            )
        # Layer 1 (1-based) local, layer 2 global, ...: the GPT-3 box's odd = sparse.
        cfg = T.GPTNeoConfig(
            vocab_size=c.V,
            max_position_embeddings=c.n_ctx,
            hidden_size=c.H,
            num_layers=c.L,
            num_heads=c.A,
            intermediate_size=c.F,
            attention_types=[[["local", "global"], c.L // 2]],
            window_size=window if window is not None else 256,
            **common,
        )
        model = T.GPTNeoForCausalLM(cfg)
    elif kind == "bert":
        cfg = T.BertConfig(
            vocab_size=c.V,
            hidden_size=c.H,
            num_hidden_layers=c.L,
            num_attention_heads=c.A,
            intermediate_size=c.F,
            max_position_embeddings=c.n_ctx,
            pad_token_id=0,
            **common,
        )
        model = T.BertForMaskedLM(cfg)
    elif kind == "roberta":
        # RoBERTa's position table has pad_id + 1 extra rows in front (see from_roberta).
        cfg = T.RobertaConfig(
            vocab_size=c.V,
            hidden_size=c.H,
            num_hidden_layers=c.L,
            num_attention_heads=c.A,
            intermediate_size=c.F,
            max_position_embeddings=c.n_ctx + 2,
            pad_token_id=1,
            type_vocab_size=1,
            **common,
        )
        model = T.RobertaForMaskedLM(cfg)
    else:
        raise ValueError(f"kind: expected one of {KINDS}, got {kind!r}")
    if c.D * c.A != c.H:
        raise ValueError(
            f"config.D: transformers needs D·A = H, got D={c.D}, A={c.A}, H={c.H}"
        )
    model = model.to(torch.float64).eval()
    if randomize:
        randomize_(model, seed)
    return model


def hf_probabilities(model: Any, x: Any, t: Any | None = None) -> np.ndarray:
    """``softmax(model(x).logits)`` as a float64 array: ``(n,) -> (n, V)``, ``(B, n) -> (B, n, V)``.

    ``t`` are BERT's token-type (segment) ids, 0 or 1, of the shape of ``x``; other models take
    none.  ``x`` must hold integer ids in ``0..V-1``, ``1 <= n <= n_ctx`` of them per sequence
    (checked here: torch would index out of range or silently truncate float ids).  No gradient,
    no dropout (eval mode expected)."""
    import torch

    config = getattr(model, "config", None)
    if config is None or not callable(model):
        raise TypeError(
            f"model: expected a transformers model, got {type(model).__name__}"
        )
    x = as_array(x, "x")  # a ragged batch is named here, before its size is read
    if x.size == 0:  # [] is a float array to NumPy: say "empty", not "float ids"
        raise ValueError(f"x: expected at least one token, got shape {x.shape}")
    ids = as_token_ids(x, "x", int(config.vocab_size), ndim=(1, 2))
    n, n_ctx = ids.shape[-1], _n_ctx(config)
    if n_ctx is not None and n > n_ctx:
        raise ValueError(
            f"x: expected a sequence of at most n_ctx={n_ctx} tokens (the model's "
            f"positions), got n={n}"
        )
    batch = ids[None] if ids.ndim == 1 else ids
    kwargs = {}
    if t is not None:
        types = getattr(config, "type_vocab_size", None)
        if types is None:
            raise ValueError(
                f"t: segment ids are for BERT; a {config.model_type!r} model has "
                f"no token types, got t"
            )
        check_segment_ids(t, ids)  # integer, shape of x, values in {0, 1}
        tt = np.asarray(t).astype(np.int64)
        if tt.max() >= types:
            raise ValueError(
                f"t: expected segment ids in 0..{types - 1} (the model has "
                f"{types} token type(s)), got {int(tt.max())}"
            )
        kwargs["token_type_ids"] = torch.as_tensor(tt[None] if tt.ndim == 1 else tt)
    with torch.no_grad():
        logits = model(
            input_ids=torch.as_tensor(batch, dtype=torch.long), **kwargs
        ).logits
        P = torch.softmax(logits.to(torch.float64), dim=-1).numpy()
    return P[0] if ids.ndim == 1 else P


def _n_ctx(config: Any) -> int | None:
    """The longest sequence a transformers config accepts (RoBERTa loses ``pad_id + 1`` rows)."""
    if getattr(config, "model_type", None) == "roberta":
        return int(config.max_position_embeddings) - int(config.pad_token_id) - 1
    for name in ("n_positions", "max_position_embeddings"):
        if getattr(config, name, None) is not None:
            return int(getattr(config, name))
    return None
