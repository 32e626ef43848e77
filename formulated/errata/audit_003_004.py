"""Errata found by the audit ledger (appendix B) of sources 003 and 004: records not registered
before.

A name is a fact of record, not the result of a computation: its check compares the value with
the cited work (``basis="citation"``), so that every other spelling is wrong, not only the one
the source printed.
"""

from __future__ import annotations

from .record import Erratum

__all__ = ["ERRATA", "shannon_name_is_wrong"]

_CH02 = "chapters/02_probability_information"

#: The paper that founded information theory; its by-line is "C. E. Shannon".
_SHANNON_1948 = (
    'C. E. Shannon, "A Mathematical Theory of Communication", Bell System '
    "Technical Journal 27 (1948), pp. 379-423 and 623-656; by-line C. E. Shannon, "
    "Claude Elwood Shannon"
)


def shannon_name_is_wrong(name: str) -> bool:
    """Is ``name`` not the author of the cited 1948 paper, Claude Elwood Shannon?

    The paper is signed "C. E. Shannon": given name Claude, middle name Elwood, family name
    Shannon.  A name is right when its first word is the given name or its initial (as in the
    by-line), its last word the family name, and anything between is the middle name or its
    initial; case and full stops are ignored, every other spelling is wrong.
    """
    given, middle, family = "claude", "elwood", "shannon"
    words = name.replace(".", " ").lower().split()
    if len(words) < 2 or words[0] not in (given, given[0]) or words[-1] != family:
        return True
    return not all(w in (middle, middle[0]) for w in words[1:-1])


ERRATA: list[Erratum] = [
    Erratum(
        key="004-shannon-name",
        sources=("004",),
        section='"Information & Uncertainty", point 1',
        says="the theory of information is attributed to “Clause Shannon”",
        correct="its founder is **Claude** Shannon (Claude Elwood Shannon, 1916–2001), author "
        "of “A Mathematical Theory of Communication” (1948)",
        chapter=_CH02,
        stated="Clause Shannon",
        true="Claude Shannon",
        check=shannon_name_is_wrong,
        basis="citation",
        cites=_SHANNON_1948,
    )
]
