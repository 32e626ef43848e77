"""Korean glosses: the English term in parentheses after its Korean term, once in the book.

A *gloss* is ``층(layer)``: a Korean word followed at once by its English term in
parentheses.  The policy (CONTRIBUTING.md, *Korean glosses*) is a Korean textbook's (the
Korean d2l, Hanbit's titles): a term's English is given **once in the book**, at the term's
**first Korean use** in reading order (the pages of ``_toc.yml``, each page's messages in the
order of its source), and the term index of appendix A (용어 대조표, from
``locales/ko/glossary.yml``) has them all.  Never

* a **pure transliteration** (토큰(token), 어텐션(attention), 멀티 헤드 어텐션): the reader
  reads the English off the Hangul (:data:`TRANSLITERATED`, :func:`is_transliteration`);
* **before a verb ending** (훈련(training)한다, 정규화(normalization)된): the gloss splits a
  verb; the term is glossed where it stands as a noun;
* in a **heading or a box title**, in **alt text** or a paragraph that is a slide's **speaker
  notes** (both read aloud), or in what cells print (figures, widgets, quizzes);
* **next to or inside another parenthesis**, for a **basic word** (:data:`NEVER_GLOSS`), or
  **inflected** (``훈련(trained)``).

:func:`gloss_problems` lists what breaks the policy in the book (its pages as :class:`Page`),
:func:`reduce_glosses` applies it (idempotent): a gloss that breaks it is dropped, and a
glossary term glossed anywhere gets its one gloss at its first Korean use.

    python -m booktools glosses check    # the problems of the book's catalogues
    python -m booktools glosses fix      # apply the policy to them
    python -m booktools glosses count    # glosses and ")(" in the catalogues and built pages

What is a gloss: the English is words of letters (hyphens, apostrophes and blanks between; two
letters at least), all lower case, or a glossary term spelled as the glossary spells it (``KV
cache``, ``Jacobian``).  A capitalized name (``Softmax`` for the source's box of that name,
``OneHot``, ``GPT``), a function's name (``erf``) and a one-letter variable are no gloss.
Math, inline code, roles and link targets are never searched.  Removing a gloss removes the
parentheses and the English only: the Korean term stays, so the glossary check of
tests/test_i18n.py still holds, and a particle after the parentheses attaches to the Korean
word (``입력(input)의`` -> ``입력의``).
"""

from __future__ import annotations

import difflib
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import yaml

from booktools import i18n, myst
from booktools.build.lecture import pieces
from booktools.build.toc import toc_files
from booktools.i18n.catalogues import CATALOGUES, LANGUAGE
from booktools.i18n.checks import GLOSSARY, load_glossary
from booktools.i18n.outputs import OUTPUTS
from booktools.paths import ROOT

__all__ = [
    "NEVER_GLOSS",
    "NAMES",
    "TRANSLITERATED",
    "INFLECTIONS",
    "VERB_ENDING",
    "CHAPTER_CATALOGUES",
    "Gloss",
    "Page",
    "find_glosses",
    "is_gloss",
    "is_transliteration",
    "term_key",
    "uninflected",
    "title_ids",
    "alt_texts",
    "slide_notes",
    "read_page",
    "book_pages",
    "gloss_problems",
    "reduce_glosses",
    "fix_book",
    "output_glosses",
    "html_text",
    "double_parentheses",
    "main",
]

#: Basic words that are never glossed.  A Korean graduate reader knows 입력, 출력, 행렬, 벡터,
#: 함수, 값 … as well as their English: the English adds nothing but noise.  The book's own
#: furniture (정의, 연습문제, 출처, 오류, 위젯) is on the list for the same reason.  Terms in
#: their canonical form (:func:`term_key`).
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

#: Lower-case names that stand in parentheses as names, not as glosses: ``정확한(erf) GELU``.
NAMES = frozenset({"erf", "tanh"})

