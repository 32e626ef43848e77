"""Assignment notebooks from the book's chapters: the MyST exercise parser, the otter-assign
master notebook, and the student notebook and autograder zip that ``otter assign`` makes of it.

From one chapter (a MyST-Markdown notebook whose exercises are ``{exercise}`` directives,
answered by a ``{solution}`` directive or by code cells between ``{solution-start}`` and
``{solution-end}``) :func:`master_notebook` builds an **otter-assign master notebook**: the
chapter's prose and code, then for every exercise a question block whose kind comes from
:mod:`booktools.course.specs`:

* ``auto`` — the exercise names the variables to define; the chapter's own solution code is the
  solution cell, the spec's public tests are what ``grader.check`` runs for students, its hidden
  tests run only in the autograder;
* ``written`` — a Markdown answer cell, graded by hand; the chapter's solution is the rubric;
* ``open`` — an answer cell, not graded.

``otter assign`` (:func:`write_assignment`) turns the master into a student notebook (no
solutions, ``grader.check`` cells) and an autograder zip for ``otter run`` or Gradescope
(:mod:`booktools.course.grading`); the zip installs the book's wheel (:mod:`booktools.course.wheel`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from booktools import myst
from booktools.course.specs import SPECS, WRITTEN_PART_SUFFIX, Spec, public_message
from booktools.course.wheel import (
    AUTOGRADER_PYTHON,
    AUTOGRADER_REQUIREMENTS,
    GRADESCOPE_SOURCE,
    package_wheel,
)

__all__ = [
    "Exercise",
    "segments",
    "exercises",
    "plain_markdown",
    "master_notebook",
    "write_assignment",
    "write_assignments",
    "student_notebook_path",
    "autograder_zip_path",
    "init_source",
    "export_source",
]

#: The cross-reference roles a notebook outside the book shows as plain text.
_XREF_ROLES = ("doc", "ref", "prf:ref", "numref", "eq")


@dataclass(frozen=True)
class Exercise:
    """One exercise of a chapter, as written in its MyST source.

    ``prompt`` is the exercise's text (options removed), ``solution_text`` the Markdown of its
    solution (a ``{solution}`` body or the prose between ``solution-start`` and ``solution-end``),
    ``solution_code`` the code cells between ``solution-start`` and ``solution-end``.
    """

    label: str
    prompt: str
    solution_text: str
    solution_code: tuple[str, ...]

    @property
    def has_code_solution(self) -> bool:
        return bool(self.solution_code)


def _label(block: myst.Block) -> str:
    label = block.options.get("label", "").split()
    if label:
        return label[0]
    raise ValueError(
        f"text: the exercise on line {block.start + 1} has no ':label:' option; "
        "expected one so that its solution and answer cell can refer to it"
    )


def segments(text: str) -> list[tuple[str, str | Exercise]]:
    """The chapter as ``("md", text)``, ``("code", source)`` and ``("exercise", Exercise)``.

    Solutions are consumed into their exercise and never appear as segments of their own.
    """
    lines = myst.split_front_matter(text)[1].splitlines()
    segs: list[tuple[str, str | Exercise]] = []
    pending: dict[str, dict] = {}
    md: list[str] = []
    open_sol: str | None = None
    sol_md: list[str] = []
    sol_code: list[str] = []
    by_start = {b.start: b for b in myst.blocks(lines)}
    i = 0

    def flush_md():
        t = "\n".join(md).strip()
        if t:
            segs.append(("md", t))
        md.clear()

    while i < len(lines):
        if i not in by_start:
            (sol_md if open_sol else md).append(lines[i])
            i += 1
            continue
        block = by_start[i]
        name, arg, e = block.name, block.arg, block.end
        body = "\n".join(block.body).strip()
        if name == "exercise":
            flush_md()
            label = _label(block)
            pending[label] = {"prompt": body, "text": "", "code": []}
            segs.append(("exercise", label))
        elif name == "solution":
            if arg not in pending:
                raise ValueError(
                    f"text: the solution on line {i + 1} refers to {arg!r}, "
                    "which is not an exercise above it"
                )
            pending[arg]["text"] = body
        elif name == "solution-start":
            if open_sol is not None:
                raise ValueError(
                    f"text: solution-start on line {i + 1} opens inside another "
                    f"one ({open_sol}); expected a solution-end first"
                )
            if arg not in pending:
                raise ValueError(
                    f"text: the solution on line {i + 1} refers to {arg!r}, "
                    "which is not an exercise above it"
                )
            open_sol = arg
        elif name == "solution-end":
            if open_sol is None:
                raise ValueError(
                    f"text: solution-end on line {i + 1} has no solution-start"
                )
            pending[open_sol]["text"] = "\n".join(sol_md).strip()
            pending[open_sol]["code"] = list(sol_code)
            open_sol, sol_md[:], sol_code[:] = None, [], []
        elif name == "code-cell":
            src = body
            if open_sol:
                sol_code.append(src)
            else:
                flush_md()
                segs.append(("code", src))
        else:
            (sol_md if open_sol else md).extend(lines[i : e + 1])
        i = e + 1
    if open_sol is not None:
        raise ValueError(f"text: solution-start for {open_sol} is never ended")
    flush_md()
    return [
        (
            kind,
            Exercise(
                v, pending[v]["prompt"], pending[v]["text"], tuple(pending[v]["code"])
            )
            if kind == "exercise"
            else v,
        )
        for kind, v in segs
    ]


def exercises(text: str) -> list[Exercise]:
    """The exercises of a chapter's MyST text, in order, with their solutions."""
    return [v for kind, v in segments(text) if kind == "exercise"]


