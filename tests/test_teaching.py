"""Assignments from the chapters (booktools.course.assign, .grading, .leak_scan): parsing, grading
specs, leak scan.

These tests need no otter run; tests/test_assignments.py generates and grades for real.
"""

from __future__ import annotations

import json
import math
import re

import pytest
from _chapters import MYST_HEADER, ROOT

from booktools.build.toc import toc_files
from booktools.course import assign, grading, leak_scan
from booktools.course.specs import SPECS, Spec, auto, open_ended, written

CHAPTERS = [ROOT / f"{c}.md" for c in toc_files() if re.match(r"chapters/\d\d_", c)]

TOY = (
    MYST_HEADER
    + """
# Toy

```{code-cell} python3
x = 1
```

```{exercise}
:label: ex-99-1

What is $1+1$? See {doc}`01_learning_from_data`.
```

````{solution} ex-99-1
:class: dropdown

It is 2, because adding one apple to another apple gives two apples here.

```python
print(2)
```
````

```{exercise}
:label: ex-99-2

Compute $2^{10}$ and store it in `answer`.
```

```{solution-start} ex-99-2
:class: dropdown
```

Powers of two double each time, so the tenth power is 1024 exactly as expected here.

```{code-cell} python3
answer = 2 ** 10  # SECRET-CODE of the toy solution
```

```{solution-end}
```

```{exercise}
:label: ex-99-3

Play with `x`.
```

Closing words.
"""
)
TOY_SPECS = {
    "ex-99-1": written("Two points for 2."),
    "ex-99-2": auto(
        "answer", ["assert isinstance(answer, int)"], ["assert answer == 2 ** 10"]
    ),
    "ex-99-3": open_ended(),
}


def test_exercises_are_found_with_their_solutions():
    found = assign.exercises(
        TOY.replace(
            "\n```\n\nClosing",
            "\n```\n\n```{solution} ex-99-3\nAnything.\n```\n\nClosing",
        )
    )
    assert [e.label for e in found] == ["ex-99-1", "ex-99-2", "ex-99-3"]
    assert (
        found[0].solution_text.startswith("It is 2") and not found[0].has_code_solution
    )
    assert found[1].solution_code == (
        "answer = 2 ** 10  # SECRET-CODE of the toy solution",
    )
    assert "Powers of two" in found[1].solution_text
    assert found[1].prompt == "Compute $2^{10}$ and store it in `answer`."


def test_master_notebook_has_one_question_per_graded_exercise(tmp_path):
    src = tmp_path / "99_toy.md"
    src.write_text(TOY)
    nb = assign.master_notebook(src, specs=TOY_SPECS)
    raw = [c.source for c in nb.cells if c.cell_type == "raw"]
    assert raw[0].startswith("# ASSIGNMENT CONFIG")
    assert (
        sum(r.startswith("# BEGIN QUESTION") for r in raw) == 2
    )  # the open one is not graded
    assert 'name: "ex-99-2"' in "\n".join(raw) and "manual: true" in "\n".join(raw)
    sources = [c.source for c in nb.cells]
    solution = next(s for s in sources if "SECRET-CODE" in s)
    assert solution.startswith("# Exercise ex-99-2: define answer\n# BEGIN SOLUTION")
    assert "# HIDDEN\nassert answer == 2 ** 10" in sources
    assert any(
        "*01_learning_from_data*" in s for s in sources
    )  # roles become plain text
    assert not any("{solution" in s for s in sources)


