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
  attention, FFN and GELU, LayerNorm and residuals)
- :mod:`.models`      — The models, chapters 13–16 (GPT, GPT-2/3, BERT/RoBERTa, parameters)
- :mod:`.training`    — Training, chapters 17–19 (training objective, training, inside the model)

To add an erratum (also one that the audit ledger of appendix B finds): append an
:class:`Erratum` to the ``ERRATA`` list of its chapter's part.  Sources are named by their id
in :data:`formulated.sources.SOURCES`.  The erratum record is :mod:`.record`; the appendix's
tables are :mod:`.table`; the list of all, :mod:`.registry`; the audit ledger (every claim of the five sources, with its
verdict) is :mod:`.ledger`.
"""

from __future__ import annotations

from ..sources import SOURCES
from .record import ERRATUM_HOLDS, KINDS, NO_ERRATUM, SEVERITIES, Erratum
from .registry import ERRATA, erratum
from .table import errata_by_chapter, errata_table, severity_counts, source_counts

__all__ = [
    "Erratum",
    "ERRATA",
    "SOURCES",
    "ERRATUM_HOLDS",
    "NO_ERRATUM",
    "KINDS",
    "SEVERITIES",
    "erratum",
    "errata_by_chapter",
    "errata_table",
    "source_counts",
    "severity_counts",
]
