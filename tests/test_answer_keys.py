"""The instructors' answer keys (booktools/course/answer_keys.py): a chapter's HTML page, its MyST
Markdown for the LaTeX route, and its PDF, built as the book's (XeLaTeX through Jupyter Book 1,
booktools/build/pdf.py).

The PDF test builds one chapter's key (chapter 8: formulas with the book's macros, code,
printed outputs, hidden tests with lines too long for the page) in a temporary folder with
``python -m booktools answer-keys --pdf`` (about 10 s) and reads it back with poppler's tools.
It is skipped when XeLaTeX is missing (``make tex`` installs TeX Live; CI runs it first).
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _chapters import ROOT, tool

from booktools.build.pdf import log_problems
from booktools.build.toc import toc_files
from booktools.course import answer_keys, assign
from booktools.course.specs import SPECS

CHAPTERS = [ROOT / f"{c}.md" for c in toc_files() if re.match(r"chapters/\d\d_", c)]


def test_answer_key_holds_every_solution_rubric_and_hidden_test(tmp_path):
    chapter = ROOT / "chapters" / "09_masks.md"
    (page,) = answer_keys.write_answer_keys([chapter], tmp_path)
    text = page.read_text(encoding="utf-8")
    assert (tmp_path / "mathjax" / "tex-chtml.js").is_file()  # offline: no CDN
    assert "https://" not in text
    for ex in assign.exercises(chapter.read_text(encoding="utf-8")):
        spec = SPECS[ex.label]
        assert f"id='{ex.label}'" in text
        for code in ex.solution_code:
            assert html.escape(code) in text, ex.label
        if spec.kind == "written":
            assert html.escape(spec.rubric) in text, ex.label
        if (
            spec.written
        ):  # an autograded exercise's written part (ex-09-3): its rubric too
            assert html.escape(spec.written) in text, ex.label
        for test in spec.hidden:
            assert html.escape(test.strip()) in text, ex.label
    # the formulas reach MathJax intact (Markdown would eat the backslash of \{)
    assert r"\{1, \dots, n\}" in text
    assert not (tmp_path / "09_masks.pdf").exists()  # a PDF only when asked for


def _text(rendered: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", rendered))


def test_answer_key_markdown_shows_every_rubric_code_and_output_as_written() -> None:
    """Every chapter's key as Markdown (what the LaTeX route reads): a rubric is plain text
    (its ``*``, ``_``, ``[``, ``<`` are no Markdown), the solutions' code, their printed
    output and every test are code blocks, word for word."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark")
    for chapter in CHAPTERS:
        found = assign.exercises(chapter.read_text(encoding="utf-8"))
        printed = {
            c.strip(): f"printed by {ex.label}\n  [1 * 2_3]"
            for ex in found
            for c in ex.solution_code
        }
        tokens = md.parse(
            answer_key_markdown := answer_keys.answer_key_markdown(chapter, printed)
        )
        blocks = [t.content.rstrip("\n") for t in tokens if t.type == "fence"]
        text = _text(md.render(answer_key_markdown))
        assert text.startswith("Answer key: "), chapter.name
        for ex in found:
            spec = SPECS[ex.label]
            if spec.kind == "written":
                assert f"Rubric. {spec.rubric}" in text, ex.label
            for code in ex.solution_code:
                assert code.rstrip() in blocks, ex.label
                assert printed[code.strip()] in blocks, ex.label
            for test in (*spec.public, *spec.hidden):
                assert test.strip() in blocks, ex.label


_WORD = re.compile(
    r'<word xMin="[\d.]+" yMin="([\d.]+)" xMax="([\d.]+)" yMax="[\d.]+">'
    r"([^<]*)</word>"
)


