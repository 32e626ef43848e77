"""Load Hugging Face ``transformers`` models into the NumPy parameter containers of
:mod:`formulated.models.reference` (chapters 13–16).

The book's claim is that the boxes compute what the real models compute.  To check it against an
implementation nobody here wrote, we build ``transformers`` models from small random
configurations (nothing is downloaded), copy their weights into our containers, and compare the
two forwards (the small models and their forward, :func:`~.hf_tiny.tiny_model`,
:func:`~.hf_tiny.randomize_` and :func:`~.hf_tiny.hf_probabilities`, are in
:mod:`formulated.models.hf_tiny`).
Each loader returns ``(params, options)``; ``options`` are the keyword arguments
that make our forward compute what the real model computes::

    model = tiny_model("gpt2", Config(V=50, n_ctx=16, H=16, A=4, L=2))
    params, opts = from_gpt2(model)            # opts == {"gelu": "tanh", "eps": 1e-05}
    Y = gpt2_probabilities(x, params, **opts)  # equals softmax(model(x).logits)

Layouts.  Our products are row-vector-times-matrix, ``X @ W``.  GPT and GPT-2 store their
weights in ``Conv1D`` modules whose ``weight`` is already ``(in, out)``; BERT, RoBERTa and GPT-Neo
use ``nn.Linear`` whose ``weight`` is ``(out, in)`` and must be transposed.  The fused ``c_attn``
of GPT/GPT-2 holds ``[W^Q | W^K | W^V]`` side by side, each ``(H, H)`` block made of the ``A``
heads' ``(H, D)`` matrices in order — hence the reshape ``(H, A, D)`` and the transpose to our
``(A, H, D)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import check_nonnegative_int, check_positive_int
from .hf_tiny import KINDS, hf_probabilities, tiny_model
from .params import BERTParams, Block, Config, GPTParams, RoBERTaParams

__all__ = [
    "from_openai_gpt",
    "from_gpt2",
    "from_gpt_neo",
    "from_bert",
    "from_roberta",
    "OMISSIONS",
    "box_variant",
    "omission_effects",
]

# The transformers class each kind builds (see tiny_model), to recognize a model's kind.
_CLASSES = {
    "OpenAIGPTLMHeadModel": "openai-gpt",
    "GPT2LMHeadModel": "gpt2",
    "GPTNeoForCausalLM": "gpt-neo",
    "BertForMaskedLM": "bert",
    "RobertaForMaskedLM": "roberta",
}

# transformers' activation modules → our ``gelu`` option.  We read the module the model really
# calls, not the config's name: OpenAI GPT's ``afn="gelu"`` is, in its own table, the tanh form
# ("gelu_new"), while BERT's ``hidden_act="gelu"`` is the exact erf form.
_GELU = {"NewGELUActivation": "tanh", "GELUTanh": "tanh", "GELUActivation": "erf"}


def _np(t: Any) -> np.ndarray:
    """A float64 NumPy copy of a torch tensor (detached: the copy never aliases the model)."""
    import torch

    return t.detach().to(torch.float64).cpu().numpy().copy()


def _gelu(act: Any) -> str:
    """Our ``gelu`` option for a ``transformers`` activation module."""
    name = type(act).__name__
    if name not in _GELU:
        raise ValueError(
            f"activation: expected a GELU module, one of {sorted(_GELU)}, got {name}"
        )
    return _GELU[name]


# ---------------------------------------------------------------------------------------------
# Loaders
# ---------------------------------------------------------------------------------------------


def _split_fused(W: np.ndarray, b: np.ndarray, A: int) -> dict[str, np.ndarray]:
    """Conv1D ``c_attn``: ``W (H, 3H)``, ``b (3H,)`` → ``W_q, W_k, W_v (A, H, D)``, ``b_* (A, D)``."""
    H = W.shape[0]
    D = H // A
    out = {}
    for k, name in enumerate("qkv"):
        Wk = W[:, k * H : (k + 1) * H]  # (H, A·D): head i in columns i·D..
        out[f"W_{name}"] = Wk.reshape(H, A, D).transpose(1, 0, 2)
        out[f"b_{name}"] = b[k * H : (k + 1) * H].reshape(A, D)
    return out


def _heads(linear_weight: np.ndarray, A: int) -> np.ndarray:
    """``nn.Linear`` weight ``(A·D, H)`` (out, in) → our ``(A, H, D)``."""
    W = linear_weight.T  # (H, A·D)
    H = W.shape[0]
    return W.reshape(H, A, -1).transpose(1, 0, 2)


def _conv1d_block(h: Any, A: int) -> Block:
    """One GPT/GPT-2 block (``Conv1D`` layout); ``ln_1``/``ln_2`` are our ``γ_1,β_1``/``γ_2,β_2``."""
    fused = _split_fused(_np(h.attn.c_attn.weight), _np(h.attn.c_attn.bias), A)
    return Block(
        W_q=fused["W_q"],
        W_k=fused["W_k"],
        W_v=fused["W_v"],
        W_o=_np(h.attn.c_proj.weight),
        W_1=_np(h.mlp.c_fc.weight),
        b_1=_np(h.mlp.c_fc.bias),
        W_2=_np(h.mlp.c_proj.weight),
        b_2=_np(h.mlp.c_proj.bias),
        gamma_1=_np(h.ln_1.weight),
        beta_1=_np(h.ln_1.bias),
        gamma_2=_np(h.ln_2.weight),
        beta_2=_np(h.ln_2.bias),
        b_q=fused["b_q"],
        b_k=fused["b_k"],
        b_v=fused["b_v"],
        b_o=_np(h.attn.c_proj.bias),
    )


def _check_type(model: Any, cls_name: str) -> None:
    if type(model).__name__ != cls_name:
        raise TypeError(
            f"model: expected a transformers {cls_name}, got {type(model).__name__}"
        )


def from_openai_gpt(model: Any) -> tuple[GPTParams, dict[str, Any]]:
    """``OpenAIGPTLMHeadModel`` → (:class:`GPTParams` for :func:`~formulated.models.gpt`, options).

    Post-LN blocks as in the GPT box; the real model adds attention biases (kept in the blocks)
    and uses the tanh GELU.  Its LM head is tied to ``W_e``, as the box's de-embedding."""
    _check_type(model, "OpenAIGPTLMHeadModel")
    c = model.config
    tr = model.transformer
    cfg = Config(
        V=c.vocab_size, n_ctx=c.n_positions, H=c.n_embd, A=c.n_head, L=c.n_layer
    )
    params = GPTParams(
        cfg,
        _np(tr.tokens_embed.weight),
        _np(tr.positions_embed.weight),
        [_conv1d_block(h, c.n_head) for h in tr.h],
    )
    _check_tied(model.lm_head.weight, tr.tokens_embed.weight)
    return params, {"gelu": _gelu(tr.h[0].mlp.act), "eps": float(c.layer_norm_epsilon)}


