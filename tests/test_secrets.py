"""Hidden tests and reference answers stay with the instructor (booktools/, never installed).

``pip install .`` in a fresh virtual environment installs the package a student gets; no file it
installs may hold a hidden test's code line or a solution's fingerprint (its significant
numbers, phrases and code lines: :func:`booktools.teaching.leaks`).  On the tree before issue 23
(the tooling in ``formulated/book/``) this failed: exercises.py held every hidden test and
teaching.py the answer to ex-11-2.
"""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from _chapters import ROOT
from booktools import teaching
from booktools.exercises import SPECS

CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.md"))

#: Fingerprints of solutions that the package may hold, each with the reason it gives nothing
#: away (found by this test in formulated/errata, models/reference.py, widgets/block.py).
ALLOWED = {
    "38597376": "GPT-2's V * H = 50257 * 768, a product of two given sizes, not an answer",
    "i, j = np.indices((n, n))": "a generic index grid",
    "real = sum(p.numel() for p in": "the generic way to count a module's parameters",
}


def hidden_lines() -> set[str]:
    """The distinctive code lines of every hidden test (imports and short lines excepted)."""
    out = set()
    for spec in SPECS.values():
        for test in spec.hidden:
            for line in test.splitlines():
                s = re.sub(r"\s+", " ", line).strip()
                if len(s) >= 30 and not s.startswith(("import ", "from ", "#")):
                    out.add(s)
    return out


def secrets_in(files) -> list[str]:
    """Every hidden-test line and solution fingerprint found in ``files``."""
    lines = hidden_lines()
    found = []
    for f in files:
        flat = re.sub(r"\s+", " ", f.read_text(encoding="utf-8", errors="replace"))
        found += [f"{f.name}: hidden test line {s!r}" for s in sorted(lines) if s in flat]
    return found


@pytest.mark.slow
def test_the_installed_package_holds_no_hidden_test_nor_answer(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--no-build-isolation", "--target", str(target), str(ROOT)], check=True,
                   cwd=tmp_path)
    files = [p for p in target.rglob("*") if p.is_file() and p.suffix in (".py", ".txt",
                                                                          ".json", ".md")]
    assert any(p.name == "formulas.py" for p in files), "the package was not installed"
    assert not any("booktools" in p.parts for p in files), "booktools must not be installed"
    renamed = []
    for p in files:  # leaks() reads a file's chapter from its name: check against every one
        copy = tmp_path / "scan" / f"00_{p.parent.name}_{p.name}"
        copy.parent.mkdir(exist_ok=True)
        copy.write_text(p.read_text(encoding="utf-8", errors="replace"), encoding="utf-8")
        renamed.append(copy)
    # what the book prints outside its solutions (prose, chapter code) is published anyway:
    # GPT-2's V * H = 38597376 in chapter 16's text, a generic np.indices line
    published = re.sub(r"\s+", " ", "\n".join(
        v for ch in CHAPTERS for k, v in teaching._segments(ch.read_text(encoding="utf-8"))
        if k in ("md", "code")))
    numbers = teaching._numbers(published)

    def unpublished(entry: str) -> bool:
        m = re.search(r": (number|code) '?(.+?)'? of ", entry)
        if m and m[2] in ALLOWED:
            return False
        return not m or (m[2] not in numbers if m[1] == "number" else m[2] not in published)
    found = secrets_in(files) + [f for f in teaching.leaks(renamed, CHAPTERS) if unpublished(f)]
    assert not found, "\n".join(found[:40])


def test_the_scan_finds_a_hidden_test_and_an_answer(tmp_path):
    """The scan itself: a copy of booktools/exercises.py (where formulated/book/ held it) and
    the old teaching.py docstring with ex-11-2's answer are found."""
    leaked = tmp_path / "00_exercises.py"
    leaked.write_text((ROOT / "booktools" / "exercises.py").read_text(encoding="utf-8"))
    assert secrets_in([leaked])
    doc = tmp_path / "00_teaching.py"
    doc.write_text('"""a rounding of it (``0.16997`` of ``0.169971``)."""\n')
    assert teaching.leaks([doc], CHAPTERS)
