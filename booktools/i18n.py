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
``outputs`` the catalogues of what cells print, ``locales/ko/outputs/<page>.po``:
            printed lines, widget labels and figure texts with words, values as ``{0}``
            placeholders, from the executed notebooks of the cache (no chapter runs).
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
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from booktools import myst
from booktools.launch import ROOT

__all__ = [
    "LANGUAGE",
    "LOCALES",
    "CATALOGUES",
    "POT_DIR",
    "KO_HTML",
    "CACHE",
    "overrides",
    "build_pot",
    "update_catalogues",
    "compile_catalogues",
    "build_html",
    "CatalogueStats",
    "catalogue_stats",
    "kept_spans",
    "message_problems",
    "GLOSSARY",
    "load_glossary",
    "glossary_problems",
    "has_prose",
    "OUTPUTS",
    "output_template",
    "output_fill",
    "placeholders",
    "translate_output",
    "translate_lines",
    "translate_clauses",
    "html_fragments",
    "svg_fragments",
    "widget_fragments",
    "notebook_fragments",
    "executed_notebooks",
    "update_output_catalogues",
    "output_table",
    "main",
]

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
        raise SystemExit(
            f"i18n: the {builder} build failed ({result!r}); see the messages above"
        )


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


def _read(path: Path, locale: str | None = None) -> Any:
    from babel.messages.pofile import read_po

    with path.open("rb") as f:
        return read_po(f, locale=locale)


def _write(path: Path, catalog: Any) -> None:
    from babel.messages.pofile import write_po

    path.parent.mkdir(parents=True, exist_ok=True)
    for (
        message
    ) in catalog:  # Babel guesses these from braces, which here are LaTeX: noise
        message.flags -= {"python-format", "python-brace-format"}
    tmp = path.with_suffix(".po.tmp")
    with tmp.open("wb") as f:
        # width 0: one line per message (a translator edits whole messages, diffs stay small)
        write_po(f, catalog, width=0, include_previous=True, sort_output=False)
    tmp.replace(path)  # an interrupted update leaves the previous catalogue whole


def _merge(po: Path, template: Any, name: str) -> str:
    """Bring catalogue ``po`` up to date with ``template`` (Babel's update: a changed message
    keeps its old translation, marked fuzzy); ``"new"``, ``"updated"`` or ``"unchanged"``."""
    from babel.messages.catalog import Catalog

    if po.exists():
        catalog = _read(po, LANGUAGE)
        before = po.read_bytes()
        catalog.update(template, no_fuzzy_matching=False, update_header_comment=False)
        _write(po, catalog)
        return "updated" if po.read_bytes() != before else "unchanged"
    catalog = Catalog(
        locale=LANGUAGE,
        domain=name,
        project=template.project,
        version=template.version,
        fuzzy=False,
    )
    catalog.update(template, no_fuzzy_matching=True)
    _write(po, catalog)
    return "new"


def update_catalogues(
    pot_dir: Path = POT_DIR, catalogues: Path = CATALOGUES
) -> dict[str, str]:
    """Merge every template into its PO file (created when missing); return what happened to
    each catalogue ("new", "updated", "unchanged").  Catalogues of pages no longer built are
    left as they are (their translations are not thrown away)."""

    if not any(pot_dir.rglob("*.pot")):
        raise SystemExit(
            f"i18n: no templates in {pot_dir}: run `python -m booktools.i18n pot` "
            "first (make po runs both)"
        )
    report: dict[str, str] = {}
    for pot in sorted(pot_dir.rglob("*.pot")):
        name = pot.relative_to(pot_dir).with_suffix("").as_posix()
        po = catalogues / f"{name}.po"
        template = _read(pot)
        for message in list(template):
            if message.id and not has_prose(message.id):
                template.delete(
                    message.id
                )  # display math, a bare identifier: nothing to say
        report[name] = _merge(po, template, name)
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


@dataclass(frozen=True)
class CatalogueStats:
    """How far one catalogue is translated."""

    name: str
    messages: int
    translated: int
    fuzzy: int
    words: (
        int  # English words of the messages still to translate (untranslated or fuzzy)
    )


