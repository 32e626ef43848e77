"""Fair grading of every autograded exercise, without an otter run (seconds, not minutes).

For each exercise (its answers next to its spec, in ``booktools/course/specs/<part>.py``): a
correct answer in float64, the same computed in float32, the float32 answer rounded exactly as
its prompt states ("Graded to 4 significant digits", "to 3 decimal places", "Counts exact, the
fraction to ..."), placeholders (``...``, zeros, ones, guesses of the right form such as
``L_needed = 13``), the shortcut the prompt forbids where it forbids one, its two most common
mistakes, and a blank notebook.  Each is scored as otter scores it: the question's points
shared equally by its test cases (public and hidden), a test case passing when its code raises
nothing, in a namespace holding the chapter's names the tests read (made here from the
package, small and seeded), the answer, and ``In``: the code cells the kernel ran (the
chapter's, the other exercises' solutions and the student's cell), which the tests that catch a
forbidden shortcut read.  tests/test_assignments.py checks the same scores with real otter runs
for some chapters.
``python tests/test_grading_fairness.py`` prints the table.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from _chapters import ROOT

from booktools.course.specs import SPECS, block, foundations, models, text, training

#: The parts of the book, each with its exercises' fairness answers.
PARTS = (foundations, text, block, models, training)
ANSWERS = {k: v for part in PARTS for k, v in part.ANSWERS.items()}
INPUTS = {k: v for part in PARTS for k, v in part.INPUTS.items()}
SHORTCUTS = {k: v for part in PARTS for k, v in part.SHORTCUTS.items()}
GUESSES = {k: v for part in PARTS for k, v in part.GUESSES.items()}

COLUMNS = (
    "float64",
    "float32",
    "rounded",
    "placeholder",
    "shortcut",
    "mistake 1",
    "mistake 2",
    "blank",
)
#: Prompts that ask for prose besides the stored values: the written part needs a rubric.
PROSE = re.compile(
    r"\b(?:Show that|Show on paper|Derive|Why|Predict|Explain|"
    r"What do you conclude|Which pairs|How often|compare it with source)\b",
    re.I,
)


def score(label: str, answer: dict) -> float:
    """Points an answer earns: otter's equal share per passing test case."""
    spec = SPECS[label]
    tests = spec.public + spec.hidden
    passed = 0
    for test in tests:
        try:
            exec(test, dict(answer))
            passed += 1
        except Exception:  # otter: any error fails the test case
            pass
    return spec.points * passed / len(tests)


# ---------------------------------------------------------------------------- the chapters
def _chapter(label: str) -> Path:
    (path,) = (ROOT / "chapters").glob(f"{label[3:5]}_*.md")
    return path


@cache
def _cells(label: str) -> tuple[tuple[str, str | None], ...]:
    """The chapter's code cells in order, each with the label of the exercise whose solution it
    belongs to (``None`` for the chapter's own code)."""
    out, inside, lines = (
        [],
        None,
        _chapter(label).read_text(encoding="utf-8").splitlines(),
    )
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        m = re.match(r"^`{3,}\{solution-start\}\s*(\S+)", line)
        if m:
            inside = m.group(1)
        elif re.match(r"^`{3,}\{solution-end\}", line):
            inside = None
        elif re.match(r"^`{3,}\{code-cell\}", line):
            j = i + 1
            while not re.match(r"^`{3,}\s*$", lines[j].strip()):
                j += 1
            body = lines[i + 1 : j]
            if body and body[0].strip() == "---":
                body = body[body.index("---", 1) + 1 :]
            while body and re.match(r"^:[\w-]+:", body[0]):
                body = body[1:]
            out.append(("\n".join(body), inside))
            i = j
        i += 1
    return tuple(out)


def history(label: str, own: str | None = None, solved: bool = True) -> list[str]:
    """``In`` after running the notebook: the chapter's cells and every other exercise's
    solution, then this exercise's book solution (``solved``) and the student's cell ``own``."""
    cells = [""] + [c for c, ex in _cells(label) if ex != label or solved]
    return cells + ([own] if own else [])


