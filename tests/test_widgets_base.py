"""The widgets' base class and shared layout: one computation per batch of changes, figures
closed once shown, errors shown instead of drawn, and a layout that fits a 390 px phone
(labels as wide as their text, no fixed pixel width over 360 px, panels of at most 3.4 inches).
"""

from __future__ import annotations

import re

import ipywidgets as W
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from formulated import widgets  # noqa: E402
from formulated.models.trainable import GPT, GPTConfig  # noqa: E402
from formulated.tokenizers import CharTokenizer  # noqa: E402
from formulated.widgets import FormulaWidget, panel  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _tiny_sampler():
    tok = CharTokenizer(list(" abc\n"))
    torch.manual_seed(0)
    return widgets.sampling_widget(
        GPT(GPTConfig(V=tok.vocab_size, n_ctx=8, L=1, A=2, H=8)),
        tok,
        prompt="ab",
        length=10,
    )


BOOK_WIDGETS = {
    "gradient_descent": widgets.gradient_descent_widget,
    "information": widgets.information_widget,
    "local_minima": widgets.local_minima_widget,
    "gradient_flow": widgets.gradient_flow_widget,
    "shapes": widgets.shapes_widget,
    "bpe": widgets.bpe_widget,
    "sinusoidal": widgets.sinusoidal_encoding_widget,
    "attention": widgets.attention_widget,
    "mask": widgets.mask_widget,
    "multi_head": widgets.multi_head_widget,
    "gelu": widgets.gelu_widget,
    "layer_norm": widgets.layer_norm_widget,
    "parameter_count": widgets.parameter_count_widget,
    "xlnet": widgets.xlnet_order_widget,
    "sampling": _tiny_sampler,
}


def _counting_widget():
    calls = []

    def compute(a: float, b: float) -> dict:
        calls.append((a, b))
        return {"sum": a + b}

    def draw(r: dict, v: dict) -> str:
        panel()
        return f"<i>{r['sum']}</i>"

    controls = {
        "a": W.FloatSlider(value=1.0, description="a"),
        "b": W.FloatSlider(value=2.0, description="b"),
    }
    return FormulaWidget(controls, compute, draw, title="sum"), calls


def test_every_change_recomputes_and_hold_recomputes_once():
    w, calls = _counting_widget()
    assert calls == [(1.0, 2.0)] and w.result == {"sum": 3.0}
    w.controls["a"].value = 5.0
    assert calls[-1] == (5.0, 2.0) and w.result["sum"] == 7.0 and len(calls) == 2
    with w.hold():
        assert w.holding
        w.controls["a"].value = 10.0
        w.controls["b"].value = 20.0
        assert w.result["sum"] == 7.0  # nothing recomputed inside
    assert not w.holding
    assert calls[2:] == [(10.0, 20.0)] and w.result["sum"] == 30.0
    assert w.text.value == "<i>30.0</i>" and len(w.figure_box.children) == 1


def test_figures_are_closed_once_shown():
    before = plt.get_fignums()
    w, _ = _counting_widget()
    for v in (3.0, 4.0, 5.0):
        w.controls["b"].value = v
    w.redraw()
    assert plt.get_fignums() == before


def test_an_error_is_shown_not_drawn():
    w = FormulaWidget(
        {"x": W.IntSlider(value=1, description="x")},
        lambda x: {"error": "x: expected <2, got 1"} if x == 1 else {"x": x},
        lambda r, v: panel() and None,
    )
    assert w.figure_box.children == () and "x: expected &lt;2, got 1" in w.text.value
    w.controls["x"].value = 0
    assert len(w.figure_box.children) == 1 and w.text.value == ""


def _pixels(value: str) -> float:
    m = re.fullmatch(r"([\d.]+)px", value or "")
    return float(m.group(1)) if m else 0.0


@pytest.mark.parametrize("name", sorted(BOOK_WIDGETS))
def test_layout_fits_a_phone(name, monkeypatch):
    sizes = []
    real_close = plt.close

    def close(fig=None):
        if isinstance(fig, plt.Figure):
            sizes.append(tuple(fig.get_size_inches()))
        real_close(fig)

    monkeypatch.setattr(plt, "close", close)
    w = BOOK_WIDGETS[name]()
    assert sizes, "the widget drew no figure"
    # 3.4 inches at the inline backend's 100 dpi is 340 px: a phone's column, unscaled
    assert all(width <= 3.4 for width, _ in sizes), sizes
    for key, control in w.controls.items():
        assert control.description, f"{name}: control {key} has no label"
        if hasattr(control.style, "description_width"):
            assert control.style.description_width == "initial", (name, key)
        for attr in ("width", "min_width", "max_width"):
            assert _pixels(getattr(control.layout, attr)) <= 360, (name, key, attr)
