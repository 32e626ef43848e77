"""Every interactive widget of the book (ipywidgets).

Each widget is a function ``<name>_widget(...)`` that returns an ``ipywidgets`` container whose
controls are reachable as attributes of the returned object (``w.controls["temperature"]``) and
whose computed result is kept in ``w.result`` (a dict updated on every change), so that tests can
set a control and assert the output without a browser::

    w = attention_widget()
    w.controls["temperature"].value = 2.0
    assert w.result["weights"].shape == (3, 3)

The rendered book shows each widget's initial state (a static snapshot saved at execution time);
a live kernel (JupyterLab, Binder, Colab) makes it respond.  Figures are drawn into an
``ipywidgets.Output`` with matplotlib.
"""

from __future__ import annotations

from typing import Any, Callable

import ipywidgets as W
import matplotlib.pyplot as plt

__all__: list[str] = []


class FormulaWidget(W.VBox):
    """A VBox with named ``controls``, an ``Output`` for the figure/text and a ``result`` dict.

    ``compute(**values) -> dict`` turns the control values into results; ``draw(result, values)``
    renders them (called inside the Output).  Both run once at construction and again whenever a
    control changes.
    """

    def __init__(self, controls: dict[str, W.Widget], compute: Callable[..., dict],
                 draw: Callable[[dict, dict], None] | None = None, *, title: str = "",
                 layout_controls: W.Box | None = None):
        self.controls = controls
        self.out = W.Output()
        self.result: dict[str, Any] = {}
        self._compute = compute
        self._draw = draw
        box = layout_controls if layout_controls is not None else W.VBox(list(controls.values()))
        children = ([W.HTML(f"<b>{title}</b>")] if title else []) + [box, self.out]
        super().__init__(children)
        for c in controls.values():
            c.observe(self._update, names="value")
        self._update()

    def values(self) -> dict[str, Any]:
        return {k: c.value for k, c in self.controls.items()}

    def _update(self, *_: Any) -> None:
        vals = self.values()
        self.result = self._compute(**vals)
        if self._draw is None:
            return
        self.out.clear_output(wait=True)
        with self.out:
            self._draw(self.result, vals)
            plt.show()
            # The inline backend closes shown figures itself; a headless backend (tests) does
            # not, and every slider move would leak one figure.
            plt.close("all")


# ---------------------------------------------------------------------------------------------
# One section per chapter; each chapter owner adds its widgets in its own section and lists them
# in ``__all__`` with ``__all__ += [...]`` right after the section's definitions.
# ---------------------------------------------------------------------------------------------

# == chapters 01-04 ============================================================================


def regression_surface_data():
    """The fixed data set of the chapter-1 widget: 20 points, ``y ≈ 1 + 0.8 x``, x in [−1, 3].

    Returns ``X (20, 1)`` and ``y (20,)``; the loss ``½ Σ (θ_0 + θ_1 x_i − y_i)²`` is a bowl over
    the two parameters (θ_0, θ_1).
    """
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 3, 20)
    return x[:, None], 1.0 + 0.8 * x + rng.normal(0, 0.4, 20)


def gradient_descent_widget(lr: float = 0.01, steps: int = 30,
                            rule: str = "gradient descent") -> FormulaWidget:
    """Chapter 1: gradient descent on a two-parameter squared loss, with a learning-rate slider.

    ``result``: ``path`` (steps+1, 2), ``losses``, ``regime`` (from :func:`learning_rate_regime`,
    or ``"ignores the loss"`` for the slides' rule θ ← θ + αθ), ``lam_max``, ``theta_star``.
    """
    import numpy as np

    from .basics import (gradient_descent, learning_rate_regime, linear_predict,
                         linear_regression_closed_form, squared_loss, squared_loss_grad, add_bias)

    X, y = regression_surface_data()
    hessian = add_bias(X).T @ add_bias(X)
    lam_max = float(np.linalg.eigvalsh(hessian)[-1])
    star = linear_regression_closed_form(X, y)
    theta0 = np.array([-1.0, 2.5])
    loss = lambda th: squared_loss(linear_predict(X, th), y)  # noqa: E731

    def compute(lr: float, steps: int, rule: str) -> dict:
        if rule == "gradient descent":
            path = gradient_descent(lambda th: squared_loss_grad(X, y, th), theta0, lr, steps)
            regime = learning_rate_regime(lr, hessian)
        else:                                        # the slides' Δθ = αθ
            path = np.array([theta0 * (1 + lr) ** k for k in range(steps + 1)])
            regime = "ignores the loss"
        return dict(path=path, losses=np.array([loss(th) for th in path]), regime=regime,
                    lam_max=lam_max, theta_star=star, lr=lr)

    def draw(r: dict, v: dict) -> None:
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.6))
        a, b = np.meshgrid(np.linspace(-2, 4, 121), np.linspace(-1, 3.5, 121))
        Z = 0.5 * (((a[..., None] + b[..., None] * X[:, 0]) - y) ** 2).sum(-1)
        ax1.contour(a, b, Z, levels=np.geomspace(Z.min() + 0.5, Z.max(), 14), cmap="viridis",
                    linewidths=0.8)
        P = r["path"]
        ax1.plot(P[:, 0], P[:, 1], "o-", color="C3", ms=3, lw=1)
        ax1.plot(*r["theta_star"], "k*", ms=12, label="least squares θ*")
        ax1.set(xlim=(-2, 4), ylim=(-1, 3.5), xlabel="θ₀", ylabel="θ₁",
                title=f"α = {r['lr']:.4f}  (2/λ_max = {2 / r['lam_max']:.4f})")
        ax1.legend(loc="lower left", fontsize=8)
        ax2.semilogy(r["losses"], "o-", color="C3", ms=3)
        ax2.axhline(loss(r["theta_star"]), color="k", ls=":", label="minimum")
        ax2.set(xlabel="step", ylabel="loss L(θ)", title=f"{v['rule']}: {r['regime']}")
        ax2.legend(fontsize=8)
        fig.tight_layout()

    controls = {
        "lr": W.FloatSlider(value=lr, min=0.001, max=0.05, step=0.001, readout_format=".3f",
                            description="α"),
        "steps": W.IntSlider(value=steps, min=1, max=100, description="steps"),
        "rule": W.Dropdown(options=["gradient descent", "slides: Δθ = αθ"], value=rule,
                           description="rule"),
    }
    return FormulaWidget(controls, compute, draw,
                         title="Gradient descent on ½ Σ (θ₀ + θ₁ x − y)²")


