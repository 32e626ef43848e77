"""The autograder zips, as Gradescope uses them: the environment is built from a zip alone.

Gradescope knows nothing of this repository: it installs what the zip's ``environment.yml``
lists (otter, PyTorch, the book's wheel from the zip's ``files/``) and runs ``otter run`` on each
submission.  So every chapter must run from that environment alone — the data its cells read
included (the wheel carries them in ``formulated/_data/``, booktools/course/wheel.py) — and the
zip's Python must be the one the tests run with.

How the fresh environment is built (:func:`_zip_environment`): a new virtual environment
*without* ``--system-site-packages`` (which would see this repository's editable install),
into which pip installs only what the zip lists — the book's wheel from the unpacked zip, the
pinned versions from pip's configured (offline) index; PyTorch's CPU index, unreachable
offline, is left out.  ``otter run`` then runs from that environment with a clean process
environment (no ``PYTHONPATH``, no user site, Jupyter and IPython folders of its own), in a
working folder outside the repository.  One environment serves every chapter: the
:func:`zip_environment` fixture builds it once per test run, from the first graded chapter's
zip, for every pytest-xdist worker, and each chapter's test checks that its own zip's
``environment.yml`` is the one it was built from.

The tests, which pytest-xdist spreads over its workers (one ``otter run`` at a time each):

* :func:`test_the_zip_environment_is_the_zips_own`: the environment's ``formulated`` and its
  data are the zip's, not this repository's; every import statement of every chapter's code and
  of every test succeeds there (a control import must fail).
* :func:`test_chapter_grades_from_its_zip_alone`, one per graded chapter: the book's solutions
  score full marks from the chapter's zip, with no cell raising; for the chapter of
  :data:`ZIP_WRONG`, a wrong submission (tests/_hand_ins.py's ``WRONG``) scores below full, and
  below full on each exercise it gets wrong.

What runs in it, and why that is enough (the chapters' own runs are ``make book``'s, checked
by tests/test_chapters.py): :data:`WHOLE`'s solutions hand-in runs every cell of its chapter;
every other chapter's is a reduced hand-in (tests/_hand_ins.py: the answers and the chapter
cells that bind what they and the tests read), which grades the solutions without running the
chapter again.  What the whole runs of those chapters proved besides is checked directly: that
what their code imports is in the environment (:func:`_failed_imports`), and that the data they
read come from the zip's wheel (the corpus that chapters 6 and 18 read, here through
``load_data``).  The wrong submissions are graded here, from the zip alone, except
``LOCAL_WRONG``'s, which tests/test_assignments.py grades through booktools.course.grading (the
instructor's ``otter run`` in the repository's environment): each wrong submission is graded
once, in one of the two environments, and each environment grades at least one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from _chapters import ROOT
from _hand_ins import (
    LOCAL_WRONG,
    WRONG,
    chapter_code,
    check_partial,
    import_statements,
    reduced_hand_in,
)
from _helpers import once

from booktools.course import grading
from booktools.course.specs import SPECS
from booktools.course.wheel import AUTOGRADER_PYTHON, GRADESCOPE_SOURCE, package_wheel

#: Every chapter with an autograded exercise (the others' zips have no tests to run).
GRADED = [
    p.stem
    for p in sorted((ROOT / "chapters").glob("[0-9][0-9]_*.md"))
    if grading.solutions(p)
]
#: The chapter whose wrong submission (tests/_hand_ins.py's ``WRONG``) is graded from the zip:
#: the one that tests/test_assignments.py does not grade in the repository's environment.  That
#: each hidden test rejects wrong answers is checked for every exercise by
#: tests/test_grading_fairness.py (without otter); that a blank hand-out scores nothing, for
#: every chapter by tests/test_assignments.py.
ZIP_WRONG = sorted(set(WRONG) - {LOCAL_WRONG})
#: The one chapter whose solutions hand-in is the whole student notebook, every cell run in the
#: zip's environment: chapter 18 asks the most of it — it reads the corpus through the package
#: (``load_data``), builds, trains, checkpoints (in a temporary folder), resumes and samples a
#: model with the package's training loop, counts GPT-2's parameters with ``transformers`` and
#: shows a widget.  (Chapter 19 has no autograded exercise: its zip has nothing to grade.)
WHOLE = "18_train_tiny_gpt"
#: In :data:`WHOLE`'s hand-in, the cell that trains the ``book`` preset stops after the first
#: :data:`WHOLE_STEPS` of its 1500 steps (``stop_at_step``, :func:`shortened_training`): the
#: same run, loop and schedule, with its progress bar, an evaluation (every 250 steps) and a
#: checkpoint.  The other 1250 steps ask nothing more of the environment and took 40 of the
#: hand-in's 78 CPU-seconds.  The cells after it read the run's history, sample from it and
#: show its widget, as after the whole run (the loss passes the unigram level near step 30;
#: the book's pages show the whole run).
WHOLE_STEPS = 250
#: The call in :data:`WHOLE`'s training cell that :func:`shortened_training` shortens.
WHOLE_TRAIN = 'train("book", run_dir / "book", overwrite=True)'
#: An import that no environment has: :func:`_failed_imports` must report it (the control
#: that shows the import check can fail).
CONTROL_IMPORT = "import formulated_has_no_such_module"
#: Runs the import statements given as arguments, each on its own; prints, as JSON on its last
#: line, those that raised and why.
_TRY_IMPORTS = """
import json, sys
failed = {}
for statement in sys.argv[1:]:
    try:
        exec(statement, {})
    except Exception as error:
        failed[statement] = f"{type(error).__name__}: {error}"
