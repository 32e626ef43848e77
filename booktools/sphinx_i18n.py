"""Sphinx extension for the two editions (issue 25): English at the root, Korean under ``ko/``.

``_config.yml`` lists it; :mod:`booktools.i18n` builds the Korean book with ``language=ko``.

* **Language switch on every page**: a link to the same page in the other language, at the top
  of the article.  An English page ``chapters/intro.html`` links to ``ko/chapters/intro.html``,
  a Korean page ``ko/chapters/intro.html`` to ``../chapters/intro.html`` (relative links, so the
  book works from ``file://`` and under any prefix).  The head also names the other page as
  ``<link rel="alternate" hreflang>``.
* **Korean typography** (``_static/i18n/ko.css``) on Korean pages only; the switch's style
  (``_static/i18n/switch.css``) on all.
* The part captions of the sidebar are translated (:class:`TranslateTocCaptions`).
* Display math is no message (:class:`KeepMathBlocks`): it cannot be translated by mistake.
* The page language (``<html lang>``) is Sphinx's ``language``: ``en`` unless set.
* MyST-NB writes the executed notebooks and output images beside the output folder, for the
  Korean book into ``_build/html/jupyter_execute`` (4.5 MB): sphinx-book-theme's launch buttons
  read the notebooks from exactly that folder (``outdir/../jupyter_execute``), so it stays.
"""
from __future__ import annotations

import html
import os
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform

__all__ = ["KeepMathBlocks", "TranslateTocCaptions", "LANGUAGES", "SUBDIR", "KO_CSS",
           "SWITCH_CSS", "other_language", "switch_href", "switch_html",
           "setup"]

#: The two editions: language code -> the switch's text, in that language.
LANGUAGES = {"en": "English", "ko": "한국어"}
#: The folder of the Korean book inside the English one.
SUBDIR = "ko"
KO_CSS = "i18n/ko.css"
SWITCH_CSS = "i18n/switch.css"


def other_language(language: str | None) -> str:
    """The language the switch leads to: Korean from English (or no language), else English."""
    return "en" if language == "ko" else "ko"


def switch_href(pagename: str, language: str | None) -> str:
    """The relative URL of page ``pagename`` (a Sphinx docname, ``/``-separated) in the other
    language, from the page itself."""
    if "\\" in pagename or pagename.startswith("/") or not pagename:
        raise ValueError(f"pagename: expected a relative docname like 'chapters/intro', "
                         f"got {pagename!r}")
    up = "../" * pagename.count("/")
    if other_language(language) == "ko":
        return f"{up}{SUBDIR}/{pagename}.html"
    return f"../{up}{pagename}.html"


def switch_html(pagename: str, language: str | None) -> str:
    """The switch: a small navigation landmark with one link, named in its own language."""
    target = other_language(language)
    href = html.escape(switch_href(pagename, language))
    label = "Language" if language != "ko" else "언어"
    return (f'<nav class="formulated-lang-switch" aria-label="{label}">'
            f'<a href="{href}" hreflang="{target}" lang="{target}" rel="alternate">'
            f"{LANGUAGES[target]}</a></nav>\n")


def _page_context(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                  doctree: Any) -> None:
    if app.builder.format != "html":
        return
    language = app.config.language
    target = other_language(language)
    href = html.escape(switch_href(pagename, language))
    context["metatags"] = (context.get("metatags", "")
                           + f'\n<link rel="alternate" hreflang="{target}" href="{href}" />')
    if "body" in context:  # pages with an article (not the search page or the index)
        context["body"] = switch_html(pagename, language) + context["body"]


def _builder_inited(app: Sphinx) -> None:
    app.add_css_file(SWITCH_CSS)
    if app.config.language != "ko":
        return
    app.add_css_file(KO_CSS)


class KeepMathBlocks(SphinxTransform):
    """Display math is the same in both books: not a message to translate (Sphinx would
    extract a ``$$`` block's TeX as one)."""

    default_priority = 10  # before Sphinx's Locale transform (20) and any extraction

    def apply(self, **kwargs: Any) -> None:
        for node in self.document.findall(nodes.math_block):
            node["translatable"] = False


class TranslateTocCaptions(SphinxTransform):
    """The part captions of ``_toc.yml`` ("Foundations", …) in the page's language.

    sphinx-external-toc inserts the toctrees (its transform, priority 100) after Sphinx's
    Locale transform (20) has translated the page, so their captions would stay English in the
    sidebar; here they are looked up in the page's catalogue the way Locale does."""

    default_priority = 101

    def apply(self, **kwargs: Any) -> None:
        if self.config.language in (None, "en") or self.app.builder.name == "gettext":
            return
        from sphinx import addnodes
        from sphinx.locale import init as init_locale
        from sphinx.util.i18n import docname_to_domain

        domain = docname_to_domain(self.env.docname, self.config.gettext_compact)
        dirs = [os.path.join(self.env.srcdir, d) for d in self.config.locale_dirs]
        catalog, found = init_locale(dirs, self.config.language, domain)
        if not found:
            return
        for node in self.document.findall(addnodes.toctree):
            if node.get("caption"):
                node["caption"] = catalog.gettext(node["caption"])


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_transform(KeepMathBlocks)
    app.add_transform(TranslateTocCaptions)
    app.connect("builder-inited", _builder_inited, priority=900)
    app.connect("html-page-context", _page_context, priority=950)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
