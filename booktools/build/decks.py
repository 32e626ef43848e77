"""Where the slide decks and their handouts are written, and how the book links them.

Each numbered chapter has a deck per language (:data:`LANGUAGES`) under :data:`OUT`
(:func:`deck_path`), built from its slide source under :data:`SRC`
(:mod:`booktools.build.slides`), and a handout beside it (:func:`handout_path`, printed by
:mod:`booktools.build.handouts`); a page of the book links both (:func:`deck_href`,
:func:`handout_href`; :mod:`booktools.sphinx.slides`).
"""

from __future__ import annotations

from pathlib import Path

from booktools.paths import ROOT

__all__ = [
    "LANGUAGES",
    "SRC",
    "OUT",
    "deck_path",
    "deck_href",
    "handout_path",
    "handout_href",
]

LANGUAGES = ("en", "ko")
#: The slide sources (a Sphinx project of its own) and the decks.
SRC = ROOT / "_build" / "slides_src"
OUT = ROOT / "_build" / "html" / "slides"


def deck_path(name: str, language: str, out: Path = OUT) -> Path:
    """Where the deck of chapter ``name`` (docname) in ``language`` is written."""
    if language not in LANGUAGES:
        raise ValueError(f"language: {language!r} is not one of {LANGUAGES}")
    return out / language / f"{name}.html"


def deck_href(name: str, language: str) -> str:
    """The link from chapter ``name``'s page in ``language`` to its deck (relative)."""
    up = "../" if language == "en" else "../../"
    return f"{up}slides/{language}/{name}.html"


def handout_path(name: str, language: str, out: Path = OUT) -> Path:
    """Where the printable handout (PDF) of chapter ``name``'s deck is written."""
    if language not in LANGUAGES:
        raise ValueError(f"language: {language!r} is not one of {LANGUAGES}")
    return out / language / "handouts" / f"{Path(name).name}.pdf"


def handout_href(name: str, language: str) -> str:
    """The link from a page of the book in ``language`` (a chapter's, or appendix C) to the
    handout of chapter ``name``'s deck (relative)."""
    up = "../" if language == "en" else "../../"
    return f"{up}slides/{language}/handouts/{Path(name).name}.pdf"
