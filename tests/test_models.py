"""The NumPy models equal Hugging Face's, are causal where they should be, count their
parameters as the source's λ says, and reject bad input with clear errors.

References nobody here wrote: ``transformers``' OpenAIGPTLMHeadModel, GPT2LMHeadModel,
GPTNeoForCausalLM (alternating dense / local attention, our stand-in for GPT-3), BertForMaskedLM,
RobertaForMaskedLM, their tokenizers' input construction, and the source's λ = 116,497,920.
"""

from __future__ import annotations

import dataclasses
import zlib

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from formulated.formulas import mask_autoregressive
from formulated.models import (
    BERTParams,
    Config,
    bert,
    bert_input,
    bert_probabilities,
    check_params,
    default_window,
    gpt,
    gpt2,
    gpt2_probabilities,
    gpt3,
    gpt3_masks,
    gpt3_probabilities,
    gpt_probabilities,
    hf,
    hf_tiny,
    init_bert,
    init_gpt,
    init_gpt2,
    init_roberta,
    mask_sparse_banded,
    multi_head_self_attention_biased,
    named_arrays,
    num_parameters,
    parameter_breakdown,
    parameter_count,
    roberta,
    roberta_input,
    roberta_probabilities,
)
from formulated.models.reference import _embed

# Max |Δ| against transformers, by kind.  Everything runs in float64, where the measured error
# is ≤ 6e-16 (seeds below); 1e-12 is far above rounding yet far below a wrong option (a LayerNorm
# eps of 1e-6 instead of BERT's/RoBERTa's 1e-12 moves the output by ~1e-6).  GPT-Neo's attention
# casts queries and keys to float32 inside transformers: measured 2.2e-8 (one sequence) and
# 5.0e-8 (batch), so its bound is 10× that.
TOL = {
    "openai-gpt": 1e-12,
    "gpt2": 1e-12,
    "bert": 1e-12,
    "roberta": 1e-12,
    "gpt-neo": 5e-7,
}
CONFIGS = {
    "small": Config(V=40, n_ctx=12, H=16, A=4, L=2),
    "odd": Config(V=29, n_ctx=9, H=12, A=3, L=4, F=20),  # F ≠ 4H, D = 4
}
LENGTHS = (1, 5, None)  # None: the full context n_ctx

FORWARD = {
    "openai-gpt": (hf.from_openai_gpt, gpt_probabilities),
    "gpt2": (hf.from_gpt2, gpt2_probabilities),
    "gpt-neo": (hf.from_gpt_neo, gpt3_probabilities),
    "bert": (hf.from_bert, bert_probabilities),
    "roberta": (hf.from_roberta, roberta_probabilities),
}


def _config_for(kind: str, name: str) -> Config:
    cfg = CONFIGS[name]
    if kind == "openai-gpt":  # OpenAI GPT fixes F = 4H
        cfg = dataclasses.replace(cfg, F=4 * cfg.H)
    return cfg


@pytest.fixture(scope="module")
def loaded():
    """Every (kind, config) pair built once: (HF model, our params, our options)."""
    cache: dict = {}

    def get(kind: str, name: str):
        if (kind, name) not in cache:
            # A seed fixed per pair, not per call order: the same weights under pytest -n.
            seed = zlib.crc32(f"{kind}/{name}".encode()) % 10_000
            model = hf_tiny.tiny_model(
                kind, _config_for(kind, name), seed=seed, window=3
            )
            params, opts = FORWARD[kind][0](model)
            cache[kind, name] = (model, params, opts)
        return cache[kind, name]

    return get


def _ids(rng: np.random.Generator, cfg: Config, shape: tuple[int, ...]) -> np.ndarray:
    # ids ≥ 2 avoid RoBERTa's padding id 1 (this forward handles unpadded sequences only)
    return rng.integers(2, cfg.V, size=shape)


def _ours(kind: str, x, params, opts, t=None):
    fwd = FORWARD[kind][1]
    return fwd(x, t, params, **opts) if kind == "bert" else fwd(x, params, **opts)