def from_gpt2(model: Any) -> tuple[GPTParams, dict[str, Any]]:
    """``GPT2LMHeadModel`` → (:class:`GPTParams` for :func:`~formulated.models.gpt2`, options).

    Pre-LN blocks and the final LayerNorm ``ln_f`` as in the GPT-2 box; attention biases kept;
    tanh GELU.  Variants we do not model are rejected (scaled-by-layer attention)."""
    _check_type(model, "GPT2LMHeadModel")
    c = model.config
    if c.scale_attn_by_inverse_layer_idx or not c.scale_attn_weights:
        raise ValueError("model.config: expected GPT-2's plain 1/√D attention scaling")
    tr = model.transformer
    cfg = Config(
        V=c.vocab_size,
        n_ctx=c.n_positions,
        H=c.n_embd,
        A=c.n_head,
        L=c.n_layer,
        F=c.n_inner if c.n_inner is not None else 4 * c.n_embd,
    )
    params = GPTParams(
        cfg,
        _np(tr.wte.weight),
        _np(tr.wpe.weight),
        [_conv1d_block(h, c.n_head) for h in tr.h],
        gamma_f=_np(tr.ln_f.weight),
        beta_f=_np(tr.ln_f.bias),
    )
    _check_tied(model.lm_head.weight, tr.wte.weight)
    return params, {"gelu": _gelu(tr.h[0].mlp.act), "eps": float(c.layer_norm_epsilon)}


