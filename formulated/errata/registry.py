"""Every erratum of the five parts, in the order of the chapters, and the lookup by key."""

from __future__ import annotations

from . import block, foundations, models, text, training
from .record import Erratum

__all__ = ["ERRATA", "erratum"]

#: Every erratum, in the order of the chapters (stable: within a chapter, as registered).
ERRATA: list[Erratum] = sorted(
    [
        *foundations.ERRATA,
        *text.ERRATA,
        *block.ERRATA,
        *models.ERRATA,
        *training.ERRATA,
    ],
    key=lambda e: e.chapter.split("/")[-1][:2],
)


def erratum(key: str) -> Erratum:
    """The erratum called ``key`` (a chapter runs its check: ``e.verdict(e.stated)``)."""
    for e in ERRATA:
        if e.key == key:
            return e
    raise ValueError(f"key: expected the key of an erratum, got {key!r}")