# ---------------------------------------------------------------------------------------------
# Parity with transformers
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CONFIGS))
@pytest.mark.parametrize("kind", sorted(FORWARD))
def test_parity_with_transformers(kind, name, loaded):
    model, params, opts = loaded(kind, name)
    cfg = params.config
    rng = np.random.default_rng(1)
    for n in LENGTHS:
        n = cfg.n_ctx if n is None else n
        x = _ids(rng, cfg, (n,))
        t = (np.arange(n) >= n // 2).astype(np.int64) if kind == "bert" else None
        ours = _ours(kind, x, params, opts, t)
        ref = hf_tiny.hf_probabilities(model, x, t)
        assert ours.shape == ref.shape == (n, cfg.V)
        err = np.abs(ours - ref).max()
        assert err <= TOL[kind], f"{kind}/{name}, n={n}: max |Δ| = {err:.2e}"
        assert np.allclose(ours.sum(-1), 1.0)


@pytest.mark.parametrize("kind", sorted(FORWARD))
def test_parity_on_a_batch(kind, loaded):
    model, params, opts = loaded(kind, "small")
    cfg = params.config
    rng = np.random.default_rng(2)
    x = _ids(rng, cfg, (3, 7))
    t = rng.integers(0, 2, size=(3, 7)) if kind == "bert" else None
    ours = _ours(kind, x, params, opts, t)
    ref = hf_tiny.hf_probabilities(model, x, t)
    assert ours.shape == ref.shape == (3, 7, cfg.V)
    err = np.abs(ours - ref).max()
    assert err <= TOL[kind], f"{kind}, batch: max |Δ| = {err:.2e}"


@pytest.mark.parametrize("kind", sorted(FORWARD))
def test_boxed_row_functions_return_the_right_row(kind, loaded):
    """gpt, gpt2, gpt3 give the transformers model's last row; bert, roberta its row j_masked."""
    model, params, opts = loaded(kind, "small")
    x = np.array([3, 9, 4, 7, 12])
    if kind == "bert":
        t = np.array([0, 0, 1, 1, 1])
        ours, ref = (
            bert(x, t, params, j_masked=2, **opts),
            hf_tiny.hf_probabilities(model, x, t)[2],
        )
    elif kind == "roberta":
        ours, ref = (
            roberta(x, params, j_masked=0, **opts),
            hf_tiny.hf_probabilities(model, x)[0],
        )
    elif kind == "openai-gpt":  # a batch of two: one row per sequence
        xb = np.stack([x, x[::-1]])
        ours, ref = gpt(xb, params, **opts), hf_tiny.hf_probabilities(model, xb)[:, -1]
    else:
        fn = {"gpt2": gpt2, "gpt-neo": gpt3}[kind]
        ours, ref = fn(x, params, **opts), hf_tiny.hf_probabilities(model, x)[-1]
    assert ours.shape == ref.shape
    assert ours.shape[-1] == params.config.V
    err = np.abs(ours - ref).max()
    assert err <= TOL[kind], f"{kind}: max |Δ| = {err:.2e}"


@pytest.mark.parametrize("kind", ["openai-gpt", "gpt2", "gpt-neo"])
def test_input_embedding_is_the_first_hidden_state(kind, loaded):
    """def-07-input, ``OneHot(x) W_e + W_p`` (the first n rows of W_p), is what the transformers
    model feeds its first block: its hidden state 0 (eval mode, so dropout is the identity)."""
    model, params, _ = loaded(kind, "small")
    x = np.array([3, 9, 4, 7, 12, 3])
    with torch.no_grad():
        ref = model(torch.from_numpy(x)[None], output_hidden_states=True).hidden_states[
            0
        ][0]
    ours = _embed(x, params.W_e, params.W_p)
    assert ours.shape == (len(x), params.config.H)
    assert np.abs(ours - ref.numpy()).max() <= 1e-15


def test_default_window_is_the_ceiling_of_the_square_root():
    # ⌈√n⌉ by hand: 45² = 2025 < 2048 ≤ 46² = 2116; 3² = 9 < 12 ≤ 16 = 4²; perfect squares exact
    cases = {
        1: 1,
        2: 2,
        4: 2,
        5: 3,
        9: 3,
        10: 4,
        12: 4,
        16: 4,
        17: 5,
        2048: 46,
        2116: 46,
        2117: 47,
    }
    assert {n: default_window(n) for n in cases} == cases
    with pytest.raises(ValueError, match="n_ctx"):
        default_window(0)


def test_gpt3_default_window_matches_gpt_neo_with_that_window():
    cfg = CONFIGS["small"]
    w = default_window(cfg.n_ctx)
    assert w == 4  # ⌈√12⌉, narrower than the sequence below, so the band matters
    model = hf_tiny.tiny_model("gpt-neo", cfg, seed=7, window=w)
    params, opts = hf.from_gpt_neo(model)
    assert opts.pop("window") == w
    x = _ids(np.random.default_rng(5), cfg, (cfg.n_ctx,))
    ref = hf_tiny.hf_probabilities(model, x)
    err_row = np.abs(
        gpt3(x, params, **opts) - ref[-1]
    ).max()  # window=None: the default
    err_all = np.abs(gpt3_probabilities(x, params, **opts) - ref).max()
    assert max(err_row, err_all) <= TOL["gpt-neo"], (
        f"max |Δ| = {max(err_row, err_all):.2e}"
    )
    for other in (
        w - 1,
        w + 1,
    ):  # a neighboring width is visibly different, so w is checked
        assert (
            np.abs(gpt3_probabilities(x, params, window=other, **opts) - ref).max()
            > 1e-4
        )


# ---------------------------------------------------------------------------------------------
# Each omission of the boxes matters (so the parity test above can fail)
# ---------------------------------------------------------------------------------------------


def _drop_attention_biases(params):
    p = dataclasses.replace(
        params,
        blocks=[
            dataclasses.replace(b, b_q=None, b_k=None, b_v=None, b_o=None)
            for b in params.blocks
        ],
    )
    return p


@pytest.mark.parametrize(
    "kind,change",
    [
        ("gpt2", "gelu_sigmoid"),
        ("gpt2", "gelu_erf"),
        ("openai-gpt", "gelu_sigmoid"),
        ("gpt2", "biases"),
        ("openai-gpt", "biases"),
        ("bert", "biases"),
        ("bert", "embedding_ln"),
        ("bert", "mlm_head"),
        ("bert", "output_bias"),
        ("bert", "relu"),
        ("bert", "gelu_sigmoid"),
        ("roberta", "w_type"),
        ("gpt-neo", "dense"),
    ],
)
def test_each_omission_changes_the_output(kind, change, loaded):
    model, params, opts = loaded(kind, "small")
    x = np.array([5, 2, 9, 11, 3, 8])
    t = np.array([0, 0, 0, 1, 1, 1]) if kind == "bert" else None
    ref = hf_tiny.hf_probabilities(model, x, t)
    opts = dict(opts)
    if change.startswith("gelu_"):
        opts["gelu"] = change.split("_")[1]
    elif change == "biases":
        params = _drop_attention_biases(params)
    elif change == "embedding_ln":
        params = dataclasses.replace(params, gamma_e=None, beta_e=None)
    elif change == "mlm_head":
        params = dataclasses.replace(
            params, W_t=None, b_t=None, gamma_t=None, beta_t=None
        )
    elif change == "output_bias":
        params = dataclasses.replace(params, b_out=None)
    elif change == "relu":
        opts["ffn"] = "relu"
    elif change == "w_type":
        params = dataclasses.replace(params, w_type=None)
    elif change == "dense":  # GPT-2 (all layers dense) instead of GPT-3's alternation
        opts.pop("window")
        assert np.abs(gpt2_probabilities(x, params, **opts) - ref).max() > 1e-3
        return
    err = np.abs(_ours(kind, x, params, opts, t) - ref).max()
    # Visible: a thousand times the parity tolerance (how far a faithful forward may be off).
    assert err > 1e3 * TOL[kind], (
        f"{kind} without {change}: max |Δ| = {err:.1e}, expected a visible change"
    )


def test_key_bias_has_no_effect_but_query_bias_does(loaded):
    _, params, _ = loaded("gpt2", "small")
    blk = params.blocks[0]
    rng = np.random.default_rng(3)
    X = rng.normal(size=(6, 16))
    mask = mask_autoregressive(6)
    out = multi_head_self_attention_biased(X, mask, blk)
    shifted_k = dataclasses.replace(blk, b_k=blk.b_k + rng.normal(size=blk.b_k.shape))
    np.testing.assert_allclose(
        multi_head_self_attention_biased(X, mask, shifted_k), out, atol=1e-12
    )
    shifted_q = dataclasses.replace(blk, b_q=blk.b_q + rng.normal(size=blk.b_q.shape))
    assert (
        np.abs(multi_head_self_attention_biased(X, mask, shifted_q) - out).max() > 1e-3
    )


# ---------------------------------------------------------------------------------------------
# Causality
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(FORWARD))
def test_causal_models_ignore_the_future(kind, loaded):
    _, params, opts = loaded(kind, "small")
    n = 8
    x = np.array([2, 5, 7, 11, 13, 17, 19, 23])
    t = (np.arange(n) >= 4).astype(np.int64) if kind == "bert" else None
    Y = _ours(kind, x, params, opts, t)
    for j in range(1, n):
        x2 = x.copy()
        x2[j] = 3 if x[j] != 3 else 4
        Y2 = _ours(kind, x2, params, opts, t)
        before = np.abs(Y2[:j] - Y[:j]).max()
        assert (
            np.abs(Y2[j] - Y[j]).max() > 1e-6
        )  # the perturbed position itself sees it
        if kind in ("bert", "roberta"):
            assert before > 1e-6, (
                f"{kind}: rows < {j} should see token {j} (bidirectional)"
            )
        else:
            assert before < 1e-12, f"{kind}: rows < {j} changed by {before:.1e}"


