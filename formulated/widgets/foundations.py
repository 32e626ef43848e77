"""The widgets of chapters 1–4: gradient descent, information, minima, gradient flow."""

from __future__ import annotations

import ipywidgets as W
import numpy as np

from ..basics import (
    add_bias,
    bptt_gradient_norms,
    cross_entropy,
    entropy,
    gradient_descent,
    kl_divergence,
    learning_rate_regime,
    linear_predict,
    linear_regression_closed_form,
    squared_loss,
    squared_loss_grad,
)
from ..plotting import FOREGROUND
from .base import FormulaWidget, panel

__all__ = [
    "regression_surface_data",
    "gradient_descent_widget",
    "information_widget",
    "double_well",
    "local_minima_widget",
    "gradient_flow_widget",
]


def regression_surface_data() -> tuple[np.ndarray, np.ndarray]:
    """The fixed data set of the chapter-1 widget: 20 points, ``y ≈ 1 + 0.8 x``, x in [−1, 3].

    Returns ``X (20, 1)`` and ``y (20,)``; the loss ``½ Σ (θ_0 + θ_1 x_i − y_i)²`` is a bowl over
    the two parameters (θ_0, θ_1).
    """
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 3, 20)
    return x[:, None], 1.0 + 0.8 * x + rng.normal(0, 0.4, 20)


def gradient_descent_widget(
    lr: float = 0.01, steps: int = 30, rule: str = "gradient descent"
) -> FormulaWidget:
    """Chapter 1: gradient descent on a two-parameter squared loss, with a learning-rate slider.

    The data are :func:`regression_surface_data`.  ``result``: ``path`` (steps+1, 2), ``losses``, ``regime``
    (from :func:`~formulated.basics.learning_rate_regime`, or ``"ignores the loss"`` for the
    slides' rule θ ← θ + αθ), ``lam_max``, ``theta_star``.
    """
    X, y = regression_surface_data()
    hessian = add_bias(X).T @ add_bias(X)
    lam_max = float(np.linalg.eigvalsh(hessian)[-1])
    star = linear_regression_closed_form(X, y)
    theta0 = np.array([-1.0, 2.5])

    def loss(th: np.ndarray) -> float:
        return squared_loss(linear_predict(X, th), y)

    def compute(lr: float, steps: int, rule: str) -> dict:
        if rule == "gradient descent":
            path = gradient_descent(
                lambda th: squared_loss_grad(X, y, th), theta0, lr, steps
            )
            regime = learning_rate_regime(lr, hessian)
        else:  # the slides' Δθ = αθ
            path = np.array([theta0 * (1 + lr) ** k for k in range(steps + 1)])
            regime = "ignores the loss"
        return dict(
            path=path,
            losses=np.array([loss(th) for th in path]),
            regime=regime,
            lam_max=lam_max,
            theta_star=star,
            lr=lr,
        )

    def draw(r: dict, v: dict) -> None:
        fig, ax1 = panel(3.0)
        a, b = np.meshgrid(np.linspace(-2, 4, 121), np.linspace(-1, 3.5, 121))
        Z = 0.5 * (((a[..., None] + b[..., None] * X[:, 0]) - y) ** 2).sum(-1)
        ax1.contour(
            a,
            b,
            Z,
            levels=np.geomspace(Z.min() + 0.5, Z.max(), 14),
            cmap="viridis",
            linewidths=0.8,
        )
        P = r["path"]
        ax1.plot(P[:, 0], P[:, 1], "o-", color="C3", ms=3, lw=1)
        ax1.plot(
            *r["theta_star"],
            "*",
            color=FOREGROUND["light"],
            ms=12,
            label="least squares θ*",
        )
        ax1.set(xlim=(-2, 4), ylim=(-1, 3.5), xlabel="θ₀", ylabel="θ₁")
        ax1.set_title(
            f"α = {r['lr']:.4f}  (2/λ_max = {2 / r['lam_max']:.4f})", fontsize=10
        )
        ax1.legend(loc="lower left", fontsize=8)
        fig.tight_layout()
        fig, ax2 = panel(3.0)
        ax2.semilogy(r["losses"], "o-", color="C3", ms=3)
        ax2.axhline(
            loss(r["theta_star"]), color=FOREGROUND["light"], ls=":", label="minimum"
        )
        ax2.set(xlabel="step", ylabel="loss L(θ)")
        ax2.set_title(f"{v['rule']}:\n{r['regime']}", fontsize=10)
        ax2.legend(fontsize=8)
        fig.tight_layout()

    controls = {
        "lr": W.FloatSlider(
            value=lr,
            min=0.001,
            max=0.05,
            step=0.001,
            readout_format=".3f",
            description="α",
        ),
        "steps": W.IntSlider(value=steps, min=1, max=100, description="steps"),
        "rule": W.Dropdown(
            options=["gradient descent", "slides: Δθ = αθ"],
            value=rule,
            description="rule",
        ),
    }
    return FormulaWidget(
        controls, compute, draw, title="Gradient descent on ½ Σ (θ₀ + θ₁ x − y)²"
    )


