"""``make dist``: the offline copy of the book, one zip.

``_build/dist/the-formulated-gpt-<version>.zip`` holds one folder, ``the-formulated-gpt-<version>/``,
with the HTML book exactly as ``make book`` built it (``index.html`` at the top; every link is
relative, MathJax, the widget runtime and their fonts are served from ``_static``, so the pages
work from ``file://``) and the PDF, ``the-formulated-gpt.pdf``, which the pages' "Download PDF"
links. ``tests/test_dist.py`` unpacks it in an empty folder and opens every page in Chromium.

``make dist`` runs ``make pdf`` and then ``make book`` (which then links and copies the PDF);
``python -m booktools dist`` only packs, and refuses a book built before its PDF.
"""

from __future__ import annotations

import argparse
import sys
import zipfile
from pathlib import Path

from booktools.paths import HTML, ROOT
from booktools.sphinx.pdf import PDF_NAME, PDF_PATH

__all__ = ["DIST", "NOT_PACKED", "archive_name", "pack", "main"]

DIST = ROOT / "_build" / "dist"

#: Build bookkeeping in the HTML folder that readers never open.
NOT_PACKED = frozenset({".buildinfo", ".doctrees"})


def archive_name(version: str | None = None) -> str:
    """``the-formulated-gpt-<version>``: the zip's name and its one top folder."""
    if version is None:
        import formulated

        version = formulated.__version__
    return f"the-formulated-gpt-{version}"


def pack(html: Path = HTML, pdf: Path = ROOT / PDF_PATH, out_dir: Path = DIST) -> Path:
    """Zip ``html`` and ``pdf`` into ``out_dir``; return the zip's path.

    Raises ``FileNotFoundError`` naming what is missing and the command that makes it, and
    ``ValueError`` when the HTML book does not link the PDF (built before it)."""
    if not (html / "index.html").is_file():
        raise FileNotFoundError(f"no HTML book at {html}: run `make book`")
    if not pdf.is_file():
        raise FileNotFoundError(f"no PDF at {pdf}: run `make pdf`")
    intro = html / "chapters" / "intro.html"
    if not (html / PDF_NAME).is_file() or "Download PDF" not in intro.read_text(
        encoding="utf-8"
    ):
        raise ValueError(
            f"the HTML book in {html} does not link the PDF (built before it): "
            "run `make book` after `make pdf`"
        )
    name = archive_name()
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{name}.zip"
    partial = target.with_suffix(
        ".zip.part"
    )  # a failed run leaves no half zip under the name
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(html.rglob("*")):
            rel = path.relative_to(html)
            if (
                path.is_dir()
                or rel.parts[0] in NOT_PACKED
                or rel.as_posix() == PDF_NAME
            ):
                continue
            zf.write(path, f"{name}/{rel.as_posix()}")
        zf.write(pdf, f"{name}/{PDF_NAME}")  # the PDF just built, not an older copy
    partial.replace(target)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    try:
        target = pack()
    except (FileNotFoundError, ValueError) as err:
        print(f"dist: {err}", file=sys.stderr)
        return 1
    print(f"dist: {target.relative_to(ROOT)} ({target.stat().st_size / 2**20:.1f} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
