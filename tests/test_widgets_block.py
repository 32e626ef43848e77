"""The widgets of the transformer block, chapters 8–12: set a control, check the result against
an independent reference: ``torch.nn.functional`` softmax and ``scaled_dot_product_attention``, the
slides' worked numbers, masks built with torch, ``nn.MultiheadAttention``, torch's GELU and
LayerNorm (never our formulas)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import math  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from transformers.activations import ACT2FN  # noqa: E402

from formulated import examples as ex  # noqa: E402
from formulated.widgets import (  # noqa: E402
    attention_pattern,
    attention_widget,
    format_matrix,
    gelu_widget,
    layer_norm_widget,
    mask_widget,
    multi_head_widget,
    parse_matrix,
)

# -- chapter 8 -----------------------------------------------------------------------------------


def _sdpa(X, Wq, Wk, Wv, scale):
    t = lambda M: torch.tensor(M, dtype=torch.float64)  # noqa: E731
    X = t(X)
    return F.scaled_dot_product_attention(
        X @ t(Wq), X @ t(Wk), X @ t(Wv), scale=None if scale else 1.0
    ).numpy()


# Values of the slides' example, by hand: x_i @ W_v for x_1 = [1,0,1,0], x_2 = [0,2,0,2],
# x_3 = [1,1,1,1]; query 1's scores against the three keys are [2, 4, 4].
_VALUES = np.array([[1, 2, 3], [2, 8, 0], [2, 6, 3]], dtype=float)


def _output_1(scale: float) -> np.ndarray:
    """Output 1 in closed form: softmax(scale [2, 4, 4]) = [1, c, c] / (1 + 2c), c = e^(2 scale)."""
    c = math.exp(2 * scale)
    return (_VALUES[0] + c * _VALUES[1] + c * _VALUES[2]) / (1 + 2 * c)


def test_attention_widget_starts_on_the_slides_example():
    w = attention_widget()
    # the exact Output 1 of the slides' example, about [1.9366, 6.6831, 1.5951] (the slides print
    # the rounded [2.0, 7.0, 1.5])
    assert np.abs(w.result["output"][0] - _output_1(1.0)).max() < 1e-12
    assert np.array_equal(w.result["K"], ex.SLIDE_KEYS)
    assert np.array_equal(w.result["scores"][0], ex.SLIDE_SCORES_1)
    ref = _sdpa(
        ex.QKV_INPUTS, ex.QKV_W_QUERY, ex.QKV_W_KEY, ex.QKV_W_VALUE, scale=False
    )
    assert np.abs(w.result["output"] - ref).max() < 1e-12


def test_attention_widget_scale_checkbox():
    w = attention_widget()
    before = w.result["output"].copy()
    w.controls["scale"].value = True
    ref = _sdpa(ex.QKV_INPUTS, ex.QKV_W_QUERY, ex.QKV_W_KEY, ex.QKV_W_VALUE, scale=True)
    assert np.abs(w.result["output"] - ref).max() < 1e-12
    # scaled by 1/sqrt(D), D = 3: about [1.8639, 6.3194, 1.7042]
    assert np.abs(w.result["output"][0] - _output_1(1 / math.sqrt(3))).max() < 1e-12
    assert np.abs(w.result["output"] - before).max() > 0.1


def test_attention_widget_edit_an_input_and_a_weight():
    w = attention_widget()
    X_new = np.array(
        [[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1], [2, 0, 0, 1]], dtype=float
    )
    w.controls["X"].value = "1 0 1 0; 0 2 0 2; 1 1 1 1; 2 0 0 1"  # a fourth input
    ref = _sdpa(X_new, ex.QKV_W_QUERY, ex.QKV_W_KEY, ex.QKV_W_VALUE, scale=False)
    assert w.result["output"].shape == (4, 3)
    assert np.abs(w.result["output"] - ref).max() < 1e-12
    Wv = ex.QKV_W_VALUE.copy()
    Wv[0, 0] = -5.0
    w.controls["W_v"].value = format_matrix(Wv)
    ref = _sdpa(X_new, ex.QKV_W_QUERY, ex.QKV_W_KEY, Wv, scale=False)
    assert np.abs(w.result["output"] - ref).max() < 1e-12


def test_attention_widget_reports_bad_input():
    w = attention_widget()
    w.controls["W_k"].value = "1 0; 0 1"  # 2 rows, but X has width 4
    assert "W_k" in w.result["error"] and "4 rows" in w.result["error"]
    w.controls["W_k"].value = format_matrix(ex.QKV_W_KEY)
    assert "error" not in w.result


def test_parse_matrix_errors_name_the_argument():
    assert np.array_equal(parse_matrix("1, 2; 3 4\n5 6", "A"), [[1, 2], [3, 4], [5, 6]])
    with pytest.raises(ValueError, match="B: expected rows of equal length"):
        parse_matrix("1 2; 3", "B")
    with pytest.raises(ValueError, match="C: expected numbers"):
        parse_matrix("1 x", "C")
    with pytest.raises(ValueError, match="D: expected rows"):
        parse_matrix(" ; ", "D")


# -- chapter 9 -----------------------------------------------------------------------------------


def _torch_weights(
    scores: np.ndarray, allowed: torch.Tensor, temperature: float
) -> np.ndarray:
    s = torch.from_numpy(scores) / temperature
    return torch.softmax(s.masked_fill(~allowed, float("-inf")), dim=-1).numpy()


def test_mask_widget_autoregressive_and_temperature():
    w = mask_widget(n=8, seed=0)
    scores = w.result["scores"]
    causal = torch.ones(8, 8, dtype=torch.bool).tril()
    assert (
        np.abs(w.result["weights"] - _torch_weights(scores, causal, 1.0)).max() < 1e-12
    )
    w.controls["temperature"].value = 0.5
    assert (
        np.abs(w.result["weights"] - _torch_weights(scores, causal, 0.5)).max() < 1e-12
    )
    assert np.all(w.result["weights"][np.triu_indices(8, 1)] == 0)


@pytest.mark.parametrize(
    "kind",
    [
        "bidirectional",
        "local band (w=3)",
        "strided (stride 3)",
        "padding (last 2 keys)",
    ],
)
def test_mask_widget_mask_types(kind):
    w = mask_widget(n=8, seed=0)
    w.controls["mask"].value = kind
    i = torch.arange(8)[:, None]
    j = torch.arange(8)[None, :]
    expected = {
        "bidirectional": torch.ones(8, 8, dtype=torch.bool),
        "local band (w=3)": torch.ones(8, 8, dtype=torch.bool).tril().triu(diagonal=-2),
        "strided (stride 3)": (j <= i) & (((i - j) < 3) | ((i - j) % 3 == 0)),
        "padding (last 2 keys)": (j < 6).expand(8, 8),
    }[kind]
    assert np.array_equal(w.result["allowed"], expected.numpy())
    ref = _torch_weights(w.result["scores"], expected, 1.0)
    assert np.abs(w.result["weights"] - ref).max() < 1e-12


def test_mask_widget_high_temperature_is_uniform_over_allowed_keys():
    w = mask_widget(n=8, seed=0)
    w.controls["mask"].value = "local band (w=3)"
    w.controls["temperature"].value = 10.0
    weights = w.result["weights"]
    band = torch.ones(8, 8, dtype=torch.bool).tril().triu(diagonal=-2)
    assert (
        np.abs(weights - _torch_weights(w.result["scores"], band, 10.0)).max() < 1e-12
    )
    assert weights[5, 5] == pytest.approx(
        1 / 3, abs=0.1
    )  # three allowed keys, nearly uniform
    assert weights[5, :3].sum() == 0


def test_attention_pattern_rejects_unknown_kind():
    with pytest.raises(ValueError, match="kind: expected one of"):
        attention_pattern("diagonal", 4)


# -- chapter 10 ----------------------------------------------------------------------------------


def _torch_mha_weights(res: dict, causal: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per-head attention weights (A, n, n) and output (n, H) of nn.MultiheadAttention with the
    widget's weights copied in (torch stores x @ W as a Linear with weight W.T)."""
    X = torch.tensor(res["X"])[None]  # (1, n, H)
    A, H, D = res["W_q"].shape
    n = X.shape[1]
    mha = torch.nn.MultiheadAttention(
        H, A, bias=False, batch_first=True, dtype=torch.float64
    )

    def fused(
        W: np.ndarray,
    ) -> torch.Tensor:  # (A, H, D) -> (H, A*D), head i in block i
        return torch.tensor(np.concatenate(list(W), axis=1))

    with torch.no_grad():
        mha.in_proj_weight.copy_(
            torch.cat([fused(res[k]).T for k in ("W_q", "W_k", "W_v")])
        )
        mha.out_proj.weight.copy_(torch.tensor(res["W_o"]).T)
    blocked = torch.triu(torch.ones(n, n, dtype=torch.bool), 1) if causal else None
    out, w = mha(
        X, X, X, attn_mask=blocked, need_weights=True, average_attn_weights=False
    )
    return w[0].detach().numpy(), out[0].detach().numpy()


