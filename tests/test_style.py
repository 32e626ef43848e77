"""The declared style (pyproject.toml's [tool.ruff] and [tool.codespell]; CONTRIBUTING.md, "Code
style"): ruff's lint and format checks and codespell pass over the whole repository, run at its
root as `make lint` and the pre-commit hooks run them; each check is shown to fail on a planted
slip."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _chapters import ROOT


def _tool(name: str) -> str:
    exe = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(
        name
    )
    if exe is None:
        pytest.fail(
            f"{name} not found: make env installs it (pyproject.toml, the book extra)"
        )
    return exe


def _run(name: str, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([_tool(name), *args], cwd=cwd, capture_output=True, text=True)


def _report(result: subprocess.CompletedProcess) -> str:
    return result.stdout[-3000:] + result.stderr[-1000:]


def test_ruff_check_is_clean():
    result = _run("ruff", "check", "--output-format", "concise", ".")
    assert result.returncode == 0, _report(result)


def test_ruff_format_check_is_clean():
    result = _run("ruff", "format", "--check", ".")
    assert result.returncode == 0, _report(result)


def test_spelling_is_clean():
    result = _run("codespell", ".")
    assert result.returncode == 0, (
        "codespell (CONTRIBUTING.md, Code style: American English; a word that is right "
        "goes in pyproject.toml's [tool.codespell] ignore-words-list):\n"
        + _report(result)
    )


def test_ruff_reads_the_chapters_code():
    """ruff at the root reads the chapters' code (through their notebooks) as well as the
    package, the tools, the tests and the benchmarks."""
    linted = _run("ruff", "check", "--show-files", ".").stdout
    for folder in (
        "formulated",
        "booktools",
        "tests",
        "benchmarks",
        "chapters/notebooks",
    ):
        assert f"/{folder}/" in linted, folder


#: British spellings codespell must find; the first five escaped the regex this test replaced.
PLANTED = [
    *"orthogonalised Capitalised utilisation penalised".split(),  # codespell:ignore
    *"generalise optimiser normalises colour".split(),  # codespell:ignore
]


def _planted(tmp_path: Path) -> Path:
    """A copy of the configuration, and one slip of each kind where the checks read."""
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    (tmp_path / ".ci").mkdir()
    shutil.copy(ROOT / ".ci/codespell-american.txt", tmp_path / ".ci")
    for folder in ("formulated", "chapters/notebooks"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "formulated/step.py").write_text(
        f'import os\n\n\ndef step(x):\n    """Momentum, {PLANTED[0]}."""\n    return x\n'
    )
    (tmp_path / "formulated/layout.py").write_text("def f(a,b):\n    return a+b\n")
    (tmp_path / "chapters/01.md").write_text(" ".join(PLANTED[1:]) + ".\n")
    # made from the chapters: codespell leaves it to the chapter it was made from
    (tmp_path / "chapters/notebooks/01.ipynb").write_text(f'{{"{PLANTED[-1]}": 1}}\n')
    return tmp_path


def test_each_check_fails_on_a_planted_slip(tmp_path):
    root = _planted(tmp_path)
    lint = _run("ruff", "check", "--output-format", "concise", ".", cwd=root)
    assert lint.returncode == 1 and "F401" in lint.stdout and "`os`" in lint.stdout
    layout = _run("ruff", "format", "--check", ".", cwd=root)
    assert layout.returncode == 1 and "formulated/layout.py" in layout.stdout
    spelling = _run("codespell", ".", cwd=root)
    assert spelling.returncode != 0
    found = [
        line.split(": ")[1].split(" ==>")[0] for line in spelling.stdout.splitlines()
    ]
    assert sorted(found) == sorted(PLANTED), spelling.stdout
