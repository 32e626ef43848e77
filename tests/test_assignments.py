"""End to end, as an instructor would: generate an assignment with otter-grader, hand in a
wrong submission, grade it with ``otter run`` (booktools.course.grading, in the repository's
environment), check the scores; and that a blank hand-out scores nothing.  That the book's own
solutions score full marks is checked for every chapter, from its autograder zip alone, by
tests/test_autograder_zip.py, which also grades the other wrong submission of
tests/_hand_ins.py's ``WRONG`` there.

The wrong submissions make common mistakes the hidden tests must reject: chapter 9's a
multiplicative mask, weights not renormalized and the diagonal left out of a count; chapter 8's
a missing 1/sqrt(D).  Each is graded once: this module grades :data:`LOCAL_WRONG`'s (the
instructor's path needs one ``otter run`` that gives partial marks; chapter 18's blank
hand-out, below, is its second), tests/test_autograder_zip.py chapter 8's.  That every
exercise's tests reject its most common mistakes is tests/test_grading_fairness.py's.
"""

from __future__ import annotations

import re
import shutil

import pytest
from _chapters import ROOT, cell_errors
from _hand_ins import (
    LOCAL_WRONG,
    WRONG,
    answer_labels,
    check_partial,
    grading_tests,
    names_read,
    reads_and_binds,
    reduced_hand_in,
)

from booktools.build import prebuild
from booktools.course import assign, grading, leak_scan
from booktools.course.specs import SPECS

CHAPTERS = sorted(p.stem for p in (ROOT / "chapters").glob("[0-9][0-9]_*.md"))
#: The chapters with an autograded exercise.
GRADED = [s for s in CHAPTERS if grading.solutions(ROOT / "chapters" / f"{s}.md")]


@pytest.fixture(autouse=True)
def one_thread_in_kernels():
    """The kernels that this module's tests start (otter's, nbclient's) inherit the worker's
    environment: the one make book gives a chapter's kernel (booktools.build.prebuild's
    ``kernel_environment``), with one OpenMP thread, as in the worker itself (conftest.py) and
    in the zip's environment (tests/test_autograder_zip.py), so that two pytest workers on two
    cores do not spin-wait for each other's threads."""
    with prebuild.kernel_environment(threads=1):
        yield


#: The names a Jupyter kernel defines before any cell runs: a test that reads only these and
#: the chapter's names could pass on a blank hand-out.
KERNEL_NAMES = frozenset(
    "In Out _ __ ___ _i _ii _iii _ih _oh _dh get_ipython exit quit display".split()
)


@pytest.mark.slow  # one otter run (10-30 s on 2 cores)
@pytest.mark.parametrize("stem", [LOCAL_WRONG])
def test_wrong_submission_scores_partial(stem, assignment, tmp_path):
    """A submission with the common mistakes scores some points but not those exercises', when
    an instructor grades it with booktools.course.grading (``otter run`` from this repository's
    environment, through booktools.course.otter_cli).

    The submission is the reduced hand-in (tests/_hand_ins.py): the answers, right or wrong,
    and the chapter cells that bind what they and the tests read, not the rest of the chapter
    (tests/test_autograder_zip.py grades the same reduced hand-in with the right answers: full
    marks; and chapter 8's wrong submission, from its zip)."""
    chapter = ROOT / "chapters" / f"{stem}.md"
    student, zip_path = assignment(stem)
    answers = grading.solutions(chapter)
    wrong = reduced_hand_in(
        student, {**answers, **WRONG[stem]}, tmp_path / "wrong" / student.name
    )
    # A run takes 10-30 s; one that still exceeds 120 s would be retried (grading.grade).
    partial = grading.grade(wrong, zip_path, tmp_path / "grades", timeout=120)
    print(stem, "wrong", partial)
    check_partial(stem, {k: v for k, v in partial.items() if k != "total"})


def _undecided_tests(nb) -> list[str]:
    """The exercises of the student notebook ``nb`` (as handed out: its answer cells hold
    ``...``) with a test that reads no name left unbound by the notebook's cells, each as
    ``label: the test's call``.  Every other test stops at a ``NameError`` (or a ``KeyError``
    in the notebook's namespace) in the blank hand-out."""
    bound = set(KERNEL_NAMES)
    for cell in nb.cells:
        if cell.cell_type == "code":
            bound |= reads_and_binds(cell.source)[1]
    return [
        f"{label}: {test.splitlines()[-1]}"
        for label in answer_labels(nb)
        for test in grading_tests(label)
        if not names_read(test, label) - bound
    ]


