"""The widgets of the training part, chapters 17–19: XLNet orders against brute-force
enumeration and a torch rebuild of the tiny model; the sampling widget: each control changes the
result, deterministically and correctly; attention maps against transformers, the nucleus against
the warpers, the KV cache's size."""

from __future__ import annotations

import itertools
import math

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from transformers import TopPLogitsWarper  # noqa: E402

from formulated.basics import JointTableModel, TinyAttentionModel  # noqa: E402
from formulated.models.pretrained import to_gpt2_lm_head  # noqa: E402
from formulated.models.trainable import GPT, GPTConfig  # noqa: E402
from formulated.tokenizers import CharTokenizer  # noqa: E402
from formulated.widgets import (  # noqa: E402
    attention_map_widget,
    kv_cache_widget,
    nucleus_widget,
    sampling_widget,
    xlnet_order_widget,
)


def f64(x) -> torch.Tensor:
    return torch.tensor(np.asarray(x), dtype=torch.float64)


# -- chapter 17 ----------------------------------------------------------------------------------


def brute_log_prob(table: np.ndarray, ids) -> float:
    total = sum(
        table[s] for s in itertools.product(range(table.shape[0]), repeat=table.ndim)
    )
    return math.log(table[tuple(ids)] / total)


def torch_xlnet_log_likelihood(model, ids, order) -> float:
    """Σ_t log P(x_{z_t} | x_{z_1..z_{t−1}}) of the tiny attention model, rebuilt in torch: for
    each step, attention (F.scaled_dot_product_attention) over only the BOS slot and the slots
    already predicted, then F.log_softmax of the read-out at the target's token."""
    p = {k: f64(v) for k, v in model.params.items()}
    X = (
        torch.nn.Embedding.from_pretrained(p["E"])(torch.tensor([model.V, *ids]))
        + p["P"]
    )
    total = 0.0
    for step, j in enumerate(order):
        slots = [
            0,
            *(k + 1 for k in order[:step]),
        ]  # BOS + the context, in slot numbering
        q = (p["P"][j + 1] @ p["W_q"])[None, None]  # query: the target's position only
        kv = X[slots]
        h = F.scaled_dot_product_attention(
            q, (kv @ p["W_k"])[None], (kv @ p["W_v"])[None]
        )[0, 0]
        total += F.log_softmax((h + p["P"][j + 1]) @ p["W_out"], dim=-1)[ids[j]].item()
    return total


def test_xlnet_order_widget():
    w = xlnet_order_widget()
    assert len(w.controls["order"].options) == 24
    table = JointTableModel.random(V=3, n=4, seed=0, concentration=1.0).table
    tiny = TinyAttentionModel(
        V=3, n=4, H=8, seed=0
    )  # the widget's model: same seed, same shape
    ref = brute_log_prob(table, [0, 2, 1, 2])
    values = {}
    for order in ("1 2 3 4", "3 1 4 2", "4 3 2 1"):
        w.controls["order"].value = order
        z = [int(k) - 1 for k in order.split()]
        assert w.result["order"] == z
        # position z_t sees exactly z_1..z_{t-1}
        for t_, j in enumerate(z):
            assert set(np.flatnonzero(w.result["visible"][j])) == set(z[:t_])
        assert abs(w.result["table"] - ref) < 1e-12
        values[order] = w.result["tiny"]
        assert (
            abs(values[order] - torch_xlnet_log_likelihood(tiny, [0, 2, 1, 2], z))
            < 1e-12
        )
    assert (
        len({round(v, 9) for v in values.values()}) == 3
    )  # an untrained model: orders disagree


# -- chapter 18 ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny():
    tok = CharTokenizer(list(" abcdefghij\n:"))
    torch.manual_seed(0)
    model = GPT(GPTConfig(V=tok.vocab_size, n_ctx=8, L=1, A=2, H=8)).eval()
    with (
        torch.no_grad()
    ):  # larger weights than GPT-2's init, so the distribution is not flat
        for p in model.parameters():
            p.add_(torch.randn_like(p))
    return model, tok


def _reference_probs(model, tok, prompt, T, k):
    """Independent of formulated.train: logits of the last position, /T, top-k by sorting."""
    with torch.no_grad():
        z = model(torch.tensor([tok.encode(prompt)[-8:]]))[0][0, -1].double()
    z = z / T
    if k:
        order = torch.argsort(z, descending=True)
        z[order[k:]] = float("-inf")
    return torch.softmax(z, dim=-1)


def test_sampling_widget_controls(tiny):
    model, tok = tiny
    w = sampling_widget(
        model, tok, prompt="abc", temperature=1.0, top_k=0, length=30, seed=1
    )
    r0 = dict(w.result)
    assert r0["error"] is None and len(r0["text"]) == 30
    assert torch.allclose(
        r0["probs"].double(), _reference_probs(model, tok, "abc", 1.0, 0), atol=1e-6
    )

    w.controls["temperature"].value = 0.5  # sharper: lower entropy, same argmax
    p = w.result["probs"].double()
    assert torch.allclose(p, _reference_probs(model, tok, "abc", 0.5, 0), atol=1e-6)
    assert w.result["entropy"] < r0["entropy"] and int(p.argmax()) == int(
        r0["probs"].argmax()
    )

    w.controls["top_k"].value = 3  # only three characters keep probability
    p = w.result["probs"].double()
    assert int((p > 0).sum()) == 3
    assert torch.allclose(p, _reference_probs(model, tok, "abc", 0.5, 3), atol=1e-6)
    text_k3 = w.result["text"]
    assert set(text_k3) <= set(tok.itos)

    w.controls["top_k"].value = 1  # top-1 sampling is greedy decoding
    ids = tok.encode("abc")
    with torch.no_grad():
        for _ in range(30):
            ids.append(int(model(torch.tensor([ids[-8:]]))[0][0, -1].argmax()))
    assert w.result["text"] == tok.decode(ids[3:])

    w.controls["top_k"].value = 3  # deterministic: same controls, same text
    assert w.result["text"] == text_k3
    w.controls["top_k"].value = 0
    w.controls["temperature"].value = 1.5
    hot = w.result["text"]
    w.controls["seed"].value = 2  # another seed, another text
    assert w.result["text"] != hot
    w.controls["seed"].value = 1
    assert w.result["text"] == hot

    w.controls["prompt"].value = "xyz"  # outside the vocabulary: a message, no crash
    assert w.result["probs"] is None and "unknown character" in w.result["error"]


# -- chapter 19 ----------------------------------------------------------------------------------

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
        ref = to_gpt2_lm_head(m)(
            input_ids=torch.tensor([tok.encode(TEXT)]), output_attentions=True
        ).attentions
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
        ref = TopPLogitsWarper(p)(
            torch.zeros(1, 1, dtype=torch.long), torch.tensor(z)[None]
        )
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