def beyond_the_margin(pdf: Path) -> list[str]:
    """The words of ``pdf`` (``pdftotext -bbox``) that end right of the text's right edge, the
    end of each page's running head: a code line that does not wrap runs out of its frame and
    the page without any overfull box in the log."""
    out = subprocess.run(
        [tool("pdftotext"), "-bbox", str(pdf), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = []
    for number, page in enumerate(out.split("<page ")[1:], 1):
        words = [(float(y), float(x), w) for y, x, w in _WORD.findall(page)]
        top = min(y for y, _, _ in words)
        edge = max(
            x for y, x, _ in words if y < top + 2
        )  # the running head, right-aligned
        found += [
            f"page {number}: {w!r} {x - edge:.1f} pt beyond"
            for _, x, w in words
            if x > edge + 0.5
        ]
    return found


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("xelatex") is None or shutil.which("latexmk") is None,
    reason="xelatex/latexmk not found: `make tex` installs TeX Live (CI runs "
    "it before the tests)",
)
def test_answer_key_pdf_by_the_latex_route(tmp_path: Path) -> None:
    """Chapter 8's key as a PDF: every exercise, rubric, solution, printed output and hidden
    test in its text, the formulas typeset with the book's macros, no "??", no LaTeX error,
    no overfull box wider than 10 pt, code and outputs within the margins, fonts embedded."""
    from test_pdf import normal

    chapter = ROOT / "chapters" / "08_attention.md"
    printed = answer_keys.solution_outputs(chapter)
    if not printed:
        pytest.fail(
            "no executed chapter 8 in _build/.jupyter_cache: run `make book` first",
            pytrace=False,
        )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "booktools.course.answer_keys",
            str(chapter),
            "--out",
            str(tmp_path),
            "--pdf",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    pdf = tmp_path / "08_attention.pdf"
    log = (tmp_path / "latex" / "08_attention.log").read_text(
        encoding="utf-8", errors="replace"
    )
    assert not log_problems(log).messages(), log_problems(log).messages()
    assert "Missing character" not in log
    assert not beyond_the_margin(pdf), beyond_the_margin(pdf)[:10]

    info = subprocess.run(
        [tool("pdfinfo"), str(pdf)], capture_output=True, text=True, check=True
    ).stdout
    assert re.search(r"^Title:\s+Answer key: Attention$", info, re.M), info
    assert 2 <= int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1)) <= 8, info
    # -raw: in the order of the page, a hyphen at the end of a line kept (a code line may wrap
    # after "1e-")
    raw = subprocess.run(
        [tool("pdftotext"), "-raw", "-enc", "UTF-8", str(pdf), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    text = normal(raw)
    assert "??" not in text
    squeezed = re.sub(r"\s+|[↪␣]", "", text)  # without a wrapped code line's marks

    def shown(snippet: str) -> bool:
        """Every line of ``snippet`` in the text (a code block may go on over a page)."""
        return all(
            re.sub(r"\s+", "", normal(line)) in squeezed
            for line in snippet.splitlines()
            if line.strip()
        )

    found = assign.exercises(chapter.read_text(encoding="utf-8"))
    assert len(found) == 4
    for ex in found:
        spec = SPECS[ex.label]
        assert shown(f"Exercise 8.{ex.label[-1]} {ex.label}"), ex.label
        if spec.kind == "written":
            assert shown(spec.rubric), ex.label
        for code in ex.solution_code:
            assert shown(code), ex.label
            assert shown(printed[code.strip()]), ex.label  # what the solution printed
        for test in spec.hidden:
            assert shown(test), ex.label
    # formulas typeset: \bm{q} as a bold italic q, \mathbb{E} as a double-struck E, no TeX
    # (before normal(), whose NFKC makes them plain letters)
    assert "𝔼[𝒒 ⋅ 𝒌] = 0" in raw and "\\bm" not in raw and "$" not in raw
    fonts = subprocess.run(
        [tool("pdffonts"), str(pdf)], capture_output=True, text=True, check=True
    ).stdout.splitlines()[2:]
    assert any("LatinModernMath" in row for row in fonts), fonts
    not_embedded = [row for row in fonts if row.split()[-5] != "yes"]
    assert fonts and not not_embedded, not_embedded


def test_answer_key_page_shows_what_the_solutions_printed_and_wraps_long_lines(
    tmp_path, monkeypatch
):
    """The HTML key shows each solution's printed output, as the PDF does (chapter 18's
    ex-18-3 prints the count, 818,048, that the student's ``by_hand`` must match), read from
    the execution cache of ``make book``; a long line wraps instead of running out of its box
    (on screen a box that scrolls hides its end)."""
    chapter = ROOT / "chapters" / "18_train_tiny_gpt.md"
    (ex,) = [
        e
        for e in assign.exercises(chapter.read_text(encoding="utf-8"))
        if e.label == "ex-18-3"
    ]
    printed = "by hand 818,048   count_parameters 818,048"
    cache = {
        "chapters/18_train_tiny_gpt": {
            "cells": [
                {
                    "cell_type": "code",
                    "source": ex.solution_code[0],
                    "outputs": [
                        {
                            "output_type": "stream",
                            "name": "stdout",
                            "text": printed + "\n",
                        }
                    ],
                }
            ]
        }
    }
    monkeypatch.setattr(answer_keys, "_executed_notebooks", lambda: cache)
    (page,) = answer_keys.write_answer_keys([chapter], tmp_path)
    text = page.read_text(encoding="utf-8")
    answer = text.split("id='ex-18-3'")[1].split("<h2")[0]
    assert html.escape(printed) in answer
    # the page's rules for a code box, outside any @media: long lines wrap
    screen = re.sub(r"@media[^{]*\{(?:[^{}]*\{[^}]*\})*[^}]*\}", "", answer_keys.STYLE)
    rules = " ".join(re.findall(r"(?:^|\})\s*pre\s*\{([^}]*)\}", screen))
    assert "white-space:pre-wrap" in rules and "overflow-x" not in rules, rules
