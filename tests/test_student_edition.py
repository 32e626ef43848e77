"""The student edition leads to no solution.

* ``make student-book`` ends with the leak scan (:func:`booktools.course.leak_scan.scan_edition`) of
  every page and every student notebook; here the same scan runs on a student edition built from
  the execution cache, every chapter.  Once chapter 8 printed ex-08-4's graded values
  (Output 2 = [2.0, 7.964, 0.054]) in a cell and in a widget's alt text, and no scan saw it.
* The scan reads alt texts and widget states, and knows what each solution printed.
* Appendix C of the student edition names none of the instructor's tooling.
* A student notebook's Colab set-up cell fetches the package and its data, not ``booktools/``
  (every hidden test) nor the chapters (every solution).
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
from booktools.sphinx.launch import BookHome

CHAPTERS = notebooks.chapters()
#: What appendix C says to instructors only.
INSTRUCTOR_WORDS = (
    "booktools",
    "exercises.py",
    "hidden test",
    "answer key",
    "autograder",
    "make assignments",
)


def _exercise(label: str) -> assign.Exercise:
    chapter = ROOT / "chapters" / f"{label[3:5]}_*.md"
    source = next(chapter.parent.glob(chapter.name))
    return next(
        e
        for e in assign.exercises(source.read_text(encoding="utf-8"))
        if e.label == label
    )


# --------------------------------------------------------------------------- the scan itself
def test_html_text_reads_alt_texts_and_widget_states():
    page = (
        '<p>Visible</p><img alt="a figure: 1.2345" src="x.png">'
        '<script type="application/vnd.jupyter.widget-state+json">'
        '{"state": {"m": {"state": {"value": "<img alt=\\"panel 3: row 1: 7.964\\" '
        'src=\\"data:image/svg+xml;base64,QUJD\\">"}}}}</script>'
        "<script>var hidden = 9.8765;</script>"
    )
    text = leak_scan.html_text(page)
    assert "Visible" in text and "1.2345" in text and "7.964" in text
    assert "9.8765" not in text and "QUJD" not in text


def test_a_value_only_the_solution_printed_is_found(tmp_path):
    """ex-16-4's untied count is printed by its solution's code, not written in its text: with
    the solution's printed output the scan finds it in an alt text; without, it cannot."""
    ex = _exercise("ex-16-4")
    printed = {
        code.strip(): "untied: 163,037,184 = 124,439,808 + 38,597,376"
        for code in ex.solution_code
    }
    page = tmp_path / "16_parameters.html"
    page.write_text(
        '<img alt="A bar chart: the untied model has 163,037,184 parameters">',
        encoding="utf-8",
    )
    found = leak_scan.leaks([page], CHAPTERS, printed)
    assert any("163037184" in f and "ex-16-4" in f for f in found), found
    assert not any("163037184" in f for f in leak_scan.leaks([page], CHAPTERS))
    # GPT-2's tied count is given by chapter 14 and printed there: not an answer of ex-16-4
    page.write_text("<p>GPT-2 small has 124,439,808 parameters</p>", encoding="utf-8")
    assert not leak_scan.leaks([page], CHAPTERS, printed)


def test_chapter_8_no_longer_prints_ex_08_4s_values(tmp_path):
    """The chapter's own cells (outside solutions) print inputs 1 and 3 of the worked
    example, and the widget starts scaled: ex-08-4's Output 2 and weights appear only in its
    solution.  Checked on the chapter's printed outputs in the execution cache."""
    outputs = leak_scan.executed_outputs()
    if not outputs:
        pytest.skip("no execution cache (_build/.jupyter_cache): run make book first")
    source = (ROOT / "chapters" / "08_attention.md").read_text(encoding="utf-8")
    shown = [v for k, v in assign.segments(source) if k == "code"]
    assert "attention_widget(scale=True)" in source
    printed = "\n".join(outputs.get(code.strip(), "") for code in shown)
    assert "Output 1" in printed and "1.9366" in printed, (
        "the chapter's outputs are cached"
    )
    for value in ("7.964", "0.982", "16. 12."):
        assert value not in printed, value


# ------------------------------------------------------------------ the whole student edition
# (conftest.py's ``student_edition``, built once per test run)
@pytest.mark.slow
def test_the_whole_student_edition_shows_no_solution(student_edition):
    """Every page (text, alt texts, widgets) and every student notebook: no solution text or
    code, no number a solution states or prints, no hidden-test line."""
    pages = sorted((student_edition / "html" / "chapters").glob("[0-9][0-9]_*.html"))
    assert [p.stem for p in pages] == [c.stem for c in CHAPTERS]
    found = leak_scan.scan_edition(student_edition)
    assert not found, "\n".join(found[:40])