def information_widget(p: tuple[float, float, float] = (0.6, 0.3, 0.1),
                       q: tuple[float, float, float] = (0.3, 0.4, 0.3),
                       unit: str = "bits") -> FormulaWidget:
    """Chapter 2: two distributions over three outcomes; H(p), H(p, q) and KL(p‖q) as they move.

    The six sliders are unnormalised weights (each distribution is its weights divided by their
    sum).  ``result``: ``p``, ``q``, ``H_p``, ``H_pq``, ``KL``, ``KL_qp``, ``base``.
    """
    import numpy as np

    from .basics import cross_entropy, entropy, kl_divergence

    def compute(unit: str, **w: float) -> dict:
        base = 2.0 if unit == "bits" else float(np.e)
        wp = np.array([w["p1"], w["p2"], w["p3"]])
        wq = np.array([w["q1"], w["q2"], w["q3"]])
        if wp.sum() == 0 or wq.sum() == 0:
            return dict(error="every weight of a distribution is 0: no distribution")
        pp, qq = wp / wp.sum(), wq / wq.sum()
        return dict(p=pp, q=qq, base=base, H_p=float(entropy(pp, base)),
                    H_pq=float(cross_entropy(pp, qq, base)), KL=float(kl_divergence(pp, qq, base)),
                    KL_qp=float(kl_divergence(qq, pp, base)))

    def draw(r: dict, v: dict) -> None:
        if "error" in r:
            print(r["error"])
            return
        fig, ax = plt.subplots(figsize=(6, 3.5))
        k = np.arange(3)
        ax.bar(k - 0.18, r["p"], 0.36, label="p (truth)")
        ax.bar(k + 0.18, r["q"], 0.36, label="q (model)")
        ax.set(xticks=k, xticklabels=["outcome 1", "outcome 2", "outcome 3"], ylim=(0, 1),
               ylabel="probability")
        u = v["unit"]
        ax.set_title(f"H(p) = {r['H_p']:.3f}   H(p,q) = {r['H_pq']:.3f}   "
                     f"KL(p‖q) = {r['KL']:.3f} {u}", fontsize=10)
        ax.legend()
        fig.tight_layout()

    sl = lambda val, d: W.FloatSlider(value=val, min=0.0, max=1.0, step=0.01,  # noqa: E731
                                      description=d)
    controls = {"p1": sl(p[0], "p weight 1"), "p2": sl(p[1], "p weight 2"),
                "p3": sl(p[2], "p weight 3"), "q1": sl(q[0], "q weight 1"),
                "q2": sl(q[1], "q weight 2"), "q3": sl(q[2], "q weight 3"),
                "unit": W.Dropdown(options=["bits", "nats"], value=unit, description="unit")}
    box = W.VBox([W.HBox([controls["p1"], controls["q1"]]), W.HBox([controls["p2"], controls["q2"]]),
                  W.HBox([controls["p3"], controls["q3"]]), controls["unit"]])
    return FormulaWidget(controls, compute, draw, title="Entropy, cross-entropy, KL divergence",
                         layout_controls=box)


def _double_well(w):
    return w ** 4 - 3 * w ** 2 + w


def local_minima_widget(w0: float = 1.5, lr: float = 0.02, steps: int = 60) -> FormulaWidget:
    """Chapter 3: gradient descent on ``f(w) = w⁴ − 3w² + w``, which has a local and a global
    minimum; the starting point decides which one it finds.

    ``result``: ``path``, ``w_final``, ``minimum`` (``"global"``, ``"local"`` or ``"not yet"``).
    """
    import numpy as np

    from .basics import gradient_descent

    grad = lambda w: 4 * w ** 3 - 6 * w + 1  # noqa: E731
    crit = np.sort(np.roots([4, 0, -6, 1]).real)          # two minima and a maximum between
    w_global, w_local = crit[0], crit[2]

    def compute(w0: float, lr: float, steps: int) -> dict:
        path = gradient_descent(lambda w: grad(w), np.array([w0]), lr, steps)[:, 0]
        w = path[-1]
        which = ("global" if abs(w - w_global) < 1e-3 else
                 "local" if abs(w - w_local) < 1e-3 else "not yet")
        return dict(path=path, w_final=float(w), minimum=which)

    def draw(r: dict, v: dict) -> None:
        fig, ax = plt.subplots(figsize=(6, 3.5))
        w = np.linspace(-2.1, 2.1, 300)
        ax.plot(w, _double_well(w), color="0.3")
        ax.plot(r["path"], _double_well(r["path"]), "o-", color="C3", ms=3, lw=0.8)
        ax.set(xlabel="w", ylabel="f(w)", ylim=(-5, 6),
               title=f"start {v['w0']:+.2f} → w = {r['w_final']:+.3f} ({r['minimum']} minimum)")
        fig.tight_layout()

    controls = {"w0": W.FloatSlider(value=w0, min=-2.0, max=2.0, step=0.05, description="start w₀"),
                "lr": W.FloatSlider(value=lr, min=0.005, max=0.1, step=0.005, description="α",
                                    readout_format=".3f"),
                "steps": W.IntSlider(value=steps, min=1, max=200, description="steps")}
    return FormulaWidget(controls, compute, draw, title="Local and global minima")


