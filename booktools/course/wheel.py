"""The autograder's environment: the book's package as a wheel, and what the zip installs.

Gradescope builds the autograder's environment from the zip that ``otter assign`` writes
(:func:`booktools.course.assign.write_assignment`): its ``requirements.txt`` lists
:data:`AUTOGRADER_REQUIREMENTS`, and the book's own package travels in the zip as the wheel that
:func:`package_wheel` builds.  The wheel carries the data the chapters read
(:data:`formulated.data.PACKAGED_DATA`, copied from ``data/`` into ``formulated/_data/`` while it
is built), so an environment built from the zip alone runs every chapter: the repository keeps
one copy of them, in ``data/``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from booktools.paths import ROOT

__all__ = [
    "AUTOGRADER_PYTHON",
    "AUTOGRADER_REQUIREMENTS",
    "GRADESCOPE_SOURCE",
    "package_wheel",
]

#: The Python of the autograder's environment (the zip's ``environment.yml``; otter's own
#: default, 3.13, is never tested): the one the book's CI runs ``make test`` with, which
#: ``tests/test_autograder_zip.py`` checks.
AUTOGRADER_PYTHON = "3.11"


#: What the autograder's environment installs besides otter (Gradescope builds it from the zip:
#: ``environment.yml``'s pip list).  PyTorch from its CPU index (no CUDA download); the same
#: versions as the book's CI (``.ci/constraints.txt``), which the tests were checked with.
#: ``{wheel}`` is the book's package, built from the repository and put in the zip.
AUTOGRADER_REQUIREMENTS = (
    "--extra-index-url https://download.pytorch.org/whl/cpu",
    "torch==2.13.0",
    "{wheel}",
    "numpy==2.4.6",
    "matplotlib==3.11.2",
    "ipywidgets==8.1.9",
    "transformers==5.23.0",
    "tokenizers==0.23.3",
    # as .ci/constraints.txt: from 4.25 it imports rfc3987-syntax, whose grammar parser costs
    # about 2 CPU-seconds in each of otter's processes (per submission graded)
    "jsonschema==4.24.1",
)
#: Where Gradescope unpacks the autograder zip; otter puts extra files under ``files/``.
GRADESCOPE_SOURCE = "/autograder/source"


def _has_data(wheel: Path) -> bool:
    """Whether ``wheel`` holds every file of :data:`formulated.data.PACKAGED_DATA` (a wheel
    built before the data traveled with it does not)."""
    import zipfile

    from formulated.data import PACKAGED_DATA

    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    return all(f"formulated/_data/{name}" in names for name in PACKAGED_DATA)


def package_wheel(dest: str | Path) -> Path:
    """The book's package as a wheel in ``dest``, with the data the chapters read in
    ``formulated/_data/`` (built once; reused when it is there)."""
    import shutil
    import tempfile

    from formulated import __version__
    from formulated.data import PACKAGED_DATA

    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    found = sorted(dest.glob(f"formulated-{__version__}-*.whl"))
    if found and _has_data(found[-1]):
        return found[-1]
    for old in found:  # from before the data traveled with the wheel
        old.unlink()
    with tempfile.TemporaryDirectory() as tmp:
        # from a copy: setuptools writes build/ and *.egg-info next to the sources, and the
        # data go into the copy's package only (pyproject.toml's package-data names _data/)
        src = Path(tmp) / "src"
        src.mkdir()
        for name in ("pyproject.toml", "README.md"):
            shutil.copy(ROOT / name, src / name)
        shutil.copytree(
            ROOT / "formulated",
            src / "formulated",
            ignore=shutil.ignore_patterns("__pycache__", "_data"),
        )
        for name in PACKAGED_DATA:
            target = src / "formulated" / "_data" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / "data" / name, target)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--quiet",
                "--no-deps",
                "--no-build-isolation",
                "-w",
                str(dest),
                str(src),
            ],
            check=True,
        )
    (wheel,) = dest.glob(f"formulated-{__version__}-*.whl")
    if not _has_data(wheel):
        raise RuntimeError(
            f"{wheel.name}: the wheel lacks formulated/_data/ (pyproject.toml's "
            "package-data must name it)"
        )
    return wheel
