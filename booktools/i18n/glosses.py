"""Korean glosses: the English term in parentheses after its Korean term.

A *gloss* is ``어텐션(attention)``: a Korean word followed at once by its English term in
parentheses.  The policy (CONTRIBUTING.md, *Korean glosses*) allows one only at a real technical
term's first use in a chapter, uninflected, outside headings and box titles, and never next to or
inside another parenthesis.  :func:`gloss_problems` lists what breaks it in one catalogue (one
page; its messages in page order), :func:`reduce_glosses` applies it (idempotent), and

    python -m booktools glosses check    # the problems of every chapter catalogue
    python -m booktools glosses fix      # apply the policy to every chapter catalogue
    python -m booktools glosses count    # glosses and ")(" in the catalogues and built pages

What is a gloss: the English is words of letters (hyphens, apostrophes and blanks between),
all lower case, or a glossary term spelled as the glossary spells it (``KV cache``,
``Jacobian``).  A capitalized name (``Softmax`` for the source's box of that name, ``OneHot``,
``GPT``, ``Transformer`` for the 2017 model) is a name the page refers to, not a gloss.  Math,
inline code, roles and link targets are never searched.  Removing a gloss removes the
parentheses and the English only: the Korean term stays, so the glossary check of
tests/test_i18n.py (a glossary term's Korean where its English appears) still holds, and a
particle attached after the parentheses attaches to the Korean word (``입력(input)의`` ->
``입력의``).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from booktools import i18n, myst
from booktools.i18n.catalogues import CATALOGUES, LANGUAGE
from booktools.i18n.checks import GLOSSARY, load_glossary
from booktools.paths import ROOT

__all__ = [
    "NEVER_GLOSS",
    "INFLECTIONS",
    "CHAPTER_CATALOGUES",
    "Gloss",
    "find_glosses",
    "is_gloss",
    "term_key",
    "uninflected",
    "title_ids",
    "catalogue_entries",
    "gloss_problems",
    "reduce_glosses",
    "fix_catalogue",
    "html_text",
    "double_parentheses",
    "main",
]

#: Basic words that are never glossed.  A Korean graduate reader knows 입력, 출력, 행렬, 벡터,
#: 함수, 값 … as well as their English: the English adds nothing but noise, and glossing them
#: in every chapter (입력(input) 23 times before this list) buries the terms that do need it.
#: The book's own furniture (정의, 연습문제, 출처, 오류, 위젯) is on the list for the same reason.
#: Terms in their canonical form (:func:`term_key`).
NEVER_GLOSS = frozenset(
    {
        # everyday mathematics
        "input",
        "output",
        "matrix",
        "vector",
        "function",
        "value",
        "number",
        "example",
        "formula",
        "probability",
        "distribution",
        "probability distribution",
        "parameter",
        "dimension",
        "variance",
        "standard deviation",
        "sum",
        "mean",
        "average",
        "row",
        "column",
        "table",
        "figure",
        "notation",
        "noise",
        "data",
        "word",
        "sentence",
        "text",
        "machine learning",
        # the book's furniture
        "definition",
        "exercise",
        "solution",
        "source",
        "erratum",
        "errata",
        "widget",
        "notebook",
        "chapter",
        "section",
        "box",
        "code",
    }
)

#: Inflected glosses the general rules (a glossary spelling -> its entry's first spelling; a
#: plural -> its singular) do not map, each to its uninflected term (``""``: drop the gloss).
#: A gloss inflected in a way neither covers is dropped.
INFLECTIONS: Mapping[str, str] = {
    "layer normalized": "layer normalization",
    "normalized": "normalization",
    "masked": "mask",
    "trained": "training",
    "learning-rate": "learning rate",
    # in the chapters, "transformers" is Hugging Face's library, which a gloss "transformer"
    # would misname: dropped
    "transformers": "",
}

CHAPTER_CATALOGUES = CATALOGUES / "chapters"

_HANGUL = "\uac00-\ud7a3"
_GLOSS = re.compile(
    rf"(?P<korean>[{_HANGUL}]+)(?P<stars>\*{{0,3}})"
    r"\((?P<english>[A-Za-z](?:[A-Za-z' -]*[A-Za-z])?)\)"
)
_LOWER = re.compile(r"[a-z][a-z'-]*(?: [a-z][a-z'-]*)*")
_LINK_TARGET = re.compile(r"\]\([^()\s]*\)")
_NOT_PLURAL = re.compile(r"(?:ss|us|is|as|ics|ous|ias)$")
#: Past participles and -ed adjectives; "embed", "speed", "need" are not.
_PARTICIPLE = re.compile(r"(?<!e)(?<!emb)ed$")
_MASK = "\x00"
_IRREGULAR = {"matrices": "matrix", "indices": "index", "vertices": "vertex"}


@dataclass(frozen=True)
class Gloss:
    """One gloss of a message: ``msgstr[start:end]`` is ``(english)``, after ``korean``."""

    korean: str
    english: str
    start: int
    end: int
    depth: int  # parentheses open around it (0: none)
    next_paren: bool  # a parenthesis or a chapter reference follows at once


def _masked(text: str) -> str:
    """``text`` with math, roles, inline code and link targets blanked (same length), so a
    search finds prose only and its positions are those of ``text``."""
    for pattern in (myst.MATH, myst.ROLE, myst.INLINE_CODE, _LINK_TARGET):
        text = pattern.sub(lambda m: _MASK * len(m.group(0)), text)
    return text


@cache
def _glossary() -> tuple[dict[str, str], dict[str, str], frozenset[str]]:
    """(spelling -> its entry's first spelling, lower case), the first spellings' Korean, and
    the glossary's spellings with capitals as it writes them (``KV cache``)."""
    import yaml

    terms = load_glossary()
    head: dict[str, str] = {}
    first: dict[str, str] = {}
    for spelling, korean in terms.items():  # the entry's spellings in the order written
        first.setdefault(korean, spelling)
        head[spelling] = first[korean]
    raw = yaml.safe_load(GLOSSARY.read_text(encoding="utf-8")) or {}
    cased = frozenset(
        s.strip()
        for key in raw
        for s in str(key).split("|")
        if s.strip() != s.strip().lower()
    )
    return head, {h: terms[h] for h in head.values()}, cased


def _singular(phrase: str) -> str:
    """``phrase`` with its last word made singular (``hidden states`` -> ``hidden state``,
    ``queries`` -> ``query``); unchanged when the last word is no plural."""
    words = phrase.split(" ")
    w = words[-1]
    if w in _IRREGULAR:
        w = _IRREGULAR[w]
    elif len(w) <= 3 or _NOT_PLURAL.search(w) or not w.endswith("s"):
        return phrase
    elif w.endswith("ies"):
        w = w[:-3] + "y"
    elif w.endswith(("sses", "xes", "ches", "shes")):
        w = w[:-2]
    else:
        w = w[:-1]
    return " ".join(words[:-1] + [w])


def is_gloss(english: str) -> bool:
    """Whether ``english`` (the text in parentheses after a Korean word) is a gloss: lower case
    words, or a glossary spelling with its capitals (``KV cache``); not a name (``GPT``,
    ``OneHot``, ``Softmax``)."""
    return bool(_LOWER.fullmatch(english)) or english in _glossary()[2]


def find_glosses(msgstr: str) -> list[Gloss]:
    """The glosses of ``msgstr`` in order, outside math, inline code, roles and link targets."""
    if not isinstance(msgstr, str):
        raise TypeError(f"msgstr must be a str, got {type(msgstr).__name__}")
    text = _masked(msgstr)
    depth_at = []
    depth = 0
    for ch in text:
        depth_at.append(depth)
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
    found = []
    for m in _GLOSS.finditer(text):
        if not is_gloss(m["english"]):
            continue
        start, end = m.start("english") - 1, m.end()
        after = msgstr[end:]
        role = myst.ROLE.match(after)
        chapter_ref = (
            role is not None
            and role["name"] == "doc"
            and myst.explicit(role["text"])[1] == role["text"]
        )
        found.append(
            Gloss(
                korean=m["korean"],
                english=m["english"],
                start=start,
                end=end,
                depth=depth_at[start],
                next_paren=after.startswith("(") or chapter_ref,
            )
        )
    return found


def term_key(english: str) -> str:
    """The term a gloss names, to tell a repeated gloss: lower case, the glossary entry's first
    spelling (``trained`` -> ``training``), else singular; hyphens as blanks."""
    head = _glossary()[0]
    low = english.lower()
    low = INFLECTIONS.get(low) or low
    for form in (low, _singular(low)):
        if form in head:
            return head[form].replace("-", " ")
    return _singular(low).replace("-", " ")


def uninflected(english: str) -> str | None:
    """The form a gloss should have when ``english`` is inflected (``trained`` -> ``training``,
    ``projections`` -> ``projection``), ``""`` when it is inflected and has no known
    uninflected term (drop it), ``None`` when it is fine as it is.  Fine: an entry's first
    spelling in the glossary (``attention weights`` is a key, plural and all), a spelling
    variant with the same ending (``pretraining``), or an English word that is no plural and no
    participle."""
    head = _glossary()[0]
    low = english.lower()
    if low in INFLECTIONS:
        return INFLECTIONS[low]
    if low in head:
        key = head[low]
        if key == low:
            return None
        ending = re.compile(r"(?:ing|ed|s)$")
        mine, theirs = ending.search(low), ending.search(key)
        same = (mine and mine.group(0)) == (theirs and theirs.group(0))
        return None if same else key
    single = _singular(low)
    if single != low:
        return head.get(single, single)
    if _PARTICIPLE.search(re.split(r"[ -]", low)[-1]):
        return ""  # a participle ("masked"); inside a compound it is part of the term
    return None


def _source_titles(path: str, root: Path) -> set[str]:
    """The headings and directive titles of the source ``path`` (a catalogue location,
    ``../../chapters/09_masks.md``), outside code cells and code fences."""
    rel = path
    while rel.startswith("../"):
        rel = rel[3:]
    file = root / rel
    if not file.is_file():
        return set()
    titles = set()
    closing: str | None = None  # the fence that closes the code block we are in
    for line in file.read_text(encoding="utf-8").splitlines():
        if closing is not None:
            if line.strip() == closing:
                closing = None
            continue
        code = myst.CODE_OPEN.match(line)
        opened = myst.OPEN.match(line)
        if code or (opened and opened["name"] == "code-cell"):
            closing = (code or opened)["fence"]
            continue
        heading = myst.HEADING.match(line)
        if heading:
            titles.add(heading["title"])
        elif opened and opened["arg"] and opened["name"] != "formulated-source":
            titles.add(opened["arg"])
    return titles


def title_ids(messages: Iterable[Any], root: Path = ROOT) -> set[str]:
    """The msgids of ``messages`` (Babel messages, with ``.id`` and ``.locations``) that are a
    heading or a box's title: a Markdown heading or the title of a directive's opening line
    (``{prf:definition}``, ``{admonition}``, ``{dropdown}``) in the sources the messages come
    from, outside code.  A definition's title arrives as ``(title)``, a directive's title at
    times with its fence.  (By text, not by the location's line: a table inside a box has the
    box's line.)"""
    messages = list(messages)
    sources = {path for m in messages for path, _ in m.locations}
    titles: set[str] = set()
    for path in sorted(sources):
        titles |= _source_titles(path, root)
    found = set()
    for m in messages:
        if not m.id or not isinstance(m.id, str):
            continue
        bare = myst.OPEN_PREFIX.sub("", m.id).strip()
        if bare.startswith("(") and bare.endswith(")") and bare[1:-1] in titles:
            found.add(m.id)
        elif bare in titles or myst.OPEN_PREFIX.match(m.id):
            found.add(m.id)
    return found


def catalogue_entries(po: Path) -> tuple[list[tuple[str, str]], set[str]]:
    """The translated messages of catalogue ``po`` as ``(msgid, msgstr)`` in page order, and
    the msgids that are headings or titles (:func:`title_ids`)."""
    if not po.is_file():
        raise FileNotFoundError(f"po: no catalogue at {po}")
    catalog = _read(po)
    messages = [m for m in catalog if m.id and isinstance(m.string, str)]
    return [(m.id, m.string) for m in messages], title_ids(messages)


def _decide(gloss: Gloss, is_title: bool, seen: set[str]) -> tuple[str | None, str]:
    """(what is wrong with ``gloss`` or ``None``, the text that replaces it: ``""`` to drop
    it).  A kept gloss's term goes into ``seen``."""
    english = gloss.english
    key = term_key(english)
    if is_title:
        return "in a heading or a box title", ""
    if gloss.depth:
        return "inside another parenthesis (a gloss inside a gloss)", ""
    if gloss.next_paren:
        return "next to another parenthesis: ')('", ""
    if key in NEVER_GLOSS:
        return f"a basic word, never glossed ({key!r})", ""
    fixed = uninflected(english)
    if fixed is not None:
        why = f"inflected: {english!r} is not the term's form"
        if fixed:
            why += f" ({fixed!r})"
        if not fixed or term_key(fixed) in seen:
            return why, ""
        seen.add(term_key(fixed))
        return why, f"({fixed})"
    if key in seen:
        return f"{key!r} already glossed earlier in the chapter", ""
    seen.add(key)
    return None, f"({english})"


def _review(
    entries: Sequence[tuple[str, str]], titles: Iterable[str]
) -> list[tuple[str, str, list[str]]]:
    """For each entry: its msgid, its msgstr under the policy, and its problems."""
    if isinstance(entries, (str, bytes)):
        raise TypeError("entries must be a sequence of (msgid, msgstr) pairs")
    titles = set(titles)
    seen: set[str] = set()
    out = []
    for i, entry in enumerate(entries):
        if not (isinstance(entry, tuple) and len(entry) == 2):
            raise TypeError(
                f"entries[{i}] must be a (msgid, msgstr) pair, got {entry!r}"
            )
        msgid, msgstr = entry
        problems = []
        pieces = []
        last = 0
        for g in find_glosses(msgstr):
            why, replacement = _decide(g, msgid in titles, seen)
            if why:
                problems.append(f"{g.korean}({g.english}): {why}")
            pieces += [msgstr[last : g.start], replacement]
            last = g.end
        out.append((msgid, "".join(pieces) + msgstr[last:], problems))
    return out


def gloss_problems(
    entries: Sequence[tuple[str, str]], titles: Iterable[str] = ()
) -> list[str]:
    """What breaks the gloss policy in one catalogue: ``entries`` its ``(msgid, msgstr)`` in
    page order, ``titles`` the msgids that are headings or box titles.  One readable line per
    gloss: (a) repeated in the chapter, (b) in a heading or title, (c) next to another
    parenthesis, (d) inflected, (e) a basic word, (f) inside another parenthesis."""
    return [
        f"{msgid[:40]!r}: {p}"
        for msgid, _, problems in _review(entries, titles)
        for p in problems
    ]


def reduce_glosses(
    entries: Sequence[tuple[str, str]], titles: Iterable[str] = ()
) -> list[str]:
    """The msgstrs of ``entries`` under the policy: each gloss that breaks it dropped (the
    Korean term stays) or, when inflected, put in its uninflected form.  Idempotent."""
    return [new for _, new, _ in _review(entries, titles)]


def _read(po: Path) -> Any:
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        return read_po(f, locale=LANGUAGE)


def _write(po: Path, catalog: Any) -> None:
    """Write ``catalog`` as booktools.i18n writes catalogues (one line per message)."""
    from babel.messages.pofile import write_po

    for message in catalog:
        message.flags -= {"python-format", "python-brace-format"}
    tmp = po.with_suffix(".po.tmp")
    with tmp.open("wb") as f:
        write_po(f, catalog, width=0, include_previous=True, sort_output=False)
    tmp.replace(po)


def fix_catalogue(po: Path) -> int:
    """Apply the policy to catalogue ``po`` in place (read, change, write in one go); the
    number of messages changed (0: the file is not written)."""
    if not po.is_file():
        raise FileNotFoundError(f"po: no catalogue at {po}")
    catalog = _read(po)
    messages = [m for m in catalog if m.id and isinstance(m.string, str)]
    titles = title_ids(messages)
    new = reduce_glosses([(m.id, m.string) for m in messages], titles)
    changed = 0
    for m, string in zip(messages, new):
        if string != m.string:
            m.string = string
            changed += 1
    if changed:
        _write(po, catalog)
    return changed


class _Prose(HTMLParser):
    """A page's text outside code, math, scripts and styles."""

    SKIP = {"code", "pre", "script", "style", "math", "svg", "kbd"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip: list[str] = []

    #: Tags that end a run of text: what is on either side is not one sentence.
    BLOCK = {
        "p",
        "div",
        "li",
        "td",
        "th",
        "tr",
        "dt",
        "dd",
        "br",
        "button",
        "label",
        "option",
    }

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.BLOCK:
            self.parts.append("\n")
        classes = (dict(attrs).get("class") or "").split()
        if self.skip or tag in self.SKIP or "math" in classes:
            if tag not in ("br", "img", "hr", "input", "meta", "link", "wbr"):
                self.skip.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.BLOCK:
            self.parts.append("\n")
        if self.skip and self.skip[-1] == tag:
            self.skip.pop()

    def handle_data(self, data: str) -> None:
        self.parts.append(" " if self.skip else data)


def html_text(html: str) -> str:
    """The text of an HTML page outside code, math, scripts and styles."""
    parser = _Prose()
    parser.feed(html)
    return "".join(parser.parts)


def double_parentheses(text: str) -> int:
    """How many ``)(`` the prose of ``text`` has (math, code and roles not counted)."""
    return _masked(text).count(")(")


def _counts(root: Path = ROOT) -> list[str]:
    glosses = doubled = 0
    for po in sorted(CHAPTER_CATALOGUES.glob("*.po")):
        for _, msgstr in catalogue_entries(po)[0]:
            glosses += len(find_glosses(msgstr))
            doubled += double_parentheses(msgstr)
    lines = [f"catalogues: {glosses} glosses, {doubled} ')('"]
    pages = sorted((i18n.KO_HTML / "chapters").glob("*.html"))
    if pages:
        glosses = doubled = 0
        for page in pages:
            text = html_text(page.read_text(encoding="utf-8"))
            glosses += len(find_glosses(text))
            doubled += text.count(")(")
        lines.append(f"built pages: {glosses} glosses, {doubled} ')('")
    return lines


def main(argv: list[str] | None = None) -> int:
    """``check`` (exit 1 on a problem), ``fix`` or ``count``, for every chapter catalogue."""
    args = sys.argv[1:] if argv is None else argv
    if args not in (["check"], ["fix"], ["count"]):
        print("usage: python -m booktools glosses check|fix|count", file=sys.stderr)
        return 2
    pos = sorted(CHAPTER_CATALOGUES.glob("*.po"))
    if args == ["count"]:
        print("\n".join(_counts()))
        return 0
    if args == ["fix"]:
        for po in pos:
            n = fix_catalogue(po)
            if n:
                print(f"{po.name}: {n} messages changed")
        return 0
    bad = 0
    for po in pos:
        for p in gloss_problems(*catalogue_entries(po)):
            print(f"{po.stem}: {p}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
