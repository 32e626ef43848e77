"""Every widget can be used without seeing it, and its panels follow the page's theme.

- every control in every widget of the book (walking the widget tree, not just ``controls``)
  has an accessible name: its ``description``;
- chapter 8's ``query`` slider runs over the queries, ``0 … n − 1``, and follows edits of X;
- every panel is an ``<img>`` whose alt text says what it shows, and changes with the state;
- the figure style (formulated.plotting): text at least 4.5:1 and data colors at least 3:1 on
  the light page (white) and the dark one (#121212), measured with the WCAG formula written
  out here; SVGs that switch their foreground with the page's color scheme;
- chapter 5's table carries no color of its own (it failed 3.1:1 in dark mode).
"""

from __future__ import annotations

import html
import re

import matplotlib

matplotlib.use("Agg")

import ipywidgets as W  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from formulated import plotting, widgets  # noqa: E402
from formulated.models.trainable import GPT, GPTConfig  # noqa: E402
from formulated.tokenizers import CharTokenizer  # noqa: E402
from formulated.widgets import FormulaWidget  # noqa: E402
from formulated.widgets.base import controls_of  # noqa: E402

TEXT = "ab cd\nef gh ij\nkl"


@pytest.fixture(autouse=True)
def _render_and_close(monkeypatch):
    monkeypatch.setattr(FormulaWidget, "render_panels", True)
    yield
    plt.close("all")


def _model():
    tok = CharTokenizer.from_text(TEXT)
    torch.manual_seed(0)
    return GPT(
        GPTConfig(V=tok.vocab_size, n_ctx=32, L=2, A=2, H=16)
    ).double().eval(), tok


def _book_widgets():
    """One of each widget the chapters show, chapter 19's on a tiny random model."""
    m, tok = _model()
    yield "gradient_descent", widgets.gradient_descent_widget
    yield "information", widgets.information_widget
    yield "local_minima", widgets.local_minima_widget
    yield "gradient_flow", widgets.gradient_flow_widget
    yield "shapes", widgets.shapes_widget
    yield "bpe", widgets.bpe_widget
    yield "sinusoidal", widgets.sinusoidal_encoding_widget
    yield "attention", widgets.attention_widget
    yield "mask", widgets.mask_widget
    yield "multi_head", widgets.multi_head_widget
    yield "gelu", widgets.gelu_widget
    yield "layer_norm", widgets.layer_norm_widget
    yield "parameter_count", widgets.parameter_count_widget
    yield "xlnet", widgets.xlnet_order_widget
    yield "sampling", lambda: widgets.sampling_widget(m, tok, prompt="ab", length=10)
    yield "attention_map", lambda: widgets.attention_map_widget(m, tok, [TEXT])
    yield (
        "nucleus",
        lambda: widgets.nucleus_widget(np.linspace(-2, 2, 12), list("abcdefghijkl")),
    )
    yield "kv_cache", lambda: widgets.kv_cache_widget(m, tok, TEXT)


BOOK_WIDGETS = dict(_book_widgets())


def _alts(w: FormulaWidget) -> list[str]:
    return [
        html.unescape(re.search(r'alt="([^"]*)"', p.value).group(1))
        for p in w.figure_box.children
    ]


# -- accessible names ---------------------------------------------------------------------------


def _unnamed(widget: W.Widget) -> list[str]:
    return [
        f"{type(c).__name__}" for c in controls_of(widget) if not c.description.strip()
    ]


@pytest.mark.parametrize("name", list(BOOK_WIDGETS))
def test_every_control_has_an_accessible_name(name):
    w = BOOK_WIDGETS[name]()
    found = controls_of(w)
    assert len(found) >= len(w.controls) >= 1  # the walk reaches every control
    assert _unnamed(w) == []


def test_the_walk_finds_a_control_without_a_name():
    # the check above is not vacuous: a nameless slider deep in boxes is reported
    box = W.VBox([W.HBox([W.IntSlider(description="named"), W.Box([W.IntSlider()])])])
    assert _unnamed(box) == ["IntSlider"]


