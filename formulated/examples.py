"""Worked examples of the sources, as data (being written)."""
from __future__ import annotations

__all__: list[str] = []
