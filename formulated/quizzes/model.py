"""The questions of the chapters' quizzes, as data: a multiple-choice question whose options
each carry their feedback, and a numeric question with a stated tolerance whose named mistakes
(a value a common slip gives) carry theirs.  The numbers are computed by the book's functions
when a quiz is built (:mod:`formulated.quizzes.questions_a`, :mod:`~.questions_b`), never typed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Option", "Choice", "Mistake", "Numeric", "Question", "fmt"]


def fmt(value: float, decimals: int) -> str:
    """``value`` rounded to ``decimals`` places, with thousands separators for integers
    (``fmt(23835648, 0)`` -> ``"23,835,648"``)."""
    if decimals == 0:
        return f"{round(value):,}"
    return f"{value:.{decimals}f}"


def _text(value: object, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{name}: expected a non-empty string, got {value!r}")
    return value


@dataclass(frozen=True)
class Option:
    """One option of a :class:`Choice`: its text, the feedback shown when it is chosen, and
    whether it is the right one.  A wrong option's text is often a number that a named
    mistake gives (its feedback names the mistake)."""

    text: str
    feedback: str
    correct: bool = False

    def __post_init__(self) -> None:
        _text(self.text, "text")
        _text(self.feedback, "feedback")


@dataclass(frozen=True)
class Choice:
    """A multiple-choice question: a prompt and 2-6 options, exactly one of them right."""

    prompt: str
    options: tuple[Option, ...]

    def __post_init__(self) -> None:
        _text(self.prompt, "prompt")
        if not isinstance(self.options, tuple) or not all(
            isinstance(o, Option) for o in self.options
        ):
            raise ValueError(
                f"options: expected a tuple of Option, got {self.options!r}"
            )
        if not 2 <= len(self.options) <= 6:
            raise ValueError(
                f"options: expected 2 to 6 options, got {len(self.options)}"
            )
        right = sum(o.correct for o in self.options)
        if right != 1:
            raise ValueError(f"options: expected exactly 1 correct option, got {right}")
        texts = [o.text for o in self.options]
        if len(set(texts)) != len(texts):
            raise ValueError(f"options: expected different texts, got {texts}")


@dataclass(frozen=True)
class Mistake:
    """A named common mistake of a :class:`Numeric` question: the value it gives and the
    feedback shown when that value is typed."""

    value: float
    feedback: str

    def __post_init__(self) -> None:
        _text(self.feedback, "feedback")
        if not isinstance(self.value, (int, float)) or not math.isfinite(self.value):
            raise ValueError(f"value: expected a finite number, got {self.value!r}")


@dataclass(frozen=True)
class Numeric:
    """A question answered by typing a number: right when within ``tolerance`` of
    ``answer``; ``decimals`` is how the answer is shown, ``hint`` the feedback of a wrong
    number that is no named mistake, ``explain`` what follows "Correct" ."""

    prompt: str
    answer: float
    tolerance: float
    decimals: int
    explain: str
    hint: str
    mistakes: tuple[Mistake, ...] = ()

    def __post_init__(self) -> None:
        _text(self.prompt, "prompt")
        _text(self.explain, "explain")
        _text(self.hint, "hint")
        if not isinstance(self.answer, (int, float)) or not math.isfinite(self.answer):
            raise ValueError(f"answer: expected a finite number, got {self.answer!r}")
        if (
            not isinstance(self.tolerance, (int, float))
            or not math.isfinite(self.tolerance)
            or self.tolerance < 0
        ):
            raise ValueError(
                f"tolerance: expected a number >= 0, got {self.tolerance!r}"
            )
        if not isinstance(self.decimals, int) or not 0 <= self.decimals <= 6:
            raise ValueError(f"decimals: expected an int 0-6, got {self.decimals!r}")
        for m in self.mistakes:
            if not isinstance(m, Mistake):
                raise ValueError(f"mistakes: expected Mistake items, got {m!r}")
            if abs(m.value - self.answer) <= self.tolerance:
                raise ValueError(
                    f"mistakes: {m.value!r} is within the tolerance {self.tolerance} "
                    f"of the answer {self.answer!r}"
                )

    @property
    def shown(self) -> str:
        """The answer as the page shows it."""
        return fmt(self.answer, self.decimals)


Question = Choice | Numeric