_MARKUP = re.compile(r"\$[^$]*\$|`[^`]*`|\{[\w:-]+\}|<[^>]*>")


def catalogue_stats(catalogues: Path = CATALOGUES) -> list[CatalogueStats]:
    """One :class:`CatalogueStats` per PO file (math, roles and code not counted as words)."""
    rows = []
    for po in sorted(catalogues.rglob("*.po")):
        cat = _read(po, LANGUAGE)
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


# -- What a translation must keep (tests/test_i18n.py) ------------------------------------------

#: Spans copied unchanged into a translation: display and inline math, roles (for a role with a
#: title, ``{doc}`title <target>``, the role and target only: the title is prose), inline code.
_MATH = re.compile(r"\$\$.+?\$\$|(?<![\\$])\$(?!\s)[^$]+?(?<![\s\\])\$", re.S)
_CODE = re.compile(r"``(?P<c2>.+?)``|`(?P<c1>[^`]+)`")
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])\d+(?:[.,]\d+)*")
#: ``formulated.models.reference.gpt`` or ``n_ctx`` written without backticks (a box's title).
_IDENT = re.compile(
    r"(?<![\w.])[A-Za-z_]\w+(?:\.[A-Za-z_]\w+)+(?![\w])|"
    r"(?<![\w.])[A-Za-z]\w*_\w+(?![\w])"
)
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”')
_EMPHASIS = re.compile(r"(?<![*_\\])(\*{1,3}|_{1,3})(?![*_])")
_PUNCT = re.compile(r"[!-/:-@\[-`{-~]")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")


def kept_spans(text: str) -> dict[str, list[str]]:
    """The spans of a message a translation must keep: ``math``, ``role`` (``{name}`target```
    for a role with a title), ``code`` (inline code, and dotted or snake_case names outside
    backticks), and ``number`` (digits outside those).
    Each list sorted, so two messages compare whatever their word order."""
    found: dict[str, list[str]] = {"math": [], "role": [], "code": [], "number": []}
    # A directive's title arrives with its fence ("````{dropdown} The ledger of `000`"); the
    # fence is markup, not code, and the translation is the title alone (Sphinx parses it as a
    # paragraph and puts its words in the title).
    text = myst.OPEN_PREFIX.sub("", text)

    def role(m: re.Match[str]) -> str:
        body = m["text"]
        title, target = myst.explicit(body)
        if target != body and m["name"] != "math":
            body = f"<{target}>"
        found["math" if m["name"] == "math" else "role"].append(
            f"{{{m['name']}}}`{body}`"
        )
        return " "

    rest = myst.ROLE.sub(role, text)

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
        before, after = text[m.start() - 1 : m.start()], text[m.end() : m.end() + 1]
        if closing and _PUNCT.match(before) and _HANGUL.match(after):
            stuck.append((run, text[max(0, m.start() - 12) : m.end() + 3]))
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
            problems.append(
                f"{kind} differs: missing {sorted(set(lost))}, "
                f"not in the English {sorted(set(added))}"
            )
    # CommonMark closes ** or * only if it follows a letter or precedes a space/punctuation:
    # "**위젯(widget)**으로" shows its asterisks; "**위젯**(widget)으로" is bold.
    problems += [
        f"emphasis not closed (punctuation before {run!r}, Hangul after it): "
        f"...{where}..."
        for run, where in _stuck_emphasis(msgstr)
    ]
    missing = [
        n
        for n in set(want["number"])
        if got["number"].count(n) < want["number"].count(n)
    ]
    if missing:
        problems.append(f"number missing or changed: {sorted(missing)}")
    return problems


