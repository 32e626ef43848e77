"""MyST Markdown as plain Markdown, for the Colab notebooks (:mod:`booktools.build.notebooks`).

Colab (like GitHub and VS Code) renders CommonMark, some HTML and ``$``/``$$`` math, not MyST:
a ``{prf:definition}`` fence or a ``{doc}`` role would show as raw text.  :func:`to_plain`
converts one Markdown cell:

=====================================  ====================================================
MyST                                   plain Markdown
=====================================  ====================================================
```` ```{prf:definition} Title ````    ``**Definition 8.1 (Title).**`` and the body
```` ```{exercise} ````                 ``**Exercise 8.1.**`` and the body
```` ```{solution} ex-08-1 ````         ``<details><summary>Solution to Exercise 8.1</summary>``
```` ```{solution-start} ex-08-2 ````   ``**Solution to Exercise 8.2** (try the exercise first)``
```` ```{solution-end} ````             a horizontal rule (the solution's code cells lie between)
```` ```{admonition} Title ````, note…  a blockquote: ``> **Title**`` and the body
```` ```{dropdown} Title ````           ``<details><summary>Title</summary>``
```` ```{figure} path ````, image       ``![caption](path)`` (path seen from the notebook) and
                                       the caption in italics
```` ```{formulated-source} f ````      :func:`booktools.sphinx.source.render_blocks`
                                       (a ``<details>`` box: the source and its tests;
                                       code in its summary as ``<code>``)
other directives                       their body, without the fence and option lines
``(label)=`` targets                   dropped
{doc}`08_attention`                    ``Chapter 8 (Attention)``, as the book shows it
{prf:ref}`def-08-attention`            ``Definition 8.1 (Scaled dot-product attention)``
{ref}`ex-08-1`, {numref}, {eq}         ``Exercise 8.1``; an explicit text ``{ref}`t <x>``` is t
{math}`x`                              ``$x$``
=====================================  ====================================================

Numbers and titles come from :func:`label_texts` (all chapters: a reference may point to another
chapter) and :func:`chapter_titles`.  Code blocks, inline code and ``$$`` math are kept as they are.
"""

from __future__ import annotations

import re
from pathlib import Path

from booktools import myst
from booktools.sphinx.chapter_refs import chapter_ref_text, number_from_stem
from booktools.sphinx.source import DIRECTIVE as SOURCE_DIRECTIVE
from booktools.sphinx.source import render_blocks

__all__ = [
    "to_plain",
    "chapter_titles",
    "label_texts",
    "directive_names",
    "DIRECTIVES",
    "ADMONITIONS",
]

#: A role (:data:`booktools.myst.ROLE`: groups ``name``, ``text``) or an inline code span
#: (matched so that roles inside code stay as is).
ROLE_OR_CODE = re.compile(
    r"(?P<role>" + myst.ROLE.pattern + r")|(?P<code>(`+)[^`]+?\5)"
)

#: Admonitions without an argument: their title is their name.
ADMONITIONS = (
    "note",
    "warning",
    "tip",
    "hint",
    "important",
    "caution",
    "attention",
    "danger",
    "error",
    "seealso",
)
#: Every directive :func:`to_plain` converts on purpose (others: their body is kept).
DIRECTIVES = (
    "prf:definition",
    "prf:theorem",
    "prf:lemma",
    "prf:proof",
    "prf:example",
    "prf:remark",
    "prf:algorithm",
    "prf:property",
    "prf:corollary",
    "prf:proposition",
    "prf:axiom",
    "prf:conjecture",
    "prf:criterion",
    "prf:observation",
    "prf:assumption",
    "exercise",
    "solution",
    "solution-start",
    "solution-end",
    "admonition",
    "dropdown",
    "figure",
    "image",
    "math",
    "code-block",
    "code",
    "margin",
    "sidebar",
    "topic",
    "epigraph",
    "toctree",
    "tableofcontents",
    SOURCE_DIRECTIVE,
    *ADMONITIONS,
)

#: The chapter of a numbered chapter's file name, ``08_attention`` -> 8.
CHAPTER_NUMBER = re.compile(r"^(?P<n>\d+)_")


def directive_names(markdown: str) -> list[str]:
    """The directives ``markdown`` uses, in order of first use."""
    names = [
        m.group("name") for line in markdown.split("\n") if (m := myst.OPEN.match(line))
    ]
    return list(dict.fromkeys(names))


def _doc_name(target: str) -> str:
    return (
        target.strip()
        .lstrip("/")
        .removeprefix("./")
        .removeprefix("chapters/")
        .removesuffix(".md")
    )


def chapter_titles(chapters_dir: Path) -> dict[str, str]:
    """``{"08_attention": "Attention", ...}``: each chapter's first ``#`` heading."""
    titles = {}
    for path in sorted(Path(chapters_dir).glob("*.md")):
        m = re.search(r"^# (.+?)\s*$", path.read_text(encoding="utf-8"), re.M)
        if m:
            titles[path.stem] = m.group(1)
    return titles


