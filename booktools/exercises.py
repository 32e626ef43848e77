"""How every exercise of the book is graded: its kind, the names it defines, its tests.

One entry of :data:`SPECS` per ``{exercise}`` label in the chapters (``tests/test_teaching.py``
checks both directions).  :mod:`booktools.assign` turns them into otter-grader questions:

* ``auto``: the exercise text names every variable in :attr:`Spec.names` (in backticks); the
  chapter's solution code defines them.  :attr:`Spec.public` tests run when a student calls
  ``grader.check``; they check form and consistency and never reveal the answer.
  :attr:`Spec.hidden` tests run only in the autograder; they compare with an independent
  reference (PyTorch, ``transformers``, a count done another way), accept every correct answer
  (tolerances, any seed, any valid tie-break) and reject the common wrong ones.
* ``written``: a Markdown answer graded by hand; the chapter's solution is the reference answer
  and :attr:`Spec.rubric` says how to award the points.
* ``open``: an answer cell, not graded.

An ``auto`` exercise whose prompt also asks for prose ("Show that...", "Why...", "Predict...")
has a written part: :attr:`Spec.written` is its rubric, graded by hand in an otter question of
its own (``<label>-written``, a Markdown answer cell).

A test is a few ``assert`` statements run in the student's notebook (its names are those of the
chapter and of the answer); it prints nothing (otter compares printed output).  The specs live
in ``booktools/exercise_specs_written.py`` and ``booktools/exercise_specs_auto_[ab].py``; the
record and the helpers pasted into tests in :mod:`booktools.exercise_spec`.
"""

from __future__ import annotations

from booktools.exercise_spec import (
    WRITTEN_PART_SUFFIX,
    Spec,
    auto,
    bpe_merges_problem,
    calls_behind,
    open_ended,
    public_message,
    source_of,
    written,
)
from booktools.exercise_specs_auto_a import SPECS as _AUTO_A
from booktools.exercise_specs_auto_b import NO_SHORTCUT
from booktools.exercise_specs_auto_b import SPECS as _AUTO_B
from booktools.exercise_specs_written import SPECS as _WRITTEN

__all__ = [
    "Spec",
    "SPECS",
    "auto",
    "written",
    "open_ended",
    "bpe_merges_problem",
    "public_message",
    "NO_SHORTCUT",
    "calls_behind",
    "source_of",
    "WRITTEN_PART_SUFFIX",
]

#: Every exercise of the book, by label.
SPECS: dict[str, Spec] = {**_WRITTEN, **_AUTO_A, **_AUTO_B}
