"""The Korean gloss policy: the English term in parentheses only at a real technical
term's first use in a chapter, uninflected, never in a heading or box title, never next to or
inside another parenthesis (booktools/i18n/glosses.py; CONTRIBUTING.md, *Korean glosses*)."""

from __future__ import annotations

from pathlib import Path

import pytest

from booktools.i18n import checks, glosses

CATALOGUES = sorted(glosses.CHAPTER_CATALOGUES.glob("*.po"))


@pytest.mark.parametrize("po", CATALOGUES, ids=lambda p: p.stem)
def test_catalogue_keeps_the_gloss_policy(po: Path) -> None:
    problems = glosses.gloss_problems(*glosses.catalogue_entries(po))
    assert problems == [], (
        f"{len(problems)} glosses break the policy (`python -m booktools glosses fix`):\n"
        + "\n".join(problems[:40])
    )


def _problems(*msgstrs: str, titles: tuple[str, ...] = ()) -> list[str]:
    """The problems of a catalogue whose messages are ``msgstrs`` (msgid = msgstr)."""
    return glosses.gloss_problems([(s, s) for s in msgstrs], titles)


def test_find_glosses_skips_math_code_roles_and_names() -> None:
    found = glosses.find_glosses(
        "어텐션(attention)은 $f(x)$와 `g(x)`와 {doc}`08_attention`과 "
        "소프트맥스(Softmax) 상자와 원-핫(OneHot)과 GPT(BERT), **위젯**(widget)으로, "
        "KV 캐시(KV cache), `토큰(token)`, $\\text{점수}(q)$"
    )
    assert [(g.korean, g.english) for g in found] == [
        ("어텐션", "attention"),
        ("위젯", "widget"),
        ("캐시", "KV cache"),
    ]
    assert [g.depth for g in found] == [0, 0, 0]


def test_a_first_gloss_is_fine() -> None:
    assert _problems("어텐션(attention)은 토큰(token)을 본다.") == []


def test_a_repeated_gloss_is_reported() -> None:  # (a)
    problems = _problems("어텐션(attention)은 본다.", "어텐션(attention)은 다시 본다.")
    assert len(problems) == 1 and "already glossed" in problems[0]
    # the same term, plural or inflected, is the same term
    assert len(_problems("쿼리(query)가 있다.", "쿼리(queries)가 있다.")) == 1


def test_a_gloss_in_a_title_is_reported() -> None:  # (b)
    problems = _problems(
        "정의(definition): 마스크(mask)", titles=("정의(definition): 마스크(mask)",)
    )
    assert len(problems) == 2 and all("heading or a box title" in p for p in problems)
    assert _problems("마스크(mask)를 더한다") == []  # not a title: fine


def test_a_gloss_next_to_a_parenthesis_is_reported() -> None:  # (c)
    for text in (
        "자기회귀(autoregressive)(GPT) 마스크",
        "편향(bias)({doc}`10_multi_head`)",
    ):
        problems = _problems(text)
        assert len(problems) == 1 and "')('" in problems[0], text
    assert "')('" in _problems("편향(bias){doc}`10_multi_head`")[0]  # renders N장(제목)
    assert _problems("편향(bias) ({doc}`10_multi_head`)") == []


def test_an_inflected_gloss_is_reported() -> None:  # (d)
    for english, fixed in (
        ("trained", "training"),
        ("projections", "projection"),
        ("hidden states", "hidden state"),
        ("pre-trained", "pre-training"),
    ):
        problems = _problems(f"단어({english})")
        assert len(problems) == 1 and "inflected" in problems[0], english
        assert glosses.uninflected(english) == fixed
    # a glossary key that is plural, a noun ending in s, a compound with a participle: fine
    for english in ("attention weights", "bias", "corpus", "self-supervised learning"):
        assert glosses.uninflected(english) is None, english
    assert glosses.uninflected("masked") == "mask"


def test_a_basic_word_is_reported() -> None:  # (e)
    for english in ("input", "output", "matrix", "vector", "matrices"):
        problems = _problems(f"단어({english})")
        assert len(problems) == 1 and "basic word" in problems[0], english
    assert "input" in glosses.NEVER_GLOSS


def test_a_gloss_inside_a_gloss_is_reported() -> None:  # (f)
    text = "GPT(생성형 사전 훈련(pre-training) 트랜스포머(transformer))는 예측한다."
    problems = _problems(text)
    assert len(problems) == 2 and all(
        "inside another parenthesis" in p for p in problems
    )


def test_reduce_glosses_applies_the_policy_and_keeps_the_korean() -> None:
    entries = [
        ("Exercises", "연습문제(exercise)"),
        ("a", "어텐션(attention)은 입력(input)의 점수(scores)를 본다."),
        ("b", "어텐션(attention)과 양방향(bidirectional)(BERT) 마스크, 훈련(trained)"),
        ("c", "GPT(생성형 사전 훈련(pre-training) 트랜스포머(transformer))"),
    ]
    new = glosses.reduce_glosses(entries, titles={"Exercises"})
    assert new == [
        "연습문제",
        "어텐션(attention)은 입력의 점수(score)를 본다.",
        "어텐션과 양방향(BERT) 마스크, 훈련(training)",
        "GPT(생성형 사전 훈련 트랜스포머)",
    ]
    again = [(i, s) for (i, _), s in zip(entries, new)]
    assert glosses.reduce_glosses(again, titles={"Exercises"}) == new  # idempotent
    assert glosses.gloss_problems(again, {"Exercises"}) == []


def test_reduce_never_removes_a_glossary_term() -> None:
    terms = checks.load_glossary()
    msgid = "The attention of the decoder is masked."
    msgstr = "디코더(decoder)의 어텐션(attention)(attention)은 마스크(masked)된다."
    new = glosses.reduce_glosses([(msgid, msgstr)])[0]
    assert checks.glossary_problems(msgid, new, terms) == []


def test_titles_come_from_headings_and_directives() -> None:
    po = glosses.CHAPTER_CATALOGUES / "09_masks.po"
    entries, titles = glosses.catalogue_entries(po)
    assert "Exercises" in titles
    assert "(Masked scaled dot-product attention)" in titles  # a prf:definition's title
    assert any(t.startswith("Source erratum:") for t in titles)  # an admonition's
    assert not any(t.startswith("Attention lets every token") for t in titles)


def test_bad_input_is_refused() -> None:
    with pytest.raises(TypeError, match="entries"):
        glosses.gloss_problems("어텐션(attention)")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="msgstr"):
        glosses.find_glosses(None)  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError, match="po"):
        glosses.catalogue_entries(Path("no/such.po"))


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
