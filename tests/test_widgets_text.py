"""The widgets of chapters 5–7: set a control, check the result against numbers worked out by
hand (shapes, BPE merges) and against Hugging Face's sinusoidal encoding (XLM)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from formulated.widgets import bpe_widget, shapes_widget, sinusoidal_encoding_widget  # noqa: E402

# -- chapters 5 and 6 ---------------------------------------------------------------------------


def test_shapes_widget_follows_the_sliders():
    w = shapes_widget(B=2, n=5, H=12, A=3, V=11)
    s = w.result["shapes"]
    assert s["scores"] == (2, 3, 5, 5) and s["queries, split"] == (2, 3, 5, 4)
    assert s["FFN hidden (GELU)"] == (2, 5, 48) and s["logits"] == (2, 5, 11)
    w.controls["A"].value = 4  # D = 12 / 4 = 3
    s = w.result["shapes"]
    assert s["queries, split"] == (2, 4, 5, 3) and s["attention weights"] == (
        2,
        4,
        5,
        5,
    )
    assert s["heads, concatenated"] == (2, 5, 12)
    w.controls["n"].value = 7
    w.controls["B"].value = 3
    assert w.result["shapes"]["scores"] == (3, 4, 7, 7)
    assert w.result["sizes"]["scores"] == 3 * 4 * 7 * 7
    assert w.result["shapes"]["mask"] == (7, 7)
    w.controls["V"].value = 30
    assert w.result["shapes"]["one-hot"] == (3, 7, 30)
    assert w.result["letters"]["probabilities"] == "B × n × V"


def test_shapes_widget_explains_heads_that_do_not_divide_the_width():
    w = shapes_widget(H=12, A=3)
    w.controls["A"].value = 5
    assert "do not divide H = 12" in w.result["error"] and w.result["shapes"] == {}
    w.controls["H"].value = 20
    assert w.result["error"] == "" and w.result["shapes"]["keys, split"] == (2, 5, 5, 4)


def test_bpe_widget_steps_through_the_lecture_example():
    w = bpe_widget(corpus="lecture", merges=0)
    # Before any merge: 10 characters + r</w>, t</w>, w</w>; 3 + 5 + 6 + 6 = 20 tokens.
    assert w.result["V"] == 13 and w.result["tokens"] == 20
    w.controls["merges"].value = 3  # e+s, l+o, es+t</w> (worked by hand in chapter 6)
    seg = w.result["segmentation"]
    assert seg["newest"] == ("n", "e", "w", "est</w>")
    assert seg["lower"] == ("lo", "w", "e", "r</w>")
    assert w.result["V"] == 16 and w.result["tokens"] == 2 + 4 + 4 + 4
    assert [m.count for m in w.result["merges"]] == [2, 2, 2]
    w.controls["merges"].value = 13  # every word is one token
    assert all(len(t) == 1 for t in w.result["segmentation"].values())
    assert w.result["tokens"] == 4


def test_bpe_widget_classic_frequencies():
    w = bpe_widget(corpus="classic", merges=2)
    # e-s occurs 6 + 3 = 9 times, then es-t</w> 9 times; l-o only 5 + 2 = 7.
    assert [(m.pair, m.count) for m in w.result["merges"]] == [
        (("e", "s"), 9),
        (("es", "t</w>"), 9),
    ]
    w.controls["merges"].value = 4
    # Then l-o (7); then n-e, e-w and w-est</w> tie at 6 and e-w wins ('e' sorts first).
    assert [(m.pair, m.count) for m in w.result["merges"][2:]] == [
        (("l", "o"), 7),
        (("e", "w"), 6),
    ]
    assert w.result["segmentation"]["low"] == ("lo", "w</w>")
    assert w.result["segmentation"]["newest"] == ("n", "ew", "est</w>")


# -- chapter 7 -----------------------------------------------------------------------------------


def _xlm_pe(n: int, H: int) -> np.ndarray:
    from transformers.models.xlm.modeling_xlm import create_sinusoidal_embeddings

    out = torch.empty(n, H)
    create_sinusoidal_embeddings(n, H, out)
    return out.double().numpy()


# -- chapter 7 -----------------------------------------------------------------------------------


def test_sinusoidal_widget_follows_length_and_width():
    w = sinusoidal_encoding_widget()
    assert w.result["pe"].shape == (32, 32)
    w.controls["n"].value = 50
    w.controls["H"].value = 16
    ref = _xlm_pe(50, 16)
    assert w.result["pe"].shape == (50, 16)
    assert np.abs(w.result["pe"] - ref).max() < 1e-6  # the reference is float32
    sim = torch.from_numpy(ref) @ torch.from_numpy(ref).T
    assert np.abs(w.result["similarity"] - sim.numpy()).max() < 1e-4


def test_sinusoidal_widget_position_row_and_clipping():
    w = sinusoidal_encoding_widget(n=20, H=8, position=3)
    ref = _xlm_pe(20, 8)
    # dot products of position 3 with every position: sum_k cos(w_k (3 - q)), H/2 at q = 3
    assert np.abs(w.result["row"] - ref[3] @ ref.T).max() < 1e-5
    assert w.result["row"][3] == pytest.approx(4.0)
    w.controls["position"].value = 100  # beyond the sequence: clipped to n - 1
    assert w.result["position"] == 19
    assert np.abs(w.result["row"] - ref[19] @ ref.T).max() < 1e-5
