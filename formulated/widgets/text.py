"""The widgets of chapters 5–7: shapes through a block, byte-pair encoding, positions.

Chapter 5: every tensor of one GPT-2 block for chosen sizes.  Chapter 6: byte-pair encoding one
merge at a time.  Chapter 7: the sinusoidal encoding and its dot products.  ``result`` keeps plain
shapes, token lists and arrays, which the tests recompute independently.
"""

from __future__ import annotations

import html

import ipywidgets as W
import numpy as np

from ..formulas import positional_encoding_sinusoidal
from ..notation.shapes import random_block_params, trace_gpt_block
from ..plotting import CYCLE
from ..tokenizers import BPETokenizer, initial_symbols, learn_bpe
from .base import FormulaWidget, panel, pre

__all__ = ["shapes_widget", "BPE_CORPORA", "bpe_widget", "sinusoidal_encoding_widget"]


def shapes_widget(
    B: int = 2, n: int = 5, H: int = 12, A: int = 3, V: int = 11, seed: int = 0
) -> FormulaWidget:
    """Sliders for ``B, n, H, A, V``; shows the shape of every tensor of one GPT-2 block.

    A random one-block model (``F = 4H``, ``D = H / A``) runs a random batch of ids through
    :func:`formulated.notation.shapes.trace_gpt_block`.  ``result["shapes"]`` maps each tensor's name to
    its shape, ``result["letters"]`` to its shape in letters, ``result["sizes"]`` to its number
    of entries; ``result["error"]`` explains a choice with ``H`` not divisible by ``A``.
    """
    controls = {
        "B": W.IntSlider(value=B, min=1, max=4, description="B (batch)"),
        "n": W.IntSlider(value=n, min=1, max=8, description="n (length)"),
        "H": W.IntSlider(value=H, min=4, max=32, step=4, description="H (width)"),
        "A": W.IntSlider(value=A, min=1, max=8, description="A (heads)"),
        "V": W.IntSlider(value=V, min=2, max=50, description="V (vocab)"),
    }

    def compute(B: int, n: int, H: int, A: int, V: int) -> dict:
        if H % A:
            return {
                "error": f"A = {A} heads do not divide H = {H}: every head needs "
                f"D = H / A columns (GPT-2 splits H into A equal blocks).",
                "shapes": {},
                "letters": {},
                "sizes": {},
            }
        params = random_block_params(V=V, n_max=8, H=H, A=A, seed=seed)
        ids = np.random.default_rng(seed).integers(0, V, size=(B, n))
        steps = trace_gpt_block(ids, params)
        return {
            "error": "",
            "dims": {"B": B, "n": n, "H": H, "A": A, "D": H // A, "F": 4 * H, "V": V},
            "shapes": {s.name: s.shape for s in steps},
            "letters": {s.name: " × ".join(s.letters) for s in steps},
            "sizes": {s.name: int(s.value.size) for s in steps},
        }

    def quadratic(res: dict, name: str) -> bool:
        return "n × n" in res["letters"][name]

    def draw(res: dict, vals: dict) -> str:
        names = list(res["shapes"])
        fig, ax = panel(5.6)
        colors = [CYCLE[1] if quadratic(res, k) else CYCLE[0] for k in names]
        ax.barh(range(len(names)), [res["sizes"][k] for k in names], color=colors)
        ax.set_yticks(range(len(names)), names, fontsize=8)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.set_xlabel("entries (log scale)\norange: grows with n²", fontsize=9)
        d = res["dims"]
        ax.set_title(
            f"B={d['B']} n={d['n']} H={d['H']} A={d['A']} D={d['D']} F={d['F']} "
            f"V={d['V']}",
            fontsize=9,
        )
        fig.tight_layout()
        cell = "<td style='padding:0 0.6em 0 0'>"  # the widget's 28 px lines are too tall here
        # The n² rows in bold and marked, in the page's own text color: a colored text
        # cannot reach 4.5:1 on both the light and the dark page.
        rows = "".join(
            f"<tr{' style=font-weight:bold' if quadratic(res, k) else ''}>{cell}"
            f"{html.escape(k)}{' ▲' if quadratic(res, k) else ''}</td>"
            f"{cell}{res['letters'][k]}</td>{cell}{res['shapes'][k]}</td>"
            f"<td style='text-align:right'>{res['sizes'][k]:,}</td></tr>"
            for k in names
        )
        return (
            "<table style='font-size:0.85em; line-height:1.3; border-collapse:collapse; "
            "color:inherit'>"
            "<tr><th>tensor</th><th>shape</th><th>here</th><th>entries</th></tr>"
            f"{rows}</table><p style='font-size:0.85em; margin:0.2em 0'>"
            "▲ bold: grows with n²</p>"
        )

    return FormulaWidget(controls, compute, draw, title="Shapes through one GPT block")


#: The two corpora of the BPE widget: word -> frequency.
BPE_CORPORA = {
    "lecture": {
        "low": 1,
        "lower": 1,
        "newest": 1,
        "widest": 1,
    },  # source 003: each word once
    "classic": {
        "low": 5,
        "lower": 2,
        "newest": 6,
        "widest": 3,
    },  # Sennrich et al. (2016)
}


def _bpe_state(wc: dict[str, int], k: int) -> dict:
    """BPE on the corpus ``wc`` after its first ``k`` merges: merges, segmentation, V, tokens."""
    learned = learn_bpe(wc, 100)  # every merge until each word is one token
    k = min(k, len(learned))
    tok = BPETokenizer(learned[:k], initial_symbols(wc))
    seg = {w: tok.tokenize_word(w) for w in wc}
    return {
        "merges": learned[:k],
        "all_merges": learned,
        "segmentation": seg,
        "V": tok.vocab_size,
        "tokens": sum(len(seg[w]) * c for w, c in wc.items()),
    }


def bpe_widget(corpus: str = "lecture", merges: int = 3) -> FormulaWidget:
    """Step through byte-pair encoding on the lecture notes' four words, one merge at a time.

    Controls: ``corpus`` (``"lecture"``: each word once, as in source 003; ``"classic"``: the
    frequencies 5, 2, 6, 3 of Sennrich et al.'s example) and ``merges`` (how many merges to
    apply).  ``result["merges"]`` lists the merges applied (:class:`~formulated.tokenizers.Merge`
    with counts), ``result["segmentation"]`` maps each word to its tokens, ``result["V"]`` is the
    vocabulary size and ``result["tokens"]`` the corpus length in tokens (frequency-weighted).
    """
    controls = {
        "corpus": W.Dropdown(
            options=[
                ("003: each word once", "lecture"),
                ("Sennrich et al.: 5, 2, 6, 3", "classic"),
            ],
            value=corpus,
            description="corpus",
        ),
        "merges": W.IntSlider(value=merges, min=0, max=13, description="merges"),
    }

    def compute(corpus: str, merges: int) -> dict:
        wc = BPE_CORPORA[corpus]
        res = _bpe_state(wc, merges)
        res["curve"] = [
            (r["V"], r["tokens"])
            for r in (_bpe_state(wc, j) for j in range(len(res["all_merges"]) + 1))
        ]
        return res

    def draw(res: dict, vals: dict) -> str:
        wc = BPE_CORPORA[vals["corpus"]]
        fig, ax = panel()
        Vs, Ts = zip(*res["curve"])
        ax.plot(Vs, Ts, "o-", color="tab:blue", ms=3)
        ax.plot([res["V"]], [res["tokens"]], "o", color="crimson", ms=8)
        ax.set_xlabel("vocabulary size V")
        ax.set_ylabel("corpus length in tokens")
        ax.set_title(
            f"after {len(res['merges'])} merges: V = {res['V']}, "
            f"{res['tokens']} tokens",
            fontsize=10,
        )
        fig.tight_layout()
        lines = [
            f"{i + 1:2d}. {m.left} + {m.right} → {m.token}   (count {m.count})"
            for i, m in enumerate(res["merges"])
        ] or ["(no merge yet)"]
        lines += [""] + [
            f"{w} ×{wc[w]}:  {' | '.join(t)}" for w, t in res["segmentation"].items()
        ]
        return pre("\n".join(lines))

    return FormulaWidget(
        controls, compute, draw, title="Byte-pair encoding, merge by merge"
    )


def sinusoidal_encoding_widget(
    n: int = 32, H: int = 32, position: int = 8
) -> FormulaWidget:
    """Chapter 7: heat maps of the sinusoidal encoding ``PE (n, H)`` and of ``PE PE^T (n, n)``.

    Controls: ``n`` (length), ``H`` (width, even), ``position`` (the 0-based position ``p``
    whose dot products with every position are plotted; clipped to ``n - 1``).
    ``result``: ``pe`` ``(n, H)``, ``similarity`` ``= PE PE^T`` ``(n, n)``, ``position`` (the
    clipped ``p``) and ``row`` ``= similarity[p]`` ``(n,)``.
    """
    controls = {
        "n": W.IntSlider(value=n, min=2, max=128, description="length n"),
        "H": W.IntSlider(value=H, min=2, max=128, step=2, description="width H"),
        "position": W.IntSlider(
            value=position, min=0, max=127, description="position p"
        ),
    }

    def compute(n: int, H: int, position: int) -> dict:
        pe = positional_encoding_sinusoidal(n, H)
        similarity = pe @ pe.T
        p = min(
            position, n - 1
        )  # the slider's range is fixed; a short sequence clips it
        return {"pe": pe, "similarity": similarity, "position": p, "row": similarity[p]}

    def draw(r: dict, v: dict) -> None:
        fig, ax = panel()
        im = ax.imshow(r["pe"], aspect="auto", cmap="RdBu", vmin=-1, vmax=1)
        ax.set(title=f"PE (n={v['n']}, H={v['H']})", xlabel="column", ylabel="position")
        fig.colorbar(im, ax=ax)
        fig.tight_layout()
        fig, ax = panel()
        im = ax.imshow(r["similarity"], cmap="viridis")
        ax.axhline(r["position"], color="white", lw=0.8)
        ax.set(title="PE_p · PE_q", xlabel="position q", ylabel="position p")
        fig.colorbar(im, ax=ax)
        fig.tight_layout()
        fig, ax = panel()
        ax.plot(r["row"], marker=".")
        ax.axvline(r["position"], color="gray", lw=0.8)
        ax.set(
            title=f"PE_{r['position']} · PE_q",
            xlabel="position q",
            ylim=(None, v["H"] / 2 + 1),
        )
        fig.tight_layout()

    return FormulaWidget(
        controls,
        compute,
        draw,
        title="Sinusoidal positional encoding and its dot products",
    )
