"""Sphinx extension: the book links each chapter's slide deck (``make slides``).

``_config.yml`` lists it.  On the HTML page of every numbered chapter, under its title, one line
links the chapter's deck in the page's language (:func:`booktools.build.decks.deck_href`); the
``{formulated-slides}`` directive (appendix C) lists every deck, each named as a chapter
reference names its chapter ("Chapter 8 (Attention)", "8장(어텐션)": :mod:`booktools.sphinx.chapter_refs`),
and after it the deck's printable handout (:func:`booktools.build.decks.handout_href`, a PDF;
HTML only).
The decks themselves are built by ``make slides`` (:mod:`booktools.build.slides`); the student edition
(``formulated_student_edition``) shows no such link, since it is built without them.
"""

from __future__ import annotations

import html
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective

from booktools.build.decks import deck_href, handout_href
from booktools.build.lecture import chapters

__all__ = [
    "LINK_TEXT",
    "HANDOUT_TEXT",
    "DECK_CLASS",
    "HANDOUT_CLASS",
    "link_html",
    "SlidesList",
    "DeckLinks",
    "setup",
]

#: The line on a chapter's page, in each language of the book.
LINK_TEXT = {"en": "Slides of this chapter", "ko": "이 장의 슬라이드"}
#: The words of the link to a deck's handout, after the deck's (appendix C).
HANDOUT_TEXT = {"en": "handout (PDF)", "ko": "유인물(PDF)"}
#: The class of a reference the directive makes, retargeted to the deck by :class:`DeckLinks`.
DECK_CLASS = "formulated-deck"
#: The class of the place of a handout's link (made by :class:`DeckLinks`, HTML only).
HANDOUT_CLASS = "formulated-handout"


def _language(app: Sphinx) -> str:
    return "ko" if app.config.language == "ko" else "en"


def _on(app: Sphinx) -> bool:
    return (
        app.builder.format == "html"
        and app.builder.name != "revealjs"
        and not (getattr(app.config, "formulated_student_edition", False))
    )


def link_html(docname: str, language: str) -> str:
    """The line that links chapter ``docname``'s deck from its page in ``language``."""
    if language not in LINK_TEXT:
        raise ValueError(f"language: {language!r} is not one of {sorted(LINK_TEXT)}")
    href = html.escape(deck_href(docname, language))
    return (
        f'<p class="formulated-slides"><a href="{href}">{LINK_TEXT[language]}</a></p>\n'
    )


def _page_context(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    if not _on(app) or pagename not in chapters() or "body" not in context:
        return
    body, line = context["body"], link_html(pagename, _language(app))
    end = body.find("</h1>")
    context["body"] = (
        body[: end + 5] + line + body[end + 5 :] if end >= 0 else line + body
    )


class SlidesList(SphinxDirective):
    """``{formulated-slides}``: a list of every chapter's deck, named as the chapter."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        items = nodes.bullet_list()
        for name in chapters():
            ref = addnodes.pending_xref(
                "",
                nodes.inline("", name, classes=["xref", "std", "std-doc"]),
                refdomain="std",
                reftype="doc",
                reftarget="/" + name,
                refexplicit=False,
                refwarn=True,
                refdoc=self.env.docname,
            )
            mark = nodes.inline("", "", ref, classes=[DECK_CLASS])
            handout = nodes.inline("", "", classes=[HANDOUT_CLASS], chapter=name)
            items += nodes.list_item("", nodes.paragraph("", "", mark, handout))
        return [items]


class DeckLinks(SphinxPostTransform):
    """After the references are resolved (priority 10): each one the directive made points at
    the deck instead of the chapter's page (HTML only; elsewhere it stays the chapter's)."""

    default_priority = 20

    def run(self, **kwargs: Any) -> None:
        language = _language(self.app)
        for place in list(self.document.findall(nodes.inline)):
            if HANDOUT_CLASS in place["classes"]:
                if _on(self.app):
                    link = nodes.reference(
                        "",
                        HANDOUT_TEXT[language],
                        refuri=handout_href(place["chapter"], language),
                        internal=False,
                    )
                    place += [nodes.Text(" · "), link]
                else:
                    place.parent.remove(place)
        if not _on(self.app):
            return
        for mark in list(self.document.findall(nodes.inline)):
            if DECK_CLASS not in mark["classes"]:
                continue
            for ref in mark.findall(nodes.reference):
                page = ref.get("refuri", "").split("#")[0].removesuffix(".html")
                stem = page.rsplit("/", 1)[-1]
                target = next((c for c in chapters() if c.endswith("/" + stem)), None)
                if target:
                    ref["refuri"] = deck_href(target, language)
                    ref["internal"] = False


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("html-page-context", _page_context)
    app.add_directive("formulated-slides", SlidesList)
    app.add_post_transform(DeckLinks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
