"""The Korean gloss policy: a term's English once in the book, at its first Korean use; never a
pure transliteration, never before a verb ending, never in a heading, a box title, alt text,
slide notes or an output (booktools/i18n/glosses.py; CONTRIBUTING.md, *Korean glosses*)."""

from __future__ import annotations

from pathlib import Path

import pytest

from booktools.i18n import checks, glosses
from booktools.i18n.glosses import Page

#: The most glosses the Korean chapter pages may carry together.
MOST_GLOSSES = 150


@pytest.fixture(scope="module")
def book() -> list[Page]:
    return glosses.book_pages()


def test_the_book_keeps_the_gloss_policy(book: list[Page]) -> None:
    problems = glosses.gloss_problems(book) + glosses.output_glosses()
    assert problems == [], (
        f"{len(problems)} glosses break the policy (`python -m booktools glosses fix`):\n"
        + "\n".join(problems[:40])
    )


def test_the_book_has_few_glosses(book: list[Page]) -> None:
    count = sum(len(glosses.find_glosses(s)) for page in book for _, s in page.entries)
    assert 0 < count <= MOST_GLOSSES, count
    assert (
        book[0].name == "chapters/intro" and len(book) > 20
    )  # the whole book, in order


def _page(name: str, *msgstrs: str, **kinds: tuple[str, ...]) -> Page:
    """A page whose messages are ``msgstrs`` (msgid = msgstr); ``titles=`` and ``silent=``
    name the messages that are titles or read aloud."""
    return Page(
        name,
        [(s, s) for s in msgstrs],
        frozenset(kinds.get("titles", ())),
        frozenset(kinds.get("silent", ())),
    )


def _problems(*pages: Page) -> list[str]:
    return glosses.gloss_problems(list(pages))


def test_find_glosses_skips_math_code_roles_and_names() -> None:
    found = glosses.find_glosses(
        "어텐션(attention)은 $f(x)$와 `g(x)`와 {doc}`08_attention`과 "
        "소프트맥스(Softmax) 상자와 원-핫(OneHot)과 GPT(BERT), **위젯**(widget)으로, "
        "KV 캐시(KV cache), `토큰(token)`, $\\text{점수}(q)$, 하나(x), 정확한(erf) GELU, "
        "인코딩(byte-pair encoding, BPE)"
    )
    assert [(g.korean, g.english, g.rest) for g in found] == [
        ("어텐션", "attention", ""),
        ("위젯", "widget", ""),
        ("캐시", "KV cache", ""),
        ("인코딩", "byte-pair encoding", "BPE"),
    ]
    assert [g.depth for g in found] == [0, 0, 0, 0]


def test_a_first_gloss_at_the_first_use_is_fine() -> None:
    assert (
        _problems(_page("a", "모형(model)은 층(layer)을 쌓는다.", "모형은 크다.")) == []
    )


def test_a_repeat_anywhere_in_the_book_is_reported() -> None:
    problems = _problems(
        _page("a", "모형(model)은 크다."), _page("b", "모형(model)은 작다.")
    )
    assert len(problems) == 1 and "already glossed in a" in problems[0]
    # a plural or inflected form is the same term
    problems = _problems(_page("a", "쿼리 사영(projection)", "사영(projections)"))
    assert len(problems) == 1


def test_a_gloss_not_at_the_first_korean_use_is_reported_and_moved() -> None:
    pages = [_page("a", "층을 쌓는다."), _page("b", "층(layer)은 행렬 곱이다.")]
    problems = _problems(*pages)
    assert (
        len(problems) == 1 and "not at the first Korean use of 층, in a" in problems[0]
    )
    assert glosses.reduce_glosses(pages) == [
        ["층(layer)을 쌓는다."],
        ["층은 행렬 곱이다."],
    ]
    # a longer term is another term: 출력층 and 층 정규화 are no use of 층
    later = [_page("a", "출력층과 층 정규화"), _page("b", "층(layer)은 곱이다.")]
    assert _problems(*later) == []


def test_a_transliteration_is_reported() -> None:
    for text in (
        "토큰(token)",
        "멀티 헤드 어텐션(multi-head attention)",
        "KV 캐시(KV cache)",
        "스칼라(scalar)",  # not listed: caught by its sound
        "프롬프트(prompt)",
    ):
        problems = _problems(_page("a", text))
        assert len(problems) == 1 and "transliteration" in problems[0], text
    for korean, english in (
        ("층", "layer"),
        ("교차 엔트로피", "cross-entropy"),
        ("편향", "bias"),
        ("훈련", "training"),
        ("은닉 상태", "hidden state"),
        ("역임베딩", "de-embedding"),
    ):
        assert not glosses.is_transliteration(korean, english), korean
    assert glosses.is_transliteration("토큰", "token")


def test_a_gloss_before_a_verb_ending_is_reported() -> None:
    for text in (
        "훈련(training)한다.",
        "정규화(normalization)된 입력",
        "볼록(convex)성",
    ):
        problems = _problems(_page("a", text))
        assert len(problems) == 1 and "verb ending" in problems[0], text
    # moved to where the term stands as a noun
    pages = [_page("a", "모형을 훈련(training)한다.", "훈련에는 시간이 든다.")]
    assert glosses.reduce_glosses(pages) == [
        ["모형을 훈련한다.", "훈련(training)에는 시간이 든다."]
    ]


def test_a_gloss_in_a_title_alt_text_or_notes_is_reported() -> None:
    problems = _problems(
        _page(
            "a",
            "정의: 층(layer)",
            "가중치(weight)가 보인다.",
            "손실(loss)을 줄인다.",
            titles=("정의: 층(layer)",),
            silent=("가중치(weight)가 보인다.", "손실(loss)을 줄인다."),
        )
    )
    assert len(problems) == 3
    assert "heading or a box title" in problems[0]
    assert all("alt text or slide notes" in p for p in problems[1:])