def plain_markdown(text: str) -> str:
    """MyST cross-reference roles as plain text, for notebooks opened outside the book."""

    def plain(m: re.Match[str]) -> str:
        if m["name"] not in _XREF_ROLES:
            return m.group(0)
        return f"*{myst.explicit(m['text'])[1].strip()}*"

    return myst.ROLE.sub(plain, text)


def _raw(source: str):
    import nbformat

    return nbformat.v4.new_raw_cell(source)


@dataclass(frozen=True)
class _Plain:
    """Converts a chapter's MyST Markdown to what JupyterLab and Jupyter render without the book
    (:func:`booktools.build.plain_markdown.to_plain`): no directive (``{formulated-source}``,
    definitions, admonitions), and references as text ("Exercise 9.1"): in a student
    notebook the exercises are plain cells, so a ``{ref}`` to one would be a dead link."""

    titles: dict[str, str]
    labels: dict[str, str]
    image_base: str = ""

    def __call__(self, text: str) -> str:
        from booktools.build.plain_markdown import to_plain

        return to_plain(text, self.titles, self.labels, self.image_base)

    @classmethod
    def of(cls, chapter: Path) -> "_Plain":
        from booktools.build.plain_markdown import chapter_titles, label_texts

        # a figure is looked up from the notebook's folder (<out>/<stem>/student/): an absolute
        # path to the chapters would not travel with the notebook, so it stays relative
        return cls(chapter_titles(chapter.parent), label_texts(chapter.parent))