def label_texts(chapters_dir: Path) -> dict[str, str]:
    """What a reference to each label reads as: ``{"def-08-attention": "Definition 8.1 (Scaled
    dot-product attention)", "ex-08-1": "Exercise 8.1", "erratum-...": its box's title, a
    section's label: its heading}``.  Definitions and exercises are numbered as in the book
    (chapter.k, in order of appearance); an appendix's have no number."""
    texts: dict[str, str] = {}
    for path in sorted(Path(chapters_dir).glob("*.md")):
        m = CHAPTER_NUMBER.match(path.stem)
        chapter = int(m.group("n")) if m else None
        counts: dict[str, int] = {}
        lines = path.read_text(encoding="utf-8").split("\n")
        pending: str | None = None  # a (label)= waiting for what it labels
        i = 0
        while i < len(lines):
            line = lines[i]
            if t := myst.TARGET.match(line):
                pending = t.group("label")
                i += 1
                continue
            if (
                block := myst.block_at(lines, i, strict=False)
            ) and not block.is_directive:
                i = block.end + 1  # a code fence
                continue
            if block:
                name, arg, options = block.name, block.arg, block.options
                kind = _kind(name)
                if kind:
                    counts[kind] = counts.get(kind, 0) + 1
                    number = f" {chapter}.{counts[kind]}" if chapter is not None else ""
                    text = (
                        kind
                        + number
                        + (f" ({arg})" if arg and kind != "Exercise" else "")
                    )
                    if "label" in options:
                        texts[options["label"]] = text
                elif arg and pending:
                    texts[pending] = arg
                pending = None
                i = block.end + 1
                continue
            if pending and (h := myst.HEADING.match(line)):
                texts[pending] = h.group("title")
            if line.strip():
                pending = None
            i += 1
    return texts


def _summary_code(html: str) -> str:
    """``html`` with the Markdown code spans of its ``<summary>`` lines as ``<code>`` (a viewer
    renders no Markdown inside an HTML tag)."""
    return re.sub(
        r"<summary>.*?</summary>",
        lambda m: re.sub(r"`([^`]+)`", r"<code>\1</code>", m.group(0)),
        html,
    )


def _kind(name: str) -> str:
    """ "Definition" for prf:definition, "Exercise" for exercise, "" for other directives."""
    if name.startswith("prf:") and name != "prf:proof":
        return name.removeprefix("prf:").capitalize()
    return "Exercise" if name == "exercise" else ""


