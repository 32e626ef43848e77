"""Every chapter of ``_toc.yml`` exists, and every notebook chapter executes without error."""

from __future__ import annotations

import os

import pytest
from _chapters import ROOT, execute_chapter, is_notebook, toc_files

CHAPTERS = toc_files()


def test_toc_lists_chapters_that_exist():
    missing = [f for f in CHAPTERS if not (ROOT / f"{f}.md").exists()]
    assert CHAPTERS and not missing, (
        f"_toc.yml names files that do not exist: {missing}"
    )


NOTEBOOKS = [
    f for f in CHAPTERS if (ROOT / f"{f}.md").exists() and is_notebook(ROOT / f"{f}.md")
]


@pytest.mark.chapter
@pytest.mark.parametrize(
    "chapter", NOTEBOOKS, ids=[os.path.basename(c) for c in NOTEBOOKS]
)
def test_chapter_executes(chapter):
    nb = execute_chapter(ROOT / f"{chapter}.md")
    errors = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors, f"{chapter}: {errors[0].get('ename')}: {errors[0].get('evalue')}"


NUMBERED = [c for c in CHAPTERS if os.path.basename(c)[:2].isdigit()]


@pytest.mark.parametrize(
    "chapter", NUMBERED, ids=[os.path.basename(c) for c in NUMBERED]
)
def test_chapter_has_definitions_and_solved_exercises(chapter):
    """The chapter rhythm: at least one definition box, and >= 3 exercises, each with a solution."""
    import re

    from booktools.course.assign import exercises

    text = (ROOT / f"{chapter}.md").read_text(encoding="utf-8")
    assert "{prf:definition}" in text, f"{chapter} has no definition box"
    found = exercises(text)
    assert len(found) >= 3, f"{chapter} has {len(found)} exercises, expected at least 3"
    solved = set(re.findall(r"\{solution(?:-start)?\}\s+(\S+)", text))
    unsolved = [e.label for e in found if e.label not in solved]
    assert not unsolved, f"{chapter}: exercises without a solution: {unsolved}"
