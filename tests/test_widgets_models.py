"""The chapter-16 widget: λ and its breakdown follow the controls, checked against the source's
λ for GPT-1 and against parameter counts of real models built by transformers (meta device)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest
import torch
import transformers as T

from formulated.widgets import PARAMETER_PRESETS, parameter_count_widget


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _numel(model_cls, config) -> int:
    with torch.device("meta"):  # shapes only, nothing allocated
        model = model_cls(config)
    return sum(p.numel() for p in model.parameters())


def test_initial_state_is_gpt1_and_its_lambda_is_the_sources():
    w = parameter_count_widget()
    assert w.result["lambda"] == 116_497_920  # the source's number
    assert w.result["total"] == _numel(T.OpenAIGPTModel, T.OpenAIGPTConfig())
    assert w.result["D"] == 64
    assert set(w.result["breakdown"]) == {"embeddings", "attention", "ffn", "layernorm"}


@pytest.mark.parametrize(
    "preset,n_embd,n_layer,n_head",
    [("GPT-2 small", 768, 12, 12), ("GPT-2 XL", 1600, 48, 25)],
)
def test_presets_match_real_gpt2_models(preset, n_embd, n_layer, n_head):
    w = parameter_count_widget()
    w.controls["preset"].value = preset
    real = _numel(
        T.GPT2Model, T.GPT2Config(n_embd=n_embd, n_layer=n_layer, n_head=n_head)
    )
    assert w.result["total"] == real
    assert w.controls["H"].value == n_embd and w.controls["preset"].value == preset


def test_moving_a_slider_recomputes_and_marks_custom():
    w = parameter_count_widget("GPT-2 small")
    w.controls["L"].value = 3
    assert w.controls["preset"].value == "custom"
    real = _numel(T.GPT2Model, T.GPT2Config(n_layer=3))
    assert w.result["total"] == real
    w.controls["biases"].value = False
    w.controls["final_ln"].value = False
    # without the extras, only the embeddings and the per-layer pieces λ names remain
    H, V, n, F = 768, 50257, 1024, 3072
    by_hand = V * H + n * H + 3 * (4 * H * H) + 3 * (2 * H * F + F + H) + 3 * 4 * H
    assert w.result["total"] == w.result["lambda"] == by_hand


def test_gpt3_preset_is_about_175_billion():
    w = parameter_count_widget("GPT-3 175B")
    assert 174e9 < w.result["total"] < 176e9
    assert w.result["D"] == 128


def test_bad_preset_and_degenerate_sizes():
    with pytest.raises(ValueError, match="preset: expected one of"):
        parameter_count_widget("GPT-5")
    w = parameter_count_widget("custom")
    w.controls["H"].value = 4
    w.controls["A"].value = 8
    assert "error" in w.result and "H = 4" in w.result["error"]
    assert set(PARAMETER_PRESETS) >= {
        "GPT-1",
        "GPT-2 small",
        "GPT-2 medium",
        "GPT-2 large",
        "GPT-2 XL",
        "GPT-3 175B",
        "BERT-base",
    }
