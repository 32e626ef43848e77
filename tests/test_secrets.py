"""Hidden tests and reference answers stay with the instructor (booktools/, never installed).

``pip install .`` in a fresh virtual environment installs the package a student gets; no file it
installs may hold a hidden test's code line or a solution's fingerprint (its significant
numbers, phrases and code lines: :func:`booktools.course.leak_scan.leaks`).  When the tooling
lived in ``formulated/book/`` this failed: exercises.py held every hidden test and
teaching.py the answer to ex-11-2.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest
from _chapters import ROOT

from booktools.build import notebooks
from booktools.course import assign, leak_scan, student
from booktools.course.specs import SPECS

CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.md"))

#: Fingerprints of solutions that the package may hold, each with the reason it gives nothing
#: away (found by this test in formulated/errata, models/reference.py, widgets/block.py).
ALLOWED = {
    "38597376": "GPT-2's V * H = 50257 * 768, a product of two given sizes, not an answer",
    "i, j = np.indices((n, n))": "a generic index grid",
    "real = sum(p.numel() for p in": "the generic way to count a module's parameters",
}


def published() -> str:
    """What the book shows outside its solutions (prose, chapter code), whitespace collapsed."""
    return re.sub(
        r"\s+",
        " ",
        "\n".join(
            v
            for ch in CHAPTERS
            for k, v in assign.segments(ch.read_text(encoding="utf-8"))
            if k in ("md", "code")
        ),
    )


def hidden_lines() -> set[str]:
    """The distinctive code lines of every hidden test (imports, short lines and lines the
    chapters show, such as chapter 14's parameter count, excepted)."""
    shown = published()
    out = set()
    for spec in SPECS.values():
        for test in spec.hidden:
            for line in test.splitlines():
                s = re.sub(r"\s+", " ", line).strip()
                # a line that only quotes a name (an entry of a tuple of names) reveals nothing
                if (
                    len(s) >= 30
                    and not s.startswith(("import ", "from ", "#"))
                    and not re.fullmatch(r'"[\w.]+",?', s)
                    and s not in shown
                ):
                    out.add(s)
    return out


def secrets_in(files) -> list[str]:
    """Every hidden-test line and solution fingerprint found in ``files``."""
    lines = hidden_lines()
    found = []
    for f in files:
        flat = re.sub(r"\s+", " ", f.read_text(encoding="utf-8", errors="replace"))
        found += [
            f"{f.name}: hidden test line {s!r}" for s in sorted(lines) if s in flat
        ]
    return found


@pytest.mark.slow
def test_the_installed_package_holds_no_hidden_test_nor_answer(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True
    )
    target = tmp_path / "site"
    # Installed from a copy: setuptools writes build/ and *.egg-info next to the sources.
    src = tmp_path / "src"
    shutil.copytree(
        ROOT / "formulated",
        src / "formulated",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(target),
            str(src),
        ],
        check=True,
        cwd=tmp_path,
    )
    # pip's own record of where it installed from (direct_url.json) holds the temporary path,
    # whose random digits once matched an answer: it is not the package's content.
    files = [
        p
        for p in target.rglob("*")
        if p.is_file()
        and p.name != "direct_url.json"
        and p.suffix in (".py", ".txt", ".json", ".md")
    ]
    assert any(p.name == "heads.py" for p in files), "the package was not installed"
    assert not any("booktools" in p.parts for p in files), (
        "booktools must not be installed"
    )
    renamed = []
    # leaks() reads a file's chapter from its name: check against every one
    for p in files:
        copy = tmp_path / "scan" / f"00_{p.parent.name}_{p.name}"
        copy.parent.mkdir(exist_ok=True)
        copy.write_text(
            p.read_text(encoding="utf-8", errors="replace"), encoding="utf-8"
        )
        renamed.append(copy)
    # what the book prints outside its solutions (prose, chapter code) is published anyway:
    # GPT-2's V * H = 38597376 in chapter 16's text, a generic np.indices line
    shown = published()
    numbers = leak_scan._numbers(shown)

    def unpublished(entry: str) -> bool:
        m = re.search(r": (number|code) '?(.+?)'? of ", entry)
        if m and m[2] in ALLOWED:
            return False
        return not m or (m[2] not in numbers if m[1] == "number" else m[2] not in shown)

    found = secrets_in(files) + [
        f for f in leak_scan.leaks(renamed, CHAPTERS) if unpublished(f)
    ]
    assert not found, "\n".join(found[:40])


def test_the_scan_finds_a_hidden_test_and_an_answer(tmp_path):
    """The scan itself: a copy of booktools/course/specs/ (where formulated/book/ held it) and
    the old teaching.py docstring with ex-11-2's answer are found."""
    leaked = tmp_path / "00_exercises.py"  # the hidden tests: every module of the specs
    leaked.write_text(
        "\n".join(
            p.read_text(encoding="utf-8")
            for p in sorted((ROOT / "booktools" / "course" / "specs").glob("*.py"))
        )
    )
    assert secrets_in([leaked])
    doc = tmp_path / "00_teaching.py"
    doc.write_text('"""a rounding of it (``0.16997`` of ``0.169971``)."""\n')
    assert leak_scan.leaks([doc], CHAPTERS)


