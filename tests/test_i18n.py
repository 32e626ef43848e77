"""The Korean edition: catalogues complete and faithful, glossary kept, the Korean
build warning-free, the language switch on every page of both books.

The catalogues are ``locales/ko/LC_MESSAGES/<page>.po`` (``make po`` updates them from the
English; booktools/i18n/__init__.py).  ``test_every_message_translated`` fails until the translators
have finished: it lists what is left per catalogue.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath

import pytest
from _chapters import ROOT
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from booktools import i18n
from booktools.build.toc import toc_files
from booktools.i18n import catalogues, checks, columns, outputs
from booktools.sphinx.i18n import switch_href

CATALOGUES = sorted(catalogues.CATALOGUES.rglob("*.po"))
HTML = ROOT / "_build" / "html"


def _name(po: Path) -> str:
    return po.relative_to(catalogues.CATALOGUES).with_suffix("").as_posix()


def _messages(po: Path) -> list:
    with po.open("rb") as f:
        return [m for m in read_po(f, locale=catalogues.LANGUAGE) if m.id]


def test_one_catalogue_per_page() -> None:
    """Every page of the table of contents has its catalogue (``make po`` writes them)."""
    names = {_name(po) for po in CATALOGUES}
    assert [p for p in toc_files() if p not in names] == [], "run `make po`"


# -- (a) complete -----------------------------------------------------------------------------


@pytest.mark.parametrize("po", CATALOGUES, ids=_name)
def test_every_message_translated(po: Path) -> None:
    """No message untranslated, none fuzzy (a fuzzy one is shown in English by Sphinx)."""
    msgs = _messages(po)
    todo = [m.id[:60] for m in msgs if not m.string]
    fuzzy = [m.id[:60] for m in msgs if m.fuzzy]
    assert not todo and not fuzzy, (
        f"{_name(po)}: {len(todo)} of {len(msgs)} untranslated, "
        f"{len(fuzzy)} fuzzy; first: {(todo + fuzzy)[:3]}"
    )


# -- (b) faithful: math, roles, labels, numbers and code unchanged ---------------------------


def _po_with(tmp_path: Path, pairs: list[tuple[str, str]]) -> Path:
    """A small PO file on disk, written as the pipeline writes the real ones."""
    cat = Catalog(locale="ko")
    for msgid, msgstr in pairs:
        cat.add(msgid, msgstr)
    path = tmp_path / "synthetic.po"
    with path.open("wb") as f:
        write_po(f, cat, width=0)
    return path


def _faithfulness(po: Path) -> list[str]:
    return [
        f"{_name(po) if po.is_relative_to(catalogues.CATALOGUES) else po.name}: {m.id[:50]!r}: {p}"
        for m in _messages(po)
        if m.string and not m.fuzzy
        for p in checks.message_problems(m.id, m.string)
    ]


ENGLISH = (
    "By {prf:ref}`def-08-attention`, the {doc}`errata appendix <appendix_b_errata>` "
    "and {numref}`fig-mask`, $\\text{softmax}(z)_i$ sums to 1 over 50,257 tokens "
    "(`n_vocab`), {math}`V` of them."
)
KOREAN = (
    "{prf:ref}`def-08-attention`와 {doc}`정오표 부록 <appendix_b_errata>`, "
    "{numref}`fig-mask`에 따르면 $\\text{softmax}(z)_i$의 합은 50,257개 토큰"
    "(`n_vocab`), 즉 {math}`V`개에 대해 1이다."
)


@pytest.mark.parametrize(
    "wrong, expected",
    [
        (KOREAN.replace("50,257", "50,256"), "number missing or changed: ['50,257']"),
        (KOREAN.replace("{prf:ref}`def-08-attention`와 ", ""), "role differs"),
        (KOREAN.replace("appendix_b_errata", "appendix_a_notation"), "role differs"),
        (KOREAN.replace("(z)_i", "(z)_j"), "math differs"),
        (KOREAN.replace("`n_vocab`", "n_vocab"), "code differs"),
    ],
)
def test_faithfulness_check_fails_on_a_changed_message(
    tmp_path: Path, wrong: str, expected: str
) -> None:
    """The check passes the faithful translation (whose link title is Korean) and names what
    a wrong one changed: a number, a dropped {prf:ref}, a link target, math, code."""
    assert _faithfulness(_po_with(tmp_path, [(ENGLISH, KOREAN)])) == []
    problems = _faithfulness(_po_with(tmp_path, [(ENGLISH, wrong)]))
    assert len(problems) == 1 and expected in problems[0], problems


def test_faithfulness_check_fails_on_bold_that_markdown_cannot_close(
    tmp_path: Path,
) -> None:
    """ "**위젯(widget)**으로" shows its asterisks (a closing ** after punctuation and before
    Hangul is no closer in CommonMark; seen in the first Korean intro); "**위젯**(widget)으로"
    and "(**정의**)" are bold."""
    english = "a **figure or widget** and a **definition**"
    assert (
        _faithfulness(_po_with(tmp_path, [(english, "**위젯**(widget)과 (**정의**)")]))
        == []
    )
    problems = _faithfulness(
        _po_with(tmp_path, [(english, "**위젯(widget)**과 (**정의**)")])
    )
    assert len(problems) == 1 and "emphasis not closed" in problems[0], problems


@pytest.mark.parametrize("po", CATALOGUES, ids=_name)
def test_translations_keep_math_roles_numbers_and_code(po: Path) -> None:
    assert _faithfulness(po) == []


# -- (c) glossary -----------------------------------------------------------------------------


def test_glossary_one_korean_term_per_english_term(tmp_path: Path) -> None:
    terms = checks.load_glossary()
    assert terms["transformer"] == "트랜스포머" and terms["pre-trained"] == "사전 훈련"
    for text, error in [
        ("decoder: 디코더\ndecoder: 복호기\n", "listed twice"),
        ("decoder: 디코더\nencoder: 디코더\n", "translates both"),
        ("decoder: 디코더, 복호기\n", "one Korean term"),
    ]:
        bad = tmp_path / "glossary.yml"
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(ValueError, match=error):
            checks.load_glossary(bad)


def test_glossary_check_fails_on_a_second_translation() -> None:
    terms = checks.load_glossary()
    english = "Gradient descent trains the decoder's weights (`model.decoder`, $W$)."
    assert (
        checks.glossary_problems(
            english, "경사 하강법이 디코더의 가중치를 훈련한다.", terms
        )
        == []
    )
    assert checks.glossary_problems(
        english, "경사 하강법이 복호기의 가중치를 훈련한다.", terms
    ) == ["'decoder' is not translated as '디코더'"]
    assert checks.glossary_problems(
        english, "기울기 하강이 디코더의 가중치를 훈련한다.", terms
    ) == ["'gradient descent' is not translated as '경사 하강법'"]


@pytest.mark.parametrize("po", CATALOGUES, ids=_name)
def test_translations_use_the_glossary(po: Path) -> None:
    terms = checks.load_glossary()
    wrong = [
        f"{m.id[:50]!r}: {p}"
        for m in _messages(po)
        if m.string and not m.fuzzy
        for p in checks.glossary_problems(m.id, m.string, terms)
    ]
    assert wrong == []


#: Every catalogue, the pages' and the outputs' (printed lines, figures, widgets, quizzes).
ALL_CATALOGUES = CATALOGUES + sorted(outputs.OUTPUTS.rglob("*.po"))


def _all_name(po: Path) -> str:
    return po.relative_to(catalogues.CATALOGUES.parent).with_suffix("").as_posix()


@pytest.mark.parametrize("po", ALL_CATALOGUES, ids=_all_name)
def test_translations_avoid_the_words_the_book_does_not_use(po: Path) -> None:
    """One word per concept: no Korean message uses a word of the glossary's ``avoid``."""
    avoided = checks.load_avoided()
    wrong = [
        f"{m.id[:50]!r}: {p}"
        for m in _messages(po)
        if m.string and not m.fuzzy
        for p in checks.avoided_problems(m.string, avoided)
    ]
    assert wrong == []


