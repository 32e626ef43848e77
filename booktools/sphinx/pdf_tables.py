"""The PDF edition's tables (booktools/sphinx/pdf.py applies :func:`fit_table` and
:func:`break_before_brackets` to every table of the LaTeX document).

A table fits the text width: its cells wrap, a long one becomes a ``longtable`` with column
widths from what its columns hold (:func:`column_widths`), a wide or long one is set in small
type with narrow gaps, and a formula that lists symbols may break after its commas
(:func:`split_math_lists`).  In the Korean edition a line may break between Hangul and an
opening bracket (:func:`break_before_brackets`).
"""

from __future__ import annotations

import re

from docutils import nodes

from booktools.i18n.columns import display_width

__all__ = [
    "WIDE_TABLES",
    "LONG_TABLE_ROWS",
    "LONG_WIDE_TABLE_ROWS",
    "TABCOLSEP_PT",
    "MIN_COLUMN_PT",
    "SMALL_LINE_CHARS",
    "fit_table",
    "break_before_brackets",
    "split_math_lists",
    "column_widths",
]

#: Wide tables in small type (:func:`fit_table`): (least number of columns, type size,
#: ``\\tymax`` in pt: a column's natural width counts up to that when ``tabulary`` shares the
#: line, so a column of sentences cannot starve one of formulas).  The values are those
#: for which appendix A's notation tables and the errata fit (tests/test_pdf.py).  Five
#: columns keep the text's size ("") with the narrow gaps and the cap: appendix F's
#: concordance, whose Korean sentences are narrower than the English and left 15 pt too
#: little for "(EDTransformer)" in theirs.
WIDE_TABLES = ((9, "\\scriptsize", 80), (6, "\\footnotesize", 100), (5, "", 100))
#: A table of more rows is a ``longtable`` (:func:`fit_table`), set in ``\\footnotesize``.
LONG_TABLE_ROWS = 30
#: ... and one of five columns or more with more rows than this: its cells wrap into many
#: lines, and a ``tabulary`` taller than a page runs off it (appendix D's coverage table lost
#: 590 pt below the page, appendix F's concordance 240 pt; the Korean appendix A's largest
#: notation table 170 pt).
LONG_WIDE_TABLE_ROWS = 12
#: Small type in tables: the gap on either side of a column and a column's least width (pt).
TABCOLSEP_PT = 3
MIN_COLUMN_PT = 45
#: Characters of monospace text on a line of the text width in small (footnotesize) type,
#: less the gaps of a four-column table (:func:`column_widths`).
SMALL_LINE_CHARS = 90
#: Where a line of a table cell may break: after a blank, or after these in code.
_BREAK = re.compile(r"\s+|(?<=[.,;:/(\[_])")


def fit_table(table: nodes.table) -> None:
    """Make ``table`` fit the text width in LaTeX.

    * Its cells wrap: a Markdown table printed by a cell is ``colwidths-auto``, one unbreakable
      line per cell in LaTeX; without that class Sphinx uses ``tabulary``.
    * A long table (over :data:`LONG_TABLE_ROWS` rows, or :data:`LONG_WIDE_TABLE_ROWS` with
      five columns or more: a ``longtable``, which breaks across pages and has no automatic
      widths) gets column widths from what its columns hold (:func:`column_widths`).
    * A wide table (:data:`WIDE_TABLES`: the notation tables of appendix A, the errata, the
      concordance) and a long one are set in small type (five columns: the text's) with
      narrow gaps, every column at least
      :data:`MIN_COLUMN_PT` wide, and a formula that lists symbols
      (``\\mathbf{W}_1, \\mathbf{b}_1``) may break after its commas (:func:`split_math_lists`).
    """
    if "colwidths-auto" in table["classes"]:
        table["classes"].remove("colwidths-auto")
    rows = sum(len(body) for body in table.findall(nodes.tbody))
    columns = max((group["cols"] for group in table.findall(nodes.tgroup)), default=0)
    most = LONG_WIDE_TABLE_ROWS if columns >= WIDE_TABLES[-1][0] else LONG_TABLE_ROWS
    long = rows > most and "colwidths-given" not in table["classes"]
    if long:
        table["classes"] += [
            "colwidths-given",
            "longtable",
        ]  # Sphinx's own rule: > 30 rows
        for colspec, width in zip(table.findall(nodes.colspec), column_widths(table)):
            colspec["colwidth"] = width
    wide = [(size, tymax) for least, size, tymax in WIDE_TABLES if columns >= least]
    if long or wide:
        size, tymax = wide[0] if wide else ("", 0)
        size = size or ("\\footnotesize" if long else "")
        split_math_lists(table)
        parent, at = table.parent, table.parent.index(table)
        parent.insert(at + 1, nodes.raw("", "\\endgroup\n", format="latex"))
        parent.insert(
            at,
            nodes.raw(
                "",
                f"\\begingroup{size}\\setlength{{\\tabcolsep}}{{{TABCOLSEP_PT}pt}}"
                f"\\setlength{{\\tymin}}{{{MIN_COLUMN_PT}pt}}"
                + (f"\\setlength{{\\tymax}}{{{tymax}pt}}" if tymax else "")
                + "\n",
                format="latex",
            ),
        )


