"""The widgets of the transformer block, chapters 8–12: attention on the slides' example, masks,
multi-head attention, GELU at one x, one row through LayerNorm.

Chapter 8: the slides' Q/K/V example, editable.  Chapter 9: mask type and temperature.
Chapter 10: one head, one query.  Chapter 11: GELU and its approximations at one x.  Chapter 12:
one row through LayerNorm.  ``result`` keeps every array a test needs to recompute the answer
with torch or transformers, independently of this code.
"""

from __future__ import annotations

import math
from typing import Any

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np

from .. import examples as ex
from .. import formulas as f
from ..plotting import CYCLE, FOREGROUND, set_alt
from .base import FormulaWidget, panel

__all__ = [
    "parse_matrix",
    "format_matrix",
    "attention_widget",
    "MASK_TYPES_09",
    "attention_pattern",
    "mask_widget",
    "SENTENCE_10",
    "multi_head_example",
    "multi_head_widget",
    "gelu_widget",
    "layer_norm_widget",
]


def parse_matrix(text: str, name: str) -> np.ndarray:
    """Parse ``"1 0 1; 0 2 0"`` (rows separated by ``;`` or newlines, entries by spaces or
    commas) into a float matrix.  Raises ``ValueError`` naming ``name`` if a row is empty,
    an entry is not a number, or the rows have different lengths."""
    rows = [r for r in text.replace("\n", ";").split(";") if r.strip()]
    if not rows:
        raise ValueError(f"{name}: expected rows like '1 0 1; 0 2 0', got {text!r}")
    try:
        parsed = [[float(e) for e in r.replace(",", " ").split()] for r in rows]
    except ValueError:
        raise ValueError(
            f"{name}: expected numbers separated by spaces, got {text!r}"
        ) from None
    widths = {len(r) for r in parsed}
    if len(widths) != 1:
        raise ValueError(
            f"{name}: expected rows of equal length, got lengths "
            f"{[len(r) for r in parsed]}"
        )
    return np.array(parsed)


def format_matrix(M: np.ndarray) -> str:
    """The inverse of :func:`parse_matrix`: ``"1 0 1; 0 2 0"`` (integers without ``.0``)."""
    return "; ".join(" ".join(f"{x:g}" for x in row) for row in np.asarray(M))


def _parse_qkv(X: str, W_q: str, W_k: str, W_v: str) -> tuple[np.ndarray, dict]:
    """The inputs and the three weight matrices, checked against each other's shapes."""
    Xm = parse_matrix(X, "X")
    Ws = {k: parse_matrix(t, k) for k, t in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v))}
    for k, Wm in Ws.items():
        if Wm.shape[0] != Xm.shape[1]:
            raise ValueError(
                f"{k}: expected {Xm.shape[1]} rows (the width of X), "
                f"got shape {Wm.shape}"
            )
    if Ws["W_q"].shape[1] != Ws["W_k"].shape[1]:
        raise ValueError(
            f"W_k: expected as many columns as W_q ({Ws['W_q'].shape[1]}), "
            f"got shape {Ws['W_k'].shape}"
        )
    return Xm, Ws


def _annotated_heatmap(M: np.ndarray, title: str, xlabel: str, query: int) -> None:
    """One panel: ``M`` as a heat map with its entries written in, the query's row framed."""
    fig, ax = panel(2.6 + 0.25 * M.shape[0])
    ax.imshow(M, cmap="Blues", aspect="auto")
    lo, hi = M.min(), M.max()
    for (i, j), val in np.ndenumerate(M):
        dark = hi > lo and (val - lo) / (hi - lo) > 0.6  # white text on dark cells
        ax.text(
            j,
            i,
            f"{val:.3g}",
            ha="center",
            va="center",
            fontsize=11,
            color="white" if dark else "black",
        )
    ax.add_patch(
        plt.Rectangle(
            (-0.5, query - 0.5), M.shape[1], 1, fill=False, edgecolor="red", lw=2
        )
    )
    ax.set(
        xlabel=xlabel,
        ylabel="query i",
        xticks=range(M.shape[1]),
        yticks=range(M.shape[0]),
    )
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    # The numbers are the message: a reader who cannot see the cells hears them, row by row.
    rows = "; ".join(
        f"row {i}: " + ", ".join(f"{x:.3g}" for x in row) for i, row in enumerate(M)
    )
    set_alt(
        fig,
        f"Heat map of {title}, {M.shape[0]} by {M.shape[1]}, {xlabel} across, "
        f"query {query} framed. {rows}.",
    )