def test_a_gloss_next_to_or_inside_a_parenthesis_is_reported() -> None:
    for text in (
        "자기회귀(autoregressive)(GPT) 마스크",
        "편향(bias)({doc}`10_multi_head`)",
        "편향(bias){doc}`10_multi_head`",  # renders as 10장(멀티 헤드 어텐션)
        "GPT(생성형 사전 훈련(pre-training) 트랜스포머)",
    ):
        problems = _problems(_page("a", text))
        assert len(problems) == 1 and "parenthesis" in problems[0], text
    assert _problems(_page("a", "편향(bias) ({doc}`10_multi_head`)")) == []


def test_an_inflected_gloss_or_a_basic_word_is_reported() -> None:
    for english, fixed in (
        ("trained", "training"),
        ("projections", "projection"),
        ("hidden states", "hidden state"),
        ("pre-trained", "pre-training"),
    ):
        assert glosses.uninflected(english) == fixed
    problems = _problems(_page("a", "사영(projections)"))
    assert len(problems) == 1 and "inflected" in problems[0]
    for english in ("attention weights", "bias", "corpus", "self-supervised learning"):
        assert glosses.uninflected(english) is None, english
    for english in ("input", "matrix", "matrices"):
        problems = _problems(_page("a", f"단어({english})"))
        assert len(problems) == 1 and "basic word" in problems[0], english


def test_reduce_keeps_abbreviations_and_the_korean_and_is_idempotent() -> None:
    pages = [
        _page(
            "a",
            "연습문제(exercise)",
            "어텐션(attention)은 입력(input)의 점수(scores)를 본다.",
            "바이트 쌍 인코딩(BPE)은 병합한다.",
            titles=("연습문제(exercise)",),
        ),
        _page(
            "b",
            "바이트 쌍 인코딩(byte-pair encoding, BPE)",
            "순환 신경망(recurrent neural network, RNN)과 훈련(trained)",
        ),
    ]
    new = glosses.reduce_glosses(pages)
    assert new == [
        [
            "연습문제",
            "어텐션은 입력의 점수(score)를 본다.",
            "바이트 쌍 인코딩(byte-pair encoding, BPE)은 병합한다.",
        ],
        # the first use of 훈련 in the book: glossed there, uninflected
        [
            "바이트 쌍 인코딩(BPE)",
            "순환 신경망(recurrent neural network, RNN)과 훈련(training)",
        ],
    ]
    again = [
        Page(p.name, [(i, s) for (i, _), s in zip(p.entries, strings)], p.titles)
        for p, strings in zip(pages, new)
    ]
    assert glosses.reduce_glosses(again) == new  # idempotent
    assert glosses.gloss_problems(again) == []


def test_reduce_never_removes_a_glossary_term() -> None:
    terms = checks.load_glossary()
    msgid = "The attention of the decoder is masked."
    msgstr = "디코더(decoder)의 어텐션(attention)은 마스크(masked)된다."
    new = glosses.reduce_glosses([Page("a", [(msgid, msgstr)])])[0][0]
    assert new == "디코더의 어텐션은 마스크된다."
    assert checks.glossary_problems(msgid, new, terms) == []


SOURCE = """\
# Title

The first paragraph.

Notes of the slide: the paragraph above a definition.

```{prf:definition} A box
:label: def-xx

Body.
```

```{code-cell} python3
---
mystnb:
  image:
    alt: >-
      Two plots
      of a curve.
---
plot()
```
"""


def test_alt_texts_and_slide_notes_are_found() -> None:
    assert glosses.alt_texts(SOURCE) == {"Two plots of a curve."}
    notes = "Notes of the slide: the paragraph above a definition."
    assert glosses.slide_notes("chapters/01_x", SOURCE) == {notes}
    assert glosses.slide_notes("chapters/appendix_a_x", SOURCE) == set()  # no deck


def test_a_page_is_read_in_its_order_with_its_titles_and_silent_messages(
    book: list[Page],
) -> None:
    page = next(p for p in book if p.name == "chapters/09_masks")
    assert "Exercises" in page.titles
    assert (
        "(Masked scaled dot-product attention)" in page.titles
    )  # a definition's title
    assert any(t.startswith("Source erratum:") for t in page.titles)  # an admonition's
    assert not any(t.startswith("Attention lets every token") for t in page.titles)
    assert page.silent and all(i not in page.titles for i in page.silent)
    ids = [i for i, _ in page.entries]
    assert ids.index("Exercises") > ids.index("(Masked scaled dot-product attention)")


def test_bad_input_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="pages"):
        glosses.gloss_problems("어텐션(attention)")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="entries"):
        Page("a", ["어텐션(attention)"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="msgstr"):
        glosses.find_glosses(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="korean"):
        glosses.is_transliteration("", "token")
    with pytest.raises(FileNotFoundError, match="po"):
        glosses.read_page("chapters/x", tmp_path / "no" / "such.po")


def test_built_page_text_leaves_out_code_and_math_and_splits_blocks() -> None:
    html = (
        "<p>어텐션(attention)은 <code>f(x)(y)</code> "
        '<span class="math">\\(g(x)(y)\\)</span>를 본다.</p>'
        "<div>(B, n)</div><div>(n, H)</div>"
    )
    text = glosses.html_text(html)
    assert [g.english for g in glosses.find_glosses(text)] == ["attention"]
    assert (
        text.count(")(") == 0
    )  # neither the code, the math nor two boxes side by side
    assert glosses.double_parentheses("마스크(mask)(마스크)와 $f(x)(y)$") == 1
