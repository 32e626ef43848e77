"""Where the book's data lives, found through the package (not through the current directory).

A chapter, a downloaded notebook or a student's assignment may run from any directory, so no
code opens ``"../data/..."``: it asks this module.  The data ship in the repository's ``data/``
folder (``data/README.md`` gives their provenance).  :data:`DATA_DIR` is the first of:

1. the folder named by the environment variable ``FORMULATED_DATA`` (:data:`DATA_ENV`), for a
   copy of the data kept elsewhere;
2. ``formulated/_data/`` inside the installed package: the wheel that ``booktools/course/wheel.py``
   builds for the autograder zips copies the data the chapters read in there at build time
   (:data:`PACKAGED_DATA`), so that an environment built from a zip alone has them;
3. the repository's ``data/`` next to the package: an editable install (``pip install -e .``,
   what ``make`` and the Colab/Binder set-ups do).

The repository keeps one copy of each file, in ``data/``; ``formulated/_data/`` exists only in
the wheel.
"""

from __future__ import annotations

import os
from pathlib import Path

#: The environment variable that, when set, names the data folder.
DATA_ENV = "FORMULATED_DATA"

#: The files (relative to ``data/``) that the wheel of the autograder zips carries in
#: ``formulated/_data/``: what the chapters with autograded exercises read when graded (Tiny
#: Shakespeare, chapters 6 and 18) and its provenance.  The checkpoints stay out (1.2 and 3.1 MB
#: compressed): chapter 18 reads ``book_run.pth`` only on a live page, and chapter 19, which
#: reads the other, has no autograded exercise.
PACKAGED_DATA = ("README.md", "tinyshakespeare.txt")

_PACKAGE = Path(__file__).resolve().parent


def _data_dir() -> Path:
    """The data folder, looked up in the order of the module's docstring."""
    given = os.environ.get(DATA_ENV)
    if given:
        return Path(given).expanduser().resolve()
    packaged = _PACKAGE / "_data"
    if packaged.is_dir():
        return packaged
    return _PACKAGE.parent / "data"


#: The data folder: ``$FORMULATED_DATA``, the wheel's ``formulated/_data/`` or the
#: repository's ``data/`` (one level above the package).
DATA_DIR = _data_dir()

#: File name of Tiny Shakespeare inside :data:`DATA_DIR`.
TINY_SHAKESPEARE = "tinyshakespeare.txt"


def data_path(name: str) -> Path:
    """The path of ``name`` inside :data:`DATA_DIR`; a clear error when the file is missing."""
    if (
        not isinstance(name, str)
        or not name
        or "/" in name
        or "\\" in name
        or name.startswith(".")
    ):
        raise ValueError(
            f"name: expected a plain file name inside {DATA_DIR}, got {name!r}"
        )
    path = DATA_DIR / name
    if not path.is_file():
        raise FileNotFoundError(
            f"name: {name!r} is not in {DATA_DIR}. The data ship with the repository: install the "
            f"package from a checkout (`pip install -e .` in the cloned repository), or set "
            f"{DATA_ENV} to a folder that holds them."
        )
    return path


def tiny_shakespeare_path() -> Path:
    """The path of Tiny Shakespeare (about 1.1 MB of plain text; see ``data/README.md``)."""
    return data_path(TINY_SHAKESPEARE)


def tiny_shakespeare() -> str:
    """The text of Tiny Shakespeare, read as UTF-8."""
    return tiny_shakespeare_path().read_text(encoding="utf-8")
