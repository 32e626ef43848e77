"""Every chapter's widget cell, executed in fresh kernels, several times, under a short timeout.

A widget cell once waited out its whole 900 s timeout in a fresh kernel on a busy machine
(booktools/sphinx/kernel_client.py says why and what fixes it). Each round here starts a new
kernel, runs the chapter's first code cell (its imports) and then its widget cell(s), each
within WIDGET_TIMEOUT seconds: a stall fails the test instead of passing unnoticed.
Chapter 18's widget needs the model that the chapter trains first, so it is left to
tests/test_chapters.py.
"""

from __future__ import annotations

import os
import time

import pytest
from _chapters import ROOT

#: Seconds a widget cell may take (they take 0.3-2 s; the imports cell gets IMPORT_TIMEOUT).
WIDGET_TIMEOUT = 60
IMPORT_TIMEOUT = 180
#: Fresh kernels per chapter (FORMULATED_WIDGET_ROUNDS overrides, e.g. 20 to hunt a stall).
#: One: ``make book`` has run every widget cell in a fresh kernel of its own already.
ROUNDS = int(os.environ.get("FORMULATED_WIDGET_ROUNDS", "1"))

NEEDS_TRAINING = {"18_train_tiny_gpt"}
#: Chapters whose widgets read names that earlier cells define (chapter 19: the loaded model and
#: a sample line): every code cell up to the last widget cell runs, the others under IMPORT_TIMEOUT.
NEEDS_STATE = {"19_inside_the_model"}


def _widget_chapters() -> list[str]:
    import jupytext

    names = []
    for path in sorted((ROOT / "chapters").glob("[0-9][0-9]_*.md")):
        nb = jupytext.read(path)
        if path.stem not in NEEDS_TRAINING and any(
            c.cell_type == "code" and "_widget(" in c.source for c in nb.cells
        ):
            names.append(path.stem)
    return names


@pytest.mark.slow
@pytest.mark.parametrize("chapter", _widget_chapters())
def test_widget_cells_never_stall(chapter: str, tmp_path) -> None:
    import jupytext
    import nbformat
    from nbclient import NotebookClient

    nb = jupytext.read(ROOT / "chapters" / f"{chapter}.md")
    code = [c for c in nb.cells if c.cell_type == "code"]
    widgets = [c for c in code[1:] if "_widget(" in c.source]
    assert widgets, f"{chapter}: no widget cell"
    if chapter in NEEDS_STATE:
        widgets = code[1 : code.index(widgets[-1]) + 1]
    env = {
        k: v for k, v in os.environ.items() if k != "MPLBACKEND"
    }  # the inline backend
    for round_ in range(ROUNDS):
        small = nbformat.v4.new_notebook(
            cells=[code[0], *widgets], metadata=nb.metadata
        )
        client = NotebookClient(
            small,
            timeout=WIDGET_TIMEOUT,
            kernel_name="python3",
            resources={"metadata": {"path": str(tmp_path)}},
        )
        with client.setup_kernel(env=env):
            for index, cell in enumerate(small.cells):
                is_widget = index > 0 and "_widget(" in cell.source
                client.timeout = WIDGET_TIMEOUT if is_widget else IMPORT_TIMEOUT
                start = time.monotonic()
                client.execute_cell(cell, index)
                took = time.monotonic() - start
                assert took < client.timeout, (
                    f"{chapter} round {round_}: cell {index} {took:.0f} s"
                )
        shown = [o for c in small.cells[1:] for o in c.outputs]
        assert any(
            "application/vnd.jupyter.widget-view+json" in o.get("data", {})
            for o in shown
        ), f"{chapter}: the widget cell showed no widget"
