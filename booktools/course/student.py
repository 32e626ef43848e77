"""The student edition: the book and its Colab notebooks without solutions.

``make student-book`` (``python -m booktools student``) builds the HTML book into
``_build/student/html`` from the execution cache that ``make book`` filled
(``_build/.jupyter_cache``): nothing is executed again, the solutions' cells ran with the chapter
and only their nodes are dropped.  ``make notebooks STUDENT=1`` writes the Colab notebooks
without solutions to ``_build/student/notebooks`` (:mod:`booktools.build.notebooks`).

The build sets ``formulated_student_edition``, which the Sphinx extension
:mod:`booktools.sphinx.student` turns into a book without solutions.  The pages' sources are
not copied (``html_copy_source``): the download menu offers neither the ``.md`` nor the
``.ipynb`` (both hold the solutions).  The launch buttons open the student notebooks of the
course's repository (``student_edition`` in ``_config.yml``;
:func:`booktools.sphinx.launch.student_buttons`) or are left out.
``python -m booktools leak-scan`` then scans the pages and the student notebooks
(``make student-book`` runs it and fails on a find).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from booktools import myst
from booktools.paths import CACHE, ROOT
from booktools.sphinx.launch import STUDENT_CONFIG, StudentHome, student_home
from booktools.sphinx.student import CONFIG_NAME

__all__ = [
    "HTML_DIR",
    "NOTEBOOKS_DIR",
    "strip_solutions",
    "page_text",
    "build_html",
    "main",
]

HTML_DIR = ROOT / "_build" / "student" / "html"
NOTEBOOKS_DIR = ROOT / "_build" / "student" / "notebooks"
DOCTREES = ROOT / "_build" / ".doctrees-student"


def strip_solutions(text: str) -> str:
    """A MyST chapter's text without its solutions: every ``{solution}`` block, and every
    ``{solution-start}`` … ``{solution-end}`` span with the cells in it."""
    lines = text.split("\n")
    out: list[str] = []
    i, gated = 0, False
    for block in myst.blocks(lines):
        if not gated:
            out.extend(lines[i : block.start])
        i, j, name = block.start, block.end, block.name
        if name == "solution-start":
            gated = True
        elif name == "solution-end":
            if not gated:
                raise ValueError(
                    f"text: solution-end on line {i + 1} has no solution-start"
                )
            gated = False
        elif name != "solution" and not gated:
            out.extend(lines[i : j + 1])
        i = j + 1
    if gated:
        raise ValueError(
            "text: a solution-start is never ended (expected a {solution-end})"
        )
    out.extend(lines[i:])
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out))


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self.skip += tag in ("script", "style")

    def handle_endtag(self, tag: str) -> None:
        self.skip -= tag in ("script", "style")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data)


def page_text(html: str) -> str:
    """What a reader sees of an HTML page: its text without tags, scripts and styles (a code
    cell's highlighting splits its lines into many tags)."""
    parser = _Text()
    parser.feed(html)
    return "".join(parser.parts)


def build_html(
    out: Path = HTML_DIR,
    doctrees: Path = DOCTREES,
    cache: Path = CACHE,
    root: Path = ROOT,
    toc: Path | None = None,
    strict: bool = True,
    student: StudentHome | None = None,
) -> Path:
    """Sphinx's HTML builder on the book at ``root`` with :data:`CONFIG_NAME` true, from the
    execution cache ``cache``; ``toc`` (default ``root/_toc.yml``) may list fewer chapters (a
    test), ``strict`` is ``-n -W`` as for ``make book``, ``student`` where the launch buttons
    lead (default: ``student_edition`` of ``root/_config.yml``).  Returns the index page."""
    from jupyter_book.sphinx import build_sphinx
    from sphinx import locale

    # Sphinx keeps the message catalogues it loaded in a process-wide table and only adds to
    # them: after a Korean build in the same process, this English one said "연습문제".
    locale.translators.clear()
    result = build_sphinx(
        root,
        out,
        noconfig=True,
        path_config=str(root / "_config.yml"),
        confoverrides={
            "external_toc_path": Path(toc or root / "_toc.yml").as_posix(),
            CONFIG_NAME: True,
            "nb_execution_cache_path": str(cache),
            STUDENT_CONFIG: student or student_home(root / "_config.yml"),
            "nitpicky": strict,
            "html_copy_source": False,
            "html_show_sourcelink": False,
            "latex_individualpages": False,
        },  # jupyter-book requires the key
        doctreedir=doctrees,
        builder="html",
        warningiserror=strict,
        keep_going=True,
    )
    if result:
        raise SystemExit(f"student-book: the HTML build failed ({result!r}); see above")
    return out / "index.html"


def main(argv: list[str] | None = None) -> int:
    """``python -m booktools student``: the student edition's HTML book."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    start = time.monotonic()
    index = build_html()
    print(
        f"student-book: {index.relative_to(ROOT)} in {time.monotonic() - start:.0f} s "
        "(no solutions)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