def gradient_flow_widget(w: float = 0.9, activation: str = "identity",
                         n: int = 50) -> FormulaWidget:
    """Chapter 4: how far back a gradient reaches in a one-unit RNN ``h_t = g(w h_{t−1} + x_t)``.

    ``result``: ``norms`` (n+1,), ``‖∂L/∂h_t‖`` for t = 0..n with L = h_n (from
    :func:`bptt_gradient_norms`, inputs x_t = 0.1 and h_0 = 0.5).
    """
    import numpy as np

    from .basics import bptt_gradient_norms

    def compute(w: float, activation: str, n: int) -> dict:
        with np.errstate(over="ignore"):
            norms = bptt_gradient_norms(np.full((n, 1), 0.1), [0.5], [[1.0]], [[w]], [0.0],
                                        activation)
        return dict(norms=norms, steps_back=np.arange(n, -1, -1))

    def draw(r: dict, v: dict) -> None:
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.semilogy(r["steps_back"], r["norms"], "o-", ms=3)
        ax.set(xlabel="steps back from the loss (n − t)", ylabel="‖∂L/∂h_t‖",
               title=f"w = {v['w']:.2f}, {v['activation']}")
        fig.tight_layout()

    controls = {"w": W.FloatSlider(value=w, min=-2.0, max=2.0, step=0.05, description="w"),
                "activation": W.Dropdown(options=["identity", "tanh", "relu", "sigmoid"],
                                         value=activation, description="g"),
                "n": W.IntSlider(value=n, min=5, max=100, description="steps n")}
    return FormulaWidget(controls, compute, draw, title="Vanishing and exploding gradients")


__all__ += ["regression_surface_data", "gradient_descent_widget", "information_widget",
            "local_minima_widget", "gradient_flow_widget"]

# == chapters 05-06 ============================================================================

# Chapter 5: every tensor of one GPT-2 block for chosen sizes.  Chapter 6: byte-pair encoding one
# merge at a time.  ``result`` keeps plain shapes and token lists, which the tests recompute by hand.


def shapes_widget(B: int = 2, n: int = 5, H: int = 12, A: int = 3, V: int = 11,
                  seed: int = 0) -> FormulaWidget:
    """Sliders for ``B, n, H, A, V``; shows the shape of every tensor of one GPT-2 block.

    A random one-block model (``F = 4H``, ``D = H / A``) runs a random batch of ids through
    :func:`formulated.shapes.trace_gpt_block`.  ``result["shapes"]`` maps each tensor's name to
    its shape, ``result["letters"]`` to its shape in letters, ``result["sizes"]`` to its number
    of entries; ``result["error"]`` explains a choice with ``H`` not divisible by ``A``.
    """
    import numpy as np

    from .shapes import random_block_params, trace_gpt_block

    controls = {
        "B": W.IntSlider(value=B, min=1, max=4, description="B (batch)"),
        "n": W.IntSlider(value=n, min=1, max=8, description="n (length)"),
        "H": W.IntSlider(value=H, min=4, max=32, step=4, description="H (width)"),
        "A": W.IntSlider(value=A, min=1, max=8, description="A (heads)"),
        "V": W.IntSlider(value=V, min=2, max=50, description="V (vocab)"),
    }

    def compute(B: int, n: int, H: int, A: int, V: int) -> dict:
        if H % A:
            return {"error": f"A = {A} heads do not divide H = {H}: every head needs "
                             f"D = H / A columns (GPT-2 splits H into A equal blocks).",
                    "shapes": {}, "letters": {}, "sizes": {}}
        params = random_block_params(V=V, n_max=8, H=H, A=A, seed=seed)
        ids = np.random.default_rng(seed).integers(0, V, size=(B, n))
        steps = trace_gpt_block(ids, params)
        return {"error": "", "dims": {"B": B, "n": n, "H": H, "A": A, "D": H // A, "F": 4 * H,
                                      "V": V},
                "shapes": {s.name: s.shape for s in steps},
                "letters": {s.name: " × ".join(s.letters) for s in steps},
                "sizes": {s.name: int(s.value.size) for s in steps}}

    def draw(res: dict, vals: dict) -> None:
        if res["error"]:
            print(res["error"])
            return
        names = list(res["shapes"])
        fig, ax = plt.subplots(figsize=(8, 6))
        sizes = [res["sizes"][k] for k in names]
        colors = ["tab:orange" if "A × n × n" in res["letters"][k] else "tab:blue" for k in names]
        ax.barh(range(len(names)), sizes, color=colors)
        ax.set_yticks(range(len(names)),
                      [f"{k}  [{res['letters'][k]}] = {res['shapes'][k]}" for k in names],
                      fontsize=8)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.set_xlabel("number of entries (log scale); orange: grows with n²")
        d = res["dims"]
        ax.set_title(f"One GPT-2 block: B={d['B']}, n={d['n']}, H={d['H']}, A={d['A']}, "
                     f"D={d['D']}, F={d['F']}, V={d['V']}")
        fig.tight_layout()

    return FormulaWidget(controls, compute, draw, title="Shapes through one GPT block")


BPE_CORPORA = {
    "lecture": {"low": 1, "lower": 1, "newest": 1, "widest": 1},  # source 003: each word once
    "classic": {"low": 5, "lower": 2, "newest": 6, "widest": 3},  # Sennrich et al. (2016)
}