def information_widget(
    p: tuple[float, float, float] = (0.6, 0.3, 0.1),
    q: tuple[float, float, float] = (0.3, 0.4, 0.3),
    unit: str = "bits",
) -> FormulaWidget:
    """Chapter 2: two distributions over three outcomes; H(p), H(p, q) and KL(p‖q) as they move.

    The six sliders are unnormalized weights (each distribution is its weights divided by their
    sum).  ``result``: ``p``, ``q``, ``H_p``, ``H_pq``, ``KL``, ``KL_qp``, ``base``.
    """

    def compute(unit: str, **w: float) -> dict:
        base = 2.0 if unit == "bits" else float(np.e)
        wp = np.array([w["p1"], w["p2"], w["p3"]])
        wq = np.array([w["q1"], w["q2"], w["q3"]])
        if wp.sum() == 0 or wq.sum() == 0:
            return dict(error="every weight of a distribution is 0: no distribution")
        pp, qq = wp / wp.sum(), wq / wq.sum()
        return dict(
            p=pp,
            q=qq,
            base=base,
            H_p=float(entropy(pp, base)),
            H_pq=float(cross_entropy(pp, qq, base)),
            KL=float(kl_divergence(pp, qq, base)),
            KL_qp=float(kl_divergence(qq, pp, base)),
        )

    def draw(r: dict, v: dict) -> None:
        fig, ax = panel(3.2)
        k = np.arange(3)
        ax.bar(k - 0.18, r["p"], 0.36, label="p (truth)")
        ax.bar(k + 0.18, r["q"], 0.36, label="q (model)")
        ax.set(
            xticks=k,
            xticklabels=["outcome 1", "outcome 2", "outcome 3"],
            ylim=(0, 1),
            ylabel="probability",
        )
        ax.set_title(
            f"H(p) = {r['H_p']:.3f}   H(p,q) = {r['H_pq']:.3f}\n"
            f"KL(p‖q) = {r['KL']:.3f} {v['unit']}",
            fontsize=10,
        )
        ax.legend(fontsize=8)
        fig.tight_layout()

    def weight(val: float, label: str) -> W.FloatSlider:
        return W.FloatSlider(value=val, min=0.0, max=1.0, step=0.01, description=label)

    controls = {
        "p1": weight(p[0], "p weight 1"),
        "q1": weight(q[0], "q weight 1"),
        "p2": weight(p[1], "p weight 2"),
        "q2": weight(q[1], "q weight 2"),
        "p3": weight(p[2], "p weight 3"),
        "q3": weight(q[2], "q weight 3"),
        "unit": W.Dropdown(options=["bits", "nats"], value=unit, description="unit"),
    }
    return FormulaWidget(
        controls, compute, draw, title="Entropy, cross-entropy, KL divergence"
    )


