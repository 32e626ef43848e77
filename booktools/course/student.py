"""The student edition: the book and its Colab notebooks without solutions (issue 23).

``make student-book`` (``python -m booktools.course.student``) builds the HTML book into
``_build/student/html`` from the execution cache that ``make book`` filled
(``_build/.jupyter_cache``): nothing is executed again, the solutions' cells ran with the chapter
and only their nodes are dropped.  ``make notebooks STUDENT=1`` writes the Colab notebooks
without solutions to ``_build/student/notebooks`` (:mod:`booktools.build.notebooks`).

As a Sphinx extension (``_config.yml`` lists it), this module does nothing unless the config
value ``formulated_student_edition`` is true (the student build sets it).  Then, after
sphinx-exercise has merged every ``{solution-start}`` … ``{solution-end}`` into one solution
node (its transform of priority 10), :class:`RemoveSolutions` deletes every solution node with
what it holds (text, code cells, outputs).  sphinx-exercise's own ``hide_solutions`` drops
``{solution}`` boxes only, not the gated ones (checked in sphinx-exercise 1.2.1).

The pages' sources are not copied (``html_copy_source``): the download menu offers neither the
``.md`` nor the ``.ipynb`` (both hold the solutions), nor the PDF (its solutions appendix).  The
launch buttons open the student notebooks of the course's repository (``student_edition`` in
``_config.yml``; :func:`booktools.sphinx.launch.student_buttons`) or are left out.  Appendix C, the
instructors' guide (hidden tests, answer keys, the tooling's files), is replaced by a short page
for students (:data:`STUDENT_APPENDIX_C`).  ``python -m booktools.course.leak_scan`` then scans the
pages and the student notebooks (``make student-book`` runs it and fails on a find).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform

from booktools import myst
from booktools.paths import CACHE, ROOT
from booktools.sphinx.launch import STUDENT_CONFIG, StudentHome, student_home

__all__ = [
    "CONFIG_NAME",
    "HTML_DIR",
    "NOTEBOOKS_DIR",
    "RemoveSolutions",
    "strip_solutions",
    "page_text",
    "INSTRUCTORS_PAGE",
    "STUDENT_APPENDIX_C",
    "build_html",
    "setup",
    "main",
]

#: The Sphinx config value that turns the student edition on.
CONFIG_NAME = "formulated_student_edition"
HTML_DIR = ROOT / "_build" / "student" / "html"
NOTEBOOKS_DIR = ROOT / "_build" / "student" / "notebooks"
DOCTREES = ROOT / "_build" / ".doctrees-student"
#: The cache ``make book`` fills; Sphinx would otherwise look beside the output folder.


#: The instructors' appendix, which the student edition replaces by :data:`STUDENT_APPENDIX_C`.
INSTRUCTORS_PAGE = "chapters/appendix_c_instructors"
#: Appendix C of the student edition: what a student needs, none of the instructor's tooling.
STUDENT_APPENDIX_C = """# For instructors

This is the student edition of the book: every chapter keeps its exercises, and none shows a
solution. The guide for instructors (how the exercises become graded assignments) is in the
book's full edition.

To work on a chapter's exercises, open the chapter's notebook: with the launch buttons at the top
of the chapter's page where your course has set them up, or as your instructor hands it out. The
notebook runs the chapter's code and leaves room for your answers; your instructor says how and
when to hand it in.
"""


def _student_appendix(app: Sphinx, docname: str, source: list[str]) -> None:
    """In the student edition, the instructors' appendix is :data:`STUDENT_APPENDIX_C`."""
    if getattr(app.config, CONFIG_NAME, False) and docname == INSTRUCTORS_PAGE:
        source[0] = STUDENT_APPENDIX_C


class RemoveSolutions(SphinxTransform):
    """Delete every solution node (a ``{solution}`` box or a merged gated solution with its
    code cells and their outputs) when :data:`CONFIG_NAME` is true."""

    default_priority = 11  # after sphinx-exercise's MergeGatedSolutions (10)

    def apply(self, **kwargs: Any) -> None:
        if not getattr(self.config, CONFIG_NAME, False):
            return
        from sphinx_exercise.nodes import (
            solution_end_node,
            solution_node,
            solution_start_node,
        )

        for node in list(
            self.document.findall(
                lambda n: isinstance(
                    n, (solution_node, solution_start_node, solution_end_node)
                )
            )
        ):
            if node.parent is not None:
                node.parent.remove(node)
        # sphinx-exercise lists solutions for its reference resolution: a removed one must
        # not be found (it would link to a page section that is not there)
        registry = getattr(self.env, "sphinx_exercise_registry", {})
        for label in [
            k
            for k, v in registry.items()
            if v.get("type") == "solution" and v.get("docname") == self.env.docname
        ]:
            del registry[label]


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


def _no_source_download(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """The student edition's download menu keeps "print to PDF" only: the page's ``.md`` and
    ``.ipynb`` hold the solutions."""
    if not getattr(app.config, CONFIG_NAME, False):
        return
    for group in context.get("header_buttons", []):
        if group.get("label") == "download-buttons":
            group["buttons"] = [
                b
                for b in group["buttons"]
                if b.get("label")
                not in ("download-notebook-button", "download-source-button")
            ]


def _no_pdf(app: Sphinx, config: Any) -> None:
    """No "Download PDF" and no PDF copied beside the student pages: the PDF has a solutions
    appendix.  (:mod:`booktools.sphinx.pdf` sets ``formulated_pdf`` when the PDF exists, at
    ``config-inited``; this runs after it.)"""
    if getattr(config, CONFIG_NAME, False):
        config.formulated_pdf = ""


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value(CONFIG_NAME, False, "env", [bool])
    app.connect("config-inited", _no_pdf, priority=900)
    app.add_transform(RemoveSolutions)
    app.connect("source-read", _student_appendix)
    app.connect("html-page-context", _no_source_download, priority=920)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def main(argv: list[str] | None = None) -> int:
    """``python -m booktools.course.student``: the student edition's HTML book."""
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
