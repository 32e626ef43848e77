"""The catalogues of what cells print (booktools/i18n/__init__.py), ``locales/ko/outputs/<page>.po``.

What cells print is no Sphinx message: a separate catalogue per page, ``outputs/<page>.po``,
holds the English fragments with words (one printed line, one widget label, one sentence of
a panel's alt text, one text of a figure), extracted from the executed notebooks of the
execution cache.  Values become placeholders (``max |ours - torch| = {0}``), so one message
serves every value and the Korean build (booktools/sphinx/i18n.py) puts the printed values
back unchanged; so is a figure label's math (``row standard deviation {0}``), which the Korean
figure writes as text (booktools/i18n/svg_math.py).  Each line of a figure's text is a message
of its own.  ``python -m booktools i18n outputs`` (part of ``make po``) updates them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from booktools import myst
from booktools.i18n.catalogues import LANGUAGE, merge_catalogue, read_catalogue
from booktools.i18n.checks import IDENT
from booktools.i18n.particles import fill_particles
from booktools.paths import CACHE, LOCALES, ROOT

__all__ = [
    "OUTPUTS",
    "VALUE",
    "WIDGET_KEYS",
    "HTML_WIDGETS",
    "ALT_ATTR",
    "SVG_DATA",
    "SVG_TEXT",
    "SVG_GLYPHS",
    "output_template",
    "output_fill",
    "placeholders",
    "translate_output",
    "translate_clauses",
    "html_fragments",
    "svg_fragments",
    "widget_fragments",
    "QUIZ_BLOCK",
    "QUIZ_PARTS",
    "quiz_fragments",
    "notebook_fragments",
    "executed_notebooks",
    "update_output_catalogues",
    "output_table",
]

#: The cache ``make book`` fills; Sphinx would otherwise look beside the output folder.
#: Outside LC_MESSAGES: no Sphinx catalogue (the build reads them itself), not chapter prose.
OUTPUTS = LOCALES / LANGUAGE / "outputs"
_NUM = r"[-+]?(?:\d+(?:[.,]\d+)*\.?|\.\d+)(?:[eE][-+]?\d+)?%?"
#: One printed value: a number, a run of numbers separated by ", " or spaces (a list), or a
#: bracketed array of numbers.  Not inside a name (``q_1``, ``W2``, ``float32``).  Spaces
#: that align a value (``D =    16``) go with it, so aligned lines share one message.
VALUE = re.compile(
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
#: A text of a figure drawn as glyphs (svg.fonttype path), one line of it: the comment names
#: the line (``text``), the group places it (``place``: translate, maybe rotate; then the
#: glyphs' ``scale``), its ``<use>``s and paths draw it (``body``).  Every line of a
#: multi-line title has its own comment and group, the first right after ``<g id="text_N">``.
SVG_GLYPHS = re.compile(
    r"(<!-- )(?P<text>(?:(?!-->).)*?)( -->\s*)<g (?:style=\"(?P<style>[^\"]*)\" )?"
    r'transform="(?P<place>translate\([^)]*\)(?: rotate\([^)]*\))?) '
    r'scale\((?P<scale>[\d.]+) -[\d.]+\)">(?P<body>(?:(?!</g>).)*?)</g>',
    re.S,
)


def output_template(text: str) -> tuple[str, list[str]]:
    """``text`` with its values replaced by ``{0}``, ``{1}``, … (literal braces doubled), and
    the values in order: ``"max |d| = 1.5e-07"`` -> ``("max |d| = {0}", ["1.5e-07"])``.
    A math span is a value too, kept whole (a figure's label ``"row norm of $X_l$"`` ->
    ``"row norm of {0}"``): a translation places it and cannot change it."""
    values: list[str] = []

    def held(value: str) -> str:
        values.append(value)
        return "\0%d\0" % (len(values) - 1)

    pieces = []  # the text between math spans, its numbers held; each math span held
    end = 0
    for m in myst.MATH.finditer(text):
        pieces += [VALUE.sub(lambda v: held(v[0]), text[end : m.start()]), held(m[0])]
        end = m.end()
    pieces.append(VALUE.sub(lambda v: held(v[0]), text[end:]))
    held_text = "".join(pieces).replace("{", "{{").replace("}", "}}")
    return re.sub(r"\0(\d+)\0", r"{\1}", held_text), values


def output_fill(translation: str, values: list[str]) -> str:
    """The translation of a template with the printed values put back in their places, and
    a Korean particle pair written right after a placeholder (``{0}(으)로``) resolved for
    the value it got (:func:`booktools.i18n.particles.fill_particles`)."""

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

    return fill_particles(translation, lambda text: _PLACEHOLDER.sub(put, text))


def placeholders(text: str) -> list[str]:
    """The placeholders of a template or its translation, sorted (``{{`` not counted)."""
    return sorted(
        m.group(0) for m in _PLACEHOLDER.finditer(text) if m.group(1) is not None
    )


#: A progress bar's status (tqdm: ``300/300 [02:53<00:00,  1.73step/s, loss=1.9]``): numbers,
#: units and names, printed alike in every edition.  Its rate is glued to its unit, so a
#: template of it would change with every run's speed and never find its translation.
PROGRESS = re.compile(r"^\s*\d+/\d+\s*\[[^\]]*\]\s*$")


def _wordy(text: str) -> bool:
    """Whether a fragment has words: two letters in a row outside math and code-like names
    (a progress bar's status has none to translate, nor a label that is all math)."""
    if PROGRESS.match(text):
        return False
    prose = IDENT.sub(" ", myst.INLINE_CODE.sub(" ", myst.MATH.sub(" ", text)))
    return re.search(r"[A-Za-z]{2,}", prose) is not None


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
    """The texts of a figure with words, every line of each (tick labels are numbers, and a
    label that is all math has nothing to translate: not messages).  A label's math stays
    in its message (:func:`output_template` holds it as a value)."""
    import html as html_mod

    texts = [html_mod.unescape(m.group(2)) for m in SVG_TEXT.finditer(svg_text)]
    texts += [html_mod.unescape(m["text"]) for m in SVG_GLYPHS.finditer(svg_text)]
    return [t.strip() for t in texts if _wordy(t)]


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


#: A quiz's HTML (:mod:`formulated.quizzes`) in a page or an output: from its
#: ``<div class="fq-quiz"`` to its end comment.
QUIZ_BLOCK = re.compile(r'<div class="fq-quiz".*?<!-- /fq-quiz -->', re.S)
#: What splits a quiz's HTML into its tags (styles and scripts whole) and its text nodes.
QUIZ_PARTS = re.compile(r"(<style>.*?</style>|<script>.*?</script>|<[^>]*>)", re.S)


def quiz_fragments(html_text: str) -> list[str]:
    """The texts of the quizzes in an HTML text (text nodes, unescaped, stripped), in order:
    what the outputs catalogue holds for them."""
    import html as html_mod

    found: list[str] = []
    for block in QUIZ_BLOCK.findall(html_text):
        for part in QUIZ_PARTS.split(block):
            if part.startswith("<") or not part.strip():
                continue
            text = html_mod.unescape(part).strip()
            if re.search(r"[A-Za-z]{2,}", text):
                found.append(text)
    return found


def notebook_fragments(nb: Any) -> list[tuple[str, str]]:
    """(msgid, where) for every fragment of an executed notebook with words, first occurrence
    first: printed lines (``stream``), figure texts (``svg``), widget labels (``widget``)."""
    seen: dict[str, str] = {}

    def add(fragment: str, where: str) -> None:
        msgid = output_template(fragment.strip())[0]
        if msgid and _wordy(msgid):
            # a label's math is a placeholder: the comment shows the translator which
            seen.setdefault(
                msgid,
                f"{where}: {fragment.strip()}" if myst.MATH.search(fragment) else where,
            )

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
            if "text/html" in data and 'class="fq-quiz"' in str(data["text/html"]):
                for fragment in quiz_fragments("".join(data["text/html"])):
                    add(fragment, f"cell {index}: quiz")
                # the quiz's one line in the PDF (its text/plain)
                add("".join(data.get("text/plain", "")), f"cell {index}: quiz (PDF)")
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
    :func:`booktools.i18n.update_catalogues` does: translations kept, changed ones fuzzy, removed obsolete)."""
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
        report[name] = merge_catalogue(po, template, name)
    return report


def output_table(po: Path) -> dict[str, str]:
    """msgid -> translation of one outputs catalogue (fuzzy and empty ones left out)."""
    if not po.is_file():
        return {}
    return {
        m.id: m.string
        for m in read_catalogue(po, LANGUAGE)
        if m.id and m.string and not m.fuzzy
    }
