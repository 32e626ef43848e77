"""Appendix A's copy of 002's Table of Notations: complete, and every shape agrees with the book's."""

from __future__ import annotations

import dataclasses

import pytest

from booktools.sphinx import i18n
from formulated.notation import TABLE_002, shape_mismatches, table_002
from formulated.notation.source_002 import SOURCE_NAMES


def test_every_row_of_002s_table_is_there():
    assert len(TABLE_002) == 29  # the rows of 002's "Table of Notations"
    symbols = " ".join(r.symbol for r in TABLE_002)
    for missing_before in (
        r"\mathbf{Z}^{FF, (\ell)}_1",
        r"\mathbf{A}^{M, (\ell)}_s",
        r"\mathbf{C}^{(\ell)}_{\text{concat}}",
        r"\mathbf{Z}_{\text{pre-head}}",
        r"\mathbf{W}_s",
        r"\mathbf{X}^{(b)}",
    ):
        assert missing_before in symbols, missing_before
    assert len({r.symbol for r in TABLE_002}) == len(TABLE_002)


def test_translated_shapes_agree_with_the_books():
    assert shape_mismatches() == []


def test_a_wrong_shape_is_found():
    # 002's D is the book's H and 002's H is the book's A: a row that kept 002's letters fails.
    row = next(r for r in TABLE_002 if r.name.startswith("Query, Key, Value"))
    wrong = dataclasses.replace(row, book_shape="B × H × n × D")
    assert shape_mismatches([wrong]) == [row.name]


def test_unknown_letters_are_rejected():
    row = dataclasses.replace(TABLE_002[0], book_shape="B × n × Q")
    with pytest.raises(ValueError, match="expected letters among"):
        shape_mismatches([row])


def test_table_renders_every_row():
    table = table_002()
    rows = [line for line in table.splitlines() if line.startswith("|")]
    assert len(rows) == len(TABLE_002) + 2  # the header, its rule, the rows
    # a table of 002's names: the Korean book adds their English (booktools.sphinx.i18n)
    assert table.startswith(f"```{{table}}\n:class: {i18n.SOURCE_NAMES}\n")
    assert SOURCE_NAMES == i18n.SOURCE_NAMES
    assert r"\mathcal{B} \times H \times T \times D//H" in table


def test_the_korean_table_keeps_002s_names_in_a_column_of_their_own():
    from docutils import nodes
    from docutils.core import publish_doctree

    doctree = publish_doctree(
        ".. table::\n   :class: source-names\n\n"
        "   ================  ===\n"
        "   002's row         002\n"
        "   ================  ===\n"
        "   Attention Mask    M\n"
        "   ================  ===\n"
    )
    table = next(doctree.findall(nodes.table))
    i18n.add_source_names_column(table, "영어 원문")
    rows = [[e.astext() for e in row.children] for row in table.findall(nodes.row)]
    assert rows == [["002's row", "영어 원문", "002"], ["Attention Mask"] * 2 + ["M"]]
    assert len(list(table.findall(nodes.colspec))) == 3
    copy = list(table.findall(nodes.row))[1].children[1]
    assert all(t["translatable"] is False for t in copy.findall(nodes.TextElement))
    assert "language-en" in next(copy.findall(nodes.paragraph))["classes"]
    assert "language-en" not in next(table.findall(nodes.paragraph))["classes"]
    with pytest.raises(ValueError, match="table: expected a table with columns"):
        i18n.add_source_names_column(nodes.table(), "영어 원문")