# ---------------------------------------------------------------------------------------------
# GPT-3's locally banded sparse mask
# ---------------------------------------------------------------------------------------------


@given(n=st.integers(1, 24), w=st.integers(1, 30))
def test_banded_mask_properties(n, w):
    M = mask_sparse_banded(n, w)
    allowed = M == 0
    i, j = np.indices((n, n))
    assert M.shape == (n, n) and set(np.unique(M)) <= {0.0, -np.inf}
    assert not allowed[j > i].any()  # causal
    assert allowed[i == j].all()  # every row attends to itself
    np.testing.assert_array_equal(allowed.sum(1), np.minimum(np.arange(n) + 1, w))
    for d in range(-n + 1, n):  # Toeplitz: depends on i − j only
        assert len(set(np.diagonal(allowed, offset=d))) <= 1
    if w >= n:
        np.testing.assert_array_equal(M, mask_autoregressive(n))
    M_mult = mask_sparse_banded(n, w, kind="multiplicative")
    np.testing.assert_array_equal(M_mult == 1, allowed)


def test_banded_mask_equals_gpt_neo_local_pattern(loaded):
    model, params, opts = loaded("gpt-neo", "small")
    n = params.config.n_ctx
    local = model.transformer.h[0].attn.attention.bias[0, 0].numpy()  # layer 1: local
    dense = model.transformer.h[1].attn.attention.bias[0, 0].numpy()  # layer 2: global
    masks = gpt3_masks(n, params.config.L, opts["window"])
    np.testing.assert_array_equal(masks[0] == 0, local)
    np.testing.assert_array_equal(masks[1] == 0, dense)


