"""End to end, as an instructor would: generate an assignment with otter-grader, hand in a
correct, a wrong and a blank submission, grade them with ``otter run``, check the scores.

The wrong submissions make the common mistakes the hidden tests must reject: a multiplicative
mask, a missing 1/sqrt(D), the unbiased variance in LayerNorm, the tanh form of GELU taken for
the exact one, 1.702 taken for the best constant of x*sigmoid(a*x).
"""
from __future__ import annotations

import csv
import shutil

import pytest

from _chapters import ROOT
from booktools import assign, grading, leak_scan
from booktools.wheel import GRADESCOPE_SOURCE

WRONG = {
    "08_attention": {
        # forgets the 1/sqrt(D) of scaled dot-product attention
        "ex-08-3": "def self_attention(X):\n"
                   "    Q, K, V = X @ ex.QKV_W_QUERY, X @ ex.QKV_W_KEY, X @ ex.QKV_W_VALUE\n"
                   "    return fg.softmax(Q @ K.T) @ V",
    },
    "09_masks": {
        # multiplies the weights by the 0/1 mask instead of adding -inf to the scores
        "ex-09-2": "lengths, n_b, D_b = [5, 3], 5, 4\n"
                   "Qb, Kb, Vb = (rng.standard_normal((2, n_b, D_b)) for _ in range(3))\n"
                   "real = np.arange(n_b)[None, :] < np.array(lengths)[:, None]\n"
                   "mask_b = np.tril(np.ones((n_b, n_b), dtype=bool))[None] & real[:, None, :]\n"
                   "ours_b = np.stack([(fg.softmax(Qb[b] @ Kb[b].T / np.sqrt(D_b)) * mask_b[b])"
                   " @ Vb[b] for b in range(2)])",
        # forgets to renormalise
        "ex-09-3": "product_w = fg.softmax(ex.MASK_SCALED_SCORES) * np.tril(np.ones((4, 4)))\n"
                   "renormalized = product_w",
        # counts n^2/2 and forgets the diagonal
        "ex-09-4": "causal_pairs = 1024 * 1023 // 2\nwasted_fraction = 0.5\n"
                   "band_pairs = 2048 * 256",
    },
    "11_ffn_gelu": {
        # the tanh approximation taken for GELU
        "ex-11-2": "grid = np.linspace(-3, 0, 300001)\n"
                   "values = fg.gelu(grid, approximation='tanh')\n"
                   "x_min, gelu_min = grid[np.argmin(values)], values.min()",
        # 1.702 believed best for both
        "ex-11-3": "a1 = a2 = 1.702",
    },
    "12_layernorm_residual": {
        "ex-12-2": "x_row = np.random.default_rng(5).standard_normal((1, 16))\na_limit = 0.01",
        # the ratio of two LayerNorms that both use the biased variance
        "ex-12-3": "ratio_4 = ratio_768 = 1.0",
    },
}
CHAPTERS = sorted(p.stem for p in (ROOT / "chapters").glob("[0-9][0-9]_*.md"))


@pytest.mark.parametrize("stem", sorted(WRONG))
def test_graded_submissions_score_full_partial_zero(stem, tmp_path):
    chapter = ROOT / "chapters" / f"{stem}.md"
    student = assign.write_assignment(chapter, tmp_path / "out")
    zip_path = assign.autograder_zip_path(tmp_path / "out", chapter)
    answers = grading.solutions(chapter)
    correct = grading.fill_answers(student, answers, tmp_path / "correct" / student.name)
    wrong = grading.fill_answers(student, {**answers, **WRONG[stem]},
                                  tmp_path / "wrong" / student.name)
    blank = tmp_path / "blank" / student.name
    blank.parent.mkdir()
    shutil.copy(student, blank)
    # A run takes 10-50 s; one that still exceeds 120 s would be retried (grading.grade).
    table = grading.grade_all([correct, wrong, blank], zip_path, tmp_path / "grades",
                               timeout=120)
    with table.open() as f:
        full, partial, zero = ({k: float(v) for k, v in row.items() if k != "submission"}
                               for row in csv.DictReader(f))
    possible = 2 * len(answers)  # every autograded exercise is worth 2 points
    print(stem, "correct", full["total"], "wrong", partial["total"], "blank", zero["total"],
          "of", possible)
    assert full["total"] == possible, full
    assert 0 < partial["total"] < possible, partial
    for label in WRONG[stem]:
        assert partial[label] < 2, f"{label}: the wrong answer got full marks"
    assert zero["total"] == 0, zero


def _errors(nb) -> list[str]:
    return [f"{o.get('ename')}: {o.get('evalue')}" for c in nb.cells if c.cell_type == "code"
            for o in c.get("outputs", []) if o.get("output_type") == "error"]


@pytest.mark.parametrize("stem", ["09_masks", "06_tokenization"])
def test_student_notebook_runs_from_any_directory(stem, tmp_path):
    """Top to bottom in a fresh kernel, from a folder that is not the repository's: data are
    found through the package, grader.check runs the public tests (failing on blank answers),
    and the export cell writes the zip to hand in without executing the notebook a second time
    (assign._config_cell says why)."""
    import zipfile

    import nbformat
    from nbclient import NotebookClient

    student = assign.write_assignment(ROOT / "chapters" / f"{stem}.md", tmp_path / "out")
    elsewhere = tmp_path / "somewhere" / "else"
    elsewhere.mkdir(parents=True)
    copy = elsewhere / student.name
    shutil.copy(student, copy)
    nb = nbformat.read(copy, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(elsewhere)}}).execute()
    assert not _errors(nb), _errors(nb)
    checks = [o for c in nb.cells if "grader.check(" in c.source for o in c.get("outputs", [])]
    assert checks, "the grader.check cells should report on the (blank) answers"
    export = next(c for c in nb.cells if "grader.export(" in c.source)
    assert "run_tests=True" not in export.source, export.source  # export's default: False
    zips = list(elsewhere.glob("*.zip"))
    assert len(zips) == 1, zips
    assert student.name in zipfile.ZipFile(zips[0]).namelist()