#: One sentence for each variant the review of the Korean edition listed, and the word the
#: glossary's ``avoid`` section answers it with.
VARIANTS = [
    ("GPT-2의 헤드 폭 D로 나눈 값", "너비"),
    ("모형 폭이 768이다", "너비"),
    ("입력 원소 하나(x)가 바뀔 때", "성분"),
    ("버려진 원소: 3개 중 1개", "성분"),
    ("Mask^AR (조밀)", "밀집"),
    ("각 근사의 오차(로그 척도)", "로그 눈금"),
    ("eps(로그 스케일)의 슬라이더", "로그 눈금"),
    ("묶인 출력 행렬", "공유된"),
    ("임베딩과 출력 층을 포함한 블록", "출력층"),
    ("은닉 층 X_1..X_L", "은닉층"),
    ("헤드 나누기와 합치기", "병합"),
    ("수학은 1부터 세고", "수식"),
    ("순방향 훅으로 중간 텐서를 붙잡는다", "순전파"),
    ("인코딩(rotary, ALiBi)", "회전 위치 임베딩"),
    ("모든 접두사에 대한 최대 차이", "접두부"),
    ("마스크를 씌운 버전도 마찬가지다", "마스크된 셀프 어텐션"),
    ("마스크가 있는 셀프 어텐션에 대해", "마스크된 셀프 어텐션"),
    ("시퀀스별인 마스크 셀프 어텐션 뒤에서는", "마스크된 셀프 어텐션"),
    ("이 책의 문자로 옮긴다", "기호"),
    ("토큰 12B개와 55B개", "Korean units (만, 억)"),
    ("V·H는 약 0.6십억이다", "Korean units (만, 억)"),
    ('"dog"는 "AJ\'s dog is a cutie"에서', "‘…’"),
    ("약 1.4 % 작게 나온다", "%"),
    ("매개변수는 몇 백만 개인가?", "백만 단위로"),
    ("이 모델은", "모형"),
]