#: Korean words that spell an English word in Hangul.  A gloss whose Korean term is made of
#: these (and Latin letters) only is a pure transliteration, never glossed: 토큰(token),
#: 멀티 헤드 어텐션(multi-head attention), KV 캐시(KV cache).  A term with one word of Korean
#: meaning is glossed once (교차 엔트로피(cross-entropy), 위치 임베딩(position embedding)).
#: :func:`is_transliteration` also catches a word missing here by its sound.
TRANSLITERATED = frozenset(
    "토큰 토큰화 토크나이저 어텐션 임베딩 인코딩 트랜스포머 디코더 인코더 셀프 멀티 헤드 "
    "쿼리 키 피드포워드 마스크 패딩 게이트 드롭아웃 레이아웃 시퀀스 세그먼트 텐서 배치 "
    "엔트로피 소프트맥스 로짓 샘플링 퍼플렉서티 옵티마이저 에포크 체크포인트 캐시 "
    "하이퍼파라미터 원-핫 원 핫 스킵 워밍업 스트림 커널 벡터 노이즈 노트북 위젯 머신러닝 "
    "로그 코사인 사인 바이트 스케일된 뉴클리어스 언임베딩 브로드캐스트 브로드캐스팅 "
    "바이어스 그래디언트 모델 레이어 벤치마크 파이프라인 컨테이너".split()
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

#: What makes a noun a verb or another word right after it: 하다 (한다, 하는, 해서, 했다), 되다
#: (된다, 된, 될, 됐다, 돼), 시키다, and the suffixes 성 (볼록성), 적 (확률적), 화 (토큰화).
#: A gloss there splits the word: 훈련(training)한다, 볼록(convex)성.
VERB_ENDING = re.compile(r"[하한할함합해했되된될됨됐돼성적화]|시[키킨킬켜켰]")

CHAPTER_CATALOGUES = CATALOGUES / "chapters"

_HANGUL = "\uac00-\ud7a3"
_ENGLISH = r"(?P<english>[A-Za-z](?:[A-Za-z' -]*[A-Za-z])?)(?:, (?P<rest>[^()]+))?"
_GLOSS = re.compile(rf"(?P<korean>[{_HANGUL}]+)(?P<stars>\*{{0,3}})\({_ENGLISH}\)")
_PARENTHESIZED = re.compile(rf"\({_ENGLISH}\)")
#: An abbreviation in parentheses after a term: 바이트 쌍 인코딩(BPE).
_ABBREVIATION = re.compile(r"\((?P<abbr>[A-Z][A-Za-z0-9]{1,7})\)")
_LOWER = re.compile(r"[a-z][a-z'-]*[a-z](?: [a-z][a-z'-]*)*")
_LINK_TARGET = re.compile(r"\]\([^()\s]*\)")
_NOT_PLURAL = re.compile(r"(?:ss|us|is|as|ics|ous|ias)$")
#: Past participles and -ed adjectives; "embed", "speed", "need" are not.
_PARTICIPLE = re.compile(r"(?<!e)(?<!emb)ed$")
_MASK = "\x00"
_QUOTED = re.compile(r"‘[^’]*’")
_IRREGULAR = {"matrices": "matrix", "indices": "index", "vertices": "vertex"}
_NUMBERED = re.compile(r"(?:^|/)\d\d_\w+$")


@dataclass(frozen=True)
class Gloss:
    """One gloss of a message: ``msgstr[start:end]`` is ``(english)``, after ``korean``."""

    korean: str
    english: str
    start: int
    end: int
    depth: int  # parentheses open around it (0: none)
    next_paren: bool  # a parenthesis or a chapter reference follows at once
    verb: bool = False  # a verb ending follows at once (훈련(training)한다)
    #: what follows the English in its parentheses, kept when the gloss goes:
    #: ``BPE`` of ``(byte-pair encoding, BPE)``
    rest: str = ""


@dataclass(frozen=True)
class Page:
    """One page of the book as the gloss policy reads it: its ``name`` (``chapters/09_masks``),
    its translated messages ``(msgid, msgstr)`` in the page's order, the msgids that are
    headings or box titles, and the msgids read aloud: alt texts and slide notes."""

    name: str
    entries: list[tuple[str, str]]
    titles: frozenset[str] = field(default_factory=frozenset)
    silent: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        if isinstance(self.entries, (str, bytes)) or not all(
            isinstance(e, tuple)
            and len(e) == 2
            and isinstance(e[0], str)
            and isinstance(e[1], str)
            for e in self.entries
        ):
            raise TypeError(
                f"entries of page {self.name!r} must be (msgid, msgstr) pairs of str"
            )


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
        if isinstance(raw[key], str)
        for s in str(key).split("|")
        if s.strip() != s.strip().lower()
    )
    return head, {h: terms[h] for h in head.values()}, cased