def from_gpt_neo(model: Any) -> tuple[GPTParams, dict[str, Any]]:
    """``GPTNeoForCausalLM`` → (:class:`GPTParams` for :func:`~formulated.models.gpt3`, options).

    GPT-Neo alternates dense ("global") and locally banded ("local") attention like GPT-3, which
    has no public implementation.  Two differences are absorbed here: GPT-Neo does **not** divide
    the scores by √D, so ``W_q`` is multiplied by √D (our attention divides again); and its
    queries, keys and values have no biases.  The options include ``window``.
    Only the alternation local, global, local, ... (the box's "odd layers sparse") is accepted.
    """
    _check_type(model, "GPTNeoForCausalLM")
    c = model.config
    expected = ["local" if l % 2 == 0 else "global" for l in range(c.num_layers)]
    if list(c.attention_layers) != expected:
        raise ValueError(
            f"model.config.attention_layers: expected {expected} (odd layers "
            f"sparse, as in the GPT-3 box), got {list(c.attention_layers)}"
        )
    tr = model.transformer
    A, H = c.num_heads, c.hidden_size
    D = H // A
    blocks = []
    for h in tr.h:
        at = h.attn.attention
        blocks.append(
            Block(
                W_q=_heads(_np(at.q_proj.weight), A) * np.sqrt(D),
                W_k=_heads(_np(at.k_proj.weight), A),
                W_v=_heads(_np(at.v_proj.weight), A),
                W_o=_np(at.out_proj.weight).T,
                b_o=_np(at.out_proj.bias),
                W_1=_np(h.mlp.c_fc.weight).T,
                b_1=_np(h.mlp.c_fc.bias),
                W_2=_np(h.mlp.c_proj.weight).T,
                b_2=_np(h.mlp.c_proj.bias),
                gamma_1=_np(h.ln_1.weight),
                beta_1=_np(h.ln_1.bias),
                gamma_2=_np(h.ln_2.weight),
                beta_2=_np(h.ln_2.bias),
            )
        )
    F = c.intermediate_size if c.intermediate_size is not None else 4 * H
    cfg = Config(
        V=c.vocab_size, n_ctx=c.max_position_embeddings, H=H, A=A, L=c.num_layers, F=F
    )
    params = GPTParams(
        cfg,
        _np(tr.wte.weight),
        _np(tr.wpe.weight),
        blocks,
        gamma_f=_np(tr.ln_f.weight),
        beta_f=_np(tr.ln_f.bias),
    )
    _check_tied(model.lm_head.weight, tr.wte.weight)
    return params, {
        "gelu": _gelu(tr.h[0].mlp.act),
        "eps": float(c.layer_norm_epsilon),
        "window": int(c.window_size),
    }


def _linear_block(layer: Any, A: int) -> Block:
    """One BERT/RoBERTa layer (``nn.Linear`` layout, post-LN)."""
    s, o = layer.attention.self, layer.attention.output
    return Block(
        W_q=_heads(_np(s.query.weight), A),
        W_k=_heads(_np(s.key.weight), A),
        W_v=_heads(_np(s.value.weight), A),
        W_o=_np(o.dense.weight).T,
        b_q=_np(s.query.bias).reshape(A, -1),
        b_k=_np(s.key.bias).reshape(A, -1),
        b_v=_np(s.value.bias).reshape(A, -1),
        b_o=_np(o.dense.bias),
        W_1=_np(layer.intermediate.dense.weight).T,
        b_1=_np(layer.intermediate.dense.bias),
        W_2=_np(layer.output.dense.weight).T,
        b_2=_np(layer.output.dense.bias),
        gamma_1=_np(o.LayerNorm.weight),
        beta_1=_np(o.LayerNorm.bias),
        gamma_2=_np(layer.output.LayerNorm.weight),
        beta_2=_np(layer.output.LayerNorm.bias),
    )


