"""The instructor's answer key of every chapter: ``make answer-keys`` (issue 23).

``python -m booktools.answer_keys [chapters/NN_name.md ...] [--out DIR] [--pdf]`` writes
``_build/answer_keys/<chapter>.html`` for every numbered chapter: for each exercise, in order,
its number and label, how it is graded (:mod:`booktools.exercises`: autograded, written or
open-ended, and its points), the prompt, the rubric of a written answer, the reference answer
(the chapter's solution text and code) and, for an autograded one, the public and hidden tests.
The page is self-contained and offline: the formulas are typeset by the MathJax copy of
``sphinx-mathjax-offline`` (copied once to ``<out>/mathjax``), with the book's macros.

``--pdf`` also prints each page to ``<chapter>.pdf`` with Debian's Chromium (``make test``
installs it), headless.  These files are for instructors only: they hold every hidden test and
answer.
"""
from __future__ import annotations

import argparse
import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from booktools.exercises import SPECS
from booktools.launch import ROOT
from booktools.lab import math_macros
from booktools.plain_markdown import chapter_titles, label_texts, to_plain
from booktools.teaching import exercises

__all__ = ["OUT", "KIND_TEXT", "answer_key_html", "write_answer_keys", "mathjax_dir", "main"]

OUT = ROOT / "_build" / "answer_keys"
KIND_TEXT = {"auto": "autograded (otter)", "written": "written answer, graded by hand",
             "open": "open-ended, not graded"}
STYLE = """body{font-family:system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem;
line-height:1.5;color:#1b1b1b}h2{border-top:2px solid #555;padding-top:1rem}
.rubric{background:#fff7e0;border-left:4px solid #c90;padding:.5rem 1rem}
.answer{background:#eef6ee;border-left:4px solid #393;padding:.5rem 1rem}
pre{background:#f4f4f4;padding:.5rem;overflow-x:auto;font-size:.85rem}
.meta{color:#444}@media print{h2{break-before:auto}pre{white-space:pre-wrap}}"""


def mathjax_dir() -> Path:
    """The MathJax 3 distribution that ``sphinx-mathjax-offline`` ships (no CDN)."""
    import sysconfig

    path = Path(sysconfig.get_paths()["purelib"]) / "sphinx-mathjax-offline" / "static" / "mathjax"
    if not (path / "tex-chtml.js").is_file():
        raise FileNotFoundError(f"mathjax: expected tex-chtml.js of sphinx-mathjax-offline in "
                                f"{path}; install the book's environment (make env)")
    return path


def _markdown(text: str, titles: dict[str, str], labels: dict[str, str]) -> str:
    from markdown_it import MarkdownIt

    # the formulas are kept away from Markdown, whose backslash escapes would eat \\{ and \\,
    math: list[str] = []

    def keep(m: re.Match) -> str:
        math.append(html.escape(m.group(0)))
        return f"MATH{len(math) - 1}X"
    plain = re.sub(r"\$\$.+?\$\$|\$[^$\n]+\$", keep, to_plain(text, titles, labels, ""),
                   flags=re.S)
    rendered = MarkdownIt("commonmark", {"html": True}).render(plain)
    return re.sub(r"MATH(\d+)X", lambda m: math[int(m.group(1))], rendered)


def _code(code: str) -> str:
    return f"<pre><code>{html.escape(code)}</code></pre>"