def attention_widget(scale: bool = False) -> FormulaWidget:
    """Chapter 8: the slides' (004) Q/K/V example with editable inputs and weights.

    Controls: ``X`` (the inputs, one per row), ``W_q``, ``W_k``, ``W_v`` (text matrices, see
    :func:`parse_matrix`), ``scale`` (divide the scores by ``sqrt(D)``) and ``query`` (the
    0-based input whose row is highlighted).  ``result``: ``X``, ``Q``, ``K``, ``V`` (the
    projections), ``scores = Q K^T [/ sqrt(D)]`` ``(n, n)``, ``weights`` (row softmax),
    ``output = weights V`` ``(n, D_v)``; or ``error`` (a message) when an entry cannot be used.
    """
    controls = {
        "X": W.Text(value=format_matrix(ex.QKV_INPUTS), description="inputs X"),
        "W_q": W.Text(value=format_matrix(ex.QKV_W_QUERY), description="W_q"),
        "W_k": W.Text(value=format_matrix(ex.QKV_W_KEY), description="W_k"),
        "W_v": W.Text(value=format_matrix(ex.QKV_W_VALUE), description="W_v"),
        "scale": W.Checkbox(value=scale, description="divide scores by √D"),
        # one position per row of X: the range follows the inputs (below)
        "query": W.IntSlider(
            value=0, min=0, max=len(ex.QKV_INPUTS) - 1, description="query (0-based)"
        ),
    }

    def compute(X: str, W_q: str, W_k: str, W_v: str, scale: bool, query: int) -> dict:
        try:
            Xm, Ws = _parse_qkv(X, W_q, W_k, W_v)
        except ValueError as err:
            return {"error": f"cannot compute: {err}"}
        Q, K, V = Xm @ Ws["W_q"], Xm @ Ws["W_k"], Xm @ Ws["W_v"]
        scores = Q @ K.T
        if scale:
            scores = scores / np.sqrt(Q.shape[1])
        weights = f.softmax(scores, axis=-1)
        return {
            "X": Xm,
            "Q": Q,
            "K": K,
            "V": V,
            "scores": scores,
            "weights": weights,
            "output": weights @ V,
            "query": min(query, Xm.shape[0] - 1),
        }

    def draw(r: dict, v: dict) -> None:
        _annotated_heatmap(
            r["scores"], "scores" + (" / √D" if v["scale"] else ""), "key j", r["query"]
        )
        _annotated_heatmap(r["weights"], "weights = softmax(row)", "key j", r["query"])
        _annotated_heatmap(r["output"], "output = weights V", "column", r["query"])

    widget = FormulaWidget(
        controls,
        compute,
        draw,
        title="Attention on the slides' example: edit and watch",
    )

    def follow_rows(change: dict) -> None:
        """The query slider runs over the rows of X, 0 … n − 1, whatever X is edited to."""
        try:
            rows = parse_matrix(change["new"], "X").shape[0]
        except ValueError:
            return  # the error is already shown; keep the range until X parses again
        with widget.hold():  # lowering max may move the value: one recomputation
            controls["query"].max = rows - 1

    controls["X"].observe(follow_rows, names="value")
    return widget


#: The masks of the chapter-9 widget, in the order of its menu.
MASK_TYPES_09 = (
    "bidirectional",
    "autoregressive",
    "local band (w=3)",
    "strided (stride 3)",
    "padding (last 2 keys)",
)


def attention_pattern(kind: str, n: int) -> np.ndarray:
    """The boolean ``(n, n)`` pattern of a mask: ``True`` where query ``i`` may attend to key ``j``.

    ``kind`` is one of :data:`MASK_TYPES_09`: everything; ``j <= i``; ``i - w < j <= i`` (the
    locally banded pattern of GPT-3's sparse layers); ``j <= i`` with ``i - j < 3`` or
    ``(i - j) % 3 == 0`` (the Sparse Transformer's strided pattern); every key except the last
    two (padding), for every query.
    """
    i, j = np.indices((n, n))
    if kind == "bidirectional":
        return np.ones((n, n), dtype=bool)
    if kind == "autoregressive":
        return j <= i
    if kind == "local band (w=3)":
        return (j <= i) & (i - j < 3)
    if kind == "strided (stride 3)":
        return (j <= i) & (((i - j) < 3) | ((i - j) % 3 == 0))
    if kind == "padding (last 2 keys)":
        return np.broadcast_to(np.arange(n) < n - 2, (n, n)).copy()
    raise ValueError(f"kind: expected one of {MASK_TYPES_09}, got {kind!r}")


