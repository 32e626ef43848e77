"""Sphinx extension: a chapter reference names the chapter by number and title.

``_config.yml`` lists it.  A ``{doc}`` role without a text of its own, ``{doc}`15_bert_roberta```,
renders in Sphinx as the page's title alone ("BERT and RoBERTa"), which reads as a noun in the
sentence ("BERT and RoBERTa builds BERT's input").  Here it renders as

=====================  ===================================  ==============================
page                   English                              Korean (``language=ko``)
=====================  ===================================  ==============================
numbered chapter       Chapter 15 (BERT and RoBERTa)        15장(BERT와 RoBERTa)
appendix               Appendix B (Errata)                  부록 B(정오표)
unnumbered (intro)     The Formulated GPT                   its Korean title
=====================  ===================================  ==============================

in the HTML and the LaTeX (PDF) books alike: :class:`ChapterReferences` runs before Sphinx
resolves the references (post-transform, priority 5 < 10).  The number is the one the table of
contents gives the chapter (``env.toc_secnumbers``: ``numbered`` parts of ``_toc.yml``,
continued across parts by sphinx-multitoc-numbering); an appendix is a page of the unnumbered
part after the numbered ones, lettered A, B, ... in the order of ``_toc.yml``, as the PDF
letters them (:func:`booktools.sphinx.pdf.letter_appendices`).  The title is the page's title
in the book's language (the Korean book's titles come from its catalogues).  A role with its own
text, ``{doc}`chapter 5 <05_notation_shapes>```, keeps it.

:func:`chapter_ref_text` is the one format of such a reference; the Colab notebooks use it too
(:mod:`booktools.build.plain_markdown`).
"""

from __future__ import annotations

import re
import string
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import docname_join
from sphinx.util.nodes import clean_astext

__all__ = [
    "FORMATS",
    "FORMATS_BRACKETED",
    "chapter_ref_text",
    "number_from_stem",
    "toc_order",
    "chapter_numbers",
    "ChapterReferences",
    "setup",
]

#: language -> (a numbered chapter, an appendix); ``{n}`` its number or letter.  Korean: no
#: space before the bracket, as the Korean book writes a gloss ("15장(BERT와 RoBERTa)").
FORMATS: dict[str, tuple[str, str]] = {
    "en": ("Chapter {n} ({title})", "Appendix {n} ({title})"),
    "ko": ("{n}장({title})", "부록 {n}({title})"),
}
#: The same inside parentheses, "(Chapter 9, Masks)", so that brackets do not nest.
FORMATS_BRACKETED: dict[str, tuple[str, str]] = {
    "en": ("Chapter {n}, {title}", "Appendix {n}, {title}"),
    "ko": ("{n}장 {title}", "부록 {n} {title}"),
}


def chapter_ref_text(
    number: int | str | None,
    title: str,
    language: str | None = "en",
    bracketed: bool = False,
) -> str:
    """How a reference to a chapter reads: ``number`` an int for a numbered chapter, a letter
    for an appendix, ``None`` for a page without a number (then the title alone).

    ``chapter_ref_text(15, "BERT and RoBERTa")`` -> ``"Chapter 15 (BERT and RoBERTa)"``;
    ``chapter_ref_text("B", "정오표", "ko")`` -> ``"부록 B(정오표)"``.  A language without
    its own format (``None``, ``"de"``) gets the English one.  ``bracketed``: the reference
    stands inside parentheses, so it reads ``"Chapter 9, Masks"`` (no nested brackets)."""
    if number is None:
        return title
    if isinstance(number, bool) or not isinstance(number, (int, str)) or number == "":
        raise TypeError(f"number: expected an int, a letter or None, got {number!r}")
    formats = FORMATS_BRACKETED if bracketed else FORMATS
    chapter, appendix = formats.get((language or "en").split("_")[0], formats["en"])
    return (appendix if isinstance(number, str) else chapter).format(
        n=number, title=title
    )


def number_from_stem(stem: str) -> int | str | None:
    """A chapter's number from its file name, for tools without Sphinx's table of contents
    (the Colab notebooks): ``15_bert_roberta`` -> 15, ``appendix_b_errata`` -> ``"B"``,
    ``intro`` -> ``None``.  (``tests/test_chapter_refs.py`` checks it agrees with ``_toc.yml``.)"""
    if m := re.match(r"^(\d+)_", stem):
        return int(m.group(1))
    if m := re.match(r"^appendix_([a-z])_", stem):
        return m.group(1).upper()
    return None


def toc_order(env: BuildEnvironment, root: str) -> list[str]:
    """Every page of the table of contents in reading order (depth first from ``root``)."""
    order: list[str] = []

    def walk(doc: str) -> None:
        for child in env.toctree_includes.get(doc, []):
            if child not in order and child != root:
                order.append(child)
                walk(child)

    walk(root)
    return order


def chapter_numbers(env: BuildEnvironment, root: str) -> dict[str, int | str]:
    """docname -> the chapter's number (its toc number) or an appendix's letter (a page without a
    number after the first numbered one, lettered in toc order); pages without either are left
    out.  Only pages at the top level of the numbering count (a numbered sub-page has a tuple of
    several numbers and is no chapter)."""
    numbers: dict[str, int | str] = {}
    for doc, secnums in env.toc_secnumbers.items():
        top = (secnums or {}).get("")
        if top and len(top) == 1:
            numbers[doc] = int(top[0])
    letters = iter(string.ascii_uppercase)
    seen_numbered = False
    for doc in toc_order(env, root):
        if doc in numbers:
            seen_numbered = True
        elif seen_numbered:
            numbers[doc] = (
                next(letters, None) or doc
            )  # 27 appendices: never (then the name)
    return numbers


def _in_brackets(node: nodes.Node) -> bool:
    """Whether the text just before ``node`` opens a bracket that is still open ("… (see ")."""
    before = node.previous_sibling()
    if not isinstance(before, nodes.Text):
        return False
    text = before.astext()
    return text.rfind("(") > text.rfind(")")


class ChapterReferences(SphinxPostTransform):
    """A ``{doc}`` reference without its own text reads "Chapter 15 (BERT and RoBERTa)"
    (:func:`chapter_ref_text`): it becomes a reference *with* that text before the references
    are resolved, so Sphinx's resolver (std domain, ``doc``) keeps it, in every builder."""

    default_priority = (
        5  # before sphinx.transforms.post_transforms.ReferencesResolver (10)
    )

    def run(self, **kwargs: Any) -> None:
        numbers = chapter_numbers(self.env, self.config.root_doc)  # 26 pages: cheap
        for node in list(self.document.findall(addnodes.pending_xref)):
            if (
                node.get("refdomain") != "std"
                or node.get("reftype") != "doc"
                or node.get("refexplicit")
            ):
                continue
            docname = docname_join(
                node.get("refdoc", self.env.docname), node["reftarget"]
            )
            if docname not in self.env.titles:
                continue  # a missing page: Sphinx warns about it as before
            text = chapter_ref_text(
                numbers.get(docname),
                clean_astext(self.env.titles[docname]),
                self.config.language,
                bracketed=_in_brackets(node),
            )
            inner = (
                node.children[0]
                if node.children and isinstance(node.children[0], nodes.Element)
                else nodes.inline(classes=["xref"])
            )
            inner[:] = [nodes.Text(text)]
            node[:] = [inner]
            node["refexplicit"] = True


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_post_transform(ChapterReferences)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
