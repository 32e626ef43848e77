"""Chapter 18's sampling widget: each control changes the result, deterministically and correctly."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
import torch  # noqa: E402

from formulated.tokenizers import CharTokenizer  # noqa: E402
from formulated.models.torch import GPT, GPTConfig  # noqa: E402
from formulated.widgets import sampling_widget  # noqa: E402


@pytest.fixture(scope="module")
def tiny():
    tok = CharTokenizer(list(" abcdefghij\n:"))
    torch.manual_seed(0)
    model = GPT(GPTConfig(V=tok.vocab_size, n_ctx=8, L=1, A=2, H=8)).eval()
    with torch.no_grad():  # larger weights than GPT-2's init, so the distribution is not flat
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
    w = sampling_widget(model, tok, prompt="abc", temperature=1.0, top_k=0, length=30, seed=1)
    r0 = dict(w.result)
    assert r0["error"] is None and len(r0["text"]) == 30
    assert torch.allclose(r0["probs"].double(), _reference_probs(model, tok, "abc", 1.0, 0),
                          atol=1e-6)

    w.controls["temperature"].value = 0.5          # sharper: lower entropy, same argmax
    p = w.result["probs"].double()
    assert torch.allclose(p, _reference_probs(model, tok, "abc", 0.5, 0), atol=1e-6)
    assert w.result["entropy"] < r0["entropy"] and int(p.argmax()) == int(r0["probs"].argmax())

    w.controls["top_k"].value = 3                  # only three characters keep probability
    p = w.result["probs"].double()
    assert int((p > 0).sum()) == 3
    assert torch.allclose(p, _reference_probs(model, tok, "abc", 0.5, 3), atol=1e-6)
    text_k3 = w.result["text"]
    assert set(text_k3) <= set(tok.itos)

    w.controls["top_k"].value = 1                  # top-1 sampling is greedy decoding
    ids = tok.encode("abc")
    with torch.no_grad():
        for _ in range(30):
            ids.append(int(model(torch.tensor([ids[-8:]]))[0][0, -1].argmax()))
    assert w.result["text"] == tok.decode(ids[3:])

    w.controls["top_k"].value = 3                  # deterministic: same controls, same text
    assert w.result["text"] == text_k3
    w.controls["top_k"].value = 0
    w.controls["temperature"].value = 1.5
    hot = w.result["text"]
    w.controls["seed"].value = 2                   # another seed, another text
    assert w.result["text"] != hot
    w.controls["seed"].value = 1
    assert w.result["text"] == hot

    w.controls["prompt"].value = "xyz"             # outside the vocabulary: a message, no crash
    assert w.result["probs"] is None and "unknown character" in w.result["error"]