def test_bad_specs_and_chapters_get_clear_errors(tmp_path):
    src = tmp_path / "99_toy.md"
    src.write_text(TOY)
    with pytest.raises(KeyError, match="no entry in"):
        assign.master_notebook(src, specs={})
    unnamed = {**TOY_SPECS, "ex-99-2": auto("result", ["assert 1"], ["assert 1"])}
    with pytest.raises(ValueError, match="must name `result`"):
        assign.master_notebook(src, specs=unnamed)
    src.write_text(
        TOY.replace("Closing words.", "```{code-cell} python3\nanswer = 3\n```")
    )
    with pytest.raises(ValueError, match="rebound by a later cell"):
        assign.master_notebook(src, specs=TOY_SPECS)
    with pytest.raises(ValueError, match="never closed"):
        assign.exercises("```{exercise}\n:label: ex-a\n")
    with pytest.raises(ValueError, match="no ':label:'"):
        assign.exercises("```{exercise}\nno label\n```\n")
    with pytest.raises(ValueError, match="never ended"):
        assign.exercises(
            "```{exercise}\n:label: ex-a\n```\n```{solution-start} ex-a\n```\n"
        )
    with pytest.raises(FileNotFoundError, match="does not exist"):
        assign.master_notebook(tmp_path / "nope.md")
    with pytest.raises(ValueError, match="kind"):
        Spec("graded")
    with pytest.raises(ValueError, match="needs names"):
        auto("x", [], ["assert x"])


def test_every_exercise_of_the_book_has_a_kind_and_every_spec_an_exercise():
    labels = [
        e.label
        for ch in CHAPTERS
        for e in assign.exercises(ch.read_text(encoding="utf-8"))
    ]
    assert sorted(labels) == sorted(SPECS), set(labels) ^ set(SPECS)
    for (
        ch
    ) in CHAPTERS:  # names in backticks in the text, not rebound later, auto has code
        assign.master_notebook(ch)
    counts = grading.kind_counts(CHAPTERS)
    print("exercises by kind:", counts)
    assert counts["auto"] >= 15 and sum(counts.values()) == len(labels)