print(json.dumps(failed))
"""


def _clean_env(venv: Path, home: Path) -> dict[str, str]:
    """A process environment in which only ``venv`` provides Python packages and kernels;
    ``home`` holds its Jupyter and IPython folders (one per test: two workers' kernels do not
    share IPython's history database)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(
            ("PYTHON", "JUPYTER", "IPYTHON", "VIRTUAL_ENV", "CONDA", "PIP_")
        )
        and k not in {"FORMULATED_DATA", "FORMULATED_LIVE", "JPY_SESSION_NAME"}
    }
    for name in ("jupyter_data", "jupyter_config", "ipython"):
        (home / name).mkdir(parents=True, exist_ok=True)
    env.update(
        PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        VIRTUAL_ENV=str(venv),
        PYTHONNOUSERSITE="1",
        JUPYTER_DATA_DIR=str(home / "jupyter_data"),
        JUPYTER_CONFIG_DIR=str(home / "jupyter_config"),
        IPYTHONDIR=str(home / "ipython"),
        MPLBACKEND="Agg",
        OMP_NUM_THREADS="1",
    )  # two pytest workers on shared cores: one thread each
    return env


def _zip_environment(zip_path: Path, where: Path) -> None:
    """Unpack ``zip_path`` as Gradescope does (``where/source``, the zip's ``/autograder/source``)
    and build a virtual environment, ``where/venv``, from its ``environment.yml`` alone."""
    import yaml

    source = where / "source"
    zipfile.ZipFile(zip_path).extractall(source)
    spec = yaml.safe_load((source / "environment.yml").read_text())
    conda = [d for d in spec["dependencies"] if isinstance(d, str)]
    pip = next(d["pip"] for d in spec["dependencies"] if isinstance(d, dict))
    wheel = next(p for p in pip if p.endswith(".whl"))
    assert wheel.startswith(f"{GRADESCOPE_SOURCE}/files/formulated-"), wheel
    requirements = [
        p.replace(GRADESCOPE_SOURCE, str(source))
        for p in pip
        if not p.startswith("--extra-index-url")
    ]
    venv = where / "venv"
    # a venv without pip: this environment's pip installs into it (--python), as the current pip
    # that the zip's environment.yml asks conda for would; the venv's own (23.2, bundled with
    # this Python) took 5 CPU-s to set up, and 49 for what pip 26 does in 28
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True
    )
    env = _clean_env(venv, where / "home")
    extra = [c for c in conda if not c.startswith(("python", "pip"))]
    # --no-compile: the kernels compile what they import (PyTorch holds thousands of modules)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(venv / "bin" / "python"),
            "install",
            "--quiet",
            "--no-compile",
            *extra,
            *requirements,
        ],
        check=True,
        cwd=where,
        env=env,
    )


