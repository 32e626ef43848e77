""" "Check your understanding": 3-5 questions at the end of every chapter.

``quiz("ch08")`` in a chapter's last code cell shows its quiz, answering in the page with no
server (static HTML book, JupyterLab, Colab).  The questions are data
(:mod:`formulated.quizzes.model`) whose numbers the book's functions compute when the quiz is
built, one module per part of the book (:mod:`~.foundations` for chapters 1-4, :mod:`~.text`
5-7, :mod:`~.block` 8-12, :mod:`~.models` 13-16, :mod:`~.training` 17-19).  :func:`questions`
shows each multiple-choice question's options in an order shuffled per question, the right
option's position spread evenly over the book (:func:`~.model.shuffled`,
:func:`~.model.key_positions`), and :mod:`~.render` writes them as accessible HTML (radio buttons
in a fieldset, a labeled number box, a status region).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from . import block, foundations, models, text, training
from .model import Choice, Mistake, Numeric, Option, Question, key_positions, shuffled
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

#: quiz id -> the function that builds that chapter's questions, in the order of the book.
QUIZZES = {
    **foundations.QUIZZES,
    **text.QUIZZES,
    **block.QUIZZES,
    **models.QUIZZES,
    **training.QUIZZES,
}


@cache
def _book() -> dict[tuple[str, int], int]:
    """(quiz id, question number) -> where the page shows the right option, for every
    multiple-choice question of the book (:func:`~.model.key_positions`, in book order)."""
    choices = [
        ((quiz_id, number), len(q.options))
        for quiz_id, build in QUIZZES.items()
        for number, q in enumerate(build(), 1)
        if isinstance(q, Choice)
    ]
    positions = key_positions([n for _, n in choices])
    return {where: p for (where, _), p in zip(choices, positions)}


def questions(quiz_id: str) -> list[Question]:
    """The questions of quiz ``quiz_id`` (``"ch01"`` … ``"ch19"``), numbers computed now,
    options in the order the page shows them (:func:`~.model.shuffled`)."""
    if quiz_id not in QUIZZES:
        raise ValueError(f"quiz_id: expected one of {sorted(QUIZZES)}, got {quiz_id!r}")
    positions = _book()
    return [
        shuffled(q, f"{quiz_id}-{number}", positions.get((quiz_id, number), 0))
        for number, q in enumerate(QUIZZES[quiz_id](), 1)
    ]


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
