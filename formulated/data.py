"""Where the book's data lives, found through the package (not through the current directory).

A chapter, a downloaded notebook or a student's assignment may run from any directory, so no
code opens ``"../data/..."``: it asks this module.  The data ship in the repository's ``data/``
folder (``data/README.md`` gives their provenance); an editable install (``pip install -e .``,
what ``make`` and the Colab/Binder set-ups do) keeps the package next to that folder.
"""
from __future__ import annotations

from pathlib import Path

#: The repository's ``data/`` folder: one level above the package.
DATA_DIR = Path(__file__).resolve().parents[1] / "data"

#: File name of Tiny Shakespeare inside :data:`DATA_DIR`.
TINY_SHAKESPEARE = "tinyshakespeare.txt"


def data_path(name: str) -> Path:
    """The path of ``name`` inside :data:`DATA_DIR`; a clear error when the file is missing."""
    if not isinstance(name, str) or not name or "/" in name or "\\" in name or name.startswith("."):
        raise ValueError(f"name: expected a plain file name inside {DATA_DIR}, got {name!r}")
    path = DATA_DIR / name
    if not path.is_file():
        raise FileNotFoundError(
            f"name: {name!r} is not in {DATA_DIR}. The data ship with the repository: install the "
            "package from a checkout (`pip install -e .` in the cloned repository).")
    return path


def tiny_shakespeare_path() -> Path:
    """The path of Tiny Shakespeare (about 1.1 MB of plain text; see ``data/README.md``)."""
    return data_path(TINY_SHAKESPEARE)


def tiny_shakespeare() -> str:
    """The text of Tiny Shakespeare, read as UTF-8."""
    return tiny_shakespeare_path().read_text(encoding="utf-8")