def _check_tied(head: Any, W_e: Any) -> None:
    if head.data_ptr() != W_e.data_ptr():
        raise ValueError(
            "model: expected the LM head tied to the token embedding W_e (the "
            "boxes de-embed with W_eᵀ), got an untied head"
        )


def from_bert(model: Any) -> tuple[BERTParams, dict[str, Any]]:
    """``BertForMaskedLM`` → (:class:`BERTParams` for :func:`~formulated.models.bert`, options).

    The segment vectors are the rows of the token-type table: ``w_A`` = row 0 (sentence A,
    ``t = 0``), ``w_B`` = row 1.  The pieces the box omits are filled in: attention biases, the
    embedding LayerNorm, the MLM head transform (dense, GELU, LayerNorm) and the output bias."""
    _check_type(model, "BertForMaskedLM")
    c = model.config
    if c.type_vocab_size != 2:
        raise ValueError(
            f"model.config.type_vocab_size: expected 2 segments, got "
            f"{c.type_vocab_size}"
        )
    emb = model.bert.embeddings
    head = model.cls.predictions
    cfg = Config(
        V=c.vocab_size,
        n_ctx=c.max_position_embeddings,
        H=c.hidden_size,
        A=c.num_attention_heads,
        L=c.num_hidden_layers,
        F=c.intermediate_size,
    )
    tte = _np(emb.token_type_embeddings.weight)
    params = BERTParams(
        cfg,
        _np(emb.word_embeddings.weight),
        _np(emb.position_embeddings.weight),
        w_A=tte[0],
        w_B=tte[1],
        blocks=[
            _linear_block(l, c.num_attention_heads) for l in model.bert.encoder.layer
        ],
        gamma_e=_np(emb.LayerNorm.weight),
        beta_e=_np(emb.LayerNorm.bias),
        W_t=_np(head.transform.dense.weight).T,
        b_t=_np(head.transform.dense.bias),
        gamma_t=_np(head.transform.LayerNorm.weight),
        beta_t=_np(head.transform.LayerNorm.bias),
        b_out=_np(head.bias),
    )
    _check_tied(head.decoder.weight, emb.word_embeddings.weight)
    return params, {
        "gelu": _gelu(model.bert.encoder.layer[0].intermediate.intermediate_act_fn),
        "eps": float(c.layer_norm_eps),
    }


def from_roberta(model: Any) -> tuple[RoBERTaParams, dict[str, Any]]:
    """``RobertaForMaskedLM`` → (:class:`RoBERTaParams` for :func:`~formulated.models.roberta`,
    options).

    RoBERTa numbers positions from ``pad_id + 1`` (a fairseq legacy), so the box's
    ``W_p`` is the position table **without its first** ``pad_id + 1`` **rows**.  The single
    token-type vector becomes ``w_type``; as for BERT the embedding LayerNorm, MLM head transform
    and output bias are filled in.  The head's GELU is always the erf form, as is the model's
    (``hidden_act="gelu"``, checked)."""
    _check_type(model, "RobertaForMaskedLM")
    c = model.config
    if c.hidden_act != "gelu":
        raise ValueError(
            f"model.config.hidden_act: expected 'gelu' (the head's activation), "
            f"got {c.hidden_act!r}"
        )
    emb = model.roberta.embeddings
    head = model.lm_head
    pad = int(c.pad_token_id)
    offset = pad + 1
    W_p = _np(emb.position_embeddings.weight)[offset:]
    cfg = Config(
        V=c.vocab_size,
        n_ctx=W_p.shape[0],
        H=c.hidden_size,
        A=c.num_attention_heads,
        L=c.num_hidden_layers,
        F=c.intermediate_size,
    )
    tte = _np(emb.token_type_embeddings.weight)
    params = RoBERTaParams(
        cfg,
        _np(emb.word_embeddings.weight),
        W_p,
        blocks=[
            _linear_block(l, c.num_attention_heads) for l in model.roberta.encoder.layer
        ],
        w_type=tte[0],
        gamma_e=_np(emb.LayerNorm.weight),
        beta_e=_np(emb.LayerNorm.bias),
        W_t=_np(head.dense.weight).T,
        b_t=_np(head.dense.bias),
        gamma_t=_np(head.layer_norm.weight),
        beta_t=_np(head.layer_norm.bias),
        b_out=_np(head.bias),
        pad_id=pad,
    )
    _check_tied(head.decoder.weight, emb.word_embeddings.weight)
    act = model.roberta.encoder.layer[0].intermediate.intermediate_act_fn
    return params, {"gelu": _gelu(act), "eps": float(c.layer_norm_eps)}


