"""Checks on the built HTML book, run by ``make book`` after Sphinx (not by pytest):
``python -m booktools check``.

1. every chapter of ``_toc.yml`` has its page and a downloadable ``.ipynb`` (valid nbformat);
2. no page loads MathJax, require.js or the widget manager from the internet;
3. every page that embeds widget state also loads the local widget runtime on demand
   (``_static/live/widgets-on-demand.js``), and no page loads it, or Font Awesome's script, with
   the page (they weigh 3.7 and 1.5 MB: booktools/sphinx/html.py, _config.yml);
4. no page or downloadable notebook shows the repository's path on the machine that built it
   (a book rebuilt elsewhere would differ, and readers would see a stranger's folders).
"""

from __future__ import annotations

import re
import sys

import nbformat

from booktools.build.toc import toc_files
from booktools.paths import HTML, ROOT


def main(argv: list[str] | None = None) -> int:
    """Print every problem of the built book; 1 if there is one, else 0 (no arguments)."""
    if argv:
        print(f"check: expected no arguments, got {argv}", file=sys.stderr)
        return 2
    problems: list[str] = []
    for chapter in toc_files():
        page = HTML / f"{chapter}.html"
        if not page.exists():
            problems.append(f"{chapter}: no page {page.relative_to(ROOT)}")
            continue
        nb_path = HTML / "_sources" / f"{chapter}.ipynb"
        if not nb_path.exists():
            problems.append(
                f"{chapter}: no downloadable notebook {nb_path.relative_to(ROOT)}"
            )
        else:
            nbformat.validate(nbformat.read(nb_path, as_version=4))
    pages = list(HTML.rglob("*.html"))
    where = str(ROOT)
    for page in pages:
        html = page.read_text(encoding="utf-8", errors="replace")
        if where in html.replace("<wbr>", ""):
            problems.append(
                f"{page.relative_to(HTML)} shows this machine's path {where}"
            )
        for src in re.findall(r'<script[^>]*src="(https?://[^"]+)"', html):
            if re.search(r"mathjax|require|embed-amd|jupyter-widgets", src, re.I):
                problems.append(
                    f"{page.relative_to(HTML)} loads {src} from the internet"
                )
        if (
            "application/vnd.jupyter.widget-state+json" in html
            and "live/widgets-on-demand.js" not in html
        ):
            problems.append(
                f"{page.relative_to(HTML)} has widgets but not the local runtime "
                "(live/widgets-on-demand.js)"
            )
        for heavy in re.findall(
            r'<script[^>]*src="([^"]*(?:embed-amd|require|fontawesome)'
            r'\.js)[^"]*"',
            html,
        ):
            problems.append(f"{page.relative_to(HTML)} loads {heavy} with the page")
    for nb in (HTML / "_sources").rglob("*.ipynb"):
        if where in nb.read_text(encoding="utf-8", errors="replace"):
            problems.append(f"{nb.relative_to(HTML)} shows this machine's path {where}")
    for p in problems:
        print(f"check: {p}")
    print(
        f"check: {len(pages)} pages, {len(toc_files())} chapters with notebooks, "
        f"{len(problems)} problem(s)"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