@pytest.mark.parametrize("text, use", VARIANTS, ids=[t for t, _ in VARIANTS])
def test_every_listed_variant_is_caught(text: str, use: str) -> None:
    problems = checks.avoided_problems(text, checks.load_avoided())
    assert any(f"the book says {use!r}" in p for p in problems), problems


def test_the_words_the_book_uses_are_not_caught() -> None:
    avoided = checks.load_avoided()
    for text in (
        "원소별 연산, 폭발하는 기울기, 진폭, 보폭 패턴",
        "위치들의 튜플은 그 집합의 원소다",  # an element of a set
        "GPT-3 175B, 매개변수 3억 5,500만 개",  # a model's name; Korean units
        "‘dog’와 “Add & Norm”, 서로 다른 문자, 문자 단위 토크나이저",
        "$x_{\\text{폭}}$, `원소`",  # math and code are not searched
        "*model*은 모델 대신 모형으로 옮겼다",  # the preface that says why
    ):
        assert checks.avoided_problems(text, avoided) == [], text


def test_the_avoid_list_is_refused_when_malformed(tmp_path: Path) -> None:
    for text, error in [
        ("avoid:\n  '(폭': 너비\n", "no regular expression"),
        ("avoid:\n  폭:\n    unless: 집합\n", "must name the word"),
    ]:
        bad = tmp_path / "glossary.yml"
        bad.write_text("width: 너비\n" + text, encoding="utf-8")
        with pytest.raises(ValueError, match=error):
            checks.load_avoided(bad)
    assert "avoid" not in checks.load_glossary()  # the section is no term


def test_counts_in_korean_units_keep_their_number() -> None:
    english = "GPT-3 warms up over the first 375M tokens (12 and 55 billion; 1.56B)."
    korean = "GPT-3는 처음 토큰 3억 7,500만 개에 걸쳐 (각각 120억 개와 550억 개, 15억 6,000만 개)"
    assert checks.message_problems(english, korean) == []
    wrong = korean.replace("3억 7,500만", "3억 7,000만")
    assert checks.message_problems(english, wrong) == [
        "number missing or changed: ['375000000']"
    ]
    # a particle after a number is no unit: 2만큼 is "by 2"
    assert checks.message_problems("moves by 2", "2만큼 움직인다") == []


