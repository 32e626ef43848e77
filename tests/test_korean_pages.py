"""Every word of a Korean page is Korean: a scan of the built Korean book.

Every page under ``_build/html/ko`` (``python -m booktools i18n build``; skipped where absent)
is read as a reader meets it: the visible text, the ``<title>``, and the attributes a reader
sees or hears (``alt``, ``title``, ``aria-label``, ``placeholder``, the tooltips'
``data-bs-title``).  A word of English letters is an offence unless it is

* inside code, printed output or math (``<code>``, ``<pre>``, ``<kbd>``, ``.math``, MathJax),
  or a script or style;
* an identifier: snake_case, dotted (``formulated.formulas``, ``.ipynb``), with a digit
  (``float32``, ``GPT-2``), a path or a URL;
* an acronym in capitals (GPT, BERT, RNN, PDF), or one letter (a variable: *n*, (a));
* the English gloss in parentheses right after Hangul, the first-use gloss of a term
  (``어텐션(attention)``);
* a verbatim quotation of an English source in curly quotes (“…”), which the Korean text
  follows with its translation: a citation keeps the source's words;
* data in single curly quotes (‘dog’, ‘The big red dog’, ‘low’, [‘lo’, ‘w’]): the words of
  the examples' corpora, vocabularies and sentences are data, not prose, and the Korean text
  quotes them so (the rule of the Korean edition: a data word is never left bare);
* an erratum's key shown as a link to its own box (``mask-multiplicative`` linking to
  ``#erratum-mask-multiplicative``): an identifier by its form, a link whose text is the
  end of its target's label;
* a letter named in a formula written in plain text (``X-tilde``, ``theta-hat``);
* a name in :data:`NAMES` (software, people, titles of the cited works).

The offences are counted per *kind* (where on the page they are: the theme's frame, the page
title, exercise labels, figures, the code boxes, outputs, the sidebar's page titles, prose),
and a test per kind fails on any, printing the first offenders with their pages.  The kinds
whose English comes from a file another part of the project owns are marked ``xfail`` with
that owner (:data:`PENDING`): the test is useful now and strict once they are done (an
``xfail`` that passes is an error, ``strict=True``).

``python tests/test_korean_pages.py [folder]`` prints the counts and the first offenders.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from _chapters import ROOT

#: The built Korean book (``FORMULATED_KO_HTML`` names another, e.g. an older build's copy).
KO_HTML = Path(os.environ.get("FORMULATED_KO_HTML") or ROOT / "_build" / "html" / "ko")

#: Names written in Latin letters in Korean text too, each with why.  Acronyms, identifiers
#: and words with digits (GPT-2, float32) need no entry.
NAMES: dict[str, str] = {
    # software, libraries and services the book uses or launches (a product name)
    "PyTorch": "library",
    "NumPy": "library",
    "Python": "language",
    "Jupyter": "software",
    "JupyterLab": "software",
    "JupyterHub": "software",
    "Binder": "service",
    "Colab": "service",
    "MathJax": "software",
    "Thebe": "software",
    "GitHub": "service",
    "Hugging Face": "company",
    "transformers": "the Hugging Face library's name",
    "tokenizers": "the Hugging Face library's name",
    "numpy": "the package's name (pip)",
    "matplotlib": "the package's name (pip)",
    "ipywidgets": "the package's name (pip)",
    "Chromium": "software (the browser that prints the handouts)",
    "Ctrl": "the key's label on a Korean keyboard",
    # model and layer names the book keeps in Latin letters (source 003 does too)
    "LayerNorm": "layer name",
    "RoBERTa": "model name",
    "AdamW": "optimizer name",
    "Adam": "optimizer name",
    "XLNet": "model name",
    "ReLU": "function name",
    "GPT-Neo": "model name",
    "Otter": "software (Otter-Grader)",
    "otter": "its command",
    "Docker": "software",
    "Gradescope": "service",
    "Markdown": "format",
    "Rust": "language",
    "Ubuntu": "system",
    "fairseq": "library",
    "Muon": "optimizer name",
    "Wikipedia": "data set",
    "Reddit": "data source",
    "zip": "file format",
    "Top-k": "sampling method",
    "Top-p": "sampling method",
    # people cited (the book cites by name; Korean texts keep the Latin spelling)
    "Sennrich": "cited",
    "Vaswani": "cited",
    "Shannon": "cited",
    "Xiong": "cited",
    "Newton": "cited (Newton-Schulz)",
    "Schulz": "cited",
    "Hinton": "cited",
    "Claude": "cited (Claude Shannon)",
    "Phuong": "cited",
    "Hutter": "cited",
    "GPT-2 small": "model size name",
    "GPT-2 medium": "model size name",
    "GPT-2 large": "model size name",
    "BERT-base": "model size name",
    "BERT-large": "model size name",
    "top-k": "sampling method",
    "top-p": "sampling method",
    "Tiny Shakespeare": "data set name",
    "formulated": "the book's Python package",
    # the operators of source 000/001's boxes, named as the boxes name them (\\operatorname)
    "Stack": "operator name",
    "Concat": "operator name",
    "OneHot": "operator name",
    "act": "operator name (the FFN's activation, \\operatorname{act})",
    # PyTorch's and NumPy's names, as the sources' code tables (appendix B) name them
    "torch": "the PyTorch package's name",
    "keepdim": "PyTorch argument",
    "pos": "the sinusoids' position variable (pos)",
    "matmul": "PyTorch and NumPy function",
    "otter-grader": "software",
    "Data 8": "course name (UC Berkeley)",
    "Mary": "cited (Mary Phuong)",
    "Devlin": "cited (Devlin et al. 2019, BERT)",
    # transformers' model types, as chapter 13's code passes them and its table prints them
    "openai-gpt": "transformers model type",
    "bert": "transformers model type",
    "roberta": "transformers model type",
    # mathematical function names and values, as an alt text writes a formula in plain text
    "tanh": "function",
    "sqrt": "function",
    "sin": "function",
    "cos": "function",
    "exp": "function",
    "log": "function",
    "ln": "function",
    "diag": "function",
    "softmax": "function",
    "argmax": "function",
    "argmin": "function",
    "NaN": "floating-point value",
    "inf": "floating-point value",
    # titles of the cited works (a title stays as published; the Korean follows in brackets)
    "Formal Algorithms for Transformers": "source 002's title",
    "The Formulated GPT-2": "sources 000 and 001's title",
    "Attention Is All You Need": "paper title",
    # units
    "nat": "unit of information (nats)",
    "px": "unit (pixels)",
    "dpi": "unit (dots per inch)",
    "ft": "unit (feet), as the source's quoted figure gives it",
    # Greek letters and functions spelled out, as the sources' ledgers (appendix B) and an alt
    # text write a formula in plain text: LN(x) = (x - mu)/sqrt(var + eps) * gamma + beta
    **{
        name: "a formula in plain text"
        for name in (
            "alpha beta gamma delta Delta epsilon eps theta Theta lambda mu sigma tau phi "
            "Phi erf var std mean sum max min sigmoid relu gelu"
        ).split()
    },
    # Python's names of a value's type, as appendix E's tables print them: (ndarray float64)
    **{
        name: "Python type or constant"
        for name in "ndarray dict tuple list str int float bool True False None".split()
    },
    # source 002's function names (string to index and back), written without code font in
    # the sources' ledgers as in the source
    "stoi": "source 002's function name",
    "itos": "source 002's function name",
    "autograd": "PyTorch's module name",
    # people and companies cited (single names: a first name or a surname alone)
    "Elwood": "cited (Claude Elwood Shannon)",
    "Radford": "cited",
    "Brown": "cited (Brown et al. 2020)",
    "Bengio": "cited",
    "Simard": "cited",
    "Frasconi": "cited",
    "Hochreiter": "cited",
    "Schmidhuber": "cited",
    "Srivastava": "cited",
    "Marcus": "cited (Gary Marcus)",
    "Apple": "company (Apple's MPS)",
}

#: What a kind's English comes from, where it is not the frame's (booktools/sphinx/i18n.py)
#: to fix: kind -> its owner.  Remove an entry once its owner is done (strict xfail).
PENDING: dict[str, str] = {}

#: Pages written by Sphinx and its extensions, not from a chapter.
GENERATED = ("genindex.html", "search.html", "prf-prf.html")

KINDS = (
    "page title",
    "frame",
    "exercise label",
    "figure",
    "code box",
    "outputs",
    "sidebar",
    "prose",
)

_HANGUL = "\uac00-\ud7a3"
#: Stands for an excluded element (code, math) in the text, so that it is no letter.
_HOLE = "\ufffc"
_EXCLUDED_TAGS = {
    "script",
    "style",
    "pre",
    "code",
    "kbd",
    "samp",
    "svg",
    "math",
    "template",
    "noscript",
    "mjx-container",
}
_EXCLUDED_CLASSES = {"math", "MathJax", "MathJax_Preview", "mjx-chtml", "highlight"}
_ATTRIBUTES = ("alt", "title", "aria-label", "placeholder", "data-bs-title")
_BLOCKS = {
    "p",
    "div",
    "li",
    "ul",
    "ol",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "td",
    "th",
    "tr",
    "dt",
    "dd",
    "dl",
    "figcaption",
    "figure",
    "section",
    "article",
    "nav",
    "header",
    "footer",
    "aside",
    "button",
    "title",
    "table",
    "caption",
    "blockquote",
    "br",
    "details",
    "summary",
    "label",
    "form",
    "main",
    "body",
    "head",
    "option",
    "a",
}

#: An operand of a formula in plain text: a name (X-tilde, Z_pre-head), a number, or a call
#: whose arguments have no Hangul (sqrt(d_q), Embeddings(tokens)).
_OPERAND = (
    r"-?[A-Za-z_0-9]\w*(?:-[A-Za-z]\w*)*(?:\([^()\uac00-\ud7a3]*"
    r"(?:\([^()\uac00-\ud7a3]*\)[^()\uac00-\ud7a3]*)*\))?"
)
#: Spans that are no offence, cut from the text before its words are looked at.
_ALLOWED = re.compile(
    "|".join(
        [
            r"(?<![A-Za-z])[A-Za-z]+-(?:tilde|hat|bar)(?![A-Za-z])",  # X-tilde, theta-hat
            # a formula in plain text (the sources' ledgers, appendix B): a function applied
            # to arguments without Hangul, Softmax(Mask QK^T / sqrt(D)); a letter with a
            # superscript or subscript, Mask^BD, W_e
            r"(?<![A-Za-z])[A-Za-z][\w-]*\([^()\uac00-\ud7a3]*"
            r"(?:\([^()\uac00-\ud7a3]*\)[^()\uac00-\ud7a3]*)*\)",
            r"(?<![A-Za-z])[A-Za-z]\w*\^[\w{}()-]+",
            # an assignment or a product in plain-text code: context = weights @ value,
            # unbiased=False, scores / sqrt(d_q)
            r"(?<![A-Za-z])[A-Za-z_]\w*(?:\s*(?:=|@|/)\s*" + _OPERAND + ")+",
            r"(?<![\w])(?:=|@)\s*" + _OPERAND,
            r"\^[\w{}()-]+",  # a superscript: X^ohe
            # indexing in plain-text code: W_e[ids], W_e.T[ids], x[:, -1]
            r"(?<![A-Za-z])[A-Za-z_][\w.]*\[[^\[\]\uac00-\ud7a3]*\]",
            r"<\|[\w-]+\|>",  # a special token: <|endoftext|>
            "(?<![A-Za-z])(?:"
            + "|".join(sorted((re.escape(n) for n in NAMES), key=len, reverse=True))
            + ")(?![A-Za-z])",
            # a gloss right after Hangul, or after a name that ends a Korean phrase: 구현하는 GPT(…)
            rf"(?<=[{_HANGUL}])(?: ?[A-Z][\w.-]*)?\([^()]*(?:\([^()]*\)[^()]*)*\)",
            r"“[^”]*”",  # a quotation
            r"‘[^’]*’",  # data: an example's word or sentence
            r"https?://\S+",  # a URL
            r"[\w.-]*/[\w./:-]+",  # a path
            r"(?<![\w.])\.[A-Za-z]\w*",  # a file extension (.ipynb)
            r"[A-Za-z_]\w*(?:\.\w+)+",  # dotted identifier
            r"\w*_\w*(?:-\w+)*",  # snake_case (Z_pre-head)
            r"[A-Za-z]*\d[\w-]*|[A-Za-z]+-\d[\w.-]*",  # with a digit: float32, GPT-2
            # an acronym (GPT, GPUs), also joined to a prefix (pre-LN)
            r"(?<![A-Za-z])(?:[A-Za-z]+-)?[A-Z][A-Z0-9]+s?(?![A-Za-z])",
            # a word with a capital inside is a name by its form (WebText, FlashAttention, nanoGPT):
            # English words have none
            r"(?<![A-Za-z])[A-Za-z]*(?:[a-z][A-Z]|[A-Z]{2}[a-z])[A-Za-z]*(?![A-Za-z])",
            # English followed at once by its Korean translation in brackets: Notations(표기법)
            rf"[A-Za-z][\w .,'’&-]*\((?=[{_HANGUL}])[^()]*\)",
        ]
    )
)
#: In the text of a chapter (not the frame), words that are all capitalized, two or more,
#: are a name or a title: Common Crawl, Mary Phuong, Bidirectional Encoder Representations
#: from Transformers.
_TITLE_CASE = re.compile(
    r"[A-Z][\w'’-]*(?:,? (?:(?:of|for|from|and|is|in|the|to|on|with) )*"
    r"[A-Z][\w'’-]*)+"
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]")


@dataclass(frozen=True)
class Finding:
    """English on a Korean page: the page, the kind of place, the words and their context."""

    page: str
    kind: str
    words: str
    context: str


def _classes(tag) -> set[str]:
    return set(tag.get("class") or [])


_KEY = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+")


def _key_link(tag) -> bool:
    """A link whose text is an identifier naming its own target (an erratum's key,
    ``mask-multiplicative`` -> ``…#erratum-mask-multiplicative``)."""
    if tag.name != "a":
        return False
    text = tag.get_text().strip()
    href = str(tag.get("href") or "")
    return bool(_KEY.fullmatch(text)) and (
        href.endswith("#" + text) or href.endswith("-" + text)
    )


def _excluded(tag) -> bool:
    """Code, math, scripts, text marked as another language (the language switch's
    "English", ``lang="en"``), and a link that names its target by its key."""
    lang = tag.get("lang")
    return (
        _key_link(tag)
        or tag.name in _EXCLUDED_TAGS
        or bool(_classes(tag) & _EXCLUDED_CLASSES)
        or (tag.name != "html" and isinstance(lang, str) and not lang.startswith("ko"))
    )


def _attribute_kind(tag, name: str) -> str:
    """An attribute's kind: an image's ``alt`` where the image is; the labels, tooltips and
    placeholders of the page's controls (a heading's link, a button, a landmark) are the
    frame's, except inside a code box or an output."""
    kind = _kind(tag)
    if name == "alt" or kind in ("code box", "outputs", "page title"):
        return kind
    if (
        kind in ("prose", "sidebar", "figure")
        and name == "title"
        and not (_classes(tag) & {"headerlink"})
        and tag.name not in ("button", "nav")
    ):
        return kind
    return "frame"


def _kind(tag) -> str:
    """Where a tag sits on the page, from its nearest telling ancestor."""
    for t in [tag, *tag.parents]:
        if t.name is None:
            continue
        c = _classes(t)
        if t.name == "title" and t.find_parent("head") is not None:
            return "page title"
        if "formulated-source" in c:
            return "code box"
        if (
            "admonition-title" in c
            and t.parent is not None
            and _classes(t.parent) & {"exercise", "solution"}
        ):
            return "exercise label"
        if t.name in ("figcaption", "figure") or (
            t is tag and t.name == "img" and t.find_parent("article")
        ):
            return "figure"
        if c & {"cell_output", "output"}:
            return "outputs"
        if t.name == "article":
            return "prose"
        if c & {
            "bd-docs-nav",
            "page-toc",
            "toc-entry",
        }:  # page titles and headings in the TOCs
            return "sidebar"
    return "frame"


def _texts(soup):
    """(kind, text) pieces of the page in reading order: visible text, with excluded elements
    as holes and block boundaries as newlines, then each attribute value on its own."""
    from bs4 import Comment, Doctype, NavigableString, Tag

    pieces: list[tuple[str, str]] = []
    attributes: list[tuple[str, str]] = []

    def walk(node, kind: str) -> None:
        for child in node.children:
            if isinstance(child, Tag):
                for name in _ATTRIBUTES:
                    value = child.get(name)
                    if (
                        isinstance(value, str)
                        and value.strip()
                        and not _excluded(child)
                    ):
                        attributes.append((_attribute_kind(child, name), value))
                if _excluded(child):
                    pieces.append((kind, _HOLE))
                    continue
                block = child.name in _BLOCKS
                if block:
                    pieces.append((kind, "\n"))
                walk(child, _kind(child))
                if block:
                    pieces.append((kind, "\n"))
            elif isinstance(child, NavigableString) and not isinstance(
                child, (Comment, Doctype)
            ):
                pieces.append((kind, str(child)))

    walk(soup, "frame")
    return pieces, attributes


def scan_html(text: str, page: str = "") -> list[Finding]:
    """The English words of one Korean page (its HTML ``text``), outside what is allowed."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(text, "html.parser")
    pieces, attributes = _texts(soup)
    found: list[Finding] = []
    # the visible text as one string, each character knowing its kind
    joined = "".join(p for _, p in pieces)
    kinds: list[str] = []
    for kind, p in pieces:
        kinds.extend([kind] * len(p))
    units = [(joined, kinds)] + [(v, [k] * len(v)) for k, v in attributes]
    for string, where in units:
        masked = _ALLOWED.sub(lambda m: " " * len(m.group(0)), string)
        # runs of English words on one line form one finding
        for run in re.finditer(r"[A-Za-z][A-Za-z'’ ,:;!?&-]*[A-Za-z]", masked):
            words = [w for w in _WORD.findall(run.group(0))]
            if not words:
                continue
            line_start = string.rfind("\n", 0, run.start()) + 1
            line_end = string.find("\n", run.end())
            line = string[line_start : line_end if line_end >= 0 else None]
            kind = where[run.start()]
            if kind in ("prose", "figure", "outputs") and _TITLE_CASE.fullmatch(
                run.group(0).strip()
            ):
                continue
            found.append(
                Finding(page, kind, run.group(0).strip(), " ".join(line.split())[:160])
            )
    return found


def scan_book(folder: Path = KO_HTML) -> list[Finding]:
    """:func:`scan_html` over every page of the built Korean book."""
    found: list[Finding] = []
    for path in sorted(folder.rglob("*.html")):
        if "_static" in path.parts or "_sources" in path.parts:
            continue
        page = path.relative_to(folder).as_posix()
        for f in scan_html(path.read_text(encoding="utf-8"), page):
            # the pages Sphinx writes itself (index, search, sphinx-proof's index) are frame
            found.append(
                Finding(f.page, "frame", f.words, f.context)
                if page in GENERATED and f.kind == "prose"
                else f
            )
    return found


def report(found: list[Finding], first: int = 8) -> str:
    """Counts per kind, then the first offenders of each kind with their pages."""
    counts = Counter(f.kind for f in found)
    lines = [
        "English on Korean pages, per kind: "
        + ", ".join(f"{k} {counts.get(k, 0)}" for k in KINDS)
    ]
    for kind in KINDS:
        of_kind = [f for f in found if f.kind == kind]
        distinct = Counter(f.words for f in of_kind)
        if of_kind:
            lines.append(f"-- {kind}: {len(of_kind)} ({len(distinct)} distinct)")
        for words, n in distinct.most_common(first):
            f = next(x for x in of_kind if x.words == words)
            lines.append(f"   {n:4}x {words!r} e.g. {f.page}: {f.context!r}")
    return "\n".join(lines)


# -- the scanner itself ------------------------------------------------------------------------


def test_scanner_finds_english_and_allows_the_rest() -> None:
    page = (
        "<html><head><title>8. 어텐션 — The Formulated GPT</title></head><body>"
        '<a href="#m">Skip to main content</a>'
        '<article class="bd-article"><p>어텐션(attention)은 <code>softmax</code>와 '
        '<span class="math">\\(\\sqrt{D}\\)</span>, GPT-2, PyTorch, '
        "formulated.formulas.attention, n_ctx, “infinite window”(무한 창)을 쓴다. "
        "The rest is English.</p>"
        '<img alt="A heatmap of weights" src="x.svg"/>'
        '<div class="dropdown formulated-source admonition"><p>Checked against it</p></div>'
        '<div class="exercise admonition"><p class="admonition-title">'
        "<span>Exercise 8.1</span></p></div></article>"
        '<input placeholder="Search this book..."/></body></html>'
    )
    allowed = (
        "<html><body><article><p>단어 ‘dog’와 ‘The big red dog’, [‘lo’, ‘w’], "
        '<a href="09_masks.html#erratum-mask-multiplicative">mask-multiplicative</a>, '
        "Softmax(Mask ⊙ QK^T / sqrt(D)) V, gamma와 beta, X-tilde, Mask^BD, "
        "context = weights @ value, unbiased=False, (ndarray float64 (3, 4)), "
        "W_e.T[ids], 특수 토큰 &lt;|endoftext|&gt;.</p>"
        "<p>단어 dog와 [ids] 토큰 &lt;endoftext&gt;, "
        '<a href="09_masks.html#erratum-mask-multiplicative">mask-additive</a>, '
        "Softmax(Mask 성분별 곱 QK^T) V</p></article></body></html>"
    )
    assert [f.words for f in scan_html(allowed)] == [
        "dog",
        "ids",
        "endoftext",
        "mask-additive",
        "Softmax",
        "Mask",
    ]
    found = {(f.kind, f.words) for f in scan_html(page)}
    assert found == {
        ("page title", "The Formulated"),
        ("frame", "Skip to main content"),
        ("prose", "The rest is English"),
        ("figure", "A heatmap of weights"),
        ("code box", "Checked against it"),
        ("exercise label", "Exercise"),
        ("frame", "Search this book"),
    }, found


# -- the built book -----------------------------------------------------------------------------

_FOUND: dict[Path, list[Finding]] = {}


def _book() -> list[Finding]:
    if not (KO_HTML / "index.html").is_file():
        pytest.skip("no Korean book: run `python -m booktools i18n build` (make book)")
    if KO_HTML not in _FOUND:
        _FOUND[KO_HTML] = scan_book(KO_HTML)
    return _FOUND[KO_HTML]


def _param(kind: str):
    if kind in PENDING:
        return pytest.param(
            kind, marks=pytest.mark.xfail(reason=PENDING[kind], strict=True)
        )
    return kind


@pytest.mark.slow  # parses every page of the built Korean book
@pytest.mark.parametrize("kind", [_param(k) for k in KINDS])
def test_no_english_on_korean_pages(kind: str) -> None:
    """No English word of this kind on any Korean page (the first offenders are printed)."""
    found = _book()
    of_kind = [f for f in found if f.kind == kind]
    assert not of_kind, report(of_kind, first=12)


# -- the Korean words of the frame ---------------------------------------------------------------


@functools.cache
def _soup(path: Path):
    """A Korean page parsed once for the tests below (html.parser, as the scan reads it)."""
    from bs4 import BeautifulSoup

    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


_EXERCISE = re.compile(r"연습문제 \d+\.\d+")
_SOLUTION = re.compile(r"연습문제 \d+\.\d+ 풀이")


@pytest.mark.slow  # parses every page of the built Korean book
def test_exercise_and_solution_labels() -> None:
    """Exercise boxes say "연습문제 N.M", solution boxes "연습문제 N.M 풀이" (the glossary's
    연습문제 / 풀이; sphinx-exercise's own Korean says "연습 N.M" and "해답 연습 N.M"), and
    a reference to an exercise says "연습문제 N.M"."""
    _book()
    bad: list[str] = []
    for path in sorted((KO_HTML / "chapters").glob("*.html")):
        soup = _soup(path)
        for box in soup.select(
            "div.exercise > p.admonition-title, div.solution > p.admonition-title"
        ):
            text = " ".join(box.get_text().split())
            rule = _SOLUTION if "solution" in box.parent["class"] else _EXERCISE
            if not rule.fullmatch(text):
                bad.append(f"{path.name}: {text!r}")
        for ref in soup.select("span.std-numref"):
            text = " ".join(ref.get_text().split())
            if text.startswith("연습") and not _EXERCISE.fullmatch(text):
                bad.append(f"{path.name}: reference {text!r}")
    assert not bad, f"{len(bad)} labels; first: {bad[:8]}"


@pytest.mark.slow  # parses every page of the built Korean book
def test_frame_korean_wording() -> None:
    """The theme's own Korean, corrected: the page TOC is 목차 (not 내용), 전체 화면으로 보기
    spaced, the footer names the authors in Korean order (not "으로 …"), and the page title
    ends with the book's Korean title."""
    _book()
    bad: list[str] = []
    for path in sorted((KO_HTML / "chapters").glob("*.html")):
        text = path.read_text(encoding="utf-8")
        soup = _soup(path)
        toc = soup.select_one("div.page-toc.tocsection")
        if toc is not None and toc.get_text().strip() != "목차":
            bad.append(f"{path.name}: page TOC title {toc.get_text().strip()!r}")
        if "전체 화면으로보기" in text:
            bad.append(f"{path.name}: 전체 화면으로보기")
        author = soup.select_one("p.component-author")
        if author is not None and author.get_text().strip().startswith("으로"):
            bad.append(f"{path.name}: footer {author.get_text().strip()!r}")
        if not soup.title.get_text().endswith("수식으로 구현하는 GPT"):
            bad.append(f"{path.name}: title {soup.title.get_text()!r}")
    copybutton = KO_HTML / "_static" / "copybutton.js"
    if copybutton.is_file() and "'ko':" not in copybutton.read_text(encoding="utf-8"):
        bad.append("copybutton.js: no Korean tooltips (Copy, Copied!)")
    assert not bad, f"{len(bad)} problems; first: {bad[:8]}"


if __name__ == "__main__":
    print(
        report(scan_book(Path(sys.argv[1]) if len(sys.argv) > 1 else KO_HTML), first=15)
    )
