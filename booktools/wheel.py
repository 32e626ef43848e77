"""The autograder's environment: the book's package as a wheel, and what the zip installs.

Gradescope builds the autograder's environment from the zip that ``otter assign`` writes
(:func:`booktools.assign.write_assignment`): its ``requirements.txt`` lists
:data:`AUTOGRADER_REQUIREMENTS`, and the book's own package travels in the zip as the wheel that
:func:`package_wheel` builds.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

__all__ = ["AUTOGRADER_REQUIREMENTS", "GRADESCOPE_SOURCE", "package_wheel"]


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
)
#: Where Gradescope unpacks the autograder zip; otter puts extra files under ``files/``.
GRADESCOPE_SOURCE = "/autograder/source"


def package_wheel(dest: str | Path) -> Path:
    """The book's package as a wheel in ``dest`` (built once; reused when it is there)."""
    import shutil
    import tempfile

    from formulated import __version__

    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    found = sorted(dest.glob(f"formulated-{__version__}-*.whl"))
    if found:
        return found[-1]
    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        # from a copy: setuptools writes build/ and *.egg-info next to the sources
        src = Path(tmp) / "src"
        src.mkdir()
        for name in ("pyproject.toml", "README.md"):
            shutil.copy(root / name, src / name)
        shutil.copytree(root / "formulated", src / "formulated",
                        ignore=shutil.ignore_patterns("__pycache__"))
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                        "--no-build-isolation", "-w", str(dest), str(src)], check=True)
    (wheel,) = dest.glob(f"formulated-{__version__}-*.whl")
    return wheel
