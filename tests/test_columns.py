"""Nothing a reader must scroll to see: every line of code and of printed output on
the built pages is at most 88 columns, the width a code box shows at 1280 px
(``tests/test_browser.py::test_code_cells_show_88_columns_on_a_laptop``).

Three kinds of text sit in ``<pre>`` blocks: a chapter's code cells, the definitions' source
boxes (``{formulated-source}``: the package's code) and the cells' printed outputs. The first
test reads them off the built HTML, the second checks the package objects the chapters show
without a build, so that a long line is found where it is written.
"""

from __future__ import annotations

import html
import re

import pytest
from _browser import pages, require_book
from _chapters import ROOT, source_directives

from booktools.sphinx.source import source_text

WIDTH = 88
PRE = re.compile(r"<pre[^>]*>(.*?)</pre>", re.S)
#: Scripts hold widget state as JSON, whose "<pre>" strings are not text on the page.
SCRIPT = re.compile(r"<script\b.*?</script>", re.S)
TAG = re.compile(r"<[^>]+>")
#: A chapter's code cell; its options (a ``---`` block, e.g. a figure caption, or ``:tags:``
#: lines) are not shown as code.
CELL = re.compile(
    r"^```\{code-cell\}[^\n]*\n(?:---\n.*?\n---\n|(?::[\w-]+:[^\n]*\n)+)?"
    r"(?P<code>.*?)^```",
    re.M | re.S,
)


def long_lines(text: str, width: int = WIDTH) -> list[str]:
    """The lines of ``text`` longer than ``width`` characters."""
    return [line for line in text.splitlines() if len(line) > width]


def pre_texts(page_html: str) -> list[str]:
    """The text of every ``<pre>`` block of a page (tags removed, entities decoded)."""
    return [
        html.unescape(TAG.sub("", block))
        for block in PRE.findall(SCRIPT.sub("", page_html))
    ]


def test_long_lines_finds_the_89th_column() -> None:
    assert long_lines("x" * 88 + "\n" + "é" * 88) == []
    assert long_lines("ok\n" + "y" * 89) == ["y" * 89]
    assert pre_texts('<pre><span class="n">a</span> &lt; b</pre>') == ["a < b"]
    assert pre_texts(
        '<script type="x">{"o": "<pre>state</pre>"}</script><pre>c</pre>'
    ) == ["c"]


@pytest.mark.parametrize("page", pages())
def test_no_code_or_output_line_is_wider_than_88_columns(page: str) -> None:
    text = (require_book() / page).read_text(encoding="utf-8")
    bad = [line for block in pre_texts(text) for line in long_lines(block)]
    assert not bad, (
        f"{page}: {len(bad)} lines of code or output over {WIDTH} columns "
        f"(they scroll inside their box):\n" + "\n".join(bad[:10])
    )


def shown_objects() -> list[str]:
    """Every object a chapter's ``{formulated-source}`` box shows, once."""
    return list(dict.fromkeys(name for _, name in source_directives()))


def test_shown_package_code_fits_88_columns() -> None:
    names = shown_objects()
    assert len(names) > 50, names  # the chapters show the package's definitions
    bad = {n: long_lines(source_text(n)) for n in names}
    bad = {n: lines for n, lines in bad.items() if lines}
    assert not bad, "\n".join(f"{n}: {lines[0]}" for n, lines in bad.items())


def test_chapter_code_cells_fit_88_columns() -> None:
    bad = [
        f"{md.name}: {line}"
        for md in sorted((ROOT / "chapters").glob("*.md"))
        for m in CELL.finditer(md.read_text(encoding="utf-8"))
        for line in long_lines(m.group("code"))
    ]
    assert not bad, f"{len(bad)} code-cell lines over {WIDTH} columns:\n" + "\n".join(
        bad[:20]
    )


def test_code_cell_pattern_skips_the_cell_options() -> None:
    text = (
        "```{code-cell} python3\n---\nmystnb:\n  caption: " + "c" * 100 + "\n---\n"
        "x = 1\n```\n\n```{code-cell} python3\ny = 2\n```\n\n"
        "```{code-cell} python3\n:tags: [remove-input]\nz = 3\n```\n"
    )
    assert [m.group("code") for m in CELL.finditer(text)] == [
        "x = 1\n",
        "y = 2\n",
        "z = 3\n",
    ]