@cache
def rounding(label: str) -> tuple[str, int] | None:
    """How the prompt says the answer is graded: ``("sig", 4)`` for "4 significant digits",
    ``("dec", 3)`` for "3 decimal places" (counts stay exact), ``None`` when it says nothing."""
    text = _chapter(label).read_text(encoding="utf-8")
    start = text.index(f":label: {label}")
    prompt = text[start : text.index("\n```", start)]
    m = re.search(r"(\d+) (significant digits|decimal places)", prompt)
    return (
        (("sig" if m.group(2).startswith("sig") else "dec"), int(m.group(1)))
        if m
        else None
    )


# ---------------------------------------------------------------------------- variants
def rounded(value, how: tuple[str, int]):
    """``value`` with every non-integer number rounded as ``how`` says (functions: their
    results), as the decimal numbers a student would type or print."""
    kind, n = how

    def one(v: float) -> float:
        return float(f"{v:.{n - 1}e}") if kind == "sig" else round(v, n)

    if callable(value):
        return lambda *a, **k: rounded(value(*a, **k), how)
    if isinstance(value, (bool, np.bool_, int, np.integer, str)):
        return value
    if isinstance(value, (float, np.floating)):
        return one(float(value))
    if isinstance(value, np.ndarray):
        return (
            value
            if value.dtype.kind in "biu"
            else np.vectorize(one, otypes=[float])(value)
        )
    if isinstance(value, (list, tuple)):
        return type(value)(rounded(v, how) for v in value)
    return value


def filled(value, fill: int):
    """A placeholder shaped like ``value``: every number ``fill`` (0 or 1)."""
    if callable(value):
        return lambda *a, **k: filled(value(*a, **k), fill)
    if isinstance(value, np.ndarray):
        return np.full_like(value, fill)
    if isinstance(value, (bool, np.bool_)):
        return bool(fill)
    if isinstance(value, (int, np.integer, float, np.floating)):
        return type(value)(fill)
    if isinstance(value, (list, tuple)):
        return (
            type(value)(filled(v, fill) for v in value)
            if not any(isinstance(v, (str, tuple)) for v in value)
            else []
        )
    return value


def _run_cell(code: str, ctx: dict) -> dict:
    import torch
    import torch.nn.functional as F

    import formulated as fg
    from formulated import examples as ex

    ns = {"np": np, "torch": torch, "F": F, "fg": fg, "ex": ex, **ctx}
    exec(code, ns)
    return ns


def variants(label: str) -> dict[str, list[dict]]:
    """Every column's answers (a list: the column scores the best of them), each a namespace
    with ``In``."""
    ctx, answers = ANSWERS[label]()
    names = SPECS[label].names
    solved = history(label)
    out = {
        col: [{**ctx, **answers[col], "In": solved}]
        for col in ("float64", "float32", "mistake 1", "mistake 2")
    }
    how = rounding(label)
    keep = INPUTS.get(label, set())
    out["rounded"] = [
        {
            **ctx,
            "In": solved,
            **{
                k: v if k in keep or how is None else rounded(v, how)
                for k, v in answers["float32"].items()
            },
        }
    ]
    typed = {k: answers["float64"][k] for k in names}
    placeholders = [
        {k: ... for k in names},
        {k: filled(v, 0) for k, v in typed.items()},
        {k: filled(v, 1) for k, v in typed.items()},
    ]
    cells = ["\n".join(f"{k} = ..." for k in names)] * 3
    for code in GUESSES.get(label, []):
        placeholders.append(_run_cell(code, ctx))
        cells.append(code)
    out["placeholder"] = [
        {**ctx, **p, "In": history(label, own, solved=False)}
        for p, own in zip(placeholders, cells)
    ]
    if label in SHORTCUTS:
        code = SHORTCUTS[label]
        out["shortcut"] = [
            {**_run_cell(code, ctx), "In": history(label, code, solved=False)}
        ]
    out["blank"] = [{**ctx, "In": history(label, solved=False)}]
    return out


def table(label: str) -> dict[str, float | None]:
    """The scores of every column (``None``: no forbidden shortcut to try)."""
    found = variants(label)
    return {
        col: max(score(label, a) for a in found[col]) if col in found else None
        for col in COLUMNS
    }


