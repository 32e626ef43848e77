"""The term index of appendix A (용어 대조표): the Korean edition's glossary as a table.

``_config.yml`` lists this extension; appendix A places the table with

    ```{term-index}
    ```

and it is built from ``locales/ko/glossary.yml`` (:func:`booktools.i18n.checks.glossary_terms`)
whenever the page is: the Korean book shows 한국어 | English in the order of the Korean terms
(가나다), the English book English | 한국어 in alphabetical order.  The Korean chapters give a
term's English only once, at its first use (booktools/i18n/glosses.py); this table has them
all.  Its cells are marked untranslatable: they are the glossary itself, not messages of the
page's catalogue.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from booktools.i18n.catalogues import LANGUAGE
from booktools.i18n.checks import GLOSSARY, glossary_terms

__all__ = ["HEADERS", "term_rows", "TermIndex", "setup"]

#: The table's header in each edition (the other language's column second).
HEADERS = {LANGUAGE: ("한국어", "English"), "en": ("English", "Korean (한국어)")}


def term_rows(language: str | None) -> list[tuple[str, str]]:
    """The table's rows for a book in ``language``: ``(Korean, English)`` sorted by the
    Korean for the Korean book, ``(English, Korean)`` sorted by the English otherwise."""
    terms = glossary_terms()
    if language == LANGUAGE:
        return sorted(((k, e) for e, k in terms), key=lambda r: (r[0], r[1].lower()))
    return sorted(terms, key=lambda r: (r[0].lower(), r[1]))


def _cell(text: str, language: str) -> nodes.entry:
    """A cell in ``language``: docutils writes the class ``language-xx`` as ``lang="xx"``,
    so a reader's tools (and the scan of the Korean pages) know the English column.  A
    Korean cell's text is an inline of the class ``hangul``: the English PDF, which has no
    xeCJK, sets it in a Hangul font (``\\DUrolehangul``, :mod:`booktools.sphinx.pdf`)."""
    paragraph = nodes.paragraph(classes=[f"language-{language}"])
    if language == LANGUAGE:
        paragraph += nodes.inline(text=text, classes=["hangul"])
    else:
        paragraph += nodes.Text(text)
    paragraph["translatable"] = False  # the glossary's words, no message of the page
    return nodes.entry("", paragraph)


class TermIndex(SphinxDirective):
    """``{term-index}``: the glossary's terms as a two-column table (no content)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        language = self.config.language
        self.env.note_dependency(str(GLOSSARY))
        korean = language == LANGUAGE
        head = HEADERS[LANGUAGE if korean else "en"]
        langs = (LANGUAGE, "en") if korean else ("en", LANGUAGE)
        table = nodes.table(classes=["term-index"])
        group = nodes.tgroup(cols=2)
        table += group
        group += [nodes.colspec(colwidth=1), nodes.colspec(colwidth=1)]
        thead = nodes.thead()
        thead += nodes.row("", *(_cell(h, lang) for h, lang in zip(head, langs)))
        tbody = nodes.tbody()
        for first, second in term_rows(language):
            tbody += nodes.row("", _cell(first, langs[0]), _cell(second, langs[1]))
        group += [thead, tbody]
        return [table]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("term-index", TermIndex)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