@pytest.fixture(scope="session")
def zip_environment(assignment, shared_tmp) -> Path:
    """The folder of the environment built from a zip alone (:func:`_zip_environment`:
    ``venv/``, and ``source/``, the zip unpacked), built once per test run and shared by every
    pytest-xdist worker (_helpers.once); from the first graded chapter's zip, which every
    chapter's test compares its own with."""
    zip_path = assignment(GRADED[0])[1]
    return once(
        shared_tmp / "zip_environment", lambda out: _zip_environment(zip_path, out)
    )


def _grade(
    venv: Path,
    env: dict[str, str],
    zip_path: Path,
    submission: Path,
    out: Path,
    *,
    debug: bool = False,
) -> dict[str, float]:
    """``otter run`` of the environment on one submission: points per graded question.
    ``debug``: otter's debug mode, in which a cell that raises fails the run (by default
    otter grades whatever the cells left).  A run that hangs (a kernel reply missed;
    booktools/course/otter_cli.py is not in the zip's environment) or whose kernel did not
    start within nbclient's 60 s (a loaded machine: make test runs this beside the browser
    tests) is tried once more."""
    out.mkdir(parents=True)
    cmd = [
        str(venv / "bin" / "otter"),
        "run",
        "--no-logo",
        *(["--debug"] if debug else []),
        "-a",
        str(zip_path),
        "-o",
        str(out),
        str(submission),
    ]
    for attempt in (1, 2):
        try:
            done = subprocess.run(
                cmd, capture_output=True, text=True, cwd=out, env=env, timeout=420
            )
            if attempt == 1 and "Kernel didn't respond" in done.stderr:
                continue  # the kernel's start-up timed out: no grade was given
            break
        except subprocess.TimeoutExpired:
            if attempt == 2:
                raise
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    tests = json.loads((out / "results.json").read_text())["tests"]
    # the written questions (graded by hand) have no score in the results
    return {t["name"]: float(t["score"]) for t in tests if t.get("score") is not None}


def shortened_training(notebook: Path) -> None:
    """``notebook`` (:data:`WHOLE`'s hand-in) with its one call :data:`WHOLE_TRAIN` stopping
    after :data:`WHOLE_STEPS` steps; fails if the chapter no longer holds that call once."""
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    counts = [c.source.count(WHOLE_TRAIN) for c in nb.cells]
    assert sum(counts) == 1, (
        f"{notebook.name}: expected one {WHOLE_TRAIN} in one cell, found "
        f"{[n for n in counts if n]} per cell"
    )
    (cell,) = [c for c, n in zip(nb.cells, counts) if n]
    shorter = WHOLE_TRAIN.removesuffix(")") + f", stop_at_step={WHOLE_STEPS})"
    cell.source = cell.source.replace(WHOLE_TRAIN, shorter)
    nbformat.write(nb, notebook)


def test_shortened_training_changes_the_one_training_call(tmp_path):
    """:func:`shortened_training` finds the chapter's training call (in the chapter, once) and
    changes that call only; a notebook without it fails, rather than train the whole run."""
    import nbformat

    chapter = (ROOT / "chapters" / f"{WHOLE}.md").read_text(encoding="utf-8")
    assert chapter.count(WHOLE_TRAIN) == 1
    other = "train(None, run_dir / 'halves', resume=True)"
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(f"x = 1\nresult = {WHOLE_TRAIN}\nresult"),
            nbformat.v4.new_code_cell(other),
        ]
    )
    path = tmp_path / "hand_in.ipynb"
    nbformat.write(nb, path)
    shortened_training(path)
    cells = [c.source for c in nbformat.read(path, as_version=4).cells]
    shorter = 'train("book", run_dir / "book", overwrite=True, stop_at_step=250)'
    assert cells == [f"x = 1\nresult = {shorter}\nresult", other]
    with pytest.raises(AssertionError, match="expected one"):
        shortened_training(path)  # the call is gone now