def _question_cells(ex: Exercise, spec: Spec, plain: _Plain | None = None) -> list:
    """The otter-assign cells of one exercise: prompt, answer/solution, tests; ``plain``
    converts its Markdown (default: cross-reference roles as text only)."""
    import nbformat

    v4 = nbformat.v4
    convert = plain or plain_markdown
    tag = {
        "auto": "",
        "written": " (written answer, graded by hand)",
        "open": " (open-ended, not graded)",
    }[spec.kind]
    title = plain.labels.get(ex.label, ex.label) if plain else f"Exercise {ex.label}"
    prompt = v4.new_markdown_cell(
        f"**{title}** (`{ex.label}`){tag}\n\n{convert(ex.prompt)}"
    )
    if spec.kind == "open":
        return [
            prompt,
            v4.new_code_cell(f"# Exercise {ex.label} (open-ended): your work here"),
        ]
    config = {"name": ex.label, "manual": spec.kind == "written", "points": spec.points}
    cells = [
        _raw(
            "# BEGIN QUESTION\n"
            + "\n".join(f"{k}: {json.dumps(v)}" for k, v in config.items())
        ),
        prompt,
    ]
    if spec.kind == "written":
        rubric = (
            ("**Rubric.** " + spec.rubric + "\n\n" if spec.rubric else "")
            + "**Reference answer.**\n\n"
            + convert(ex.solution_text)
            + "".join(f"\n\n```python\n{c}\n```" for c in ex.solution_code)
        )
        cells += [
            _raw("# BEGIN SOLUTION"),
            v4.new_markdown_cell(rubric),
            _raw("# END SOLUTION"),
        ]
    else:
        if not ex.solution_code:
            raise ValueError(
                f"SPECS[{ex.label!r}]: kind 'auto' needs the chapter's solution "
                "code (solution-start ... solution-end), but the solution has none"
            )
        names = ", ".join(spec.names)
        code = "\n\n".join(ex.solution_code).strip()
        cells += [
            _raw("# BEGIN SOLUTION"),
            v4.new_code_cell(
                f"# Exercise {ex.label}: define {names}\n# BEGIN SOLUTION\n{code}\n# END SOLUTION"
            ),
            _raw("# END SOLUTION"),
        ]
        cells.append(_raw("# BEGIN TESTS"))
        # A passing grader.check says what it checked (public_message): the public tests check
        # form only, and "All test cases passed!" alone would read as a grade.
        header = (
            '""" # BEGIN TEST CONFIG\nsuccess_message: '
            + json.dumps(public_message(spec))
            + '\n""" # END TEST CONFIG\n'
        )
        cells += [v4.new_code_cell(header + t.strip()) for t in spec.public]
        cells += [v4.new_code_cell("# HIDDEN\n" + t.strip()) for t in spec.hidden]
        cells.append(_raw("# END TESTS"))
    cells.append(_raw("# END QUESTION"))
    if (
        spec.kind == "written" and ex.solution_code
    ):  # the exercise asks for a check in code too
        cells.append(
            v4.new_code_cell(
                f"# Exercise {ex.label}: your code (graded with the written answer)"
            )
        )
    part = spec.written_part if spec.kind == "auto" else None
    if (
        part is not None
    ):  # the prose an autograded exercise asks for ("Show that...", "Why...")
        name = ex.label + WRITTEN_PART_SUFFIX
        config = {"name": name, "manual": True, "points": part.points}
        cells += [
            _raw(
                "# BEGIN QUESTION\n"
                + "\n".join(f"{k}: {json.dumps(v)}" for k, v in config.items())
            ),
            v4.new_markdown_cell(
                f"**{title}, written part** (`{name}`) (written answer, "
                "graded by hand)\n\nThe argument, explanation or "
                "prediction the exercise asks for besides the code."
            ),
            _raw("# BEGIN SOLUTION"),
            v4.new_markdown_cell(
                "**Rubric.** " + part.rubric + "\n\n**Reference "
                "answer.**\n\n" + convert(ex.solution_text)
            ),
            _raw("# END SOLUTION"),
            _raw("# END QUESTION"),
        ]
    return cells


def _config_cell(name: str, wheel: str | None = None):
    # The export cell only writes the zip (run_tests: false). With run_tests, otter re-executes
    # the whole notebook in a second kernel, with no time limit, in a process where the fix of
    # booktools.sphinx.kernel_client cannot be installed: a missed reply wake-up (a widget cell,
    # a busy machine; 5 stalls in 146 runs, benchmarks/README.md) left the student's export
    # cell waiting for ever.
    # Students see the public tests in the grader.check cells; otter run grades the zip.
    extra = ""
    if wheel:  # the autograder zip's environment installs the book (Gradescope)
        extra = (
            "\nrequirements: requirements.txt\noverwrite_requirements: false"
            f"\npython_version: {json.dumps(AUTOGRADER_PYTHON)}"
            f"\nautograder_files:\n  - {json.dumps(wheel)}"
        )
    config = f"""# ASSIGNMENT CONFIG
name: {json.dumps(name)}
init_cell: true
check_all_cell: false
run_tests: false
solutions_pdf: false
export_cell:
  pdf: false
  run_tests: false
  instructions: "Save the notebook, run this cell, and hand in the zip file it writes."
generate:
  pdf: false
  zips: false{extra}
tests:
  files: false
  ok_format: true"""
    return _raw(config)


def _assigns(code: str, name: str) -> bool:
    """Whether ``code`` (re)binds ``name`` at top level: an assignment or a ``for`` target."""
    n = re.escape(name)
    return bool(
        re.search(
            rf"^[ \t]*(?:[\w\[\]\s,()]*,\s*)?\(?{n}\s*(?:,[\w\s,()]*)?=(?!=)"
            rf"|^for\s+(?:[\w\s,]*,\s*)?{n}\b|^def\s+{n}\b",
            code,
            re.M,
        )
    )


