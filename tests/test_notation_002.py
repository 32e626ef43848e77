"""Appendix A's copy of 002's Table of Notations: complete, and every shape agrees with the book's."""

from __future__ import annotations

import dataclasses

import pytest

from formulated.notation import TABLE_002, shape_mismatches, table_002


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
    assert table.count("\n") == len(TABLE_002) + 1
    assert r"\mathcal{B} \times H \times T \times D//H" in table
