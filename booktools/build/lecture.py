"""A chapter read as a lecture: what of its MyST text goes on slides, and in what order.

:func:`pieces` finds, in a numbered chapter (:func:`chapters`), every ``{prf:definition}``,
every ``{formulated-source}`` box and ``{exercise}`` (:data:`KINDS`), and every block marked
by a line ``<!-- slide -->`` above it (:data:`MARK`; blank lines between them allowed), with
its section's title and number, the prose paragraph just above it, the notes written for its
slide (a ``<!-- notes … -->`` comment, :data:`NOTES`) and its ``<!-- slide-code -->`` specs;
solutions never (``{solution}`` blocks and the cells between ``{solution-start}`` and
``{solution-end}`` are skipped). :func:`objectives` and :func:`summary` read the chapter's
"By the end …" list and its "Summary" section. A definition's code slide shows the lines
that compute it (:func:`computation`: the body of the function the ``{formulated-source}``
box names, without its docstring and argument checks; at most :data:`MAX_CODE_LINES` lines
on a slide, a class shown by its ``forward``; a comment
``<!-- slide-code NAME[: FIRST .. LAST] -->`` above the box picks a method or a range of lines
instead: :func:`code_slides`).  The deck that shows them is :mod:`booktools.build.slides`.
"""

from __future__ import annotations

import ast
import copy
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from booktools import myst
from booktools.build.toc import toc_files
from booktools.paths import ROOT

__all__ = [
    "MARK",
    "MAX_CODE_LINES",
    "KINDS",
    "NUMBERED",
    "NOTES",
    "SLIDE_CODE",
    "Piece",
    "chapters",
    "chapter_number",
    "joined",
    "keyed_notes",
    "pieces",
    "chapter_title",
    "first_paragraph",
    "objectives",
    "summary",
    "sections",
    "computation",
    "code_slides",
]

#: The line above a block (a code cell, an admonition, ...) that puts it on a slide: an HTML
#: comment, which neither the book, its catalogues, the Colab notebooks nor the execution
#: cache's hash of the code cells sees (a cell tag would re-execute the chapter).
MARK = "<!-- slide -->"
#: The most lines of code a slide shows (a lecture shows the lines that are the formula).
MAX_CODE_LINES = 15
#: The directives that go on a slide whatever their tags.
KINDS = ("prf:definition", "formulated-source", "exercise")
#: A numbered chapter's docname (``chapters/08_attention``).
NUMBERED = re.compile(r"^chapters/(?P<n>\d\d)_\w+$")
#: ``<!-- notes [title|objectives|summary]`` … ``-->``: notes written for a slide.
NOTES = re.compile(
    r"<!--\s*notes(?:[ \t]+(?P<key>title|objectives|summary))?[ \t]*\n(?P<text>.*?)-->",
    re.S,
)
#: ``<!-- slide-code NAME[: FIRST .. LAST] -->``: what a definition's code slide shows.
SLIDE_CODE = re.compile(r"<!--\s*slide-code\s+(?P<spec>.*?)\s*-->", re.S)


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
    return [name for name in toc_files(root) if NUMBERED.match(name)]


def chapter_number(name: str) -> int:
    """The number of chapter ``name`` (``chapters/08_attention`` -> 8)."""
    m = NUMBERED.match(name)
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
            return joined(m["text"])
    return ""


def joined(text: str) -> str:
    """A note's lines as one paragraph (as a catalogue's msgid holds it)."""
    return " ".join(line.strip() for line in text.strip().splitlines() if line.strip())


def keyed_notes(text: str) -> dict[str, str]:
    """The notes written for the title, objectives and summary slides (key -> text)."""
    return {m["key"]: joined(m["text"]) for m in NOTES.finditer(text) if m["key"]}


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


def chapter_title(text: str) -> str:
    """The chapter's title (its "# title" line)."""
    _, body = myst.split_front_matter(text)
    m = re.search(r"^# (.+)$", body, re.M)
    if not m:
        raise ValueError("text: the chapter has no '# title' line")
    return m.group(1).strip()


def first_paragraph(text: str) -> str:
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


def sections(text: str) -> dict[str, str]:
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
