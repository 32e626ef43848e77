"""Rendering of the errata for appendix B: the list, and the counts by source."""
from __future__ import annotations

from collections import Counter
from typing import Sequence

from ..sources import SOURCES
from .record import Erratum

__all__ = ["errata_by_chapter", "errata_table", "source_counts"]


def _all() -> list[Erratum]:
    from . import ERRATA  # the package's list, looked up at call time (tests may replace it)

    return ERRATA


def errata_by_chapter(errata: Sequence[Erratum] | None = None) -> dict[str, list[Erratum]]:
    """Group the errata (default: all of :data:`formulated.errata.ERRATA`) by chapter, in order."""
    out: dict[str, list[Erratum]] = {}
    for e in _all() if errata is None else errata:
        out.setdefault(e.chapter, []).append(e)
    return out


def source_counts(errata: Sequence[Erratum] | None = None) -> Counter:
    """How many errata each source has.  An erratum found in two sources (000 and 001 share their
    boxes) counts once for each, so the counts add up to more than the number of errata."""
    return Counter(s for e in (_all() if errata is None else errata) for s in e.sources)


def errata_table(errata: Sequence[Erratum] | None = None) -> str:
    """Render every erratum as MyST Markdown for the errata appendix.

    Each entry gives the source's value and the correction and links to the label in the chapter
    that proves it.  Raises ``ValueError`` when two errata share a key.
    """
    errata = _all() if errata is None else errata
    keys = [e.key for e in errata]
    dupes = {k for k in keys if keys.count(k) > 1}
    if dupes:
        raise ValueError(f"ERRATA: expected unique keys, got duplicates {sorted(dupes)}")
    lines: list[str] = []
    for i, e in enumerate(errata, start=1):
        srcs = ", ".join(f"`{s}` ({SOURCES[s]})" for s in e.sources)
        tag = "Omission" if e.kind == "omission" else "Error"
        lines += [
            f"**E{i}. {tag} — {e.section}** · source {srcs}  ",
            f"*The source says:* {e.says}  ",
            f"*Correct:* {e.correct}  ",
            # Explicit link text: the label sits before an admonition, which has no title
            # Sphinx could use for a bare {ref}.
            f"*Proof:* {{ref}}`the computation <{e.label}>` in chapter "
            f"{{doc}}`{e.chapter.split('/')[-1]}`",
            "",
        ]
    return "\n".join(lines)