def _student_file(tmp_path, name: str, markdown: str):
    nb = {
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": markdown}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / name
    path.write_text(json.dumps(nb))
    return path


def test_leak_scan_finds_numbers_text_and_code_of_solutions(tmp_path):
    ch11 = ROOT / "chapters" / "11_ffn_gelu.md"
    # the prose chapter 11 had above exercise 11-2 (its answer, rounded)
    old = _student_file(
        tmp_path,
        "11_old.ipynb",
        "the exact minimum is $-0.16997$ at $x \\approx -0.7518$",
    )
    assert len(leak_scan.leaks([old], [ch11])) == 2
    clean = _student_file(
        tmp_path, "11_clean.ipynb", "GELU dips below zero near $-0.75$."
    )
    assert leak_scan.leaks([clean], [ch11]) == []
    toy = tmp_path / "99_toy.md"
    toy.write_text(TOY)
    code = _student_file(
        tmp_path, "99_a.ipynb", "```\nanswer = 2 ** 10  # SECRET-CODE\n```"
    )
    text = _student_file(
        tmp_path,
        "99_b.ipynb",
        "Adding one apple to another apple gives two apples here, they say.",
    )
    assert leak_scan.leaks([code], [toy]) == []  # too short a line to be a fingerprint
    assert "phrase" in leak_scan.leaks([text], [toy])[0]
    # a later chapter may reuse an earlier exercise's result; an earlier one may not
    later = _student_file(tmp_path, "12_later.ipynb", "GELU's minimum, $-0.169971$")
    earlier = _student_file(tmp_path, "10_earlier.ipynb", "GELU's minimum, $-0.169971$")
    assert leak_scan.leaks([later], [ch11]) == [] and leak_scan.leaks([earlier], [ch11])


def _run(tests: tuple[str, ...], namespace: dict) -> bool:
    """Whether every test passes on ``namespace`` (as otter runs them: in the notebook's
    globals, after the answers are defined)."""
    try:
        for test in tests:
            exec(test, dict(namespace))
    except AssertionError:
        return False
    return True


def _attention(scale: bool):
    import numpy as np

    from formulated import examples as ex

    def self_attention(X):
        Q, K, V = X @ ex.QKV_W_QUERY, X @ ex.QKV_W_KEY, X @ ex.QKV_W_VALUE
        S = Q @ K.T / (np.sqrt(K.shape[1]) if scale else 1)
        W = np.exp(S - S.max(1, keepdims=True))
        return W / W.sum(1, keepdims=True) @ V

    return self_attention


# (label, a correct answer, a common wrong one): the hidden tests accept the first and reject
# the second; the answers are computed here another way than in the chapters' solutions.
ANSWERS = [
    (
        "ex-04-2",
        {
            "rnn_count": lambda d, H: H * d + H * H + 2 * H,
            "lstm_count": lambda d, H: 4 * H * (d + H + 2),
        },
        {
            "rnn_count": lambda d, H: (
                H * (d + H) + H
            ),  # one bias vector, not PyTorch's two
            "lstm_count": lambda d, H: 4 * (H * (d + H) + H),
        },
    ),
    (
        "ex-06-1",
        {"my_merges": [("b", "c</w>"), ("a", "b</w>"), ("a", "bc</w>")]},
        {"my_merges": [("a", "b</w>"), ("b", "c</w>"), ("a", "bc</w>")]},
    ),  # not the most frequent
    (
        "ex-08-3",
        {"self_attention": _attention(scale=True)},
        {"self_attention": _attention(scale=False)},
    ),  # missing 1/sqrt(D)
    (
        "ex-16-4",
        {"untied": 163_037_184, "share": 38_597_376 / 163_037_184},
        {"untied": 163_037_184, "share": 38_597_376 / 124_439_808},
    ),  # share of the tied model
    (
        "ex-18-3",
        {"by_hand": 65 * 128 + 128 * 128 + 4 * (12 * 128**2 + 13 * 128) + 2 * 128},
        {"by_hand": 65 * 128 + 128 * 128 + 4 * (12 * 128**2 + 13 * 128)},
    ),  # no final LayerNorm
    (
        "ex-14-2",
        {"earliest": [19 - 2 * L for L in (1, 2, 3)]},
        {"earliest": [19 - 3 * L for L in (1, 2, 3)]},
    ),  # w, not w - 1, per layer
    (
        "ex-17-2",
        {"uniform_loss": math.log, "uniform_perplexity": float},
        {"uniform_loss": math.log2, "uniform_perplexity": lambda V: 2 ** math.log2(V)},
    ),  # bits
]


@pytest.mark.parametrize("label, right, wrong", ANSWERS, ids=[a[0] for a in ANSWERS])
def test_hidden_tests_accept_a_correct_answer_and_reject_a_common_mistake(
    label, right, wrong
):
    spec = SPECS[label]
    assert _run(spec.public + spec.hidden, right)
    assert not _run(spec.hidden, wrong)


def test_bpe_check_accepts_any_tie_break_and_rejects_an_incomplete_run():
    from booktools.course.specs import bpe_merges_problem

    tie = {"ab": 2, "cd": 2}
    assert bpe_merges_problem(tie, [("a", "b</w>"), ("c", "d</w>")]) == ""
    assert bpe_merges_problem(tie, [("c", "d</w>"), ("a", "b</w>")]) == ""
    assert "still in pieces" in bpe_merges_problem(tie, [("c", "d</w>")])
    assert "most frequent" in bpe_merges_problem(
        {"ab": 3, "cd": 1}, [("c", "d</w>"), ("a", "b</w>")]
    )


def test_every_written_exercise_has_its_own_rubric():
    """A rubric says what earns the points of this exercise: not the generic default sentence,
    not another exercise's text, and it accounts for every point ("1 point: ...", "half")."""

    generic = written().rubric
    rubrics = {label: s.rubric for label, s in SPECS.items() if s.kind == "written"}
    assert len(rubrics) >= 40
    assert not [label for label, r in rubrics.items() if r == generic]
    assert len(set(rubrics.values())) == len(rubrics), "two exercises share a rubric"
    vague = [
        label
        for label, r in rubrics.items()
        if not re.search(
            r"\b(?:\d|one|half|full|each)\b.*\bpoints?\b|\bpoints?\b.*\bhalf\b", r, re.I
        )
    ]
    assert not vague, f"rubrics that do not say what earns the points: {vague}"