def bpe_widget(corpus: str = "lecture", merges: int = 3) -> FormulaWidget:
    """Step through byte-pair encoding on the lecture notes' four words, one merge at a time.

    Controls: ``corpus`` (``"lecture"``: each word once, as in source 003; ``"classic"``: the
    frequencies 5, 2, 6, 3 of Sennrich et al.'s example) and ``merges`` (how many merges to
    apply).  ``result["merges"]`` lists the merges applied (:class:`~formulated.tokenizers.Merge`
    with counts), ``result["segmentation"]`` maps each word to its tokens, ``result["V"]`` is the
    vocabulary size and ``result["tokens"]`` the corpus length in tokens (frequency-weighted).
    """
    from .tokenizers import BPETokenizer, initial_symbols, learn_bpe

    controls = {
        "corpus": W.Dropdown(options=[("003: each word once", "lecture"),
                                      ("Sennrich et al.: 5, 2, 6, 3", "classic")],
                             value=corpus, description="corpus"),
        "merges": W.IntSlider(value=merges, min=0, max=13, description="merges"),
    }

    def run(wc: dict[str, int], k: int) -> dict:
        learned = learn_bpe(wc, 100)  # every merge until each word is one token
        k = min(k, len(learned))
        tok = BPETokenizer(learned[:k], initial_symbols(wc))
        seg = {w: tok.tokenize_word(w) for w in wc}
        return {"merges": learned[:k], "all_merges": learned, "segmentation": seg,
                "V": tok.vocab_size, "tokens": sum(len(seg[w]) * c for w, c in wc.items())}

    def compute(corpus: str, merges: int) -> dict:
        wc = BPE_CORPORA[corpus]
        res = run(wc, merges)
        res["curve"] = [(r["V"], r["tokens"]) for r in (run(wc, j) for j in
                                                         range(len(res["all_merges"]) + 1))]
        return res

    def draw(res: dict, vals: dict) -> None:
        wc = BPE_CORPORA[vals["corpus"]]
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.5),
                                       gridspec_kw={"width_ratios": [1.4, 1]})
        ax1.axis("off")
        lines = [f"{i + 1:2d}. {m.left} + {m.right} → {m.token}   (count {m.count})"
                 for i, m in enumerate(res["merges"])] or ["(no merge yet)"]
        lines += [""] + [f"{w} ×{wc[w]}:  {' | '.join(t)}" for w, t in res["segmentation"].items()]
        ax1.text(0, 1, "\n".join(lines[-18:]), va="top", family="monospace", fontsize=9)
        ax1.set_title(f"after {len(res['merges'])} merges")
        Vs, Ts = zip(*res["curve"])
        ax2.plot(Vs, Ts, "o-", color="tab:blue", ms=3)
        ax2.plot([res["V"]], [res["tokens"]], "o", color="crimson", ms=8)
        ax2.set_xlabel("vocabulary size V")
        ax2.set_ylabel("corpus length in tokens")
        ax2.set_title("each merge: V + 1, fewer tokens")
        fig.tight_layout()

    return FormulaWidget(controls, compute, draw, title="Byte-pair encoding, merge by merge")


__all__ += ["shapes_widget", "BPE_CORPORA", "bpe_widget"]

# == chapters 07-09 ============================================================================

# Chapter 7: the sinusoidal encoding and its dot products.  Chapter 8: the slides' Q/K/V example,
# editable.  Chapter 9: mask type and temperature.  ``result`` keeps every array a test needs to
# recompute the answer with torch or transformers, independently of this code.

import numpy as np  # noqa: E402  (this section's own imports)


def sinusoidal_encoding_widget(n: int = 32, H: int = 32, position: int = 8) -> FormulaWidget:
    """Chapter 7: heat maps of the sinusoidal encoding ``PE (n, H)`` and of ``PE PE^T (n, n)``.

    Controls: ``n`` (length), ``H`` (width, even), ``position`` (the 0-based position ``p``
    whose dot products with every position are plotted; clipped to ``n - 1``).
    ``result``: ``pe`` ``(n, H)``, ``similarity`` ``= PE PE^T`` ``(n, n)``, ``position`` (the
    clipped ``p``) and ``row`` ``= similarity[p]`` ``(n,)``.
    """
    from .formulas import positional_encoding_sinusoidal

    controls = {
        "n": W.IntSlider(value=n, min=2, max=128, description="length n"),
        "H": W.IntSlider(value=H, min=2, max=128, step=2, description="width H"),
        "position": W.IntSlider(value=position, min=0, max=127, description="position p"),
    }

    def compute(n: int, H: int, position: int) -> dict:
        pe = positional_encoding_sinusoidal(n, H)
        similarity = pe @ pe.T
        p = min(position, n - 1)  # the slider's range is fixed; a short sequence clips it
        return {"pe": pe, "similarity": similarity, "position": p, "row": similarity[p]}

    def draw(r: dict, v: dict) -> None:
        fig, axes = plt.subplots(1, 3, figsize=(12, 3.4))
        im = axes[0].imshow(r["pe"], aspect="auto", cmap="RdBu", vmin=-1, vmax=1)
        axes[0].set(title=f"PE (n={v['n']}, H={v['H']})", xlabel="column", ylabel="position")
        fig.colorbar(im, ax=axes[0])
        im = axes[1].imshow(r["similarity"], cmap="viridis")
        axes[1].axhline(r["position"], color="white", lw=0.8)
        axes[1].set(title="PE_p . PE_q", xlabel="position q", ylabel="position p")
        fig.colorbar(im, ax=axes[1])
        axes[2].plot(r["row"], marker=".")
        axes[2].axvline(r["position"], color="grey", lw=0.8)
        axes[2].set(title=f"PE_{r['position']} . PE_q", xlabel="position q", ylim=(None, v["H"] / 2 + 1))
        fig.tight_layout()

    return FormulaWidget(controls, compute, draw,
                         title="Sinusoidal positional encoding and its dot products")


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
        raise ValueError(f"{name}: expected numbers separated by spaces, got {text!r}") from None
    widths = {len(r) for r in parsed}
    if len(widths) != 1:
        raise ValueError(f"{name}: expected rows of equal length, got lengths "
                         f"{[len(r) for r in parsed]}")
    return np.array(parsed)


def format_matrix(M: np.ndarray) -> str:
    """The inverse of :func:`parse_matrix`: ``"1 0 1; 0 2 0"`` (integers without ``.0``)."""
    return "; ".join(" ".join(f"{x:g}" for x in row) for row in np.asarray(M))


