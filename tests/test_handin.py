"""Handing in, as a student's kernel does it (booktools/course/assign.py: the init and export cells of
the student notebook).

A student often has two copies of a chapter side by side: the worked ``08_attention (1).ipynb``
and a blank ``08_attention.ipynb`` downloaded again later.  The export must zip the notebook
whose kernel runs it, not the newest file with a matching name; ``grader.check`` must work
when the kernel's working folder is not the notebook's (Colab runs in ``/content``).

Each test runs the student notebook's own init cell, an answer cell, a ``grader.check`` cell
and its export cell in a fresh kernel (nbclient), in a temporary folder, with the kernel's
working folder and Jupyter's session variable set as each frontend sets them.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import nbformat
import pytest
from _chapters import cell_errors
from nbclient import NotebookClient

from booktools.course import assign

STEM = "08_attention"
WORKED = f"{STEM} (1).ipynb"  # the browser's name for a second download
ANSWER = "handed_in_by = 'the worked copy'  # the student's answer cell"


#: Each test runs a kernel, on an assignment that otter writes: make check leaves them out.
pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def kernel_temp(tmp_path, monkeypatch) -> Path:
    """The kernels' temporary folder, the test's own: a kernel the tests kill (conftest.py)
    leaves the init cell's tests folder there, not in the machine's."""
    temp = tmp_path / "kernel-temp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    return temp


@pytest.fixture(scope="module")
def student(assignment) -> nbformat.NotebookNode:
    """The student notebook of chapter 8 as otter assign and booktools.course.assign write it
    (conftest.py's ``assignment``, written once per test run)."""
    return nbformat.read(assignment(STEM)[0], as_version=4)


def _cells(
    student, answer: str, *, export: bool = True, first: str | None = None
) -> list:
    """The student notebook's init cell, an answer cell, the first grader.check cell and
    (``export``) the export cell; ``first``: a cell run before them (a frontend's variable)."""
    init = next(
        c for c in student.cells if "otter" in c.source and "import" in c.source
    )
    check = next(c for c in student.cells if c.source.startswith("grader.check("))
    out = [nbformat.v4.new_code_cell(first)] if first else []
    out += [init, nbformat.v4.new_code_cell(answer), check]
    if export:
        out.append(next(c for c in student.cells if "grader.export(" in c.source))
    return out


def _notebook(student, path: Path, answer: str, **kw) -> Path:
    nb = nbformat.v4.new_notebook(
        metadata=student.metadata, cells=_cells(student, answer, **kw)
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def _run(path: Path, cwd: Path, **client: object) -> nbformat.NotebookNode:
    """``path`` executed top to bottom in a fresh kernel whose working folder is ``cwd``;
    ``client``: more settings of nbclient's ``NotebookClient``."""
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(cwd)}},
        **client,
    ).execute()
    return nb


def _printed(nb) -> str:
    return "".join(
        o.get("text", "")
        for c in nb.cells
        for o in c.get("outputs", [])
        if o.get("output_type") == "stream"
    )


def _handed_in(folder: Path) -> tuple[list[str], str]:
    """The names in the one zip that the export wrote in ``folder``, and the notebook in it."""
    zips = sorted(folder.glob("*.zip"))
    assert len(zips) == 1, zips
    with zipfile.ZipFile(zips[0]) as z:
        names = z.namelist()
        notebooks = [n for n in names if n.endswith(".ipynb")]
        assert len(notebooks) == 1, names
        return names, z.read(notebooks[0]).decode("utf-8")


def _blank_copy_newer(student, folder: Path, answer: str, **kw) -> None:
    """A copy named as the chapter, saved after the worked one (the newest file)."""
    blank = _notebook(student, folder / f"{STEM}.ipynb", answer, **kw)
    worked = folder / WORKED
    os.utime(blank, (worked.stat().st_mtime + 60,) * 2)


def test_export_hands_in_the_worked_copy_not_a_newer_blank_one(
    student, tmp_path, monkeypatch
):
    """No session path (an older Jupyter, nbclient, a kernel started by hand): of the copies in
    the working folder, the one that holds the cells the kernel ran is handed in."""
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    folder = tmp_path / "downloads"
    worked = _notebook(student, folder / WORKED, ANSWER)
    placeholder = next(
        c.source for c in student.cells if c.source.startswith("# Exercise")
    )
    _blank_copy_newer(student, folder, placeholder)
    nb = _run(worked, folder)
    assert not cell_errors(nb), cell_errors(nb)
    names, handed_in = _handed_in(folder)
    assert WORKED in names, names
    assert ANSWER in handed_in
    assert f"Handing in {WORKED}" in _printed(nb), _printed(nb)


