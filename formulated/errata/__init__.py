"""Every error the book found in its sources, in one place.

Each chapter that corrects a source shows the computation next to an ``{admonition}`` with a MyST
label (``(erratum-<key>)=``).  The same case is registered here, in the module of its chapter
group, with two values -- what the source states and what is true -- and a ``check`` that
recomputes the truth independently and tells the two apart (see :mod:`.record`).  The errata
appendix renders this list; ``tests/test_errata.py`` runs every check on both values and verifies
that the label exists in the chapter named, so the chapters and the appendix cannot disagree.

Modules, by the parts of ``_toc.yml`` (the same groups as :mod:`formulated.widgets`):

- :mod:`.foundations` — Foundations, chapters 01–04 (learning from data, information, networks,
  sequences)
- :mod:`.text`        — From text to vectors, chapters 05–07 (notation, tokenization, embeddings
  and positions)
- :mod:`.block`       — The transformer block, chapters 08–12 (attention, masks, multi-head
  attention, FFN and GELU, LayerNorm and residuals); those of chapters 11–12 in
  :mod:`.ffn_layernorm`, joined in ``block.ERRATA``
- :mod:`.models`      — The models, chapters 13–16 (GPT, GPT-2/3, BERT/RoBERTa, parameters)
- :mod:`.training`    — Training, chapters 17–19 (training objective, training, inside the model)

To add an erratum: append an :class:`Erratum` to the ``ERRATA`` list of its chapter group.
Sources are named by their id in :data:`formulated.sources.SOURCES`.
"""

from __future__ import annotations

from ..sources import SOURCES
from . import (
    audit_000_001,
    audit_002a,
    audit_002b,
    audit_003_004,
    block,
    foundations,
    models,
    text,
    training,
)
from .record import ERRATUM_HOLDS, KINDS, NO_ERRATUM, Erratum
from .table import errata_by_chapter, errata_table, source_counts

__all__ = [
    "Erratum",
    "ERRATA",
    "SOURCES",
    "ERRATUM_HOLDS",
    "NO_ERRATUM",
    "KINDS",
    "erratum",
    "errata_by_chapter",
    "errata_table",
    "source_counts",
]

_GROUPS = [
    *foundations.ERRATA,
    *text.ERRATA,
    *block.ERRATA,
    *models.ERRATA,
    *training.ERRATA,
]
_AUDIT = [
    *audit_000_001.ERRATA,
    *audit_002a.ERRATA,
    *audit_002b.ERRATA,
    *audit_003_004.ERRATA,
]
#: Every erratum, in the order of the chapters (stable: within a chapter, as registered; the
#: audit's finds, kept in modules of their own by source, join the chapter that proves them).
ERRATA: list[Erratum] = sorted(
    [*_GROUPS, *_AUDIT], key=lambda e: e.chapter.split("/")[-1][:2]
)


def erratum(key: str) -> Erratum:
    """The erratum called ``key`` (a chapter runs its check: ``e.verdict(e.stated)``)."""
    for e in ERRATA:
        if e.key == key:
            return e
    raise ValueError(f"key: expected the key of an erratum, got {key!r}")
