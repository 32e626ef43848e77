"""The declared style (pyproject.toml's [tool.ruff]; CONTRIBUTING.md, "Code style"): ruff's lint
and format checks pass on the package, the tools, the tests and the benchmarks, and the prose
keeps one spelling variety."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _chapters import ROOT

PATHS = ["formulated", "booktools", "tests", "benchmarks"]


def _ruff(*args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which(
        "ruff"
    )
    if exe is None:
        pytest.fail(
            "ruff not found: make env installs it (pyproject.toml, the book extra)"
        )
    return subprocess.run(
        [exe, *args, *PATHS], cwd=ROOT, capture_output=True, text=True
    )


def test_ruff_check_is_clean():
    result = _ruff("check", "--output-format", "concise")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-1000:]


def test_ruff_format_check_is_clean():
    result = _ruff("format", "--check")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-1000:]


#: British spellings the project does not use (CONTRIBUTING.md: American English).
BRITISH = re.compile(
    r"(?i)\b\w*(?:optimis|normalis|initialis|standardis|minimis|maximis|"
    r"summaris|recognis|tokenis|colour|behaviour|neighbour|favour|licence|"
    r"modelling|labelled|travelled|cancelled)\w*"
)


def _british(text: str) -> list[str]:
    return BRITISH.findall(text)


def test_one_spelling_variety():
    files = [
        p
        for d in ("formulated", "booktools", "tests", "chapters", "benchmarks")
        for p in (ROOT / d).rglob("*")
        if p.suffix in (".py", ".md", ".tsv")
        and "vendor" not in p.parts
        and "_static_assets" not in p.parts
    ]
    files += [ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
    found = {
        str(p.relative_to(ROOT)): hits
        for p in files
        if p != Path(__file__) and (hits := _british(p.read_text(encoding="utf-8")))
    }
    assert not found, (
        f"British spellings (CONTRIBUTING.md, Code style): {list(found.items())[:8]}"
    )


def test_spelling_check_finds_a_british_word():
    assert _british("The optimiser normalises the colour.") == [
        "optimiser",
        "normalises",
        "colour",
    ]
    assert _british("The optimizer normalizes the color.") == []