# ---------------------------------------------------------------------------------------------
# What the boxes leave out, measured
# ---------------------------------------------------------------------------------------------

#: For each kind, the pieces of the real model that the sources' boxes omit or state otherwise.
OMISSIONS: dict[str, tuple[str, ...]] = {
    "openai-gpt": ("gelu", "attention_biases"),
    "gpt2": ("gelu", "attention_biases"),
    "gpt-neo": ("gelu", "attention_biases"),
    "bert": (
        "gelu",
        "relu",
        "attention_biases",
        "embedding_layernorm",
        "mlm_head",
        "output_bias",
        "segment_labels",
    ),
    "roberta": (
        "gelu",
        "attention_biases",
        "embedding_layernorm",
        "mlm_head",
        "output_bias",
        "token_type",
        "position_offset",
    ),
}


def box_variant(
    model: Any, params: Any, options: dict[str, Any], omission: str
) -> tuple[Any, dict[str, Any]]:
    """``(params, options)`` changed to compute what the box says instead of what the real model
    does, for one ``omission`` of :data:`OMISSIONS` (the parameters are not modified in place):

    - ``"gelu"``: the box's ``x·σ(1.702x)`` instead of the model's GELU;
    - ``"relu"``: 000's BERT box, ``FFN_ReLU`` instead of a GELU network;
    - ``"attention_biases"``: no ``b_q, b_k, b_v, b_o``;
    - ``"embedding_layernorm"``, ``"mlm_head"``, ``"output_bias"``, ``"token_type"``: drop
      that piece;
    - ``"segment_labels"``: the BERT box's literal ``diag(t)·Stack(w_A) + diag(1−t)·Stack(w_B)``
      with 001's ``t`` (0 for sentence A): the two segment vectors trade places;
    - ``"position_offset"``: RoBERTa's position rows read from row 0, as the box's ``W_p`` would.

    ``omission`` must be one of ``OMISSIONS[kind]`` for the model's kind (``"token_type"`` means
    nothing for GPT-2, ``"relu"`` is only the BERT box's).
    """
    import dataclasses

    known = sorted(set(sum(OMISSIONS.values(), ())))
    if not isinstance(omission, str) or omission not in known:
        raise ValueError(f"omission: expected one of {known}, got {omission!r}")
    kind = _CLASSES.get(type(model).__name__)
    if kind is None:
        raise TypeError(
            f"model: expected one of the transformers models {sorted(_CLASSES)}, "
            f"got {type(model).__name__}"
        )
    if omission not in OMISSIONS[kind]:
        raise ValueError(
            f"omission: expected one of OMISSIONS[{kind!r}] = {OMISSIONS[kind]} for "
            f"a {type(model).__name__}, got {omission!r}"
        )
    opts = dict(options)
    p = params
    if omission == "gelu":
        opts["gelu"] = "sigmoid"
    elif omission == "relu":
        opts["ffn"] = "relu"
    elif omission == "attention_biases":
        p = dataclasses.replace(
            p,
            blocks=[
                dataclasses.replace(b, b_q=None, b_k=None, b_v=None, b_o=None)
                for b in p.blocks
            ],
        )
    elif omission == "embedding_layernorm":
        p = dataclasses.replace(p, gamma_e=None, beta_e=None)
    elif omission == "mlm_head":
        p = dataclasses.replace(p, W_t=None, b_t=None, gamma_t=None, beta_t=None)
    elif omission == "output_bias":
        p = dataclasses.replace(p, b_out=None)
    elif omission == "token_type":
        p = dataclasses.replace(p, w_type=None)
    elif omission == "segment_labels":
        p = dataclasses.replace(p, w_A=p.w_B, w_B=p.w_A)
    elif omission == "position_offset":
        table = _np(model.roberta.embeddings.position_embeddings.weight)
        p = dataclasses.replace(p, W_p=table[: p.config.n_ctx])
    return p, opts


