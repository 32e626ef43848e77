"""The Korean edition (issue 25): one source, two languages, one execution cache.

The chapters stay the single source of code and math; the Korean text lives in gettext
catalogues, one per page, under ``locales/ko/LC_MESSAGES/<docname>.po`` (committed).  No
``conf.py`` is written anywhere: like ``jupyter-book build``, every step builds the Sphinx
configuration in memory from ``_config.yml`` (:func:`jupyter_book.sphinx.build_sphinx`) and adds
its own overrides (:func:`overrides`).

``python -m booktools.i18n <step>`` (the Makefile's targets):

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
``stats``   messages, translated, fuzzy and English words left, per catalogue.

:mod:`booktools.sphinx_i18n` (a Sphinx extension listed in ``_config.yml``) adds the language
switch, the Korean stylesheet and the page language to both books.
"""
from __future__ import annotations

import argparse
import re
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from booktools.launch import ROOT

__all__ = ["LANGUAGE", "LOCALES", "CATALOGUES", "POT_DIR", "KO_HTML", "CACHE", "overrides",
           "build_pot", "update_catalogues", "compile_catalogues", "build_html", "CatalogueStats",
           "catalogue_stats", "kept_spans", "message_problems", "GLOSSARY", "load_glossary",
           "glossary_problems", "has_prose", "main"]

LANGUAGE = "ko"
#: The committed translations: ``locales/ko/LC_MESSAGES/<docname>.po``.
LOCALES = ROOT / "locales"
CATALOGUES = LOCALES / LANGUAGE / "LC_MESSAGES"
POT_DIR = ROOT / "_build" / "gettext"
KO_HTML = ROOT / "_build" / "html" / LANGUAGE
#: The cache ``make book`` fills; Sphinx would otherwise look beside the output folder.
CACHE = ROOT / "_build" / ".jupyter_cache"
#: Where the build compiles the catalogues (``.mo`` files stay out of the repository).
BUILD_LOCALES = ROOT / "_build" / "i18n" / "locales"
DOCTREES = {"gettext": ROOT / "_build" / ".doctrees-gettext",
            "html": ROOT / "_build" / ".doctrees-ko"}

#: For the gettext builder, figure outputs count too (MyST-NB keeps only text for it by
#: default), so their alt text (``mystnb.image.alt``) becomes a message.
_GETTEXT_MIME = [("gettext", mime, 5 + i) for i, mime in
                 enumerate(("image/svg+xml", "image/png", "image/jpeg"))]


def overrides(builder: str, root: Path = ROOT, cache: Path = CACHE,
              toc: Path | None = None, strict: bool = True) -> dict[str, Any]:
    """The Sphinx configuration values this pipeline sets on top of ``_config.yml``."""
    conf: dict[str, Any] = {
        "external_toc_path": Path(toc or root / "_toc.yml").as_posix(),
        "latex_individualpages": False,  # jupyter-book requires the key
        "nb_execution_cache_path": str(cache),
        "nitpicky": strict,
        "gettext_compact": False,  # one catalogue per page
    }
    if builder == "gettext":
        conf.update({"gettext_uuid": False, "gettext_location": True,
                     "gettext_last_translator": "", "gettext_language_team": "",
                     "nb_mime_priority_overrides": _GETTEXT_MIME})
    else:
        conf.update({"language": LANGUAGE, "locale_dirs": [str(BUILD_LOCALES)],
                     "gettext_auto_build": True})
    return conf


def _sphinx(builder: str, out: Path, root: Path, doctrees: Path, conf: dict[str, Any],
            strict: bool) -> None:
    from jupyter_book.sphinx import build_sphinx

    result = build_sphinx(root, out, noconfig=True, path_config=str(root / "_config.yml"),
                          confoverrides=conf, doctreedir=doctrees, builder=builder,
                          warningiserror=strict, keep_going=True)
    if result:
        raise SystemExit(f"i18n: the {builder} build failed ({result!r}); see the messages above")


def build_pot(out: Path = POT_DIR, root: Path = ROOT, cache: Path = CACHE,
              toc: Path | None = None) -> list[Path]:
    """The message templates, one ``.pot`` per page, from the execution cache."""
    _sphinx("gettext", out, root, DOCTREES["gettext"], overrides("gettext", root, cache, toc),
            strict=True)
    return sorted(out.rglob("*.pot"))


def _read(path: Path, locale: str | None = None) -> Any:
    from babel.messages.pofile import read_po

    with path.open("rb") as f:
        return read_po(f, locale=locale)