def attention_widget(scale: bool = False) -> FormulaWidget:
    """Chapter 8: the slides' (004) Q/K/V example with editable inputs and weights.

    Controls: ``X`` (the inputs, one per row), ``W_q``, ``W_k``, ``W_v`` (text matrices, see
    :func:`parse_matrix`), ``scale`` (divide the scores by ``sqrt(D)``) and ``query`` (the
    0-based input whose row is highlighted).  ``result``: ``X``, ``Q``, ``K``, ``V`` (the
    projections), ``scores = Q K^T [/ sqrt(D)]`` ``(n, n)``, ``weights`` (row softmax),
    ``output = weights V`` ``(n, D_v)``; or ``error`` (a message) when an entry cannot be used.
    """
    from . import examples as ex
    from .formulas import softmax

    text = W.Layout(width="360px")
    controls = {
        "X": W.Text(value=format_matrix(ex.QKV_INPUTS), description="inputs X", layout=text),
        "W_q": W.Text(value=format_matrix(ex.QKV_W_QUERY), description="W_q", layout=text),
        "W_k": W.Text(value=format_matrix(ex.QKV_W_KEY), description="W_k", layout=text),
        "W_v": W.Text(value=format_matrix(ex.QKV_W_VALUE), description="W_v", layout=text),
        "scale": W.Checkbox(value=scale, description="divide scores by sqrt(D)"),
        "query": W.IntSlider(value=0, min=0, max=9, description="query (0-based)"),
    }

    def compute(X: str, W_q: str, W_k: str, W_v: str, scale: bool, query: int) -> dict:
        try:
            Xm = parse_matrix(X, "X")
            Ws = {k: parse_matrix(t, k) for k, t in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v))}
            for k, Wm in Ws.items():
                if Wm.shape[0] != Xm.shape[1]:
                    raise ValueError(f"{k}: expected {Xm.shape[1]} rows (the width of X), "
                                     f"got shape {Wm.shape}")
            if Ws["W_q"].shape[1] != Ws["W_k"].shape[1]:
                raise ValueError(f"W_k: expected as many columns as W_q ({Ws['W_q'].shape[1]}), "
                                 f"got shape {Ws['W_k'].shape}")
        except ValueError as err:
            return {"error": str(err)}
        Q, K, V = Xm @ Ws["W_q"], Xm @ Ws["W_k"], Xm @ Ws["W_v"]
        scores = Q @ K.T
        if scale:
            scores = scores / np.sqrt(Q.shape[1])
        weights = softmax(scores, axis=-1)
        return {"X": Xm, "Q": Q, "K": K, "V": V, "scores": scores, "weights": weights,
                "output": weights @ V, "query": min(query, Xm.shape[0] - 1)}

    def draw(r: dict, v: dict) -> None:
        if "error" in r:
            print("cannot compute:", r["error"])
            return
        fig, axes = plt.subplots(1, 3, figsize=(12, 3.2))
        panels = (("scores" + (" / sqrt(D)" if v["scale"] else ""), r["scores"], "key j"),
                  ("weights = softmax(row)", r["weights"], "key j"),
                  ("output = weights V", r["output"], "column"))
        for ax, (title, M, xlabel) in zip(axes, panels):
            ax.imshow(M, cmap="Blues", aspect="auto")
            lo, hi = M.min(), M.max()
            for (i, j), val in np.ndenumerate(M):
                dark = hi > lo and (val - lo) / (hi - lo) > 0.6  # white text on dark cells
                ax.text(j, i, f"{val:.3g}", ha="center", va="center", fontsize=9,
                        color="white" if dark else "black")
            q = r["query"]  # frame the highlighted query's row
            ax.add_patch(plt.Rectangle((-0.5, q - 0.5), M.shape[1], 1, fill=False,
                                       edgecolor="red", lw=2))
            ax.set(title=title, xlabel=xlabel, ylabel="query i", xticks=range(M.shape[1]),
                   yticks=range(M.shape[0]))
        fig.tight_layout()

    return FormulaWidget(controls, compute, draw, title="Attention on the slides' example: edit and watch")


MASK_TYPES_09 = ("bidirectional", "autoregressive", "local band (w=3)", "strided (stride 3)",
                 "padding (last 2 keys)")


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
    from .formulas import masked_softmax

    scores = np.random.default_rng(seed).standard_normal((n, n))
    controls = {
        "mask": W.Dropdown(options=list(MASK_TYPES_09), value="autoregressive", description="mask"),
        "temperature": W.FloatLogSlider(value=1.0, base=10, min=-1, max=1, step=0.05,
                                        description="temperature"),
    }

    def compute(mask: str, temperature: float) -> dict:
        allowed = attention_pattern(mask, n)
        additive = np.where(allowed, 0.0, -np.inf)
        weights = masked_softmax(scores / temperature, additive)
        return {"scores": scores, "allowed": allowed, "mask": additive, "weights": weights}

    def draw(r: dict, v: dict) -> None:
        fig, axes = plt.subplots(1, 2, figsize=(9, 3.8))
        axes[0].imshow(r["allowed"], cmap="Greys", vmin=0, vmax=1.6)
        axes[0].set(title=f"{v['mask']}: allowed (i, j)", xlabel="key j", ylabel="query i")
        im = axes[1].imshow(r["weights"], cmap="magma", vmin=0, vmax=1)
        for (i, j), w in np.ndenumerate(r["weights"]):
            if w >= 0.005:
                axes[1].text(j, i, f"{w:.2f}", ha="center", va="center", fontsize=7,
                             color="white" if w < 0.6 else "black")
        axes[1].set(title=f"weights, temperature {v['temperature']:.2f}", xlabel="key j",
                    ylabel="query i")
        fig.colorbar(im, ax=axes[1])
        fig.tight_layout()

    return FormulaWidget(controls, compute, draw, title="Masks and temperature")


__all__ += ["sinusoidal_encoding_widget", "parse_matrix", "format_matrix", "attention_widget",
            "MASK_TYPES_09", "attention_pattern", "mask_widget"]

# == chapters 10-12 ============================================================================

# Chapter 10: one head, one query. Chapter 11: the three GELU forms at one x. Chapter 12: one row
# through LayerNorm.  Each widget keeps in ``result`` every array a test needs to recompute the
# answer independently (with torch), so the tests never compare this code with itself.

import math  # noqa: E402  (this section's own imports)

import numpy as np  # noqa: E402

SENTENCE_10 = ("the", "big", "red", "dog", "sat", "down")


def multi_head_example(tokens: tuple[str, ...] = SENTENCE_10, H: int = 8, A: int = 4,
                       seed: int = 0) -> dict[str, Any]:
    """Seeded random inputs and weights for one multi-head self-attention layer.

    ``X = W_e[ids] + PE`` with a random embedding per distinct token and the sinusoidal positions,
    and random ``W_q, W_k, W_v`` of shape ``(A, H, D)``, ``W_o (A*D, H)`` with ``D = H // A``.
    Nothing here is trained: the patterns are those of random weights.  Shapes: ``X (n, H)``.
    """
    from . import formulas as f

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
    return {"tokens": tuple(tokens), "X": X, "W_q": W_q, "W_k": W_k, "W_v": W_v, "W_o": W_o}


