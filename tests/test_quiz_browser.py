"""Every chapter's quiz answers as intended in the built book, in headless Chromium: the right
option gives "Correct." and its feedback, each wrong option "Not quite." and its own feedback;
the right number (as the page shows it) "Correct.", the number and its explanation, each named
mistake's value its feedback and a far number the hint.  Every option and every number of every
question, in light mode at 1280 px, then, in the same page (one load per chapter, its answers
cleared), again in one other (mode, width) of dark/light x 1280/390, a third of the chapters
each: narrowed to 390 px in place and switched with the theme's own button, as a reader does
(``_browser.resize``, ``_browser.switch_mode``).  The page's answers are the package's
(``data-answer``), the options' labels its texts, and every verdict is shown (visible).  The
pages are loaded without MathJax, which has nothing to typeset in a quiz (:data:`NO_MATHJAX`).

Two input paths:

* **Real input** (WebDriver's clicks and keys), once per chapter, in its second view (so in
  each of the three other views, by turns), before that view's answers in the page: the first
  multiple-choice question (chapter 12 has none) answered right, a click on the right option's
  label and one on the Check button; the first numeric question answered right, the answer as
  shown typed into its box and sent with Enter.  These show that a reader's clicks and keys
  reach the quiz (the label checks its radio button, Enter submits the form).  Not in the
  first view: WebDriver scrolls to the quiz to click it, which loads the widget runtime where
  a widget is near the quiz (as for a reader), and a page with its widgets drawn takes
  Chromium a second more to narrow to 390 px.
* **In the page** (one script per view, :data:`ANSWER_JS`): every option and number of every
  question, chosen and sent as those inputs do: ``label.click()`` then ``button.click()`` on the
  Check button; the box's value set, then ``form.requestSubmit()``, the submit event that Enter
  sends (the quiz's script listens for "submit").  Each WebDriver round trip costs Chromium,
  chromedriver and Python a few hundredths of a CPU-second, and answering every option with
  them took about ten CPU-seconds a chapter.

A control (:func:`test_each_check_fails_on_a_planted_mistake`) plants wrong values in a quiz
and checks that each check reports them.  Needs the built book (``make book``), like
tests/test_browser.py."""

from __future__ import annotations

import re
from typing import Any, NamedTuple
from urllib.parse import quote

import pytest
from _browser import (
    blocked_urls,
    browsers,
    http_cache,
    require_book,
    reset_view,
    resize,
    switch_mode,
)

from formulated.quizzes import Choice, Numeric, Option, questions
from formulated.quizzes.render import END, START, render_quiz

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


class Problem(NamedTuple):
    """A check that failed: the question (1-based; 0 for the quiz as a whole), what was
    checked (``"option 2"``, ``"mistake 1"``, ``"real click, option 1"``...), and how."""

    question: int
    what: str
    message: str


#: What a verdict region shows: its ``data-state``, its visible text (words joined by single
#: blanks) and whether it is visible at all.
Seen = tuple[str | None, str, bool]


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

# For the real input of quiz arguments[0]: the number of its forms, the label of option
# arguments[2] of its form arguments[1] and that form's Check button, the number box of its form
# arguments[3] (null where an index is null).  The choice's form is scrolled to the middle of the
# window: at its top, the theme's sticky header would take WebDriver's click.
REAL_JS = r"""
const [quizId, choice, option, number] = arguments;
const forms = document.querySelectorAll(`.fq-quiz[data-quiz="${quizId}"] form`);
const found = {forms: forms.length, label: null, button: null, box: null};
if (choice !== null && forms[choice]) {
  forms[choice].scrollIntoView({block: "center"});
  found.label = forms[choice].querySelectorAll("label")[option];
  found.button = forms[choice].querySelector("button[type=submit]");
}
if (number !== null && forms[number]) {
  found.box = forms[number].querySelector("input[type=text]");
}
return found;
"""