@pytest.mark.slow
def test_the_student_edition_has_no_instructor_guide_and_no_link_to_solutions(
    student_edition,
):
    page = (
        student_edition / "html" / "chapters" / "appendix_c_instructors.html"
    ).read_text()
    text = student.page_text(page)
    assert "student edition" in text
    for word in INSTRUCTOR_WORDS:
        assert word not in text.lower(), word
    home = notebooks.book_home()
    for chapter in ("08_attention", "appendix_c_instructors"):
        html = (student_edition / "html" / "chapters" / f"{chapter}.html").read_text()
        # no button leads to the book's repository (its chapters and notebooks hold the
        # solutions): without student_edition.repository_url, no Binder/Colab/JupyterHub
        assert f'href="{home.repository_url}' not in html
        assert "colab.research.google.com/github" not in html
        assert "/v2/gh/" not in html and "git-pull?" not in html
    assert (
        '"repo": ""'
        in (student_edition / "html" / "chapters" / "08_attention.html").read_text()
    )


def test_make_student_book_runs_the_scan():
    recipe = (
        (ROOT / "Makefile").read_text().split("\nstudent-book:")[1].split("\n\n")[0]
    )
    build, scan = "-m booktools student", "-m booktools leak-scan _build/student"
    assert build in recipe and scan in recipe
    assert recipe.index(build) < recipe.index(scan)


# ------------------------------------------------------------------------------ appendix C
def test_appendix_c_is_replaced_in_the_student_edition_only():
    from booktools.sphinx.student import (
        CONFIG_NAME,
        INSTRUCTORS_PAGE,
        STUDENT_APPENDIX_C,
        student_appendix,
    )

    app = type("App", (), {})()
    app.config = type("Config", (), {CONFIG_NAME: True})()
    source = ["# For instructors\n\nbooktools/course/specs/ holds every hidden test."]
    student_appendix(app, INSTRUCTORS_PAGE, source)
    assert source == [STUDENT_APPENDIX_C]
    for word in INSTRUCTOR_WORDS:
        assert word not in source[0].lower(), word
    other = ["unchanged"]
    student_appendix(app, "chapters/08_attention", other)
    app.config = type("Config", (), {CONFIG_NAME: False})()
    full = ["the full book"]
    student_appendix(app, INSTRUCTORS_PAGE, full)
    assert other == ["unchanged"] and full == ["the full book"]


# ------------------------------------------------------------- the student Colab set-up cell
def _setup_cell(nb_text: str) -> str:
    import json

    nb = json.loads(nb_text)
    cell = next(
        c
        for c in nb["cells"]
        if notebooks.BOOTSTRAP_TAG in c.get("metadata", {}).get("tags", [])
    )
    return "".join(cell["source"])


def test_student_notebooks_set_up_cell_fetches_no_booktools():
    home = BookHome("https://github.com/some-course/formulated-gpt", "main", "")
    source = ROOT / "chapters" / "08_attention.md"
    full = _setup_cell(notebooks.notebook_text(source, home))
    mine = _setup_cell(notebooks.notebook_text(source, home, student=True))
    assert '"sparse-checkout", "set", "formulated", "data"' in mine
    assert "--filter=blob:none" in mine and "--sparse" in mine
    assert "booktools" not in mine and "chapters" not in mine
    assert (
        "sparse-checkout" not in full
    )  # the book's own notebooks: the whole repository


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="git not found")
def test_the_student_set_up_cell_checks_out_the_package_and_data_only(tmp_path):
    """The cell's clone, run against a local copy of this repository: ``formulated/`` and
    ``data/`` arrive, ``booktools/`` and ``chapters/`` do not."""
    branch = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--abbrev-ref", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    bare = tmp_path / "book.git"
    subprocess.run(
        ["git", "clone", "--quiet", "--bare", str(ROOT), str(bare)], check=True
    )
    subprocess.run(
        ["git", "-C", str(bare), "config", "uploadpack.allowFilter", "true"], check=True
    )
    home = BookHome("https://github.com/some-course/formulated-gpt", branch, "")
    cell = _setup_cell(
        notebooks.notebook_text(
            ROOT / "chapters" / "08_attention.md", home, student=True
        )
    )
    clone = cell[
        : cell.index("    # Colab's own PyTorch")
    ]  # no pip install, no Colab widgets
    clone = (
        clone.replace('"google.colab" in sys.modules', "True")
        .replace(home.repository_url, bare.as_uri())
        .replace("/content/formulated-gpt", str(tmp_path / "checkout"))
    )
    subprocess.run([sys.executable, "-c", clone], check=True, cwd=tmp_path)
    out = tmp_path / "checkout"
    assert (out / "formulated" / "formulas" / "heads.py").is_file()
    assert (out / "data").is_dir()
    assert (out / "pyproject.toml").is_file()
    assert not (out / "booktools").exists() and not (out / "chapters").exists()
    files = [p for p in out.rglob("*") if p.is_file() and ".git" not in p.parts]
    assert not any(re.search(r"exercises?\.py$|SPECS", p.name) for p in files)