def _check_names_survive(chapter: str, parts: list, specs: dict[str, Spec]) -> None:
    """otter runs the hidden tests after the whole notebook: a name an exercise defines must not
    be rebound by a later cell (chapter code or another solution)."""
    for i, (kind, ex) in enumerate(parts):
        if kind != "exercise" or specs[ex.label].kind != "auto":
            continue
        later = [v for k, v in parts[i + 1 :] if k == "code"] + [
            c for k, v in parts[i + 1 :] if k == "exercise" for c in v.solution_code
        ]
        for name in specs[ex.label].names:
            if not re.search(rf"`{re.escape(name)}[`( ]", ex.prompt):
                raise ValueError(
                    f"{chapter}: exercise {ex.label} must name `{name}` (in "
                    "backticks), which its tests read"
                )
            if any(_assigns(code, name) for code in later):
                raise ValueError(
                    f"{chapter}: `{name}` of {ex.label} is rebound by a later cell; "
                    "the autograder reads it after the whole notebook has run"
                )


def master_notebook(
    path: str | Path, *, specs: dict[str, Spec] | None = None, wheel: str | None = None
):
    """The otter-assign master notebook of one chapter (``nbformat`` v4); ``specs`` (label ->
    :class:`~booktools.course.specs.Spec`) defaults to :data:`~booktools.course.specs.SPECS`;
    ``wheel``: the file name of the book's wheel beside the master notebook, with a
    ``requirements.txt`` (:func:`write_assignment`), for the autograder's environment."""
    import nbformat

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"path: expected a MyST chapter file, got {str(path)!r}, "
            "which does not exist"
        )
    v4 = nbformat.v4
    nb = v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "display_name": "Python 3",
        "language": "python",
        "name": "python3",
    }
    cells = [_config_cell(path.stem, wheel)]
    parts = segments(path.read_text(encoding="utf-8"))
    specs = SPECS if specs is None else specs
    missing = [v.label for k, v in parts if k == "exercise" and v.label not in specs]
    if missing:
        raise KeyError(
            f"{path.name}: exercises {missing} have no entry in "
            "booktools.course.specs.SPECS (expected their kind and tests)"
        )
    _check_names_survive(path.name, parts, specs)
    plain = _Plain.of(path)
    for kind, value in parts:
        if kind == "md":
            cells.append(v4.new_markdown_cell(plain(value)))
        elif kind == "code":
            cells.append(v4.new_code_cell(value))
        else:
            cells += _question_cells(value, specs[value.label], plain)
    nb.cells = cells
    return nb


def student_notebook_path(out: str | Path, chapter: str | Path) -> Path:
    """Where :func:`write_assignment` puts the student notebook of ``chapter``."""
    stem = Path(chapter).stem
    return Path(out) / stem / "student" / f"{stem}.ipynb"


def autograder_zip_path(out: str | Path, chapter: str | Path) -> Path:
    """The autograder zip of ``chapter`` written by :func:`write_assignment`."""
    stem = Path(chapter).stem
    found = sorted((Path(out) / stem / "autograder").glob(f"{stem}-autograder_*.zip"))
    if not found:
        raise FileNotFoundError(
            f"out: no autograder zip for {stem} under {out}; run write_assignment first"
        )
    return found[-1]


def write_assignment(chapter: str | Path, out: str | Path) -> Path:
    """Master notebook, student notebook and autograder zip of one chapter under ``out/<stem>/``.
    (``--check`` of the command line grades the solutions with
    :func:`booktools.course.grading.check_solutions`.)
    """
    import nbformat

    chapter, out = Path(chapter), Path(out)
    if out.resolve() == chapter.resolve().parent:
        raise ValueError(
            f"out: expected a folder other than the chapters' own ({out}), "
            "so that no chapter is overwritten"
        )
    src = out / "source" / f"{chapter.stem}.ipynb"
    src.parent.mkdir(parents=True, exist_ok=True)
    # the autograder zip carries the book's package and the versions to install with it
    wheel = package_wheel(src.parent).name
    (src.parent / "requirements.txt").write_text(
        "\n".join(
            line.format(wheel=f"{GRADESCOPE_SOURCE}/files/{wheel}")
            for line in AUTOGRADER_REQUIREMENTS
        )
        + "\n",
        encoding="utf-8",
    )
    nb = master_notebook(chapter, wheel=wheel)
    nbformat.write(nb, src)
    dist = out / chapter.stem
    _otter_assign(src, dist, chapter.name)
    for nb_path in (
        student_notebook_path(out, chapter),
        dist / "autograder" / f"{chapter.stem}.ipynb",
    ):
        _init_any_name(nb_path, chapter.stem)
    return student_notebook_path(out, chapter)