@pytest.mark.slow  # otter assign of every chapter: make test runs it, make check leaves it out
@pytest.mark.parametrize("stem", GRADED)
def test_blank_hand_out_scores_nothing(stem, assignment, tmp_path):
    """The chapter's own cells satisfy no test of an autograded exercise.

    Checked statically where that decides it: a test that reads a name (or an exercise's
    name) that no cell of the blank hand-out binds — by assignment, ``def``, ``import``, a
    loop, or a change through a subscript or attribute — stops at that name, and scores
    nothing.  A chapter where some test reads only names its cells bind (chapter 18's
    ``by_hand``, a list of gradients before Exercise 18.3 makes it a count) depends on their
    values: its blank reduced hand-in (tests/_hand_ins.py: the cells that bind the names the
    tests read) is graded by ``otter run`` and must score nothing.  The control: a cell that
    binds every exercise's names leaves every test undecided.  That otter gives a wrong
    hand-in less than full marks from the zip alone is run by tests/test_autograder_zip.py."""
    import nbformat

    student, zip_path = assignment(stem)
    nb = nbformat.read(student, as_version=4)
    undecided = _undecided_tests(nb)
    if undecided:
        blank = reduced_hand_in(student, {}, tmp_path / "blank" / student.name)
        zero = grading.grade(blank, zip_path, tmp_path / "grades", timeout=120)
        assert zero["total"] == 0, (undecided, zero)
    labels = answer_labels(nb)
    names = sorted({n for label in labels for n in SPECS[label].names})
    nb.cells.insert(1, nbformat.v4.new_code_cell(f"{', '.join(names)}, = {names}"))
    assert len(_undecided_tests(nb)) == sum(
        len(grading_tests(label)) for label in labels
    )


@pytest.mark.slow  # runs the student notebook in a kernel
@pytest.mark.parametrize("stem", ["09_masks"])
def test_student_notebook_runs_from_any_directory(
    stem, assignment, tmp_path, monkeypatch
):
    """Top to bottom in a fresh kernel, from a folder that is not the repository's: otter's init
    cell finds the notebook, grader.check runs the public tests (failing on blank answers), and
    the export cell writes the zip to hand in without executing the notebook a second time
    (assign._config_cell says why); the kernel, shut down as Jupyter does it, leaves nothing
    in the temporary folder.

    Chapter 9 (5 s of cells) shows what otter's cells do, which does not depend on the chapter.
    That a chapter finds its data through the package from another folder is shown by
    tests/test_autograder_zip.py: the data folder is found from a folder holding a decoy, and
    chapter 18, which reads the corpus, runs whole in the zip's environment.  A Colab notebook,
    which holds the student notebook's chapter cells unchanged (and adds its set-up cell and the
    solutions), runs whole from an empty folder in tests/test_notebooks.py (chapter 8's)."""
    import zipfile

    import nbformat
    from nbclient import NotebookClient

    student = assignment(stem)[0]
    elsewhere = tmp_path / "somewhere" / "else"
    elsewhere.mkdir(parents=True)
    copy = elsewhere / student.name
    shutil.copy(student, copy)
    nb = nbformat.read(copy, as_version=4)
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))  # the kernel's tempfile folder
    NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(elsewhere)}},
        shutdown_kernel="graceful",  # as Jupyter; the tests' kernels are otherwise killed
    ).execute()
    assert not cell_errors(nb), cell_errors(nb)
    assert not list(temp.iterdir()), list(temp.rglob("*"))
    checks = [
        o for c in nb.cells if "grader.check(" in c.source for o in c.get("outputs", [])
    ]
    assert checks, "the grader.check cells should report on the (blank) answers"
    export = next(c for c in nb.cells if "grader.export(" in c.source)
    assert "run_tests=True" not in export.source, (
        export.source
    )  # export's default: False
    zips = list(elsewhere.glob("*.zip"))
    assert len(zips) == 1, zips
    assert student.name in zipfile.ZipFile(zips[0]).namelist()


@pytest.mark.slow  # otter assign of every chapter: make test runs it, make check leaves it out
@pytest.mark.parametrize("stem", CHAPTERS)
def test_student_notebook_gives_away_no_solution(stem, assignment):
    """Every solution's numbers, sentences and code are scanned for in the student notebook
    (cells and the public tests in its metadata), for this chapter's exercises and later ones."""
    student = assignment(stem)[0]
    chapters = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.md"))
    found = leak_scan.leaks([student], chapters)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("stem", CHAPTERS)
def test_student_markdown_renders_in_lab_without_the_book(stem):
    """JupyterLab (jupyterlab-myst) knows no ``{formulated-source}`` and, in a notebook whose
    exercises are plain cells, no target for ``{ref}`ex-..```: the assignment's Markdown holds no
    directive and no role; a definition's code shows as a ``<details>`` box (open, as in the
    book, unless it is a long helper), a reference to an exercise as its number."""
    chapter = ROOT / "chapters" / f"{stem}.md"
    nb = assign.master_notebook(chapter)
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    directives = re.findall(r"^\s*(?:`{3,}|:{3,})\{([\w:.-]+)\}", markdown, re.M)
    roles = re.findall(r"\{(?:ref|numref|doc|prf:ref|eq)\}`[^`]+`", markdown)
    assert not directives and not roles, (directives[:5], roles[:5])
    text = chapter.read_text(encoding="utf-8")
    if "{formulated-source}" in text:
        assert re.search(r"<details( open)?>", markdown)
    for label in re.findall(r"\{ref\}`(ex-\d\d-\d+)`", text):
        n, k = re.match(r"ex-(\d\d)-(\d+)", label).groups()
        assert f"Exercise {int(n)}.{k}" in markdown, label
