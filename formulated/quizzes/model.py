"""The questions of the chapters' quizzes, as data: a multiple-choice question whose options
each carry their feedback, and a numeric question with a tolerance whose named mistakes (the
value a common slip gives) carry theirs.  Every record takes keyword arguments only, so that
two adjacent strings (an option's text and its feedback) cannot be swapped unnoticed.

The numbers are computed by the book's functions when a quiz is built (one module per part of
the book: :mod:`formulated.quizzes.foundations` … :mod:`~.training`), never typed.  The
options are shown in an order shuffled per question (:func:`shuffled`), the same on every
build, the right option's position spread evenly over the book (:func:`key_positions`).
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass, replace

import numpy as np

__all__ = [
    "Option",
    "Choice",
    "Mistake",
    "Numeric",
    "Question",
    "fmt",
    "tolerance_text",
    "shuffled",
    "key_positions",
]


def fmt(value: float, decimals: int) -> str:
    """``value`` rounded to ``decimals`` places, with thousands separators for integers
    (``fmt(23835648, 0)`` -> ``"23,835,648"``)."""
    if decimals == 0:
        return f"{round(value):,}"
    return f"{value:.{decimals}f}"


def tolerance_text(tolerance: float) -> str:
    """The tolerance as the page prints it: every digit it has and no more, so that the
    printed number is the one applied (``0.005`` -> ``"0.005"``, never ``"0.01"``)."""
    return np.format_float_positional(tolerance, trim="-")


def _text(value: object, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{name}: expected a non-empty string, got {value!r}")
    return value


def _number(value: object, name: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
    ):
        raise ValueError(f"{name}: expected a finite number, got {value!r}")
    return value


@dataclass(frozen=True, kw_only=True)
class Option:
    """One option of a :class:`Choice`: its text, the feedback shown when it is chosen, and
    whether it is the right one.  A wrong option names the mistake that leads to it."""

    text: str
    feedback: str
    correct: bool = False

    def __post_init__(self) -> None:
        _text(self.text, "text")
        _text(self.feedback, "feedback")
        if not isinstance(self.correct, bool):
            raise ValueError(f"correct: expected True or False, got {self.correct!r}")


@dataclass(frozen=True, kw_only=True)
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

    @property
    def key(self) -> Option:
        """The right option."""
        return next(o for o in self.options if o.correct)


@dataclass(frozen=True, kw_only=True)
class Mistake:
    """A named common mistake of a :class:`Numeric` question: the value it gives and the
    feedback shown when that value is typed."""

    value: float
    feedback: str

    def __post_init__(self) -> None:
        _text(self.feedback, "feedback")
        _number(self.value, "value")


@dataclass(frozen=True, kw_only=True)
class Numeric:
    """A question answered by typing a number: right when within ``tolerance`` of
    ``answer`` (the page prints that same tolerance, :func:`tolerance_text`); ``decimals``
    is how the answer is shown, ``hint`` the feedback of a wrong number that is no named
    mistake, ``explain`` what follows "Correct"."""

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
        _number(self.answer, "answer")
        if _number(self.tolerance, "tolerance") < 0:
            raise ValueError(
                f"tolerance: expected a number >= 0, got {self.tolerance!r}"
            )
        if (
            isinstance(self.decimals, bool)
            or not isinstance(self.decimals, int)
            or not 0 <= self.decimals <= 6
        ):
            raise ValueError(f"decimals: expected an int 0-6, got {self.decimals!r}")
        if not isinstance(self.mistakes, tuple):
            raise ValueError(
                f"mistakes: expected a tuple of Mistake, got {self.mistakes!r}"
            )
        for m in self.mistakes:
            if not isinstance(m, Mistake):
                raise ValueError(f"mistakes: expected Mistake items, got {m!r}")
            if abs(m.value - self.answer) <= self.tolerance:
                raise ValueError(
                    f"mistakes: {m.value!r} is within the tolerance {self.tolerance} "
                    f"of the answer {self.answer!r}"
                )
        if abs(float(self.shown.replace(",", "")) - self.answer) > self.tolerance:
            raise ValueError(
                f"decimals: the answer shown with {self.decimals} decimals, "
                f"{self.shown}, is outside the tolerance {self.tolerance}"
            )

    @property
    def shown(self) -> str:
        """The answer as the page shows it."""
        return fmt(self.answer, self.decimals)

    @property
    def tolerance_shown(self) -> str:
        """The tolerance as the page prints it: the one the check applies."""
        return tolerance_text(self.tolerance)


Question = Choice | Numeric


def _seed(key: str) -> int:
    """A seed from a text, the same in every Python process (``hash()`` is salted)."""
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big")


def shuffled(question: Question, key: str, position: int) -> Question:
    """``question`` with its options in the order the page shows them: the right option at
    ``position`` (0-based), the wrong ones around it in an order drawn from a seed made of
    ``key`` (``"ch08-2"``: the quiz and the question's number), the same on every build.
    A numeric question is returned unchanged."""
    if not isinstance(key, str) or not key:
        raise ValueError(f"key: expected a non-empty string, got {key!r}")
    if not isinstance(question, Choice):
        return question
    n = len(question.options)
    if (
        isinstance(position, bool)
        or not isinstance(position, int)
        or not 0 <= position < n
    ):
        raise ValueError(
            f"position: expected an int from 0 to {n - 1}, got {position!r}"
        )
    wrong = [o for o in question.options if not o.correct]
    random.Random(_seed(key)).shuffle(wrong)
    wrong.insert(position, question.key)
    return replace(question, options=tuple(wrong))


def key_positions(counts: list[int]) -> list[int]:
    """Where to show the right option of each multiple-choice question of the book, given
    their numbers of options in the order of the book: among the questions with ``n``
    options, each run of ``n`` consecutive ones puts its key at every position once, in an
    order drawn from a fixed seed.  So across the book every position holds the key about
    equally often, and no question's position follows from the one before."""
    seen: dict[int, int] = {}
    positions = []
    for n in counts:
        k = seen.get(n, 0)
        seen[n] = k + 1
        block = list(range(n))
        random.Random(_seed(f"{n} options, run {k // n}")).shuffle(block)
        positions.append(block[k % n])
    return positions
