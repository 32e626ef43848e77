"""Slides: one reveal.js deck per chapter, in English and Korean, designed as a lecture.

``make slides`` (``python -m booktools slides``) writes, for each numbered chapter, a slide
source into ``_build/slides_src/<lang>`` and builds it with sphinx-revealjs's ``revealjs``
builder into ``_build/html/slides/<lang>/chapters/<chapter>.html`` (the book serves them; each
chapter page and appendix C link to its deck), then a printable handout of each deck
(``…/handouts/<chapter>.pdf``, reveal.js's print mode rendered by headless Chromium, where
Chromium is installed).  The decks' text is the chapter's own, so that the Korean deck takes
it from the chapter's catalogue (``locales/ko``, the same docname); the outputs come from the
execution cache that ``make book`` fills.

A deck is a lecture (:func:`slide_cells`):

* a title slide (the chapter's number and title) and the objectives (the chapter's "By the
  end …" list);
* every ``{prf:definition}``, each on a slide of its own, and after it the lines of code that
  compute it (:func:`computation`: the body of the function the ``{formulated-source}`` box
  names, without its docstring and argument checks; at most :data:`MAX_CODE_LINES` lines on a
  slide, a class shown by its ``forward``; a comment ``<!-- slide-code NAME[: FIRST .. LAST] -->``
  above the box picks a method or a range of lines instead);
* every block marked by a line ``<!-- slide -->`` above it (:data:`MARK`; blank lines between
  them allowed): a code cell with a key figure (shown with its alt text), a step of the worked
  example (its code and what it printed) or a widget (the snapshot of its initial state:
  :func:`widget_outputs`); any other directive as it is;
* a summary (the chapter's "Summary" section, else the list of its definitions), then every
  ``{exercise}``'s prompt, without the autograder's instructions (:data:`PAGE_ONLY`);
  solutions never (``{solution}`` blocks and the cells between ``{solution-start}`` and
  ``{solution-end}`` are skipped; :func:`leaks` runs the student edition's leak scan over every
  deck).

A slide's title is its section's, numbered as in the chapter (8.3, 8.3.2).  Every slide has
speaker notes (``S`` in the deck), first found of: a comment ``<!-- notes … -->`` written for
the slide above its block (``<!-- notes title|objectives|summary … -->`` for those slides),
whose Korean is in ``locales/ko/slides/<docname>.po`` (:func:`update_notes_catalogues`); a
figure's alt text; the prose paragraph just above the block; a sentence of
:data:`WORDS`.  Notes are said, not read: their math is rendered as text
(:func:`spoken_math`) and a sentence about the page (:data:`PAGE_ONLY`) is left out.
reveal.js is npm's, vendored (:data:`REVEALJS`), and MathJax the book's offline copy: no CDN.
The Sphinx side (configuration, Korean outputs and figures, section numbers, notes) is
``booktools/build/slides_conf/conf.py``; its script ``formulated-slides.js`` still splits a
slide too tall for 1280x720 (tests/test_slides.py checks that none is, before it runs).
"""

from __future__ import annotations

import argparse
import ast
import base64
import copy
import json
import re
import shutil
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from booktools import myst
from booktools.build.toc import toc_files
from booktools.paths import LOCALES, ROOT

__all__ = [
    "LANGUAGES",
    "SRC",
    "OUT",
    "MARK",
    "REVEALJS",
    "MAX_CODE_LINES",
    "WORDS",
    "PAGE_ONLY",
    "GRADER",
    "NOTES_CATALOGUES",
    "Piece",
    "chapters",
    "chapter_number",
    "pieces",
    "objectives",
    "summary",
    "keyed_notes",
    "computation",
    "code_slides",
    "spoken_math",
    "without_page_lines",
    "widget_outputs",
    "slide_cells",
    "write_sources",
    "update_notes_catalogues",
    "notes_translations",
    "deck_path",
    "deck_href",
    "handout_path",
    "handout_href",
    "build",
    "handouts",
    "leaks",
    "main",
]

LANGUAGES = ("en", "ko")
#: The slide sources (a Sphinx project of its own) and the decks.
SRC = ROOT / "_build" / "slides_src"
OUT = ROOT / "_build" / "html" / "slides"
#: reveal.js, vendored from npm (its ``dist`` files the decks load, and its license).
REVEALJS = ROOT / "chapters" / "_static_assets" / "vendor" / "revealjs-6.0.2"
#: The Korean of the notes written for slides (one catalogue per chapter, msgid the English).
NOTES_CATALOGUES = LOCALES / "ko" / "slides"
#: The line above a block (a code cell, an admonition, ...) that puts it on a slide: an HTML
#: comment, which neither the book, its catalogues, the Colab notebooks nor the execution
#: cache's hash of the code cells sees (a cell tag would re-execute the chapter).
MARK = "<!-- slide -->"
#: The most lines of code a slide shows (a lecture shows the lines that are the formula).
MAX_CODE_LINES = 15
#: The height (px) a slide has below its title, and what a line of code and a printed line
#: take there (the deck's CSS: code at 0.66 and printed lines at 0.55 of 30 px, 1.2 apart):
#: a step whose code and output would not fit shows them on two slides.
SLIDE_BUDGET, CODE_LINE, PRINTED_LINE = 590, 24, 20
#: The directives that go on a slide whatever their tags.
KINDS = ("prf:definition", "formulated-source", "exercise")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
_NUMBERED = re.compile(r"^chapters/(?P<n>\d\d)_\w+$")
#: ``<!-- notes [title|objectives|summary]`` … ``-->``: notes written for a slide.
NOTES = re.compile(
    r"<!--\s*notes(?:[ \t]+(?P<key>title|objectives|summary))?[ \t]*\n(?P<text>.*?)-->",
    re.S,
)
#: ``<!-- slide-code NAME[: FIRST .. LAST] -->``: what a definition's code slide shows.
SLIDE_CODE = re.compile(r"<!--\s*slide-code\s+(?P<spec>.*?)\s*-->", re.S)

