"""The Korean edition's gettext catalogues as files (booktools/i18n/__init__.py): where they are, how one
is read, written and brought up to date with a template, and how far each is translated.

Both kinds of catalogue go through here: the pages' (``locales/ko/LC_MESSAGES/<page>.po``) and
the cell outputs' (``locales/ko/outputs/<page>.po``, :mod:`booktools.i18n.outputs`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from booktools import myst
from booktools.paths import LOCALES

__all__ = [
    "LANGUAGE",
    "CATALOGUES",
    "read_catalogue",
    "write_catalogue",
    "merge_catalogue",
    "CatalogueStats",
    "catalogue_stats",
]

LANGUAGE = "ko"
#: The committed translations: ``locales/ko/LC_MESSAGES/<docname>.po``.
CATALOGUES = LOCALES / LANGUAGE / "LC_MESSAGES"


def read_catalogue(path: Path, locale: str | None = None) -> Any:
    """The catalogue (template or PO file) at ``path``, as a Babel ``Catalog``."""
    from babel.messages.pofile import read_po

    with path.open("rb") as f:
        return read_po(f, locale=locale)


def write_catalogue(path: Path, catalog: Any) -> None:
    """Write ``catalog`` to ``path`` (one line per message), replacing the file in one step."""
    from babel.messages.pofile import write_po

    path.parent.mkdir(parents=True, exist_ok=True)
    # Babel guesses these flags from braces, which here are LaTeX: noise
    for message in catalog:
        message.flags -= {"python-format", "python-brace-format"}
    tmp = path.with_suffix(".po.tmp")
    with tmp.open("wb") as f:
        # width 0: one line per message (a translator edits whole messages, diffs stay small)
        write_po(f, catalog, width=0, include_previous=True, sort_output=False)
    tmp.replace(path)  # an interrupted update leaves the previous catalogue whole


def merge_catalogue(po: Path, template: Any, name: str) -> str:
    """Bring catalogue ``po`` up to date with ``template`` (Babel's update: a changed message
    keeps its old translation, marked fuzzy); ``"new"``, ``"updated"`` or ``"unchanged"``."""
    from babel.messages.catalog import Catalog

    if po.exists():
        catalog = read_catalogue(po, LANGUAGE)
        before = po.read_bytes()
        catalog.update(template, no_fuzzy_matching=False, update_header_comment=False)
        write_catalogue(po, catalog)
        return "updated" if po.read_bytes() != before else "unchanged"
    catalog = Catalog(
        locale=LANGUAGE,
        domain=name,
        project=template.project,
        version=template.version,
        fuzzy=False,
    )
    catalog.update(template, no_fuzzy_matching=True)
    write_catalogue(po, catalog)
    return "new"


@dataclass(frozen=True)
class CatalogueStats:
    """How far one catalogue is translated."""

    name: str
    messages: int
    translated: int
    fuzzy: int
    #: English words of the messages still to translate (untranslated or fuzzy).
    words: int


#: Markup that is no words: math, inline code, a role's name, an HTML tag.
_MARKUP = re.compile(
    "|".join((myst.MATH.pattern, myst.INLINE_CODE.pattern, r"\{[\w:-]+\}", r"<[^>]*>")),
    re.S,
)


def catalogue_stats(catalogues: Path = CATALOGUES) -> list[CatalogueStats]:
    """One :class:`CatalogueStats` per PO file (math, roles and code not counted as words)."""
    rows = []
    for po in sorted(catalogues.rglob("*.po")):
        cat = read_catalogue(po, LANGUAGE)
        msgs = [m for m in cat if m.id]
        todo = [m for m in msgs if m.fuzzy or not m.string]
        rows.append(
            CatalogueStats(
                name=po.relative_to(catalogues).with_suffix("").as_posix(),
                messages=len(msgs),
                translated=sum(1 for m in msgs if m.string and not m.fuzzy),
                fuzzy=sum(1 for m in msgs if m.fuzzy),
                words=sum(len(_MARKUP.sub(" ", m.id).split()) for m in todo),
            )
        )
    return rows