def has_prose(msgid: str) -> bool:
    """Whether a message has words to translate outside its math, code and link targets (a
    display formula or a bare identifier has none: it stays out of the catalogue and the Korean
    page shows it as it is)."""
    text = myst.ROLE.sub(lambda m: myst.explicit(m["text"])[0] or " ", msgid)
    return (
        re.search(
            r"[A-Za-z]{2,}", _IDENT.sub(" ", _CODE.sub(" ", _MATH.sub(" ", text)))
        )
        is not None
    )


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
        if (
            not isinstance(korean, str)
            or not korean.strip()
            or re.search(r"[,/;]", korean)
        ):
            raise ValueError(
                f"{path.name}: {key!r} must have one Korean term, got {korean!r}"
            )
        if korean in owner:
            raise ValueError(
                f"{path.name}: {korean!r} translates both {owner[korean]!r} and "
                f"{key!r}: one Korean term per English term"
            )
        owner[korean] = str(key)
        for spelling in str(key).split("|"):
            spelling = spelling.strip().lower()
            if spelling in terms:
                raise ValueError(
                    f"{path.name}: {spelling!r} is listed twice (as "
                    f"{terms[spelling]!r} and {korean!r})"
                )
            terms[spelling] = korean
    return terms


def _term_pattern(spelling: str) -> re.Pattern[str]:
    words = [re.escape(w) for w in re.split(r"[\s-]+", spelling)]
    # "pre-training", "pre training" and "pretraining"; a plural or third-person -s/-es
    return re.compile(
        r"(?<![\w-])" + r"[\s-]?".join(words) + r"(?:s|es)?(?![\w-])", re.I
    )


def glossary_problems(msgid: str, msgstr: str, glossary: dict[str, str]) -> list[str]:
    """The glossary terms of ``msgid`` (outside math, roles' targets and code; longer terms
    first, so "gradient descent" is not also "gradient") whose Korean term ``msgstr`` lacks."""
    text = myst.ROLE.sub(lambda m: myst.explicit(m["text"])[0] or " ", msgid)
    text = _IDENT.sub(" ", _CODE.sub(" ", _MATH.sub(" ", text)))
    # a source's English title quoted as it is ("Weights and embeddings") is no term use
    text = _QUOTED.sub(lambda m: " " if (m[1] or m[2]) in msgstr else m[0], text)
    problems = []
    for spelling in sorted(glossary, key=len, reverse=True):
        pattern = _term_pattern(spelling)
        if pattern.search(text):
            text = pattern.sub(" ", text)
            if glossary[spelling] not in msgstr:
                problems.append(
                    f"{spelling!r} is not translated as {glossary[spelling]!r}"
                )
    return problems


# -- Outputs: printed lines, widget labels, figure text (locales/ko/outputs/) ------
#
# What cells print is no Sphinx message: a separate catalogue per page, ``outputs/<page>.po``,
# holds the English fragments with words (one printed line, one widget label, one sentence of
# a panel's alt text, one text of a figure), extracted from the executed notebooks of the
# execution cache.  Values become placeholders (``max |ours - torch| = {0}``), so one message
# serves every value and the Korean build (booktools/sphinx_i18n.py) puts the printed values
# back unchanged.  ``python -m booktools.i18n outputs`` (part of ``make po``) updates them.

#: Outside LC_MESSAGES: no Sphinx catalogue (the build reads them itself), not chapter prose.
OUTPUTS = LOCALES / LANGUAGE / "outputs"
_NUM = r"[-+]?(?:\d+(?:[.,]\d+)*\.?|\.\d+)(?:[eE][-+]?\d+)?%?"
#: One printed value: a number, a run of numbers separated by ", " or spaces (a list), or a
#: bracketed array of numbers.  Not inside a name (``q_1``, ``W2``, ``float32``).  Spaces
#: that align a value (``D =    16``) go with it, so aligned lines share one message.
_VALUE = re.compile(
    r"(?:(?<= ) +)?(?<![\w.])(?:\[[-+\d.,eE\s\[\]]*\d[-+\d.,eE\s\[\]]*\]|"
    + _NUM
    + r"(?:,\s?"
    + _NUM
    + r")*)(?![\w])"
)
_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{(\d+)\}")
#: Widget-state keys whose strings are labels (a text box's value is data, not a label).
WIDGET_KEYS = ("description", "tooltip", "_options_labels", "button_style_label")
HTML_WIDGETS = ("HTMLModel", "LabelModel", "HTMLMathModel")
#: A sentence or clause of an alt text or HTML text: split after ". " or "; ".
_CLAUSE = re.compile(r"(?<=[.;])\s+(?=\S)")
_TAG = re.compile(r"<[^>]*>")
ALT_ATTR = re.compile(r'(\salt=")([^"]*)(")')
SVG_DATA = re.compile(r"(data:image/svg\+xml;base64,)([A-Za-z0-9+/=]+)")
#: A figure's text: ``<text>`` (svg.fonttype none) or the comment before its glyphs (path).
SVG_TEXT = re.compile(r"(<text\b[^>]*>)([^<]+)(</text>)")
_SVG_COMMENT = re.compile(r'<g id="text_\d+">\s*<!-- (.*?) -->')