def test_gpt3_with_a_wide_band_is_gpt2(loaded):
    _, params, opts = loaded("gpt-neo", "small")
    x = np.array([4, 8, 15, 16, 23, 7])
    opts = {k: v for k, v in opts.items() if k != "window"}
    np.testing.assert_allclose(
        gpt3_probabilities(x, params, window=len(x), **opts),
        gpt2_probabilities(x, params, **opts),
        atol=1e-14,
    )


def test_banded_mask_rejects_bad_sizes():
    with pytest.raises(ValueError, match="window"):
        mask_sparse_banded(4, 0)
    with pytest.raises(TypeError, match="n"):
        mask_sparse_banded(4.0, 2)


# ---------------------------------------------------------------------------------------------
# Parameter count λ
# ---------------------------------------------------------------------------------------------


def test_lambda_of_gpt1_is_the_sources_number():
    assert (
        parameter_count(V=40478, n=512, H=768, F=3072, D=64, A=12, L=12) == 116_497_920
    )


def test_lambda_against_real_models_counted_by_transformers():
    import transformers as T

    with torch.device("meta"):  # shapes only: nothing is allocated
        gpt1 = T.OpenAIGPTModel(T.OpenAIGPTConfig())
        gpt2s = T.GPT2Model(T.GPT2Config())
    n1 = sum(p.numel() for p in gpt1.parameters())
    n2 = sum(p.numel() for p in gpt2s.parameters())
    assert n1 == 116_534_784 and n2 == 124_439_808
    lam = parameter_count(40478, 512, 768, 3072, 64, 12, 12)
    assert (
        n1 - lam == 36_864 == 12 * (3 * 768 + 768)
    )  # the attention biases λ leaves out
    assert n1 == parameter_count(
        40478, 512, 768, 3072, 64, 12, 12, attention_biases=True
    )
    assert n2 == parameter_count(
        50257, 1024, 768, 3072, 64, 12, 12, attention_biases=True, final_ln=True
    )