def test_multi_head_widget_head_and_query_match_torch():
    w = multi_head_widget()
    first = w.result["weights"].copy()
    w.controls["head"].value = 3
    w.controls["query"].value = 4
    weights, out = _torch_mha_weights(w.result, causal=True)
    assert not np.allclose(w.result["weights"], first)
    np.testing.assert_allclose(w.result["weights"], weights[2, 4], atol=1e-12)
    np.testing.assert_allclose(w.result["pattern"], weights[2], atol=1e-12)
    np.testing.assert_allclose(w.result["output"], out, atol=1e-12)
    # causal: the query at position 5 (0-based 4) gives no weight to position 6
    assert w.result["weights"][5] == 0.0


def test_multi_head_widget_bidirectional_mask_matches_torch():
    w = multi_head_widget()
    w.controls["query"].value = 1
    causal_row = w.result["weights"].copy()
    w.controls["mask"].value = "bidirectional"
    weights, out = _torch_mha_weights(w.result, causal=False)
    np.testing.assert_allclose(w.result["weights"], weights[0, 1], atol=1e-12)
    np.testing.assert_allclose(w.result["output"], out, atol=1e-12)
    assert causal_row[2:].sum() == 0 and w.result["weights"][2:].sum() > 0


def test_multi_head_widget_rejects_bad_head_count():
    with pytest.raises(ValueError, match="A: expected a number of heads dividing H"):
        multi_head_widget(H=8, A=3)