def output_template(text: str) -> tuple[str, list[str]]:
    """``text`` with its values replaced by ``{0}``, ``{1}``, … (literal braces doubled), and
    the values in order: ``"max |d| = 1.5e-07"`` -> ``("max |d| = {0}", ["1.5e-07"])``."""
    values: list[str] = []

    def value(m: re.Match[str]) -> str:
        values.append(m.group(0))
        return "\0%d\0" % (len(values) - 1)

    held = _VALUE.sub(value, text).replace("{", "{{").replace("}", "}}")
    return re.sub(r"\0(\d+)\0", r"{\1}", held), values


def output_fill(translation: str, values: list[str]) -> str:
    """The translation of a template with the printed values put back in their places."""

    def put(m: re.Match[str]) -> str:
        if m.group(1) is None:
            return m.group(0)[0]
        index = int(m.group(1))
        if index >= len(values):
            raise ValueError(
                f"translation: placeholder {{{index}}} but only {len(values)} "
                f"values in the output; got {translation!r}"
            )
        return values[index]

    return _PLACEHOLDER.sub(put, translation)


def placeholders(text: str) -> list[str]:
    """The placeholders of a template or its translation, sorted (``{{`` not counted)."""
    return sorted(
        m.group(0) for m in _PLACEHOLDER.finditer(text) if m.group(1) is not None
    )


def _wordy(text: str) -> bool:
    """Whether a fragment has words: two letters in a row outside code-like names."""
    return re.search(r"[A-Za-z]{2,}", _IDENT.sub(" ", _CODE.sub(" ", text))) is not None


def translate_output(text: str, table: dict[str, str]) -> str:
    """``text`` (one printed line or label) in the table's language, leading and trailing
    spaces and every value kept; unchanged when the table has no translation for it."""
    core = text.strip()
    if not core or not _wordy(core):
        return text
    msgid, values = output_template(core)
    translation = table.get(msgid)
    if not translation:
        return text
    start = text.index(core[0])
    return text[:start] + output_fill(translation, values) + text[start + len(core) :]


def translate_lines(text: str, table: Mapping[str, str]) -> str:
    """What a cell printed (lines), each line by :func:`translate_output`, the columns of the
    output lined up again by display width, a Hangul syllable two columns
    (:func:`booktools.columns.align_columns`): the catalogue's padding counts characters."""
    from booktools.columns import align_columns

    english = text.split("\n")
    return "\n".join(
        align_columns(english, [translate_output(line, table) for line in english])
    )


def translate_clauses(text: str, table: dict[str, str]) -> str:
    """An alt text or HTML text, sentence by sentence (:data:`_CLAUSE`)."""
    parts = _CLAUSE.split(text)
    seps = _CLAUSE.findall(text)
    out = [translate_output(p, table) for p in parts]
    return "".join(p + (seps[i] if i < len(seps) else "") for i, p in enumerate(out))


def _clauses(text: str) -> list[str]:
    return [c.strip() for c in _CLAUSE.split(text) if _wordy(c)]


def html_fragments(html_text: str) -> list[str]:
    """The texts of an HTML fragment (a widget's HTML, a panel ``<img>``): alt texts and text
    between tags, unescaped, in clauses; the figures inside (base64 SVG) too."""
    import base64
    import html as html_mod

    found: list[str] = []
    for m in ALT_ATTR.finditer(html_text):
        found += _clauses(html_mod.unescape(m.group(2)))
    for m in SVG_DATA.finditer(html_text):
        found += svg_fragments(base64.b64decode(m.group(2)).decode("utf-8", "replace"))
    text = SVG_DATA.sub("", html_text)
    for piece in _TAG.split(text):
        found += _clauses(html_mod.unescape(piece))
    return found