@pytest.mark.parametrize("kind", sorted(FORWARD))
def test_loaded_params_hold_every_parameter_of_the_model(kind, loaded):
    model, params, _ = loaded(kind, "odd")
    numel = sum(p.numel() for p in model.parameters())
    if (
        kind == "roberta"
    ):  # the pad_id + 1 unused position rows; no second token-type row
        c = params.config
        numel -= (params.pad_id + 1) * c.H
    assert num_parameters(params) == numel
    c = params.config
    extra = (
        {
            "openai-gpt": dict(attention_biases=True),
            "gpt2": dict(attention_biases=True, final_ln=True),
            "gpt-neo": None,
        }[kind]
        if kind in ("openai-gpt", "gpt2", "gpt-neo")
        else None
    )
    if extra is not None:
        assert numel == parameter_count(c.V, c.n_ctx, c.H, c.F, c.D, c.A, c.L, **extra)


@settings(max_examples=40)
@given(
    V=st.integers(1, 30),
    n=st.integers(1, 12),
    A=st.integers(1, 4),
    D=st.integers(1, 5),
    F=st.integers(1, 20),
    L=st.integers(1, 3),
    extra_width=st.integers(0, 3),
)
def test_lambda_equals_the_size_of_our_containers(V, n, A, D, F, L, extra_width):
    H = A * D + extra_width  # D need not be H / A in the formula
    cfg = Config(V=V, n_ctx=n, H=H, A=A, L=L, F=F, D=D)
    lam = parameter_count(V, n, H, F, D, A, L)
    assert num_parameters(init_gpt(cfg)) == lam
    assert num_parameters(init_gpt2(cfg)) == parameter_count(
        V, n, H, F, D, A, L, final_ln=True
    )
    assert num_parameters(init_gpt(cfg, attention_biases=True)) == parameter_count(
        V, n, H, F, D, A, L, attention_biases=True
    )
    assert num_parameters(init_bert(cfg)) == lam + 2 * H  # w_A, w_B
    assert num_parameters(init_roberta(cfg)) == lam
    # term by term, against our containers' arrays grouped by the sublayer they belong to
    group = {
        "W_e": "embeddings",
        "W_p": "embeddings",
        "W_q": "attention",
        "W_k": "attention",
        "W_v": "attention",
        "W_o": "attention",
        "b_q": "attention",
        "b_k": "attention",
        "b_v": "attention",
        "b_o": "attention",
        "W_1": "ffn",
        "b_1": "ffn",
        "W_2": "ffn",
        "b_2": "ffn",
        "gamma_1": "layernorm",
        "beta_1": "layernorm",
        "gamma_2": "layernorm",
        "beta_2": "layernorm",
        "gamma_f": "layernorm",
        "beta_f": "layernorm",
    }
    for params, extra in [
        (init_gpt(cfg), {}),
        (init_gpt2(cfg), dict(final_ln=True)),
        (init_gpt(cfg, attention_biases=True), dict(attention_biases=True)),
    ]:
        sizes = dict.fromkeys(("embeddings", "attention", "ffn", "layernorm"), 0)
        for name, arr in named_arrays(params):
            sizes[group[name.split(".")[-1]]] += arr.size
        assert parameter_breakdown(V, n, H, F, D, A, L, **extra) == sizes


def _numel(module: torch.nn.Module, *, weights_only: bool = False) -> int:
    return sum(
        p.numel()
        for name, p in module.named_parameters()
        if not weights_only or name.endswith("weight")
    )


