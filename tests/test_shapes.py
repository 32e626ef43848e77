"""The notation table and the shape tracer, checked against transformers' GPT-2 and its configs."""

from __future__ import annotations

import numpy as np
import pytest

from formulated.notation import (
    NOTATION,
    SOURCE_KEYS,
    GPTBlockParams,
    format_trace,
    gpt2_reference,
    notation_table,
    random_block_params,
    symbolic_shape,
    trace_gpt_block,
)

# Our trace step -> the module of transformers' GPT2 whose output is the same tensor.
MATCHES = {
    "LayerNorm 1": "ln_1",
    "attention weights": "attn_weights",
    "attention output": "attn",
    "LayerNorm 2": "ln_2",
    "FFN hidden (pre-activation)": "c_fc",
    "FFN hidden (GELU)": "act",
    "FFN output": "mlp",
    "block output": "block",
    "final LayerNorm": "ln_f",
    "logits": "logits",
}


@pytest.mark.parametrize(
    "B,n,H,A,V", [(2, 5, 12, 3, 11), (1, 1, 8, 1, 4), (3, 6, 16, 4, 50)]
)
def test_trace_equals_gpt2_block(B, n, H, A, V):
    params = random_block_params(V=V, n_max=8, H=H, A=A, seed=B + n)
    ids = np.random.default_rng(n).integers(0, V, size=(B, n))
    steps = {s.name: s for s in trace_gpt_block(ids, params)}
    ref = gpt2_reference(ids, params)
    for ours, theirs in MATCHES.items():
        assert steps[ours].shape == ref[theirs].shape, (
            ours,
            steps[ours].shape,
            ref[theirs].shape,
        )
        assert np.abs(steps[ours].value - ref[theirs]).max() < 1e-12, ours
    qkv = np.concatenate(
        [
            steps[k].value
            for k in ("queries, all heads", "keys, all heads", "values, all heads")
        ],
        axis=-1,
    )
    assert qkv.shape == ref["c_attn"].shape == (B, n, 3 * H)
    assert np.abs(qkv - ref["c_attn"]).max() < 1e-12
    probs = steps["probabilities"].value
    assert np.allclose(probs.sum(-1), 1.0)


def test_trace_shapes_by_hand():
    # B=2 sequences of n=5 tokens, V=11, H=12, A=3 heads of D=4, F=48.
    params = random_block_params(V=11, n_max=8, H=12, A=3)
    ids = np.zeros((2, 5), dtype=np.int64)
    shapes = {s.name: s.shape for s in trace_gpt_block(ids, params)}
    assert shapes["one-hot"] == (2, 5, 11)
    assert shapes["position embeddings"] == (5, 12)
    assert shapes["queries, all heads"] == (2, 5, 12)
    assert shapes["queries, split"] == (2, 3, 5, 4)
    assert shapes["scores"] == shapes["attention weights"] == (2, 3, 5, 5)
    assert shapes["mask"] == (5, 5)
    assert shapes["heads"] == (2, 3, 5, 4)
    assert shapes["FFN hidden (pre-activation)"] == (2, 5, 48)
    assert shapes["probabilities"] == (2, 5, 11)
    dims = {"B": 2, "n": 5, "V": 11, "H": 12, "A": 3, "D": 4, "F": 48}
    text = format_trace(trace_gpt_block(ids, params), dims)
    assert "B × A × n × n" in text and "(2, 3, 5, 5)" in text


def test_batch_rows_are_independent_sequences():
    params = random_block_params(V=9, n_max=6, H=8, A=2, seed=1)
    ids = np.random.default_rng(2).integers(0, 9, size=(3, 6))
    batch = trace_gpt_block(ids, params)[-1].value
    for b in range(3):
        one = trace_gpt_block(ids[b : b + 1], params)[-1].value
        assert np.abs(batch[b] - one[0]).max() < 1e-15


