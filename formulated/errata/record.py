"""One erratum: what the source states, what is true, and a check that tells the two apart.

Every erratum carries two values, ``stated`` (what the source writes: a number, a formula as a
function, the name of a variant) and ``true`` (the correction), and a ``check(value)`` that
recomputes the truth *independently* (with ``torch``, ``transformers``, a simulation or an
exhaustive count) and answers whether ``value`` is wrong.  :meth:`Erratum.verdict` turns that
answer into words: ``"erratum holds"`` for the source's value, ``"no erratum"`` for the corrected
one.  ``tests/test_errata.py`` asks both questions of every erratum, so a check that answered the
same whatever it was given (a tautology) would fail the test.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..sources import SOURCES

__all__ = ["Erratum", "ERRATUM_HOLDS", "NO_ERRATUM", "KINDS", "SEVERITIES", "BASES"]

ERRATUM_HOLDS = "erratum holds"
NO_ERRATUM = "no erratum"
#: ``"error"``: wrong as written; ``"omission"``: the real model has what the source leaves out.
KINDS = ("error", "omission")
#: How much a case weighs (CONTRIBUTING, "Judging a claim"): ``"error"``, a wrong formula,
#: number, shape, definition or fact; ``"slip"``, a wrong letter, subscript or symbol that a
#: careful reader corrects silently; ``"omission"``, what reproducing the source needs and it
#: leaves out.  An error-kind case is an ``"error"`` or a ``"slip"``; an omission is an
#: ``"omission"``.
SEVERITIES = ("error", "slip", "omission")
#: ``"computed"``: the check recomputes the truth (a model, ``torch``, a simulation, an exhaustive
#: count); ``"citation"``: the truth is a fact of record (a paper's table, a name, a date) that no
#: computation yields, so the check compares with the cited statement, named in ``cites``.
BASES = ("computed", "citation")


@dataclass(frozen=True)
class Erratum:
    """One source error.

    key:      short unique id; the chapter holds the MyST label ``erratum-<key>``.
    sources:  the source ids that contain the error, e.g. ``("000", "001")``.
    section:  where in the source (box name, step, slide title).
    says:     what the source writes (paraphrased or the formula; MyST/LaTeX allowed).
    correct:  what is right.
    chapter:  the chapter file that proves it, e.g. ``"chapters/09_masks"``.
    stated:   the source's value, in a form ``check`` accepts.
    true:     the corrected value, in the same form.
    check:    ``check(value) -> bool``: recomputes the truth independently and returns True when
              ``value`` is wrong (so ``check(stated)`` is True and ``check(true)`` is False).
    kind:     ``"error"`` or ``"omission"``.
    severity: ``"error"`` or ``"slip"`` for an error, ``"omission"`` for an omission; no
              default, so that every record is judged (:data:`SEVERITIES`).
    basis:    ``"computed"`` or ``"citation"`` (then ``cites`` names the paper, table or page).
    """

    key: str
    sources: tuple[str, ...]
    section: str
    says: str
    correct: str
    chapter: str
    stated: Any
    true: Any
    check: Callable[[Any], bool]
    kind: str = "error"
    severity: str = ""
    basis: str = "computed"
    cites: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(
                f"kind: expected one of {KINDS}, got {self.kind!r} ({self.key})"
            )
        allowed = ("omission",) if self.kind == "omission" else ("error", "slip")
        if self.severity not in allowed:
            raise ValueError(
                f"severity: expected one of {allowed} for a case of kind "
                f"{self.kind!r} (the severities are {SEVERITIES}), got "
                f"{self.severity!r} ({self.key})"
            )
        if self.basis not in BASES:
            raise ValueError(
                f"basis: expected one of {BASES}, got {self.basis!r} ({self.key})"
            )
        if (self.basis == "citation") != bool(self.cites):
            raise ValueError(
                f"cites: expected the cited work exactly when basis is 'citation', "
                f"got basis {self.basis!r} and cites {self.cites!r} ({self.key})"
            )
        unknown = set(self.sources) - set(SOURCES)
        if not self.sources or unknown:
            raise ValueError(
                f"sources: expected ids among {sorted(SOURCES)}, got "
                f"{self.sources!r} ({self.key})"
            )

    @property
    def label(self) -> str:
        """The MyST label of the chapter's proof: ``erratum-<key>``."""
        return f"erratum-{self.key}"

    def verdict(self, value: Any) -> str:
        """``"erratum holds"`` if ``check(value)`` finds ``value`` wrong, else ``"no erratum"``."""
        answer = self.check(value)
        if not isinstance(answer, bool):
            raise TypeError(
                f"check of {self.key}: expected a bool, got {type(answer).__name__}"
            )
        return ERRATUM_HOLDS if answer else NO_ERRATUM

    def holds(self) -> bool:
        """True when the source's value is wrong and the corrected value is not."""
        return (
            self.verdict(self.stated) == ERRATUM_HOLDS
            and self.verdict(self.true) == NO_ERRATUM
        )
