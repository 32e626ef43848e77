"""Grading assignments with ``otter run``: one submission, many (a CSV), the book's own
solutions (which must get full marks); answers filled into a student notebook; how many
exercises of each kind the chapters have.

The student notebooks and autograder zips come from :mod:`booktools.course.assign`.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from booktools.course.assign import autograder_zip_path, exercises
from booktools.course.specs import SPECS

__all__ = [
    "fill_answers",
    "solutions",
    "grade",
    "grade_all",
    "check_solutions",
    "kind_counts",
]

#: Decimals of the points in ``grade``'s scores and ``grades.csv``: otter writes a share of a
#: question's points as 0.66667, whose sums read 1.6666699999999999.
DECIMALS = 4


def fill_answers(student: str | Path, answers: dict[str, str], out: str | Path) -> Path:
    """A copy of a student notebook with the answer cell of each exercise in ``answers``
    (label -> code) filled in: a submission, as a student would hand it in."""
    import nbformat

    nb = nbformat.read(student, as_version=4)
    todo = dict(answers)
    for cell in nb.cells:
        m = (
            re.match(r"# Exercise (\S+): define", cell.source)
            if cell.cell_type == "code"
            else None
        )
        if m and m.group(1) in todo:
            cell.source = cell.source.splitlines()[0] + "\n" + todo.pop(m.group(1))
    if todo:
        raise KeyError(f"answers: no answer cell for {sorted(todo)} in {student}")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out)
    return out


def solutions(chapter: str | Path) -> dict[str, str]:
    """The chapter's solution code of each autograded exercise (label -> code)."""
    return {
        ex.label: "\n\n".join(ex.solution_code)
        for ex in exercises(Path(chapter).read_text(encoding="utf-8"))
        if SPECS[ex.label].kind == "auto"
    }


def grade(
    submission: str | Path,
    autograder: str | Path,
    out: str | Path,
    *,
    timeout: float = 900,
) -> dict[str, float]:
    """Grade one submission with ``otter run``: points per question and ``"total"``, rounded to
    :data:`DECIMALS` decimals.

    otter runs from :mod:`booktools.course.otter_cli`, so that a kernel reply whose wake-up is
    missed does not stall a cell for ever (otter gives its cells no time limit).  As a last
    safeguard, a run that takes longer than ``timeout`` seconds is tried once more, then reported
    as an error.
    """
    import zipfile

    with zipfile.ZipFile(autograder) as z:
        if not any(n.startswith("tests/") for n in z.namelist()):
            raise ValueError(
                f"autograder: {Path(autograder).name} has no tests, since its "
                "chapter has no autograded exercise; grade the written answers by "
                "hand (appendix C)"
            )
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    # otter's command line, with kernel replies awaited in slices (booktools.course.otter_cli)
    cmd = [
        sys.executable,
        "-m",
        "booktools.course.otter_cli",
        "run",
        "--no-logo",
        "-a",
        str(Path(autograder).resolve()),
        "-o",
        str(out.resolve()),
        str(Path(submission).resolve()),
    ]
    for attempt in (1, 2):
        try:
            done = subprocess.run(
                cmd, capture_output=True, text=True, cwd=out, timeout=timeout
            )
            break
        except subprocess.TimeoutExpired:
            if attempt == 2:
                raise RuntimeError(
                    f"otter run: no result for {submission} after twice {timeout:.0f} s"
                ) from None
    results = out / "results.json"
    if done.returncode != 0 or not results.is_file():
        raise RuntimeError(
            f"otter run failed for {submission}:\n{done.stdout}\n{done.stderr}"
        )
    tests = json.loads(results.read_text())["tests"]
    scores = {
        t["name"]: round(float(t["score"]), DECIMALS)
        for t in tests
        if t.get("score") is not None
    }
    scores["total"] = round(sum(scores.values()), DECIMALS)
    return scores


def kind_counts(chapters: list[str | Path]) -> dict[str, int]:
    """How many exercises of the given chapters are autograded, written and open-ended."""
    counts = {"auto": 0, "written": 0, "open": 0}
    for ch in chapters:
        for ex in exercises(Path(ch).read_text(encoding="utf-8")):
            counts[SPECS[ex.label].kind] += 1
    return counts


def grade_all(
    submissions: list[str | Path],
    autograder: str | Path,
    out: str | Path,
    *,
    timeout: float = 900,
) -> Path:
    """Grade every submission with ``otter run`` and write ``out/grades.csv``: one row per
    submission (its path as given), one column per autograded exercise, and the total.  Each
    submission's ``results.json`` goes to ``out/<folder>-<name>/``."""
    import csv

    out = Path(out)
    rows = []
    for sub in map(Path, submissions):
        scores = grade(
            sub, autograder, out / f"{sub.parent.name}-{sub.stem}", timeout=timeout
        )
        rows.append({"submission": str(sub), **scores})
    columns = (
        ["submission"]
        + sorted({k for r in rows for k in r} - {"submission", "total"})
        + ["total"]
    )
    target = out / "grades.csv"
    with target.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return target


def check_solutions(chapter: str | Path, out: str | Path) -> dict[str, float]:
    """Grade the chapter's own solutions (the autograder notebook) with ``otter run``; raise if
    they do not get full marks, which would mean a test rejects a correct answer."""
    chapter, out = Path(chapter), Path(out)
    if not solutions(chapter):
        return {"total": 0.0}  # only written and open-ended exercises: nothing to run
    notebook = out / chapter.stem / "autograder" / f"{chapter.stem}.ipynb"
    scores = grade(
        notebook, autograder_zip_path(out, chapter), out / chapter.stem / "check"
    )
    possible = sum(SPECS[label].points for label in solutions(chapter))
    if scores["total"] != possible:
        raise RuntimeError(
            f"{chapter.name}: the book's own solutions score {scores['total']} "
            f"of {possible}: {scores}"
        )
    return scores
