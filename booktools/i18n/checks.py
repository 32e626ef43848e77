"""What a Korean translation must keep of its English message, and the glossary's terms
(booktools/i18n/__init__.py; tests/test_i18n.py runs them on every catalogue).

A translation keeps every math span, role, inline code and number of the English
(:func:`message_problems`), and says each glossary term of the English with the glossary's one
Korean term (:func:`glossary_problems`, ``locales/ko/glossary.yml``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from booktools import myst
from booktools.i18n.catalogues import LANGUAGE
from booktools.paths import LOCALES

__all__ = [
    "IDENT",
    "kept_spans",
    "message_problems",
    "has_prose",
    "GLOSSARY",
    "AVOID",
    "Avoided",
    "load_glossary",
    "glossary_terms",
    "load_avoided",
    "glossary_problems",
    "avoided_problems",
    "OBJECTIVES_LEAD",
    "objective_problems",
    "error_message_problems",
]

#: Spans copied unchanged into a translation: display and inline math, roles (for a role with a
#: title, ``{doc}`title <target>``, the role and target only: the title is prose), inline code.
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])\d+(?:[.,]\d+)*")
#: ``formulated.models.reference.gpt`` or ``n_ctx`` written without backticks (a box's title).
IDENT = re.compile(
    r"(?<![\w.])[A-Za-z_]\w+(?:\.[A-Za-z_]\w+)+(?![\w])|"
    r"(?<![\w.])[A-Za-z]\w*_\w+(?![\w])"
)
#: A count with a magnitude: "375M", "1.5 billion" in English, "3억 7,500만", "120억" in
#: Korean (만 only with a thousands separator, after 억 or before 개: "2만큼" is no count).  Each is
#: compared as the number it names, so a translation may say 375M in Korean units.
_EN_MAGNITUDE = re.compile(
    r"(?<![\w.,])(\d+(?:\.\d+)?)\s?(K|M|B|thousand|million|billion)(?![A-Za-z0-9])"
)
_KO_MAGNITUDE = re.compile(
    r"(?<![\d.,])(?:(\d[\d,]*(?:\.\d+)?)\s?억(?:\s?(\d{1,3}(?:,\d{3})*)만)?"
    r"|(\d{1,3}(?:,\d{3})+|\d+(?=만\s?개))만)"
)
_SHARED_SCALE = re.compile(
    r"(?<![\w.,])(\d+(?:\.\d+)?)( (?:and|or|to) )(\d+(?:\.\d+)?)(\s?)"
    r"(thousand|million|billion)\b"
)
_SCALE = {"K": 3, "thousand": 3, "M": 6, "million": 6, "B": 9, "billion": 9}


def _counts(text: str) -> str:
    """``text`` with every count that has a magnitude written as the integer it names."""

    def number(digits: str | None) -> Decimal:
        return Decimal(digits.replace(",", "")) if digits else Decimal(0)

    def english(m: re.Match[str]) -> str:
        return str(int(number(m[1]) * 10 ** _SCALE[m[2]]))

    def korean(m: re.Match[str]) -> str:
        value = number(m[1]) * 10**8 + number(m[2] or m[3]) * 10**4
        return str(int(value))

    text = _SHARED_SCALE.sub(r"\1\4\5\2\3\4\5", text)  # "12 and 55 billion"
    return _KO_MAGNITUDE.sub(korean, _EN_MAGNITUDE.sub(english, text))


_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”')
_EMPHASIS = re.compile(r"(?<![*_\\])(\*{1,3}|_{1,3})(?![*_])")
_PUNCT = re.compile(r"[!-/:-@\[-`{-~]")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")


def kept_spans(text: str) -> dict[str, list[str]]:
    """The spans of a message a translation must keep: ``math``, ``role`` (``{name}`target```
    for a role with a title), ``code`` (inline code, and dotted or snake_case names outside
    backticks), and ``number`` (digits outside those; a count with a magnitude, 375M or
    3억 7,500만, as the integer it names).
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

    rest = myst.MATH.sub(math, rest)

    def code(m: re.Match[str]) -> str:
        found["code"].append(m.group(0))
        return " "

    rest = myst.INLINE_CODE.sub(code, rest)
    rest = IDENT.sub(code, rest)  # a dotted or snake_case name outside backticks
    found["number"] = _NUMBER.findall(_counts(rest))
    return {k: sorted(v) for k, v in found.items()}


def _stuck_emphasis(text: str) -> list[tuple[str, str]]:
    """Closing ``*``/``**`` runs that Markdown cannot close: after punctuation and before
    Hangul (``**위젯(widget)**으로``).  Runs alternate open/close per delimiter kind."""
    text = myst.INLINE_CODE.sub("``", myst.MATH.sub("$$", text))
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
            r"[A-Za-z]{2,}",
            IDENT.sub(" ", myst.INLINE_CODE.sub(" ", myst.MATH.sub(" ", text))),
        )
        is not None
    )


# -- Glossary -------------------------------------------------------------------------------------

