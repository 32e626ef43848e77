"""Sphinx configuration of the slide decks (:mod:`booktools.build.slides`), beside the book's own.

The MyST extensions and MathJax macros are the book's (``_config.yml``); the Korean decks read
the book's catalogues (``locales/ko``, compiled by :func:`booktools.i18n.compile_catalogues`) and
translate what cells printed, and the texts of the figures, as the Korean book does
(:func:`booktools.sphinx.i18n.translate_outputs`).  After translation, a slide's title gets its
chapter's section number (:class:`NumberTitles`), speaker notes become text to say
(:class:`SpokenNotes`: math as text, no sentence about the page) and exercise prompts lose the
autograder's instructions (:class:`PromptsWithoutPageLines`).
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

from booktools import i18n
from booktools.build.notes import (
    EMPTY_BRACKETS,
    GRADER,
    LEAD_IN,
    PAGE_ONLY,
    spoken_math,
)
from booktools.paths import CONFIG, ROOT
from booktools.sphinx import i18n as sphinx_i18n

_BOOK = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
_SPHINX = _BOOK["sphinx"]["config"]

project = _BOOK["title"]
copyright = _BOOK["copyright"]
root_doc = "index"
extensions = [
    "myst_nb",
    "sphinx_proof",
    "sphinx_exercise",
    "sphinx_revealjs",
    "sphinx-mathjax-offline",
    "booktools.sphinx.source",
    "booktools.sphinx.table_sources",  # as in the book: a table in a box reaches the catalogue
    "booktools.sphinx.chapter_refs",
]
exclude_patterns = ["locales", "**.ipynb_checkpoints"]
myst_enable_extensions = _BOOK["parse"]["myst_enable_extensions"]
nb_execution_mode = "off"
nb_render_markdown_format = "myst"
nb_merge_streams = True
#: MyST-NB knows no "revealjs" builder: the outputs a slide may show, best first (no widgets:
#: a widget's view needs the runtime, which the decks do not load).
nb_mime_priority_overrides = [
    ("revealjs", mime, rank)
    for rank, mime in enumerate(
        ("image/svg+xml", "image/png", "image/jpeg", "text/html", "text/markdown")
        + ("text/latex", "text/plain")
    )
]
nb_ipywidgets_js = {}
mathjax3_config = _SPHINX["mathjax3_config"]
numfig = True
proof_number_weight = ""
suppress_warnings = ["myst.header", "ref.ref", "toc.not_included"]
locale_dirs = [str(i18n.BUILD_LOCALES)]
gettext_compact = False
gettext_auto_build = True
html_copy_source = False
html_favicon = str(ROOT / _BOOK["html"]["favicon"])  # no request for /favicon.ico

revealjs_style_theme = "white"
revealjs_static_path = [str(ROOT / "booktools" / "build" / "slides_conf" / "static")]
revealjs_css_files = ["formulated-slides.css"]
revealjs_js_files = ["formulated-slides.js"]
revealjs_script_conf = {
    "width": 1280,
    "height": 720,
    "margin": 0.04,
    "hash": True,
    "slideNumber": "c/t",
    "controls": True,
    "center": False,
    "transition": "none",
    "navigationMode": "linear",  # the arrow keys walk every slide, continuations included
}
revealjs_script_plugins = [
    {"name": "RevealNotes", "src": "revealjs/dist/plugin/notes.js"}
]


def _korean_numbers(app: Sphinx, config: Any) -> None:
    """Exercises read "연습문제 8.1" in the Korean decks, as in the Korean book."""
    if config.language == "ko":
        config.numfig_format = {
            **(config.numfig_format or {}),
            "exercise": f"{sphinx_i18n.EXERCISE_KO} %s",
        }


class BoxesAreNotSlides(SphinxPostTransform):
    """sphinx-proof and sphinx-exercise put a box's body in a ``section`` node, which the
    revealjs writer would turn into a slide of its own: here it is a plain container."""

    default_priority = 900

    def run(self, **kwargs: Any) -> None:
        for section in list(self.document.findall(nodes.section)):
            if not isinstance(section.parent, (nodes.section, nodes.document)):
                box = nodes.container(
                    "",
                    *section.children,
                    classes=section["classes"],
                    ids=section["ids"],
                )
                section.replace_self(box)


class TranslatePrinted(SphinxPostTransform):
    """The Korean decks: what cells printed, through the chapter's outputs catalogue
    (:func:`booktools.sphinx.i18n.translate_printed`), as in the Korean book; the revealjs
    writer's ``<pre><code>`` is not the HTML that the book's page-level pass rewrites."""

    default_priority = 2
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        table = sphinx_i18n.output_table(self.app, self.env.docname)
        if table is None:
            return
        for block in list(self.document.findall(nodes.literal_block)):
            if {"output", "stream"} <= set(block["classes"]):
                english = block.astext()
                korean = sphinx_i18n.translate_printed(english, table)
                if korean != english:
                    block.rawsource = korean
                    block[:] = [nodes.Text(korean)]


#: The label slides.py puts on a slide's title: ``sn-8-3-2-k7`` is section 8.3.2 (slide 7).
_NUMBER_LABEL = re.compile(r"^sn-(?P<number>\d+(?:-\d+)*)-k\d+$")


class NumberTitles(SphinxPostTransform):
    """A slide's title, translated, after the number of its chapter's section ("8.3 ")."""

    default_priority = 5

    def run(self, **kwargs: Any) -> None:
        for section in self.document.findall(nodes.section):
            for id_ in section["ids"] + section["names"]:
                if m := _NUMBER_LABEL.match(id_):
                    title = section[0]
                    if isinstance(title, nodes.title):
                        number = m["number"].replace("-", ".")
                        title.insert(0, nodes.Text(number + " "))
                    break


def sentences(paragraph: nodes.Element) -> list[list[nodes.Node]]:
    """The sentences of ``paragraph``, each as its nodes (a text node split where a sentence
    ends: after ``.``, ``!`` or ``?`` and a space)."""
    found: list[list[nodes.Node]] = [[]]
    children: list[nodes.Node] = []
    for child in (
        paragraph.children
    ):  # adjacent texts as one (a line break is a text of its own)
        if (
            isinstance(child, nodes.Text)
            and children
            and isinstance(children[-1], nodes.Text)
        ):
            children[-1] = nodes.Text(str(children[-1]) + str(child))
        else:
            children.append(child)
    for child in children:
        if not isinstance(child, nodes.Text):
            found[-1].append(child)
            continue
        parts = re.split(r"(?<=[.!?])(\s+)", str(child))
        for k, part in enumerate(parts):
            if k % 2:
                found[-1].append(nodes.Text(part))
                found.append([])
            elif part:
                found[-1].append(nodes.Text(part))
    return [s for s in found if s]


def drop_page_lines(
    paragraph: nodes.Element,
    pattern: re.Pattern[str] = PAGE_ONLY,
    lead_in: re.Pattern[str] | None = None,
) -> None:
    """``paragraph`` without its sentences that ``pattern`` finds (about the page), and,
    given ``lead_in``, without a last sentence that it finds (one that leads in to a list or
    a formula the paragraph does not hold)."""
    found = sentences(paragraph)
    kept = [
        s for s in found if not pattern.search("".join(n.astext() for n in s).strip())
    ]
    while (
        lead_in
        and kept
        and lead_in.search("".join(n.astext() for n in kept[-1]).strip())
    ):
        kept.pop()
    if len(kept) != len(found):
        paragraph.clear()
        for sentence in kept:
            paragraph.extend(sentence)


class PromptsWithoutPageLines(SphinxPostTransform):
    """An exercise's prompt on a slide, without "Store … in `x`", "Graded to …" and the like
    (in either language: after translation)."""

    default_priority = 6

    def run(self, **kwargs: Any) -> None:
        for box in list(self.document.findall(nodes.Element)):
            if "exercise" in box.get("classes", []):
                for paragraph in list(box.findall(nodes.paragraph)):
                    drop_page_lines(paragraph, GRADER)


class SpokenNotes(SphinxPostTransform):
    """Speaker notes as text to say: the speaker view shows them as text, so math becomes
    text (:func:`booktools.build.notes.spoken_math`), and a sentence about the page goes."""

    default_priority = 7

    def run(self, **kwargs: Any) -> None:
        from sphinx_revealjs._ext.notes import revealjs_notes

        for notes in list(self.document.findall(revealjs_notes)):
            for math in list(notes.findall(nodes.math)):
                math.replace_self(nodes.Text(spoken_math(math.astext())))
            # a reference is not resolved yet: its title is said, a bare label is not
            for xref in list(notes.findall(addnodes.pending_xref)):
                if xref.get("refexplicit"):
                    xref.replace_self(nodes.Text(xref.astext()))
                else:
                    xref.parent.remove(xref)
            for paragraph in list(notes.findall(nodes.paragraph)):
                drop_page_lines(paragraph, lead_in=LEAD_IN)
                text = re.sub(r"\s+", " ", paragraph.astext()).strip()
                text = EMPTY_BRACKETS.sub("", text)
                paragraph.replace_self(nodes.paragraph(text, text))


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _korean_numbers, priority=400)
    app.add_transform(sphinx_i18n.KeepMathBlocks)
    app.add_post_transform(BoxesAreNotSlides)
    app.add_post_transform(NumberTitles)
    app.add_post_transform(PromptsWithoutPageLines)
    app.add_post_transform(SpokenNotes)
    app.add_post_transform(TranslatePrinted)
    app.connect("build-finished", sphinx_i18n.translate_outputs)
    return {"parallel_read_safe": True}
