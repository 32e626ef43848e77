"""The widgets of chapter 19: each control changes the result, and the result is what the
formulas give (attention weights against transformers, the nucleus against the warpers)."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from transformers import TopPLogitsWarper  # noqa: E402

from formulated.models.pretrained import to_gpt2_lm_head  # noqa: E402
from formulated.models.trainable import GPT, GPTConfig  # noqa: E402
from formulated.tokenizers import CharTokenizer  # noqa: E402
from formulated.widgets.inside import (attention_map_widget, kv_cache_widget,  # noqa: E402
                                       nucleus_widget)

TEXT = "ab cd\nef gh ij\nkl"


def model_and_tok():
    tok = CharTokenizer.from_text(TEXT)
    torch.manual_seed(0)
    m = GPT(GPTConfig(V=tok.vocab_size, n_ctx=32, L=2, A=2, H=16)).double().eval()
    with torch.no_grad():
        for p in m.parameters():
            p.add_(0.3 * torch.randn_like(p))
    return m, tok


def test_attention_map_widget_follows_layer_and_head():
    m, tok = model_and_tok()
    w = attention_map_widget(m, tok, [TEXT, "ab ab"], layer=1, head=1)
    with torch.no_grad():
        ref = to_gpt2_lm_head(m)(input_ids=torch.tensor([tok.encode(TEXT)]),
                                 output_attentions=True).attentions
    np.testing.assert_allclose(w.result["weights"], ref[0][0, 0].numpy(), atol=1e-12)
    with w.hold():
        w.controls["layer"].value, w.controls["head"].value = 2, 2
    np.testing.assert_allclose(w.result["weights"], ref[1][0, 1].numpy(), atol=1e-12)
    w.controls["text"].value = "ab ab"
    assert w.result["weights"].shape == (5, 5)


def test_nucleus_widget_keeps_the_warpers_set():
    z = np.random.default_rng(0).normal(size=30) * 2
    w = nucleus_widget(z, [chr(97 + i % 26) for i in range(30)], top_p=0.9)
    for p in (0.3, 0.9):
        w.controls["top_p"].value = p
        ref = TopPLogitsWarper(p)(torch.zeros(1, 1, dtype=torch.long), torch.tensor(z)[None])
        assert np.array_equal(w.result["kept"], torch.isfinite(ref[0]).numpy())
        assert np.isclose(w.result["dist"].sum(), 1.0)
    w.controls["top_k"].value = 3
    assert w.result["kept"].sum() <= 3


def test_kv_cache_widget_grows():
    m, tok = model_and_tok()
    w = kv_cache_widget(m, tok, TEXT, layer=1, head=1)
    w.controls["t"].value = 5
    assert w.result["keys"].shape == (5, m.cfg.D)
    assert w.result["numbers"] == 2 * m.cfg.L * m.cfg.A * 5 * m.cfg.D
    np.testing.assert_allclose(w.result["weights"].sum(), 1.0)
    w.controls["t"].value = 9
    assert w.result["keys"].shape == (9, m.cfg.D)