# ------------------------------------------------------------------ the student edition
#: Chapters whose student pages the test reads (a {solution} box, gated solutions with code
#: cells and outputs: ex-15-4's count prints).
STUDENT_CHAPTERS = ["11_ffn_gelu", "15_bert_roberta"]


def _scan_texts(texts: dict[str, str], tmp) -> list[str]:
    """Hidden-test lines and solution fingerprints in ``texts`` (chapter stem -> text)."""
    tmp.mkdir(parents=True, exist_ok=True)
    files = []
    for stem, text in texts.items():
        f = tmp / f"{stem}.txt"  # leaks() reads the chapter from the file name
        f.write_text(text, encoding="utf-8")
        files.append(f)
    return secrets_in(files) + leak_scan.leaks(files, CHAPTERS)


@pytest.fixture(scope="module")
def student_pages(student_edition):
    """The student edition's HTML (conftest.py's ``student_edition``, built once per run)."""
    return student_edition / "html"


@pytest.mark.slow  # the student edition: a Sphinx build of the book
def test_the_student_book_shows_no_solution(student_pages, tmp_path):
    texts = {
        c: student.page_text((student_pages / "chapters" / f"{c}.html").read_text())
        for c in STUDENT_CHAPTERS
    }
    assert re.search(r"Exercise \d+\.2", texts["11_ffn_gelu"]), "the exercises stay"
    assert not any("Solution to" in t for t in texts.values())
    found = _scan_texts(texts, tmp_path / "scan")
    assert not found, "\n".join(found[:40])
    page = (student_pages / "chapters" / "15_bert_roberta.html").read_text()
    for button in ("download-source-button", "download-notebook-button"):
        assert button not in page  # the .md and .ipynb hold the solutions
    assert not (student_pages / "_sources").exists()
    # nor the PDF, whose appendix holds every solution
    assert "download-book-pdf-button" not in page and not list(
        student_pages.glob("*.pdf")
    )


def test_the_full_book_shows_solutions_the_scan_finds(tmp_path):
    """The same scan on the book `make book` built (solutions folded, present) finds them."""
    html = ROOT / "_build" / "html" / "chapters"
    if not (html / f"{STUDENT_CHAPTERS[0]}.html").is_file():
        pytest.skip("the full book is not built (make book)")
    texts = {
        c: student.page_text((html / f"{c}.html").read_text()) for c in STUDENT_CHAPTERS
    }
    found = _scan_texts(texts, tmp_path / "scan")
    assert any("bert_count = " in f for f in found), found[
        :5
    ]  # ex-15-4's solution code
    assert any("0.169971" in f for f in found), found[:5]  # ex-11-2's answer


def test_student_colab_notebooks_hold_no_solution(tmp_path):
    """``make notebooks STUDENT=1`` of every chapter: no hidden test, no solution; the
    repository's Colab notebooks (with solutions) fail the same scan."""
    shutil.copy(ROOT / "_config.yml", tmp_path / "_config.yml")
    (tmp_path / "chapters").mkdir()
    for ch in CHAPTERS:
        shutil.copy(ch, tmp_path / "chapters" / ch.name)
    written = notebooks.write_all(tmp_path, student=True)
    assert [p.stem for p in written] == [c.stem for c in CHAPTERS]
    assert all(p.parent == tmp_path / notebooks.STUDENT_DIR for p in written)
    found = secrets_in(written) + leak_scan.leaks(written, CHAPTERS)
    assert not found, "\n".join(found[:40])
    for p in written:  # every exercise is still there, no solution heading is
        text = p.read_text(encoding="utf-8")
        assert "Solution to Exercise" not in text, p.name
        stem = p.stem
        labels = [
            e.label
            for e in assign.exercises(
                (ROOT / "chapters" / f"{stem}.md").read_text(encoding="utf-8")
            )
        ]
        assert text.count("**Exercise ") >= len(labels), p.name
    full = sorted((ROOT / notebooks.NOTEBOOKS_DIR).glob("*.ipynb"))
    assert leak_scan.leaks(full, CHAPTERS), (
        "the scan must find the solutions of the full ones"
    )


def test_strip_solutions_keeps_exercises_and_drops_every_solution():
    text = (ROOT / "chapters" / "15_bert_roberta.md").read_text(encoding="utf-8")
    stripped = student.strip_solutions(text)
    assert "bert_count = " in text and "bert_count = " not in stripped
    for directive in ("{solution}", "{solution-start}", "{solution-end}"):
        assert directive in text and directive not in stripped
    assert stripped.count("{exercise}") == text.count("{exercise}")
    assert (
        stripped.count("{code-cell}") == text.count("{code-cell}") - 2
    )  # ex-15-2, ex-15-4
    with pytest.raises(ValueError, match="never ended"):
        student.strip_solutions("```{solution-start} ex-1\n```\ntext\n")