def answer_key_html(chapter: str | Path) -> str:
    """The answer key of one chapter as one HTML page (MathJax from ``mathjax/`` beside it)."""
    chapter = Path(chapter)
    titles, labels = chapter_titles(chapter.parent), label_texts(chapter.parent)
    title = titles.get(chapter.stem, chapter.stem)
    macros: dict[str, object] = {}
    for name, body in math_macros().items():  # MathJax's form: body, or [body, arguments]
        n_args = max((int(d) for d in re.findall(r"#(\d)", body)), default=0)
        macros[name.lstrip("\\")] = [body, n_args] if n_args else body
    config = {"tex": {"macros": macros,
                      "inlineMath": [["$", "$"]], "displayMath": [["$$", "$$"]]}}
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
             f"<title>Answer key: {html.escape(title)}</title><style>{STYLE}</style>"
             f"<script>window.MathJax = {json.dumps(config)};</script>"
             "<script defer src='mathjax/tex-chtml.js'></script></head><body>",
             f"<h1>Answer key: {html.escape(title)}</h1>",
             "<p class='meta'>For instructors only: every reference answer, rubric and hidden "
             "test of the chapter's exercises. Written answers are graded by hand "
             "(appendix C).</p>"]
    total = {"auto": 0, "written": 0}
    for ex in exercises(chapter.read_text(encoding="utf-8")):
        spec = SPECS[ex.label]
        total[spec.kind] = total.get(spec.kind, 0) + spec.points
        name = labels.get(ex.label, ex.label)
        parts.append(f"<h2 id='{ex.label}'>{html.escape(name)} <code>{ex.label}</code></h2>")
        parts.append(f"<p class='meta'>{KIND_TEXT[spec.kind]}"
                     + (f", {spec.points} points" if spec.points else "") + "</p>")
        parts.append(_markdown(ex.prompt, titles, labels))
        if spec.kind == "written":
            parts.append(f"<div class='rubric'><strong>Rubric.</strong> "
                         f"{html.escape(spec.rubric)}</div>")
        answer = _markdown(ex.solution_text, titles, labels) if ex.solution_text else ""
        answer += "".join(_code(c) for c in ex.solution_code)
        parts.append("<div class='answer'><strong>Reference answer.</strong>"
                     + (answer or "<p>(none in the chapter)</p>") + "</div>")
        if spec.kind == "auto":
            parts.append(f"<p><strong>Defines</strong> {', '.join(spec.names)}. "
                         "<strong>Public tests</strong> (students run them with "
                         "<code>grader.check</code>):</p>")
            parts += [_code(t.strip()) for t in spec.public]
            parts.append("<p><strong>Hidden tests</strong> (the autograder only):</p>")
            parts += [_code(t.strip()) for t in spec.hidden]
    parts.insert(3, f"<p class='meta'>Points: {total['auto']} autograded, "
                    f"{total['written']} written.</p>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_answer_keys(chapters: list[Path], out: Path = OUT, pdf: bool = False) -> list[Path]:
    """One answer key per chapter in ``out`` (and its PDF with ``pdf``); the files written."""
    out.mkdir(parents=True, exist_ok=True)
    if not (out / "mathjax" / "tex-chtml.js").is_file():
        shutil.copytree(mathjax_dir(), out / "mathjax", dirs_exist_ok=True)
    written = []
    for chapter in chapters:
        page = out / f"{Path(chapter).stem}.html"
        page.write_text(answer_key_html(chapter), encoding="utf-8")
        written.append(page)
        if pdf:
            written.append(print_pdf(page))
    return written


def print_pdf(page: Path) -> Path:
    """``page`` printed to PDF by headless Chromium (after MathJax has typeset it)."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise SystemExit("answer-keys --pdf: Chromium not found (apt-get install chromium)")
    target = page.with_suffix(".pdf")
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                    "--virtual-time-budget=20000", "--no-pdf-header-footer",
                    f"--print-to-pdf={target}", page.resolve().as_uri()], check=True,
                   capture_output=True, timeout=300)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapters", nargs="*", help="chapters (default: every numbered one)")
    parser.add_argument("--out", default=str(OUT), help="folder for the keys")
    parser.add_argument("--pdf", action="store_true", help="also print each key to PDF")
    args = parser.parse_args(argv)
    chapters = [Path(c) for c in args.chapters] or sorted(
        (ROOT / "chapters").glob("[0-9][0-9]_*.md"))
    for path in write_answer_keys(chapters, Path(args.out), args.pdf):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