# Visible as Selenium's isDisplayed has it: rendered, not hidden and not transparent.
VISIBLE_JS = r"""
const VISIBLE = {visibilityProperty: true, opacityProperty: true};
"""

# What the verdict region of the form of arguments[0] (an element in it) shows now: its state as
# written, its visible text (innerText, as Selenium's .text reads it) and whether it is visible.
VERDICT_JS = (
    VISIBLE_JS
    + r"""
const out = arguments[0].closest("form").querySelector(".fq-out");
return [out.getAttribute("data-state"), out.innerText, out.checkVisibility(VISIBLE)];
"""
)

# Answers every question of quiz arguments[0] in the page, as :data:`VERDICT_JS` after each
# answer: arguments[1] holds, per form, what to answer in turn (an option's index: its label
# clicked, then the Check button; a text: typed into the box, then the form submitted as Enter
# submits it).  Returns, per form, its data-answer, its labels (visible text, visible) and the
# verdict after each answer.  The quiz's listener runs during the dispatch, so each verdict is
# there when click() or requestSubmit() returns.
ANSWER_JS = (
    VISIBLE_JS
    + r"""
const [quizId, plan] = arguments;
const forms = document.querySelectorAll(`.fq-quiz[data-quiz="${quizId}"] form`);
return [...forms].map((form, n) => {
  const out = form.querySelector(".fq-out");
  const labels = [...form.querySelectorAll("label")];
  const button = form.querySelector("button[type=submit]");
  const box = form.querySelector("input[type=text]");
  const verdicts = (plan[n] || []).map((a) => {
    if (typeof a === "number") {
      labels[a].click();  // a label's click checks its radio button
      button.click();
    } else {
      box.value = a;
      box.dispatchEvent(new Event("input", {bubbles: true}));
      form.requestSubmit();
    }
    return [out.getAttribute("data-state"), out.innerText, out.checkVisibility(VISIBLE)];
  });
  return {answer: form.getAttribute("data-answer"), verdicts: verdicts,
          labels: labels.map((l) => [l.innerText, l.checkVisibility(VISIBLE)])};
});
"""
)


#: What the chapter pages of :func:`test_quiz_answers_right_and_wrong` load without: the book's
#: MathJax (the test went from 91 to 53 CPU-seconds).  It leaves the quizzes as they are: a
#: quiz holds no TeX for it to typeset (:func:`test_the_quizzes_hold_no_math_for_mathjax`), so
#: its verdicts, labels and controls are the same without it.  Its configuration object, which
#: the page sets before loading it, is removed, so that the widgets drawn near a quiz skip
#: typesetting as on a page without math.  The pages with their math typeset are the other
#: browser tests' (tests/test_browser.py, tests/test_a11y.py: every page, its quiz included).
NO_MATHJAX = ["*/_static/mathjax/*"]
#: What MathJax typesets in the book: its delimiters of inline and display math, an
#: environment without them, and a reference to an equation.
TEX_DELIMITERS = re.compile(r"\\\(|\\\[|\$\$|\\begin\{|\\(?:eq)?ref\{")
QUIZ = re.compile(f"{re.escape(START)}.*?{re.escape(END)}", re.S)


def tex_in_quizzes(html: str) -> list[str]:
    """The TeX that MathJax would typeset inside the quizzes of a built page's ``html``."""
    return [m for q in QUIZ.findall(html) for m in TEX_DELIMITERS.findall(q)]


@pytest.mark.parametrize("quiz_id", CHAPTERS)
def test_the_quizzes_hold_no_math_for_mathjax(quiz_id: str) -> None:
    """Each chapter's quiz, as built, holds nothing that MathJax typesets, in both books: so
    :data:`NO_MATHJAX` changes nothing in it.  (Its page has one quiz.)"""
    for prefix in ("", "ko/"):
        html = (
            require_book() / f"{prefix}chapters/{CHAPTERS[quiz_id]}.html"
        ).read_text(encoding="utf-8")
        assert html.count(START) == len(QUIZ.findall(html)) == 1, f"{prefix}{quiz_id}"
        assert tex_in_quizzes(html) == [], f"{prefix}{quiz_id}: {tex_in_quizzes(html)}"


