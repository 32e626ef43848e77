"""Rendering of the errata for appendix B: the summary, the list, and the audit ledger."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from ..sources import SOURCES
from . import registry
from .record import BASES, KINDS, SEVERITIES, Erratum

__all__ = [
    "errata_by_chapter",
    "errata_table",
    "source_counts",
    "kind_counts",
    "severity_counts",
    "severity_by_source",
    "severity_table",
    "basis_counts",
    "errata_summary",
    "ledger_section",
]


def _all() -> list[Erratum]:
    return registry.ERRATA  # looked up at call time (tests may replace it)


def errata_by_chapter(
    errata: Sequence[Erratum] | None = None,
) -> dict[str, list[Erratum]]:
    """Group the errata (default: all of :data:`formulated.errata.ERRATA`) by chapter, in order."""
    out: dict[str, list[Erratum]] = {}
    for e in _all() if errata is None else errata:
        out.setdefault(e.chapter, []).append(e)
    return out


def source_counts(errata: Sequence[Erratum] | None = None) -> Counter:
    """How many errata each source has.  An erratum found in two sources (000 and 001 share their
    boxes) counts once for each, so the counts add up to more than the number of errata."""
    return Counter(s for e in (_all() if errata is None else errata) for s in e.sources)


def kind_counts(errata: Sequence[Erratum] | None = None) -> Counter:
    """How many errata of each kind (``"error"``, ``"omission"``); every kind present."""
    errata = _all() if errata is None else errata
    return Counter({k: sum(e.kind == k for e in errata) for k in KINDS})


def severity_counts(errata: Sequence[Erratum] | None = None) -> Counter:
    """How many errata of each severity (``"error"``, ``"slip"``, ``"omission"``); every
    severity present.  Each case counts once."""
    errata = _all() if errata is None else errata
    return Counter({v: sum(e.severity == v for e in errata) for v in SEVERITIES})


def severity_by_source(errata: Sequence[Erratum] | None = None) -> dict[str, Counter]:
    """Source id -> how many of its errata have each severity (every source and severity
    present; a case in two sources counts once for each, as in :func:`source_counts`)."""
    errata = _all() if errata is None else errata
    return {s: severity_counts([e for e in errata if s in e.sources]) for s in SOURCES}


def severity_table(errata: Sequence[Erratum] | None = None) -> str:
    """The cases by severity, one row per source and a last row for all of them (where a case
    in two sources counts once), as a MyST table."""
    errata = _all() if errata is None else errata
    rows = [
        "| source | " + " | ".join(SEVERITIES) + " | cases |",
        "| --- |" + " ---: |" * (len(SEVERITIES) + 1),
    ]
    for s, counts in severity_by_source(errata).items():
        cells = [str(counts[v]) for v in SEVERITIES] + [str(sum(counts.values()))]
        rows.append(f"| `{s}` | " + " | ".join(cells) + " |")
    total = severity_counts(errata)
    cells = [f"**{total[v]}**" for v in SEVERITIES] + [f"**{len(errata)}**"]
    rows.append("| all sources, each case once | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def basis_counts(errata: Sequence[Erratum] | None = None) -> Counter:
    """How many errata each basis has (``"computed"``, ``"citation"``); every basis present."""
    errata = _all() if errata is None else errata
    return Counter({b: sum(e.basis == b for e in errata) for b in BASES})


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def errata_summary(errata: Sequence[Erratum] | None = None) -> str:
    """One Markdown paragraph: the number of cases, by severity, by basis and by source, all
    counted from the registry (an erratum in two sources counts once for each of them)."""
    errata = _all() if errata is None else errata
    severities, bases, sources = (
        severity_counts(errata),
        basis_counts(errata),
        source_counts(errata),
    )
    shared = sum(len(e.sources) > 1 for e in errata)
    by_source = ", ".join(f"`{s}`: {sources[s]}" for s in SOURCES if sources[s])
    text = (
        f"**{_plural(len(errata), 'case')}**: {_plural(severities['error'], 'error')}, "
        f"{_plural(severities['slip'], 'slip')} and "
        f"{_plural(severities['omission'], 'omission')}. By basis: {bases['computed']} computed "
        f"(the check recomputes the truth) and {bases['citation']} resting on a citation "
        f"(the check compares with a published fact). By source: {by_source}."
    )
    if shared:
        text += (
            f" These add up to {sum(sources.values())}, more than {len(errata)}: "
            f"{_plural(shared, 'case')} occur in two sources (mostly `000` and `001`, the "
            f"two versions of one text, which share their boxes) and count once for each."
        )
    return text


def errata_table(errata: Sequence[Erratum] | None = None) -> str:
    """Render every erratum as MyST Markdown for the errata appendix.

    Each entry gives the source's value and the correction, marks a citation-based check with
    the work it cites, and links to the label in the chapter that proves it.  Raises
    ``ValueError`` when two errata share a key.
    """
    errata = _all() if errata is None else errata
    keys = [e.key for e in errata]
    dupes = {k for k in keys if keys.count(k) > 1}
    if dupes:
        raise ValueError(
            f"ERRATA: expected unique keys, got duplicates {sorted(dupes)}"
        )
    lines: list[str] = []
    for i, e in enumerate(errata, start=1):
        srcs = ", ".join(f"`{s}` ({SOURCES[s]})" for s in e.sources)
        tag = e.severity.capitalize()
        cited = f" *(citation: {e.cites})*" if e.basis == "citation" else ""
        lines += [
            f"**E{i}. {tag} — {e.section}** · source {srcs}{cited}  ",
            f"*The source says:* {e.says}  ",
            f"*Correct:* {e.correct}  ",
            # Explicit link text: the label sits before an admonition, which has no title
            # Sphinx could use for a bare {ref}.  The chapter link renders with its title.
            f"*Proof:* {{ref}}`the computation <{e.label}>` in "
            f"{{doc}}`{e.chapter.split('/')[-1]}`",
            "",
        ]
    return "\n".join(lines)


def ledger_section(source: str) -> str:
    """The line of appendix B above the ledger of ``source``: its passages counted by verdict.
    (The table itself, :func:`formulated.errata.ledger.ledger_table`, is the output of a cell
    of its own, folded by the cell's ``hide-output`` tag so the page stays light.)"""
    from .ledger import VERDICTS, ledger, verdict_counts

    counts = verdict_counts(source)
    return (
        f"**{_plural(len(ledger(source)), 'passage')}** by verdict: "
        + ", ".join(f"*{v}* {counts[v]}" for v in VERDICTS)
        + "."
    )