def _write(path: Path, catalog: Any) -> None:
    from babel.messages.pofile import write_po

    path.parent.mkdir(parents=True, exist_ok=True)
    for message in catalog:  # Babel guesses these from braces, which here are LaTeX: noise
        message.flags -= {"python-format", "python-brace-format"}
    tmp = path.with_suffix(".po.tmp")
    with tmp.open("wb") as f:
        # width 0: one line per message (a translator edits whole messages, diffs stay small)
        write_po(f, catalog, width=0, include_previous=True, sort_output=False)
    tmp.replace(path)  # an interrupted update leaves the previous catalogue whole


def update_catalogues(pot_dir: Path = POT_DIR, catalogues: Path = CATALOGUES) -> dict[str, str]:
    """Merge every template into its PO file (created when missing); return what happened to
    each catalogue ("new", "updated", "unchanged").  Catalogues of pages no longer built are
    left as they are (their translations are not thrown away)."""
    from babel.messages.catalog import Catalog

    if not any(pot_dir.rglob("*.pot")):
        raise SystemExit(f"i18n: no templates in {pot_dir}: run `python -m booktools.i18n pot` "
                         "first (make po runs both)")
    report: dict[str, str] = {}
    for pot in sorted(pot_dir.rglob("*.pot")):
        name = pot.relative_to(pot_dir).with_suffix("").as_posix()
        po = catalogues / f"{name}.po"
        template = _read(pot)
        for message in list(template):
            if message.id and not has_prose(message.id):
                template.delete(message.id)  # display math, a bare identifier: nothing to say
        if po.exists():
            catalog = _read(po, LANGUAGE)
            before = po.read_bytes()
            catalog.update(template, no_fuzzy_matching=False, update_header_comment=False)
            _write(po, catalog)
            report[name] = "updated" if po.read_bytes() != before else "unchanged"
        else:
            catalog = Catalog(locale=LANGUAGE, domain=name, project=template.project,
                              version=template.version, fuzzy=False)
            catalog.update(template, no_fuzzy_matching=True)
            _write(po, catalog)
            report[name] = "new"
    return report


def compile_catalogues(catalogues: Path = CATALOGUES, out: Path = BUILD_LOCALES) -> None:
    """Copy the PO files where the build reads them; Sphinx compiles each to ``.mo`` there
    (``gettext_auto_build``).  A fuzzy translation is not used (Sphinx shows the English)."""
    target = out / LANGUAGE / "LC_MESSAGES"
    for po in catalogues.rglob("*.po"):
        dest = target / po.relative_to(catalogues)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if not dest.exists() or dest.read_bytes() != po.read_bytes():
            shutil.copyfile(po, dest)  # a new mtime: Sphinx recompiles it


def build_html(out: Path = KO_HTML, root: Path = ROOT, cache: Path = CACHE,
               toc: Path | None = None, strict: bool = True,
               doctrees: Path = DOCTREES["html"]) -> Path:
    """The Korean HTML book from the execution cache; returns its index page.  A fresh
    ``doctrees`` folder reads every page again (every warning shows, as in a clean build)."""
    compile_catalogues()
    _sphinx("html", out, root, doctrees, overrides("html", root, cache, toc, strict),
            strict=strict)
    return out / "index.html"


@dataclass(frozen=True)
class CatalogueStats:
    """How far one catalogue is translated."""

    name: str
    messages: int
    translated: int
    fuzzy: int
    words: int  # English words of the messages still to translate (untranslated or fuzzy)


_MARKUP = re.compile(r"\$[^$]*\$|`[^`]*`|\{[\w:-]+\}|<[^>]*>")


def catalogue_stats(catalogues: Path = CATALOGUES) -> list[CatalogueStats]:
    """One :class:`CatalogueStats` per PO file (math, roles and code not counted as words)."""
    rows = []
    for po in sorted(catalogues.rglob("*.po")):
        cat = _read(po, LANGUAGE)
        msgs = [m for m in cat if m.id]
        todo = [m for m in msgs if m.fuzzy or not m.string]
        rows.append(CatalogueStats(
            name=po.relative_to(catalogues).with_suffix("").as_posix(), messages=len(msgs),
            translated=sum(1 for m in msgs if m.string and not m.fuzzy),
            fuzzy=sum(1 for m in msgs if m.fuzzy),
            words=sum(len(_MARKUP.sub(" ", m.id).split()) for m in todo)))
    return rows


# -- What a translation must keep (tests/test_i18n.py) ------------------------------------------