# ---------------------------------------------------------------------------- tests
def test_every_autograded_exercise_has_its_answers():
    auto = sorted(k for k, s in SPECS.items() if s.kind == "auto")
    assert sorted(ANSWERS) == auto, set(ANSWERS) ^ set(auto)


#: Labels whose grading runs long (chapter 11's GELU sweep, about 27 s; ex-16-3, about 10 s):
#: make test runs them, make check (``-m "not slow"``) leaves them out.
SLOW_LABELS = frozenset({"ex-11-3", "ex-16-3"})


@pytest.mark.parametrize(
    "label",
    [
        pytest.param(label, marks=pytest.mark.slow) if label in SLOW_LABELS else label
        for label in sorted(ANSWERS)
    ],
)
def test_correct_answers_score_full_marks_and_wrong_ones_do_not(label):
    """Full marks for a right answer, also in float32 and rounded as the prompt states; none
    for a placeholder or a blank; less than full for a forbidden shortcut or a mistake."""
    row = table(label)
    points = SPECS[label].points
    print(label, row)
    for col in ("float64", "float32", "rounded"):
        assert row[col] == points, (
            f"{label}: a correct answer ({col}) scores {row[col]}"
        )
    for col in ("shortcut", "mistake 1", "mistake 2"):
        assert row[col] is None or row[col] < points, f"{label}: {col} gets full marks"
    for col in ("placeholder", "blank"):
        assert row[col] == 0, f"{label}: a {col} answer scores {row[col]}"


def test_every_numeric_prompt_states_how_it_is_graded():
    """An exercise whose answer holds a non-integer number says how precise it must be."""

    def has_float(v) -> bool:
        if callable(v):
            return False
        a = np.asarray(v, dtype=object).ravel()
        return any(
            isinstance(x, (float, np.floating)) and not float(x).is_integer() for x in a
        )

    missing = []
    for label in set(ANSWERS) - {"ex-12-2"}:  # a_limit: one of five given values, exact
        answers = ANSWERS[label]()[1]["float64"]
        outputs = {
            k: v for k, v in answers.items() if k not in INPUTS.get(label, set())
        }
        if any(has_float(v) for v in outputs.values()) and rounding(label) is None:
            missing.append(label)
    assert not missing, f"no precision stated in the prompt of {missing}"


def test_every_written_part_of_an_autograded_exercise_has_a_rubric():
    """ "Show that...", "Why...", "Predict..." in an autograded prompt: a written part with its
    own rubric (an answer cell graded by hand), which accounts for its points."""
    from booktools.course.assign import exercises

    prose, rubrics = set(), set()
    for chapter in sorted((ROOT / "chapters").glob("[0-9][0-9]_*.md")):
        for ex in exercises(chapter.read_text(encoding="utf-8")):
            spec = SPECS[ex.label]
            if spec.kind == "auto" and PROSE.search(ex.prompt):
                prose.add(ex.label)
            if spec.written:
                rubrics.add(ex.label)
                assert spec.written_part.kind == "written" and spec.written_points > 0
                assert re.search(
                    r"\b(?:\d|one|half|full)\b.*\bpoints?\b", spec.written, re.I
                ), f"{ex.label}: the rubric should say what earns points"
    assert prose and prose == rubrics, (
        f"no rubric for {sorted(prose - rubrics)}; "
        f"a rubric without prose asked: {sorted(rubrics - prose)}"
    )


def _reads_a_module_of_this_file(x):
    assert np.isfinite(x)


def _returns_its_verdict(x):
    return x == 1


def _pastes_over_its_argument(_pastes_over_its_argument):
    assert _pastes_over_its_argument


def _cell_without_its_names():
    x = 1
    print(x)


