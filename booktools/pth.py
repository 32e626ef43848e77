"""Make ``booktools`` importable in the current environment without installing it.

The book's tooling (Sphinx extensions, prebuild, Lab and live servers, otter glue) lives in the
repository, not in the ``formulated`` package that readers ``pip install``. ``make env`` (and
Binder's postBuild) run ``python -m booktools pth`` from the repository's root (where
``booktools`` is importable already), which writes one ``.pth`` line pointing at the
repository root into the environment's site-packages, so Jupyter Book, the kernels, pytest
and JupyterLab can all ``import booktools`` from any folder.
"""

from __future__ import annotations

import sysconfig
from pathlib import Path

from booktools.paths import ROOT


def install() -> Path:
    """Write ``booktools.pth`` (the repository root) into this interpreter's site-packages."""
    target = Path(sysconfig.get_paths()["purelib"]) / "booktools.pth"
    target.write_text(f"{ROOT}\n")
    return target


def main(argv: list[str] | None = None) -> None:
    """``python -m booktools pth``: write the ``.pth`` file and say where (no arguments)."""
    if argv:
        raise SystemExit(f"pth: expected no arguments, got {argv}")
    print(f"booktools importable via {install()}")


if __name__ == "__main__":
    main()