def test_a_control_without_a_description_is_refused():
    with pytest.raises(ValueError, match=r"controls\['a'\]: expected a description"):
        FormulaWidget({"a": W.FloatSlider()}, lambda a: {})


# -- chapter 8's query slider --------------------------------------------------------------------


def test_query_slider_runs_over_the_queries_and_follows_x():
    w = widgets.attention_widget()
    q = w.controls["query"]
    n = w.result["X"].shape[0]
    assert (q.min, q.max) == (0, n - 1)
    q.value = n - 1
    w.controls["X"].value = "1 0 1 0; 0 2 0 2"  # two inputs: queries 0 and 1
    assert q.max == 1 and q.value == 1 and w.result["query"] == 1
    assert w.result["weights"].shape == (2, 2)
    w.controls["X"].value = "1 0 1 0; 0 2 0 2; 1 1 1 1; 2 0 2 0"
    assert q.max == 3
    w.controls["X"].value = "1 0 1 0; 0 2"  # cannot parse: the range stays
    assert q.max == 3 and "error" in w.result


# -- alt text of the panels ----------------------------------------------------------------------

FILE_NAME = re.compile(r"\.(png|svg|jpe?g)\b|_images/|^[\w./-]+$")


@pytest.mark.parametrize("name", list(BOOK_WIDGETS))
def test_every_panel_has_alt_text(name):
    w = BOOK_WIDGETS[name]()
    alts = _alts(w)
    assert alts, f"{name}: no panel"
    for alt in alts:
        assert len(alt) > 20 and not FILE_NAME.search(alt), alt
        assert alt.startswith(w.title), alt


def test_alt_text_follows_the_state():
    w = widgets.gelu_widget(x=1.0)
    assert "GELU(1.00) = 0.84134" in _alts(w)[0]
    w.controls["x"].value = -0.5
    # GELU(-0.5) = -0.5 Φ(-0.5) = -0.5 × 0.308538
    assert "GELU(-0.50) = -0.15427" in _alts(w)[0]
    a = widgets.attention_widget()
    a.controls["query"].value = 2
    assert "query 2 framed. row 0: 2, 4, 4" in _alts(a)[0]


# -- the figure style ----------------------------------------------------------------------------


def test_contrast_ratio_matches_wcag_worked_values():
    assert plotting.contrast_ratio("black", "white") == pytest.approx(21.0)
    assert plotting.contrast_ratio("#777777", "white") == pytest.approx(4.48, abs=0.01)


def test_text_and_data_colors_are_legible_on_both_pages():
    light, dark = "#ffffff", "#121212"
    assert plotting.contrast_ratio(plotting.FOREGROUND["light"], light) >= 4.5
    assert plotting.contrast_ratio(plotting.FOREGROUND["dark"], dark) >= 4.5
    for color in plotting.CYCLE:
        assert plotting.contrast_ratio(color, light) >= 3.0, color
        assert plotting.contrast_ratio(color, dark) >= 3.0, color


def test_svg_switches_its_foreground_with_the_color_scheme():
    with matplotlib.rc_context(plotting.style()):
        fig, ax = plt.subplots()
        ax.plot([0, 1], [1, 0], label="line")
        ax.set(title="t", xlabel="x")
        ax.legend()
        text = plotting.svg(fig)
    assert "@media (prefers-color-scheme: dark)" in text
    assert f"--fg:{plotting.FOREGROUND['dark']}" in text
    assert "fill: var(--fg, " in text and "stroke: var(--fg, " in text
    # no foreground drawn in the light color only
    assert not re.search(rf"(fill|stroke): {plotting.FOREGROUND['light']}", text)
    assert plotting.CYCLE[0] in text  # data colors as they are


def test_chapter_5_table_has_no_color_of_its_own():
    w = widgets.shapes_widget()
    assert "<table" in w.text.value
    assert not re.search(r"color\s*[:=]\s*#", w.text.value), w.text.value
    assert "font-weight:bold" in w.text.value  # the n² rows still stand out
