"""Every chapter's quiz answers as intended in the built book, in headless Chromium:
the right option gives "Correct.", each wrong option its own feedback, the right number (as the
page shows it, typed and sent with Enter) "Correct.", each named mistake's value its feedback
and another number "Not quite."; every quiz in light mode at 1280 px, then, in the same page
(one load per chapter, its answers cleared), a third of them in each other (mode, width) of
dark/light x 1280/390: narrowed to 390 px in place and switched with the theme's own button,
as a reader does (``_browser.resize``, ``_browser.switch_mode``).  The page's answers are the
package's (``data-answer``).  Needs the built book (``make book``), like
tests/test_browser.py."""

from __future__ import annotations

from typing import Any

import pytest
from _browser import browsers, require_book, reset_view, resize, switch_mode

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
#: The (width, mode) a chapter's quizzes are answered in after 1280 px in light mode: each
#: chapter one of these, in turn.
OTHERS = [(1280, "dark"), (390, "light"), (390, "dark")]
CASES = [
    pytest.param(c, [(1280, "light"), OTHERS[i % 3]], id=c)
    for i, c in enumerate(CHAPTERS)
]


def check(form: Any) -> tuple[str, str]:
    """Press the form's Check button; the verdict region's state and text."""
    form.find_element("css selector", "button[type=submit]").click()
    return verdict(form)


def verdict(form: Any) -> tuple[str, str]:
    """The state of the form's verdict region and the text it shows.  The attribute as
    written (``get_dom_attribute``): Selenium's ``get_attribute`` injects a script of its own
    on every call, a tenth of a second of Chromium's time each."""
    out = form.find_element("css selector", ".fq-out")
    return out.get_dom_attribute("data-state"), " ".join(out.text.split())


def answer_number(form: Any, typed: str) -> tuple[str, str]:
    """Type ``typed`` into the form's number box and press Enter (the keyboard path)."""
    from selenium.webdriver.common.keys import Keys

    box = form.find_element("css selector", "input[type=text]")
    box.clear()
    box.send_keys(typed + Keys.ENTER)
    return verdict(form)


def words(text: str) -> str:
    return " ".join(text.split())


# Clears what the quizzes of a page were answered (the choices, the numbers, the verdicts).
CLEAR_JS = r"""
for (const form of document.querySelectorAll(".fq-quiz form")) {
  form.reset();
  const out = form.querySelector(".fq-out");
  out.replaceChildren();
  delete out.dataset.state;
}
"""


@pytest.mark.parametrize(("quiz_id", "views"), CASES)
def test_quiz_answers_right_and_wrong(
    quiz_id: str, views: list[tuple[int, str]]
) -> None:
    require_book()
    b = browsers()
    driver = b.driver()
    try:
        driver.get(f"{b.url}chapters/{CHAPTERS[quiz_id]}.html")
        for width, mode in views:
            view(driver, width, mode)
            answer_every_question(driver, quiz_id, f"{width} px, {mode}")
    finally:
        reset_view(driver)


def view(driver: Any, width: int, mode: str) -> None:
    """The page at ``width`` in ``mode``, as a reader gets there, its quizzes unanswered."""
    if driver.execute_script("return window.innerWidth") != width:
        resize(driver, width)
    assert switch_mode(driver, mode) == mode
    driver.execute_script(CLEAR_JS)


def answer_every_question(driver: Any, quiz_id: str, how: str) -> None:
    forms = driver.find_elements(
        "css selector", f'.fq-quiz[data-quiz="{quiz_id}"] form'
    )
    qs = questions(quiz_id)
    assert len(forms) == len(qs), f"{quiz_id}: {len(forms)} forms on the page"
    for n, (q, form) in enumerate(zip(qs, forms), 1):
        where = f"{quiz_id} question {n} ({how})"
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", form)
        if isinstance(q, Numeric):
            answer_numeric(form, q, where)
        else:
            answer_choice(form, q, where)


def answer_numeric(form: Any, q: Numeric, where: str) -> None:
    assert float(form.get_dom_attribute("data-answer")) == q.answer, where
    state, text = answer_number(form, q.shown)
    assert (state, text.startswith("Correct.")) == ("correct", True), (where, text)
    for m in q.mistakes:
        state, text = answer_number(form, repr(m.value))
        assert state == "wrong" and words(m.feedback) in text, (where, m, text)
    far = q.answer + 10 * q.tolerance + 7.77
    assert all(abs(far - m.value) > q.tolerance for m in q.mistakes)
    state, text = answer_number(form, repr(far))
    assert state == "wrong" and words(q.hint) in text, (where, text)


def answer_choice(form: Any, q: Any, where: str) -> None:
    labels = form.find_elements("css selector", "label")
    assert [words(lb.text) for lb in labels] == [words(o.text) for o in q.options]
    for label, option in sorted(
        zip(labels, q.options), key=lambda lo: lo[1].correct
    ):  # the wrong ones first, the right one last
        label.click()
        state, text = check(form)
        expected = "correct" if option.correct else "wrong"
        assert state == expected, (where, option.text, state)
        assert words(option.feedback) in text, (where, option.text, text)
