"""Printed columns that stay lined up when their labels are translated.

A cell prints aligned lines::

    exact weights : [0.0634 0.4683 0.4683]
    closed form   : 0.06337893833303762 (first weight)

and the Korean edition prints the outputs catalogue's translation of each line
(:func:`booktools.i18n.outputs.translate_output`).  A Hangul syllable takes two columns of a monospace
font (its East Asian width is *Wide*), so padding counted in characters no longer lines up the
``:`` and ``=`` columns.  :func:`align_columns` lays the translated lines of one output out
again by display width (:func:`display_width`), at the English lines' columns, and moves a
column right, in every line of the output that uses it, where a translated label is wider.

A column is where a line's text starts again after two blanks or more (a *gap*), or an ``=`` or
``:`` that two English lines of the output print at the same column (a *separator*: "unscaled:"
and "scaled  :" align with no gap in the first line).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from booktools.i18n.outputs import VALUE, translate_output

__all__ = ["SEPARATORS", "align_columns", "display_width", "translate_lines"]

#: The characters that line up labels and values.
SEPARATORS = "=:"
#: Two blanks or more between two pieces of text: what follows starts a column.
_GAP = re.compile(r"(?<=\S) {2,}(?=\S)")


def display_width(text: str) -> int:
    """Columns of ``text`` in a monospace font whose CJK glyphs are two columns wide: a Wide or
    Fullwidth character (``unicodedata.east_asian_width`` W, F: Hangul, CJK) counts 2, a
    combining mark 0 (the hat of ``ŷ`` written y + U+0302), anything else 1."""
    return sum(
        0
        if unicodedata.combining(c)
        else 2
        if unicodedata.east_asian_width(c) in "WF"
        else 1
        for c in text
    )


@dataclass(frozen=True)
class _Stop:
    """Where a column may start in one line: the string index, its display column, its name in
    the line (``("gap", k)``: the k-th gap; or the separator and how many of it come before),
    the blanks before it and the blanks after it (a separator's), and whether it is the line's
    first separator."""

    index: int
    column: int
    name: tuple[str, int]
    blanks: int
    after: int = 0
    first: bool = False


def _candidates(line: str, values: re.Pattern[str]) -> list[_Stop]:
    """Every gap's end and every separator of ``line``, outside the printed values (an
    array's own blanks, a value's aligning blanks) and after its leading blanks."""
    inside = set()
    for value in values.finditer(line):
        inside.update(range(value.start() + 1, value.end()))
    lead = len(line) - len(line.lstrip(" "))
    found: list[_Stop] = []
    gaps, seps = 0, 0
    counts: Counter[str] = Counter()
    for i, c in enumerate(line):
        blanks = len(line[:i]) - len(line[:i].rstrip(" "))
        # blanks after a separator are its own (": " or ":  "), not a gap
        gap = (
            i > lead
            and c != " "
            and blanks >= 2
            and line[:i].rstrip(" ")[-1:] not in SEPARATORS
        )
        if i >= lead and i not in inside:
            if c in SEPARATORS:
                after = len(line[i + 1 :]) - len(line[i + 1 :].lstrip(" "))
                found.append(
                    _Stop(
                        i,
                        display_width(line[:i]),
                        (c, counts[c]),
                        blanks,
                        after,
                        seps == 0,
                    )
                )
            elif gap:
                found.append(_Stop(i, display_width(line[:i]), ("gap", gaps), blanks))
        counts[c] += c in SEPARATORS
        seps += c in SEPARATORS
        gaps += gap
    return found


def _shared(stops: list[list[_Stop]]) -> list[list[_Stop]]:
    """The stops of each English line that line up with the line before or after it: a gap
    at the column of any of its stops; a separator at the column of the same separator
    (as many of it before), where one of the two is padded to it (two blanks or more) or
    both are their lines' first (``label: value`` lines)."""

    def lines_up(a: _Stop, b: _Stop) -> bool:
        if a.column != b.column:
            return False
        if a.name[0] == "gap" or b.name[0] == "gap":
            return a.name[0] == b.name[0]
        return a.name == b.name and (
            max(a.blanks, b.blanks) >= 2 or (a.first and b.first)
        )

    out = []
    for i, line in enumerate(stops):
        near = [s for j in (i - 1, i + 1) if 0 <= j < len(stops) for s in stops[j]]
        out.append([s for s in line if any(lines_up(s, t) for t in near)])
    return out


