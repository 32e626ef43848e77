"""Chapter 19's look inside the model: attention weights against transformers, head shares on a
model whose attention is known, the shipped checkpoint's recorded validation loss."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from formulated.analysis import (
    CHECKPOINT,
    attention_weights,
    head_shares,
    load_shakespeare_gpt,
    pattern_targets,
)
from formulated.models.pretrained import to_gpt2_lm_head
from formulated.models.trainable import GPT, GPTConfig
from formulated.tokenizers import CharTokenizer


def perturbed(V=12, n_ctx=32, seed=0) -> GPT:
    torch.manual_seed(seed)
    m = GPT(GPTConfig(V=V, n_ctx=n_ctx, L=2, A=2, H=16)).double().eval()
    with torch.no_grad():
        for p in m.parameters():
            p.add_(0.3 * torch.randn_like(p))
    return m


def test_weights_match_transformers():
    model = perturbed()
    x = torch.randint(0, 12, (2, 32), generator=torch.Generator().manual_seed(1))
    logits, P = attention_weights(model, x)
    with torch.no_grad():
        out = to_gpt2_lm_head(model)(input_ids=x, output_attentions=True)
    assert P.shape == (2, 2, 2, 32, 32)
    assert float((P - torch.stack(out.attentions, 1)).abs().max()) <= 1e-12
    with torch.no_grad():
        assert float((logits - model(x)[0]).abs().max()) <= 1e-12


def test_pattern_targets_worked_example():
    t = pattern_targets("ab cd\nEF g")
    assert t["previous character"].tolist() == [-1, 0, 1, 2, 3, 4, 5, 6, 7, 8]
    assert t["start of the word"].tolist() == [-1, -1, -1, 3, 3, 3, 6, 6, 6, 9]
    assert t["start of the line"].tolist() == [-1] * 6 + [6, 6, 6, 6]
    assert t["last newline"].tolist() == [-1] * 5 + [5] * 5
    assert t["last space"].tolist() == [-1, -1, 2, 2, 2, 2, 2, 2, 8, 8]


def test_head_shares_by_hand():
    """With W_q = 0 every score is equal, attention is uniform over the visible positions, and
    every head's share must equal the chance level, computed here by a plain loop."""
    text = "ab cd\nEF g hi\njk lm no\npq"
    tok = CharTokenizer.from_text(text)
    model = perturbed(V=tok.vocab_size, n_ctx=8)
    with torch.no_grad():
        for b in model.blocks:
            b.attn.qkv.weight[:16].zero_()
            b.attn.qkv.bias[:16].zero_()
    ids = torch.tensor(tok.encode(text))
    shares = head_shares(model, tok, ids, n_ctx=8)
    for name in ("previous character", "last newline", "start of the word"):
        total, count = 0.0, 0
        for s in range(0, len(text) - 1, 8):
            t = pattern_targets(text[s : s + 8])[name]
            for i, ti in enumerate(t):
                if i >= 1 and ti >= 0:
                    total, count = total + 1 / (i + 1), count + 1
        assert shares[name]["queries"] == count
        np.testing.assert_allclose(
            shares[name]["share"], total / count, rtol=0, atol=1e-12
        )
        assert shares[name]["chance"] == pytest.approx(total / count, abs=1e-12)


@pytest.mark.slow  # evaluates the shipped model
def test_shipped_checkpoint_has_its_recorded_val_loss():
    from formulated.training import evaluate, load_data

    model, tok, info = load_shakespeare_gpt()
    _, _, val = load_data()
    assert CHECKPOINT.stat().st_size < 8e6
    assert info["val_loss"] <= 1.70
    assert "make_shakespeare_char_4x128.sh" in info["command"]
    loss = evaluate(model, val, n_ctx=model.cfg.n_ctx, batch=64)
    assert abs(loss - info["val_loss"]) < 1e-4, (loss, info["val_loss"])


@pytest.mark.parametrize("bad, where", [(12, (0, 1)), (-1, (1, 0))])
def test_attention_weights_out_of_range_id_names_idx(bad, where):
    """An id outside 0..V-1 named with V and its place (the embedding said only 'index out of
    range in self', or for -1 silently read the last row)."""
    x = torch.tensor([[1, 2], [3, 4]])
    x[where] = bad
    with pytest.raises(
        ValueError,
        match=re.escape(
            f"idx: expected token ids in 0..11 (vocabulary size V=12), got {bad} at index "
            f"{where}"
        ),
    ):
        attention_weights(perturbed(), x)


def test_attention_weights_float_or_empty_ids_name_idx():
    with pytest.raises(TypeError, match="idx: expected integer token ids, got dtype"):
        attention_weights(perturbed(), torch.ones(1, 3))
    with pytest.raises(
        ValueError, match=r"idx: expected .* B, n >= 1, got torch\.Size\(\[1, 0\]\)"
    ):
        attention_weights(perturbed(), torch.zeros(1, 0, dtype=torch.long))