@pytest.mark.parametrize("stem", CHAPTERS)
def test_student_notebook_gives_away_no_solution(stem, tmp_path):
    """Every solution's numbers, sentences and code are scanned for in the student notebook
    (cells and the public tests in its metadata), for this chapter's exercises and later ones."""
    student = assign.write_assignment(ROOT / "chapters" / f"{stem}.md", tmp_path / "out")
    chapters = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.md"))
    found = leak_scan.leaks([student], chapters)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("stem", CHAPTERS)
def test_student_markdown_renders_in_lab_without_the_book(stem):
    """JupyterLab (jupyterlab-myst) knows no ``{formulated-source}`` and, in a notebook whose
    exercises are plain cells, no target for ``{ref}`ex-..```: the assignment's Markdown holds no
    directive and no role; a definition's code shows as a ``<details>`` box, a reference to
    an exercise as its number."""
    import re

    chapter = ROOT / "chapters" / f"{stem}.md"
    nb = assign.master_notebook(chapter)
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    directives = re.findall(r"^\s*(?:`{3,}|:{3,})\{([\w:.-]+)\}", markdown, re.M)
    roles = re.findall(r"\{(?:ref|numref|doc|prf:ref|eq)\}`[^`]+`", markdown)
    assert not directives and not roles, (directives[:5], roles[:5])
    text = chapter.read_text(encoding="utf-8")
    if "{formulated-source}" in text:
        assert "<details>" in markdown
    for label in re.findall(r"\{ref\}`(ex-\d\d-\d+)`", text):
        n, k = re.match(r"ex-(\d\d)-(\d+)", label).groups()
        assert f"Exercise {int(n)}.{k}" in markdown, label


@pytest.mark.slow
def test_the_autograder_zip_alone_builds_an_environment_that_grades(tmp_path):
    """Gradescope's route without Gradescope: a fresh virtual environment gets what the zip's
    ``environment.yml`` lists (otter, the book's wheel from the zip, PyTorch 2.13.0 CPU,
    transformers ...), nothing from this repository; its ``otter run`` then grades a correct
    and a wrong submission of chapter 9.  Two changes to the zip's list, both about where it
    runs: Gradescope's ``/autograder/source`` is the unpacked zip's folder, and PyTorch's CPU
    index (unreachable offline) is left to pip's configured index."""
    import json as jsonlib
    import subprocess
    import sys
    import time
    import zipfile

    import yaml

    start = time.monotonic()
    chapter = ROOT / "chapters" / "09_masks.md"
    student = assign.write_assignment(chapter, tmp_path / "out")
    zip_path = assign.autograder_zip_path(tmp_path / "out", chapter)
    source = tmp_path / "autograder" / "source"
    zipfile.ZipFile(zip_path).extractall(source)
    env = yaml.safe_load((source / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    conda = [d for d in env["dependencies"] if isinstance(d, str)
             and not d.startswith(("python", "pip"))]
    assert any(p.startswith("torch==2.13.0") for p in pip), pip
    wheel = next(p for p in pip if p.endswith(".whl"))
    assert wheel.startswith(GRADESCOPE_SOURCE + "/files/formulated-"), wheel
    requirements = [p.replace(GRADESCOPE_SOURCE, str(source)) for p in pip
                    if not p.startswith("--extra-index-url")]
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                    *conda, *requirements], check=True, cwd=tmp_path)
    built = time.monotonic() - start
    # the environment holds the package of the zip, not this repository's tree
    where = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import formulated, torch; print(formulated.__file__, "
                            "torch.__version__)"], capture_output=True, text=True,
                           cwd=tmp_path, check=True).stdout
    assert str(venv) in where and "2.13.0" in where, where
    answers = grading.solutions(chapter)
    wrong = {**answers, "ex-09-3": "product_w = fg.softmax(ex.MASK_SCALED_SCORES) * "
                                   "np.tril(np.ones((4, 4)))\nrenormalized = product_w"}
    scores = {}
    for name, given in (("correct", answers), ("wrong", wrong)):
        sub = grading.fill_answers(student, given, tmp_path / name / student.name)
        out = tmp_path / name / "results"
        out.mkdir()
        done = subprocess.run([str(venv / "bin" / "otter"), "run", "--no-logo", "-a",
                               str(zip_path), "-o", str(out), str(sub)], capture_output=True,
                              text=True, cwd=out, timeout=600)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        tests = jsonlib.loads((out / "results.json").read_text())["tests"]
        # the written question (manual, graded by hand) has no score in the results
        scores[name] = {t["name"]: t["score"] for t in tests if t.get("score") is not None}
    print(f"environment built in {built:.0f} s, graded in {time.monotonic() - start - built:.0f}"
          f" s: {scores}")
    assert scores["correct"] == {label: 2 for label in answers}, scores
    assert scores["wrong"]["ex-09-3"] < 2 and sum(scores["wrong"].values()) > 0, scores