def double_well(w: np.ndarray) -> np.ndarray:
    """``f(w) = w⁴ − 3w² + w``: one global minimum (w ≈ −1.30), one local (w ≈ 1.13)."""
    return w**4 - 3 * w**2 + w


def local_minima_widget(
    w0: float = 1.5, lr: float = 0.02, steps: int = 60
) -> FormulaWidget:
    """Chapter 3: gradient descent on :func:`double_well`, which has a local and a global
    minimum; the starting point decides which one it finds.

    ``result``: ``path``, ``w_final``, ``minimum`` (``"global"``, ``"local"`` or ``"not yet"``).
    """

    def grad(w: np.ndarray) -> np.ndarray:
        return 4 * w**3 - 6 * w + 1

    crit = np.sort(np.roots([4, 0, -6, 1]).real)  # two minima and a maximum between
    w_global, w_local = crit[0], crit[2]

    def compute(w0: float, lr: float, steps: int) -> dict:
        path = gradient_descent(grad, np.array([w0]), lr, steps)[:, 0]
        w = path[-1]
        which = (
            "global"
            if abs(w - w_global) < 1e-3
            else "local"
            if abs(w - w_local) < 1e-3
            else "not yet"
        )
        return dict(path=path, w_final=float(w), minimum=which)

    def draw(r: dict, v: dict) -> None:
        fig, ax = panel()
        w = np.linspace(-2.1, 2.1, 300)
        ax.plot(w, double_well(w), color=FOREGROUND["light"])
        ax.plot(r["path"], double_well(r["path"]), "o-", color="C3", ms=3, lw=0.8)
        ax.set(xlabel="w", ylabel="f(w)", ylim=(-5, 6))
        ax.set_title(
            f"start {v['w0']:+.2f} → w = {r['w_final']:+.3f}\n({r['minimum']} minimum)",
            fontsize=10,
        )
        fig.tight_layout()

    controls = {
        "w0": W.FloatSlider(
            value=w0, min=-2.0, max=2.0, step=0.05, description="start w₀"
        ),
        "lr": W.FloatSlider(
            value=lr,
            min=0.005,
            max=0.1,
            step=0.005,
            description="α",
            readout_format=".3f",
        ),
        "steps": W.IntSlider(value=steps, min=1, max=200, description="steps"),
    }
    return FormulaWidget(controls, compute, draw, title="Local and global minima")


def gradient_flow_widget(
    w: float = 0.9, activation: str = "identity", n: int = 50
) -> FormulaWidget:
    """Chapter 4: how far back a gradient reaches in a one-unit RNN ``h_t = g(w h_{t−1} + x_t)``.

    ``result``: ``norms`` (n+1,), ``‖∂L/∂h_t‖`` for t = 0..n with L = h_n (from
    :func:`~formulated.basics.bptt_gradient_norms`, inputs x_t = 0.1 and h_0 = 0.5).
    """

    def compute(w: float, activation: str, n: int) -> dict:
        with np.errstate(over="ignore"):
            norms = bptt_gradient_norms(
                np.full((n, 1), 0.1), [0.5], [[1.0]], [[w]], [0.0], activation
            )
        return dict(norms=norms, steps_back=np.arange(n, -1, -1))

    def draw(r: dict, v: dict) -> None:
        fig, ax = panel()
        ax.semilogy(r["steps_back"], r["norms"], "o-", ms=3)
        ax.set(
            xlabel="steps back from the loss (n − t)",
            ylabel="‖∂L/∂h_t‖",
            title=f"w = {v['w']:.2f}, {v['activation']}",
        )
        fig.tight_layout()

    controls = {
        "w": W.FloatSlider(value=w, min=-2.0, max=2.0, step=0.05, description="w"),
        "activation": W.Dropdown(
            options=["identity", "tanh", "relu", "sigmoid"],
            value=activation,
            description="g",
        ),
        "n": W.IntSlider(value=n, min=5, max=100, description="steps n"),
    }
    return FormulaWidget(
        controls, compute, draw, title="Vanishing and exploding gradients"
    )
