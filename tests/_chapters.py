"""Helpers to find the book's chapters (MyST-Markdown notebooks) and to read their runs from
the execution cache that ``make book`` fills (or run one that is not there); the repository's
``ROOT`` for every test module."""

from __future__ import annotations

import re
import shutil
from datetime import timezone
from pathlib import Path

import pytest

from booktools.build.prebuild import INPUTS
from booktools.paths import CACHE

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


#: What a chapter's run depends on besides its own code (which the cache's key covers): the
#: package its cells import and the data they read.
DEPENDENCIES = INPUTS


def dependencies(path: Path) -> tuple[str, ...]:
    """The folders whose files chapter ``path``'s run depends on: :data:`DEPENDENCIES`, and
    for a page whose cells import the book's tooling (appendix C) ``booktools/`` and the
    chapters (which it reads)."""
    text = path.read_text(encoding="utf-8")
    if re.search(r"^(?:from|import) booktools\b", text, re.M):
        return (*DEPENDENCIES, "booktools", "chapters")
    return DEPENDENCIES


def newest_change(folders: tuple[str, ...] = DEPENDENCIES, root: Path = ROOT) -> float:
    """The newest modification time (seconds since the epoch) of a file under ``folders``
    (compiled bytecode left out: importing the package writes it)."""
    return max(
        (
            p.stat().st_mtime
            for folder in folders
            for p in (root / folder).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        ),
        default=0.0,
    )


def cached_record(path: Path, cache: Path = CACHE, since: float | None = None):
    """The execution cache's record of chapter ``path`` that ``make book`` stored (its
    ``data``: the run's seconds and each code cell's, booktools/build/prebuild.py), or
    ``None`` when the cache holds no run of the chapter's current code (the key Myst-NB
    looks up: its code cells), or only a run older than ``since`` (a time as
    :func:`newest_change` gives it)."""
    from jupyter_cache import get_cache

    from booktools.build.prebuild import read_chapter

    if not (cache / "global.db").is_file():
        return None  # make book has not run (and get_cache would create an empty cache)
    try:
        record = get_cache(str(cache)).match_cache_notebook(read_chapter(path))
    except KeyError:
        return None
    created = record.created  # stored in UTC, read back without its time zone
    if created.tzinfo is None:
        created = created.replace(tzinfo=timezone.utc)
    if since is not None and created.timestamp() < since:
        return None
    return record


def cached_run(path: Path, cache: Path = CACHE, since: float | None = None):
    """The executed notebook of :func:`cached_record`'s record, or ``None``."""
    from jupyter_cache import get_cache

    record = cached_record(path, cache, since)
    return (
        None if record is None else get_cache(str(cache)).get_cache_bundle(record.pk).nb
    )


def execute_and_cache(path: Path, cache: Path = CACHE):
    """Run chapter ``path`` as ``make book`` does (:func:`booktools.build.prebuild.execute`:
    Myst-NB's reader, the build's cell timeout, errors not allowed) and store a run that
    succeeds in ``cache``, where the next test run and book build find it.  Returns
    ``(notebook, None)`` or ``(None, the error that stopped it)``."""
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    from booktools.build import prebuild

    out = prebuild.execute(str(path), prebuild.execution_timeout(), threads=1)
    if out.error is not None:
        return None, out.error
    nb = nbformat.reads(out.notebook, as_version=4)
    get_cache(str(cache)).cache_notebook_bundle(
        CacheBundleIn(nb, str(path), data=out.cache_data()),
        check_validity=False,
        overwrite=True,
    )
    return nb, None


def cell_errors(nb) -> list[str]:
    """``ename: evalue`` of every error that a code cell of ``nb`` shows."""
    return [
        f"{o.get('ename')}: {o.get('evalue')}"
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]


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