#: The words of a deck that are not the chapter's (no catalogue holds them).
WORDS: dict[str, dict[str, str]] = {
    "en": {
        "chapter": "Chapter {n}",
        "objectives": "Objectives",
        "objectives_lead": "By the end of this lecture you will be able to",
        "summary": "Summary",
        "definitions": "The definitions of this chapter:",
        "definition": "Definition {n}",
        "title_notes": "Today: {title}.",
        "objectives_notes": (
            "These are the aims of the lecture. Read them out, and come back to them at the "
            "summary: each one is a definition or an experiment we will do together."
        ),
        "definition_notes": (
            "Read the definition aloud, then name every symbol in it and its shape."
        ),
        "code_notes": (
            "The code of {names} in the package formulated: these lines are its computation, "
            "without the docstring and the argument checks. Walk through them line by line "
            "next to the formula of the previous slide."
        ),
        "cell_notes": "Run through what this step computes and what it printed.",
        "summary_notes": (
            "Recap: one sentence for each point, and ask which of the objectives is still "
            "unclear."
        ),
        "exercise_notes": (
            "Give the class a few minutes on this exercise; its solution is in the "
            "instructors' answer key, not on the slides."
        ),
    },
    "ko": {
        "chapter": "{n}장",
        "objectives": "학습 목표",
        "objectives_lead": "이 강의를 마치면 다음을 할 수 있다.",
        "summary": "요약",
        "definitions": "이 장의 정의:",
        "definition": "정의 {n}",
        "title_notes": "오늘의 주제는 {title}이다.",
        "objectives_notes": (
            "강의의 목표다. 소리 내어 읽고, 요약에서 다시 돌아온다. 목표 하나하나가 함께 "
            "살펴볼 정의나 실험이다."
        ),
        "definition_notes": "정의를 소리 내어 읽고, 그 안의 기호와 모양을 하나씩 짚는다.",
        "code_notes": (
            "formulated 패키지의 {names} 코드다. 보이는 줄이 그 계산이며, 문서 문자열과 인자 "
            "검사는 뺐다. 앞 슬라이드의 공식과 나란히 한 줄씩 짚어 간다."
        ),
        "cell_notes": "이 단계가 무엇을 계산하고 무엇을 출력했는지 짚어 간다.",
        "summary_notes": (
            "정리: 항목마다 한 문장씩 말하고, 학습 목표 가운데 아직 분명하지 않은 것이 "
            "무엇인지 묻는다."
        ),
        "exercise_notes": (
            "이 연습문제에 몇 분을 준다. 풀이는 슬라이드가 아니라 강사용 답안에 있다."
        ),
    },
}

#: The autograder's instructions in an exercise's prompt ("Store … in `x`.", "Graded to 4
#: significant digits.", "Float32 is precise enough."), in either language: not on a slide.
GRADER = re.compile(
    r"^Store\b|Graded to|Float32 is precise enough|저장하라\.?$|채점한다\.?$|Float32로도",
    re.I,
)
#: Sentences that speak of the page, the notebook or the autograder, not of the subject:
#: left out of speaker notes (both languages).
PAGE_ONLY = re.compile(
    r"live kernel|the page\b|this page\b|\bon the page|\bbelow\b|\babove\b|\bwidget\b"
    r"|\bthe cell\b|\bcells?\b (?:above|below)|Checked against|^Store\b|Graded to"
    r"|Float32 is precise enough|tests/\w"
    r"|라이브 커널|이 페이지|페이지는|아래|위의|위에서|위젯|셀은|셀이|셀로|저장하라|채점한다"
    r"|Float32로도",
    re.I,
)


@dataclass(frozen=True)
class Piece:
    """One piece of a chapter that goes on a slide: ``kind`` is a directive's name or
    ``"cell"`` (a marked code cell, ``cell`` its index among the chapter's code cells);
    ``text`` the block's lines, verbatim; ``heading`` the section's title and ``section`` its
    number within the chapter ("3", "3.2"); ``notes`` the prose paragraph above it ("" if
    none); ``written`` the notes written for its slide (a ``<!-- notes -->`` comment above
    it, "" if none); ``code`` the ``<!-- slide-code -->`` specs above it."""

    kind: str
    text: str
    heading: str
    notes: str
    cell: int = -1
    section: str = ""
    written: str = ""
    code: tuple[str, ...] = field(default=())


def chapters(root: Path = ROOT) -> list[str]:
    """The numbered chapters' docnames, in the order of ``_toc.yml``."""
    return [name for name in toc_files(root) if _NUMBERED.match(name)]


def chapter_number(name: str) -> int:
    """The number of chapter ``name`` (``chapters/08_attention`` -> 8)."""
    m = _NUMBERED.match(name)
    if not m:
        raise ValueError(f"name: {name!r} is not a numbered chapter (chapters/NN_name)")
    return int(m["n"])


def _comments_above(lines: list[str], start: int) -> tuple[list[str], int]:
    """The HTML comments just above line ``start`` (blank lines between allowed), top to
    bottom, and the line where they begin."""
    found: list[str] = []
    j = start - 1
    while True:
        while j >= 0 and not lines[j].strip():
            j -= 1
        if j < 0 or not lines[j].rstrip().endswith("-->"):
            break
        k = j
        while k >= 0 and "<!--" not in lines[k]:
            k -= 1
        if k < 0:
            break
        found.insert(0, "\n".join(lines[k : j + 1]).strip())
        j = k - 1
    return found, j + 1


def _paragraph_above(lines: list[str], start: int) -> str:
    """The prose paragraph that ends just above line ``start`` (blank lines and slide
    comments between allowed), or "" when a heading, a label, a block or a list is there."""
    _, top = _comments_above(lines, start)
    j = top - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    end = j + 1
    while j >= 0 and lines[j].strip():
        j -= 1
    para = lines[j + 1 : end]
    if not para or re.match(
        r"^(#|\(|`{3}|:{3}|~{3}|\+\+\+|\$\$|[-*] |\d+\. |<!--)", para[0]
    ):
        return ""
    if any(line.startswith(("```", ":::", "$$", "<!--")) for line in para):
        return ""
    return "\n".join(para)


def _written(comments: list[str]) -> str:
    """The notes of an unkeyed ``<!-- notes -->`` among ``comments`` ("" if none)."""
    for c in comments:
        if (m := NOTES.fullmatch(c)) and not m["key"]:
            return _joined(m["text"])
    return ""


def _joined(text: str) -> str:
    """A note's lines as one paragraph (as a catalogue's msgid holds it)."""
    return " ".join(line.strip() for line in text.strip().splitlines() if line.strip())


def keyed_notes(text: str) -> dict[str, str]:
    """The notes written for the title, objectives and summary slides (key -> text)."""
    return {m["key"]: _joined(m["text"]) for m in NOTES.finditer(text) if m["key"]}