def multi_head_widget(tokens: tuple[str, ...] = SENTENCE_10, H: int = 8, A: int = 4,
                      seed: int = 0) -> FormulaWidget:
    """Pick a head and a query position; see that head's attention weights over the sentence.

    ``result["pattern"]`` is head ``i``'s ``(n, n)`` weight matrix
    ``softmax(X W_q[i] (X W_k[i])^T / sqrt(D) + Mask)``, ``result["weights"]`` its row for the
    chosen query, ``result["all_weights"]`` the ``(A, n, n)`` patterns of every head and
    ``result["output"]`` the ``(n, H)`` output of the layer.  Controls: ``head`` (1-based, as in
    the math), ``query`` (0-based position), ``mask`` ("autoregressive" or "bidirectional").
    """
    from . import formulas as f

    ex = multi_head_example(tokens, H, A, seed)
    n = len(tokens)
    controls = {
        "head": W.IntSlider(value=1, min=1, max=A, description="head i"),
        "query": W.Dropdown(options=[(f"{t + 1}: {tok}", t) for t, tok in enumerate(tokens)],
                            value=min(3, n - 1), description="query"),
        "mask": W.ToggleButtons(options=["autoregressive", "bidirectional"],
                                value="autoregressive", description="mask"),
    }

    def compute(head: int, query: int, mask: str) -> dict:
        M = f.mask_autoregressive(n) if mask == "autoregressive" else f.mask_bidirectional(n)
        X, D = ex["X"], H // A
        scores = np.stack([(X @ ex["W_q"][i]) @ (X @ ex["W_k"][i]).T / np.sqrt(D)
                           for i in range(A)])  # (A, n, n)
        all_w = f.masked_softmax(scores, M)
        out = f.multi_head_self_attention(X, M, ex["W_q"], ex["W_k"], ex["W_v"], ex["W_o"])
        return {**ex, "mask": M, "all_weights": all_w, "pattern": all_w[head - 1],
                "weights": all_w[head - 1, query], "output": out}

    def draw(res: dict, vals: dict) -> None:
        q, i = vals["query"], vals["head"]
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5))
        im = ax1.imshow(res["pattern"], cmap="Blues", vmin=0, vmax=1)
        ax1.add_patch(plt.Rectangle((-0.5, q - 0.5), n, 1, fill=False, ec="crimson", lw=2))
        ax1.set_xticks(range(n), tokens, rotation=45)
        ax1.set_yticks(range(n), tokens)
        ax1.set_xlabel("key")
        ax1.set_ylabel("query")
        ax1.set_title(f"head {i}: attention weights")
        fig.colorbar(im, ax=ax1, fraction=0.046)
        ax2.bar(range(n), res["weights"], color="crimson")
        ax2.set_xticks(range(n), tokens, rotation=45)
        ax2.set_ylim(0, 1)
        ax2.set_title(f"head {i}, query {q + 1} ({tokens[q]!r})")
        ax2.set_ylabel("weight")
        fig.tight_layout()

    return FormulaWidget(controls, compute, draw,
                         title="Multi-head attention: one head, one query (random weights)")


def gelu_widget(x: float = 1.0) -> FormulaWidget:
    """Slide ``x``; see GELU(x) exactly (erf), in the tanh and sigmoid forms, and Phi(x).

    ``result`` holds ``"erf"``, ``"tanh"``, ``"sigmoid"`` (the three GELU values), ``"Phi"``
    (the standard normal CDF), ``"relu"``, and the errors ``"err_tanh"``, ``"err_sigmoid"``
    (approximation minus exact).
    """
    from . import formulas as f

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
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5))
        ax1.plot(grid, np.maximum(grid, 0), color="0.7", lw=1, label="ReLU")
        for k, style in (("erf", "-"), ("tanh", "--"), ("sigmoid", ":")):
            ax1.plot(grid, curves[k], style, label=f"GELU ({k})")
        ax1.axvline(x, color="crimson", lw=1)
        ax1.plot([x] * 3, [res["erf"], res["tanh"], res["sigmoid"]], "o", color="crimson")
        ax1.set_title(f"GELU({x:.2f}) = {res['erf']:.5f} (erf), {res['tanh']:.5f} (tanh), "
                      f"{res['sigmoid']:.5f} (sigmoid)", fontsize=8)
        ax1.legend(fontsize=8)
        ax1.set_xlabel("x")
        ax2.plot(grid, phi_grid, label=r"$\Phi(x)$")
        ax2.plot(grid, gates["tanh"], "--", lw=1, label="tanh gate")
        ax2.plot(grid, gates["sigmoid"], ":", lw=1, label=r"$\sigma(1.702x)$")
        ax2.plot(x, res["Phi"], "o", color="crimson")
        ax2.axvline(x, color="crimson", lw=1)
        ax2.set_ylim(-0.05, 1.05)
        ax2.set_title(f"Phi({x:.2f}) = {res['Phi']:.5f}: the share of x that passes", fontsize=8)
        ax2.set_xlabel("x")
        ax2.legend(fontsize=8)
        fig.tight_layout()

    return FormulaWidget(controls, compute, draw, title="GELU(x) = x Phi(x) and its approximations")


def layer_norm_widget(values: tuple[float, ...] = (1.0, 2.0, 3.0, 6.0, -2.0)) -> FormulaWidget:
    """A row vector with one slider per entry, and sliders for gamma, beta (one value for every
    column, ``gamma_j = gamma``) and eps (log scale).

    ``result``: ``"x"`` the row, ``"mean"``/``"var"`` its mean and biased variance, ``"z"`` the
    normalized row ``(x - mean) / sqrt(var + eps)``, ``"y" = gamma * z + beta`` (LayerNorm),
    ``"y_std_eps"`` the "Notations" variant ``gamma * (x - mean) / (std + eps) + beta``, and the
    mean/variance of ``z`` and ``y`` (``"z_mean"``, ``"z_var"``, ``"y_mean"``, ``"y_var"``).
    """
    from . import formulas as f

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
        fig, ax = plt.subplots(figsize=(7, 3.5))
        j = np.arange(H)
        ax.bar(j - 0.25, res["x"], 0.25, color="0.6",
               label=f"x: mean {res['mean']:.3f}, var {res['var']:.3f}")
        ax.bar(j, res["z"], 0.25, label=f"normalized: mean {res['z_mean']:.3f}, "
                                        f"var {res['z_var']:.3f}")
        ax.bar(j + 0.25, res["y"], 0.25, label=f"γ·normalized + β: mean {res['y_mean']:.3f}, "
                                               f"var {res['y_var']:.3f}")
        ax.axhline(0, color="k", lw=0.5)
        ax.set_xticks(j, [f"x{k + 1}" for k in j])
        ax.set_title(f"LayerNorm of one row (γ={vals['gamma']:.1f}, β={vals['beta']:.1f}, "
                     f"ε={vals['eps']:.0e})", fontsize=9)
        ax.legend(fontsize=8)
        fig.tight_layout()

    box = W.HBox([W.VBox([controls[f"x{j + 1}"] for j in range(H)]),
                  W.VBox([controls["gamma"], controls["beta"], controls["eps"]])])
    return FormulaWidget(controls, compute, draw, title="LayerNorm of one row",
                         layout_controls=box)


