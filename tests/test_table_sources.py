"""booktools.sphinx.table_sources: a table nested in a directive reaches the catalogues.

Without the transform Sphinx treats the cells' paragraphs (no ``source``) as its own
built-in messages: the gettext builder skips them and the Korean page keeps them in English
(chapter 5's table of dimensions inside ``def-05-dimensions``).
"""

from __future__ import annotations

from docutils import nodes
from docutils.utils import new_document
from sphinx.util.nodes import is_translatable

from booktools.sphinx.table_sources import locate_table_text


def _document_with_nested_table() -> tuple[nodes.document, nodes.paragraph]:
    document = new_document("chapter.md")
    box = nodes.container()
    cell = nodes.paragraph(text="sequence length")  # no source, as MyST leaves it
    box += nodes.table(
        "", nodes.tgroup("", nodes.tbody("", nodes.row("", nodes.entry("", cell))))
    )
    document += box
    for node in box.findall(lambda n: n is not box):  # as MyST leaves a nested table
        node.source, node.line = None, None
    box.source, box.line = "chapters/05.md", 55
    return document, cell


def test_a_cell_without_source_is_not_translatable_before():
    _, cell = _document_with_nested_table()
    assert not is_translatable(cell)


def test_the_cell_gets_its_box_source_and_becomes_translatable():
    document, cell = _document_with_nested_table()
    assert locate_table_text(document) == 1
    assert (cell.source, cell.line) == ("chapters/05.md", 55)
    assert is_translatable(cell)


def test_a_cell_with_a_source_keeps_it():
    document, cell = _document_with_nested_table()
    cell.source, cell.line = "elsewhere.md", 3
    assert locate_table_text(document) == 0
    assert (cell.source, cell.line) == ("elsewhere.md", 3)


def test_chapter_5_dimensions_are_in_the_korean_catalogue():
    from booktools.i18n.catalogues import CATALOGUES, read_catalogue

    catalogue = read_catalogue(CATALOGUES / "chapters" / "05_notation_shapes.po")
    ids = {m.id for m in catalogue if m.id}
    assert "number of attention heads in a block" in ids
