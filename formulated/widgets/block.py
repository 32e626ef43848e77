"""The widgets of chapters 11–12: GELU at one x, one row through LayerNorm.

Each widget keeps in ``result`` every value a test needs to recompute the answer independently
(with torch), so the tests never compare this code with itself.
"""
from __future__ import annotations

import math

import ipywidgets as W
import numpy as np

from .. import formulas as f
from .base import FormulaWidget, panel

__all__ = ["gelu_widget", "layer_norm_widget"]


def gelu_widget(x: float = 1.0) -> FormulaWidget:
    """Slide ``x``; see GELU(x) exactly (erf), in the tanh and sigmoid forms, and Phi(x).

    ``result`` holds ``"erf"``, ``"tanh"``, ``"sigmoid"`` (the three GELU values), ``"Phi"``
    (the standard normal CDF), ``"relu"``, and the errors ``"err_tanh"``, ``"err_sigmoid"``
    (approximation minus exact).
    """
    grid = np.linspace(-4, 4, 401)
    curves = {k: f.gelu(grid, k) for k in ("erf", "tanh", "sigmoid")}
    phi_grid = np.array([0.5 * (1 + math.erf(v / math.sqrt(2))) for v in grid])
    # The approximations' gates: GELU_approx(x) = x * gate(x), each gate an approximation of Phi.
    gates = {"tanh": 0.5 * (1 + np.tanh(math.sqrt(2 / math.pi) * (grid + 0.044715 * grid**3))),
             "sigmoid": f.sigmoid(1.702 * grid)}
    controls = {"x": W.FloatSlider(value=x, min=-4, max=4, step=0.05, description="x")}

    def compute(x: float) -> dict:
        vals = {k: float(f.gelu(np.array(x), k)) for k in ("erf", "tanh", "sigmoid")}
        phi = 0.5 * (1 + math.erf(x / math.sqrt(2)))
        return {"x": x, **vals, "Phi": phi, "relu": max(x, 0.0),
                "err_tanh": vals["tanh"] - vals["erf"],
                "err_sigmoid": vals["sigmoid"] - vals["erf"]}

    def draw(res: dict, vals: dict) -> None:
        x = res["x"]
        fig, ax1 = panel(3.2)
        ax1.plot(grid, np.maximum(grid, 0), color="0.7", lw=1, label="ReLU")
        for k, style in (("erf", "-"), ("tanh", "--"), ("sigmoid", ":")):
            ax1.plot(grid, curves[k], style, label=f"GELU ({k})")
        ax1.axvline(x, color="crimson", lw=1)
        ax1.plot([x] * 3, [res["erf"], res["tanh"], res["sigmoid"]], "o", color="crimson")
        ax1.set_title(f"GELU({x:.2f}) = {res['erf']:.5f} (erf)\n{res['tanh']:.5f} (tanh), "
                      f"{res['sigmoid']:.5f} (sigmoid)", fontsize=9)
        ax1.legend(fontsize=8)
        ax1.set_xlabel("x")
        fig.tight_layout()
        fig, ax2 = panel(3.2)
        ax2.plot(grid, phi_grid, label=r"$\Phi(x)$")
        ax2.plot(grid, gates["tanh"], "--", lw=1, label="tanh gate")
        ax2.plot(grid, gates["sigmoid"], ":", lw=1, label=r"$\sigma(1.702x)$")
        ax2.plot(x, res["Phi"], "o", color="crimson")
        ax2.axvline(x, color="crimson", lw=1)
        ax2.set_ylim(-0.05, 1.05)
        ax2.set_title(f"Φ({x:.2f}) = {res['Phi']:.5f}:\nthe share of x that passes", fontsize=9)
        ax2.set_xlabel("x")
        ax2.legend(fontsize=8)
        fig.tight_layout()

    return FormulaWidget(controls, compute, draw, title="GELU(x) = x Φ(x) and its approximations")


def layer_norm_widget(values: tuple[float, ...] = (1.0, 2.0, 3.0, 6.0, -2.0)) -> FormulaWidget:
    """A row vector with one slider per entry, and sliders for gamma, beta (one value for every
    column, ``gamma_j = gamma``) and eps (log scale).

    ``result``: ``"x"`` the row, ``"mean"``/``"var"`` its mean and biased variance, ``"z"`` the
    normalized row ``(x - mean) / sqrt(var + eps)``, ``"y" = gamma * z + beta`` (LayerNorm),
    ``"y_std_eps"`` the "Notations" variant ``gamma * (x - mean) / (std + eps) + beta``, and the
    mean/variance of ``z`` and ``y`` (``"z_mean"``, ``"z_var"``, ``"y_mean"``, ``"y_var"``).
    """
    H = len(values)
    controls: dict[str, W.Widget] = {
        f"x{j + 1}": W.FloatSlider(value=v, min=-8, max=8, step=0.1, description=f"x{j + 1}")
        for j, v in enumerate(values)}
    controls["gamma"] = W.FloatSlider(value=1.0, min=-2, max=3, step=0.1, description="γ")
    controls["beta"] = W.FloatSlider(value=0.0, min=-3, max=3, step=0.1, description="β")
    controls["eps"] = W.FloatLogSlider(value=1e-5, base=10, min=-8, max=2, step=0.5,
                                       description="ε")

    def compute(gamma: float, beta: float, eps: float, **xs: float) -> dict:
        x = np.array([xs[f"x{j + 1}"] for j in range(H)])
        ones, zeros = np.ones(H), np.zeros(H)
        z = f.layer_norm(x, ones, zeros, eps)
        y = f.layer_norm(x, gamma * ones, beta * ones, eps)
        return {"x": x, "mean": x.mean(), "var": x.var(), "z": z, "z_mean": z.mean(),
                "z_var": z.var(), "y": y, "y_mean": y.mean(), "y_var": y.var(),
                "y_std_eps": f.layer_norm_std_eps(x, gamma * ones, beta * ones, eps)}

    def draw(res: dict, vals: dict) -> None:
        fig, ax = panel(3.9)
        j = np.arange(H)
        ax.bar(j - 0.25, res["x"], 0.25, color="0.6",
               label=f"x: mean {res['mean']:.3f}, var {res['var']:.3f}")
        ax.bar(j, res["z"], 0.25, label=f"normalized: mean {res['z_mean']:.3f}, "
                                        f"var {res['z_var']:.3f}")
        ax.bar(j + 0.25, res["y"], 0.25, label=f"γ·normalized + β: mean {res['y_mean']:.3f}, "
                                               f"var {res['y_var']:.3f}")
        ax.axhline(0, color="k", lw=0.5)
        ax.set_xticks(j, [f"x{k + 1}" for k in j])
        ax.set_title(f"γ = {vals['gamma']:.1f}, β = {vals['beta']:.1f}, "
                     f"ε = {vals['eps']:.0e}", fontsize=10)
        # the legend under the axes: inside, it would hide the bars
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12))
        fig.tight_layout()

    return FormulaWidget(controls, compute, draw, title="LayerNorm of one row")