def _counts(stops: list[_Stop]) -> Counter[str]:
    return Counter(s.name[0] for s in stops)


def align_columns(english: list[str], translated: list[str]) -> list[str]:
    """The lines of one output, ``translated`` (each the translation of the line of ``english``
    at its place, or that line itself), with the columns the English lines share with the
    line before or after them lined up by display width.  A column's place is the first
    after the text before it in every line that has it (two blanks before a gap's column,
    one or none before a separator as in the English), not left of its English column
    where the English pads to it; labels the English right-aligns
    (lines that start with blanks) stay right-aligned; after a separator a translated line
    has the English blanks.  What is not such a column stays as the translation wrote it; a
    translated line with other gaps or separators than its English line stays as it is;
    lines that were not translated move only with a column."""
    if english == translated:
        return list(translated)
    every = [_candidates(line, VALUE) for line in english]
    shared = _shared(every)
    rows: list[tuple[list[str], list[int], list[int]] | None] = []
    leads: dict[int, set[int]] = {}
    for en, ko, en_all, en_stops in zip(english, translated, every, shared):
        names = [s.name for s in en_stops]
        ko_all = _candidates(ko, VALUE)
        ko_stops = [s for s in ko_all if s.name in names]
        if (
            not en_stops
            or [s.name for s in ko_stops] != names
            or _counts(ko_all) != _counts(en_all)
        ):
            rows.append(None)
            continue
        cuts = [0] + [s.index for s in ko_stops]
        pieces = [ko[a:b] for a, b in zip(cuts, cuts[1:] + [len(ko)])]
        pieces[:-1] = [p.rstrip(" ") for p in pieces[:-1]]
        for k, (en_stop, ko_stop) in enumerate(zip(en_stops, ko_stops), start=1):
            if ko != en and en_stop.name[0] in SEPARATORS:  # ": " as in the English
                pieces[k] = (
                    pieces[k][0] + " " * en_stop.after + pieces[k][1:].lstrip(" ")
                )
        if (
            en_stops[0].name[0] in SEPARATORS
        ):  # "   plain:" over "residual:": right-aligned
            leads.setdefault(en_stops[0].column, set()).add(
                len(en) - len(en.lstrip(" "))
            )
        least = [
            0 if s.blanks == 0 else 1 if s.name[0] in SEPARATORS else 2
            for s in en_stops
        ]
        rows.append((pieces, [s.column for s in en_stops], least))
    right = {column for column, blanks in leads.items() if len(blanks) > 1}
    for row in rows:
        if row and row[1][0] in right:
            row[0][0] = row[0][0].lstrip(" ")
    # A column the English pads to never comes left of its English column: a table keeps
    # its geometry (some of its rows may reach a column with one blank, no gap, and a line
    # between two others shares their column with neither); nor does a right-aligned label's
    # separator.  A separator the English does not pad to comes right after the widest text.
    gaps = {
        s.column for line in shared for s in line if s.name[0] == "gap" or s.blanks >= 2
    } | right
    place: dict[int, int] = {}
    for column in sorted({c for row in rows if row for c in row[1]}):
        need = column if column in gaps else 0
        for row in rows:
            if row and column in row[1]:
                k = row[1].index(column)
                start = place[row[1][k - 1]] if k else 0
                need = max(need, start + display_width(row[0][k]) + row[2][k])
        place[column] = need
    out = []
    for ko, row in zip(translated, rows):
        if row is None:
            out.append(ko)
            continue
        pieces, columns, least = row
        line = pieces[0]
        if columns[0] in right:
            line = " " * (place[columns[0]] - least[0] - display_width(line)) + line
        at = display_width(line)
        for piece, column in zip(pieces[1:], columns):
            line += " " * (place[column] - at) + piece
            at = place[column] + display_width(piece)
        out.append(line)
    return out


def translate_lines(text: str, table: Mapping[str, str]) -> str:
    """What a cell printed (lines), each line by :func:`translate_output`, the columns of the
    output lined up again by display width, a Hangul syllable two columns
    (:func:`align_columns`): the catalogue's padding counts characters."""
    english = text.split("\n")
    return "\n".join(
        align_columns(english, [translate_output(line, table) for line in english])
    )