def _failed_imports(
    venv: Path, env: dict[str, str], cwd: Path, statements: list[str]
) -> dict[str, str]:
    """The import ``statements`` that fail in the environment ``venv`` (one process, each
    statement on its own): statement -> the error."""
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", _TRY_IMPORTS, *statements],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _every_import() -> list[str]:
    """Every import statement of every chapter's code (its cells and its solutions, as the
    student notebook holds them) and of every exercise's tests (which otter runs in it)."""
    chapters = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.md"))
    tests = [t for spec in SPECS.values() for t in spec.public + spec.hidden]
    return import_statements([c for p in chapters for c in chapter_code(p)] + tests)


def test_the_graded_chapters_are_those_expected():
    """What the tests below are parametrized with: the graded chapters (found by their
    solutions), :data:`WHOLE` among them, and every chapter of ``WRONG``."""
    assert len(GRADED) >= 15, GRADED
    assert WHOLE in GRADED, GRADED
    assert set(WRONG) <= set(GRADED) and LOCAL_WRONG in WRONG, (sorted(WRONG), GRADED)
    assert ZIP_WRONG, "no wrong submission is graded from a zip"


@pytest.mark.slow  # builds the environment (pip: a minute) and imports every chapter's modules
def test_the_zip_environment_is_the_zips_own(zip_environment, tmp_path):
    """The environment built from the zip alone has the tests' Python; its ``formulated`` and
    that package's data are the zip's (in the environment), not this repository's tree, and the
    corpus is read as chapter 18 reads it (``load_data``); every import statement of every
    chapter's code and of every exercise's tests succeeds there, and a control import fails.

    The imports stand for the whole runs of the chapters whose solutions are graded from a
    reduced hand-in (tests/_hand_ins.py): those runs would also have failed on a module missing
    from the zip's ``environment.yml``."""
    spec = (zip_environment / "source" / "environment.yml").read_text()
    tested = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert AUTOGRADER_PYTHON == tested, (AUTOGRADER_PYTHON, tested)
    assert f"python={AUTOGRADER_PYTHON}" in spec, spec
    venv = zip_environment / "venv"
    env = _clean_env(venv, tmp_path / "home")
    probe = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import formulated, formulated.data as d, torch; "
            "from formulated.training import load_data; "
            "print(formulated.__file__, d.DATA_DIR, torch.__version__, "
            "load_data()[0].vocab_size)",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert probe.returncode == 0, probe.stderr[-2000:]
    package, data_dir, torch_version, vocab = probe.stdout.split()
    assert package.startswith(str(venv)) and data_dir.startswith(str(venv)), (
        probe.stdout
    )
    assert str(ROOT) + os.sep not in probe.stdout, probe.stdout
    assert torch_version.startswith("2.13.0") and vocab == "65", probe.stdout
    failed = _failed_imports(venv, env, tmp_path, [*_every_import(), CONTROL_IMPORT])
    assert list(failed) == [CONTROL_IMPORT], failed


