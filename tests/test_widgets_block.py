"""The widgets of chapters 11–12: set a control, check the result against torch (not our
formulas)."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from transformers.activations import ACT2FN  # noqa: E402

from formulated.widgets import gelu_widget, layer_norm_widget  # noqa: E402


@pytest.mark.parametrize("x", [-2.7, -0.75, 0.0, 1.3, 3.95])
def test_gelu_widget_matches_torch(x):
    w = gelu_widget()
    w.controls["x"].value = x
    t = torch.tensor(x, dtype=torch.float64)
    assert w.result["x"] == pytest.approx(x)
    assert w.result["erf"] == pytest.approx(F.gelu(t).item(), abs=1e-15)
    assert w.result["tanh"] == pytest.approx(F.gelu(t, approximate="tanh").item(), abs=1e-15)
    quick_gelu = ACT2FN["quick_gelu"]  # transformers' QuickGELU, x * sigmoid(1.702 x)
    assert w.result["sigmoid"] == pytest.approx(quick_gelu(t).item(), abs=1e-15)
    assert w.result["Phi"] == pytest.approx(torch.special.ndtr(t).item(), abs=1e-15)
    assert w.result["err_sigmoid"] == pytest.approx(
        (quick_gelu(t) - F.gelu(t)).item(), abs=1e-15)


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
    want = F.layer_norm(x, (5,), weight=torch.full((5,), 2.0, dtype=torch.float64),
                        bias=torch.full((5,), -1.0, dtype=torch.float64), eps=0.1)
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
