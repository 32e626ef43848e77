"""What ``pip install .`` gives a reader (Colab, a course's JupyterHub) is the package the book
teaches: formulas, models, training, sampling, tokenizers, widgets, errata. The book's build,
live-server, Lab and assignment tooling (``booktools/``) is not installed, and no installed module
imports the packages that tooling needs."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import zipfile

import pytest
from _chapters import ROOT

#: Top-level packages only the book's tooling uses; a reader's install has none of them.
TOOLING_IMPORTS = frozenset(
    {
        "sphinx",
        "docutils",
        "myst_nb",
        "myst_parser",
        "jupyter_server",
        "jupyterlab",
        "otter",
        "nbclient",
        "jupyter_cache",
        "jupytext",
        "selenium",
        "booktools",
    }
)


def imported_top_levels(source: str) -> set[str]:
    """The top-level names of every ``import x`` / ``from x import y`` in ``source`` (absolute
    imports only: a relative import stays inside the package)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def tooling_imports(files: dict[str, str]) -> dict[str, set[str]]:
    """``{path: tooling packages it imports}`` for the files that import any."""
    found = {
        path: imported_top_levels(text) & TOOLING_IMPORTS
        for path, text in files.items()
    }
    return {path: names for path, names in found.items() if names}


@pytest.fixture(scope="module")
def wheel_files(tmp_path_factory) -> dict[str, str]:
    """The Python files of the wheel that ``pip install .`` would install, by path."""
    out = tmp_path_factory.mktemp("wheel")
    # Built from a copy: setuptools writes build/ and *.egg-info next to the sources.
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(
        ROOT / "formulated",
        src / "formulated",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
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
            str(out),
            str(src),
        ],
        check=True,
    )
    (wheel,) = out.glob("formulated-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        return {
            name: zf.read(name).decode()
            for name in zf.namelist()
            if name.endswith(".py")
        }


def test_tooling_imports_are_found():
    """The detector sees the imports it must refuse (so an empty result below means something)."""
    files = {
        "a.py": "import sphinx.application\n",
        "b.py": "from otter import Notebook\n",
        "c.py": "from . import formulas\nimport numpy as np\n",
        "d.py": "def f():\n    from jupyter_server import serverapp\n",
    }
    assert tooling_imports(files) == {
        "a.py": {"sphinx"},
        "b.py": {"otter"},
        "d.py": {"jupyter_server"},
    }


@pytest.mark.slow
def test_installed_package_has_no_book_tooling(wheel_files):
    assert any(path.startswith("formulated/formulas/heads.py") for path in wheel_files)
    tops = {path.split("/")[0] for path in wheel_files if "/" in path}
    assert tops <= {"formulated"} | {p for p in tops if p.endswith(".dist-info")}, tops
    assert not any(path.startswith("booktools/") for path in wheel_files)
    assert tooling_imports(wheel_files) == {}


def test_package_source_does_not_import_book_tooling():
    """The same rule on the working tree, without building a wheel."""
    files = {
        str(p.relative_to(ROOT)): p.read_text()
        for p in (ROOT / "formulated").rglob("*.py")
    }
    assert tooling_imports(files) == {}
