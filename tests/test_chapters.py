"""Every chapter of ``_toc.yml`` exists, and every notebook chapter executes without error.

``make book`` (which ``make test`` follows) executes every chapter with errors not allowed and
stores each run in the execution cache: the test reads those runs.  A chapter runs here only
when the cache holds no run of its current code, or the package or the data changed after
its run (:func:`_chapters.cached_run`)."""

from __future__ import annotations

import os
import time

import pytest
from _chapters import (
    MYST_HEADER,
    ROOT,
    cached_run,
    cell_errors,
    dependencies,
    execute_and_cache,
    is_notebook,
    newest_change,
)

from booktools.build.toc import toc_files

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
    path = ROOT / f"{chapter}.md"
    nb = cached_run(path, since=newest_change(dependencies(path)))
    if nb is None:  # not in make book's cache as it is now: run it (and store the run)
        nb, error = execute_and_cache(path)
        assert error is None, f"{chapter}: {error}"
    errors = cell_errors(nb)
    assert not errors, f"{chapter}: {errors[0]}"


def _scratch_run(tmp_path, code: str, outputs: list) -> tuple:
    """A one-cell scratch chapter and a cache holding a run of it with ``outputs``."""
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    from booktools.build.prebuild import read_chapter

    path = tmp_path / "scratch.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{MYST_HEADER}\n```{{code-cell}} python\n{code}\n```\n")
    nb = read_chapter(path)
    nb.cells[0].outputs = [nbformat.from_dict(o) for o in outputs]
    get_cache(str(tmp_path / "cache")).cache_notebook_bundle(
        CacheBundleIn(nb, str(path)), check_validity=False
    )
    return path, tmp_path / "cache"


def test_a_cached_run_is_read_and_its_error_found(tmp_path):
    """The reading of make book's runs can fail: a stored error shows, a run of other code
    or an older run is no run, and no cache is no run."""
    error = {"output_type": "error", "ename": "ValueError", "evalue": "boom"}
    error["traceback"] = []
    path, cache = _scratch_run(tmp_path, "raise ValueError('boom')", [error])
    nb = cached_run(path, cache)
    assert cell_errors(nb) == ["ValueError: boom"]
    assert cached_run(path, cache, since=time.time() - 60) is not None  # cached after
    assert cached_run(path, cache, since=time.time() + 60) is None  # changed since
    assert cached_run(path, tmp_path / "nowhere") is None
    assert not (tmp_path / "nowhere").exists()
    path.write_text(path.read_text().replace("boom", "bang"))
    assert cached_run(path, cache) is None  # the code changed: the run is stale
    fine = {"output_type": "stream", "name": "stdout", "text": "4\n"}
    path, cache = _scratch_run(tmp_path / "fine", "print(2 + 2)", [fine])
    assert cell_errors(cached_run(path, cache)) == []


@pytest.mark.chapter  # starts a kernel
def test_a_chapter_that_raises_is_reported_and_not_cached(tmp_path):
    path = tmp_path / "scratch.md"
    path.write_text(
        f"{MYST_HEADER}\n```{{code-cell}} python\nraise ValueError('boom')\n```\n"
    )
    nb, error = execute_and_cache(path, tmp_path / "cache")
    assert nb is None and "ValueError" in error and "boom" in error, error
    assert cached_run(path, tmp_path / "cache") is None


def test_appendix_c_depends_on_the_tooling_too():
    assert dependencies(ROOT / "chapters" / "09_masks.md") == ("formulated", "data")
    assert "booktools" in dependencies(ROOT / "chapters" / "appendix_c_instructors.md")


def test_newest_change_sees_a_new_file(tmp_path):
    (tmp_path / "formulated" / "__pycache__").mkdir(parents=True)
    (tmp_path / "data").mkdir()
    old = tmp_path / "formulated" / "a.py"
    old.write_text("")
    os.utime(old, (1000, 1000))
    compiled = tmp_path / "formulated" / "__pycache__" / "a.pyc"
    compiled.write_text("")
    assert newest_change(root=tmp_path) == 1000  # bytecode does not count
    (tmp_path / "data" / "b.txt").write_text("")
    assert newest_change(root=tmp_path) > 1000


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
