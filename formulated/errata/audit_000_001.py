"""Errata found by the audit ledger (appendix B) of source(s) 000_001: records not registered before."""
from __future__ import annotations

from .record import Erratum

__all__ = ["ERRATA"]

ERRATA: list[Erratum] = []