__all__ += ["multi_head_example", "multi_head_widget", "gelu_widget", "layer_norm_widget"]

# == chapters 13-16 ============================================================================

#: Published sizes (V, n_ctx, H, A, F, L) and which omissions of λ the real model has
#: (attention biases, final LayerNorm).  GPT-3's vocabulary and context are GPT-2's BPE and 2048.
PARAMETER_PRESETS: dict[str, dict[str, Any]] = {
    "GPT-1": dict(V=40478, n=512, H=768, A=12, F=3072, L=12, biases=True, final_ln=False),
    "GPT-2 small": dict(V=50257, n=1024, H=768, A=12, F=3072, L=12, biases=True, final_ln=True),
    "GPT-2 medium": dict(V=50257, n=1024, H=1024, A=16, F=4096, L=24, biases=True,
                         final_ln=True),
    "GPT-2 large": dict(V=50257, n=1024, H=1280, A=20, F=5120, L=36, biases=True, final_ln=True),
    "GPT-2 XL": dict(V=50257, n=1024, H=1600, A=25, F=6400, L=48, biases=True, final_ln=True),
    "GPT-3 175B": dict(V=50257, n=2048, H=12288, A=96, F=49152, L=96, biases=True,
                       final_ln=True),
    "BERT-base": dict(V=30522, n=512, H=768, A=12, F=3072, L=12, biases=True, final_ln=False),
}


def parameter_count_widget(preset: str = "GPT-1") -> FormulaWidget:
    """Chapter 16: the parameter count λ and its breakdown from sliders, with presets.

    Controls: ``preset`` (a key of :data:`PARAMETER_PRESETS` or ``"custom"``), sliders ``V, n, H,
    A, F, L`` (``D = H // A``), checkboxes ``biases`` and ``final_ln`` (the pieces λ omits).
    Choosing a preset sets the sliders and checkboxes.  ``result``: ``lambda`` (the source's
    formula), ``breakdown`` (embeddings / attention / FFN / LayerNorm, checkboxes included),
    ``total`` (their sum), ``D``.
    """
    from .models import parameter_breakdown

    if preset != "custom" and preset not in PARAMETER_PRESETS:
        raise ValueError(f"preset: expected one of {sorted(PARAMETER_PRESETS)} or 'custom', "
                         f"got {preset!r}")
    start = PARAMETER_PRESETS.get(preset, PARAMETER_PRESETS["GPT-1"])
    limits = dict(V=(1, 60000), n=(1, 4096), H=(1, 16384), A=(1, 128), F=(1, 65536), L=(1, 128))

    def compute(preset: str, V: int, n: int, H: int, A: int, F: int, L: int, biases: bool,
                final_ln: bool) -> dict:
        D = H // A
        if D < 1:
            return dict(error=f"H = {H} is smaller than A = {A}: no head width D = H // A ≥ 1")
        lam = sum(parameter_breakdown(V, n, H, F, D, A, L).values())
        parts = parameter_breakdown(V, n, H, F, D, A, L, attention_biases=biases,
                                    final_layer_norm=final_ln)
        return {"lambda": lam, "breakdown": parts, "total": sum(parts.values()), "D": D}

    def draw(r: dict, v: dict) -> None:
        if "error" in r:
            print(r["error"])
            return
        names = list(r["breakdown"])
        vals = [r["breakdown"][k] for k in names]
        fig, ax = plt.subplots(figsize=(6, 3.0))
        ax.barh(names, vals, color=["C0", "C1", "C2", "C3"])
        for y, val in enumerate(vals):
            ax.text(val, y, f" {val:,} ({val / r['total']:.1%})", va="center", fontsize=8)
        ax.set_xlim(0, max(vals) * 1.6)
        ax.xaxis.set_major_formatter(lambda value, _: f"{value / 1e6:g}M")
        ax.set_xlabel("parameters (millions)")
        ax.set_title(f"{v['preset']}: λ = {r['lambda']:,}   with extras = {r['total']:,}  "
                     f"(D = {r['D']})", fontsize=9)
        fig.tight_layout()

    sliders = {k: W.IntSlider(value=start[k], min=lo, max=hi, description=k,
                              continuous_update=False, style={"description_width": "30px"})
               for k, (lo, hi) in limits.items()}
    controls: dict[str, W.Widget] = {
        "preset": W.Dropdown(options=list(PARAMETER_PRESETS) + ["custom"], value=preset,
                             description="preset"),
        **sliders,
        "biases": W.Checkbox(value=start["biases"], description="attention biases"),
        "final_ln": W.Checkbox(value=start["final_ln"], description="final LayerNorm"),
    }

    applying = [False]

    def apply_preset(change: dict) -> None:
        values = PARAMETER_PRESETS.get(change["new"])
        if values is None:
            return
        # set the eight controls without redrawing eight times, then draw once
        applying[0], draw_fn, widget._draw = True, widget._draw, None
        try:
            for k, val in values.items():
                controls[k].value = val
        finally:
            applying[0], widget._draw = False, draw_fn
        widget._update()

    def to_custom(change: dict) -> None:
        # a hand-moved slider no longer shows the preset: say so in the dropdown
        values = PARAMETER_PRESETS.get(controls["preset"].value)
        if applying[0] or values is None:
            return
        if any(controls[k].value != val for k, val in values.items()):
            controls["preset"].value = "custom"

    box = W.VBox([controls["preset"], W.HBox([sliders["V"], sliders["n"]]),
                  W.HBox([sliders["H"], sliders["A"]]), W.HBox([sliders["F"], sliders["L"]]),
                  W.HBox([controls["biases"], controls["final_ln"]])])
    widget = FormulaWidget(controls, compute, draw, title="Parameter count λ",
                           layout_controls=box)
    controls["preset"].observe(apply_preset, names="value")
    for k in list(limits) + ["biases", "final_ln"]:
        controls[k].observe(to_custom, names="value")
    return widget