class _Converter:
    def __init__(
        self, chapter_titles: dict[str, str], labels: dict[str, str], image_base: str
    ):
        self.titles, self.labels, self.image_base = chapter_titles, labels, image_base

    # -- roles ------------------------------------------------------------------------------
    def role(self, name: str, text: str) -> str:
        shown, target = myst.explicit(text)
        target = target.strip()
        if name == "math":
            return f"${text}$"
        if name == "doc":
            stem = _doc_name(target).rsplit("/", 1)[-1]
            title = self.titles.get(stem)
            if shown or not title:
                return shown or f"*{_doc_name(target)}*"
            # as the book shows it (booktools/sphinx/chapter_refs.py): "Chapter 8 (Attention)"
            return chapter_ref_text(number_from_stem(stem), title)
        if name in ("ref", "prf:ref", "numref", "eq", "term"):
            known = self.labels.get(target)
            if name == "numref" and shown:
                number = re.search(r"\d+(\.\d+)*", known or "")
                return shown.replace(
                    "%s", number.group(0) if number else target
                ).replace("{number}", number.group(0) if number else target)
            if shown:
                return shown
            if name == "eq":
                return f"({known or target})"
            return known or target
        if name in ("sub", "sup", "kbd"):
            return f"<{name}>{text}</{name}>"
        if name in ("code", "literal", "samp", "file"):
            return f"`{text}`"
        if name == "abbr":
            return re.sub(r"\s*\(.*\)$", "", text)
        return shown or text  # cite, download, index, ...: the text

    def roles(self, prose: str) -> str:
        return ROLE_OR_CODE.sub(
            lambda m: (
                m.group("code")
                if m.group("code")
                else self.role(m.group("name"), m.group("text"))
            ),
            prose,
        )

    # -- directives -------------------------------------------------------------------------
    def inner(self, body: list[str]) -> str:
        return "\n".join(self.convert(body)).strip("\n")

    def image_url(self, path: str) -> str:
        if re.match(r"^[a-z]+://", path) or path.startswith("/"):
            return path
        return self.image_base + path.removeprefix("./")

    def directive(self, name: str, arg: str, body: list[str], raw: str) -> str:
        if name == SOURCE_DIRECTIVE:
            return _summary_code(
                render_blocks(raw + "\n", open_tag="details").rstrip("\n")
            )
        if name in ("toctree", "tableofcontents"):
            return ""
        if (
            name in ADMONITIONS and arg
        ):  # ```{note} text: the text is the body's first line
            body = [arg] + body
            arg = ""
        options, rest = myst.options(body)
        if name in ("code-block", "code", "math"):
            rest = (
                [line for line in body if not myst.OPTION.match(line)]
                if not rest
                else rest
            )
            return (
                "$$\n" + "\n".join(rest) + "\n$$"
                if name == "math"
                else f"```{arg}\n" + "\n".join(rest) + "\n```"
            )
        inner = self.inner(rest)
        title = self.roles(arg)
        kind = _kind(name)
        if kind:
            head = self.labels.get(options.get("label", ""))
            if not head:
                head = kind + (f" ({title})" if title else "")
            elif kind == "Exercise" and title:
                head += f" ({title})"
            return f"**{head}.**" + (f"\n\n{inner}" if inner else "")
        if name == "solution":
            return (
                f"<details>\n<summary>{self.solution_title(arg)}</summary>\n\n{inner}\n\n"
                "</details>"
            )
        if name == "solution-start":
            return f"**{self.solution_title(arg)}** (try the exercise first)" + (
                f"\n\n{inner}" if inner else ""
            )
        if name == "solution-end":
            return "---"
        if name == "dropdown":
            return _summary_code(
                f"<details>\n<summary>{title or 'Details'}</summary>\n\n{inner}\n\n</details>"
            )
        if name in ("figure", "image"):
            alt = options.get("alt", "")
            picture = f"![{alt or (inner if name == 'figure' else '')}]({self.image_url(arg)})"
            picture = picture.replace("\n", " ")
            return picture + (f"\n\n*{inner}*" if name == "figure" and inner else "")
        if name == "prf:proof":
            return "*Proof.*" + (f" {inner}" if inner else "")
        if name in ADMONITIONS or name in (
            "admonition",
            "margin",
            "sidebar",
            "topic",
            "epigraph",
        ):
            heading = title or (name.capitalize() if name in ADMONITIONS else "")
            text = (f"**{heading}**\n\n" if heading else "") + inner
            return "\n".join(
                "> " + line if line.strip() else ">" for line in text.split("\n")
            )
        return inner  # an unknown directive: its body, without the fence

    def solution_title(self, exercise: str) -> str:
        known = self.labels.get(exercise.strip())
        return f"Solution to {known}" if known else "Solution"

    # -- the walk ---------------------------------------------------------------------------
    def convert(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        prose: list[str] = []

        def flush() -> None:
            # A removed directive or target leaves no run of blank lines behind.
            for text in self.roles("\n".join(prose)).split("\n") if prose else []:
                if text.strip() or (out and out[-1].strip()):
                    out.append(text)
            prose.clear()

        def block(text: str) -> None:
            flush()
            if out and out[-1].strip():
                out.append("")
            out.extend(text.split("\n") if text else [])

        i = 0
        while i < len(lines):
            line = lines[i]
            if found := myst.block_at(lines, i, strict=False):
                raw = "\n".join(lines[i : found.end + 1])
                i = found.end + 1
                if not found.is_directive:  # a code fence, kept as it is
                    flush()
                    out.extend(lines[found.start : i])
                    continue
                text = self.directive(found.name, found.arg, found.content, raw)
                block(text)
                if text and i < len(lines) and lines[i].strip():
                    out.append("")
                continue
            if line.lstrip().startswith("$$"):
                stripped = line.strip()
                end = (
                    i
                    if len(stripped) > 2 and stripped.endswith("$$")
                    else next(
                        (
                            j
                            for j in range(i + 1, len(lines))
                            if lines[j].rstrip().endswith("$$")
                        ),
                        len(lines) - 1,
                    )
                )
                flush()
                out.extend(lines[i : end + 1])
                i = end + 1
                continue
            if myst.TARGET.match(line):
                i += 1
                continue
            prose.append(line)
            i += 1
        flush()
        return out


def to_plain(
    markdown: str,
    chapter_titles: dict[str, str] | None = None,
    labels: dict[str, str] | None = None,
    image_base: str = "../",
) -> str:
    """``markdown`` (one MyST Markdown cell) as plain Markdown that Colab renders.

    ``chapter_titles`` (:func:`chapter_titles`) names the chapters {doc} points to, ``labels``
    (:func:`label_texts`) what a reference to a label reads as; ``image_base`` is put before a
    figure's relative path (the notebooks lie in ``chapters/notebooks/``: ``"../"``)."""
    converter = _Converter(chapter_titles or {}, labels or {}, image_base)
    return "\n".join(converter.convert(markdown.split("\n"))).strip("\n")