def test_tex_in_a_quiz_is_found() -> None:
    """The control of :func:`tex_in_quizzes`: TeX inside a quiz is found, outside it is not."""
    quiz = render_quiz(CONTROL, questions(CONTROL))
    assert len(QUIZ.findall(quiz)) == 1 and QUIZ.findall(quiz.replace(END, "")) == []
    assert tex_in_quizzes(f"<p>\\(x\\)</p>{quiz}") == []
    for tex in ("\\(x\\)", "\\[x\\]", "$$x$$", "\\begin{align}", "\\eqref{e}"):
        planted = quiz.replace("</form>", f"{tex}</form>", 1)
        assert tex_in_quizzes(planted), tex


@pytest.mark.parametrize(("quiz_id", "views"), CASES)
def test_quiz_answers_right_and_wrong(
    quiz_id: str, views: list[tuple[int, str]]
) -> None:
    require_book()
    b = browsers()
    driver = b.driver()
    qs = questions(quiz_id)
    problems = []
    # The chapters share the theme's files, as for a reader going from one to the next: cached,
    # a page loads with less of Chromium's time.  The pages' weights (tests/test_a11y.py) are
    # measured without the cache, as on a first visit: put back after.  MathJax is not loaded
    # (:data:`NO_MATHJAX`).
    try:
        http_cache(driver, enabled=True)
        blocked_urls(driver, NO_MATHJAX)
        driver.get(f"{b.url}chapters/{CHAPTERS[quiz_id]}.html")
        loaded = driver.execute_script(
            "const v = window.MathJax && MathJax.version; delete window.MathJax; return v;"
        )
        assert not loaded, f"MathJax {loaded} was loaded: NO_MATHJAX matched nothing"
        for n, (width, mode) in enumerate(views):
            view(driver, width, mode)
            how = f"{width} px, {mode}"
            if n == len(views) - 1:  # last: see the module's docstring
                problems += [(how, p) for p in real_input(driver, quiz_id, qs)]
            problems += [(how, p) for p in in_page(driver, quiz_id, qs)]
    finally:
        blocked_urls(driver, [])
        reset_view(driver)
        http_cache(driver, enabled=False)
    assert not problems, f"{quiz_id}: {len(problems)} check(s) failed:\n" + "\n".join(
        f"question {p.question} ({how}), {p.what}: {p.message}" for how, p in problems
    )


def view(driver: Any, width: int, mode: str) -> None:
    """The page at ``width`` in ``mode``, as a reader gets there, its quizzes unanswered."""
    if driver.execute_script("return window.innerWidth") != width:
        resize(driver, width)
    assert switch_mode(driver, mode) == mode
    driver.execute_script(CLEAR_JS)


def far_number(q: Numeric) -> float:
    """A number no check accepts: far from the answer and from every named mistake."""
    far = q.answer + 10 * q.tolerance + 7.77
    assert all(abs(far - m.value) > q.tolerance for m in q.mistakes), q
    return far


def plan(qs: list[Any]) -> list[list[int] | list[str]]:
    """What :data:`ANSWER_JS` answers, per question: every option (the wrong ones first, the
    right one last), or the answer as shown, each named mistake's value and a far number."""
    out: list[list[int] | list[str]] = []
    for q in qs:
        if isinstance(q, Numeric):
            out.append(
                [q.shown, *(repr(m.value) for m in q.mistakes), repr(far_number(q))]
            )
        else:
            out.append(
                sorted(range(len(q.options)), key=lambda i: q.options[i].correct)
            )
    return out


