"""The MyST Markdown of the chapters, parsed in one place.

Every tool that reads a chapter's Markdown (the assignments, :mod:`booktools.course.assign`; the
student edition, :mod:`booktools.course.student`; the plain Markdown of the notebooks,
:mod:`booktools.build.plain_markdown`; the source boxes, :mod:`booktools.sphinx.source`; Lab's save,
:mod:`booktools.lab.lab`; the translation checks, :mod:`booktools.i18n`) uses the pieces below, so
that they agree on what a directive, an option or a role is:

* :data:`OPEN`: a directive's opening fence, ```` ```{name} argument ````, ``:::{name}`` or
  ``~~~{name}``, indented at most three spaces (deeper is an indented code block);
* :data:`CODE_OPEN`: a plain code fence, ```` ```python ````, whose lines are never parsed;
* :func:`closing`: the line that closes a fence: the same character, at least as many;
* :func:`options`: a directive's ``:key: value`` lines or ``---`` YAML block, and the rest;
* :func:`block_at` and :func:`blocks`: a directive block (name, argument, options, body, span),
  and every top-level one of a text (a fence inside a longer one belongs to its body);
* :data:`TARGET`: a label, ``(name)=`` on its own line;
* :data:`ROLE` and :func:`explicit`: ``{name}`text``` and its ``title <target>`` form;
* :data:`CODE_CELL_OPTIONS` and :func:`block_pattern`: whole blocks as one regex, for
  substituting them in a text;
* :data:`MATH`, :data:`INLINE_CODE` and :data:`HEADING`: math, inline code and an ATX
  heading, for the tools that read a chapter's prose (translation checks, glosses, slides,
  plain Markdown, leak scan, answer keys);
* :func:`split_front_matter`: the jupytext front matter and the chapter.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

__all__ = [
    "OPEN",
    "OPEN_PREFIX",
    "CODE_OPEN",
    "OPTION",
    "TARGET",
    "ROLE",
    "EXPLICIT",
    "CODE_CELL_OPTIONS",
    "MATH",
    "INLINE_CODE",
    "HEADING",
    "Block",
    "closing",
    "options",
    "block_at",
    "blocks",
    "explicit",
    "block_pattern",
    "split_front_matter",
]

#: The fence of a directive: three or more backticks, tildes or colons (a colon fence is
#: MyST's ``colon_fence``), then the directive's name in braces.
_FENCE = r"(?P<fence>`{3,}|~{3,}|:{3,})\{(?P<name>[\w:.-]+)\}"
#: A directive's opening line, ```` ```{name} argument ```` (``arg`` without the blanks around).
OPEN = re.compile(r"^(?P<indent>[ \t]{0,3})" + _FENCE + r"[ \t]*(?P<arg>.*?)[ \t]*$")
#: The fence and name at the start of a text, with the blanks after them (a directive's title
#: arrives in a translation catalogue with its fence: ``OPEN_PREFIX.sub("", text)`` is the title).
OPEN_PREFIX = re.compile(r"^" + _FENCE + r"[ \t]*")
#: A plain code fence, ```` ```python ```` (its lines are code, not MyST).
CODE_OPEN = re.compile(
    r"^(?P<indent>[ \t]{0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^`{]*)$"
)
#: A directive option line, ``:label: def-08-attention``.
OPTION = re.compile(r"^[ \t]*:(?P<key>[\w-]+):[ \t]*(?P<value>.*?)[ \t]*$")
#: A MyST target, ``(label)=`` on its own line.
TARGET = re.compile(r"^[ \t]*\((?P<label>[^()\s]+)\)=[ \t]*$")
#: A role, ``{name}`text```.
ROLE = re.compile(r"\{(?P<name>[\w:.-]+)\}`(?P<text>[^`]+)`")
#: A role's explicit form, ``title <target>`` (the title may be empty).
EXPLICIT = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$", re.S)
#: A code cell's option block in a chapter: the fence line, ``---``, YAML, ``---``.
CODE_CELL_OPTIONS = re.compile(
    r"^(?P<fence>`{3,}\{code-cell\}[^\n]*\n)---\n(?P<yaml>.*?)^---$", re.M | re.S
)
#: Math: ``$$display$$`` (over lines too), or ``$inline$`` with no blank inside its dollars
#: and no escaped dollar (``\$5``, ``$ 5`` are no math).
MATH = re.compile(r"\$\$.+?\$\$|(?<![\\$])\$(?!\s)[^$]+?(?<![\s\\])\$", re.S)
#: Inline code: ````` ``a `b` c`` ````` (group ``c2``) or ```` `code` ```` (group ``c1``).
INLINE_CODE = re.compile(r"``(?P<c2>.+?)``|`(?P<c1>[^`]+)`")
#: An ATX heading on one line, ``## Title`` (``marks``: the ``#`` run; ``title``: without
#: the blanks around it and a closing ``#`` run).
HEADING = re.compile(r"^(?P<marks>#{1,6})[ \t]+(?P<title>.+?)[ \t]*#*[ \t]*$")
_FRONT_MATTER = re.compile(r"\A---\n(?P<yaml>(?:.*\n)*?)---(?:\n|\Z)")


@dataclass(frozen=True)
class Block:
    """A fenced block of MyST Markdown: a directive, or a plain code fence (``name`` "").

    ``start`` and ``end`` index its opening and closing lines (``end`` is ``len(lines)`` for a
    block never closed); ``content`` is every line between them; ``options`` and ``body`` split
    the content as :func:`options` does.  For a code fence ``arg`` is its info string."""

    name: str
    arg: str
    fence: str
    start: int
    end: int
    content: list[str] = field(repr=False)
    options: dict[str, str] = field(repr=False)
    body: list[str] = field(repr=False)

    @property
    def is_directive(self) -> bool:
        return bool(self.name)


def closing(lines: list[str], start: int, fence: str) -> int:
    """Index of the line that closes the fence opened on line ``start``: the fence's character
    at least as many times, indented at most three spaces, nothing after it but blanks; a
    shorter fence or one of the other character is part of the body.  ``len(lines)`` if none."""
    close = re.compile(
        "^[ \t]{0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*$"
    )
    return next(
        (j for j in range(start + 1, len(lines)) if close.match(lines[j])), len(lines)
    )


def options(content: list[str]) -> tuple[dict[str, str], list[str]]:
    """A directive's leading options, ``:key: value`` lines or a ``---`` YAML block (each
    ``key: value`` line of it, nested keys included, stripped; a block never closed is no
    options), and the rest of its content without blank lines at either end."""
    found: dict[str, str] = {}
    i = 0
    if content and content[0].strip() == "---":
        end = next(
            (j for j in range(1, len(content)) if content[j].strip() == "---"), None
        )
        if end is not None:
            for line in content[1:end]:
                key, _, value = line.partition(":")
                found[key.strip()] = value.strip()
            i = end + 1
    while i < len(content) and (m := OPTION.match(content[i])):
        found[m.group("key")] = m.group("value")
        i += 1
    rest = content[i:]
    while rest and not rest[0].strip():
        rest = rest[1:]
    while rest and not rest[-1].strip():
        rest = rest[:-1]
    return found, rest


def block_at(lines: list[str], i: int, strict: bool = True) -> Block | None:
    """The directive or code fence opened on line ``i``, or None.  ``strict``: a block never
    closed is a ``ValueError`` (else it ends with the text)."""
    if m := OPEN.match(lines[i]):
        name, arg = m.group("name"), m.group("arg")
    elif m := CODE_OPEN.match(lines[i]):
        name, arg = "", m.group("info").strip()
    else:
        return None
    fence = m.group("fence")
    end = closing(lines, i, fence)
    if end == len(lines) and strict:
        what = f"{{{name}}} block" if name else "code block"
        raise ValueError(
            f"text: the {what} opened on line {i + 1} is never closed "
            f"(expected a line {fence!r})"
        )
    content = lines[i + 1 : end]
    found, body = options(content) if name else ({}, content)
    return Block(name, arg, fence, i, end, content, found, body)


def blocks(lines: list[str], strict: bool = True) -> Iterator[Block]:
    """The top-level directive blocks of ``lines``, in order.  What is inside a block (a
    nested directive with a longer or shorter fence, a code fence) is its body, and the
    lines of a plain code fence are code: neither is searched for directives."""
    i = 0
    while i < len(lines):
        block = block_at(lines, i, strict)
        if block is None:
            i += 1
            continue
        if block.is_directive:
            yield block
        i = block.end + 1


def explicit(text: str) -> tuple[str, str]:
    """A role's text as ``(title, target)``: ``("the attention", "def-08")`` for ``the
    attention <def-08>``, ``("", text)`` when it names its target only."""
    m = EXPLICIT.match(text)
    return (m.group("title"), m.group("target")) if m else ("", text)


def block_pattern(name: str, arg: str = "arg") -> re.Pattern[str]:
    """A regex (``re.M``) matching every whole ```` ```{name} argument ```` block of one
    directive in a text, up to the closing fence of the same length, for ``sub``: groups
    ``fence`` and ``arg`` (or the name given) with the argument, which is required."""
    return re.compile(
        r"^(?P<fence>`{3,})\{" + re.escape(name) + r"\}[ \t]+"
        rf"(?P<{arg}>[^\n]+)\n(?:[^\n]*\n)*?(?P=fence)[ \t]*$",
        re.M,
    )


def split_front_matter(text: str) -> tuple[str, str]:
    """A chapter's jupytext front matter (the YAML between its two ``---`` lines, "" if it has
    none) and the text after it.  A ``---`` first line never closed is a ``ValueError``."""
    m = _FRONT_MATTER.match(text)
    if m:
        return m.group("yaml"), text[m.end() :]
    if text.split("\n", 1)[0] == "---":
        raise ValueError(
            "text: the front matter opened on line 1 is never closed (expected a line '---')"
        )
    return "", text
