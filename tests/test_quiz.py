"""The chapters' quizzes (issue 37, formulated/quizzes): every computed answer equals a value
computed independently (torch, transformers' configurations, or arithmetic written out), every
named mistake and wrong option is farther from the answer than the tolerance, every chapter has
3-5 questions, and bad input gets an error that names the argument.  The browser half (click,
type, light and dark, 1280 and 390 px) is tests/test_quiz_browser.py."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch

from formulated.quizzes import (
    QUIZZES,
    Choice,
    Mistake,
    Numeric,
    Option,
    questions,
    quiz,
)
from formulated.quizzes.render import SCRIPT, STYLE, render_question, render_quiz

CHAPTERS = [f"ch{i:02d}" for i in range(1, 20)]
F = torch.nn.functional


def _count(module: torch.nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def _meta_count(factory) -> int:
    with torch.device("meta"):
        return _count(factory())


def _gpt2_small() -> int:
    from transformers import GPT2Config, GPT2Model

    return _meta_count(lambda: GPT2Model(GPT2Config()))


def _bert_embeddings() -> int:
    from transformers import BertConfig
    from transformers.models.bert.modeling_bert import BertEmbeddings

    emb = _meta_count(lambda: BertEmbeddings(BertConfig()))
    return emb - 2 * BertConfig().hidden_size  # its LayerNorm is not an embedding table


def _lambda_tiny() -> int:
    V, n, H, F_, L = 65, 64, 64, 256, 2  # A = 4 heads of D = 16: H columns
    block = torch.nn.ModuleList(
        [
            torch.nn.Linear(H, H, bias=False),  # W^Q, W^K, W^V, W^O: no biases in λ
            torch.nn.Linear(H, H, bias=False),
            torch.nn.Linear(H, H, bias=False),
            torch.nn.Linear(H, H, bias=False),
            torch.nn.Linear(H, F_),
            torch.nn.Linear(F_, H),
            torch.nn.LayerNorm(H),
            torch.nn.LayerNorm(H),
        ]
    )
    return V * H + n * H + L * _count(block)


def _warmup_lr() -> float:
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1e-3)
    sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=99)
    for _ in range(49):
        opt.step()
        sched.step()
    return opt.param_groups[0]["lr"] / 1e-4


def _slides_weight() -> float:
    from formulated.examples import SLIDE_KEYS, SLIDE_QUERIES

    q = torch.tensor(SLIDE_QUERIES[0])
    K = torch.tensor(SLIDE_KEYS)
    return float(torch.softmax(K @ q / 3**0.5, dim=0)[1])


def _rnn_factor() -> float:
    h0 = torch.tensor(1.0, requires_grad=True)
    h = h0
    for _ in range(20):
        h = 0.9 * h
    h.backward()
    return float(h0.grad)


def _sigmoid_grad() -> float:
    z = torch.tensor(0.0, requires_grad=True)
    torch.sigmoid(z).backward()
    return float(z.grad)


#: (quiz, question number from 1) -> the answer, computed without the book's functions.
EXPECTED = {
    ("ch01", 2): lambda: np.polyfit([0, 1, 2], [1, 3, 4], 1)[0],
    ("ch02", 1): lambda: float(torch.softmax(torch.tensor([3.0, 1, 0]), 0)[0]),
    ("ch02", 2): lambda: (
        float(
            torch.distributions.Categorical(torch.tensor([0.5, 0.25, 0.25])).entropy()
        )
        / math.log(2)
    ),
    ("ch03", 1): _sigmoid_grad,
    ("ch03", 2): lambda: _count(
        torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
    ),
    ("ch04", 1): lambda: float(
        F.cosine_similarity(torch.tensor([1.0, 0, 1]), torch.tensor([1.0, 1, 0]), 0)
    ),
    ("ch04", 2): _rnn_factor,
    ("ch05", 1): lambda: [10, 20, 30, 40, 50].index(50),  # x_5 of (x_1..x_5)
    ("ch05", 2): lambda: (
        __import__("transformers").GPT2Config().n_embd
        // __import__("transformers").GPT2Config().n_head
    ),
    ("ch06", 2): lambda: __import__("transformers").GPT2Config().vocab_size,
    ("ch07", 1): lambda: math.cos(1.0),
    ("ch07", 3): lambda: float(F.dropout(torch.ones(1000), 0.1, training=True).max()),
    ("ch08", 1): _slides_weight,
    ("ch09", 1): lambda: int(torch.tril(torch.ones(5, 5)).sum()),
    ("ch09", 2): lambda: float(torch.softmax(torch.tensor([1.0, 2.0]), 0)[0]),
    ("ch10", 1): lambda: _count(torch.nn.MultiheadAttention(768, 12, bias=False)),
    ("ch11", 1): lambda: float(F.gelu(torch.tensor(1.0))),
    ("ch11", 2): lambda: _count(
        torch.nn.Sequential(torch.nn.Linear(768, 3072), torch.nn.Linear(3072, 768))
    ),
    ("ch12", 1): lambda: float(F.layer_norm(torch.tensor([1.0, 2, 3, 4]), (4,))[0]),
    ("ch12", 2): lambda: _count(torch.nn.LayerNorm(768)),
    ("ch13", 2): lambda: len("abcdefghi") - 1,
    ("ch13", 3): lambda: __import__("transformers").OpenAIGPTConfig().vocab_size * 768,
    ("ch14", 1): lambda: _gpt2_small() / 1e6,
    ("ch14", 2): lambda: 12288 // 96,
    ("ch15", 2): _bert_embeddings,
    ("ch16", 1): _lambda_tiny,
    ("ch16", 2): lambda: 12 * 96 * 12288**2 / 1e9,
    ("ch17", 1): lambda: float(
        -torch.log(torch.tensor(0.5 * 0.25, dtype=torch.float64))
    ),
    ("ch17", 2): lambda: float(
        F.cross_entropy(torch.tensor([[2.0, 0, 0]]), torch.tensor([0]))
    ),
    ("ch18", 1): lambda: float(torch.log(torch.tensor(65.0, dtype=torch.float64))),
    ("ch18", 2): _warmup_lr,
    ("ch19", 1): lambda: float(torch.softmax(torch.tensor([2.0, 1, 0]) / 0.5, 0)[0]),
    ("ch19", 2): lambda: float(torch.softmax(torch.tensor([2.0, 1.0]), 0)[0]),
}

#: (quiz, question number from 1) -> the right option's text, found without the book.
EXPECTED_OPTIONS = {
    ("ch01", 3): lambda: (
        "It diverges"
        if max(abs(1 - 0.6 * np.array([4.0, 1.0]))) > 1
        else "It converges"
    ),
    ("ch06", 1): lambda: "l + o",  # "low" x3, "lower", "lowest": l-o five times
    ("ch10", 2): lambda: str(
        tuple(torch.zeros(1, 5, 24).view(1, 5, 4, 6).transpose(1, 2).shape)
    ),
}


@pytest.fixture(scope="module")
def built() -> dict[str, list]:
    return {c: questions(c) for c in CHAPTERS}


def test_every_chapter_has_3_to_5_questions(built) -> None:
    assert sorted(QUIZZES) == CHAPTERS
    for c, qs in built.items():
        assert 3 <= len(qs) <= 5, f"{c}: {len(qs)} questions"
        assert any(isinstance(q, Numeric) for q in qs), f"{c}: no numeric question"


def test_every_numeric_answer_is_checked_independently(built) -> None:
    numeric = {
        (c, i + 1)
        for c, qs in built.items()
        for i, q in enumerate(qs)
        if isinstance(q, Numeric)
    }
    assert numeric <= set(EXPECTED), f"unchecked: {sorted(numeric - set(EXPECTED))}"


@pytest.mark.parametrize(("chapter", "number"), sorted(EXPECTED))
def test_answer_equals_independent_value(built, chapter: str, number: int) -> None:
    torch.manual_seed(0)
    q = built[chapter][number - 1]
    assert isinstance(q, Numeric)
    expected = float(EXPECTED[(chapter, number)]())
    assert abs(q.answer - expected) <= max(1e-6, 1e-9 * abs(expected)), (
        f"{chapter} question {number}: the quiz says {q.answer!r}, independently {expected!r}"
    )


@pytest.mark.parametrize(("chapter", "number"), sorted(EXPECTED_OPTIONS))
def test_right_option_equals_independent_value(
    built, chapter: str, number: int
) -> None:
    q = built[chapter][number - 1]
    right = [o.text for o in q.options if o.correct]
    assert right == [EXPECTED_OPTIONS[(chapter, number)]()]


def test_mistakes_and_wrong_options_differ_from_the_answer(built) -> None:
    for c, qs in built.items():
        for i, q in enumerate(qs, 1):
            if isinstance(q, Numeric):
                for m in q.mistakes:
                    assert abs(m.value - q.answer) > q.tolerance, (c, i, m)
                    assert not math.isclose(m.value, q.answer), (c, i, m)
            else:
                texts = [o.text for o in q.options]
                assert len(set(texts)) == len(texts), (c, i)
                assert sum(o.correct for o in q.options) == 1, (c, i)


def test_html_is_accessible_markup(built) -> None:
    page = quiz("ch08")._repr_html_()
    assert page.count("<fieldset>") == page.count("<legend>") == 2
    for box in re.findall(r'<input type="text"[^>]*id="([^"]+)"', page):
        assert f'<label for="{box}">' in page
    for radio in re.findall(r'<input type="radio"[^>]*id="([^"]+)"', page):
        assert f'<label for="{radio}">' in page
    assert page.count('role="status"') == 3
    assert len(SCRIPT) + len(STYLE) < 3000  # small: inline, no CDN
    assert "http" not in SCRIPT + STYLE
    ids = re.findall(
        r'\sid="([^"]+)"', "".join(quiz(c)._repr_html_() for c in CHAPTERS)
    )
    assert len(ids) == len(set(ids)), "ids repeat across quizzes"


def test_bad_input_gets_a_clear_error() -> None:
    with pytest.raises(ValueError, match="quiz_id: expected one of"):
        questions("ch99")
    with pytest.raises(ValueError, match="quiz_id: expected lowercase"):
        render_quiz("Chapter 8", questions("ch08"))
    with pytest.raises(ValueError, match="questions: expected a non-empty list"):
        render_quiz("ch08", [])
    with pytest.raises(TypeError, match="q: expected a Choice or a Numeric"):
        render_question("not a question", "fq-x-1")
    with pytest.raises(ValueError, match="qid: expected"):
        render_question(questions("ch08")[0], "bad id")
    with pytest.raises(ValueError, match="exactly 1 correct option, got 2"):
        Choice("p", (Option("a", "f", True), Option("b", "f", True)))
    with pytest.raises(ValueError, match="options: expected 2 to 6"):
        Choice("p", (Option("a", "f", True),))
    with pytest.raises(ValueError, match="tolerance: expected a number >= 0"):
        Numeric("p", 1.0, -0.1, 2, "e", "h")
    with pytest.raises(ValueError, match="answer: expected a finite number"):
        Numeric("p", float("nan"), 0.1, 2, "e", "h")
    with pytest.raises(ValueError, match="mistakes: 1.001 is within the tolerance"):
        Numeric("p", 1.0, 0.01, 2, "e", "h", (Mistake(1.001, "f"),))
    with pytest.raises(ValueError, match="text: expected a non-empty string"):
        Option("", "f")


def test_leak_scan_covers_the_quizzes() -> None:
    """No quiz gives away an exercise's graded answer (solution texts; with the execution
    cache, what the solutions printed too), and a quiz that did would be found."""
    from booktools.build import notebooks
    from booktools.course import assign, leak_scan

    chapters = notebooks.chapters()
    outputs = leak_scan.executed_outputs()
    assert leak_scan.quiz_leaks(chapters, outputs) == []
    chapter8 = next(c for c in chapters if c.name.startswith("08_"))
    exercises = [
        s
        for kind, s in assign.segments(chapter8.read_text(encoding="utf-8"))
        if kind == "exercise"
    ]
    graded = sorted(
        n for ex in exercises for n in leak_scan.solution_fingerprints(ex)["numbers"]
    )
    assert graded, "chapter 8's solutions have no number to plant"
    texts = leak_scan.quiz_texts()
    texts["ch08"] += f"\nA distractor: {graded[0]}"
    found = leak_scan.quiz_leaks(chapters, outputs, texts)
    assert any(graded[0] in f and "08_attention" in f for f in found), found


def test_every_chapter_and_its_student_notebook_show_its_quiz() -> None:
    """The 'Check your understanding' cell of every chapter (its source hidden in the page)
    stays in the student edition: the student notebook and the stripped chapter keep it."""
    from booktools.build import notebooks
    from booktools.course import student

    chapters = {c.name[:2]: c for c in notebooks.chapters() if c.name[:2].isdigit()}
    assert sorted(chapters) == [c[2:] for c in CHAPTERS]
    for number, path in chapters.items():
        call = f'quiz("ch{number}")'
        text = path.read_text(encoding="utf-8")
        cells = [m.group(0) for m in re.finditer(r"```\{code-cell\}.*?```", text, re.S)]
        quiz_cells = [c for c in cells if call in c]
        assert text.count(call) == 1 and "## Check your understanding" in text, path
        assert len(quiz_cells) == 1 and ":tags: [remove-input]" in quiz_cells[0], path
        assert call in student.strip_solutions(text), path
        assert call.replace('"', '\\"') in notebooks.notebook_text(
            path, student=True
        ), path


def test_quiz_text_goes_through_the_outputs_catalogue() -> None:
    """The Korean book: every text of a quiz is a message of the page's outputs catalogue
    (booktools.i18n.outputs.notebook_fragments reads it from the cell's HTML output), and
    booktools.sphinx.quiz.translate_quiz puts the translation back, values kept; a text
    without a translation stays English."""
    from booktools.i18n.outputs import (
        QUIZ_BLOCK,
        notebook_fragments,
        output_template,
        quiz_fragments,
    )
    from booktools.sphinx.quiz import translate_quiz

    page = quiz("ch08")._repr_html_()
    nb = {
        "cells": [
            {"outputs": [{"output_type": "display_data", "data": {"text/html": page}}]}
        ]
    }
    messages = {msgid for msgid, _ in notebook_fragments(nb)}
    texts = quiz_fragments(page)
    assert "Check" in texts and "Correct." in texts and len(texts) > 20
    assert {output_template(t)[0] for t in texts} <= messages
    table = {
        "Check": "확인",
        "Correct.": "정답이다.",
        "{0}: softmax of q₁Kᵀ / √{1}, second entry.": "{0}: q₁Kᵀ / √{1}의 소프트맥스.",
    }
    korean = translate_quiz(QUIZ_BLOCK.search(page).group(0), table)
    assert ">확인</button>" in korean and "<strong>정답이다.</strong>" in korean
    answer = questions("ch08")[0].shown
    assert f"{answer}: q₁Kᵀ / √3의 소프트맥스." in korean
    assert "Not quite." in korean  # no translation given: unchanged
    assert re.sub(r">[^<]*<", "><", korean) == re.sub(
        r">[^<]*<", "><", page.split("<!--")[0] + "<!-- /fq-quiz -->"
    )


def test_a_page_using_sphinx_design_fails_the_build() -> None:
    """sphinx-design's assets are not loaded (booktools.sphinx.quiz): a page that used one of
    its directives would look broken, so the build stops and says why."""
    from docutils import nodes
    from docutils.utils import new_document
    from sphinx.errors import ExtensionError

    from booktools.sphinx.quiz import refuse_design_nodes

    doc = new_document("page")
    doc += nodes.container(classes=["cell", "tag_remove-input"])
    refuse_design_nodes(None, doc, "chapters/08_attention")  # no sd- class: fine
    doc += nodes.container(classes=["sd-card", "sd-shadow-sm"])
    with pytest.raises(ExtensionError, match="uses a sphinx-design directive"):
        refuse_design_nodes(None, doc, "chapters/08_attention")
