"""Every error the book found in its sources, in one place.

Each chapter that corrects a source shows the computation next to an ``{admonition}`` with a MyST
label (``(erratum-<key>)=``).  The same case is registered here with a ``check`` that *recomputes*
the evidence and returns ``True`` when the source is indeed wrong.  The errata appendix renders
this list, and ``tests/test_errata.py`` runs every check and verifies that the label exists in the
chapter named, so the chapters and the appendix cannot disagree.

To add an erratum: append an :class:`Erratum` to ``ERRATA`` in the section of your chapter.
Sources are named by their number: ``"000"`` (The Formulated GPT-2, first version), ``"001"``
(its revision), ``"002"`` (Notations), ``"003"`` (lecture notes), ``"004"`` (slides).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

__all__ = ["Erratum", "ERRATA", "errata_by_chapter", "errata_table"]

SOURCES = {
    "000": "The Formulated GPT-2 (first version)",
    "001": "The Formulated GPT-2 (revision)",
    "002": "Notations",
    "003": "Lecture notes on GPT (Korean)",
    "004": "Slides: Generative Pretrained Transformer",
}


@dataclass(frozen=True)
class Erratum:
    """One source error.

    key:      short unique id; the chapter holds the MyST label ``erratum-<key>``.
    sources:  the source numbers that contain the error, e.g. ``("000", "001")``.
    section:  where in the source (box name, step, slide title).
    says:     what the source writes (paraphrased or the formula; MyST/LaTeX allowed).
    correct:  what is right.
    chapter:  the chapter file that proves it, e.g. ``"chapters/09_masks"``.
    check:    recomputes the evidence; returns True when the source is wrong as described.
    kind:     ``"error"`` (wrong as written) or ``"omission"`` (the real model has something the
              source leaves out).
    """

    key: str
    sources: tuple[str, ...]
    section: str
    says: str
    correct: str
    chapter: str
    check: Callable[[], bool]
    kind: str = "error"

    @property
    def label(self) -> str:
        return f"erratum-{self.key}"


ERRATA: list[Erratum] = []

# ---------------------------------------------------------------------------------------------
# Each chapter owner appends its errata in its own section below (keep the sections in order).
# Imports needed by a check go *inside* the check function, so that importing this module stays
# cheap and free of cycles.
# ---------------------------------------------------------------------------------------------

# == chapters 01-04 (ML basics, information, neural nets, sequences) ==========================

# == chapters 05-06 (notation, tokenization) ===================================================

# == chapters 07-09 (embeddings, attention, masks) =============================================

# == chapters 10-12 (multi-head, FFN/GELU, LayerNorm) ==========================================

# == chapters 13-16 (models, parameters) =======================================================

# == chapter 17 (training objective) ===========================================================

# == chapter 18 (training) =====================================================================


def errata_by_chapter() -> dict[str, list[Erratum]]:
    """Group :data:`ERRATA` by chapter, keeping the order of registration."""
    out: dict[str, list[Erratum]] = {}
    for e in ERRATA:
        out.setdefault(e.chapter, []).append(e)
    return out


def errata_table() -> str:
    """Render every erratum as MyST Markdown for the errata appendix (``{glue}``-free, plain text).

    Each entry links to the label in the chapter that proves it.
    """
    keys = [e.key for e in ERRATA]
    dupes = {k for k in keys if keys.count(k) > 1}
    if dupes:
        raise ValueError(f"ERRATA: expected unique keys, got duplicates {sorted(dupes)}")
    lines: list[str] = []
    for i, e in enumerate(ERRATA, start=1):
        srcs = ", ".join(f"`{s}` ({SOURCES.get(s, '?')})" for s in e.sources)
        tag = "Omission" if e.kind == "omission" else "Error"
        lines += [
            f"**E{i}. {tag} — {e.section}** · source {srcs}  ",
            f"*The source says:* {e.says}  ",
            f"*Correct:* {e.correct}  ",
            f"*Proof:* {{ref}}`{e.label}`",
            "",
        ]
    return "\n".join(lines)
