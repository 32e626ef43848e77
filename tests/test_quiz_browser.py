"""Every chapter's quiz answers as intended in the built book, in headless Chromium:
the right option gives "Correct.", each wrong option its own feedback, the right number (as the
page shows it, typed and sent with Enter) "Correct.", each named mistake's value its feedback
and another number "Not quite."; every quiz in light mode at 1280 px, a third of them in each
other (mode, width) of dark/light x 1280/390.  The page's answers are the package's
(``data-answer``).  Needs the built book (``make book``), like tests/test_browser.py."""

from __future__ import annotations

from typing import Any

import pytest
from _browser import browsers, require_book

from formulated.quizzes import Numeric, questions

pytestmark = pytest.mark.browser  # Chromium: make check leaves it out

CHAPTERS = {
    f"ch{i:02d}": name
    for i, name in enumerate(
        [
            "01_learning_from_data",
            "02_probability_information",
            "03_neural_networks",
            "04_sequences",
            "05_notation_shapes",
            "06_tokenization",
            "07_embeddings_positions",
            "08_attention",
            "09_masks",
            "10_multi_head",
            "11_ffn_gelu",
            "12_layernorm_residual",
            "13_gpt",
            "14_gpt2_gpt3",
            "15_bert_roberta",
            "16_parameters",
            "17_training_objective",
            "18_train_tiny_gpt",
            "19_inside_the_model",
        ],
        1,
    )
}
OTHERS = [(1280, "dark"), (390, "light"), (390, "dark")]
CASES = [pytest.param(c, 1280, "light", id=f"{c}-1280-light") for c in CHAPTERS] + [
    pytest.param(c, w, m, id=f"{c}-{w}-{m}")
    for i, c in enumerate(CHAPTERS)
    for k, (w, m) in enumerate(OTHERS)
    if i % 3 == k
]


def check(form: Any) -> tuple[str, str]:
    """Press the form's Check button; the verdict region's state and text."""
    form.find_element("css selector", "button[type=submit]").click()
    out = form.find_element("css selector", ".fq-out")
    return out.get_attribute("data-state"), " ".join(out.text.split())


def answer_number(form: Any, typed: str) -> tuple[str, str]:
    """Type ``typed`` into the form's number box and press Enter (the keyboard path)."""
    from selenium.webdriver.common.keys import Keys

    box = form.find_element("css selector", "input[type=text]")
    box.clear()
    box.send_keys(typed + Keys.ENTER)
    out = form.find_element("css selector", ".fq-out")
    return out.get_attribute("data-state"), " ".join(out.text.split())


def words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize(("quiz_id", "width", "mode"), CASES)
def test_quiz_answers_right_and_wrong(quiz_id: str, width: int, mode: str) -> None:
    require_book()
    b = browsers()
    driver = b.driver(width, mode)
    driver.get(f"{b.url}chapters/{CHAPTERS[quiz_id]}.html")
    assert (
        driver.execute_script("return document.documentElement.dataset.theme") == mode
    )
    forms = driver.find_elements(
        "css selector", f'.fq-quiz[data-quiz="{quiz_id}"] form'
    )
    qs = questions(quiz_id)
    assert len(forms) == len(qs), f"{quiz_id}: {len(forms)} forms on the page"
    for n, (q, form) in enumerate(zip(qs, forms), 1):
        where = f"{quiz_id} question {n} ({width} px, {mode})"
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", form)
        if isinstance(q, Numeric):
            assert float(form.get_attribute("data-answer")) == q.answer, where
            state, text = answer_number(form, q.shown)
            assert (state, text.startswith("Correct.")) == ("correct", True), (
                where,
                text,
            )
            for m in q.mistakes:
                state, text = answer_number(form, repr(m.value))
                assert state == "wrong" and words(m.feedback) in text, (where, m, text)
            far = q.answer + 10 * q.tolerance + 7.77
            assert all(abs(far - m.value) > q.tolerance for m in q.mistakes)
            state, text = answer_number(form, repr(far))
            assert state == "wrong" and words(q.hint) in text, (where, text)
        else:
            labels = form.find_elements("css selector", "label")
            assert [words(lb.text) for lb in labels] == [
                words(o.text) for o in q.options
            ]
            for label, option in sorted(
                zip(labels, q.options), key=lambda lo: lo[1].correct
            ):  # the wrong ones first, the right one last
                label.click()
                state, text = check(form)
                expected = "correct" if option.correct else "wrong"
                assert state == expected, (where, option.text, state)
                assert words(option.feedback) in text, (where, option.text, text)
