"""The widgets of the models part, chapters 13–16: the parameter count λ and its breakdown, with
published presets (chapter 16)."""

from __future__ import annotations

from typing import Any

import ipywidgets as W

from ..models import parameter_breakdown
from ..models.sizes import BOOK_MODELS, size
from .base import FormulaWidget, panel, pre

__all__ = ["PARAMETER_PRESETS", "parameter_count_widget"]

#: The widget's presets, read from :data:`formulated.models.sizes.SIZES` (the one table of
#: published sizes): ``V, n`` (= n_ctx), ``H, A, F, L`` and which omissions of λ the real model
#: has (``biases``: attention biases, ``final_ln``: a final LayerNorm), for the models of
#: :data:`~formulated.models.sizes.BOOK_MODELS`.
PARAMETER_PRESETS: dict[str, dict[str, Any]] = {
    name: dict(
        V=s.V,
        n=s.n_ctx,
        H=s.H,
        A=s.A,
        F=s.F,
        L=s.L,
        biases=s.attention_biases,
        final_ln=s.final_layer_norm,
    )
    for name, s in ((name, size(name)) for name in BOOK_MODELS)
}

#: The sliders' ranges: every preset fits inside them.
_LIMITS = dict(
    V=(1, 60000), n=(1, 4096), H=(1, 16384), A=(1, 128), F=(1, 65536), L=(1, 128)
)


def _parameter_controls(start: dict[str, Any], preset: str) -> dict[str, W.Widget]:
    """The preset menu, one slider per size and the two checkboxes, set to ``start``."""
    return {
        "preset": W.Dropdown(
            options=list(PARAMETER_PRESETS) + ["custom"],
            value=preset,
            description="preset",
        ),
        **{
            k: W.IntSlider(
                value=start[k], min=lo, max=hi, description=k, continuous_update=False
            )
            for k, (lo, hi) in _LIMITS.items()
        },
        "biases": W.Checkbox(value=start["biases"], description="attention biases"),
        "final_ln": W.Checkbox(value=start["final_ln"], description="final LayerNorm"),
    }


def parameter_count_widget(preset: str = "GPT-1") -> FormulaWidget:
    """Chapter 16: the parameter count λ and its breakdown from sliders, with presets.

    Controls: ``preset`` (a key of :data:`PARAMETER_PRESETS` or ``"custom"``), sliders ``V, n, H,
    A, F, L`` (``D = H // A``), checkboxes ``biases`` and ``final_ln`` (the pieces λ omits).
    Choosing a preset sets the sliders and checkboxes.  ``result``: ``lambda`` (the source's
    formula), ``breakdown`` (embeddings / attention / FFN / LayerNorm, checkboxes included),
    ``total`` (their sum), ``D``.
    """
    if preset != "custom" and preset not in PARAMETER_PRESETS:
        raise ValueError(
            f"preset: expected one of {sorted(PARAMETER_PRESETS)} or 'custom', "
            f"got {preset!r}"
        )
    controls = _parameter_controls(
        PARAMETER_PRESETS.get(preset, PARAMETER_PRESETS["GPT-1"]), preset
    )

    def compute(
        preset: str,
        V: int,
        n: int,
        H: int,
        A: int,
        F: int,
        L: int,
        biases: bool,
        final_ln: bool,
    ) -> dict:
        D = H // A
        if D < 1:
            return dict(
                error=f"H = {H} is smaller than A = {A}: no head width D = H // A ≥ 1"
            )
        lam = sum(parameter_breakdown(V, n, H, F, D, A, L).values())
        parts = parameter_breakdown(
            V, n, H, F, D, A, L, attention_biases=biases, final_ln=final_ln
        )
        return {"lambda": lam, "breakdown": parts, "total": sum(parts.values()), "D": D}

    def draw(r: dict, v: dict) -> str:
        names = list(r["breakdown"])
        vals = [r["breakdown"][k] for k in names]
        fig, ax = panel(3.0)
        ax.barh(names, vals, color=["C0", "C1", "C2", "C3"])
        for y, val in enumerate(vals):
            ax.text(val, y, f" {val / r['total']:.1%}", va="center", fontsize=9)
        ax.set_xlim(0, max(vals) * 1.35)
        ax.xaxis.set_major_formatter(lambda value, _: f"{value / 1e6:g}M")
        ax.tick_params(axis="x", labelrotation=30, labelsize=8)
        ax.set_xlabel("parameters")
        ax.set_title(
            f"{v['preset']} (D = {r['D']})\nλ = {r['lambda']:,}\n"
            f"with extras = {r['total']:,}",
            fontsize=9,
        )
        fig.tight_layout()
        return pre(
            "\n".join(
                f"{k:>10} {val:>15,}  ({val / r['total']:.1%})"
                for k, val in zip(names, vals)
            )
        )

    widget = FormulaWidget(controls, compute, draw, title="Parameter count λ")

    def apply_preset(change: dict) -> None:
        values = PARAMETER_PRESETS.get(change["new"])
        if values is None:
            return
        with widget.hold():  # eight controls change, λ is computed and drawn once
            for k, val in values.items():
                controls[k].value = val

    def to_custom(change: dict) -> None:
        # a hand-moved slider no longer shows the preset: say so in the menu
        values = PARAMETER_PRESETS.get(controls["preset"].value)
        if widget.holding or values is None:
            return
        if any(controls[k].value != val for k, val in values.items()):
            controls["preset"].value = "custom"

    controls["preset"].observe(apply_preset, names="value")
    for k in list(_LIMITS) + ["biases", "final_ln"]:
        controls[k].observe(to_custom, names="value")
    return widget
