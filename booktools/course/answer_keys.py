"""The instructor's answer key of every chapter: ``make answer-keys``.

``python -m booktools answer-keys [chapters/NN_name.md ...] [--out DIR] [--pdf]`` writes
``_build/answer_keys/<chapter>.html`` for every numbered chapter: for each exercise, in order,
its number and label, how it is graded (:mod:`booktools.course.specs`: autograded, written or
open-ended, and its points), the prompt, the rubric of a written answer, the reference answer
(the chapter's solution text and code, and under the code what it printed, from the execution
cache of ``make book``) and, for an autograded one, the public and hidden tests; long lines wrap.
The page is self-contained and offline: the formulas are typeset by the MathJax copy of
``sphinx-mathjax-offline`` (copied once to ``<out>/mathjax``), with the book's macros.

``--pdf`` also writes ``<chapter>.pdf``, one PDF per chapter (an instructor grades and hands
a key to a teaching assistant chapter by chapter, as the assignments come), by the book's own
PDF route (:mod:`booktools.build.pdf`): Jupyter Book 1's LaTeX builder with the book's
``_config.yml`` and :mod:`booktools.sphinx.pdf` (its preamble: the math macros, the ``bbm``
stub, the fonts, breakable inline code), then XeLaTeX through ``latexmk``.  The keys are
written as MyST Markdown (:func:`answer_key_markdown`: the same content as the page, and under
each solution's code what it printed, from the execution cache of ``make book``) into
``<out>/latex/src`` and built there with Jupyter Book's ``latex_individualpages`` (one
``.tex`` per page); each log is checked like the book's (no LaTeX error, no undefined
reference, no overfull box wider than :data:`booktools.build.pdf.MAX_OVERFULL_PT`).

These files are for instructors only: they hold every hidden test and answer.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from booktools import myst
from booktools.build.plain_markdown import chapter_titles, label_texts, to_plain
from booktools.course.assign import exercises
from booktools.course.specs import SPECS
from booktools.lab.lab import math_macros
from booktools.paths import CACHE, ROOT

__all__ = [
    "OUT",
    "KIND_TEXT",
    "answer_key_html",
    "write_answer_keys",
    "mathjax_dir",
    "solution_outputs",
    "answer_key_markdown",
    "latex_sources",
    "build_pdfs",
    "main",
]

OUT = ROOT / "_build" / "answer_keys"
KIND_TEXT = {
    "auto": "autograded (otter)",
    "written": "written answer, graded by hand",
    "open": "open-ended, not graded",
}
# A long line (a hidden test, an output) wraps inside its box, on screen and on paper: a
# box that scrolls hides its end, and prints it cut.
STYLE = """body{font-family:system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem;
line-height:1.5;color:#1b1b1b}h2{border-top:2px solid #555;padding-top:1rem}
.rubric{background:#fff7e0;border-left:4px solid #c90;padding:.5rem 1rem}
.answer{background:#eef6ee;border-left:4px solid #393;padding:.5rem 1rem}
pre{background:#f4f4f4;padding:.5rem;font-size:.85rem;white-space:pre-wrap;
overflow-wrap:anywhere}pre.output{background:#fff;border:1px solid #ddd}
.meta{color:#444}@media print{h2{break-before:auto}}"""


def mathjax_dir() -> Path:
    """The MathJax 3 distribution that ``sphinx-mathjax-offline`` ships (no CDN)."""
    import sysconfig

    path = (
        Path(sysconfig.get_paths()["purelib"])
        / "sphinx-mathjax-offline"
        / "static"
        / "mathjax"
    )
    if not (path / "tex-chtml.js").is_file():
        raise FileNotFoundError(
            f"mathjax: expected tex-chtml.js of sphinx-mathjax-offline in "
            f"{path}; install the book's environment (make env)"
        )
    return path


def _markdown(text: str, titles: dict[str, str], labels: dict[str, str]) -> str:
    from markdown_it import MarkdownIt

    # the formulas are kept away from Markdown, whose backslash escapes would eat \\{ and \\,
    math: list[str] = []

    def keep(m: re.Match) -> str:
        math.append(html.escape(m.group(0)))
        return f"MATH{len(math) - 1}X"

    plain = myst.MATH.sub(keep, to_plain(text, titles, labels, ""))
    rendered = MarkdownIt("commonmark", {"html": True}).render(plain)
    return re.sub(r"MATH(\d+)X", lambda m: math[int(m.group(1))], rendered)


def _code(code: str, kind: str = "") -> str:
    cls = f" class='{kind}'" if kind else ""
    return f"<pre{cls}><code>{html.escape(code)}</code></pre>"


def _key_entries(
    chapter: Path,
) -> tuple[dict[str, str], dict[str, str], list[tuple[Any, Any, str]], dict[str, int]]:
    """What both forms of an answer key list: the book's titles and label texts, each exercise
    of the chapter with its grading spec and shown name, and the points of each kind."""
    titles, labels = chapter_titles(chapter.parent), label_texts(chapter.parent)
    entries, total = [], {"auto": 0, "written": 0}
    for ex in exercises(chapter.read_text(encoding="utf-8")):
        spec = SPECS[ex.label]
        total[spec.kind] = total.get(spec.kind, 0) + spec.points
        total["written"] += spec.written_points  # an autograded exercise's written part
        entries.append((ex, spec, labels.get(ex.label, ex.label)))
    return titles, labels, entries, total


def answer_key_html(chapter: str | Path, outputs: dict[str, str] | None = None) -> str:
    """The answer key of one chapter as one HTML page (MathJax from ``mathjax/`` beside it),
    with under each solution's code what it printed (``outputs``, :func:`solution_outputs`)."""
    chapter = Path(chapter)
    outputs = outputs or {}
    titles, labels, entries, total = _key_entries(chapter)
    title = titles.get(chapter.stem, chapter.stem)
    macros: dict[str, object] = {}
    for (
        name,
        body,
    ) in math_macros().items():  # MathJax's form: body, or [body, arguments]
        n_args = max((int(d) for d in re.findall(r"#(\d)", body)), default=0)
        macros[name.lstrip("\\")] = [body, n_args] if n_args else body
    config = {
        "tex": {
            "macros": macros,
            "inlineMath": [["$", "$"]],
            "displayMath": [["$$", "$$"]],
        }
    }
    parts = [
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>Answer key: {html.escape(title)}</title><style>{STYLE}</style>"
        f"<script>window.MathJax = {json.dumps(config)};</script>"
        "<script defer src='mathjax/tex-chtml.js'></script></head><body>",
        f"<h1>Answer key: {html.escape(title)}</h1>",
        f"<p class='meta'>{INSTRUCTORS_ONLY}</p>",
    ]
    for ex, spec, name in entries:
        parts.append(
            f"<h2 id='{ex.label}'>{html.escape(name)} <code>{ex.label}</code></h2>"
        )
        parts.append(
            f"<p class='meta'>{KIND_TEXT[spec.kind]}"
            + (f", {spec.points} points" if spec.points else "")
            + "</p>"
        )
        parts.append(_markdown(ex.prompt, titles, labels))
        if spec.kind == "written":
            parts.append(
                f"<div class='rubric'><strong>Rubric.</strong> "
                f"{html.escape(spec.rubric)}</div>"
            )
        if spec.written:
            parts.append(
                f"<div class='rubric'><strong>Written part</strong> "
                f"({spec.written_points} points, graded by hand). "
                f"<strong>Rubric.</strong> {html.escape(spec.written)}</div>"
            )
        answer = _markdown(ex.solution_text, titles, labels) if ex.solution_text else ""
        for code in ex.solution_code:
            answer += _code(code)
            if outputs.get(code.strip()):
                answer += "<p class='meta'>Output:</p>" + _code(
                    outputs[code.strip()], "output"
                )
        parts.append(
            "<div class='answer'><strong>Reference answer.</strong>"
            + (answer or "<p>(none in the chapter)</p>")
            + "</div>"
        )
        if spec.kind == "auto":
            parts.append(
                f"<p><strong>Defines</strong> {', '.join(spec.names)}. "
                "<strong>Public tests</strong> (students run them with "
                "<code>grader.check</code>):</p>"
            )
            parts += [_code(t.strip()) for t in spec.public]
            parts.append("<p><strong>Hidden tests</strong> (the autograder only):</p>")
            parts += [_code(t.strip()) for t in spec.hidden]
    parts.insert(
        3,
        f"<p class='meta'>Points: {total['auto']} autograded, "
        f"{total['written']} written.</p>",
    )
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_answer_keys(
    chapters: list[Path], out: Path = OUT, pdf: bool = False
) -> list[Path]:
    """One answer key per chapter in ``out`` (and its PDF with ``pdf``: :func:`build_pdfs`);
    the files written."""
    out.mkdir(parents=True, exist_ok=True)
    if not (out / "mathjax" / "tex-chtml.js").is_file():
        shutil.copytree(mathjax_dir(), out / "mathjax", dirs_exist_ok=True)
    written = []
    notebooks = _executed_notebooks()
    for chapter in chapters:
        page = out / f"{Path(chapter).stem}.html"
        if not pdf:  # else latex_sources says it
            _say_if_not_executed(chapter, notebooks)
        page.write_text(
            answer_key_html(chapter, solution_outputs(chapter, notebooks)),
            encoding="utf-8",
        )
        written.append(page)
    if pdf:
        written += build_pdfs(chapters, out)
    return written


# -- The PDF: MyST Markdown through the book's LaTeX route ----------------------------------------

#: The page's sentences, shared by the PDF.
INSTRUCTORS_ONLY = (
    "For instructors only: every reference answer, rubric and hidden test of the "
    "chapter's exercises. Written answers are graded by hand (appendix C)."
)
#: The answer keys' LaTeX document: a title block instead of a title page and no table of
#: contents (a key is a few pages; its exercises are the PDF's bookmarks), sections not
#: numbered (their titles carry the exercises' numbers), printed on one side.
LATEX_ELEMENTS = {
    "maketitle": r"""\makeatletter
\hypersetup{pdfauthor={\@author}, pdftitle={\@title}}
\begin{flushleft}{\sffamily\bfseries\Huge\@title\par}\medskip
{\large The Formulated GPT, version %s\par}\end{flushleft}
\makeatother""",
    "tableofcontents": "",
    "extraclassoptions": "openany,oneside",
    "preamble": "\\setcounter{secnumdepth}{-1}\n",
}
#: Before a line that announces code ("Output:"): a new page unless its first lines fit too.
KEEP_WITH_NEXT = "```{raw} latex\n\\needspace{6\\baselineskip}\n```"
#: The root page of the answer keys' Sphinx project (not printed: each key has its own .tex).
INDEX_DOC = "index"


def _escaped(text: str) -> str:
    """Plain text as Markdown that shows it as it is (every ASCII punctuation escaped)."""
    return re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", text)


def _fenced(code: str, info: str) -> str:
    """``code`` in a fence longer than any run of backticks it holds."""
    fence = "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", code)), default=0))
    return f"{fence}{info}\n{code.rstrip()}\n{fence}"


def _executed_notebooks() -> dict[str, Any]:
    """The executed chapters of the execution cache (none before ``make book``)."""
    from booktools.i18n.outputs import executed_notebooks

    return executed_notebooks() if CACHE.is_dir() else {}


def _say_if_not_executed(chapter: str | Path, notebooks: dict[str, Any]) -> None:
    stem = Path(chapter).stem
    if f"chapters/{stem}" not in notebooks:
        print(
            f"answer-keys: no executed {stem} in the cache (make book): its key shows "
            "the solutions' code without their output"
        )


def solution_outputs(
    chapter: str | Path, notebooks: dict[str, Any] | None = None
) -> dict[str, str]:
    """What each code cell of the chapter printed in its executed notebook of the execution
    cache (``make book``): source (stripped) -> its stream outputs, joined; ``{}`` when the
    cache has no such chapter (the key then shows the code only)."""
    if notebooks is None:
        notebooks = _executed_notebooks()
    nb = notebooks.get(f"chapters/{Path(chapter).stem}")
    if nb is None:
        return {}
    printed = {}
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        text = "".join(
            "".join(o["text"]) if isinstance(o.get("text"), list) else o["text"]
            for o in cell.get("outputs", [])
            if o.get("output_type") == "stream"
        )
        if text.strip():
            source = (
                cell["source"]
                if isinstance(cell["source"], str)
                else "".join(cell["source"])
            )
            printed[source.strip()] = text.rstrip()
    return printed


def answer_key_markdown(
    chapter: str | Path, outputs: dict[str, str] | None = None
) -> str:
    """The answer key of one chapter as MyST Markdown for the book's LaTeX route: what
    :func:`answer_key_html` shows (prompts and solution text as plain Markdown with their
    math, references as text), and under each solution's code what it printed
    (``outputs``, :func:`solution_outputs`)."""
    chapter = Path(chapter)
    titles, labels, entries, total = _key_entries(chapter)
    outputs = outputs or {}
    title = titles.get(chapter.stem, chapter.stem)
    body: list[str] = []
    for ex, spec, name in entries:
        body.append(f"({ex.label})=\n## {_escaped(name)} `{ex.label}`")
        body.append(
            "*"
            + _escaped(
                KIND_TEXT[spec.kind]
                + (f", {spec.points} points" if spec.points else "")
            )
            + "*"
        )
        body.append(to_plain(ex.prompt, titles, labels, ""))
        if spec.kind == "written":
            body.append(f"**Rubric.** {_escaped(spec.rubric)}")
        if spec.written:
            body.append(
                f"**Written part** ({spec.written_points} points, graded by hand). "
                f"**Rubric.** {_escaped(spec.written)}"
            )
        body.append(
            "**Reference answer.**"
            + ("" if ex.solution_text or ex.solution_code else " (none in the chapter)")
        )
        if ex.solution_text:
            body.append(to_plain(ex.solution_text, titles, labels, ""))
        for code in ex.solution_code:
            body.append(_fenced(code, "python"))
            if outputs.get(code.strip()):
                body += [
                    KEEP_WITH_NEXT,
                    "*Output:*",
                    _fenced(outputs[code.strip()], "text"),
                ]
        if spec.kind == "auto":
            body.append(KEEP_WITH_NEXT)
            body.append(
                f"**Defines** {_escaped(', '.join(spec.names))}. **Public tests** "
                "(students run them with `grader.check`):"
            )
            body += [_fenced(t.strip(), "python") for t in spec.public]
            body += [KEEP_WITH_NEXT, "**Hidden tests** (the autograder only):"]
            body += [_fenced(t.strip(), "python") for t in spec.hidden]
    head = [
        f"# Answer key: {_escaped(title)}",
        _escaped(INSTRUCTORS_ONLY),
        f"Points: {total['auto']} autograded, {total['written']} written.",
    ]
    return "\n\n".join(head + body) + "\n"


def latex_sources(chapters: list[Path], src: Path) -> list[str]:
    """The answer keys' Sphinx project in ``src``: one page per chapter
    (:func:`answer_key_markdown`, with the printed outputs of the execution cache), an index
    and a ``_toc.yml``; the pages' names.  Pages of chapters not asked for are removed."""
    import yaml

    src.mkdir(parents=True, exist_ok=True)
    notebooks = _executed_notebooks()
    names = []
    for chapter in chapters:
        stem = Path(chapter).stem
        _say_if_not_executed(chapter, notebooks)
        text = answer_key_markdown(chapter, solution_outputs(chapter, notebooks))
        page = src / f"{stem}.md"
        if not page.is_file() or page.read_text(encoding="utf-8") != text:
            page.write_text(
                text, encoding="utf-8"
            )  # unchanged pages are not read again
        names.append(page.stem)
    for old in src.glob("*.md"):
        if old.stem not in (*names, INDEX_DOC):
            old.unlink()
    (src / f"{INDEX_DOC}.md").write_text("# Answer keys\n", encoding="utf-8")
    toc = {
        "format": "jb-article",
        "root": INDEX_DOC,
        "sections": [{"file": n} for n in names],
    }
    (src / "_toc.yml").write_text(
        yaml.safe_dump(toc, sort_keys=False), encoding="utf-8"
    )
    return names


def build_pdfs(chapters: list[Path], out: Path = OUT) -> list[Path]:
    """Each chapter's answer key as ``<out>/<chapter>.pdf`` by the book's LaTeX route
    (:func:`booktools.build.pdf.sphinx_latex`, then :func:`booktools.build.pdf.latexmk`).  Stops on a
    LaTeX error or a log problem (:func:`booktools.build.pdf.log_problems`)."""
    import formulated
    from booktools.build import pdf

    pdf.check_tools()
    latex = out / "latex"
    names = latex_sources(chapters, latex / "src")
    conf = {
        "external_toc_path": (latex / "src" / "_toc.yml").as_posix(),
        "latex_individualpages": True,
        "nitpicky": True,
        "nb_execution_mode": "off",
        "latex_elements": {
            **LATEX_ELEMENTS,
            "maketitle": LATEX_ELEMENTS["maketitle"] % formulated.__version__,
        },
        # the book's HTML assets lie beside its chapters, not here (no HTML is written)
        "html_static_path": [],
        "html_favicon": None,
    }
    pdf.sphinx_latex(latex / "src", latex, latex / ".doctrees", conf)
    written, problems = [], []
    for name in names:
        built = pdf.latexmk(latex / f"{name}.tex")
        log = built.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
        problems += [f"{name}: {p}" for p in pdf.log_problems(log).messages()]
        target = out / f"{name}.pdf"
        shutil.copyfile(built, target)
        written.append(target)
    if problems:
        raise SystemExit("answer-keys: " + "\n".join(problems))
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "chapters", nargs="*", help="chapters (default: every numbered one)"
    )
    parser.add_argument("--out", default=str(OUT), help="folder for the keys")
    parser.add_argument(
        "--pdf",
        action="store_true",
        help="also each key as a PDF, by the book's LaTeX route (TeX Live)",
    )
    args = parser.parse_args(argv)
    chapters = [Path(c) for c in args.chapters] or sorted(
        (ROOT / "chapters").glob("[0-9][0-9]_*.md")
    )
    for path in write_answer_keys(chapters, Path(args.out), args.pdf):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