@cache
def _korean_terms() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Every Korean term of the glossary with the pattern of its uses, longest first (so
    "층 정규화" is one term, not 층 and 정규화): not inside a longer Hangul word on the left
    (출력층 is no use of 층); a particle may follow."""
    koreans = sorted(set(_glossary()[1].values()), key=len, reverse=True)
    return tuple(
        (
            k,
            re.compile(
                rf"(?<![{_HANGUL}])" + r"\s+".join(re.escape(w) for w in k.split())
            ),
        )
        for k in koreans
    )


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
    ``OneHot``, ``Softmax``, ``erf``) nor a one-letter variable."""
    if english in NAMES:
        return False
    return bool(_LOWER.fullmatch(english)) or english in _glossary()[2]


def _depths(text: str) -> list[int]:
    depth_at = []
    depth = 0
    for ch in text:
        depth_at.append(depth)
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
    return depth_at


def _chapter_ref(after: str) -> bool:
    """Whether ``after`` starts with a chapter reference ({doc} without a title), which
    renders as ``15장(BERT와 RoBERTa)``: a parenthesis."""
    role = myst.ROLE.match(after)
    return (
        role is not None
        and role["name"] == "doc"
        and myst.explicit(role["text"])[1] == role["text"]
    )


def find_glosses(msgstr: str) -> list[Gloss]:
    """The glosses of ``msgstr`` in order, outside math, inline code, roles and link targets."""
    if not isinstance(msgstr, str):
        raise TypeError(f"msgstr must be a str, got {type(msgstr).__name__}")
    text = _masked(msgstr)
    depth_at = _depths(text)
    found = []
    for m in _GLOSS.finditer(text):
        if not is_gloss(m["english"]):
            continue
        start, end = m.start("english") - 1, m.end()
        after = msgstr[end:]
        found.append(
            Gloss(
                korean=m["korean"],
                english=m["english"],
                start=start,
                end=end,
                depth=depth_at[start],
                next_paren=after.startswith("(") or _chapter_ref(after),
                verb=bool(VERB_ENDING.match(after)),
                rest=msgstr[m.start("rest") : m.end("rest")] if m["rest"] else "",
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


def _glossary_korean(key: str) -> str | None:
    """The glossary's Korean term for term ``key`` (:func:`term_key`), if it has one."""
    head, korean, _ = _glossary()
    for spelling, first in head.items():
        if first.replace("-", " ") == key:
            return korean[first]
    return None


def _glossary_term(korean: str) -> str:
    """The term (:func:`term_key`) whose Korean is ``korean``, a glossary term."""
    head, terms, _ = _glossary()
    return next(h for h, k in terms.items() if k == korean).replace("-", " ")


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


# -- transliterations -----------------------------------------------------------------------

#: Consonant classes of Hangul's initial (19) and final (28) consonants, and of English
#: spellings: K (k g c q), T (t d), P (p b f v), S (s z j ch sh ts), L (l r), M, N (n ng), H.
_INITIAL = "K K N T T L M P P S S _ S S S K T P H".split()
_FINAL = "_ K K K N N N T L K M L L L P L M P P T T N T T K T P T".split()
_ENGLISH_SOUNDS = [
    (r"tion|sion|ssion", "SN"),
    (r"ph", "P"),
    (r"th", "T"),
    (r"sh|ch|tch", "S"),
    (r"ck|qu", "K"),
    (r"x", "KS"),
    (r"ng", "N"),
    (r"c(?=[eiy])", "S"),
    (r"c|q", "K"),
    (r"g(?=[eiy])", "S"),
    (r"g", "K"),
    (r"j|z", "S"),
    (r"d", "T"),
    (r"b|f|v", "P"),
    (r"r", "L"),
    (r"w|y|h", ""),
]


def _hangul_sounds(word: str) -> str:
    out = []
    for ch in word:
        code = ord(ch) - 0xAC00
        if 0 <= code < 11172:
            out += [_INITIAL[code // 588], _FINAL[code % 28]]
        elif ch.isascii() and ch.isalpha():
            out.append(ch.upper())
    return re.sub(r"(.)\1+", r"\1", "".join(out).replace("_", "").replace("H", ""))


def _english_sounds(word: str) -> str:
    w = re.sub(r"e\b", "", word.lower())
    for spelling, sound in _ENGLISH_SOUNDS:
        w = re.sub(spelling, sound, w)
    w = re.sub(r"[aeiou\W_\d]", "", w).upper()
    return re.sub(r"(.)\1+", r"\1", w)


def _sounds_alike(korean_word: str, english: str) -> bool:
    """Whether ``korean_word`` spells one of the words of ``english`` in Hangul: their
    consonants (by class, vowels dropped) start alike and agree to 85 %, two at least."""
    k = _hangul_sounds(korean_word)
    if len(k) < 2:
        return False
    for word in re.split(r"[\s-]+", english):
        e = _english_sounds(word)
        if len(e) >= 2 and k[0] == e[0]:
            if difflib.SequenceMatcher(None, k, e).ratio() >= 0.85:
                return True
    return False


def is_transliteration(korean: str, english: str) -> bool:
    """Whether the Korean term ``korean`` only spells ``english`` in Hangul: each of its words
    is in :data:`TRANSLITERATED`, is Latin letters (``KV``), or sounds like an English word of
    ``english``.  (토큰 token, 멀티 헤드 어텐션 multi-head attention: yes; 층 layer, 교차
    엔트로피 cross-entropy: no.)"""
    if not isinstance(korean, str) or not korean.strip():
        raise ValueError(f"korean must be a non-empty term, got {korean!r}")
    words = [w for w in re.split(r"\s+", korean.strip()) if w]
    return all(
        w in TRANSLITERATED
        or w.replace("-", "") in TRANSLITERATED
        or re.fullmatch(r"[A-Za-z0-9-]+", w)
        or _sounds_alike(w, english)
        for w in words
    )


# -- the pages of the book ------------------------------------------------------------------


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


def _one_line(text: str) -> str:
    return " ".join(text.split())


def alt_texts(source: str) -> set[str]:
    """The alt texts and captions of the figures a chapter's code cells make (``mystnb:
    image: alt:``, ``figure: caption:``), on one line each as the catalogue has them."""
    found = set()
    lines = source.split("\n")
    for block in myst.blocks(lines, strict=False):
        content = block.content
        if block.name != "code-cell" or not content or content[0].strip() != "---":
            continue
        end = next(
            (j for j in range(1, len(content)) if content[j].strip() == "---"), 0
        )
        try:
            header = yaml.safe_load("\n".join(content[1:end])) or {}
        except yaml.YAMLError:
            continue
        nb = header.get("mystnb") if isinstance(header, dict) else None
        for part, key in (("image", "alt"), ("figure", "caption")):
            value = (nb or {}).get(part, {}) if isinstance(nb, dict) else {}
            if isinstance(value, dict) and isinstance(value.get(key), str):
                found.add(_one_line(value[key]))
    return found


def slide_notes(name: str, source: str) -> set[str]:
    """The paragraphs of chapter ``name`` that its slide deck shows as speaker notes (only
    numbered chapters have decks), on one line each."""
    if not _NUMBERED.search(name):
        return set()
    return {_one_line(p.notes) for p in pieces(source) if p.notes}


def _read(po: Path) -> Any:
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        return read_po(f, locale=LANGUAGE)


def _in_page_order(msgids: Sequence[str], source: str) -> list[int]:
    """The indices of ``msgids`` in the order their text appears in ``source`` (a message
    not found keeps its place after the one before it)."""
    flat = _one_line(source)
    keyed = []
    last = -1
    for i, msgid in enumerate(msgids):
        bare = _one_line(myst.OPEN_PREFIX.sub("", msgid)).strip("()")
        at = -1
        for size in (60, 25):
            if len(bare) >= 8:
                at = flat.find(bare[:size])
                if at >= 0:
                    break
        last = at if at >= 0 else last
        keyed.append((last, i))
    return [i for _, i in sorted(keyed)]


def read_page(name: str, po: Path, root: Path = ROOT) -> Page:
    """Page ``name`` (a docname of ``_toc.yml``) read from catalogue ``po`` and its source."""
    if not po.is_file():
        raise FileNotFoundError(f"po: no catalogue at {po}")
    catalog = _read(po)
    messages = [m for m in catalog if m.id and isinstance(m.string, str) and m.string]
    source_file = root / f"{name}.md"
    source = source_file.read_text(encoding="utf-8") if source_file.is_file() else ""
    order = _in_page_order([m.id for m in messages], source)
    messages = [messages[i] for i in order]
    silent = alt_texts(source) | slide_notes(name, source)
    toc = root / "_toc.yml"
    captions = set(
        re.findall(r"caption:\s*(.+?)\s*$", toc.read_text(encoding="utf-8"), re.M)
        if toc.is_file()
        else ()
    )
    return Page(
        name=name,
        entries=[(m.id, m.string) for m in messages],
        titles=frozenset(
            title_ids(messages, root) | (captions & {m.id for m in messages})
        ),
        silent=frozenset(m.id for m in messages if _one_line(m.id) in silent),
    )


def book_pages(root: Path = ROOT, catalogues: Path = CATALOGUES) -> list[Page]:
    """Every page of ``_toc.yml`` that has a catalogue, in reading order."""
    return [
        read_page(name, catalogues / f"{name}.po", root)
        for name in toc_files(root)
        if (catalogues / f"{name}.po").is_file()
    ]


# -- the policy ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Use:
    """Where a glossary term is used: page ``page``, message ``message``, its Korean at
    ``start`` (in the msgstr); ``end`` is where a gloss would go (after emphasis marks)."""

    page: int
    message: int
    start: int
    end: int


def _term_uses(msgstr: str) -> list[tuple[str, int, int, int]]:
    """The uses of glossary terms in ``msgstr`` (prose only): ``(korean, start, end, gloss
    at)``, longest terms first claiming their text, in order.  A word in single quotes is
    mentioned, not used (the intro's ‘모형’)."""
    text = _QUOTED.sub(lambda m: _MASK * len(m.group(0)), _masked(msgstr))
    taken = [False] * len(text)
    found = []
    for korean, pattern in _korean_terms():
        for m in pattern.finditer(text):
            if any(taken[m.start() : m.end()]):
                continue
            for j in range(m.start(), m.end()):
                taken[j] = True
            at = m.end()
            while at < len(text) and text[at] == "*" and at - m.end() < 3:
                at += 1
            found.append((korean, m.start(), m.end(), at))
    return sorted(found, key=lambda u: u[1])


def _abbreviates(abbr: str, english: str) -> bool:
    """Whether ``abbr`` is made of the initials of ``english`` (BPE, byte-pair encoding)."""
    initials = "".join(w[0] for w in re.split(r"[\s-]+", english) if w)
    return abbr.lower() == initials.lower()


def _glossable(
    msgstr: str, depth_at: list[int], start: int, at: int, english: str
) -> bool:
    """Whether a gloss of ``english`` may stand at ``at`` after a term starting at
    ``start``: outside parentheses, no verb ending and no other parenthesis or chapter
    reference after it (its own gloss may be there, or its abbreviation, which the gloss
    joins: 바이트 쌍 인코딩(byte-pair encoding, BPE))."""
    after = msgstr[at:]
    own = _PARENTHESIZED.match(after)
    abbr = _ABBREVIATION.match(after)
    if own is not None and is_gloss(own["english"]):
        after = after[own.end() :]
    elif abbr is not None and _abbreviates(abbr["abbr"], english):
        after = after[abbr.end() :]
    return not (
        depth_at[start]
        or VERB_ENDING.match(after)
        or _chapter_ref(after)
        or after.startswith("(")
    )


def _first_uses(pages: Sequence[Page]) -> dict[str, _Use]:
    """Each glossary term's first use in the book where a gloss may stand: in reading order,
    outside headings, titles, alt texts and slide notes."""
    first: dict[str, _Use] = {}
    for p, page in enumerate(pages):
        for i, (msgid, msgstr) in enumerate(page.entries):
            if msgid in page.titles or msgid in page.silent:
                continue
            depth_at = _depths(_masked(msgstr))
            for korean, start, _, at in _term_uses(msgstr):
                english = _glossary_term(korean)
                if korean not in first and _glossable(
                    msgstr, depth_at, start, at, english
                ):
                    first[korean] = _Use(p, i, start, at)
    return first


@dataclass(frozen=True)
class _Found:
    page: int
    message: int
    gloss: Gloss
    key: str
    english: str  # uninflected ("" if it has none)
    korean: str | None  # the glossary term it follows, if any
    why: str  # what is wrong with it wherever it is ("" if nothing)


def _judge(page: Page, msgid: str, msgstr: str, g: Gloss) -> tuple[str, str, str]:
    """(key, uninflected English, what is wrong with gloss ``g`` in itself or its place)."""
    key = term_key(g.english)
    fixed = uninflected(g.english)
    english = g.english if fixed is None else fixed
    if msgid in page.titles:
        why = "in a heading or a box title"
    elif msgid in page.silent:
        why = "in alt text or slide notes (read aloud)"
    elif g.depth:
        why = "inside another parenthesis (a gloss inside a gloss)"
    elif g.next_paren:
        why = "next to another parenthesis: ')('"
    elif g.verb:
        why = f"before a verb ending ({msgstr[g.end : g.end + 2]!r})"
    elif fixed is not None:
        why = f"inflected: {g.english!r} is not the term's form"
        if fixed:
            why += f" ({fixed!r})"
    else:
        why = ""
    return key, english, why


def _unwanted(key: str, korean: str, english: str) -> str:
    """Why term ``key`` is never glossed ("" if it may be)."""
    if key in NEVER_GLOSS:
        return f"a basic word, never glossed ({key!r})"
    if not english:
        return "inflected, with no uninflected term"
    if is_transliteration(korean, english):
        return f"a transliteration: {korean} reads as {english!r} already"
    return ""


def _plan(
    pages: Sequence[Page],
) -> tuple[list[_Found], dict[str, tuple[int, int, int, str]]]:
    """Every gloss of the book, and where each term's one gloss goes: key -> (page,
    message, position in the msgstr, English)."""
    found: list[_Found] = []
    for p, page in enumerate(pages):
        for i, (msgid, msgstr) in enumerate(page.entries):
            uses = {at: korean for korean, _, _, at in _term_uses(msgstr)}
            for g in find_glosses(msgstr):
                key, english, why = _judge(page, msgid, msgstr, g)
                korean = uses.get(g.start)
                if korean is not None and _glossary_korean(key) != korean:
                    term = _glossary_term(korean)
                    if _glossary_korean(key) is None and set(key.split()) <= set(
                        term.split()
                    ):  # 신경망(network) is 신경망(neural network)
                        key = term
                    else:  # 가중치(attention weights) after 가중치 alone; 오류(error)
                        korean = None
                found.append(_Found(p, i, g, key, english, korean, why))
    first = _first_uses(pages)
    target: dict[str, tuple[int, int, int, str]] = {}
    for f in found:
        if f.key in target:
            continue
        korean = f.korean or _glossary_korean(f.key)
        if _unwanted(f.key, korean or f.gloss.korean, f.english):
            continue
        if korean is not None and korean in first:
            use = first[korean]
            target[f.key] = (use.page, use.message, use.end, f.english)
        elif not f.why and f.korean is None:
            target[f.key] = (f.page, f.message, f.gloss.start, f.english)
    return found, target


def _where(pages: Sequence[Page], page: int, message: int) -> str:
    return f"{pages[page].name.rsplit('/', 1)[-1]} {pages[page].entries[message][0][:30]!r}"


def gloss_problems(pages: Sequence[Page]) -> list[str]:
    """What breaks the gloss policy in the book whose pages are ``pages`` (in reading order):
    one readable line per gloss that is (a) a basic word, (b) a pure transliteration, (c) in
    a heading, a box title, alt text or slide notes, (d) inside or next to another
    parenthesis, (e) before a verb ending, (f) inflected, (g) a repeat of a term glossed
    before in the book, or (h) not at the term's first Korean use."""
    pages = _pages(pages)
    found, target = _plan(pages)
    problems = []
    glossed: dict[str, tuple[int, int]] = {}
    for f in found:
        page = pages[f.page]
        where = f"{page.name.rsplit('/', 1)[-1]}: {page.entries[f.message][0][:40]!r}"
        what = f"{f.gloss.korean}({f.gloss.english})"
        korean = f.korean or _glossary_korean(f.key) or f.gloss.korean
        why = _unwanted(f.key, korean, f.english) or f.why
        goal = target.get(f.key)
        here = (f.page, f.message, f.gloss.start)
        if not why and f.key in glossed:
            why = f"{f.key!r} already glossed in {_where(pages, *glossed[f.key])}"
        elif not why and goal is not None and goal[:3] != here:
            why = (
                f"not at the first Korean use of {korean}, in "
                f"{_where(pages, goal[0], goal[1])}"
            )
        if why:
            problems.append(f"{where}: {what}: {why}")
        elif f.key not in glossed:
            glossed[f.key] = (f.page, f.message)
    return problems


def _pages(pages: Any) -> list[Page]:
    if isinstance(pages, (str, bytes, Page)) or not all(
        isinstance(p, Page) for p in pages
    ):
        raise TypeError("pages must be a sequence of Page, in reading order")
    return list(pages)


def reduce_glosses(pages: Sequence[Page]) -> list[list[str]]:
    """The msgstrs of every page under the policy: every gloss removed (the Korean stays),
    then each term's one gloss put at its first Korean use.  Idempotent."""
    pages = _pages(pages)
    found, target = _plan(pages)
    cuts: dict[tuple[int, int], dict[int, tuple[int, str]]] = {}
    for f in found:  # every gloss goes; what else its parentheses held stays
        rest = f"({f.gloss.rest})" if f.gloss.rest else ""
        cuts.setdefault((f.page, f.message), {})[f.gloss.start] = (f.gloss.end, rest)
    for p, i, at, english in target.values():
        here = cuts.setdefault((p, i), {})
        msgstr = pages[p].entries[i][1]
        abbr = _ABBREVIATION.match(msgstr[at:])
        if at in here:  # where a gloss was: the same parentheses
            end, rest = here[at]
            here[at] = (end, f"({english}, {rest[1:-1]})" if rest else f"({english})")
        elif abbr is not None and _abbreviates(abbr["abbr"], english):
            here[at] = (at + abbr.end(), f"({english}, {abbr['abbr']})")
        else:
            here[at] = (at, f"({english})")
    out = []
    for p, page in enumerate(pages):
        strings = []
        for i, (_, msgstr) in enumerate(page.entries):
            for start, (end, text) in sorted(
                cuts.get((p, i), {}).items(), reverse=True
            ):
                msgstr = msgstr[:start] + text + msgstr[end:]
            strings.append(msgstr)
        out.append(strings)
    return out


def _write(po: Path, catalog: Any) -> None:
    """Write ``catalog`` as booktools.i18n writes catalogues (one line per message)."""
    from babel.messages.pofile import write_po

    for message in catalog:
        message.flags -= {"python-format", "python-brace-format"}
    tmp = po.with_suffix(".po.tmp")
    with tmp.open("wb") as f:
        write_po(f, catalog, width=0, include_previous=True, sort_output=False)
    tmp.replace(po)


def book_changes(
    root: Path = ROOT, catalogues: Path = CATALOGUES
) -> dict[Path, dict[str, tuple[str, str]]]:
    """What the policy changes in the book's catalogues: catalogue -> msgid -> (msgstr now,
    msgstr under the policy)."""
    pages = book_pages(root, catalogues)
    changes: dict[Path, dict[str, tuple[str, str]]] = {}
    for page, strings in zip(pages, reduce_glosses(pages)):
        for (msgid, old), new in zip(page.entries, strings):
            if new != old:
                po = catalogues / f"{page.name}.po"
                changes.setdefault(po, {})[msgid] = (old, new)
    return changes


def fix_book(root: Path = ROOT, catalogues: Path = CATALOGUES) -> int:
    """Apply the policy to the book's catalogues in place; the number of messages changed."""
    changes = book_changes(root, catalogues)
    for po, changed in changes.items():
        catalog = _read(po)
        for message in catalog:
            if message.id in changed:
                message.string = changed[message.id][1]
        _write(po, catalog)
    return sum(len(c) for c in changes.values())


def output_glosses(outputs: Path = OUTPUTS) -> list[str]:
    """The glosses in what cells print (printed lines, figures, widgets, quizzes: read aloud
    or printed, never glossed), one line each."""
    found = []
    for po in sorted(outputs.rglob("*.po")):
        for m in _read(po):
            if m.id and isinstance(m.string, str):
                for g in find_glosses(m.string):
                    found.append(
                        f"{po.stem}: {m.id[:40]!r}: {g.korean}({g.english}): in an output"
                    )
    return found


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
    for page in book_pages(root):
        for _, msgstr in page.entries:
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
    """``check`` (exit 1 on a problem), ``fix`` or ``count``, for the book's catalogues."""
    args = sys.argv[1:] if argv is None else argv
    if args not in (["check"], ["fix"], ["count"]):
        print("usage: python -m booktools glosses check|fix|count", file=sys.stderr)
        return 2
    if args == ["count"]:
        print("\n".join(_counts()))
        return 0
    if args == ["fix"]:
        print(f"glosses: {fix_book()} messages changed")
        return 0
    problems = gloss_problems(book_pages()) + output_glosses()
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