@pytest.mark.slow  # otter run in the zip's environment: 10 to 40 s (chapter 18)
@pytest.mark.parametrize("stem", GRADED)
def test_chapter_grades_from_its_zip_alone(stem, assignment, zip_environment, tmp_path):
    """The chapter's zip asks for the environment the tests built (its ``environment.yml`` is
    the one :func:`zip_environment` was built from), and in that environment ``otter run`` with
    the chapter's zip gives the book's solutions full marks, with no cell raising (otter's debug
    mode) — for :data:`WHOLE`, the hand-out with every cell run and each answer cell filled with
    the book's solution (its training stopped at :data:`WHOLE_STEPS`); for the others, the
    reduced hand-in (tests/_hand_ins.py: the answers and the chapter cells that bind what they
    and the tests read, not the rest of the chapter).
    For the chapter of :data:`ZIP_WRONG`, the reduced hand-in of ``WRONG``'s answers (the
    others right) scores some points, but below full, and below full on each exercise answered
    wrong: the zip's hidden tests grade, and reject those mistakes.

    A reduced hand-in whose slice missed a cell that a kept cell reads fails here (a
    ``NameError``, in debug mode); what the slice cannot see is said in tests/_hand_ins.py.
    What the reduced hand-ins leave unproven is that every cell of every chapter runs in this
    environment: :data:`WHOLE` shows one whole chapter does,
    :func:`test_the_zip_environment_is_the_zips_own` that what the others import is there, and
    tests/test_chapters.py that each chapter runs (in the book's environment, not this one)."""
    chapter = ROOT / "chapters" / f"{stem}.md"
    student, zip_path = assignment(stem)
    built_from = (zip_environment / "source" / "environment.yml").read_text()
    assert zipfile.ZipFile(zip_path).read("environment.yml").decode() == built_from, (
        "the zips' environment.yml differ"
    )
    venv = zip_environment / "venv"
    env = _clean_env(venv, tmp_path / "home")
    answers = grading.solutions(chapter)
    full = {label: float(SPECS[label].points) for label in answers}
    if stem == WHOLE:
        right = grading.fill_answers(
            student, answers, tmp_path / "solutions" / student.name
        )
        shortened_training(right)
    else:
        right = reduced_hand_in(student, answers, tmp_path / "solutions" / student.name)
    got = _grade(
        venv, env, zip_path, right, tmp_path / "solutions" / "results", debug=True
    )
    print(stem, "solutions", sum(got.values()), "of", sum(full.values()))
    assert got == full, f"{stem}: the book's solutions score {got}, expected {full}"
    if stem not in ZIP_WRONG:
        return
    wrong = reduced_hand_in(
        student, {**answers, **WRONG[stem]}, tmp_path / "wrong" / student.name
    )
    partial = _grade(venv, env, zip_path, wrong, tmp_path / "wrong" / "results")
    print(stem, "wrong", sum(partial.values()), "of", sum(full.values()))
    check_partial(stem, partial)


@pytest.mark.slow  # builds the wheel, to read what the build printed
def test_the_wheel_carries_the_data_and_builds_cleanly(tmp_path, capfd):
    """The zips' wheel holds the data the chapters read (formulated/_data/), setuptools builds it
    without a deprecation warning (the license as an SPDX string), and the installed package
    finds its data there — not in a repository beside it."""
    from formulated.data import PACKAGED_DATA

    wheel = package_wheel(tmp_path / "wheel")
    log = capfd.readouterr()
    assert "Deprecat" not in log.out + log.err, (log.out + log.err)[-3000:]
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        metadata = z.read(
            next(n for n in names if n.endswith(".dist-info/METADATA"))
        ).decode()
    assert {f"formulated/_data/{name}" for name in PACKAGED_DATA} <= names
    assert "License-Expression: MIT" in metadata
    assert wheel.stat().st_size < 2_000_000, (
        wheel.stat().st_size
    )  # the checkpoints stay out
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"PYTHONPATH", "FORMULATED_DATA"}
    }
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import formulated.data as d; "
        "print(d.__file__); print(d.DATA_DIR); print(len(d.tiny_shakespeare()))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(site)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=True,
    )
    module, data_dir, length = done.stdout.split("\n")[:3]
    assert module.startswith(str(site)) and data_dir == str(
        site / "formulated" / "_data"
    )
    assert int(length) == len(
        (ROOT / "data" / "tinyshakespeare.txt").read_text("utf-8")
    )


def test_the_data_folder_can_be_named_by_an_environment_variable(tmp_path):
    """``FORMULATED_DATA`` names the data folder (a copy kept elsewhere); without it, the
    repository's ``data/`` is found beside the editable install."""
    (tmp_path / "tinyshakespeare.txt").write_text("To be.", encoding="utf-8")
    code = "import formulated.data as d; print(d.DATA_DIR); print(d.tiny_shakespeare())"
    env = {k: v for k, v in os.environ.items() if k != "FORMULATED_DATA"}
    given = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**env, "FORMULATED_DATA": str(tmp_path)},
        check=True,
    ).stdout.split("\n")
    assert given[:2] == [str(tmp_path), "To be."], given
    default = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=True,
    ).stdout
    assert default.startswith(str(ROOT / "data") + "\n"), default[:200]