def in_page(driver: Any, quiz_id: str, qs: list[Any]) -> list[Problem]:
    """Every question answered in the page (:data:`ANSWER_JS`); what failed."""
    todo = plan(qs)
    found = driver.execute_script(ANSWER_JS, quiz_id, todo)
    if len(found) != len(qs):
        return [
            Problem(0, "forms", f"{len(found)} forms on the page, {len(qs)} questions")
        ]
    problems = []
    for n, (q, answers, page) in enumerate(zip(qs, todo, found), 1):
        verdicts = [
            (state, words(text), shown) for state, text, shown in page["verdicts"]
        ]
        if isinstance(q, Numeric):
            problems += answer_problems(n, q, page["answer"])
            problems += number_problems(n, "the answer", q, None, verdicts[0])
            for i, (m, v) in enumerate(zip(q.mistakes, verdicts[1:]), 1):
                problems += number_problems(n, f"mistake {i}", q, m.feedback, v)
            problems += number_problems(n, "a far number", q, q.hint, verdicts[-1])
        else:
            problems += label_problems(n, q, page["labels"])
            for i, v in zip(answers, verdicts):
                problems += option_problems(n, f"option {i + 1}", q.options[i], v)
    return problems


def real_input(driver: Any, quiz_id: str, qs: list[Any]) -> list[Problem]:
    """The right option of the first multiple-choice question and the answer of the first
    numeric one, given with WebDriver's clicks and keys (see the module's docstring); what
    failed."""
    from selenium.webdriver.common.keys import Keys

    choice = next((n for n, q in enumerate(qs) if isinstance(q, Choice)), None)
    number = next((n for n, q in enumerate(qs) if isinstance(q, Numeric)), None)
    option = None if choice is None else right(qs[choice])
    found = driver.execute_script(REAL_JS, quiz_id, choice, option, number)
    if found["forms"] != len(qs):
        forms = f"{found['forms']} forms on the page, {len(qs)} questions"
        return [Problem(0, "forms", forms)]
    problems = []
    if choice is not None and option is not None:
        found["label"].click()
        found["button"].click()
        what, seen = (
            f"real click, option {option + 1}",
            verdict_of(driver, found["label"]),
        )
        problems += option_problems(choice + 1, what, qs[choice].options[option], seen)
    if number is not None:
        q = qs[number]
        found["box"].send_keys(q.shown + Keys.ENTER)
        seen = verdict_of(driver, found["box"])
        problems += number_problems(number + 1, "real Enter, the answer", q, None, seen)
    return problems


def wrong(q: Choice) -> int:
    """The index of ``q``'s first wrong option."""
    return next(i for i, o in enumerate(q.options) if not o.correct)


def right(q: Choice) -> int:
    """The index of ``q``'s right option."""
    return next(i for i, o in enumerate(q.options) if o.correct)


def verdict_of(driver: Any, element: Any) -> Seen:
    """What the verdict region of ``element``'s form shows now (:data:`VERDICT_JS`)."""
    state, text, shown = driver.execute_script(VERDICT_JS, element)
    return state, words(text), shown


def verdict_problems(
    n: int, what: str, seen: Seen, state: str, text: str, starts: str = ""
) -> list[Problem]:
    """Whether the verdict ``seen`` is shown, in ``state``, starts with ``starts`` and holds
    ``text`` (its words)."""
    got, shows, visible = seen
    out = []
    if not visible:
        out.append(Problem(n, what, "the verdict is not visible"))
    if got != state:
        out.append(Problem(n, what, f"state {got!r}, expected {state!r} ({shows!r})"))
    if not shows.startswith(starts) or words(text) not in shows:
        out.append(
            Problem(n, what, f"shows {shows!r}, expected {starts} {words(text)!r}")
        )
    return out


def option_problems(n: int, what: str, option: Option, seen: Seen) -> list[Problem]:
    """``option`` chosen: "correct" and "Correct." if it is the right one, else "wrong" and
    "Not quite."; its own feedback either way."""
    state, verdict = (
        ("correct", "Correct.") if option.correct else ("wrong", "Not quite.")
    )
    found = verdict_problems(n, what, seen, state, option.feedback, verdict)
    return [p._replace(message=f"{option.text!r}: {p.message}") for p in found]