@pytest.mark.parametrize("po", CATALOGUES, ids=_name)
def test_objectives_end_in_one_register(po: Path) -> None:
    entries = [(m.id, m.string) for m in _messages(po) if m.string]
    assert checks.objective_problems(entries) == []


def test_the_objectives_check_fails_on_a_second_register() -> None:
    entries = [
        ("By the end you will be able to", f"이 장을 마치면 {checks.OBJECTIVES_LEAD}"),
        ("read the box,", "상자를 읽는다."),
        ("compute it.", "계산할 수 있다."),
        ("Exercises", "연습문제 … 계산할 수 있다."),  # past the list
    ]
    problems = checks.objective_problems(entries)
    assert len(problems) == 1 and "compute it" in problems[0]


@pytest.mark.parametrize(
    "po", sorted(outputs.OUTPUTS.rglob("*.po")), ids=lambda p: p.stem
)
def test_printed_error_messages_stay_in_english(po: Path) -> None:
    wrong = [
        f"{m.id[:50]!r}: {p}"
        for m in _messages(po)
        if m.string
        for p in checks.error_message_problems(m.id, m.string)
    ]
    assert wrong == []


def test_the_error_message_check_fails_on_a_translated_message() -> None:
    msgid = "fg.softmax refuses: X: expected values below +inf, got +inf at index (0,)"
    kept = (
        "fg.softmax는 거부한다: X: expected values below +inf, got +inf at index (0,)"
    )
    assert checks.error_message_problems(msgid, kept) == []
    translated = "fg.softmax는 거부한다: X: 값은 +inf보다 작아야 하는데 인덱스 (0,)의 값이 +inf이다"
    assert len(checks.error_message_problems(msgid, translated)) == 1


# -- update keeps translations and marks changed messages -------------------------------------


def test_update_marks_a_changed_message_fuzzy_with_the_previous_english(
    tmp_path: Path,
) -> None:
    """What a translator sees after the English changed: the old translation kept, marked
    ``#, fuzzy``, with the previous English as ``#| msgid``; a new message empty."""
    pots, pos = tmp_path / "pot", tmp_path / "po"
    (pots / "chapters").mkdir(parents=True)

    def template(*ids: str) -> None:
        cat = Catalog()
        for msgid in ids:
            cat.add(msgid)
        with (pots / "chapters" / "x.pot").open("wb") as f:
            write_po(f, cat)

    template("The decoder masks the future.", "Exercises")
    assert i18n.update_catalogues(pots, pos) == {"chapters/x": "new"}
    po = pos / "chapters" / "x.po"
    text = po.read_text(encoding="utf-8").replace(
        'msgid "The decoder masks the future."\nmsgstr ""',
        'msgid "The decoder masks the future."\nmsgstr "디코더는 미래를 가린다."',
    )
    po.write_text(text, encoding="utf-8")
    template("The decoder masks every future token.", "Exercises", "Solutions")
    assert i18n.update_catalogues(pots, pos) == {"chapters/x": "updated"}
    text = po.read_text(encoding="utf-8")
    assert (
        '#, fuzzy\n#| msgid "The decoder masks the future."\n'
        'msgid "The decoder masks every future token."\nmsgstr "디코더는 미래를 가린다."'
        in text
    ), text
    assert 'msgid "Solutions"\nmsgstr ""' in text


# -- (d) the Korean book builds warning-free; (e) language switch both ways ------------------