__all__ += ["PARAMETER_PRESETS", "parameter_count_widget"]

# == chapter 17 ================================================================================


def xlnet_order_widget(order: str = "3 1 4 2") -> FormulaWidget:
    """Chapter 17: one XLNet factorisation order of a 4-token sequence, under two models.

    The dropdown lists the 24 orders (1-based, as in the math).  ``result``: ``order`` (0-based
    positions), ``visible`` (4, 4) booleans (row j: positions whose tokens the prediction of
    x_j sees), ``table`` (log-likelihood under an exact joint table: the same for every order)
    and ``tiny`` (under an untrained tiny attention model: it depends on the order).
    """
    from itertools import permutations

    import numpy as np

    from .basics import JointTableModel, TinyAttentionModel, xlnet_log_likelihood

    ids = np.array([0, 2, 1, 2])
    table = JointTableModel.random(V=3, n=4, seed=0, concentration=1.0)
    tiny = TinyAttentionModel(V=3, n=4, H=8, seed=0)
    options = [" ".join(str(k + 1) for k in z) for z in permutations(range(4))]

    def compute(order: str) -> dict:
        z = [int(k) - 1 for k in order.split()]
        rank = {pos: t for t, pos in enumerate(z)}
        visible = np.array([[rank[k] < rank[j] for k in range(4)] for j in range(4)])
        return dict(order=z, visible=visible, table=xlnet_log_likelihood(table, ids, z),
                    tiny=xlnet_log_likelihood(tiny, ids, z))

    def draw(r: dict, v: dict) -> None:
        fig, ax = plt.subplots(figsize=(4.2, 3.5))
        ax.imshow(r["visible"], cmap="Blues", vmin=0, vmax=1.3)
        ax.set(xticks=range(4), yticks=range(4), xticklabels=[f"x{k + 1}" for k in range(4)],
               yticklabels=[f"predict x{j + 1}" for j in range(4)],
               title=f"order {v['order']}\nlog P: table {r['table']:.3f}, tiny {r['tiny']:.3f}")
        ax.tick_params(labelsize=8)
        ax.title.set_fontsize(9)
        fig.tight_layout()

    controls = {"order": W.Dropdown(options=options, value=order, description="order z")}
    return FormulaWidget(controls, compute, draw, title="XLNet: who sees whom")


__all__ += ["xlnet_order_widget"]

# == chapter 18 ================================================================================

def sampling_widget(model: Any, tokenizer: Any, prompt: str = "ROMEO:\n",
                    temperature: float = 0.8, top_k: int = 0, length: int = 200,
                    seed: int = 0, bars: int = 15) -> FormulaWidget:
    """Sample from a trained GPT (chapter 18): prompt, temperature ``T`` and top-k.

    ``result``: ``probs`` — the next-character distribution after the prompt,
    ``softmax(z / T)`` restricted to the ``top_k`` largest logits (``top_k = 0``: all), a
    ``(V,)`` tensor; ``text`` — ``length`` sampled characters (seeded: the same controls give the
    same text); ``entropy`` — of ``probs`` in nats; ``error`` — a message instead of raising when
    the prompt holds a character outside the vocabulary.
    """
    import torch

    from .train import next_token_probs, sample

    V = tokenizer.vocab_size

    def compute(prompt: str, temperature: float, top_k: int, length: int, seed: int) -> dict:
        k = None if top_k == 0 else int(top_k)
        try:
            p = next_token_probs(model, tokenizer, prompt, temperature, k)
            text = sample(model, tokenizer, prompt, int(length), temperature=temperature,
                          top_k=k, seed=int(seed))
        except (KeyError, ValueError) as e:
            return {"error": str(e).strip("'\""), "probs": None, "text": "", "entropy": None}
        nz = p[p > 0]
        return {"error": None, "probs": p, "text": text,
                "entropy": float(-(nz * nz.log()).sum())}

    def draw(r: dict, v: dict) -> None:
        if r["error"]:
            print(r["error"])
            return
        p = r["probs"]
        top = torch.topk(p, min(bars, V))
        labels = [repr(tokenizer.itos[i])[1:-1] or " " for i in top.indices.tolist()]
        fig, ax = plt.subplots(figsize=(6, 2.6))
        ax.bar(range(len(labels)), top.values.tolist(), color="tab:blue")
        ax.set_xticks(range(len(labels)), labels)
        ax.set_ylim(0, 1)
        ax.set_ylabel("probability")
        ax.set_title(f"next character after the prompt (T = {v['temperature']:.2f}, "
                     f"top-k = {v['top_k'] or 'all'}), entropy {r['entropy']:.2f} nats",
                     fontsize=9)
        fig.tight_layout()
        plt.show()
        print(v["prompt"] + r["text"])

    style = {"description_width": "initial"}
    controls = {
        "prompt": W.Text(value=prompt, description="prompt", continuous_update=False),
        "temperature": W.FloatSlider(value=temperature, min=0.0, max=2.0, step=0.05,
                                     description="temperature T", continuous_update=False,
                                     style=style),
        "top_k": W.IntSlider(value=top_k, min=0, max=V, description="top-k (0 = all)",
                             continuous_update=False, style=style),
        "length": W.IntSlider(value=length, min=0, max=600, step=50, description="characters",
                              continuous_update=False),
        "seed": W.IntText(value=seed, description="seed"),
    }
    return FormulaWidget(controls, compute, draw, title="Sampling from the trained GPT")


__all__ += ["sampling_widget"]