#: Hangul followed by an opening bracket: "트랜스포머(EDTransformer)".  XeTeX with xeCJK breaks a
#: line between two Hangul syllables but not between Hangul and the Latin text after it, so in
#: a narrow column such a word cannot break and runs into the next (17 pt in appendix F).
_HANGUL_BRACKET = re.compile(r"(?<=[\uac00-\ud7a3])(?=[(\[])")


def break_before_brackets(table: nodes.table) -> None:
    """In the text of ``table``'s cells (not in code), a line may break between Hangul and an
    opening bracket after it (``\\allowbreak``): the English is written with a blank there
    ("transformer (EDTransformer)"), the Korean without ("트랜스포머(EDTransformer)")."""
    for text in list(table.findall(nodes.Text)):
        parent = text.parent
        if isinstance(
            parent, (nodes.literal, nodes.raw, nodes.math)
        ) or not _HANGUL_BRACKET.search(text):
            continue
        pieces = _HANGUL_BRACKET.split(str(text))
        new: list[nodes.Node] = []
        for piece in pieces:
            new += [nodes.Text(piece), nodes.raw("", "\\allowbreak{}", format="latex")]
        at = parent.index(text)
        parent[at : at + 1] = new[:-1]


def split_math_lists(table: nodes.table) -> None:
    """Each inline formula of ``table`` that lists items at its top level (``a, b``: a comma
    outside braces, parentheses and brackets) becomes one formula per item, joined by ", " in
    text, where a line may break (TeX never breaks a formula at a comma)."""
    for math in list(table.findall(nodes.math)):
        items, depth, last = [], 0, 0
        text = math.astext()
        for i, char in enumerate(text):
            depth += (char in "{([") - (char in "})]")
            if char == "," and depth == 0:
                items.append(text[last:i].strip())
                last = i + 1
        if not items:
            continue
        items.append(text[last:].strip())
        new: list[nodes.Node] = []
        for item in items:
            new += [nodes.math(item, item), nodes.Text(", ")]
        math.replace_self(new[:-1])


def column_widths(table: nodes.table, line: int = SMALL_LINE_CHARS) -> list[int]:
    """Widths in percent for the columns of ``table`` on a line of ``line`` characters: each
    column first gets its longest word (text between the places where a line may break: blanks,
    and in code after ``. , ; : / ( [ _``) and one more character; what is left of the line
    goes to the columns whose mean cell is longer than that, in proportion to the excess.  A
    Hangul syllable counts two characters (:func:`display_width`): it is as wide as two Latin
    letters, and counted as one it left appendix A's first column too narrow for "FFN의"."""
    cells: list[list[str]] = []
    for row in table.findall(nodes.row):
        for i, entry in enumerate(
            c for c in row.children if isinstance(c, nodes.entry)
        ):
            while len(cells) <= i:
                cells.append([])
            cells[i].append(entry.astext())
    need = [
        1 + max((display_width(w) for c in col for w in _BREAK.split(c)), default=1)
        for col in cells
    ]
    excess = [
        max(sum(map(display_width, col)) / len(col) - n, 0.0)
        for col, n in zip(cells, need)
    ]
    left = max(line - sum(need), 0)
    chars = [
        n + (left * e / sum(excess) if sum(excess) else 0) for n, e in zip(need, excess)
    ]
    return [max(1, round(100 * c / sum(chars))) for c in chars]
