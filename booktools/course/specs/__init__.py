"""How every exercise of the book is graded: its kind, the names it defines, its tests.

One entry of :data:`SPECS` per ``{exercise}`` label in the chapters (``tests/test_teaching.py``
checks both directions).  :mod:`booktools.course.assign` turns them into otter-grader
questions:

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

The exercises live by part of ``_toc.yml``, each with its spec, its tests (functions, pasted
into the student's notebook) and its fairness answers: :mod:`~booktools.course.specs.foundations`
(chapters 1-4), :mod:`~booktools.course.specs.text` (5-7), :mod:`~booktools.course.specs.block`
(8-12), :mod:`~booktools.course.specs.models` (13-16), :mod:`~booktools.course.specs.training`
(17-19).  The record, the helpers that tests paste in, and how a test function becomes an otter
test: :mod:`booktools.course.specs.spec`.
"""

from __future__ import annotations

from booktools.course.specs import block, foundations, models, text, training
from booktools.course.specs.block import NO_SHORTCUT
from booktools.course.specs.spec import (
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

#: Every exercise of the book, by label, in the book's order.
SPECS: dict[str, Spec] = {
    **foundations.SPECS,
    **text.SPECS,
    **block.SPECS,
    **models.SPECS,
    **training.SPECS,
}
