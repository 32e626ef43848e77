"""Every figure of the book says what it shows.

A figure cell (a code cell that draws with matplotlib) carries MyST-NB metadata
``mystnb: image: alt: ...``, which MyST-NB 1.4 writes as the figure's ``<img alt>``
(``render_image`` reads the cell-level ``image`` options: alt, classes, width...). Without it
the built page's alt is the image's path (``../_images/<hash>.png``). The alt must state the
figure's message: several words, not a path or a file name, not the code's title alone.
"""

from __future__ import annotations

import re

import jupytext
import pytest
from _chapters import ROOT

#: What makes a code cell a figure cell: it draws with pyplot (chapter 18's plot_losses too).
DRAWS = re.compile(r"plt\.(show|subplots|figure|plot|imshow)|\.subplots\(|plot_\w+\(")
#: A path or file name where a sentence should be.
FILE_LIKE = re.compile(r"\.(png|svg|jpe?g|gif)\b|_images/|^[\w./\\-]+$", re.IGNORECASE)


def figure_cells() -> list[tuple[str, int, str, dict]]:
    """(chapter, code-cell number, source, metadata) of every figure cell of the chapters."""
    cells = []
    for path in sorted((ROOT / "chapters").glob("[0-9][0-9]_*.md")):
        code = [c for c in jupytext.read(path).cells if c.cell_type == "code"]
        cells += [
            (path.stem, k, c.source, dict(c.metadata))
            for k, c in enumerate(code)
            if DRAWS.search(c.source) and "_widget(" not in c.source
        ]
    return cells


def alt_problem(alt: object) -> str | None:
    """Why ``alt`` is not a usable alt text, or None when it is."""
    if not isinstance(alt, str) or not alt.strip():
        return f"expected alt text, got {alt!r}"
    if FILE_LIKE.search(alt.strip()):
        return f"expected a description, got a path or file name: {alt!r}"
    if len(alt.split()) < 8:
        return f"expected a sentence stating the figure's message, got {alt!r}"
    return None


def test_the_book_has_its_figures():
    # the 41 figures counted when alt texts were added: a detection that finds none
    # would pass vacuously
    assert len(figure_cells()) >= 41


@pytest.mark.parametrize(
    "chapter, index, source, metadata",
    figure_cells(),
    ids=lambda v: (
        v
        if isinstance(v, (str, int)) and not isinstance(v, bool) and len(str(v)) < 40
        else ""
    ),
)
def test_figure_cell_has_alt_text(chapter, index, source, metadata):
    alt = metadata.get("mystnb", {}).get("image", {}).get("alt")
    problem = alt_problem(alt)
    assert problem is None, f"{chapter}, code cell {index}: {problem}\n{source[:200]}"


@pytest.mark.parametrize(
    "alt",
    [
        None,
        "",
        "  ",
        "../_images/3254abd6.png",
        "figure.svg",
        "fig-18-loss",
        "Training loss",
    ],
)
def test_alt_problem_refuses(alt):
    assert alt_problem(alt) is not None


def test_alt_problem_accepts_a_sentence():
    assert (
        alt_problem("The loss falls quickly and then slowly over the training steps.")
        is None
    )