# -- chapters 11-12 ------------------------------------------------------------------------------


@pytest.mark.parametrize("x", [-2.7, -0.75, 0.0, 1.3, 3.95])
def test_gelu_widget_matches_torch(x):
    w = gelu_widget()
    w.controls["x"].value = x
    t = torch.tensor(x, dtype=torch.float64)
    assert w.result["x"] == pytest.approx(x)
    assert w.result["erf"] == pytest.approx(F.gelu(t).item(), abs=1e-15)
    assert w.result["tanh"] == pytest.approx(
        F.gelu(t, approximate="tanh").item(), abs=1e-15
    )
    quick_gelu = ACT2FN["quick_gelu"]  # transformers' QuickGELU, x * sigmoid(1.702 x)
    assert w.result["sigmoid"] == pytest.approx(quick_gelu(t).item(), abs=1e-15)
    assert w.result["Phi"] == pytest.approx(torch.special.ndtr(t).item(), abs=1e-15)
    assert w.result["err_sigmoid"] == pytest.approx(
        (quick_gelu(t) - F.gelu(t)).item(), abs=1e-15
    )


def test_gelu_widget_changes_with_x():
    w = gelu_widget(x=1.0)
    before = w.result["erf"]
    w.controls["x"].value = -1.0
    # GELU(x) - GELU(-x) = x, since Phi(x) + Phi(-x) = 1
    assert before - w.result["erf"] == pytest.approx(1.0, abs=1e-12)


def test_layer_norm_widget_matches_torch():
    w = layer_norm_widget()
    before = w.result["y"].copy()
    w.controls["x3"].value = 4.5
    w.controls["gamma"].value = 2.0
    w.controls["beta"].value = -1.0
    w.controls["eps"].value = 0.1
    x = torch.tensor([1.0, 2.0, 4.5, 6.0, -2.0], dtype=torch.float64)
    want = F.layer_norm(
        x,
        (5,),
        weight=torch.full((5,), 2.0, dtype=torch.float64),
        bias=torch.full((5,), -1.0, dtype=torch.float64),
        eps=0.1,
    )
    assert not np.allclose(w.result["y"], before)
    np.testing.assert_allclose(w.result["x"], x.numpy())
    np.testing.assert_allclose(w.result["y"], want.numpy(), atol=1e-12)
    assert w.result["mean"] == pytest.approx(x.mean().item())
    assert w.result["var"] == pytest.approx(x.var(unbiased=False).item())
    assert w.result["y_mean"] == pytest.approx(-1.0, abs=1e-12)  # beta
    # variance after: gamma^2 * var / (var + eps), less than gamma^2 because eps > 0
    v = x.var(unbiased=False).item()
    assert w.result["y_var"] == pytest.approx(4.0 * v / (v + 0.1), rel=1e-12)
    # the "Notations" variant divides by (std + eps)
    std = x.std(unbiased=False)
    want_std_eps = 2.0 * (x - x.mean()) / (std + 0.1) - 1.0
    np.testing.assert_allclose(w.result["y_std_eps"], want_std_eps.numpy(), atol=1e-12)


def test_layer_norm_widget_eps_matters_for_a_flat_row():
    w = layer_norm_widget(values=(1.0, 1.001, 0.999, 1.0))
    x = torch.tensor([1.0, 1.001, 0.999, 1.0], dtype=torch.float64)
    for eps in (1e-8, 1e-5, 1e-2):
        w.controls["eps"].value = eps
        want = F.layer_norm(x, (4,), eps=eps)
        np.testing.assert_allclose(w.result["z"], want.numpy(), atol=1e-9)
        v = x.var(unbiased=False).item()
        assert w.result["z_var"] == pytest.approx(v / (v + eps), rel=1e-6)