def mask_widget(n: int = 8, seed: int = 0) -> FormulaWidget:
    """Chapter 9: choose a mask and a temperature, see the attention weights.

    Fixed seeded scores ``S`` ``(n, n)`` (standard normal); the weights are
    ``softmax(S / temperature + Mask)`` with the additive mask of :func:`attention_pattern`.
    ``result``: ``scores``, ``allowed`` (boolean pattern), ``mask`` (0/-inf), ``weights``.
    """
    scores = np.random.default_rng(seed).standard_normal((n, n))
    controls = {
        "mask": W.Dropdown(
            options=list(MASK_TYPES_09), value="autoregressive", description="mask"
        ),
        "temperature": W.FloatLogSlider(
            value=1.0, base=10, min=-1, max=1, step=0.05, description="temperature"
        ),
    }

    def compute(mask: str, temperature: float) -> dict:
        allowed = attention_pattern(mask, n)
        additive = np.where(allowed, 0.0, -np.inf)
        weights = f.masked_softmax(scores / temperature, additive)
        return {
            "scores": scores,
            "allowed": allowed,
            "mask": additive,
            "weights": weights,
        }

    def draw(r: dict, v: dict) -> None:
        fig, ax = panel(3.3)
        ax.imshow(r["allowed"], cmap="Greys", vmin=0, vmax=1.6)
        ax.set(xlabel="key j", ylabel="query i")
        ax.set_title(f"{v['mask']}:\nallowed (i, j)", fontsize=10)
        fig.tight_layout()
        fig, ax = panel(3.3)
        ax.imshow(r["weights"], cmap="magma", vmin=0, vmax=1)
        for (i, j), w in np.ndenumerate(r["weights"]):
            if (
                w >= 0.005
            ):  # two decimals without the leading zero: ".42", readable at 9 pt
                label = "1" if w > 0.995 else f"{w:.2f}"[1:]
                ax.text(
                    j,
                    i,
                    label,
                    ha="center",
                    va="center",
                    fontsize=9,
                    color="white" if w < 0.6 else "black",
                )
        ax.set(xlabel="key j", ylabel="query i")
        ax.set_title(
            f"weights, temperature {v['temperature']:.2f}\n(dark 0, light 1)",
            fontsize=10,
        )
        fig.tight_layout()

    return FormulaWidget(controls, compute, draw, title="Masks and temperature")


#: The sentence of chapter 10's examples and widget.
SENTENCE_10 = ("the", "big", "red", "dog", "sat", "down")


def multi_head_example(
    tokens: tuple[str, ...] = SENTENCE_10, H: int = 8, A: int = 4, seed: int = 0
) -> dict[str, Any]:
    """Seeded random inputs and weights for one multi-head self-attention layer.

    ``X = W_e[ids] + PE`` with a random embedding per distinct token and the sinusoidal positions,
    and random ``W_q, W_k, W_v`` of shape ``(A, H, D)``, ``W_o (A*D, H)`` with ``D = H // A``.
    Nothing here is trained: the patterns are those of random weights.  Shapes: ``X (n, H)``.
    """
    if H % A:
        raise ValueError(f"A: expected a number of heads dividing H={H}, got {A}")
    rng = np.random.default_rng(seed)
    vocab = sorted(set(tokens))
    ids = np.array([vocab.index(t) for t in tokens])
    W_e = rng.normal(size=(len(vocab), H))
    X = f.embed(ids, W_e) + f.positional_encoding_sinusoidal(len(tokens), H)
    D = H // A
    # Entries of size 1.5/sqrt(H) give scores of order 1: patterns neither uniform nor one-hot.
    W_q, W_k, W_v = (rng.normal(size=(A, H, D)) * 1.5 / np.sqrt(H) for _ in range(3))
    W_o = rng.normal(size=(A * D, H)) / np.sqrt(A * D)
    return {
        "tokens": tuple(tokens),
        "X": X,
        "W_q": W_q,
        "W_k": W_k,
        "W_v": W_v,
        "W_o": W_o,
    }


