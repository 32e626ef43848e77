"""Student and instructor notebooks from the book's chapters (appendix C).

A chapter is a MyST-Markdown notebook whose exercises are ``{exercise}`` directives and whose
solutions are either ``{solution}`` directives (text) or a ``{solution-start}`` … ``{solution-end}``
pair enclosing code cells.  From one chapter this module makes:

* a **student notebook** — every solution removed, and an empty answer cell after each exercise;
* an **instructor notebook** for nbgrader — the solution code cells kept, wrapped in
  ``### BEGIN SOLUTION`` / ``### END SOLUTION`` and marked with nbgrader metadata, so that
  ``nbgrader generate_assignment`` produces the student version and the executed solution can
  serve as the reference for ``nbgrader autograde``.

Command line::

    python -m formulated.teaching chapters/08_attention.md --out students/
    python -m formulated.teaching chapters/*.md --out instructors/ --instructor
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Exercise", "exercises", "student_text", "student_notebook", "instructor_notebook",
           "write_notebooks"]

_OPEN = re.compile(r"^(?P<fence>`{3,}|~{3,}|:{3,})\{(?P<name>[a-z:-]+)\}\s*(?P<arg>.*)$")


@dataclass(frozen=True)
class Exercise:
    """One exercise of a chapter: its label and whether its solution contains code cells."""

    label: str
    has_code_solution: bool


def _blocks(lines: list[str]) -> list[tuple[str, str, int, int]]:
    """Top-level directive blocks ``(name, argument, first line, last line)`` (inclusive)."""
    out, i = [], 0
    while i < len(lines):
        m = _OPEN.match(lines[i].strip())
        if not m:
            i += 1
            continue
        fence = m["fence"]
        close = re.compile(rf"^{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        j = i + 1
        while j < len(lines) and not close.match(lines[j].strip()):
            j += 1
        if j == len(lines):
            raise ValueError(f"text: the {{{m['name']}}} block opened on line {i + 1} is never "
                             f"closed (expected a line '{fence}')")
        out.append((m["name"], m["arg"].strip(), i, j))
        i = j + 1
    return out


def _exercise_label(lines: list[str], start: int, end: int) -> str:
    for ln in lines[start + 1:end]:
        m = re.match(r"^:label:\s*(\S+)", ln.strip())
        if m:
            return m.group(1)
    raise ValueError(f"text: the exercise on line {start + 1} has no ':label:' option; "
                     "expected one so that its solution and answer cell can refer to it")


def exercises(text: str) -> list[Exercise]:
    """The exercises of a chapter, in order."""
    lines = text.splitlines()
    blocks = _blocks(lines)
    code_solutions = {arg for name, arg, *_ in blocks if name == "solution-start"}
    return [Exercise(_exercise_label(lines, s, e), _exercise_label(lines, s, e) in code_solutions)
            for name, _, s, e in blocks if name == "exercise"]


def student_text(text: str) -> str:
    """The chapter's MyST text with every solution removed and an answer cell per exercise."""
    lines = text.splitlines()
    blocks = _blocks(lines)
    drop: set[int] = set()
    answer_after: dict[int, str] = {}
    open_start: int | None = None
    for name, arg, s, e in blocks:
        if name == "solution":
            drop.update(range(s, e + 1))
        elif name == "solution-start":
            if open_start is not None:
                raise ValueError(f"text: solution-start on line {s + 1} opens inside another one "
                                 f"(line {open_start + 1}); expected a solution-end first")
            open_start = s
        elif name == "solution-end":
            if open_start is None:
                raise ValueError(f"text: solution-end on line {s + 1} has no solution-start")
            drop.update(range(open_start, e + 1))  # the code cells in between go too
            open_start = None
        elif name == "exercise":
            answer_after[e] = _exercise_label(lines, s, e)
    if open_start is not None:
        raise ValueError(f"text: solution-start on line {open_start + 1} is never ended")
    out: list[str] = []
    for i, ln in enumerate(lines):
        if i not in drop:
            out.append(ln)
        if i in answer_after:
            out += ["", "```{code-cell} python3", f"# Your answer to exercise {answer_after[i]}",
                    "```"]
    return "\n".join(out) + "\n"


def student_notebook(path: str | Path):
    """A chapter as an ``nbformat`` notebook for students (no solutions, answer cells added)."""
    import jupytext

    text = Path(path).read_text(encoding="utf-8")
    return jupytext.reads(student_text(text), fmt="md:myst")


def instructor_notebook(path: str | Path):
    """A chapter as an nbgrader *source* notebook: solution code cells wrapped and marked."""
    import jupytext

    nb = jupytext.read(path)
    inside: str | None = None
    k = 0
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for name, arg, *_ in _blocks(cell.source.splitlines()):
                if name == "solution-start":
                    inside, k = arg, 0
                elif name == "solution-end":
                    inside = None
        elif cell.cell_type == "code" and inside is not None:
            k += 1
            cell.source = f"### BEGIN SOLUTION\n{cell.source}\n### END SOLUTION"
            cell.metadata["nbgrader"] = {"grade": False, "solution": True, "locked": False,
                                         "grade_id": f"{inside}-{k}", "schema_version": 3}
    return nb


def write_notebooks(chapters: list[str | Path], out: str | Path, *, instructor: bool = False
                    ) -> list[Path]:
    """Write one ``.ipynb`` per chapter into ``out`` (created); refuses to overwrite a chapter."""
    import nbformat

    out = Path(out)
    written = []
    for ch in chapters:
        ch = Path(ch)
        if not ch.is_file():
            raise FileNotFoundError(f"chapters: expected MyST chapter files, got {str(ch)!r}, "
                                    "which does not exist")
        if out.resolve() == ch.parent.resolve():
            raise ValueError(f"out: expected a folder other than the chapters' own ({out}), "
                             "so that no chapter is overwritten")
        out.mkdir(parents=True, exist_ok=True)
        nb = instructor_notebook(ch) if instructor else student_notebook(ch)
        target = out / (ch.stem + ".ipynb")
        nbformat.write(nb, target)
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m formulated.teaching", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("chapters", nargs="+", help="MyST chapter files (chapters/*.md)")
    p.add_argument("--out", required=True, help="folder for the .ipynb files")
    p.add_argument("--instructor", action="store_true",
                   help="nbgrader source notebooks (solutions kept and marked) instead of "
                        "student notebooks")
    args = p.parse_args(argv)
    for path in write_notebooks(args.chapters, args.out, instructor=args.instructor):
        print(path)


if __name__ == "__main__":
    main()
