"""The book's table of contents as a list of pages: one reader of ``_toc.yml`` for the build
tools (``booktools.build.check``, ``booktools.build.chapter``) and the tests (``tests/_chapters.py``)."""

from __future__ import annotations

import re
from pathlib import Path

from booktools.paths import ROOT


def toc_files(root: Path = ROOT) -> list[str]:
    """Every ``file:`` entry of ``_toc.yml`` plus its ``root``, in order (paths without suffix)."""
    text = (root / "_toc.yml").read_text()
    first = re.search(r"^root:\s*(\S+)", text, re.M)
    files = re.findall(r"file:\s*(\S+)", text)
    return ([first.group(1)] if first else []) + files
