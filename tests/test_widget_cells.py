"""Every chapter's widget cells finished within a short limit in ``make book``'s run.

A widget cell once waited out its whole 900 s timeout in a fresh kernel on a busy machine
(booktools/sphinx/kernel_client.py says why and what fixes it); the build's own limit (900 s
per cell, ``_config.yml``) would let a stall that ends before it pass unnoticed.  ``make book``
executes every chapter in a fresh kernel and records how long each code cell took, from its
start to its reply (booktools/build/prebuild.py, in the execution cache beside the run): this
test reads those times instead of executing the chapters again, and fails when a widget cell
took :data:`WIDGET_TIMEOUT` seconds or more (they take 0.3-2 s).
"""

from __future__ import annotations

import pytest
from _chapters import ROOT, cached_record, dependencies, newest_change

#: Seconds a widget cell may take.
WIDGET_TIMEOUT = 60


def _widget_chapters() -> list[str]:
    import jupytext

    return [
        path.stem
        for path in sorted((ROOT / "chapters").glob("[0-9][0-9]_*.md"))
        if any(
            c.cell_type == "code" and "_widget(" in c.source
            for c in jupytext.read(path).cells
        )
    ]


def slow_widget_cells(sources: list[str], seconds: list[float | None]) -> list[str]:
    """The widget cells (``*_widget(`` calls) among code cells ``sources`` whose time in
    ``seconds`` (the same order) is missing or at least :data:`WIDGET_TIMEOUT`."""
    if len(sources) != len(seconds):
        raise ValueError(
            f"seconds: expected one per code cell ({len(sources)}), got {len(seconds)}"
        )
    return [
        f"cell {i}: {took} s"
        for i, (source, took) in enumerate(zip(sources, seconds))
        if "_widget(" in source and (took is None or took >= WIDGET_TIMEOUT)
    ]


def test_the_check_finds_a_stalled_or_untimed_widget_cell() -> None:
    sources = ["import x", "widgets.attention_widget()", "print(1)"]
    assert slow_widget_cells(sources, [3.0, 1.2, 900.0]) == []
    assert slow_widget_cells(sources, [3.0, 60.0, 0.1]) == ["cell 1: 60.0 s"]
    assert slow_widget_cells(sources, [3.0, None, 0.1]) == ["cell 1: None s"]
    with pytest.raises(ValueError, match="one per code cell"):
        slow_widget_cells(sources, [1.0])


@pytest.mark.slow  # reads make book's execution cache
@pytest.mark.parametrize("chapter", _widget_chapters())
def test_widget_cells_never_stall(chapter: str) -> None:
    from booktools.build.prebuild import read_chapter

    path = ROOT / "chapters" / f"{chapter}.md"
    record = cached_record(path, since=newest_change(dependencies(path)))
    if record is None:
        pytest.fail(f"{chapter}: no run in the execution cache: run `make book`")
    seconds = (record.data or {}).get("cell_seconds")
    if not seconds:
        pytest.fail(
            f"{chapter}: its run has no cell times (run before they were recorded): "
            "delete _build/.jupyter_cache and run `make book`"
        )
    sources = [c.source for c in read_chapter(path).cells if c.cell_type == "code"]
    slow = slow_widget_cells(sources, seconds)
    assert not slow, f"{chapter}: widget cells at or over {WIDGET_TIMEOUT} s: {slow}"
