"""The Korean edition: one source, two languages, one execution cache.

The chapters stay the single source of code and math; the Korean text lives in gettext
catalogues, one per page, under ``locales/ko/LC_MESSAGES/<docname>.po`` (committed).  No
``conf.py`` is written anywhere: like ``jupyter-book build``, every step builds the Sphinx
configuration in memory from ``_config.yml`` (:func:`jupyter_book.sphinx.build_sphinx`) and adds
its own overrides (:func:`overrides`).

``python -m booktools i18n <step>`` (the Makefile's targets):

``pot``     Sphinx's gettext builder writes one template per page to ``_build/gettext``
            (``gettext_compact=False``), from the execution cache, so the Markdown that cells
            print (the errata appendix's list) and the alt text of figure outputs are messages too.
``update``  merges the templates into the PO files with Babel (what ``sphinx-intl update``
            does), leaving out messages without prose (display math, bare identifiers):
            a new message comes in untranslated, a changed one keeps its old translation
            marked ``#, fuzzy`` with the previous English as ``#| msgid "…"``, a removed one is
            kept as an obsolete ``#~`` entry.  ``make po`` runs ``pot`` then ``update``.
``build``   the Korean HTML book at ``_build/html/ko`` (``language=ko``), ``-n -W`` like the
            English one, from the same execution cache (``_build/.jupyter_cache``): a chapter is
            never executed for the Korean book (``make book`` fills the cache first).  The PO
            files are compiled into ``_build/i18n/locales`` (no ``.mo`` in the repository).
``outputs`` the catalogues of what cells print, ``locales/ko/outputs/<page>.po``:
            printed lines, widget labels and figure texts with words, values as ``{0}``
            placeholders, from the executed notebooks of the cache (no chapter runs).
``stats``   messages, translated, fuzzy and English words left, per catalogue.

:mod:`booktools.sphinx.i18n` (a Sphinx extension listed in ``_config.yml``) adds the language
switch, the Korean stylesheet and the page language to both books.

This module is the pipeline and its command line; the pieces live beside it, and their names
are imported from them:
:mod:`booktools.i18n.catalogues` (reading, writing, merging a catalogue; its statistics),
:mod:`booktools.i18n.checks` (what a translation must keep; the glossary),
:mod:`booktools.i18n.outputs` (the outputs' catalogues and their translation),
:mod:`booktools.i18n.columns` (printed columns lined up again after translation),
:mod:`booktools.i18n.glosses` (the gloss policy of the Korean chapters).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from booktools.i18n.catalogues import (
    CATALOGUES,
    LANGUAGE,
    catalogue_stats,
    merge_catalogue,
    read_catalogue,
)
from booktools.i18n.checks import has_prose
from booktools.i18n.outputs import OUTPUTS, update_output_catalogues
from booktools.paths import CACHE, ROOT

__all__ = [
    "POT_DIR",
    "KO_HTML",
    "WARNING_FREE",
    "BUILD_LOCALES",
    "DOCTREES",
    "overrides",
    "build_pot",
    "update_catalogues",
    "compile_catalogues",
    "build_html",
    "main",
]

POT_DIR = ROOT / "_build" / "gettext"
KO_HTML = ROOT / "_build" / "html" / LANGUAGE
#: The file a strict build that succeeded leaves in its output folder: every page it read,
#: and every page read by an earlier build since the last failure, gave no warning (a failed
#: build drops its environment, so the next one reads every page again).  The tests read it
#: instead of building the Korean book a second time.
WARNING_FREE = ".warning-free"
#: Where the build compiles the catalogues (``.mo`` files stay out of the repository).
BUILD_LOCALES = ROOT / "_build" / "i18n" / "locales"
DOCTREES = {
    "gettext": ROOT / "_build" / ".doctrees-gettext",
    "html": ROOT / "_build" / ".doctrees-ko",
}

#: For the gettext builder, figure outputs count too (MyST-NB keeps only text for it by
#: default), so their alt text (``mystnb.image.alt``) becomes a message.
_GETTEXT_MIME = [
    ("gettext", mime, 5 + i)
    for i, mime in enumerate(("image/svg+xml", "image/png", "image/jpeg"))
]


def overrides(
    builder: str,
    root: Path = ROOT,
    cache: Path = CACHE,
    toc: Path | None = None,
    strict: bool = True,
) -> dict[str, Any]:
    """The Sphinx configuration values this pipeline sets on top of ``_config.yml``."""
    conf: dict[str, Any] = {
        "external_toc_path": Path(toc or root / "_toc.yml").as_posix(),
        "latex_individualpages": False,  # jupyter-book requires the key
        "nb_execution_cache_path": str(cache),
        "nitpicky": strict,
        "gettext_compact": False,  # one catalogue per page
    }
    if builder == "gettext":
        conf.update(
            {
                "gettext_uuid": False,
                "gettext_location": True,
                "gettext_last_translator": "",
                "gettext_language_team": "",
                "nb_mime_priority_overrides": _GETTEXT_MIME,
            }
        )
    else:
        conf.update(
            {
                "language": LANGUAGE,
                "locale_dirs": [str(BUILD_LOCALES)],
                "gettext_auto_build": True,
            }
        )
    return conf


def _sphinx(
    builder: str,
    out: Path,
    root: Path,
    doctrees: Path,
    conf: dict[str, Any],
    strict: bool,
) -> None:
    from jupyter_book.sphinx import build_sphinx

    stamp = out / WARNING_FREE
    stamp.unlink(missing_ok=True)
    result = build_sphinx(
        root,
        out,
        noconfig=True,
        path_config=str(root / "_config.yml"),
        confoverrides=conf,
        doctreedir=doctrees,
        builder=builder,
        warningiserror=strict,
        keep_going=True,
    )
    if result:
        # Sphinx keeps the pages it read, the ones that warned too: the next build would not
        # read them again and would pass without showing their warnings.
        (Path(doctrees) / "environment.pickle").unlink(missing_ok=True)
        raise SystemExit(
            f"i18n: the {builder} build failed ({result!r}); see the messages above"
        )
    if strict:
        stamp.write_text(f"{builder} build with -W: no warning\n", encoding="utf-8")


def build_pot(
    out: Path = POT_DIR, root: Path = ROOT, cache: Path = CACHE, toc: Path | None = None
) -> list[Path]:
    """The message templates, one ``.pot`` per page, from the execution cache."""
    _sphinx(
        "gettext",
        out,
        root,
        DOCTREES["gettext"],
        overrides("gettext", root, cache, toc),
        strict=True,
    )
    return sorted(out.rglob("*.pot"))


def update_catalogues(
    pot_dir: Path = POT_DIR, catalogues: Path = CATALOGUES
) -> dict[str, str]:
    """Merge every template into its PO file (created when missing); return what happened to
    each catalogue ("new", "updated", "unchanged").  Catalogues of pages no longer built are
    left as they are (their translations are not thrown away)."""

    if not any(pot_dir.rglob("*.pot")):
        raise SystemExit(
            f"i18n: no templates in {pot_dir}: run `python -m booktools i18n pot` "
            "first (make po runs both)"
        )
    report: dict[str, str] = {}
    for pot in sorted(pot_dir.rglob("*.pot")):
        name = pot.relative_to(pot_dir).with_suffix("").as_posix()
        po = catalogues / f"{name}.po"
        template = read_catalogue(pot)
        for message in list(template):
            if message.id and not has_prose(message.id):
                template.delete(
                    message.id
                )  # display math, a bare identifier: nothing to say
        report[name] = merge_catalogue(po, template, name)
    return report


def compile_catalogues(
    catalogues: Path = CATALOGUES, out: Path = BUILD_LOCALES
) -> None:
    """Copy the PO files where the build reads them; Sphinx compiles each to ``.mo`` there
    (``gettext_auto_build``).  A fuzzy translation is not used (Sphinx shows the English)."""
    target = out / LANGUAGE / "LC_MESSAGES"
    for po in catalogues.rglob("*.po"):
        dest = target / po.relative_to(catalogues)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if not dest.exists() or dest.read_bytes() != po.read_bytes():
            shutil.copyfile(po, dest)  # a new mtime: Sphinx recompiles it


def build_html(
    out: Path = KO_HTML,
    root: Path = ROOT,
    cache: Path = CACHE,
    toc: Path | None = None,
    strict: bool = True,
    doctrees: Path = DOCTREES["html"],
) -> Path:
    """The Korean HTML book from the execution cache; returns its index page.  A fresh
    ``doctrees`` folder reads every page again (every warning shows, as in a clean build)."""
    compile_catalogues()
    _sphinx(
        "html",
        out,
        root,
        doctrees,
        overrides("html", root, cache, toc, strict),
        strict=strict,
    )
    return out / "index.html"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "step",
        choices=("pot", "update", "outputs", "po", "build", "stats"),
        help="po = pot, update and outputs",
    )
    args = parser.parse_args(argv)
    start = time.monotonic()
    if args.step in ("pot", "po"):
        pots = build_pot()
        print(f"i18n: {len(pots)} templates in {POT_DIR.relative_to(ROOT)}")
    if args.step in ("update", "po"):
        for name, what in update_catalogues().items():
            if what != "unchanged":
                print(f"i18n: {what:9} {CATALOGUES.relative_to(ROOT)}/{name}.po")
    if args.step in ("outputs", "po"):
        for name, what in update_output_catalogues().items():
            if what != "unchanged":
                print(f"i18n: {what:9} {OUTPUTS.relative_to(ROOT)}/{name}.po")
    if args.step == "build":
        index = build_html()
        print(f"i18n: {index.relative_to(ROOT)} in {time.monotonic() - start:.0f} s")
    if args.step in ("stats", "po"):
        rows = catalogue_stats()
        for r in rows:
            print(
                f"{r.name:40} {r.messages:5} messages {r.translated:5} translated "
                f"{r.fuzzy:4} fuzzy {r.words:6} words to do"
            )
        print(
            f"{'total':40} {sum(r.messages for r in rows):5} messages "
            f"{sum(r.translated for r in rows):5} translated "
            f"{sum(r.fuzzy for r in rows):4} fuzzy {sum(r.words for r in rows):6} words to do"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
