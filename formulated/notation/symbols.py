"""The book's table of symbols (chapter 5, appendix A), one row per symbol.

:data:`NOTATION` holds every symbol of the book with its code name, shape and meaning, and the
letter each source uses for it.  Chapter 5's concordance and appendix A are both rendered from
it (:func:`notation_table`), so they cannot disagree.  The face :mod:`formulated.notation`
exports it next to the shape tracer and source 002's table.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..models import sizes as published_sizes

__all__ = ["SOURCE_KEYS", "Symbol", "NOTATION", "notation_table"]

SOURCE_KEYS = ("000", "001", "002", "003", "004")
_NONE = "—"


@dataclass(frozen=True)
class Symbol:
    """One row of the notation table.

    book:    the symbol as the book writes it (LaTeX, without ``$``).
    code:    its name in :mod:`formulated` (``""`` if none).
    shape:   its shape in the book's letters (``"n × H"``; ``""`` for a scalar or a set).
    meaning: what it is, in a few words.
    group:   ``"dimension"``, ``"index"``, ``"data"``, ``"parameter"`` or ``"activation"``.
    letters: how each source writes it (LaTeX or a word in quotes); a missing source does not use it.
    gpt1, gpt2: for dimensions, the value in GPT-1 and in GPT-2 small.
    """

    book: str
    code: str
    shape: str
    meaning: str
    group: str
    letters: dict[str, str] = field(default_factory=dict)
    gpt1: int | None = None
    gpt2: int | None = None


def _s(book, code, shape, meaning, group, gpt1=None, gpt2=None, **letters) -> Symbol:
    return Symbol(
        book,
        code,
        shape,
        meaning,
        group,
        {k.removeprefix("s"): v for k, v in letters.items()},
        gpt1,
        gpt2,
    )


def _values(field_name: str) -> tuple[int, int]:
    """GPT-1's and GPT-2 small's value of a dimension, from the table of published sizes."""
    return tuple(
        getattr(published_sizes.size(m), field_name) for m in ("GPT-1", "GPT-2 small")
    )


# The letters of the sources, read from them: 000/001 "The Formulated GPT-2" (first version and
# revision), 002 "Notations", 003 the lecture notes, 004 the slides.  A word in quotes is a name
# the source uses where it has no letter (a table heading, a figure label).
NOTATION: list[Symbol] = [
    # -- dimensions -------------------------------------------------------------------------
    _s(
        "n",
        "n",
        "",
        "sequence length: tokens in the context",
        "dimension",
        *_values("n_ctx"),
        s000=r"$n$ (maximum $n_\text{ctx}$)",
        s001=r"$n$ (maximum $n_\text{ctx}$)",
        s002="$T$",
        s003='"Max Seq"',
    ),
    _s(
        "V",
        "V",
        "",
        "vocabulary size",
        "dimension",
        *_values("V"),
        s000="$V$",
        s001="$V$",
        s002=r"$V = \lvert\mathcal{V}\rvert$",
        s003='"Unique Tokens"',
    ),
    _s(
        "H",
        "H",
        "",
        "model width: size of the residual stream",
        "dimension",
        *_values("H"),
        s000="$H$",
        s001="$H$",
        s002=r"$D$ ($d_\text{model}$)",
        s003="$d$",
        s004=r"$d_\text{model}$",
    ),
    _s(
        "A",
        "A",
        "",
        "number of attention heads",
        "dimension",
        *_values("A"),
        s000="$A$",
        s001="$A$",
        s002="$H$",
        s003='"Attention Heads"',
    ),
    _s(
        "D",
        "D",
        "",
        "width of one head's queries, keys and values ($H/A$)",
        "dimension",
        *_values("D"),
        s000="$D$",
        s001="$D$",
        s002=r"$d_k = d_q = d_v = D/H$ (also $D//H$)",
        s004="(3 in the worked example)",
    ),
    _s(
        "F",
        "F",
        "",
        "hidden width of the feed-forward network ($4H$)",
        "dimension",
        *_values("F"),
        s000="$F$",
        s001="$F$",
        s002=r"$d_\text{ff}$",
        s003="$4d$",
    ),
    _s(
        "L",
        "L",
        "",
        "number of layers (transformer blocks)",
        "dimension",
        *_values("L"),
        s000="$L$",
        s001="$L$",
        s002="$L$",
        s003="$K + 1$",
    ),
    _s(
        "B",
        "B",
        "",
        "batch size: sequences processed together",
        "dimension",
        s002=r"$\mathcal{B}$ (also $B$)",
    ),
    # -- indices ------------------------------------------------------------------------------
    _s(
        "i",
        "i - 1",
        "",
        "position of a token (row of a sequence matrix), $1 \\le i \\le n$",
        "index",
        s000="$i$",
        s001="$i$",
        s002="$t$ ($0 \\le t < T$ and $1 \\le t \\le T$)",
        s003="$i$",
        s004="$pos$ (1-based in the example: dog → Position 2)",
    ),
    _s(
        "j",
        "j - 1",
        "",
        "vocabulary id or column, $1 \\le j \\le V$",
        "index",
        s000="$j$",
        s001="$j$",
        s002="$j$, $v$",
    ),
    _s(
        r"i \text{ in } \operatorname{head}_i",
        "W_q[i - 1]",
        "",
        "attention head, $1 \\le i \\le A$",
        "index",
        s000="$i$ (and $k$ in Concat)",
        s001="$i$ (and $k$ in Concat)",
        s002="$h$",
    ),
    _s(
        "l",
        "",
        "",
        "layer, $1 \\le l \\le L$",
        "index",
        s000=r"$l$, subscript: $\bm{X}_l$",
        s001=r"$l$, superscript: $\bm{X}^{(l)}$",
        s002=r"$\ell$, superscript: $(\ell)$",
        s003="$k = l - 1$, superscript: $(k)$",
    ),
    _s("b", "b - 1", "", "sequence of a batch, $1 \\le b \\le B$", "index", s002="$b$"),
    # -- data ---------------------------------------------------------------------------------
    _s(
        r"\bm{x} = (x_1, \dots, x_n)",
        "ids",
        "n",
        "token ids, $x_i \\in \\{1, \\dots, V\\}$ (code: $0 \\dots V-1$)",
        "data",
        s000=r"$\bm{x} \in \{1..V\}^n$",
        s001=r"$\bm{x} \in \{1..V\}^n$",
        s002=r"$\mathbf{x} \in \mathbb{Z}^{1 \times T}$",
        s003='"Tokens"',
    ),
    _s(
        "",
        "ids",
        "B × n",
        "a batch of token ids, one sequence per row",
        "data",
        s002=r"$\mathbf{x}^{\mathcal{B}}$",
    ),
    _s(
        r"\mathcal{V}",
        "tok.itos",
        "",
        "the vocabulary: the list of tokens",
        "data",
        s002=r"$\mathcal{V} = \{w_1, \dots, w_V\}$",
        s003='"Unique Tokens"',
    ),
    _s(
        r"\operatorname{stoi}",
        "tok.stoi",
        "",
        "token → id",
        "data",
        s002=r"$f_\text{stoi}$ (to $0..V-1$); $f$ in Step 2 (to $1..V$)",
    ),
    _s(
        r"\operatorname{itos}",
        "tok.itos",
        "",
        "id → token",
        "data",
        s002=r"$f_\text{itos}$",
    ),
    _s(
        r"\operatorname{OneHot}(\bm{x})",
        "one_hot(ids, V)",
        "n × V",
        "one-hot rows of the ids",
        "data",
        s000=r"$\text{OneHot}(\bm{x})$",
        s001=r"$\text{OneHot}(\bm{x})$",
        s002=r"$\mathbf{X}^\text{ohe}$",
        s004='"One Hot Encoding"',
    ),
    # -- parameters ---------------------------------------------------------------------------
    _s(
        r"\bm{W}_e",
        "W_e",
        "V × H",
        "token embeddings (row $j$: token $j$); also the output "
        "layer $\\bm{W}_e^\\top$",
        "parameter",
        s000=r"$\bm{W}_e$",
        s001=r"$\bm{W}_e$",
        s002=r"$\mathbf{W}_e$",
        s003=r"rows $\mathbf{x}_\text{TOKEN}$",
        s004='"Input Embedding"',
    ),
    _s(
        r"\bm{W}_p",
        "W_p",
        "n × H",
        "learned position embeddings",
        "parameter",
        s000=r"$\bm{W}_p$",
        s001=r"$\bm{W}_p$",
        s002=r"$\mathbf{W}_p$, $\operatorname{PE}(\cdot)$",
        s003=r"rows $\mathbf{x}_\text{POS}$",
        s004=r"$PE_{(pos, 2i)}$ (sinusoidal)",
    ),
    _s(
        r"\bm{W}^Q_i, \bm{W}^K_i, \bm{W}^V_i",
        "W_q[i-1], W_k[i-1], W_v[i-1]",
        "H × D",
        "query, key, value projections of head $i$ (code: all heads, $A \\times H \\times D$)",
        "parameter",
        s000=r"$\bm{W}^Q_i, \bm{W}^K_i, \bm{W}^V_i$",
        s001=r"$\bm{W}^Q_i, \bm{W}^K_i, \bm{W}^V_i$",
        s002=r"$\mathbf{W}^{Q,(\ell)}_h$ ($D \times d_q$); all heads: $\mathbf{W}^{Q,(\ell)}$ ($D \times D$)",
        s004=r"$Q_w, K_w, V_w$ ($4 \times 3$)",
    ),
    _s(
        r"\bm{W}^O",
        "W_o",
        "AD × H",
        "output projection of multi-head attention",
        "parameter",
        s000=r"$\bm{W}^O$",
        s001=r"$\bm{W}^O$",
        s002=r"$\mathbf{W}^{O,(\ell)}$ ($D \times D$)",
    ),
    _s(
        r"\bm{W}_1, \bm{b}_1",
        "W1, b1",
        "H × F, F",
        "first layer of the feed-forward network",
        "parameter",
        s000=r"$\bm{W}_1, \bm{b}_1$",
        s001=r"$\bm{W}_1, \bm{b}_1$",
        s002=r"$\mathbf{W}^{FF,(\ell)}_1, \mathbf{b}^{FF,(\ell)}_1$",
        s003=r"$\mathbf{W}^{(k)}_1, \mathbf{b}^{(k)}_1$",
    ),
    _s(
        r"\bm{W}_2, \bm{b}_2",
        "W2, b2",
        "F × H, H",
        "second layer of the feed-forward network",
        "parameter",
        s000=r"$\bm{W}_2, \bm{b}_2$",
        s001=r"$\bm{W}_2, \bm{b}_2$",
        s002=r"$\mathbf{W}^{FF,(\ell)}_2, \mathbf{b}^{FF,(\ell)}_2$",
        s003=r"$\mathbf{W}^{(k)}_2, \mathbf{b}^{(k)}_2$",
    ),
    _s(
        r"\bm{\gamma}, \bm{\beta}",
        "gamma, beta",
        "H",
        "LayerNorm scale and shift",
        "parameter",
        s000=r"$\bm{\gamma}, \bm{\beta}$ (second: $\bm{\gamma}', \bm{\beta}'$)",
        s001=r"$\bm{\gamma}, \bm{\beta}$ (second: $\bm{\gamma}', \bm{\beta}'$)",
        s002=r"$\gamma, \beta$",
    ),
    _s(
        r"\epsilon",
        "eps",
        "",
        "LayerNorm's small constant",
        "parameter",
        s000=r"$\epsilon$",
        s001=r"$\epsilon$",
        s002=r"$\epsilon$",
    ),
    _s(
        r"\theta",
        "",
        "",
        "all parameters",
        "parameter",
        s000=r"$\theta$",
        s001=r"$\bm{\theta}$",
        s002=r"$\boldsymbol{\Theta}$",
        s004=r"$\theta$",
    ),
    _s(
        r"\lambda",
        "",
        "",
        "number of parameters",
        "parameter",
        s000=r"$\lambda$",
        s001=r"$\lambda$",
    ),
    # -- activations --------------------------------------------------------------------------
    _s(
        r"\bm{X}^{(0)}",
        "X",
        "n × H",
        "input of the first block: token + position embeddings",
        "activation",
        s000=r"$\bm{X}_0$",
        s001=r"$\bm{X}^{(0)}$",
        s002=r"$\tilde{\mathbf{X}}$",
        s003=r"$\mathcal{X}^{(0)}$",
    ),
    _s(
        r"\bm{X}'^{(l)}",
        "",
        "n × H",
        "inside block $l$: after the attention sub-layer",
        "activation",
        s000=r"$\bm{X}_l'$",
        s001=r"$\bm{X}'^{(l)}$",
        s002=r"$\mathbf{Z}^{(\ell)}_3$",
        s003=r"$\mathcal{H}^{(k)}$",
    ),
    _s(
        r"\bm{X}^{(l)}",
        "",
        "n × H",
        "output of block $l$",
        "activation",
        s000=r"$\bm{X}_l$",
        s001=r"$\bm{X}^{(l)}$",
        s002=r"$\mathbf{Z}^{(\ell)}_\text{out}$",
        s003=r"$\mathcal{Y}^{(k)} = \mathcal{X}^{(k+1)}$",
    ),
    _s(
        r"\bm{Q}, \bm{K}, \bm{V}",
        "Q, K, V",
        "n × D",
        "one head's queries, keys, values (batched: $B \\times A \\times n \\times D$)",
        "activation",
        s000=r"$\bm{Q}, \bm{K}, \bm{V}$",
        s001=r"$\bm{Q}, \bm{K}, \bm{V}$",
        s002=r"$\mathbf{Q}^{(\ell)}_h$; batched $\mathcal{B} \times H \times T \times D//H$",
        s004="$Q, K, V$",
    ),
    _s(
        r"\bm{Q}\bm{K}^\top / \sqrt{D}",
        "scores",
        "n × n",
        "scaled attention scores",
        "activation",
        s002=r"$\mathbf{A}^{(\ell)}_s$",
        s004='"attention scores"',
    ),
    _s(
        r"\operatorname{Mask}",
        "mask",
        "n × n",
        "attention mask (additive: $0$ or $-\\infty$)",
        "activation",
        s000=r"$\text{Mask}_\text{AR}$, $\text{Mask}_\text{BD}$",
        s001=r"$\text{Mask}^\text{AR}$, $\text{Mask}^\text{BD}$",
        s002=r"$\mathbf{M}$",
        s003=r"$\mathcal{M}$",
        s004='"Look-Ahead Mask"',
    ),
    _s(
        r"\operatorname{Softmax}(\cdot)",
        "weights",
        "n × n",
        "attention weights (rows sum to 1)",
        "activation",
        s002=r"$\mathbf{A}^{(\ell)}_w$",
    ),
    _s(
        r"\operatorname{head}_i",
        "",
        "n × D",
        "output of head $i$",
        "activation",
        s000=r"$\text{head}_i$",
        s001=r"$\text{head}_i$",
        s002=r"$\operatorname{head}_{\ell,h}$; all heads $\mathbf{C}^{(\ell)}$",
    ),
    _s(
        r"\bm{X}^{(L)} \bm{W}_e^\top",
        "logits",
        "n × V",
        "scores over the vocabulary",
        "activation",
        s002=r"$\mathbf{Z}$",
    ),
    _s(
        r"\bm{Y}",
        "probs",
        "n × V",
        "row $i$: the distribution of the next token $x_{i+1}$",
        "activation",
        s000=r"$\bm{Y}$",
        s001=r"$\text{Softmax}(\bm{X}^{(L)} \bm{W}_e^\top)$",
        s002=r"$\mathbf{P}$",
    ),
]

_GROUP_TITLES = {
    "dimension": "Dimensions",
    "index": "Indices",
    "data": "Data",
    "parameter": "Parameters",
    "activation": "Activations",
}


def notation_table(
    groups: tuple[str, ...] | None = None, *, values: bool = False
) -> str:
    """The notation table as MyST Markdown: one row per symbol of :data:`NOTATION`.

    ``groups`` selects rows (e.g. ``("dimension",)`` for chapter 5's concordance); ``values``
    adds the GPT-1 and GPT-2-small values of the dimensions.
    """
    unknown = set(groups or ()) - set(_GROUP_TITLES)
    if unknown:
        raise ValueError(
            f"groups: expected some of {tuple(_GROUP_TITLES)}, got {sorted(unknown)}"
        )
    rows = [s for s in NOTATION if groups is None or s.group in groups]
    head = ["book", "code", "shape", "meaning"] + [f"`{k}`" for k in SOURCE_KEYS]
    if values:
        head += ["GPT-1", "GPT-2 small"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for s in rows:
        shape = s.shape.replace("×", r"\times")
        cells = [
            f"${s.book}$" if s.book else _NONE,
            f"`{s.code}`" if s.code else _NONE,
            f"${shape}$" if shape else _NONE,
            s.meaning,
        ]
        cells += [s.letters.get(k, _NONE) for k in SOURCE_KEYS]
        if values:
            cells += [f"{v:,}" if v is not None else _NONE for v in (s.gpt1, s.gpt2)]
        lines.append("| " + " | ".join(c.replace("|", r"\|") for c in cells) + " |")
    return "\n".join(lines)
