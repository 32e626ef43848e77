"""Assignments from the book's chapters: otter-grader notebooks, autograder zips, a leak scan.

Appendix C is the user's guide.  From each chapter (a MyST-Markdown notebook with ``{exercise}``
directives and their solutions) this command builds an otter-assign master notebook, a student
notebook and an autograder zip; it then scans the student files for every solution's text,
numbers and code, and (``--check``) grades the chapter's own solutions, which must get full
marks.  ``grade`` grades the students' submissions with ``otter run`` into a CSV.

Command line::

    python -m booktools assign chapters/[0-9][0-9]_*.md --out _build/assignments [--check]
    python -m booktools grade submissions/*.ipynb --autograder ZIP --out grades/

Where the code lives (this module is the command line only):

* :mod:`booktools.course.assign` — the MyST exercise parser (``exercises``), the master notebook,
  ``write_assignment(s)``, the student notebook and autograder zip paths;
* :mod:`booktools.course.wheel` — the book's wheel and the autograder's requirements;
* :mod:`booktools.course.grading` — ``grade``, ``grade_all``, ``check_solutions``, ``fill_answers``,
  ``solutions``, ``kind_counts``;
* :mod:`booktools.course.leak_scan` — ``leaks`` and ``solution_fingerprints``;
* :mod:`booktools.course.specs` — each exercise's kind and tests (``SPECS``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from booktools.course.assign import write_assignments
from booktools.course.grading import check_solutions, grade_all, kind_counts
from booktools.course.leak_scan import leaks

__all__ = ["main"]


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["grade"]:
        g = argparse.ArgumentParser(
            prog="python -m booktools grade",
            description="Grade submissions with otter run; write a CSV.",
        )
        g.add_argument("submissions", nargs="+", help="the students' .ipynb files")
        g.add_argument(
            "--autograder", required=True, help="the chapter's autograder zip"
        )
        g.add_argument("--out", required=True, help="folder for results and grades.csv")
        a = g.parse_args(argv[1:])
        print(grade_all(a.submissions, a.autograder, a.out))
        return
    p = argparse.ArgumentParser(
        prog="python -m booktools assign",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("chapters", nargs="+", help="MyST chapter files (chapters/*.md)")
    p.add_argument("--out", required=True, help="folder for the assignments")
    p.add_argument(
        "--check",
        action="store_true",
        help="also grade each chapter's own solutions and require full marks",
    )
    args = p.parse_args(argv)
    students = write_assignments(args.chapters, args.out)
    for path in students:
        print(path)
    found = leaks(students, args.chapters)
    if found:
        raise SystemExit("solutions leak into student material:\n" + "\n".join(found))
    if args.check:
        for ch in args.chapters:
            print(
                Path(ch).stem, "solutions score", check_solutions(ch, args.out)["total"]
            )
    counts = kind_counts(args.chapters)
    print(
        f"exercises: {counts['auto']} autograded, {counts['written']} written, "
        f"{counts['open']} open-ended; no solution found in the student files"
    )


if __name__ == "__main__":
    main()