def pieces(text: str) -> list[Piece]:
    """The pieces of a chapter's MyST text that go on slides, in order (see the module's
    docstring).  A ``{solution-start}`` never ended is a ``ValueError``, as in
    :func:`booktools.course.student.strip_solutions`."""
    _, body = myst.split_front_matter(text)
    lines = body.split("\n")
    found: list[Piece] = []
    heading, section, cell, gated, i = "", "", -1, False, 0
    counts = [0, 0]  # sections (##) and subsections (###) seen
    while i < len(lines):
        block = myst.block_at(lines, i)
        if block is None:
            if found_section := _count(lines[i], counts):
                heading, section = found_section
            elif m := myst.HEADING.match(lines[i]):
                heading = m["title"]
            i += 1
            continue
        name = block.name
        if name == "code-cell":
            cell += 1
        if name == "solution-start":
            gated = True
        elif name == "solution-end":
            gated = False
        elif not gated and name != "solution":
            whole = "\n".join(lines[block.start : block.end + 1])
            comments, _ = _comments_above(lines, block.start)
            marked = MARK in comments
            args = {
                "heading": heading,
                "notes": _paragraph_above(lines, block.start),
                "section": section,
                "written": _written(comments),
                "code": tuple(
                    m["spec"] for c in comments if (m := SLIDE_CODE.fullmatch(c))
                ),
            }
            if name in KINDS or (marked and name != "code-cell"):
                found.append(Piece(name, whole, **args))
            elif name == "code-cell" and marked:
                found.append(Piece("cell", whole, cell=cell, **args))
        i = block.end + 1
    if gated:
        raise ValueError(
            "text: a solution-start is never ended (expected a {solution-end})"
        )
    return found


def _title(text: str) -> str:
    _, body = myst.split_front_matter(text)
    m = re.search(r"^# (.+)$", body, re.M)
    if not m:
        raise ValueError("text: the chapter has no '# title' line")
    return m.group(1).strip()


def _first_paragraph(text: str) -> str:
    """The paragraph under the chapter's title (the title slide's notes)."""
    _, body = myst.split_front_matter(text)
    after = body.split("\n# ", 1)[-1].split("\n", 1)[-1].lstrip("\n")
    para = after.split("\n\n", 1)[0]
    return "" if para.startswith(("#", "<!--", "```")) else para


def objectives(text: str) -> list[str]:
    """The items of the chapter's "By the end of it you will be able to" list, each as its
    lines (verbatim, so that the catalogue translates it); [] if the chapter has none."""
    _, body = myst.split_front_matter(text)
    intro = body.split("\n## ", 1)[0]
    m = re.search(
        r"By the end\b.*?\n\n(?P<list>(?:[-*] [^\n]*\n(?:[ \t]+\S[^\n]*\n)*)+)",
        intro,
        re.S,
    )
    if not m:
        return []
    items: list[str] = []
    for line in m["list"].splitlines():
        if line.startswith(("- ", "* ")):
            items.append(line[2:])
        elif items:
            items[-1] += "\n" + line.strip()
    return items


def summary(text: str) -> str:
    """The body of the chapter's "Summary" section ("" if it has none)."""
    _, body = myst.split_front_matter(text)
    m = re.search(r"^## Summary[ \t]*\n(?P<body>.*?)(?=^## |\Z)", body, re.S | re.M)
    return m["body"].strip() if m else ""


# ---- the code of a definition --------------------------------------------------------------


def _guard(stmt: ast.stmt) -> bool:
    """A statement that checks the arguments instead of computing: ``raise``, ``assert``, an
    ``if`` that only raises, a call of a ``check_…`` helper."""
    if isinstance(stmt, (ast.Raise, ast.Assert)):
        return True
    if isinstance(stmt, ast.If) and not stmt.orelse:
        return all(isinstance(s, ast.Raise) for s in stmt.body)
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        called = (
            func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        )
        return called.lstrip("_").startswith(("check", "validate"))
    return False


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """``def name(arguments):`` on one line, without annotations."""
    args = copy.deepcopy(node.args)
    for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
        if a is not None:
            a.annotation = None
    return f"def {node.name}({ast.unparse(args)}):"


def computation(dotted: str, first: str = "", last: str = "") -> list[str]:
    """The lines of code a slide shows for the object at ``dotted`` (a function, or a class,
    shown by its ``forward``): its ``def`` line without annotations and its body without the
    docstring, the argument checks and the comment lines.  ``first`` and ``last``: only the
    lines from the first that contains ``first`` to the next that contains ``last``, under
    the ``def`` line and a line ``...``."""
    from booktools.sphinx.source import resolve, source_text

    obj = resolve(dotted)
    if isinstance(obj, type) and hasattr(obj, "forward"):
        return computation(f"{dotted}.forward", first, last)
    source = source_text(dotted)
    lines = source.splitlines()
    top = ast.parse(source).body[0]
    if not isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        raise ValueError(f"dotted: {dotted!r} is no function or class")
    body = top.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
    ):
        body = body[1:]  # the docstring
    shown = [] if isinstance(top, ast.ClassDef) else [_signature(top)]
    if isinstance(top, ast.ClassDef):
        shown.append(f"class {top.name}:")
    for stmt in body:
        if _guard(stmt):
            continue
        start = min(
            [stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])]
        )
        for line in lines[start - 1 : stmt.end_lineno]:
            if line.strip().startswith("#") or not line.strip():
                continue
            if isinstance(stmt, ast.FunctionDef) and _is_docstring_line(
                stmt, line, lines
            ):
                continue
            shown.append(line)
    if first or last:
        starts = [k for k, line in enumerate(shown) if first in line]
        if not starts:
            raise ValueError(f"{dotted}: no line contains {first!r}")
        ends = [k for k, line in enumerate(shown) if k >= starts[0] and last in line]
        if not ends:
            raise ValueError(f"{dotted}: no line after {first!r} contains {last!r}")
        kept = shown[starts[0] : ends[0] + 1]
        indent = re.match(r"\s*", kept[0])[0]
        shown = kept if starts[0] == 0 else [shown[0], f"{indent}...", *kept]
    text = textwrap.dedent("\n".join(shown))
    return text.splitlines()


def _is_docstring_line(node: ast.FunctionDef, line: str, lines: list[str]) -> bool:
    """Whether ``line`` belongs to the docstring of method ``node`` (a class's method)."""
    if not (node.body and isinstance(node.body[0], ast.Expr)):
        return False
    doc = node.body[0]
    if not isinstance(doc.value, ast.Constant) or not isinstance(doc.value.value, str):
        return False
    span = lines[doc.lineno - 1 : doc.end_lineno]
    return any(line is s for s in span)


def code_slides(
    names: list[str], specs: tuple[str, ...] = ()
) -> list[tuple[list[str], str]]:
    """The code slides of a ``{formulated-source}`` box naming ``names``: for each slide, the
    names it shows and its listing (at most :data:`MAX_CODE_LINES` lines; the objects of a
    box share a slide while they fit).  ``specs`` (``<!-- slide-code -->`` comments):
    ``NAME`` or ``NAME: FIRST .. LAST`` in place of the box's names."""
    shown: list[tuple[str, list[str]]] = []
    if specs:
        for spec in specs:
            name, _, span = spec.partition(":")
            first, _, last = span.partition("..")
            shown.append(
                (name.strip(), computation(name.strip(), first.strip(), last.strip()))
            )
    else:
        shown = [(n, computation(n)) for n in names]
    slides: list[tuple[list[str], list[str]]] = []
    for name, code in shown:
        if len(code) > MAX_CODE_LINES:
            raise ValueError(
                f"{name}: {len(code)} lines of code for one slide (at most "
                f"{MAX_CODE_LINES}): write <!-- slide-code {name}: FIRST .. LAST --> above "
                "its box to show the lines that are the formula"
            )
        if slides and len(slides[-1][1]) + 1 + len(code) <= MAX_CODE_LINES:
            slides[-1][0].append(name)
            slides[-1][1].extend(["", *code])
        else:
            slides.append(([name], list(code)))
    return [(n, "\n".join(code)) for n, code in slides]


