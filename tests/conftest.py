"""Shared test settings (a headless matplotlib, a fixed hypothesis profile, one torch thread)
and what several test modules build once per test run: the book's wheel, each chapter's
assignment, the student edition."""

import os
import shutil
from pathlib import Path

import pytest
from _chapters import ROOT
from _helpers import RUN_FOLDER_VARIABLE, once, run_folder

os.environ.setdefault("MPLBACKEND", "Agg")

# Kernel replies are awaited in 1 s slices: a missed wake-up no longer stalls a cell for its
# whole timeout; kernels stop without the 1.3 s teardown (booktools/sphinx/kernel_client.py).
from booktools.sphinx import kernel_client  # noqa: E402

kernel_client.install()

from hypothesis import HealthCheck, settings  # noqa: E402

# Deterministic property tests: the same examples on every run (derandomize) and no deadline,
# since CI runs on 2 shared cores.
settings.register_profile(
    "book",
    derandomize=True,
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("book")


@pytest.fixture(autouse=True, scope="session")
def one_torch_thread():
    """One PyTorch thread for every test: tiny models run faster (no thread hand-offs) and the
    same on every machine, and two pytest workers on two cores do not wait for each other's
    threads.  Training runs set their own count (``threads``) and restore this one."""
    import torch

    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


def pytest_configure(config):
    # a pytest-xdist worker's temporary folder is inside the run's: the workers share that one
    # (pytest keeps the last three runs' folders)
    if hasattr(config, "workerinput") and config.option.basetemp:
        os.environ[RUN_FOLDER_VARIABLE] = str(Path(config.option.basetemp).parent)


@pytest.fixture(scope="session")
def shared_tmp(tmp_path_factory) -> Path:
    """A temporary folder that every worker of this test run shares (_helpers.run_folder)."""
    return run_folder() or tmp_path_factory.getbasetemp()


@pytest.fixture(scope="session")
def wheel(shared_tmp) -> Path:
    """The book's wheel (booktools.course.wheel.package_wheel), built once per test run."""
    from booktools.course.wheel import package_wheel

    (found,) = once(shared_tmp / "wheel", package_wheel).glob("*.whl")
    return found


@pytest.fixture(scope="session")
def assignment(shared_tmp, wheel):
    """``assignment(stem)`` -> ``(student notebook, autograder zip)`` of that chapter
    (booktools.course.assign.write_assignment, whose zip carries the run's one wheel), written
    once per test run and shared by the tests: they read it, and change only copies."""
    from booktools.course import assign

    def get(stem: str) -> tuple[Path, Path]:
        chapter = ROOT / "chapters" / f"{stem}.md"

        def write(out: Path) -> None:
            (out / "source").mkdir()
            shutil.copy(wheel, out / "source")  # write_assignment reuses it
            assign.write_assignment(chapter, out)

        out = once(shared_tmp / "assignments" / stem, write)
        return (
            assign.student_notebook_path(out, chapter),
            assign.autograder_zip_path(out, chapter),
        )

    return get


@pytest.fixture(scope="session")
def student_edition(shared_tmp) -> Path:
    """The student edition of every chapter (booktools.course.student.build_html, as ``make
    student-book``, into a temporary folder: ``_build/student`` may be stale) from the execution
    cache of ``make book``, built once per test run; its pages are under ``html/``."""
    from booktools.course import student
    from booktools.paths import CACHE

    if not (CACHE / "global.db").is_file():
        pytest.skip("no execution cache (_build/.jupyter_cache): run make book first")
    return once(
        shared_tmp / "student_edition",
        lambda out: student.build_html(out / "html", out / "doctrees"),
    )