def _otter_assign(master: Path, dist: Path, name: str) -> None:
    """``otter assign --no-run-tests master dist``, in this process: a command per chapter
    paid otter's import again each time (1.6 CPU-seconds of 2.7).  otter's log is kept to its
    errors, as the command's output was (its warning that a chapter without autograded
    exercises has no tests says what the book intends)."""
    import logging

    from otter.assign import main as otter_assign
    from otter.logging import level_context

    try:
        with level_context(logging.ERROR):
            otter_assign(str(master), str(dist), no_run_tests=True)
    except Exception as error:
        raise RuntimeError(
            f"otter assign failed for {name}: {type(error).__name__}: {error}"
        ) from error


#: The student notebook's helpers, after the tests it carries (:func:`init_source`). Which file
#: is running: Jupyter Server 2 gives its kernel the notebook's path (``JPY_SESSION_NAME``,
#: which ipykernel also stores as ``__session__``; a path from the server's root when the
#: frontend gives no file name), VS Code stores it as ``__vsc_ipynb_file__``. Without either
#: (an older server, nbclient, a kernel started by hand) the copies in the working folder are
#: compared with the cells this kernel ran (IPython's ``In``): the worked notebook holds them,
#: a blank copy beside it does not, however new it is.
_INIT_HELPERS = '''

def _running_notebook():
    """(path, why): the file of the notebook this kernel runs, and how it was found."""
    names = globals()
    for said in (names.get("__session__"), os.environ.get("JPY_SESSION_NAME"),
                 names.get("__vsc_ipynb_file__")):
        said = str(said or "")
        for path in (said, os.path.basename(said)):
            if path.endswith(".ipynb") and os.path.isfile(path):
                return os.path.abspath(path), "the file Jupyter runs this kernel for"
    copies = sorted(glob.glob("*%(stem)s*.ipynb"), key=os.path.getmtime, reverse=True)
    if len(copies) < 2:
        return (os.path.abspath(copies[0]), "the only copy in the working folder") \\
            if copies else (None, "no file named *%(stem)s*.ipynb in " + os.getcwd())
    ran = {str(cell).strip() for cell in names.get("In", [])}

    def cells_ran(path):
        try:
            with open(path, encoding="utf-8") as f:
                cells = json.load(f)["cells"]
        except (OSError, ValueError, KeyError):
            return -1
        return sum("".join(c["source"]).strip() in ran for c in cells
                   if c.get("cell_type") == "code")
    best = max(copies, key=cells_ran)  # the newest of equals: copies are newest first
    return os.path.abspath(best), (f"of the {len(copies)} copies here ({', '.join(copies)}), "
                                   "the one that holds the cells this kernel ran")


@contextlib.contextmanager
def _beside_the_notebook():
    """Exports the notebook that runs, from its folder: says which file is handed in, the zip
    lies beside it and holds it under its own name."""
    if getattr(otter.Notebook, "_grading_mode", False):  # otter run: export does nothing
        yield None
        return
    path, why = _running_notebook()
    if path is None:
        print(f"Which file is this notebook? Jupyter did not say, and there is {why}. Save "
              "it, then run os.chdir(<its folder>) and this cell again, or hand in the "
              ".ipynb file itself (on Colab: File > Download > Download .ipynb).")
        yield None
        return
    print(f"Handing in {os.path.basename(path)} from {os.path.dirname(path)}: {why}. "
          "Save the notebook before this cell: the zip holds the saved file.")
    here = os.getcwd()
    os.chdir(os.path.dirname(path))
    try:
        yield os.path.basename(path)
    finally:
        os.chdir(here)


# the tests as files in a folder of their own: otter reads them from any working folder; one
# folder per kernel, however often this cell runs, removed when the kernel ends
if not os.path.isdir(globals().get("_tests_dir") or ""):
    _tests_dir = tempfile.mkdtemp(prefix="%(stem)s-tests-")
    atexit.register(shutil.rmtree, _tests_dir, True)
for _name, _test in _PUBLIC_TESTS.items():
    with open(os.path.join(_tests_dir, _name + ".py"), "w", encoding="utf-8") as _file:
        _file.write(f"OK_FORMAT = True\\n\\ntest = {_test!r}\\n")
grader = otter.Notebook(_running_notebook()[0], tests_dir=_tests_dir)'''