_LOADERS = {
    "openai-gpt": "from_openai_gpt",
    "gpt2": "from_gpt2",
    "gpt-neo": "from_gpt_neo",
    "bert": "from_bert",
    "roberta": "from_roberta",
}


def omission_effects(
    kind: str, config: Config | None = None, seed: int = 0, n: int = 8, window: int = 3
) -> dict[str, float]:
    """Max |Δ| between the real model's next-token (or masked-token) probabilities and ours, with
    nothing omitted (``"none"``: the parity error), with each omission of :data:`OMISSIONS`
    applied alone, and with all of them at once (``"all"``: the box as written).

    Measured on a small random model (:func:`~.hf_tiny.tiny_model`, default ``V=40, n_ctx=12, H=16, A=4,
    L=2``) on one seeded sequence of ``n`` tokens (for BERT: half sentence A, half B), drawn from
    the ids ``2..V-1`` (RoBERTa's padding id is 1), so ``V >= 3`` and ``1 <= n <= n_ctx``."""
    from . import reference as M

    cfg = config if config is not None else Config(V=40, n_ctx=12, H=16, A=4, L=2)
    if not isinstance(kind, str) or kind not in _LOADERS:
        raise ValueError(f"kind: expected one of {KINDS}, got {kind!r}")
    if not isinstance(cfg, Config):
        raise TypeError(f"config: expected a Config, got {type(cfg).__name__}")
    n = check_positive_int(n, "n")
    if n > cfg.n_ctx:
        raise ValueError(f"n: expected at most n_ctx={cfg.n_ctx} tokens, got {n}")
    if cfg.V < 3:
        raise ValueError(
            f"config.V: expected V >= 3 (the sequence uses the ids 2..V-1), got {cfg.V}"
        )
    seed = check_nonnegative_int(seed, "seed")
    model = tiny_model(kind, cfg, seed, window=window)
    params, opts = globals()[_LOADERS[kind]](model)
    x = np.random.default_rng(seed).integers(
        2, cfg.V, size=n
    )  # no RoBERTa padding id (1)
    t = (np.arange(n) >= n // 2).astype(np.int64) if kind == "bert" else None
    ref = hf_probabilities(model, x, t)
    fwd = {
        "openai-gpt": M.gpt_probabilities,
        "gpt2": M.gpt2_probabilities,
        "gpt-neo": M.gpt3_probabilities,
        "bert": M.bert_probabilities,
        "roberta": M.roberta_probabilities,
    }[kind]

    def run(p: Any, o: dict[str, Any]) -> float:
        Y = fwd(x, t, p, **o) if kind == "bert" else fwd(x, p, **o)
        return float(np.abs(Y - ref).max())

    out = {"none": run(params, opts)}
    p_all, o_all = params, opts
    for om in OMISSIONS[kind]:
        out[om] = run(*box_variant(model, params, opts, om))
        p_all, o_all = box_variant(model, p_all, o_all, om)
    out["all"] = run(p_all, o_all)
    return out
