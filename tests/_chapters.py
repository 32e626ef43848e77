"""Helpers to find and execute the book's chapters (MyST-Markdown notebooks) outside Sphinx;
the repository's ``ROOT`` for every test module."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from booktools.build.toc import toc_files  # noqa: F401  (re-exported: one reader of _toc.yml)

#: The repository's root: the one definition the tests share (tests/test_layout.py).
ROOT = Path(__file__).resolve().parents[1]

#: The jupytext front matter that makes a MyST-Markdown file a notebook (every chapter's first
#: lines); tests that write a scratch chapter start it with this.
MYST_HEADER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
"""


def is_notebook(path: Path) -> bool:
    """A MyST file is a notebook when its front matter declares a kernelspec (jupytext header)."""
    head = path.read_text(encoding="utf-8")[:2000]
    return head.startswith("---") and "kernelspec:" in head.split("\n---", 1)[0]


def execute_chapter(path: Path, timeout: int = 900):
    """Execute a MyST notebook top to bottom in a fresh kernel; raise on the first failing cell."""
    import jupytext
    from nbclient import NotebookClient

    nb = jupytext.read(path)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    return nb


def source_directives() -> list[tuple[str, str]]:
    """(chapter file name, dotted name) for every object a ``{formulated-source}`` box of a
    chapter shows, in chapter order (the directive block as the book's extension parses it)."""
    from booktools.sphinx.source import BLOCK

    return [
        (path.name, name)
        for path in sorted((ROOT / "chapters").glob("*.md"))
        for m in BLOCK.finditer(path.read_text(encoding="utf-8"))
        for name in m.group("names").split()
    ]


def tool(name: str) -> str:
    """The path of a TeX or poppler program the PDF tests run; a clear failure when missing."""
    found = shutil.which(name)
    if found is None:
        pytest.fail(
            f"{name} not found: `make tex` installs TeX Live and poppler-utils",
            pytrace=False,
        )
    return found