def init_source(stem: str, tests: dict[str, dict] | None = None) -> str:
    """The student notebook's first cell.  It finds the notebook that is running, whatever the
    browser renamed it to ("09_masks (1).ipynb", "Copy of 09_masks.ipynb") and whatever copies
    lie beside it, for the export (:func:`export_source`); otter's own cell names one file and
    fails on a copy.  It carries the public ``tests`` (otter's OK format: name -> test, as in
    the notebook's metadata) and writes them to a folder of their own, so that
    ``grader.check`` runs in a kernel whose working folder is elsewhere (Colab: ``/content``;
    otter 7 reads metadata tests only from a notebook file in the working folder, and on Colab
    only from a tests folder)."""
    lines = ",\n".join(
        f"    {json.dumps(name)}: {test!r}"
        for name, test in sorted((tests or {}).items())
    )
    return (
        "# Initialize Otter. This cell finds the file of this notebook (under any name: a "
        "copy,\n# a download) for the export at the end, and carries the public tests, "
        "so that\n# grader.check works from any working folder (Colab too).\n"
        "import atexit\nimport contextlib\nimport glob\nimport json\nimport os\nimport shutil\n"
        "import tempfile\n\n"
        "import otter\n\n"
        f"_PUBLIC_TESTS = {{  # also in this notebook's metadata\n{lines}\n}}"
        + _INIT_HELPERS
        % {"stem": stem}
    )


def export_source(original: str) -> str:
    """otter's export cell with the export run from the running notebook's folder
    (``_beside_the_notebook`` of :func:`init_source`): ``grader.export(pdf=False)`` becomes
    ``grader.export(_handed_in, pdf=False)`` inside ``with _beside_the_notebook() as
    _handed_in:``."""

    def hand_in(m: re.Match) -> str:
        args = m.group(2).strip()
        return (
            f"{m.group(1)}with _beside_the_notebook() as _handed_in:\n{m.group(1)}    "
            f"grader.export(_handed_in{', ' + args if args else ''})"
        )

    new = re.sub(
        r"^([ \t]*)grader\.export\((.*)\)[ \t]*$", hand_in, original, flags=re.M
    )
    if new == original:
        raise RuntimeError(
            "expected otter's export cell to call grader.export(...) on one "
            f"line, got:\n{original}"
        )
    return new


def _public_tests(tests: dict[str, dict]) -> dict[str, dict]:
    """otter's OK-format tests without their hidden cases (the student notebook's metadata has
    none; the autograder's copy of the notebook may)."""
    out = {}
    for name, test in tests.items():
        suites = [
            {
                **suite,
                "cases": [c for c in suite.get("cases", []) if not c.get("hidden")],
            }
            for suite in test.get("suites", [])
        ]
        out[name] = {**test, "suites": suites}
    return out


def _init_any_name(path: Path, stem: str) -> None:
    """Replace otter's initialization cell of ``path`` by :func:`init_source` (with the public
    tests of the notebook's metadata) and its export cell by :func:`export_source`."""
    import nbformat

    nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    code = [c for c in nb.cells if c.cell_type == "code"]
    cells = [
        c for c in code if re.search(r"^grader = otter\.Notebook\(", c.source, re.M)
    ]
    if len(cells) != 1:
        raise RuntimeError(
            f"{path.name}: expected one otter initialization cell, found {len(cells)}"
        )
    # plain dicts (not nbformat's NotebookNode), whose repr is Python the cell can run
    tests = _public_tests(
        json.loads(json.dumps(nb.metadata.get("otter", {}).get("tests", {})))
    )
    cells[0].source = init_source(stem, tests)
    for cell in code:
        if re.search(r"^\s*grader\.export\(", cell.source, re.M):
            cell.source = export_source(cell.source)
    nbformat.write(nb, path)


def write_assignments(chapters: list[str | Path], out: str | Path) -> list[Path]:
    """:func:`write_assignment` for every chapter; returns the student notebooks."""
    return [write_assignment(ch, out) for ch in chapters]
