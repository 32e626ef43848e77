"""The NumPy formulas: one function per boxed definition of the sources (being written)."""
from __future__ import annotations

__all__: list[str] = []