#: Spans copied unchanged into a translation: display and inline math, roles (for a role with a
#: title, ``{doc}`title <target>``, the role and target only: the title is prose), inline code.
_MATH = re.compile(r"\$\$.+?\$\$|(?<![\\$])\$(?!\s)[^$]+?(?<![\s\\])\$", re.S)
_ROLE = re.compile(r"\{(?P<name>[\w:.-]+)\}`(?P<body>[^`]*)`")
_CODE = re.compile(r"``(?P<c2>.+?)``|`(?P<c1>[^`]+)`")
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])\d+(?:[.,]\d+)*")
#: ``formulated.models.reference.gpt`` or ``n_ctx`` written without backticks (a box's title).
_IDENT = re.compile(r"(?<![\w.])[A-Za-z_]\w+(?:\.[A-Za-z_]\w+)+(?![\w])|"
                    r"(?<![\w.])[A-Za-z]\w*_\w+(?![\w])")
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”')
_EMPHASIS = re.compile(r"(?<![*_\\])(\*{1,3}|_{1,3})(?![*_])")
_PUNCT = re.compile(r"[!-/:-@\[-`{-~]")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_TARGET = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$", re.S)


def kept_spans(text: str) -> dict[str, list[str]]:
    """The spans of a message a translation must keep: ``math``, ``role`` (``{name}`target```
    for a role with a title), ``code`` (inline code, and dotted or snake_case names outside
    backticks), and ``number`` (digits outside those).
    Each list sorted, so two messages compare whatever their word order."""
    found: dict[str, list[str]] = {"math": [], "role": [], "code": [], "number": []}

    def role(m: re.Match[str]) -> str:
        body = m["body"]
        titled = _TARGET.match(body)
        if titled and m["name"] != "math":
            body = f"<{titled['target']}>"
        found["math" if m["name"] == "math" else "role"].append(f"{{{m['name']}}}`{body}`")
        return " "

    rest = _ROLE.sub(role, text)

    def math(m: re.Match[str]) -> str:
        found["math"].append(m.group(0))
        return " "

    rest = _MATH.sub(math, rest)

    def code(m: re.Match[str]) -> str:
        found["code"].append(m.group(0))
        return " "

    rest = _CODE.sub(code, rest)
    rest = _IDENT.sub(code, rest)  # a dotted or snake_case name outside backticks
    found["number"] = _NUMBER.findall(rest)
    return {k: sorted(v) for k, v in found.items()}


def _stuck_emphasis(text: str) -> list[tuple[str, str]]:
    """Closing ``*``/``**`` runs that Markdown cannot close: after punctuation and before
    Hangul (``**위젯(widget)**으로``).  Runs alternate open/close per delimiter kind."""
    text = _CODE.sub("``", _MATH.sub("$$", text))
    opened: dict[str, bool] = {}
    stuck = []
    for m in _EMPHASIS.finditer(text):
        run = m[1]
        closing = opened.get(run, False)
        opened[run] = not closing
        before, after = text[m.start() - 1:m.start()], text[m.end():m.end() + 1]
        if closing and _PUNCT.match(before) and _HANGUL.match(after):
            stuck.append((run, text[max(0, m.start() - 12):m.end() + 3]))
    return stuck


def message_problems(msgid: str, msgstr: str) -> list[str]:
    """What a translation changed that it must keep: every math span, role, inline code (same
    multiset) and every number of ``msgid`` (at least as often: Korean may add a numeral, as
    in 제1부).  Empty when ``msgstr`` keeps them all."""
    want, got = kept_spans(msgid), kept_spans(msgstr)
    problems = []
    for kind in ("math", "role", "code"):
        if want[kind] != got[kind]:
            lost = [x for x in want[kind] if want[kind].count(x) > got[kind].count(x)]
            added = [x for x in got[kind] if got[kind].count(x) > want[kind].count(x)]
            problems.append(f"{kind} differs: missing {sorted(set(lost))}, "
                            f"not in the English {sorted(set(added))}")
    # CommonMark closes ** or * only if it follows a letter or precedes a space/punctuation:
    # "**위젯(widget)**으로" shows its asterisks; "**위젯**(widget)으로" is bold.
    problems += [f"emphasis not closed (punctuation before {run!r}, Hangul after it): "
                 f"...{where}..." for run, where in _stuck_emphasis(msgstr)]
    missing = [n for n in set(want["number"]) if got["number"].count(n) < want["number"].count(n)]
    if missing:
        problems.append(f"number missing or changed: {sorted(missing)}")
    return problems