def number_problems(
    n: int, what: str, q: Numeric, feedback: str | None, seen: Seen
) -> list[Problem]:
    """A number sent: with ``feedback`` None the answer ("correct", "Correct.", the answer as
    shown and its explanation), else a wrong one ("wrong", "Not quite.", ``feedback``)."""
    if feedback is None:
        return verdict_problems(
            n, what, seen, "correct", f"{q.shown}: {q.explain}", "Correct."
        )
    return verdict_problems(n, what, seen, "wrong", feedback, "Not quite.")


def answer_problems(n: int, q: Numeric, answer: str | None) -> list[Problem]:
    """The page's ``data-answer`` is the package's answer."""
    try:
        same = answer is not None and float(answer) == q.answer
    except ValueError:
        same = False
    if same:
        return []
    return [
        Problem(n, "data-answer", f"the page's {answer!r}, the package's {q.answer!r}")
    ]


def label_problems(n: int, q: Choice, labels: list[list[Any]]) -> list[Problem]:
    """The options' labels show the options' texts, in the package's order."""
    shown = [words(text) for text, visible in labels if visible]
    expected = [words(o.text) for o in q.options]
    if shown == expected:
        return []
    return [Problem(n, "labels", f"the page shows {shown}, the package has {expected}")]


# ---- the control: each check fails on a wrong page ---------------------------------------------

#: The quiz of the control (a numeric question, then two multiple-choice ones).
CONTROL = "ch08"

# Plants a mistake in every check of the control's quiz, in the page, before
# it is answered.
PLANT_JS = r"""
const forms = document.querySelectorAll(".fq-quiz form");
const msg = (form, key) => form.querySelector(`.fq-msgs [data-key="${key}"]`);
const [number, first, second] = forms;
number.dataset.answer = String(+number.dataset.answer + 1);  // data-answer; the answer
msg(number, "m1").querySelector("span").textContent = "Planted.";  // mistake 2's feedback
msg(number, "no").dataset.state = "correct";  // a far number
for (const form of [first, second]) {
  const wrong = [...form.querySelectorAll(".fq-msgs [data-state=wrong]")][0];
  wrong.querySelector("span").textContent = "Planted.";  // the first wrong option's feedback
}
second.querySelector("label").append(" planted");  // the labels
const right = second.querySelector(".fq-msgs [data-state=correct]");
right.dataset.state = "wrong";  // the right option's state
first.querySelector(".fq-out").style.visibility = "hidden";  // every verdict of the first
"""


def test_each_check_fails_on_a_planted_mistake() -> None:
    """The control's quiz (its HTML as the book shows it, in a page of its own: no book page,
    no MathJax) passes every check as it is, and fails each one with a wrong value planted in
    the page (:data:`PLANT_JS`): the data-answer, a feedback text, a verdict's state, a label,
    a hidden verdict region; in the page and through real input."""
    qs = questions(CONTROL)
    assert [type(q) for q in qs] == [Numeric, Choice, Choice], "PLANT_JS expects these"
    driver = browsers().driver()
    page = "data:text/html;charset=utf-8," + quote(render_quiz(CONTROL, qs))

    def failed() -> set[tuple[int, str]]:
        found = real_input(driver, CONTROL, qs) + in_page(driver, CONTROL, qs)
        return {(p.question, p.what) for p in found}

    driver.get(page)
    assert failed() == set()
    driver.get(page)
    driver.execute_script(PLANT_JS)
    options = range(1, len(qs[1].options) + 1)
    assert failed() == {
        (1, "data-answer"),
        (1, "the answer"),
        (1, "real Enter, the answer"),
        (1, "mistake 2"),
        (1, "a far number"),
        *((2, f"option {i}") for i in options),  # its verdicts hidden
        (2, f"real click, option {right(qs[1]) + 1}"),
        (3, "labels"),
        (3, f"option {wrong(qs[2]) + 1}"),
        (3, f"option {right(qs[2]) + 1}"),
    }