GLOSSARY = LOCALES / LANGUAGE / "glossary.yml"
#: The glossary's key whose value lists the words the book does not use (:func:`load_avoided`).
AVOID = "avoid"


def _pairs(path: Path) -> list[tuple[Any, Any]]:
    """The glossary's top-level ``key: value`` pairs in the order written (a mapping below
    is a list of pairs too)."""
    import yaml

    def pairs(loader: Any, node: Any) -> list[tuple[Any, Any]]:
        return loader.construct_pairs(node)

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, pairs)
    return yaml.load(path.read_text(encoding="utf-8"), Loader=Loader) or []


def glossary_terms(path: Path = GLOSSARY) -> list[tuple[str, str]]:
    """The glossary's terms as ``(English, Korean)``, the English as the entry's first
    spelling is written (``KV cache``), in the order of the file: the term index's rows."""
    return [
        (str(key).split("|")[0].strip(), korean)
        for key, korean in _pairs(path)
        if key != AVOID
    ]


def load_glossary(path: Path = GLOSSARY) -> dict[str, str]:
    """English spelling (lower case) -> Korean term.  Raises ``ValueError`` for a spelling
    listed twice, a Korean term given to two entries, or an entry with two Korean terms."""
    terms: dict[str, str] = {}
    owner: dict[str, str] = {}
    for key, korean in _pairs(path):
        if key == AVOID:
            continue
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


@dataclass(frozen=True)
class Avoided:
    """A word the Korean edition does not use: ``pattern`` finds it, ``use`` is what the
    book says instead, and a message that ``unless`` finds is an exception."""

    pattern: re.Pattern[str]
    use: str
    unless: re.Pattern[str] | None = None


def load_avoided(path: Path = GLOSSARY) -> list[Avoided]:
    """The glossary's ``avoid`` entries.  Raises ``ValueError`` for a key that is no regular
    expression or an entry without the word to use."""
    found = []
    for key, value in _pairs(path):
        if key != AVOID:
            continue
        for word, use in value or []:
            unless = None
            if isinstance(use, list):  # a mapping: use and unless
                options = dict(use)
                use, unless = options.get("use"), options.get("unless")
            if not isinstance(use, str) or not use.strip():
                raise ValueError(
                    f"{path.name}: avoid: {word!r} must name the word used instead"
                )
            try:
                found.append(
                    Avoided(
                        re.compile(str(word)),
                        use,
                        re.compile(str(unless)) if unless else None,
                    )
                )
            except re.error as exc:
                raise ValueError(
                    f"{path.name}: avoid: {word!r} is no regular expression: {exc}"
                ) from None
    return found


def avoided_problems(msgstr: str, avoided: list[Avoided]) -> list[str]:
    """The avoided words that ``msgstr`` uses outside its math, roles and inline code."""
    text = myst.ROLE.sub(
        lambda m: myst.explicit(m["text"])[0] or " ", myst.MATH.sub(" ", msgstr)
    )
    text = myst.INLINE_CODE.sub(" ", text)
    problems = []
    for a in avoided:
        m = a.pattern.search(text)
        if m and not (a.unless and a.unless.search(text)):
            problems.append(f"{m.group(0)!r}: the book says {a.use!r}")
    return problems


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
    text = IDENT.sub(" ", myst.INLINE_CODE.sub(" ", myst.MATH.sub(" ", text)))
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


# -- register and printed errors ------------------------------------------------------------

#: How a chapter's Korean introduction ends before its list of objectives.
OBJECTIVES_LEAD = "다음을 할 수 있다."
_CAN = re.compile(r"수 있다\.?$")


def objective_problems(entries: list[tuple[str, str]]) -> list[str]:
    """The objectives of one chapter (``entries``: its ``(msgid, msgstr)`` in order) that do
    not end in the register of the others: the lead-in says "이 장을 마치면 다음을 할 수
    있다." once, and each objective says what the reader does ("…한다."), not again what
    they can do ("…할 수 있다.").  The objectives are the list items (English starting in
    lower case) right after the lead-in."""
    problems = []
    after = False
    for msgid, msgstr in entries:
        if msgstr.rstrip().endswith(OBJECTIVES_LEAD):
            after = True
            continue
        if not after:
            continue
        if not msgid[:1].islower():
            break
        if _CAN.search(msgstr.rstrip()):
            problems.append(f"{msgid[:40]!r}: ends '…수 있다', not '…한다'")
    return problems


#: The book's error messages: ``argument: expected …, got …`` (bad input names the argument).
_ERROR = re.compile(r"(?<![\w.])[A-Za-z_][\w.]*: expected .*")


def error_message_problems(msgid: str, msgstr: str) -> list[str]:
    """An error message that a printed line quotes stays in English, as the code raises it
    (the intro says so once): its text from the argument's name on must be in ``msgstr``."""
    m = _ERROR.search(msgid)
    if m and m.group(0) not in msgstr:
        return [f"error message translated: keep {m.group(0)[:50]!r} as printed"]
    return []