def test_a_test_function_becomes_a_self_contained_otter_test():
    """test_source pastes the helpers a test calls (ex-01-4's least-squares fit), the test and
    its call with the notebook's names, and the result runs in a bare namespace holding them:
    a right answer passes, a wrong one fails.  A test that reads a module of its own file (the
    notebook may not hold it), returns a value (otter would print it) or is named like one of
    its arguments is refused, as is a student's cell that does not return its names."""
    from booktools.course.specs import spec
    from booktools.course.specs.foundations import theta0_is_the_least_squares_intercept

    source = spec.test_source(theta0_is_the_least_squares_intercept)
    assert source.startswith("def least_squares_line(X, y):\n")
    assert source.endswith("\ntheta0_is_the_least_squares_intercept(X, y, theta0)")
    assert '"""' not in source  # docstrings dropped: a bare string would print
    ctx, answers = ANSWERS["ex-01-4"]()
    exec(source, {**ctx, **answers["float64"]})
    with pytest.raises(AssertionError):
        exec(source, {**ctx, **answers["mistake 2"]})
    with pytest.raises(ValueError, match="global name 'np'"):
        spec.test_source(_reads_a_module_of_this_file)
    with pytest.raises(ValueError, match="print nothing"):
        spec.auto("x", [_returns_its_verdict], ["assert x"])
    with pytest.raises(ValueError, match="also functions it pastes"):
        spec.test_source(_pastes_over_its_argument)
    with pytest.raises(ValueError, match="ends with a return"):
        spec.cell_of(_cell_without_its_names)


def test_the_shortcut_check_traces_a_value_through_helpers_and_cells():
    """calls_behind follows a value through helper variables, functions and cells, and ignores
    calls that only print or compare."""
    import math

    from booktools.course.specs import calls_behind

    cells = [
        "",
        "import math\nimport numpy as np",
        "def exps(xs):\n    return [math.exp(x) for x in xs]\nt = exps([1, 2])",
        "w = [x / sum(t) for x in t]\nprint(np.abs(np.array(w)).max())",
        "v = np.exp([1.0])\nu = v",
    ]
    env = {"In": cells, "math": math, "np": np, "exps": None}
    assert sorted(c for c, _ in calls_behind(["w"], env)) == ["exps", "math.exp", "sum"]
    assert ("np.exp", "numpy") in calls_behind(["u"], env)
    assert calls_behind(["w"], {}) == []


if __name__ == "__main__":
    print("| exercise | " + " | ".join(COLUMNS) + " |")
    print("|---" * (len(COLUMNS) + 1) + "|")
    for label in sorted(ANSWERS):
        row = table(label)
        print(
            f"| {label} | "
            + " | ".join("—" if row[c] is None else f"{row[c]:.3g}" for c in COLUMNS)
            + " |"
        )


@pytest.mark.parametrize(
    "label", sorted(k for k in ANSWERS if "copied" in ANSWERS[k]()[1])
)
def test_values_printed_in_the_chapter_do_not_score(label):
    """An answer copied from the chapter's own output (the student edition prints it) is not
    the answer asked: ex-01-4 fits the data without its first five points."""
    ctx, answers = ANSWERS[label]()
    got = score(label, {**ctx, **answers["copied"], "In": history(label)})
    assert got < SPECS[label].points, (
        f"{label}: the chapter's printed values score {got}"
    )


@pytest.mark.parametrize("a0", [0, 1, 99, 100, 101, 150, 1729.4, 2999, 3000])
def test_least_error_index_finds_a_v_shaped_errors_least(a0):
    """The coarse-to-fine search of ex-11-3's tests, on errors that fall then rise with their
    least anywhere: at the grid's ends, on and between the coarse points."""
    al = np.arange(3001.0)[:, None]
    found = block.least_error_index(lambda a: np.abs(a[:, 0] - a0), al)
    assert found == int(np.argmin(np.abs(al[:, 0] - a0))), found


@pytest.mark.slow  # the whole grid: 48 million errors
def test_least_error_index_finds_the_whole_grids_best_for_both_fits():
    """For ex-11-3's two fits, the constant the search finds is the whole grid's best (every
    one of the 3001 constants computed, 200 at a time)."""
    import torch

    xs, al = block.gelu_search_grid()
    fits = {
        "x sigmoid(a x) against GELU": lambda a: (
            (xs * torch.sigmoid(a * xs) - torch.nn.functional.gelu(xs)).abs().amax(-1)
        ),
        "sigmoid(a x) against Phi": lambda a: (
            (torch.sigmoid(a * xs) - torch.special.ndtr(xs)).abs().amax(-1)
        ),
    }
    for name, err in fits.items():
        whole = torch.cat([err(al[i : i + 200]) for i in range(0, len(al), 200)])
        assert block.least_error_index(err, al) == int(whole.argmin()), name
