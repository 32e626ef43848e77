"""The quizzes in the built books, and lighter pages.

* **Korean quizzes**: a quiz (:mod:`formulated.quizzes`) is a cell's HTML output, executed once
  in English.  After the Korean HTML build, every text of every quiz on a page (prompts,
  options, feedback, the "Check" button) is translated from the page's outputs catalogue
  (``locales/ko/outputs``, :func:`booktools.sphinx.i18n.output_table`), sentence by sentence
  with the values kept (:func:`booktools.i18n.outputs.translate_clauses`); the catalogue's
  messages are the quiz's text nodes (:func:`booktools.i18n.outputs.quiz_fragments`).
* **No sphinx-design assets**: Jupyter Book loads sphinx-design on every book, whose CSS and
  script (about 62 KB) every page then loads, though no chapter uses its directives.  The
  assets are not added; a page that uses a sphinx-design directive fails the build
  (:func:`refuse_design_nodes`), so that the choice is revisited then.
* **Dark mode**: the theme puts HTML outputs on a light slab in dark mode (for figures); a
  quiz page gets :data:`QUIZ_CSS`, which keeps its quiz on the page's own background.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

from booktools.i18n.outputs import (
    QUIZ_BLOCK,
    QUIZ_PARTS,
    translate_clauses,
    translate_output,
)
from booktools.sphinx.i18n import output_table

__all__ = [
    "translate_quiz",
    "translate_quizzes",
    "drop_design_assets",
    "refuse_design_nodes",
    "QUIZ_CSS",
    "add_quiz_css",
    "setup",
]


def translate_quiz(block: str, table: Any) -> str:
    """One quiz's HTML with every text node translated by ``table`` (msgid -> msgstr, values
    as placeholders); a text without a translation stays as it is."""
    out = []
    for part in QUIZ_PARTS.split(block):
        if part.startswith("<") or not part.strip():
            out.append(part)
            continue
        text = html.unescape(part)
        core = text.strip()
        korean = translate_output(core, table)
        if korean == core:
            korean = translate_clauses(core, table)
        start = text.index(core[0])
        out.append(
            html.escape(text[:start] + korean + text[start + len(core) :], quote=False)
        )
    return "".join(out)


def translate_quizzes(app: Sphinx, exception: Exception | None) -> None:
    """After the Korean HTML build: the quizzes of every page in Korean."""
    if exception is not None or app.builder.format != "html":
        return
    if output_table(app, app.config.root_doc) is None:
        return
    for docname in sorted(app.env.found_docs):
        path = Path(app.outdir) / f"{docname}.html"
        if not path.is_file():
            continue
        page = path.read_text(encoding="utf-8")
        if 'class="fq-quiz"' not in page:
            continue
        table = output_table(app, docname) or {}
        done = QUIZ_BLOCK.sub(lambda m: translate_quiz(m.group(0), table), page)
        if done != page:
            path.write_text(done, encoding="utf-8")


def drop_design_assets(app: Sphinx) -> None:
    """Disconnect sphinx-design's ``add_static_assets`` (its CSS and script on every page)."""
    try:
        from sphinx_design import extension
    except ImportError:  # a Jupyter Book without it: nothing to undo
        return
    for listeners in app.events.listeners.values():
        for listener in list(listeners):
            if listener.handler is extension.add_static_assets:
                app.disconnect(listener.id)


def refuse_design_nodes(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Fail the build on a page that uses sphinx-design (its styles are not loaded)."""
    for node in doctree.findall(nodes.Element):
        if any(str(c).startswith("sd-") for c in node.get("classes", [])):
            raise ExtensionError(
                f"{docname}: uses a sphinx-design directive ({node.tagname} with classes "
                f"{node['classes']}), but booktools.sphinx.quiz drops sphinx-design's "
                "assets to keep pages light; remove drop_design_assets from its setup"
            )


#: The quiz's dark-mode rule (under ``html_static_path``), on pages with a quiz only.
QUIZ_CSS = "quiz/quiz-theme.css"


def add_quiz_css(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any
) -> None:
    """Add :data:`QUIZ_CSS` to a page that shows a quiz (a few hundred bytes, one request)."""
    if 'class="fq-quiz"' in context.get("body", ""):
        app.add_css_file(QUIZ_CSS)


def setup(app: Sphinx) -> dict[str, Any]:
    """Drop sphinx-design's assets now (it was set up before this extension) and register
    the hooks."""
    drop_design_assets(app)
    app.connect("doctree-resolved", refuse_design_nodes)
    app.connect("html-page-context", add_quiz_css)
    app.connect("build-finished", translate_quizzes)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