def test_symbolic_shape():
    dims = {"B": 2, "n": 5, "H": 12, "A": 3, "D": 4}
    assert symbolic_shape(("B", "n", "A*D"), dims) == (2, 5, 12)
    assert symbolic_shape(("B", "n", "3H"), dims) == (2, 5, 36)
    with pytest.raises(KeyError, match="expected a size for 'F'"):
        symbolic_shape(("B", "F"), dims)


def test_trace_bad_input():
    params = random_block_params(V=5, n_max=4, H=8, A=2)
    with pytest.raises(TypeError, match="ids: expected integer token ids"):
        trace_gpt_block(np.zeros((1, 3)), params)
    with pytest.raises(ValueError, match=r"ids: expected token ids in 0\.\.4"):
        trace_gpt_block(np.array([[1, 5]]), params)
    with pytest.raises(ValueError, match="ids: expected 2 dimension"):
        trace_gpt_block(np.array([1, 2]), params)
    with pytest.raises(ValueError, match="at most n_max=4 tokens"):
        trace_gpt_block(np.zeros((1, 5), dtype=int), params)
    with pytest.raises(TypeError, match="params: expected GPTBlockParams"):
        trace_gpt_block(np.zeros((1, 2), dtype=int), {"W_e": 1})
    with pytest.raises(
        ValueError, match="A: expected a number of heads that divides H=8"
    ):
        random_block_params(V=5, n_max=4, H=8, A=3)
    bad = trace_gpt_block(np.zeros((1, 2), dtype=int), params)
    with pytest.raises(ValueError, match="'one-hot' has shape"):
        format_trace(bad, {"B": 1, "n": 2, "V": 6, "H": 8, "A": 2, "D": 4, "F": 32})
    assert isinstance(params, GPTBlockParams)


# -- the notation table -----------------------------------------------------------------------


def _letters(book: str) -> dict[str, str]:
    return next(
        s.letters for s in NOTATION if s.book == book and s.group == "dimension"
    )


def test_concordance_of_source_002():
    # 002 writes T for n, D for H, H for A, d_k for D, d_ff for F.
    assert _letters("n")["002"] == "$T$"
    assert _letters("H")["002"].startswith("$D$")
    assert _letters("A")["002"] == "$H$"
    assert _letters("D")["002"].startswith("$d_k")
    assert _letters("F")["002"] == r"$d_\text{ff}$"
    for book in "nVHADFL":  # 000 and 001 are the book's own notation
        assert _letters(book)["000"].startswith(f"${book}$")
        assert _letters(book)["001"].startswith(f"${book}$")


def test_dimension_values_against_transformers_configs():
    from transformers import GPT2Config, OpenAIGPTConfig

    for cfg, attr in ((OpenAIGPTConfig(), "gpt1"), (GPT2Config(), "gpt2")):
        n_inner = getattr(cfg, "n_inner", None) or 4 * cfg.n_embd
        expected = {
            "n": cfg.n_positions,
            "V": cfg.vocab_size,
            "H": cfg.n_embd,
            "A": cfg.n_head,
            "D": cfg.n_embd // cfg.n_head,
            "F": n_inner,
            "L": cfg.n_layer,
        }
        got = {
            s.book: getattr(s, attr)
            for s in NOTATION
            if s.group == "dimension" and s.book in expected
        }
        assert got == expected, attr


def test_notation_table_renders_every_symbol():
    table = notation_table()
    rows = [ln for ln in table.splitlines()[2:]]
    assert len(rows) == len(NOTATION)
    n_cols = 4 + len(SOURCE_KEYS)
    assert all(ln.count(" | ") == n_cols - 1 for ln in rows), (
        "a cell contains a stray '|'"
    )
    dims = notation_table(("dimension",), values=True)
    assert "| 40,478 | 50,257 |" in dims and len(dims.splitlines()) == 2 + 8
    for s in NOTATION:
        assert set(s.letters) <= set(SOURCE_KEYS), s
        assert s.group in {"dimension", "index", "data", "parameter", "activation"}
    with pytest.raises(ValueError, match="groups: expected some of"):
        notation_table(("dimensions",))