def multi_head_widget(
    tokens: tuple[str, ...] = SENTENCE_10, H: int = 8, A: int = 4, seed: int = 0
) -> FormulaWidget:
    """Pick a head and a query position; see that head's attention weights over the sentence.

    ``result["pattern"]`` is head ``i``'s ``(n, n)`` weight matrix
    ``softmax(X W_q[i] (X W_k[i])^T / sqrt(D) + Mask)``, ``result["weights"]`` its row for the
    chosen query, ``result["all_weights"]`` the ``(A, n, n)`` patterns of every head and
    ``result["output"]`` the ``(n, H)`` output of the layer.  Controls: ``head`` (1-based, as in
    the math), ``query`` (0-based position), ``mask`` ("autoregressive" or "bidirectional").
    """
    example = multi_head_example(tokens, H, A, seed)
    n = len(tokens)
    controls = {
        "head": W.IntSlider(value=1, min=1, max=A, description="head i"),
        "query": W.Dropdown(
            options=[(f"{t + 1}: {tok}", t) for t, tok in enumerate(tokens)],
            value=min(3, n - 1),
            description="query",
        ),
        "mask": W.Dropdown(
            options=["autoregressive", "bidirectional"],
            value="autoregressive",
            description="mask",
        ),
    }

    def compute(head: int, query: int, mask: str) -> dict:
        M = (
            f.mask_autoregressive(n)
            if mask == "autoregressive"
            else f.mask_bidirectional(n)
        )
        X, D = example["X"], H // A
        scores = np.stack(
            [
                (X @ example["W_q"][i]) @ (X @ example["W_k"][i]).T / np.sqrt(D)
                for i in range(A)
            ]
        )  # (A, n, n)
        all_w = f.masked_softmax(scores, M)
        out = f.multi_head_self_attention(
            X, M, example["W_q"], example["W_k"], example["W_v"], example["W_o"]
        )
        return {
            **example,
            "mask": M,
            "all_weights": all_w,
            "pattern": all_w[head - 1],
            "weights": all_w[head - 1, query],
            "output": out,
        }

    def draw(res: dict, vals: dict) -> None:
        q, i = vals["query"], vals["head"]
        fig, ax1 = panel(3.2)
        im = ax1.imshow(res["pattern"], cmap="Blues", vmin=0, vmax=1)
        ax1.add_patch(
            plt.Rectangle((-0.5, q - 0.5), n, 1, fill=False, ec="crimson", lw=2)
        )
        ax1.set_xticks(range(n), tokens, rotation=45)
        ax1.set_yticks(range(n), tokens)
        ax1.set(xlabel="key", ylabel="query", title=f"head {i}: attention weights")
        fig.colorbar(im, ax=ax1, fraction=0.046)
        fig.tight_layout()
        fig, ax2 = panel(3.2)
        ax2.bar(range(n), res["weights"], color="crimson")
        ax2.set_xticks(range(n), tokens, rotation=45)
        ax2.set(
            ylim=(0, 1),
            ylabel="weight",
            title=f"head {i}, query {q + 1} ({tokens[q]!r})",
        )
        fig.tight_layout()

    return FormulaWidget(
        controls,
        compute,
        draw,
        title="Multi-head attention: one head, one query (random weights)",
    )


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
    gates = {
        "tanh": 0.5
        * (1 + np.tanh(math.sqrt(2 / math.pi) * (grid + 0.044715 * grid**3))),
        "sigmoid": f.sigmoid(1.702 * grid),
    }
    controls = {"x": W.FloatSlider(value=x, min=-4, max=4, step=0.05, description="x")}

    def compute(x: float) -> dict:
        vals = {k: float(f.gelu(np.array(x), k)) for k in ("erf", "tanh", "sigmoid")}
        phi = 0.5 * (1 + math.erf(x / math.sqrt(2)))
        return {
            "x": x,
            **vals,
            "Phi": phi,
            "relu": max(x, 0.0),
            "err_tanh": vals["tanh"] - vals["erf"],
            "err_sigmoid": vals["sigmoid"] - vals["erf"],
        }

    def draw(res: dict, vals: dict) -> None:
        x = res["x"]
        fig, ax1 = panel(3.2)
        ax1.plot(grid, np.maximum(grid, 0), color=CYCLE[7], lw=1, label="ReLU")
        for k, style in (("erf", "-"), ("tanh", "--"), ("sigmoid", ":")):
            ax1.plot(grid, curves[k], style, label=f"GELU ({k})")
        ax1.axvline(x, color="crimson", lw=1)
        ax1.plot(
            [x] * 3, [res["erf"], res["tanh"], res["sigmoid"]], "o", color="crimson"
        )
        ax1.set_title(
            f"GELU({x:.2f}) = {res['erf']:.5f} (erf)\n{res['tanh']:.5f} (tanh), "
            f"{res['sigmoid']:.5f} (sigmoid)",
            fontsize=9,
        )
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
        ax2.set_title(
            f"Φ({x:.2f}) = {res['Phi']:.5f}:\nthe share of x that passes", fontsize=9
        )
        ax2.set_xlabel("x")
        ax2.legend(fontsize=8)
        fig.tight_layout()

    return FormulaWidget(
        controls, compute, draw, title="GELU(x) = x Φ(x) and its approximations"
    )