@pytest.mark.parametrize(
    "frontend", ["server path", "absolute path, kernel elsewhere", "VS Code"]
)
def test_export_hands_in_the_file_jupyter_names(
    student, tmp_path, monkeypatch, frontend
):
    """Jupyter names the running file: Jupyter Server's ``JPY_SESSION_NAME`` (a path from the
    server's root, or absolute), VS Code's ``__vsc_ipynb_file__``.  The blank copy beside it
    holds the very same cells and is newer, so only that name tells them apart; the zip lies
    beside the notebook and holds it under its own name."""
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    root = tmp_path / "server-root"
    folder, cwd = root / "week5", root / "week5"
    first = None
    if frontend == "server path":
        monkeypatch.setenv("JPY_SESSION_NAME", f"week5/{WORKED}")
    elif frontend == "VS Code":
        first = f"__vsc_ipynb_file__ = {str(folder / WORKED)!r}"
    else:
        cwd = root / "elsewhere"
        cwd.mkdir(parents=True)
        monkeypatch.setenv("JPY_SESSION_NAME", str(folder / WORKED))
    worked = _notebook(student, folder / WORKED, ANSWER, first=first)
    _blank_copy_newer(student, folder, ANSWER, first=first)
    nb = _run(worked, cwd)
    assert not cell_errors(nb), cell_errors(nb)
    names, _ = _handed_in(folder)
    assert WORKED in names, names  # top level, under its own name
    assert f"Handing in {WORKED}" in _printed(nb), _printed(nb)


#: A first cell that makes otter take the kernel for Colab's (otter asks IPython's shell for its
#: name): there otter reads tests only from a folder, never from the notebook's metadata.
AS_ON_COLAB = (
    "import otter.check.utils\n"
    "otter.check.utils.get_ipython = lambda: '<google.colab._shell.Shell object>'"
)


@pytest.mark.parametrize("colab", [False, True], ids=["Jupyter", "as on Colab"])
def test_grader_check_runs_from_another_working_folder(
    student, tmp_path, monkeypatch, colab
):
    """A kernel whose working folder holds no notebook and no tests (Colab's ``/content``),
    and no session path: the public tests still run."""
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    worked = _notebook(
        student,
        tmp_path / "drive" / WORKED,
        ANSWER,
        export=False,
        first=AS_ON_COLAB if colab else None,
    )
    elsewhere = tmp_path / "content"
    elsewhere.mkdir()
    nb = _run(worked, elsewhere)
    assert not cell_errors(nb), cell_errors(nb)
    check = nb.cells[-1]
    assert check.source.startswith("grader.check(")
    shown = "".join(str(o.get("data", {}).get("text/plain", "")) for o in check.outputs)
    # the public tests ran, and failed: the answer cell defines none of the names they read
    assert "ex-08-3" in shown and "does not exist" not in shown, shown
    assert "NameError" in shown, shown


def test_init_cell_carries_only_public_tests():
    """The tests the init cell writes are the public ones: hidden cases are dropped."""
    tests = {
        "q": {
            "name": "q",
            "points": 2,
            "suites": [
                {
                    "cases": [
                        {"code": ">>> 1", "hidden": False},
                        {"code": ">>> 2", "hidden": True},
                    ]
                }
            ],
        }
    }
    source = assign.init_source(STEM, assign._public_tests(tests))
    assert "'>>> 1'" in source and "'>>> 2'" not in source
    compile(source, "init", "exec")


def test_init_cell_keeps_one_tests_folder_and_removes_it_at_the_end(
    student, tmp_path, monkeypatch, kernel_temp
):
    """The init cell writes the public tests to a temporary folder: run again, it reuses the
    one folder, or writes a new one if that one was deleted; when the kernel shuts down, the
    folders are gone (none is left behind per run)."""
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    temp = kernel_temp  # the kernel's tempfile folder
    init = _cells(student, ANSWER, export=False)[0].source
    shown = "print(_tests_dir, sorted(os.listdir(_tests_dir)))"
    deleted = "import shutil\nshutil.rmtree(_tests_dir)"
    sources = [init, shown, init, shown, deleted, init, shown]
    nb = nbformat.v4.new_notebook(
        metadata=student.metadata, cells=[nbformat.v4.new_code_cell(c) for c in sources]
    )
    path = tmp_path / "work" / WORKED
    path.parent.mkdir()
    nbformat.write(nb, path)
    # shut down as Jupyter does it (the tests' kernels are otherwise killed: conftest.py)
    ran = _run(path, path.parent, shutdown_kernel="graceful")
    assert not cell_errors(ran), cell_errors(ran)
    first, again, anew = (ran.cells[i].outputs[0]["text"] for i in (1, 3, 6))
    assert first == again and first.startswith(str(temp)), (first, again)
    assert anew != first and anew.startswith(str(temp)), (first, anew)
    assert "ex-08-3.py" in first and "ex-08-3.py" in anew, (first, anew)
    assert not list(temp.iterdir()), list(temp.rglob("*"))  # removed at the end