def svg_fragments(svg_text: str) -> list[str]:
    """The texts of a figure with words (tick labels are numbers: not messages)."""
    import html as html_mod

    texts = [html_mod.unescape(m.group(2)) for m in SVG_TEXT.finditer(svg_text)]
    texts += [html_mod.unescape(m.group(1)) for m in _SVG_COMMENT.finditer(svg_text)]
    return [t.strip() for t in texts if _wordy(t) and "$" not in t]


def widget_fragments(state: dict[str, Any]) -> list[str]:
    """Labels of a notebook's widget state (``metadata.widgets``): descriptions, options,
    tooltips, and the texts of HTML and label widgets (their panels' alt text and figures)."""
    found: list[str] = []
    models = state.get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    for model in models.values():
        values = model.get("state", {})
        for key in WIDGET_KEYS:
            value = values.get(key)
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, str) and _wordy(item):
                    found.append(item.strip())
        if model.get("model_name") in HTML_WIDGETS and isinstance(
            values.get("value"), str
        ):
            found += html_fragments(values["value"])
    return found


def notebook_fragments(nb: Any) -> list[tuple[str, str]]:
    """(msgid, where) for every fragment of an executed notebook with words, first occurrence
    first: printed lines (``stream``), figure texts (``svg``), widget labels (``widget``)."""
    seen: dict[str, str] = {}

    def add(fragment: str, where: str) -> None:
        msgid = output_template(fragment.strip())[0]
        if msgid and _wordy(msgid):
            seen.setdefault(msgid, where)

    for index, cell in enumerate(nb.get("cells", [])):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                text = output.get("text", "")
                for line in (
                    text if isinstance(text, str) else "".join(text)
                ).splitlines():
                    if _wordy(line):
                        add(line, f"cell {index}: printed")
            data = output.get("data", {})
            if "image/svg+xml" in data:
                svg_text = data["image/svg+xml"]
                svg_text = svg_text if isinstance(svg_text, str) else "".join(svg_text)
                for fragment in svg_fragments(svg_text):
                    add(fragment, f"cell {index}: figure")
            if "text/html" in data and "image/svg+xml;base64" in str(data["text/html"]):
                for fragment in html_fragments(str(data["text/html"])):
                    add(fragment, f"cell {index}: figure")
    for fragment in widget_fragments(nb.get("metadata", {}).get("widgets", {})):
        add(fragment, "widget")
    return list(seen.items())


def executed_notebooks(root: Path = ROOT, cache: Path = CACHE) -> dict[str, Any]:
    """docname -> the newest executed notebook of that page in the execution cache."""
    from jupyter_cache import get_cache

    store = get_cache(str(cache))
    newest: dict[str, Any] = {}
    for record in store.list_cache_records():
        path = Path(record.uri)
        if not path.is_relative_to(root):
            continue
        name = path.relative_to(root).with_suffix("").as_posix()
        if name not in newest or record.created > newest[name].created:
            newest[name] = record
    return {
        name: store.get_cache_bundle(rec.pk).nb for name, rec in sorted(newest.items())
    }


def update_output_catalogues(
    outputs: Path = OUTPUTS, root: Path = ROOT, cache: Path = CACHE
) -> dict[str, str]:
    """Merge the fragments of every executed page into ``outputs/<page>.po`` (as
    :func:`update_catalogues` does: translations kept, changed ones fuzzy, removed obsolete)."""
    from babel.messages.catalog import Catalog

    report: dict[str, str] = {}
    for name, nb in executed_notebooks(root, cache).items():
        fragments = notebook_fragments(nb)
        po = outputs / f"{name}.po"
        if not fragments and not po.exists():
            continue
        template = Catalog(domain=name, project="The Formulated GPT")
        for msgid, where in fragments:
            template.add(msgid, auto_comments=[where])
        report[name] = _merge(po, template, name)
    return report


def output_table(po: Path) -> dict[str, str]:
    """msgid -> translation of one outputs catalogue (fuzzy and empty ones left out)."""
    if not po.is_file():
        return {}
    return {
        m.id: m.string for m in _read(po, LANGUAGE) if m.id and m.string and not m.fuzzy
    }


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