@pytest.mark.parametrize(
    "kind,sizes",
    [
        ("openai-gpt", dict(V=40478, n=512, H=768, A=12, L=12)),  # GPT-1 itself
        ("gpt2", dict(V=50257, n=1024, H=768, A=12, L=12)),  # GPT-2 small
        ("openai-gpt", dict(V=29, n=9, H=12, A=3, L=3)),
        ("gpt2", dict(V=29, n=9, H=12, A=3, L=3, F=20)),  # F ≠ 4H
    ],
)
def test_lambda_terms_match_the_submodules_of_transformers_models(kind, sizes):
    """Each term of the breakdown is the size of the matching modules of a real model."""
    import transformers as T

    V, n, H, A, L = (sizes[k] for k in "V n H A L".split())
    F, D = sizes.get("F", 4 * H), H // A
    common = dict(
        vocab_size=V,
        n_positions=n,
        n_embd=H,
        n_layer=L,
        n_head=A,
        bos_token_id=None,
        eos_token_id=None,
    )
    with torch.device("meta"):  # shapes only: nothing is allocated
        if kind == "gpt2":
            model = T.GPT2Model(T.GPT2Config(n_inner=F, **common))
            wte, wpe = model.wte, model.wpe
        else:
            model = T.OpenAIGPTModel(T.OpenAIGPTConfig(**common))
            wte, wpe = model.tokens_embed, model.positions_embed
    blocks = list(model.h)
    assert len(blocks) == L
    assert model.h[0].mlp.c_fc.nf == F  # the FFN width is the one we count with
    ln_f = _numel(model.ln_f) if kind == "gpt2" else 0
    expected = {
        "embeddings": _numel(wte) + _numel(wpe),
        "ffn": sum(_numel(h.mlp) for h in blocks),
        "layernorm": sum(_numel(h.ln_1) + _numel(h.ln_2) for h in blocks) + ln_f,
    }
    # λ leaves out the attention biases: its term is the attention weights alone
    box = parameter_breakdown(V, n, H, F, D, A, L)
    assert box == {
        **expected,
        "layernorm": expected["layernorm"] - ln_f,
        "attention": sum(_numel(h.attn, weights_only=True) for h in blocks),
    }
    real = parameter_breakdown(
        V, n, H, F, D, A, L, attention_biases=True, final_ln=kind == "gpt2"
    )
    assert real == {**expected, "attention": sum(_numel(h.attn) for h in blocks)}
    assert sum(real.values()) == _numel(model)  # and no module was left out


# ---------------------------------------------------------------------------------------------
# BERT / RoBERTa input construction, against the real tokenizers
# ---------------------------------------------------------------------------------------------


def test_bert_input_matches_the_bert_tokenizer():
    import transformers as T

    words = [
        "[PAD]",
        "[UNK]",
        "[CLS]",
        "[SEP]",
        "[MASK]",
        "the",
        "cat",
        "sat",
        "on",
        "mat",
    ]
    vocab = {w: i for i, w in enumerate(words)}
    enc = T.BertTokenizer(vocab=vocab)("the cat", "sat on mat")
    x_masked, t, x = bert_input([5, 6], [7, 8, 9], 2, cls_id=2, sep_id=3, mask_id=4)
    assert x.tolist() == enc["input_ids"]
    assert t.tolist() == enc["token_type_ids"]
    assert x_masked.tolist() == [2, 5, 4, 3, 7, 8, 9, 3]


def test_roberta_input_matches_the_roberta_tokenizer():
    import transformers as T

    vocab = {
        "<s>": 0,
        "<pad>": 1,
        "</s>": 2,
        "<unk>": 3,
        "<mask>": 4,
        "a": 5,
        "b": 6,
        "c": 7,
        "Ġ": 8,
        "Ġb": 9,
        "Ġc": 10,
    }
    enc = T.RobertaTokenizer(vocab=vocab, merges=[("Ġ", "b"), ("Ġ", "c")])("a b", "c")
    x_masked, x = roberta_input([5, 9], [7], 5, bos_id=0, eos_id=2, mask_id=4)
    assert x.tolist() == enc["input_ids"]
    assert x_masked.tolist() == [0, 5, 9, 2, 2, 4, 2]


# ---------------------------------------------------------------------------------------------
# Bad input → clear errors
# ---------------------------------------------------------------------------------------------


def test_bad_token_ids(loaded):
    _, params, opts = loaded("gpt2", "small")
    V = params.config.V
    with pytest.raises(
        ValueError, match=rf"x: expected token ids in 0..{V - 1}.*got {V}"
    ):
        gpt2_probabilities(np.array([1, V]), params, **opts)
    with pytest.raises(ValueError, match="got -1"):
        gpt2_probabilities(np.array([-1, 2]), params, **opts)
    with pytest.raises(TypeError, match="x: expected integer token ids"):
        gpt2_probabilities(np.array([1.0, 2.0]), params, **opts)
    with pytest.raises(ValueError, match="at least one token"):
        gpt2_probabilities(np.array([], dtype=int), params, **opts)