@pytest.fixture(scope="module")
def korean_book() -> Path:
    """The Korean book that ``make book`` built at _build/html/ko with ``-n -W`` from the
    execution cache (``booktools i18n build``), read instead of built again: its build left
    :data:`booktools.i18n.WARNING_FREE` only if no page it read, nor any page read since the
    last failed build, gave a warning (a failed build drops its environment, so the next one
    reads every page again; ``test_a_failed_build_is_read_again_in_full``)."""
    stamp = i18n.KO_HTML / i18n.WARNING_FREE
    if not stamp.is_file():
        pytest.fail(
            f"no Korean book built warning-free at {i18n.KO_HTML}: run `make book`",
            pytrace=False,
        )
    sources = [*CATALOGUES, *sorted((ROOT / "chapters").glob("*.md"))]
    built = stamp.stat().st_mtime
    newer = [p.name for p in sources if p.stat().st_mtime > built]
    if newer:
        pytest.fail(
            f"the Korean book is older than {newer[:5]}: run `make book`", pytrace=False
        )
    return i18n.KO_HTML


@pytest.mark.slow  # needs the built book
def test_korean_build_is_warning_free(korean_book: Path) -> None:
    assert (korean_book / "chapters" / "intro.html").is_file()


@pytest.mark.parametrize("result", [0, 1])
def test_a_failed_build_is_read_again_in_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, result: int
) -> None:
    """A strict build that fails leaves no stamp and drops its environment (the pages that
    warned are read again next time); one that succeeds leaves the stamp."""
    import jupyter_book.sphinx

    out, doctrees = tmp_path / "html", tmp_path / "doctrees"
    for folder in (out, doctrees):
        folder.mkdir()
    (out / i18n.WARNING_FREE).write_text("from an earlier build")
    (doctrees / "environment.pickle").write_bytes(b"pages read")
    monkeypatch.setattr(jupyter_book.sphinx, "build_sphinx", lambda *a, **k: result)
    if result:
        with pytest.raises(SystemExit, match="the html build failed"):
            i18n.build_html(out, doctrees=doctrees)
    else:
        i18n.build_html(out, doctrees=doctrees)
    assert (out / i18n.WARNING_FREE).is_file() == (not result)
    assert (doctrees / "environment.pickle").is_file() == (not result)


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.lang: str | None = None
        self.switch: list[dict[str, str | None]] = []
        self.css: list[str] = []
        self._in_switch = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "html":
            self.lang = a.get("lang")
        elif tag == "nav" and "formulated-lang-switch" in (a.get("class") or ""):
            self._in_switch = True
        elif tag == "a" and self._in_switch:
            self.switch.append(a)
        elif tag == "link" and a.get("rel") == "stylesheet":
            self.css.append(a.get("href") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "nav":
            self._in_switch = False


def _page(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


@pytest.mark.slow
@pytest.mark.parametrize("name", toc_files())
def test_language_switch_both_ways(korean_book: Path, name: str) -> None:
    """The English page links to the same page under ko/, the Korean page back; both exist;
    the Korean page says lang="ko" and loads the Korean typography, the English one not."""
    for page_path, lang, other in [
        (HTML / f"{name}.html", "en", korean_book / f"{name}.html"),
        (korean_book / f"{name}.html", "ko", HTML / f"{name}.html"),
    ]:
        page = _page(page_path)
        assert page.lang == lang, f"{page_path}: <html lang={page.lang!r}>"
        assert len(page.switch) == 1, (
            f"{page_path}: {len(page.switch)} language switches"
        )
        link = page.switch[0]
        target = (page_path.parent / str(link["href"])).resolve()
        assert target == other.resolve() and target.is_file(), (page_path, link["href"])
        assert link["hreflang"] == ("ko" if lang == "en" else "en")
        assert any(h.split("?")[0].endswith("i18n/ko.css") for h in page.css) == (
            lang == "ko"
        )


@pytest.mark.parametrize("bad", ["", "/chapters/intro", "chapters\\intro"])
def test_switch_href_refuses_a_bad_pagename(bad: str) -> None:
    with pytest.raises(ValueError, match="pagename"):
        switch_href(bad, "en")


def test_switch_href() -> None:
    assert switch_href("chapters/intro", "en") == "../ko/chapters/intro.html"
    assert switch_href("chapters/intro", "ko") == "../../chapters/intro.html"
    assert switch_href("index", None) == "ko/index.html"
    assert switch_href("index", "ko") == "../index.html"
    # resolving each link from its page lands on the same page in the other book
    for name in ("index", "chapters/intro"):
        en = PurePosixPath(name + ".html")
        ko = PurePosixPath("ko") / en
        assert _norm(en.parent / switch_href(name, "en")) == str(ko)
        assert _norm(ko.parent / switch_href(name, "ko")) == str(en)


def _norm(p: PurePosixPath) -> str:
    parts: list[str] = []
    for part in p.parts:
        if part == "..":
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def test_korean_stylesheet_breaks_lines_between_words() -> None:
    css = (ROOT / "chapters" / "_static_assets" / "i18n" / "ko.css").read_text(
        encoding="utf-8"
    )
    assert re.search(r"word-break:\s*keep-all", css)
    assert "Noto Sans CJK KR" in css and "http" not in css  # installed fonts, no CDN


# -- Outputs (printed lines, widget labels, figure texts): locales/ko/LC_MESSAGES/outputs/ -----

OUTPUT_CATALOGUES = sorted(outputs.OUTPUTS.rglob("*.po"))


def _output_name(po: Path) -> str:
    return po.relative_to(outputs.OUTPUTS).with_suffix("").as_posix()


@pytest.mark.parametrize("po", OUTPUT_CATALOGUES, ids=_output_name)
def test_every_output_message_translated(po: Path) -> None:
    """No printed line, widget label or figure text left in English or fuzzy (a model's
    sample or a code repr is "translated" as itself)."""
    msgs = _messages(po)
    todo = [m.id[:60] for m in msgs if not m.string or m.fuzzy]
    assert not todo, (
        f"{_output_name(po)}: {len(todo)} of {len(msgs)} to do; first: {todo[:3]}"
    )


@pytest.mark.parametrize("po", OUTPUT_CATALOGUES, ids=_output_name)
def test_output_translations_keep_placeholders(po: Path) -> None:
    """Each ``{n}`` of an output message (a printed value) is in its translation, no other:
    the Korean line shows the same numbers."""
    wrong = [
        f"{m.id[:60]!r}: {m.string[:60]!r}"
        for m in _messages(po)
        if m.string and outputs.placeholders(m.id) != outputs.placeholders(m.string)
    ]
    assert wrong == []


def test_output_placeholder_check_fails_on_a_dropped_value() -> None:
    msgid, values = outputs.output_template(
        "beta =    1: weights [0.2 0.5]  output 26.3582"
    )
    assert (msgid, values) == (
        "beta = {0}: weights {1}  output {2}",
        ["   1", "[0.2 0.5]", "26.3582"],
    )
    assert outputs.placeholders(
        "beta = {0}: 가중치 {1}  출력 {2}"
    ) == outputs.placeholders(msgid)
    assert outputs.placeholders("beta = {0}: 가중치 {1}  출력") != outputs.placeholders(
        msgid
    )
    assert (
        outputs.output_fill("beta = {0}: 가중치 {1}  출력 {2}", values)
        == "beta =    1: 가중치 [0.2 0.5]  출력 26.3582"
    )
    with pytest.raises(ValueError, match="placeholder"):
        outputs.output_fill("{3}", values)


def _stream_blocks(page: Path) -> list[str]:
    import html

    text = page.read_text(encoding="utf-8")
    blocks = re.findall(
        r'<div class="output stream[^"]*"><div class="highlight"><pre>'
        r"(?:<span></span>)?(.*?)</pre>",
        text,
        re.S,
    )
    return [html.unescape(block) for block in blocks]


def _stream_lines(page: Path) -> list[str]:
    return [line for block in _stream_blocks(page) for line in block.split("\n")]


def _numbers(line: str) -> list[str]:
    return re.findall(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?", line)


def test_korean_page_prints_korean_lines_with_the_same_numbers() -> None:
    """Chapter 8 in the built books: every printed line is the catalogue's translation of the
    English line with the same values, and the lines with words are Korean."""
    name = "chapters/08_attention"
    en, ko = HTML / f"{name}.html", i18n.KO_HTML / f"{name}.html"
    if not (en.is_file() and ko.is_file()):
        pytest.fail("no books at _build/html: run `make book` first", pytrace=False)
    table = outputs.output_table(outputs.OUTPUTS / f"{name}.po")
    english, korean = _stream_lines(en), _stream_lines(ko)
    assert len(english) == len(korean) > 20
    for e, k in zip(english, korean):
        assert _numbers(k) == _numbers(e), (e, k)
    # each output line by line, its columns lined up by display width
    for e, k in zip(_stream_blocks(en), _stream_blocks(ko)):
        assert k == columns.translate_lines(e, table), (e, k)
    assert "beta =    1: 가중치 [0.2119 0.5761 0.2119]   출력 26.3582" in korean
    assert sum(1 for k in korean if re.search("[\uac00-\ud7a3]", k)) >= 15


def test_korean_search_strips_particles() -> None:
    """트랜스포머의 is found by 트랜스포머 (Sphinx has no Korean search language); the page's
    JavaScript stemmer strips the same particles."""
    from booktools.sphinx.korean_search import PARTICLES, SearchKorean

    search = SearchKorean({})
    assert search.stem("트랜스포머의") == "트랜스포머"
    assert search.stem("어텐션에서") == "어텐션" and search.stem("가중치를") == "가중치"
    assert (
        search.stem("모델") == "모델" and search.stem("이") == "이"
    )  # no stem left: kept
    assert search.stem("Transformers") == "transform"  # English as in the English book
    assert all(f'"{p}"' in search.js_stemmer_code for p in PARTICLES)


def test_a_directive_title_is_checked_without_its_fence() -> None:
    # A dropdown's title comes with its fence; the fence is markup, and the Korean is the title
    # alone (Sphinx parses it as a paragraph): only `000` is kept, not "`{dropdown} The …`".
    english = "````{dropdown} The ledger of `000`: The Formulated GPT-2 (first version)"
    assert checks.kept_spans(english)["code"] == ["`000`"]
    assert (
        checks.message_problems(
            english, "`000`의 점검 대장: The Formulated GPT-2 (첫 판)"
        )
        == []
    )
    assert (
        checks.message_problems(english, "점검 대장: The Formulated GPT-2 (첫 판)")
        != []
    )


# -- Printed columns by display width -----------------------------------------------------------


def columns_of(lines: list[str], char: str) -> list[int]:
    """The display column of the first ``char`` of each line (a Hangul syllable: two)."""
    from booktools.i18n.columns import display_width

    return [display_width(line[: line.index(char)]) for line in lines]


def test_translated_output_lines_up_by_display_width() -> None:
    """Chapter 8's aligned lines with Hangul labels: the catalogue pads in characters, as if a
    Hangul syllable were one column, so the ``:`` no longer lines up in a monospace font with
    CJK glyphs two columns wide; translate_lines lines them up again, on a label wider than
    the English too (the line that was not translated moves with its column), keeps a table
    with one-blank rows and a right-aligned label as they are meant, and the values as
    printed; a line with no translation and English without one are untouched."""
    from booktools.i18n.columns import display_width

    assert display_width("가중치 ŷ") == 8  # Wide: 2; the hat of y + U+0302: 0
    # chapter 18, its catalogue as it is: "훈련 전 모형, 검증 분할   = {0}" pads in characters
    english = [
        "ln V                        = 4.1744",
        "untrained model, val split  = 4.1639",
        "unigram (letter counts)     = 3.3473",
    ]
    table = outputs.output_table(outputs.OUTPUTS / "chapters" / "18_train_tiny_gpt.po")
    before = [outputs.translate_output(line, table) for line in english]
    assert before[1].startswith("훈련") and len(set(columns_of(before, "="))) > 1
    after = columns.translate_lines("\n".join(english), table).split("\n")
    assert columns_of(after, "=") == [28] * 3 and after[0] == english[0]
    assert [line.split("= ")[1] for line in after] == ["4.1744", "4.1639", "3.3473"]
    # labels padded in characters, one wider than the English column: the column moves in
    # every line, the line that has no translation too
    english = [
        "exact weights : [0.0634 0.4683 0.4683]",
        "closed form   : 0.06337893833303762 (first weight)",
        "slide         : [0.  0.5 0.5]",
        "torch.softmax : [0.0634 0.4683 0.4683]",
    ]
    table = {
        "exact weights : {0}": "정확하게 계산한 가중치 : {0}",
        "closed form   : {0} (first weight)": "닫힌 형태         : {0} (첫 가중치)",
        "slide         : {0}": "슬라이드          : {0}",
    }
    before = [outputs.translate_output(line, table) for line in english]
    assert columns_of(before, ":") == [23, 18, 18, 14]  # 14 characters, 18 columns
    after = columns.translate_lines("\n".join(english), table).split("\n")
    assert columns_of(after, ":") == [23] * 4
    assert after[3].startswith("torch.softmax          : [0.0634")
    assert after[2].endswith(": [0.  0.5 0.5]")
    # right-aligned labels stay right-aligned (chapter 12)
    right = [
        "   plain: max |chain rule - torch.autograd| = 2.0e-24",
        "residual: max |chain rule - torch.autograd| = 1.1e-14",
    ]
    labels = {
        "plain: max |chain rule - torch.autograd| = {0}": "일반:   max |연쇄 법칙 - torch.autograd| = {0}",
        "residual: max |chain rule - torch.autograd| = {0}": "잔차 연결: max |연쇄 법칙 - torch.autograd| = {0}",
    }
    lined = columns.translate_lines("\n".join(right), labels).split("\n")
    assert columns_of(lined, ":") == [9, 9] and columns_of(lined, "=") == [44, 44]
    assert lined[0] == "     일반: max |연쇄 법칙 - torch.autograd| = 2.0e-24"
    # a table keeps its columns where the English has them (one row reaches a column with
    # one blank: "attn_weights (2, 3, 5, 5)")
    rows = [
        "ours                        shape         GPT-2        shape",
        "LayerNorm 1                 (2, 5, 12)    ln_1         (2, 5, 12)",
        "attention weights           (2, 3, 5, 5)  attn_weights (2, 3, 5, 5)",
    ]
    header = {
        "ours                        shape         GPT-{0}        shape": "우리 것                     형상          GPT-{0}        형상",
        "attention weights           ({0})  attn_weights ({1})": "어텐션 가중치               ({0})  attn_weights ({1})",
    }
    done = columns.translate_lines("\n".join(rows), header).split("\n")
    assert done[0] == "우리 것                     형상          GPT-2        형상"
    assert done[1] == rows[1] and done[2].endswith("  attn_weights (2, 3, 5, 5)")
    assert columns_of(done[1:], "(") == [28, 28] and columns_of(done[:1], "G") == [42]
    assert columns.translate_lines("\n".join(english), {}) == "\n".join(english)
    assert columns.translate_lines("", table) == ""


def test_a_progress_bar_status_is_left_as_printed() -> None:
    """tqdm's status glues its rate to its unit ("1.73step/s"), so its template would change
    with every run; it has no words to translate and is neither extracted nor translated."""
    from booktools.i18n.outputs import html_fragments, output_template, translate_output

    status = "300/300 [02:53<00:00,  1.73step/s, loss=1.91, tok_s=2345, val=2.01]"
    assert html_fragments(f"<div>{status.replace('<', '&lt;')}</div>") == []
    table = {output_template(status)[0]: "바뀐 줄"}
    assert translate_output(status, table) == status
    assert html_fragments("<div>training done: 300 steps</div>") != []


def test_a_quizs_pdf_line_is_a_message_of_the_outputs_catalogue() -> None:
    """A quiz shows one line of text/plain in the PDF; the Korean PDF translates it like a
    printed line (booktools.sphinx.i18n.TranslatePrinted), so it must be extracted."""
    from booktools.i18n.outputs import notebook_fragments
    from formulated.quizzes import quiz

    shown = quiz("ch08")
    output = {
        "output_type": "execute_result",
        "data": {"text/html": shown._repr_html_(), "text/plain": repr(shown)},
    }
    msgids = [m for m, _ in notebook_fragments({"cells": [{"outputs": [output]}]})]
    assert any(m.startswith("Check your understanding: {0} questions") for m in msgids)
