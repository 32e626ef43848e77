"""Make ``booktools`` importable in the current environment without installing it.

The book's tooling (Sphinx extensions, prebuild, Lab and live servers, otter glue) lives in the
repository, not in the ``formulated`` package that readers ``pip install``. ``make env`` (and
Binder's postBuild) run this file, which writes one ``.pth`` line pointing at the repository
root into the environment's site-packages, so Jupyter Book, the kernels, pytest and JupyterLab
can all ``import booktools``.
"""

from __future__ import annotations

import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def install() -> Path:
    """Write ``booktools.pth`` (the repository root) into this interpreter's site-packages."""
    target = Path(sysconfig.get_paths()["purelib"]) / "booktools.pth"
    target.write_text(f"{ROOT}\n")
    return target


if __name__ == "__main__":
    print(f"booktools importable via {install()}")