def test_sequence_longer_than_the_context(loaded):
    _, params, opts = loaded("openai-gpt", "small")
    n_ctx = params.config.n_ctx
    with pytest.raises(
        ValueError, match=rf"at most n_ctx={n_ctx} tokens.*got n={n_ctx + 1}"
    ):
        gpt_probabilities(np.ones(n_ctx + 1, dtype=int), params, **opts)


def test_mismatched_config_and_params():
    params = init_gpt2(CONFIGS["small"])
    wrong = dataclasses.replace(
        params, config=dataclasses.replace(CONFIGS["small"], H=8, A=2)
    )
    with pytest.raises(
        ValueError, match=r"params\.W_e .*expected shape \(40, 8\), got \(40, 16\)"
    ):
        gpt2_probabilities([1, 2], wrong)
    fewer = dataclasses.replace(params, blocks=params.blocks[:1])
    with pytest.raises(ValueError, match="expected L=2 blocks"):
        gpt2_probabilities([1, 2], fewer)
    blk = dataclasses.replace(params.blocks[1], W_o=np.zeros((16, 12)))
    broken = dataclasses.replace(params, blocks=[params.blocks[0], blk])
    with pytest.raises(ValueError, match=r"blocks\[1\]\.W_o"):
        gpt2_probabilities([1, 2], broken)
    with pytest.raises(ValueError, match="final LayerNorm"):
        gpt2_probabilities([1, 2], init_gpt(CONFIGS["small"]))
    with pytest.raises(TypeError, match="expected GPTParams, got BERTParams"):
        gpt_probabilities([1, 2], init_bert(CONFIGS["small"]))
    with pytest.raises(TypeError, match="float array"):
        gpt_probabilities(
            [1, 2], dataclasses.replace(params, W_e=params.W_e.astype(int))
        )


def test_bad_segment_ids(loaded):
    _, params, opts = loaded("bert", "small")
    x = np.array([5, 6, 7])
    with pytest.raises(ValueError, match=r"t: expected segment ids in \{0, 1\}, got 2"):
        bert_probabilities(x, np.array([0, 1, 2]), params, **opts)
    with pytest.raises(ValueError, match="t: expected the shape of x"):
        bert_probabilities(x, np.array([0, 1]), params, **opts)
    with pytest.raises(TypeError, match="t: expected integer segment ids"):
        bert_probabilities(x, np.array([0.0, 1.0, 1.0]), params, **opts)
    with pytest.raises(ValueError, match="j_masked: expected a position in 0..2"):
        bert(x, np.array([0, 0, 1]), params, j_masked=3, **opts)


def test_bad_options_and_construction(loaded):
    _, params, opts = loaded("roberta", "small")
    with pytest.raises(ValueError, match="gelu: expected one of"):
        roberta_probabilities([3, 4], params, gelu="exact")
    with pytest.raises(ValueError, match="padding id 1"):
        roberta_probabilities([3, 1, 4], params, **opts)
    with pytest.raises(ValueError, match=r"j_masked: .*one of \[1, 2, 4\], got 0"):
        bert_input([5, 6], [7], 0, cls_id=2, sep_id=3, mask_id=4)
    with pytest.raises(ValueError, match="j_masked"):
        roberta_input([5], [7], 3, bos_id=0, eos_id=2, mask_id=4)
    with pytest.raises(ValueError, match="D: expected H divisible by A"):
        Config(V=10, n_ctx=4, H=10, A=3, L=1)
    with pytest.raises(ValueError, match="n_ctx: expected a positive integer"):
        Config(V=10, n_ctx=0, H=8, A=2, L=1)
    with pytest.raises(TypeError, match="expected a transformers GPT2LMHeadModel"):
        hf.from_gpt2(loaded("openai-gpt", "small")[0])
    half = dataclasses.replace(params, W_t=None)
    with pytest.raises(ValueError, match="all or none"):
        roberta_probabilities([3, 4], half, **opts)
    with pytest.raises(ValueError, match="kind: expected one of"):
        hf_tiny.tiny_model("gpt4", CONFIGS["small"])


def test_check_params_returns_the_config():
    cfg = CONFIGS["odd"]
    assert check_params(init_bert(cfg)) == cfg
    assert isinstance(init_bert(cfg), BERTParams)
