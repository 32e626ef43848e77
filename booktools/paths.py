"""The repository's paths that several tools share: its root (the one definition of
``ROOT``), the book's configuration, the Korean catalogues, the execution cache and the
built HTML book."""

from __future__ import annotations

from pathlib import Path

__all__ = ["ROOT", "CONFIG", "LOCALES", "CACHE", "HTML"]

#: The repository's root: the folder that holds ``booktools/``.
ROOT = Path(__file__).resolve().parents[1]

#: The book's configuration (Jupyter Book's ``_config.yml``).
CONFIG = ROOT / "_config.yml"

#: The translations' catalogues, one folder per language.
LOCALES = ROOT / "locales"

#: Myst-NB's execution cache, filled by ``make book`` and read by every later build.
CACHE = ROOT / "_build" / ".jupyter_cache"

#: The built HTML book.
HTML = ROOT / "_build" / "html"
