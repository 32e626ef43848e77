""" "Check your understanding": 3-5 questions at the end of every chapter (issue 37).

``quiz("ch08")`` in a chapter's last code cell shows its quiz, answering in the page with no
server (static HTML book, JupyterLab, Colab).  The questions are data
(:mod:`formulated.quizzes.model`) whose numbers the book's functions compute when the quiz is
built (:mod:`~.questions_a` for chapters 1-10, :mod:`~.questions_b` for 11-19), rendered by
:mod:`~.render` as accessible HTML (radio buttons in a fieldset, a labeled number box, a
status region).
"""

from __future__ import annotations

from typing import Any

from .model import Choice, Mistake, Numeric, Option, Question
from .questions_a import QUIZZES_A
from .questions_b import QUIZZES_B
from .render import render_quiz

__all__ = [
    "QUIZZES",
    "Quiz",
    "questions",
    "quiz",
    "Choice",
    "Mistake",
    "Numeric",
    "Option",
]

#: quiz id -> the function that builds that chapter's questions.
QUIZZES = {**QUIZZES_A, **QUIZZES_B}


def questions(quiz_id: str) -> list[Question]:
    """The questions of quiz ``quiz_id`` (``"ch01"`` … ``"ch19"``), numbers computed now."""
    if quiz_id not in QUIZZES:
        raise ValueError(f"quiz_id: expected one of {sorted(QUIZZES)}, got {quiz_id!r}")
    return QUIZZES[quiz_id]()


class Quiz:
    """A chapter's quiz as a notebook output: HTML for pages and notebooks, one line of text
    elsewhere (the PDF, a terminal)."""

    def __init__(self, quiz_id: str) -> None:
        self.quiz_id = quiz_id
        self.questions = questions(quiz_id)

    def _repr_html_(self) -> str:
        return render_quiz(self.quiz_id, self.questions)

    def __repr__(self) -> str:
        return (
            f"Check your understanding: {len(self.questions)} questions (interactive in "
            "the HTML book, JupyterLab and Colab)."
        )


def quiz(quiz_id: str) -> Any:
    """The quiz of a chapter, shown by the notebook: ``quiz("ch08")``."""
    return Quiz(quiz_id)
