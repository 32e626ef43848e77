"""Tables nested in a directive get a source, so that the Korean catalogues translate them.

MyST parses a table inside a directive (a ``{prf:definition}``'s body, chapter 5's
table of dimensions) into cells whose paragraphs carry no ``source``.  Sphinx takes a text
node without a source for one of its own built-in messages (``sphinx.util.nodes.
is_translatable``): the gettext builder leaves it out of the template and the Locale
transform leaves it in English.  This transform gives each such cell the source and line of
the nearest enclosing node that has them, before the Locale transform (priority 20) runs.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.transforms import SphinxTransform


def _located_ancestor(node: nodes.Node) -> nodes.Element | None:
    """The nearest ancestor of ``node`` whose ``source`` is set, or ``None``."""
    parent = node.parent
    while parent is not None and not getattr(parent, "source", None):
        parent = parent.parent
    return parent


def locate_table_text(document: nodes.document) -> int:
    """Give every source-less text element inside a table its ancestor's source and line.

    Returns how many elements were given one (0 when every cell already had a source).
    """
    given = 0
    for table in document.findall(nodes.table):
        for text in table.findall(nodes.TextElement):
            if text.source:
                continue
            ancestor = _located_ancestor(text)
            if ancestor is None:
                continue
            text.source, text.line = ancestor.source, ancestor.line
            given += 1
    return given


class LocateTableText(SphinxTransform):
    """Runs :func:`locate_table_text` on every document before the Locale transform."""

    default_priority = 15  # sphinx.transforms.i18n.Locale is 20

    def apply(self, **kwargs: Any) -> None:
        locate_table_text(self.document)


def setup(app: Any) -> dict[str, Any]:
    app.add_transform(LocateTableText)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