def layer_norm_widget(
    values: tuple[float, ...] = (1.0, 2.0, 3.0, 6.0, -2.0),
) -> FormulaWidget:
    """A row vector with one slider per entry, and sliders for gamma, beta (one value for every
    column, ``gamma_j = gamma``) and eps (log scale).

    ``result``: ``"x"`` the row, ``"mean"``/``"var"`` its mean and biased variance, ``"z"`` the
    normalized row ``(x - mean) / sqrt(var + eps)``, ``"y" = gamma * z + beta`` (LayerNorm),
    ``"y_std_eps"`` the "Notations" variant ``gamma * (x - mean) / (std + eps) + beta``, and the
    mean/variance of ``z`` and ``y`` (``"z_mean"``, ``"z_var"``, ``"y_mean"``, ``"y_var"``).
    """
    H = len(values)
    controls: dict[str, W.Widget] = {
        f"x{j + 1}": W.FloatSlider(
            value=v, min=-8, max=8, step=0.1, description=f"x{j + 1}"
        )
        for j, v in enumerate(values)
    }
    controls["gamma"] = W.FloatSlider(
        value=1.0, min=-2, max=3, step=0.1, description="γ"
    )
    controls["beta"] = W.FloatSlider(
        value=0.0, min=-3, max=3, step=0.1, description="β"
    )
    controls["eps"] = W.FloatLogSlider(
        value=1e-5, base=10, min=-8, max=2, step=0.5, description="ε"
    )

    def compute(gamma: float, beta: float, eps: float, **xs: float) -> dict:
        x = np.array([xs[f"x{j + 1}"] for j in range(H)])
        ones, zeros = np.ones(H), np.zeros(H)
        z = f.layer_norm(x, ones, zeros, eps)
        y = f.layer_norm(x, gamma * ones, beta * ones, eps)
        return {
            "x": x,
            "mean": x.mean(),
            "var": x.var(),
            "z": z,
            "z_mean": z.mean(),
            "z_var": z.var(),
            "y": y,
            "y_mean": y.mean(),
            "y_var": y.var(),
            "y_std_eps": f.layer_norm_std_eps(x, gamma * ones, beta * ones, eps),
        }

    def draw(res: dict, vals: dict) -> None:
        fig, ax = panel(3.9)
        j = np.arange(H)
        ax.bar(
            j - 0.25,
            res["x"],
            0.25,
            color=CYCLE[7],
            label=f"x: mean {res['mean']:.3f}, var {res['var']:.3f}",
        )
        ax.bar(
            j,
            res["z"],
            0.25,
            label=f"normalized: mean {res['z_mean']:.3f}, var {res['z_var']:.3f}",
        )
        ax.bar(
            j + 0.25,
            res["y"],
            0.25,
            label=f"γ·normalized + β: mean {res['y_mean']:.3f}, var {res['y_var']:.3f}",
        )
        ax.axhline(0, color=FOREGROUND["light"], lw=0.5)
        ax.set_xticks(j, [f"x{k + 1}" for k in j])
        ax.set_title(
            f"γ = {vals['gamma']:.1f}, β = {vals['beta']:.1f}, ε = {vals['eps']:.0e}",
            fontsize=10,
        )
        # the legend under the axes: inside, it would hide the bars
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12))
        fig.tight_layout()

    return FormulaWidget(controls, compute, draw, title="LayerNorm of one row")