# ---- notes ---------------------------------------------------------------------------------

_GREEK = {
    name: chr(code)
    for name, code in {
        "alpha": 0x3B1, "beta": 0x3B2, "gamma": 0x3B3, "delta": 0x3B4, "epsilon": 0x3B5,
        "varepsilon": 0x3B5, "zeta": 0x3B6, "eta": 0x3B7, "theta": 0x3B8, "iota": 0x3B9,
        "kappa": 0x3BA, "lambda": 0x3BB, "mu": 0x3BC, "nu": 0x3BD, "xi": 0x3BE, "pi": 0x3C0,
        "rho": 0x3C1, "sigma": 0x3C3, "tau": 0x3C4, "phi": 0x3C6, "varphi": 0x3C6,
        "chi": 0x3C7, "psi": 0x3C8, "omega": 0x3C9, "Gamma": 0x393, "Delta": 0x394,
        "Theta": 0x398, "Lambda": 0x39B, "Pi": 0x3A0, "Sigma": 0x3A3, "Phi": 0x3A6,
        "Psi": 0x3A8, "Omega": 0x3A9,
    }.items()
}  # fmt: skip
_SYMBOLS = {
    "times": "×", "cdot": "·", "cdots": "⋯", "ldots": "…", "dots": "…", "le": "≤",
    "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠", "approx": "≈", "in": "∈",
    "to": "→", "rightarrow": "→", "mapsto": "↦", "infty": "∞", "sum": "Σ", "prod": "Π",
    "partial": "∂", "nabla": "∇", "odot": "⊙", "otimes": "⊗", "oplus": "⊕", "sim": "~",
    "propto": "∝", "pm": "±", "mid": "|", "lvert": "|", "rvert": "|", "lVert": "‖",
    "rVert": "‖", "|": "‖", "top": "ᵀ", "R": "ℝ", "ell": "ℓ", "circ": "∘", "star": "*",
    "equiv": "≡", "ll": "≪", "gg": "≫", "cup": "∪", "cap": "∩", "subset": "⊂",
    "langle": "⟨", "rangle": "⟩", "lfloor": "⌊", "rfloor": "⌋", "lceil": "⌈",
    "rceil": "⌉", "neg": "¬", "forall": "∀", "exists": "∃", "{": "{", "}": "}",
    "%": "%", "_": "_", "#": "#", "&": "&", "$": "$",
}  # fmt: skip
_SUB = str.maketrans(
    "0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"
)
_SUP = str.maketrans("0123456789+-=()inT", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁱⁿᵀ")
_SPACING = re.compile(r"\\(?:,|;|:|!|quad|qquad| )|~")
_DROP = re.compile(
    r"\\(?:left|right|big|Big|bigg|Bigg|displaystyle|limits|nolimits)(?![a-zA-Z])"
)
_ONE_ARG = re.compile(
    r"\\(?:bm|boldsymbol|mathbf|mathrm|mathit|mathsf|mathtt|mathcal|mathbb|text|textrm"
    r"|textbf|textit|operatorname\*?|mbox)\s*\{(?P<arg>[^{}]*)\}"
)
_ACCENT = {
    "hat": "\u0302",
    "tilde": "\u0303",
    "bar": "\u0304",
    "vec": "\u20d7",
    "dot": "\u0307",
}


def _script(arg: str, table: dict[int, int], mark: str) -> str:
    """A sub- or superscript in Unicode where every character has one, else ``mark`` (a
    placeholder of ``^`` or ``_``) and the argument, in parentheses if longer than one."""
    if arg and all(ord(c) in table for c in arg):
        return arg.translate(table)
    return f"{mark}{arg}" if len(arg) == 1 else f"{mark}({arg})"


#: Placeholders while :func:`spoken_math` works: ``^``, ``_``, ``{``, ``}`` that stay.
_KEEP = {"\x00": "^", "\x01": "_", "\x02": "{", "\x03": "}"}


def spoken_math(tex: str) -> str:
    """TeX as plain text for speaker notes (which show no typeset math): letters, Unicode
    symbols and scripts (``\\bm{Q}\\bm{K}^\\top`` -> ``QKᵀ``, ``\\sqrt{D}`` -> ``√D``,
    ``\\frac{a}{b}`` -> ``a/b``), no backslash or brace left."""
    s = tex.replace("\\{", "\x02").replace("\\}", "\x03").replace("\\|", "‖")
    s = re.sub(r"\^\s*(?:\\top|\{\s*\\top\s*\}|\{T\})", "ᵀ", s)
    s = _SPACING.sub(" ", s)
    s = _DROP.sub("", s)
    s = re.sub(
        r"\\([a-zA-Z]+)(?![a-zA-Z])",
        lambda m: _GREEK.get(m[1], _SYMBOLS.get(m[1], m[0])),
        s,
    )
    for _ in range(8):  # innermost first, until nothing changes
        before = s
        s = _ONE_ARG.sub(
            lambda m: "ℝ" if m["arg"] == "R" and "mathbb" in m[0] else m["arg"], s
        )
        s = re.sub(
            r"\\(hat|tilde|bar|vec|dot)\s*\{([^{}]*)\}",
            lambda m: m[2] + _ACCENT[m[1]] if len(m[2]) == 1 else m[2],
            s,
        )
        s = re.sub(
            r"\\sqrt\s*\{([^{}]*)\}",
            lambda m: "√" + (m[1] if len(m[1].strip()) <= 1 else f"({m[1].strip()})"),
            s,
        )
        s = re.sub(
            r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}",
            lambda m: f"{_wrap(m[1])}/{_wrap(m[2])}",
            s,
        )
        s = re.sub(
            r"\^\s*\{([^{}]*)\}", lambda m: _script(m[1].strip(), _SUP, "\x00"), s
        )
        s = re.sub(
            r"_\s*\{([^{}]*)\}", lambda m: _script(m[1].strip(), _SUB, "\x01"), s
        )
        if s == before:
            break
    s = re.sub(r"\\([a-zA-Z]+)", lambda m: m[1], s)  # an operator's name: exp, log, ...
    s = re.sub(r"\\(.)", lambda m: _SYMBOLS.get(m[1], m[1]), s)
    s = re.sub(r"\^\s*([^\s\x00-\x03])", lambda m: _script(m[1], _SUP, "\x00"), s)
    s = re.sub(r"_\s*([A-Za-z0-9])", lambda m: _script(m[1], _SUB, "\x01"), s)
    s = s.replace("{", "").replace("}", "")
    for mark, char in _KEEP.items():
        s = s.replace(mark, char)
    return re.sub(r"\s+", " ", s).strip()


