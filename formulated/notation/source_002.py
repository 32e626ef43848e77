"""Source 002's "Table of Notations", row by row, with the book's symbol for each (appendix A).

002 uses other letters for five of the eight dimensions (six with ``𝓑`` for the batch size),
two of them the book's letters for something else: its ``T, D, H, D//H, d_ff, 𝓑`` are the
book's ``n, H, A, D, F, B``.  Each row records 002's
symbol and shape as 002 prints them and the book's symbol and shape; :func:`shape_mismatches`
translates 002's shapes letter by letter and evaluates both sides on small numbers, so a row
whose two shapes disagree is found (``tests/test_notation_002.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "Row002",
    "TABLE_002",
    "TRANSLATION",
    "SOURCE_NAMES",
    "shape_mismatches",
    "table_002",
]

#: 002's letters -> the book's letters (read left to right; ``D//H`` before ``D`` and ``H``).
TRANSLATION = (
    ("D//H", "D"),
    ("d_ff", "F"),
    ("𝓑", "B"),
    ("T", "n"),
    ("D", "H"),
    ("H", "A"),
)


@dataclass(frozen=True)
class Row002:
    """One row of 002's table: its name, symbol and shape, and the book's symbol and shape.

    Shapes are written with ``×`` between axes, in plain letters (``B × T × D//H``).
    """

    name: str
    symbol: str
    shape: str
    book: str
    book_shape: str
    note: str = ""


def _r(
    name: str, symbol: str, shape: str, book: str, book_shape: str, note: str = ""
) -> Row002:
    return Row002(name, symbol, shape, book, book_shape, note)


TABLE_002: list[Row002] = [
    _r(
        "Batched Input Tensor",
        r"$\tilde{\mathbf{X}}^{\mathcal{B}}$",
        "B × T × D",
        r"$\bm{X}^{(0)}$, batched",
        "B × n × H",
    ),
    _r(
        "Batched Embedding Matrix Sequence $b$",
        r"$\mathbf{X}^{(b)}$",
        "T × D",
        r"$\bm{X}^{(0)}$ of sequence $b$ (`X[b]`)",
        "n × H",
        "{ref}`erratum <erratum-002-embedding-letter-x>`: with positions it is "
        r"$\tilde{\mathbf{X}}^{(b)}$",
    ),
    _r(
        "Batched Embedding Vector for Token $t$ in Sequence $b$",
        r"$\mathbf{X}^{(b)}_t$",
        "1 × D",
        r"row $t$ of $\bm{X}^{(0)}$ (`X[b, t - 1]`)",
        "1 × H",
        "{ref}`erratum <erratum-002-embedding-letter-x>`: with positions it is "
        r"$\tilde{\mathbf{X}}^{(b)}_t$",
    ),
    _r(
        "One-Hot Encoded Input Matrix",
        r"$\mathbf{X}^{\text{ohe}}$",
        "𝓑 × T × V",
        r"$\operatorname{OneHot}(\bm{x})$",
        "B × n × V",
    ),
    _r("Token Embedding Matrix", r"$\mathbf{W}_e$", "V × D", r"$\bm{W}_e$", "V × H"),
    _r(
        "Token Embedded Input Matrix",
        r"$\mathbf{X}$",
        "𝓑 × T × D",
        r"$\operatorname{OneHot}(\bm{x})\bm{W}_e$",
        "B × n × H",
    ),
    _r(
        "Positional Encoding Matrix",
        r"$\operatorname{PE}(\cdot)$",
        "T × D",
        r"$\bm{W}_p$ (learned) or $\operatorname{PE}$ (sinusoidal), first $n$ rows",
        "n × H",
        "depends on the shape of its argument only",
    ),
    _r(
        "Output of Positional Encoding Layer",
        r"$\tilde{\mathbf{X}}$",
        "𝓑 × T × D",
        r"$\bm{X}^{(0)}$",
        "B × n × H",
    ),
    _r(
        "First Layer Normalized Input",
        r"$\mathbf{Z}^{(1)}_1$",
        "𝓑 × T × D",
        r"$\operatorname{LayerNorm}(\bm{X}^{(0)})$",
        "B × n × H",
    ),
    _r(
        "Query, Key, Value Matrices (Block ℓ)",
        r"$\mathbf{Q}^{(\ell)}, \mathbf{K}^{(\ell)}, \mathbf{V}^{(\ell)}$",
        "𝓑 × H × T × D//H",
        r"$\bm{Q}_i, \bm{K}_i, \bm{V}_i$ of the $A$ heads, stacked",
        "B × A × n × D",
    ),
    _r(
        "Attention Scores (Block ℓ)",
        r"$\mathbf{A}^{(\ell)}_s$",
        "𝓑 × H × T × T",
        r"$\bm{Q}_i\bm{K}_i^\top/\sqrt{D}$",
        "B × A × n × n",
    ),
    _r(
        "Attention Mask",
        r"$\mathbf{M}$",
        "T × T",
        r"$\mathrm{Mask}^\text{AR}$ (0 / $-\infty$)",
        "n × n",
        "broadcast over batch and heads",
    ),
    _r(
        "Masked Attention Scores (Block ℓ)",
        r"$\mathbf{A}^{M, (\ell)}_s$",
        "𝓑 × H × T × T",
        r"$\bm{Q}_i\bm{K}_i^\top/\sqrt{D} + \mathrm{Mask}$",
        "B × A × n × n",
    ),
    _r(
        "Attention Weights (Block ℓ)",
        r"$\mathbf{A}^{(\ell)}_w$",
        "𝓑 × H × T × T",
        r"$\operatorname{Softmax}(\ldots)$, the attention weights",
        "B × A × n × n",
    ),
    _r(
        "Context Matrix (Block ℓ)",
        r"$\mathbf{C}^{(\ell)}$",
        "𝓑 × H × T × D//H",
        r"$\text{head}_i$, stacked",
        "B × A × n × D",
    ),
    _r(
        "Concatenated Context Matrix (Block ℓ)",
        r"$\mathbf{C}^{(\ell)}_{\text{concat}}$",
        "𝓑 × T × D",
        r"$\operatorname{Concat}(\text{head}_1, \ldots, \text{head}_A)$",
        "B × n × A·D",
        "A·D = H",
    ),
    _r(
        "First Self-Attention Output (Block ℓ)",
        r"$\mathbf{Z}^{(\ell)}_2$",
        "𝓑 × T × D",
        r"$\operatorname{MultiHeadSA}(\ldots)$",
        "B × n × H",
    ),
    _r(
        "Output After First Residual Connection (Block ℓ)",
        r"$\mathbf{Z}^{(\ell)}_3$",
        "𝓑 × T × D",
        r"$\bm{X}'^{(l)}$",
        "B × n × H",
        "{ref}`erratum <erratum-002-table-z3-residual>`: the block's input is added",
    ),
    _r(
        "Normalized Input to FFN (Block ℓ)",
        r"$\mathbf{Z}^{(\ell)}_4$",
        "𝓑 × T × D",
        r"$\operatorname{LayerNorm}(\bm{X}'^{(l)})$",
        "B × n × H",
        "{ref}`erratum <erratum-ffn-input-z4>` in Step 10's table",
    ),
    _r(
        "Intermediate FFN Output (Block ℓ)",
        r"$\mathbf{Z}^{FF, (\ell)}_1$",
        "𝓑 × T × d_ff",
        r"$\operatorname{GELU}(\ldots\bm{W}_1 + \bm{b}_1)$",
        "B × n × F",
        "{ref}`erratum <erratum-ffn-table-z1>`: GELU once",
    ),
    _r(
        "Output of FFN (Block ℓ)",
        r"$\mathbf{Z}^{(\ell)}_5$",
        "𝓑 × T × D",
        r"$\operatorname{FFN}_\text{GELU}(\ldots)$",
        "B × n × H",
    ),
    _r(
        "Output of Decoder Block ℓ",
        r"$\mathbf{Z}^{(\ell)}_{\text{out}}$",
        "𝓑 × T × D",
        r"$\bm{X}^{(l)}$",
        "B × n × H",
    ),
    _r(
        "Pre-Projection Layer Normalized Output",
        r"$\mathbf{Z}_{\text{pre-head}}$",
        "𝓑 × T × D",
        r"$\operatorname{LayerNorm}(\bm{X}^{(L)})$ (GPT-2's final LayerNorm)",
        "B × n × H",
        "called $\\mathbf{Z}_\\text{pre-proj}$ in the row of $\\mathbf{W}_s$",
    ),
    _r(
        "Logits (Vocabulary Projection)",
        r"$\mathbf{Z}$",
        "𝓑 × T × V",
        r"$\operatorname{LayerNorm}(\bm{X}^{(L)})\bm{W}_e^\top$",
        "B × n × V",
    ),
    _r(
        "FFN Layer 1 Weight Matrix (Block ℓ)",
        r"$\mathbf{W}^{FF, (\ell)}_1$",
        "D × d_ff",
        r"$\bm{W}_1$",
        "H × F",
    ),
    _r(
        "FFN Layer 1 Bias Vector (Block ℓ)",
        r"$\mathbf{b}^{FF, (\ell)}_1$",
        "d_ff",
        r"$\bm{b}_1$",
        "F",
    ),
    _r(
        "FFN Layer 2 Weight Matrix (Block ℓ)",
        r"$\mathbf{W}^{FF, (\ell)}_2$",
        "d_ff × D",
        r"$\bm{W}_2$",
        "F × H",
    ),
    _r(
        "FFN Layer 2 Bias Vector (Block ℓ)",
        r"$\mathbf{b}^{FF, (\ell)}_2$",
        "D",
        r"$\bm{b}_2$",
        "H",
    ),
    _r(
        "Projection Layer Weight Matrix",
        r"$\mathbf{W}_s$",
        "D × V",
        r"$\bm{W}_e^\top$ (tied in GPT-2)",
        "H × V",
        "{ref}`a legitimate design <ambiguity-002-untied-head>`; GPT-2 ties it",
    ),
]

#: Small sizes for checking shapes: the book's letters (002's letters are translated first).
_SIZES = {"B": 2, "n": 5, "H": 8, "A": 2, "D": 4, "F": 32, "V": 11, "1": 1}


def _axes(shape: str, translate: bool) -> tuple[int, ...]:
    out = []
    for axis in shape.split(" × "):
        if translate:
            axis = " ".join(_translate_letter(a) for a in axis.split(" "))
        value = 1
        for factor in axis.split("·"):
            if factor not in _SIZES:
                raise ValueError(
                    f"shape: expected letters among {sorted(_SIZES)}, got {factor!r} "
                    f"in {shape!r}"
                )
            value *= _SIZES[factor]
        out.append(value)
    return tuple(out)


def _translate_letter(axis: str) -> str:
    for theirs, ours in TRANSLATION:
        if axis == theirs:
            return ours
    return axis


def shape_mismatches(rows: list[Row002] | None = None) -> list[str]:
    """Names of the rows whose 002 shape, translated to the book's letters, is not the book's shape
    (compared as numbers on small sizes, so ``A·D`` equals ``H``)."""
    return [
        r.name
        for r in (TABLE_002 if rows is None else rows)
        if _axes(r.shape, True) != _axes(r.book_shape, False)
    ]


def _latex_shape(shape: str) -> str:
    """``B × T × d_ff`` -> ``$B \\times T \\times d_\\text{ff}$`` (002's 𝓑 as ``\\mathcal{B}``)."""
    tex = (
        shape.replace(" × ", r" \times ")
        .replace("·", "")
        .replace("𝓑", r"\mathcal{B}")
        .replace("d_ff", r"d_\text{ff}")
    )
    return f"${tex}$"


#: The class of a table whose first column holds a source's own names, as the source writes
#: them: the Korean book translates them and keeps the source's English in a column of its
#: own (booktools.sphinx.i18n); the English book has no use for the same words twice.
SOURCE_NAMES = "source-names"


def table_002() -> str:
    """002's Table of Notations as a MyST table with the book's symbol and shape for each row
    (in a ``table`` directive of class :data:`SOURCE_NAMES`: its first column is 002's names)."""
    lines = [
        "```{table}",
        f":class: {SOURCE_NAMES}",
        "",
        "| 002's row | 002 | 002's shape | the book | shape | note |",
        "|---|---|---|---|---|---|",
    ]
    for r in TABLE_002:
        cells = [
            r.name,
            r.symbol,
            _latex_shape(r.shape),
            r.book,
            _latex_shape(r.book_shape),
            r.note,
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join([*lines, "```"])
