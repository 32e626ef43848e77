"""The five documents this book grew from: the one list of them.

The errata (:mod:`formulated.errata`) and the coverage map (:mod:`formulated.coverage`)
name sources by these ids; the book names them the same way (``000`` … ``004``).
"""

from __future__ import annotations

__all__ = ["SOURCES", "source_title"]

#: Source id -> title, in the book's order.
SOURCES: dict[str, str] = {
    "000": "The Formulated GPT-2 (first version)",
    "001": "The Formulated GPT-2 (revision)",
    "002": "Notations",
    "003": "Lecture notes on GPT (Korean)",
    "004": "Slides: Generative Pretrained Transformer",
}


def source_title(key: str) -> str:
    """The title of source ``key`` (``"000"`` … ``"004"``), with a clear error for an unknown id."""
    if key not in SOURCES:
        raise ValueError(f"key: expected one of {sorted(SOURCES)}, got {key!r}")
    return SOURCES[key]