def has_prose(msgid: str) -> bool:
    """Whether a message has words to translate outside its math, code and link targets (a
    display formula or a bare identifier has none: it stays out of the catalogue and the Korean
    page shows it as it is)."""
    text = _ROLE.sub(lambda m: (_TARGET.match(m["body"]) or {"title": ""})["title"] or " ", msgid)
    return re.search(r"[A-Za-z]{2,}",
                     _IDENT.sub(" ", _CODE.sub(" ", _MATH.sub(" ", text)))) is not None


# -- Glossary -------------------------------------------------------------------------------------

GLOSSARY = LOCALES / LANGUAGE / "glossary.yml"


def load_glossary(path: Path = GLOSSARY) -> dict[str, str]:
    """English spelling (lower case) -> Korean term.  Raises ``ValueError`` for a spelling
    listed twice, a Korean term given to two entries, or an entry with two Korean terms."""
    import yaml

    def pairs(loader: Any, node: Any) -> list[tuple[Any, Any]]:
        return loader.construct_pairs(node)

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, pairs)
    entries = yaml.load(path.read_text(encoding="utf-8"), Loader=Loader) or []
    terms: dict[str, str] = {}
    owner: dict[str, str] = {}
    for key, korean in entries:
        if not isinstance(korean, str) or not korean.strip() or re.search(r"[,/;]", korean):
            raise ValueError(f"{path.name}: {key!r} must have one Korean term, got {korean!r}")
        if korean in owner:
            raise ValueError(f"{path.name}: {korean!r} translates both {owner[korean]!r} and "
                             f"{key!r}: one Korean term per English term")
        owner[korean] = str(key)
        for spelling in str(key).split("|"):
            spelling = spelling.strip().lower()
            if spelling in terms:
                raise ValueError(f"{path.name}: {spelling!r} is listed twice (as "
                                 f"{terms[spelling]!r} and {korean!r})")
            terms[spelling] = korean
    return terms


def _term_pattern(spelling: str) -> re.Pattern[str]:
    words = [re.escape(w) for w in re.split(r"[\s-]+", spelling)]
    # "pre-training", "pre training" and "pretraining"; a plural or third-person -s/-es
    return re.compile(r"(?<![\w-])" + r"[\s-]?".join(words) + r"(?:s|es)?(?![\w-])", re.I)


def glossary_problems(msgid: str, msgstr: str, glossary: dict[str, str]) -> list[str]:
    """The glossary terms of ``msgid`` (outside math, roles' targets and code; longer terms
    first, so "gradient descent" is not also "gradient") whose Korean term ``msgstr`` lacks."""
    text = _ROLE.sub(lambda m: (_TARGET.match(m["body"]) or {"title": ""})["title"] or " ",
                     msgid)
    text = _IDENT.sub(" ", _CODE.sub(" ", _MATH.sub(" ", text)))
    # a source's English title quoted as it is ("Weights and embeddings") is no term use
    text = _QUOTED.sub(lambda m: " " if (m[1] or m[2]) in msgstr else m[0], text)
    problems = []
    for spelling in sorted(glossary, key=len, reverse=True):
        pattern = _term_pattern(spelling)
        if pattern.search(text):
            text = pattern.sub(" ", text)
            if glossary[spelling] not in msgstr:
                problems.append(f"{spelling!r} is not translated as {glossary[spelling]!r}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("pot", "update", "po", "build", "stats"),
                        help="po = pot then update")
    args = parser.parse_args(argv)
    start = time.monotonic()
    if args.step in ("pot", "po"):
        pots = build_pot()
        print(f"i18n: {len(pots)} templates in {POT_DIR.relative_to(ROOT)}")
    if args.step in ("update", "po"):
        for name, what in update_catalogues().items():
            if what != "unchanged":
                print(f"i18n: {what:9} {CATALOGUES.relative_to(ROOT)}/{name}.po")
    if args.step == "build":
        index = build_html()
        print(f"i18n: {index.relative_to(ROOT)} in {time.monotonic() - start:.0f} s")
    if args.step in ("stats", "po"):
        rows = catalogue_stats()
        for r in rows:
            print(f"{r.name:40} {r.messages:5} messages {r.translated:5} translated "
                  f"{r.fuzzy:4} fuzzy {r.words:6} words to do")
        print(f"{'total':40} {sum(r.messages for r in rows):5} messages "
              f"{sum(r.translated for r in rows):5} translated "
              f"{sum(r.fuzzy for r in rows):4} fuzzy {sum(r.words for r in rows):6} words to do")
    return 0


if __name__ == "__main__":
    sys.exit(main())