def _wrap(part: str) -> str:
    part = part.strip()
    return part if re.fullmatch(r"[\w\\√]+", part) else f"({part})"


def without_page_lines(text: str) -> str:
    """``text`` without its sentences about the page, the notebook or the autograder
    (:data:`PAGE_ONLY`)."""
    parts = re.split(r"(?<=[.!?])\s+", text.strip())
    return " ".join(p for p in parts if p and not PAGE_ONLY.search(p))


def _spoken(text: str) -> str:
    """A note as plain text to say: math rendered (:func:`spoken_math`), roles and emphasis
    marks left out, and no sentence about the page."""
    text = myst.MATH.sub(lambda m: spoken_math(m[0].strip("$")), _joined(text))
    text = myst.ROLE.sub(lambda m: myst.explicit(m["text"])[0] or m["text"], text)
    text = re.sub(r"\*\*?([^*]+)\*\*?", r"\1", text)
    return without_page_lines(text)


# ---- the deck ------------------------------------------------------------------------------


def _markdown(source: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def _notes(text: str) -> str:
    """The speaker-notes directive of a slide (the text to say, one paragraph)."""
    return f"\n\n```{{revealjs-notes}}\n{text}\n```" if text else ""


def _heading(title: str, number: str, slide: int) -> str:
    """A slide's title, with a label that carries the chapter's section number (the Sphinx
    side puts "8.3 " before the translated title: ``NumberTitles`` in slides_conf)."""
    label = f"(sn-{number.replace('.', '-')}-k{slide})=\n" if number else ""
    return f"{label}## {title}\n\n"


def widget_outputs(
    executed: dict[str, Any],
    outputs: list[dict[str, Any]],
    cell: int,
    language: str = "en",
    name: str = "",
) -> tuple[list[dict[str, Any]], str]:
    """A widget's snapshot as a slide shows it: the images of its initial state (the panels
    the PDF shows, :func:`booktools.sphinx.pdf_figures.widget_snapshot`) as outputs, and their
    alt text (the widget's title and settings), in ``language`` (Korean: the labels through
    chapter ``name``'s outputs catalogue, as the Korean book shows them)."""
    from booktools.sphinx.pdf_figures import widget_snapshot

    widgets = executed.get("metadata", {}).get("widgets", {})
    state = copy.deepcopy(widgets.get(WIDGET_STATE, {"state": {}}))
    if language == "ko":
        from booktools.i18n.outputs import OUTPUTS, output_table
        from booktools.sphinx.i18n import translate_widget_state

        translate_widget_state(state, output_table(OUTPUTS / f"{name}.po"))
    view = next(
        out["data"][WIDGET_VIEW]
        for out in outputs
        if WIDGET_VIEW in out.get("data", {})
    )
    images, alt, _ = widget_snapshot(state["state"], view.get("model_id", ""), language)
    if not images:
        raise ValueError(
            f"executed: code cell {cell + 1} (marked {MARK}) shows a widget without a figure "
            "panel: a deck has no snapshot of it to show"
        )
    shown = [
        {
            "output_type": "display_data",
            "data": {
                mime: data.decode("utf-8")
                if mime == "image/svg+xml"
                else base64.b64encode(data).decode("ascii")
            },
            "metadata": {},
        }
        for mime, data in images
    ]
    return shown, alt


def _height(code_lines: int, outputs: list[dict[str, Any]]) -> int:
    """About how tall a cell's code and printed text stand on a slide (px)."""
    printed = 0
    for out in outputs:
        text = out.get("text") or out.get("data", {}).get("text/plain", "")
        printed += len("".join(text).rstrip("\n").splitlines())
    return 16 + code_lines * CODE_LINE + 24 + printed * PRINTED_LINE


class _Deck:
    """The cells of one deck, with the language's words and the notes' translations."""

    def __init__(
        self, language: str, number: int, korean: dict[str, str], prose: dict[str, str]
    ) -> None:
        if language not in LANGUAGES:
            raise ValueError(f"language: {language!r} is not one of {LANGUAGES}")
        self.words, self.number, self.korean = WORDS[language], number, korean
        self.prose = prose
        self.language = language
        self.cells: list[dict[str, Any]] = []
        self.count = 0
        self.shown: set[str] = set()  # the objects whose code a slide showed

    def said(self, written: str, *fallbacks: str) -> str:
        """The notes of a slide: the written ones (in the deck's language), else the first
        fallback that still says something once the page's sentences are left out."""
        if written:
            text = self.korean.get(written, "") if self.language == "ko" else written
            if not text:
                raise ValueError(
                    f"notes: no Korean for the note {written[:60]!r}… in "
                    f"{NOTES_CATALOGUES} (python -m booktools slides --update-notes)"
                )
            return _spoken(text)
        for text in fallbacks:
            if text and (kept := _keep_translatable(text)):
                return kept
        return ""

    def slide(
        self, title: str, section: str, body: str, notes: str, level: str = "##"
    ) -> None:
        self.count += 1
        number = f"{self.number}.{section}" if section else ""
        if level == "#":
            head = f"# {title}\n\n"
        else:
            head = _heading(title, number, self.count)
        self.cells.append(_markdown(head + body.strip() + _notes(notes)))


def _keep_translatable(text: str) -> str:
    """Prose of the chapter as notes: verbatim (the Korean deck's catalogue translates the
    paragraph as a whole; the Sphinx side renders its math as text and leaves out its
    sentences about the page), or "" when every sentence is about the page."""
    plain = _spoken(text)
    return text if plain else ""


def slide_cells(
    text: str,
    executed: dict[str, Any],
    language: str = "en",
    name: str = "",
    korean: dict[str, str] | None = None,
    prose: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """The cells of a chapter's slide source (see the module's docstring): ``text`` the
    chapter's MyST, ``executed`` its executed notebook (the execution cache), whose code cells
    give the marked cells' outputs; a widget shows as its snapshot (:func:`widget_outputs`, in
    ``language``; ``name`` the chapter's docname); ``korean`` the Korean of the written notes
    (:func:`notes_translations`), ``prose`` of the chapter's sentences (its catalogue).  A marked cell whose code differs from the executed one is
    a ``ValueError`` (the cache is stale: ``make book`` or ``python -m booktools prebuild``)."""
    code = [c for c in executed["cells"] if c["cell_type"] == "code"]
    number = chapter_number(name) if _NUMBERED.match(name) else 0
    deck = _Deck(language, number, korean or {}, prose or {})
    words, keyed = deck.words, keyed_notes(text)
    title = _title(text)
    deck.slide(
        title,
        "",
        f"{words['chapter'].format(n=number)}" if number else "",
        deck.said(keyed.get("title", ""), _first_paragraph(text))
        or words["title_notes"].format(title=title),
        level="#",
    )
    aims = objectives(text)
    if aims:
        items = "\n".join("- " + item.replace("\n", "\n  ") for item in aims)
        deck.slide(
            words["objectives"],
            "",
            f"{words['objectives_lead']}\n\n{items}",
            deck.said(keyed.get("objectives", "")) or words["objectives_notes"],
        )
    found = pieces(text)
    definitions = [p for p in found if p.kind == "prf:definition"]
    summarized = False
    for piece in found:
        if piece.kind == "exercise" and not summarized:
            _summary_slide(deck, text, definitions, keyed.get("summary", ""))
            summarized = True
        if piece.kind == "formulated-source":
            block = myst.block_at(piece.text.split("\n"), 0)
            assert block is not None
            # an object shown on an earlier slide is not shown again (as the page links back)
            new = [n for n in block.arg.split() if n not in deck.shown]
            deck.shown.update(block.arg.split())
            if not new:
                continue
            specs = tuple(
                c
                for c in piece.code
                if any((c.split(":")[0].strip() + ".").startswith(n + ".") for n in new)
            )
            for names, listing in code_slides(new, specs):
                caption = ", ".join(f"`{n}`" for n in names)
                shown = ", ".join(n.rsplit(".", 1)[-1] for n in names)
                deck.slide(
                    piece.heading,
                    piece.section,
                    f"{caption}\n\n```python\n{listing}\n```",
                    deck.said(piece.written) or words["code_notes"].format(names=shown),
                )
            continue
        if piece.kind == "exercise":
            deck.slide(
                piece.heading,
                piece.section,
                piece.text,
                deck.said(piece.written) or words["exercise_notes"],
            )
            continue
        if piece.kind != "cell":
            fallback = (
                words["definition_notes"] if piece.kind == "prf:definition" else ""
            )
            deck.slide(
                piece.heading,
                piece.section,
                piece.text,
                deck.said(piece.written, piece.notes) or fallback,
            )
            continue
        if piece.cell >= len(code):
            raise ValueError(
                f"executed: the chapter's code cell {piece.cell + 1} is not in the cache"
            )
        ran = code[piece.cell]
        source = "".join(ran["source"])
        block = myst.block_at(piece.text.split("\n"), 0)
        assert block is not None
        if "\n".join(block.body).strip() != source.strip():
            raise ValueError(
                f"executed: code cell {piece.cell + 1} differs from the chapter "
                "(stale execution cache: run `python -m booktools prebuild` first)"
            )
        outputs = ran.get("outputs", [])
        if not outputs:  # nothing to show: a slide of its title alone would be empty
            print(
                f"slides: {name or 'the chapter'}: code cell {piece.cell + 1} (marked "
                f"{MARK}) has no output in the execution cache; no slide for it",
                file=sys.stderr,
            )
            continue
        meta = {k: v for k, v in ran.get("metadata", {}).items() if k != "execution"}
        alt = meta.get("mystnb", {}).get("image", {}).get("alt", "")
        if any(WIDGET_VIEW in out.get("data", {}) for out in outputs):
            outputs, alt = widget_outputs(executed, outputs, piece.cell, language, name)
            meta["mystnb"] = {"image": {"alt": alt}}
        mimes = {k for out in outputs for k in out.get("data", {})}
        figure = any(k.startswith("image/") for k in mimes)
        if (
            alt and not figure
        ):  # a figure's cell whose run drew nothing: no slide of code
            print(
                f"slides: {name or 'the chapter'}: code cell {piece.cell + 1} (marked "
                f"{MARK}) drew no figure in the execution cache; no slide for it",
                file=sys.stderr,
            )
            continue
        if (
            figure
        ):  # a figure's slide shows the figure (what the cell printed: the page's)
            outputs = [
                o
                for o in outputs
                if any(k.startswith("image/") for k in o.get("data", {}))
            ]
        lines = [line for line in source.strip().splitlines() if line.strip()]
        notes = deck.said(piece.written, alt if figure else "", piece.notes)
        notes = notes or words["cell_notes"]
        if figure or len(lines) > MAX_CODE_LINES:
            shown = [("remove-input", outputs)]
        elif _height(len(lines), outputs) > SLIDE_BUDGET:  # code, then what it printed
            shown = [("remove-output", outputs), ("remove-input", outputs)]
        else:
            shown = [("", outputs)]
        for tag, outs in shown:
            deck.slide(piece.heading, piece.section, "", notes)
            deck.cells.append(
                {
                    "cell_type": "code",
                    "execution_count": None,
                    "metadata": {**meta, "tags": [tag] if tag else []},
                    "outputs": outs,
                    "source": source,
                }
            )
    if not summarized:
        _summary_slide(deck, text, definitions, keyed.get("summary", ""))
    return deck.cells


def _sections(text: str) -> dict[str, str]:
    """Section title -> its number within the chapter ("3", "3.2"), as :func:`pieces`
    counts them (headings inside blocks are no sections)."""
    _, body = myst.split_front_matter(text)
    lines = body.split("\n")
    numbers: dict[str, str] = {}
    counts, i = [0, 0], 0
    while i < len(lines):
        block = myst.block_at(lines, i)
        if block is not None:
            i = block.end + 1
            continue
        if section := _count(lines[i], counts):
            numbers.setdefault(section[0], section[1])
        i += 1
    return numbers


def _count(line: str, counts: list[int]) -> tuple[str, str] | None:
    """A ``##`` or ``###`` heading on ``line``: its title and number (``counts``, the
    sections and subsections seen, updated); else None."""
    m = myst.HEADING.match(line)
    if not m or len(m["marks"]) not in (2, 3):
        return None
    if len(m["marks"]) == 2:
        counts[:] = [counts[0] + 1, 0]
        return m["title"], str(counts[0])
    counts[1] += 1
    return m["title"], f"{counts[0]}.{counts[1]}"


def _summary_slide(
    deck: _Deck, text: str, definitions: list[Piece], written: str
) -> None:
    """The summary: the chapter's "Summary" section, else the list of its definitions."""
    words = deck.words
    body = summary(text)
    if body:
        title, section = "Summary", _sections(text).get("Summary", "")
    else:
        title, section = words["summary"], ""
        rows = []
        for k, piece in enumerate(definitions, 1):
            block = myst.block_at(piece.text.split("\n"), 0)
            assert block is not None
            # the catalogue holds a box's title as sphinx-proof shows it: in parentheses
            name = deck.prose.get(block.arg) or deck.prose.get(f"({block.arg})", "")
            name = name.removeprefix("(").removesuffix(")") or block.arg
            label = words["definition"].format(n=f"{deck.number}.{k}")
            rows.append(f"- {label}: {name}")
        body = words["definitions"] + "\n\n" + "\n".join(rows)
    deck.slide(title, section, body, deck.said(written) or words["summary_notes"])


def _notebook(cells: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "cells": [{"id": f"slide-{i}", **cell} for i, cell in enumerate(cells)],
        "metadata": {
            "kernelspec": {
                "display_name": "Python 3",
                "language": "python",
                "name": "python3",
            },
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def written_notes(text: str) -> list[str]:
    """Every note written for a slide of a chapter (``<!-- notes -->`` comments), each as one
    paragraph: the messages of its notes catalogue."""
    return [_joined(m["text"]) for m in NOTES.finditer(text)]


def _notes_po(name: str, catalogues: Path = NOTES_CATALOGUES) -> Path:
    return catalogues / f"{name}.po"


def notes_translations(
    name: str, catalogues: Path = NOTES_CATALOGUES
) -> dict[str, str]:
    """English note -> its Korean, for chapter ``name`` (translated, not fuzzy, entries)."""
    from booktools.i18n.catalogues import read_catalogue

    po = _notes_po(name, catalogues)
    if not po.is_file():
        return {}
    return {
        m.id: m.string for m in read_catalogue(po) if m.id and m.string and not m.fuzzy
    }


def _prose_translations(name: str) -> dict[str, str]:
    """The chapter's catalogue (English paragraph or title -> Korean)."""
    from booktools.i18n.catalogues import CATALOGUES, read_catalogue

    po = CATALOGUES / f"{name}.po"
    if not po.is_file():
        return {}
    return {m.id: m.string for m in read_catalogue(po) if m.id and m.string}


def update_notes_catalogues(
    names: list[str] | None = None,
    root: Path = ROOT,
    catalogues: Path = NOTES_CATALOGUES,
) -> dict[str, str]:
    """Merge the notes written in each chapter into its notes catalogue (as ``make po`` does
    for the prose: translations kept, a changed note fuzzy, a removed one obsolete)."""
    from babel.messages.catalog import Catalog

    from booktools.i18n.catalogues import merge_catalogue

    report: dict[str, str] = {}
    for name in names or chapters(root):
        text = (root / f"{name}.md").read_text(encoding="utf-8")
        notes = written_notes(text)
        po = _notes_po(name, catalogues)
        if not notes and not po.is_file():
            continue  # no note written for this chapter's slides
        template = Catalog(locale=None)
        for note in notes:
            template.add(note, locations=[(f"{name}.md", 0)])
        po.parent.mkdir(parents=True, exist_ok=True)
        report[name] = merge_catalogue(po, template, name)
    return report


def write_sources(
    names: list[str], src: Path = SRC, root: Path = ROOT, language: str = "en"
) -> dict[str, int]:
    """The slide source of each chapter in ``names`` (docnames) under ``src``, from the
    chapter and the execution cache (widgets' snapshots in ``language``); returns docname ->
    number of slides."""
    from booktools.i18n.outputs import executed_notebooks

    ran = executed_notebooks(root)
    counts: dict[str, int] = {}
    src.mkdir(parents=True, exist_ok=True)
    for name in names:
        if name not in ran:
            raise SystemExit(
                f"slides: {name} is not in the execution cache; run `make book` first"
            )
        text = (root / f"{name}.md").read_text(encoding="utf-8")
        korean = notes_translations(name) if language == "ko" else {}
        prose = _prose_translations(name) if language == "ko" else {}
        cells = slide_cells(text, ran[name], language, name, korean, prose)
        _write(src / f"{name}.ipynb", _notebook(cells))
        counts[name] = sum(
            c["cell_type"] == "markdown"
            and c["source"].lstrip().startswith(("#", "(sn-"))
            for c in cells
        )
    every = chapters(root)
    for name in every:  # a subset: the others' titles keep the chapters' numbers
        stub = src / f"{name}.ipynb"
        if name not in names and not stub.is_file():
            title = _title((root / f"{name}.md").read_text(encoding="utf-8"))
            _write(stub, _notebook([_markdown(f"# {title}")]))
    entries = "\n".join(every)
    index = f"# Slides\n\n```{{toctree}}\n:numbered:\n:hidden:\n\n{entries}\n```\n"
    (src / "index.md").write_text(index, encoding="utf-8")
    locales = src / "locales"
    if not locales.exists():
        locales.symlink_to(root / "locales")  # the Korean printed lines (slides_conf)
    return counts


def _write(path: Path, notebook: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(notebook, ensure_ascii=False, indent=1) + "\n"
    if not path.is_file() or path.read_text(encoding="utf-8") != data:
        path.write_text(data, encoding="utf-8")


def deck_path(name: str, language: str, out: Path = OUT) -> Path:
    """Where the deck of chapter ``name`` (docname) in ``language`` is written."""
    if language not in LANGUAGES:
        raise ValueError(f"language: {language!r} is not one of {LANGUAGES}")
    return out / language / f"{name}.html"


def deck_href(name: str, language: str) -> str:
    """The link from chapter ``name``'s page in ``language`` to its deck (relative)."""
    up = "../" if language == "en" else "../../"
    return f"{up}slides/{language}/{name}.html"


def handout_path(name: str, language: str, out: Path = OUT) -> Path:
    """Where the printable handout (PDF) of chapter ``name``'s deck is written."""
    if language not in LANGUAGES:
        raise ValueError(f"language: {language!r} is not one of {LANGUAGES}")
    return out / language / "handouts" / f"{Path(name).name}.pdf"


def handout_href(name: str, language: str) -> str:
    """The link from a page of the book in ``language`` (a chapter's, or appendix C) to the
    handout of chapter ``name``'s deck (relative)."""
    up = "../" if language == "en" else "../../"
    return f"{up}slides/{language}/handouts/{Path(name).name}.pdf"


def build(
    languages: tuple[str, ...] = LANGUAGES,
    src: Path = SRC,
    out: Path = OUT,
    names: list[str] | None = None,
) -> dict[str, int]:
    """Write the slide sources of the chapters ``names`` (default: every chapter) and build
    the decks of ``languages``, each in a process of its own (``sphinx-build -b revealjs``);
    returns docname -> slides."""
    every = chapters()
    if not every:
        raise ValueError("_toc.yml: no numbered chapter to build")
    names = names or every
    unknown = [n for n in names if n not in every]
    if unknown:
        raise ValueError(f"names: {unknown} are not numbered chapters of _toc.yml")
    counts: dict[str, int] = {}
    for language in languages:
        if language not in LANGUAGES:
            raise ValueError(f"languages: {language!r} is not one of {LANGUAGES}")
        counts = write_sources(names, src / language, language=language)
        if language == "ko":
            from booktools.i18n import compile_catalogues

            compile_catalogues()
        started = time.monotonic()
        cmd = [
            sys.executable,
            "-m",
            "sphinx",
            "-b",
            "revealjs",
            "-q",
            "-c",
            str(Path(__file__).with_name("slides_conf")),
            "-d",
            str(src / f".doctrees-{language}"),
            "-D",
            f"language={language}",
            str(src / language),
            str(out / language),
        ]
        result = subprocess.run(cmd, cwd=ROOT, check=False)
        if result.returncode:
            raise SystemExit(f"slides: the {language} decks failed to build")
        # reveal.js from npm (chapters/_static_assets/vendor/VENDOR.md) in place of the copy
        # sphinx-revealjs ships, at the paths its pages name (revealjs/dist/...)
        static = out / language / "_static" / "revealjs"
        shutil.rmtree(static, ignore_errors=True)
        shutil.copytree(REVEALJS, static)
        for junk in ("index.html", "genindex.html", "search.html", "searchindex.js"):
            (out / language / junk).unlink(missing_ok=True)
        shutil.rmtree(out / language / "_sources", ignore_errors=True)
        print(
            f"slides: {len(names)} {language} decks in {out / language} "
            f"({time.monotonic() - started:.0f} s)"
        )
    return counts


#: Debian's Chromium and its driver, which print the handouts (as the browser tests use them).
CHROMIUM = ("chromium", "chromium-browser", "google-chrome")
CHROMEDRIVER = ("chromedriver",)
#: What reveal.js's print mode adds to a deck's address: a page per slide, then its notes.
PRINT_QUERY = "?print-pdf&showNotes=separate-page"

_PRINTED_JS = """
const done = arguments[arguments.length - 1];
(async () => {
  const ready = () => document.documentElement.hasAttribute("data-slides-fitted")
    && document.querySelector(".reveal .pdf-page");
  for (let i = 0; i < 600 && !ready(); i++) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 300));
  done(document.querySelectorAll(".reveal .pdf-page").length);
})();
"""


def _browser() -> tuple[str, str] | None:
    """Chromium and chromedriver, if both are installed."""
    chromium = next((p for c in CHROMIUM if (p := shutil.which(c))), None)
    driver = next((p for c in CHROMEDRIVER if (p := shutil.which(c))), None)
    return (chromium, driver) if chromium and driver else None


def handouts(
    names: list[str] | None = None,
    languages: tuple[str, ...] = LANGUAGES,
    out: Path = OUT,
) -> list[Path]:
    """The printable handout of each deck: reveal.js's print mode (:data:`PRINT_QUERY`: one
    page per slide, its speaker notes on the page after it) printed to PDF by headless
    Chromium once the deck is typeset; the PDFs written.  No Chromium or chromedriver:
    ``FileNotFoundError`` naming what to install."""
    import http.server
    import threading
    from functools import partial

    found = _browser()
    if found is None:
        raise FileNotFoundError(
            "handouts: Chromium and chromedriver print the decks "
            "(apt-get install chromium chromium-driver, as for the browser tests)"
        )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = found[0]
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
    ):
        options.add_argument(arg)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), partial(Quiet, directory=str(out))
    )
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    site = f"http://127.0.0.1:{httpd.server_address[1]}/"
    driver = webdriver.Chrome(service=Service(found[1]), options=options)
    written = []
    try:
        driver.set_script_timeout(90)
        for language in languages:
            for name in names or chapters():
                deck = deck_path(name, language, out)
                if not deck.is_file():
                    raise FileNotFoundError(
                        f"out: no deck {deck} (build the decks first)"
                    )
                driver.get(site + deck.relative_to(out).as_posix() + PRINT_QUERY)
                if not driver.execute_async_script(_PRINTED_JS):
                    raise SystemExit(f"slides: {deck} laid out no page to print")
                pdf = driver.execute_cdp_cmd(
                    "Page.printToPDF",
                    {"preferCSSPageSize": True, "printBackground": True},
                )
                path = handout_path(name, language, out)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(base64.b64decode(pdf["data"]))
                written.append(path)
    finally:
        driver.quit()
        httpd.shutdown()
    return written


def leaks(out: Path = OUT) -> list[str]:
    """Every solution of the chapters found in a deck under ``out`` (the leak scan of the
    student edition, :func:`booktools.course.leak_scan.leaks`, with what the solutions printed)."""
    from booktools.build import notebooks
    from booktools.course import leak_scan

    decks = sorted(out.glob("*/chapters/*.html"))
    if not decks:
        raise FileNotFoundError(f"out: no deck in {out} (make slides builds them)")
    return leak_scan.leaks(decks, notebooks.chapters(), leak_scan.executed_outputs())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--language", choices=LANGUAGES, action="append", help="default: both"
    )
    parser.add_argument(
        "--chapter",
        action="append",
        help="a chapter's docname or number (default: every chapter)",
    )
    parser.add_argument("--src", type=Path, default=SRC, help=f"default: {SRC}")
    parser.add_argument("--out", type=Path, default=OUT, help=f"default: {OUT}")
    parser.add_argument(
        "--no-handouts", action="store_true", help="build the decks only"
    )
    parser.add_argument(
        "--update-notes",
        action="store_true",
        help=f"merge the chapters' written notes into {NOTES_CATALOGUES} and stop",
    )
    args = parser.parse_args(argv)
    every = chapters()
    names = None
    if args.chapter:
        names = []
        for c in args.chapter:
            match = [n for n in every if n == c or n.split("/")[1][:2] == f"{c:0>2}"]
            if not match:
                parser.error(f"--chapter: {c!r} is no numbered chapter")
            names += match
    if args.update_notes:
        for name, what in update_notes_catalogues(names).items():
            print(f"{name}: {what}")
        return 0
    languages = tuple(args.language or LANGUAGES)
    counts = build(languages, src=args.src, out=args.out, names=names)
    for name, count in counts.items():
        print(f"{name}: {count} slides")
    if not args.no_handouts:
        if _browser() is None:
            print(
                "slides: no handouts: Chromium and chromedriver print them "
                "(apt-get install chromium chromium-driver)"
            )
        else:
            printed = handouts(names, languages, args.out)
            print(
                f"slides: {len(printed)} handouts (PDF) in {args.out}/<lang>/handouts"
            )
    found = leaks(args.out)
    if found:
        print("slides: solutions found in the decks:\n  " + "\n  ".join(found))
        return 1
    print(
        f"slides: no solution in the decks (leak scan); {sum(counts.values())} slides"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
