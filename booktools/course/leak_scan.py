"""The leak scan: does any solution of the chapters show in the student material?

:func:`leaks` looks in the student files (notebooks: cell sources and metadata; HTML pages of the
student edition: their text, alt texts and widget states, :func:`html_text`) for every
solution's fingerprints (:func:`solution_fingerprints`): its significant numbers (or roundings of
them), its 8-word phrases and its code lines, less what the book itself gives outside solutions.
The numbers include what the solution's code cells printed when the book was executed
(:func:`executed_outputs`, from the execution cache): a graded value that a chapter's own cell,
figure description or widget prints is found even where the solution's text does not spell it.

``python -m booktools leak-scan [FOLDER]`` (the end of ``make student-book``) scans the student
edition's pages in ``FOLDER/html`` and the student notebooks of every chapter, and fails with
the list of what it found.
"""

from __future__ import annotations

import functools
import html as _html
import json
import re
import sys
from pathlib import Path
from typing import Any

from booktools import myst
from booktools.course.assign import Exercise, segments
from booktools.paths import CACHE, ROOT

__all__ = [
    "solution_fingerprints",
    "executed_outputs",
    "html_text",
    "leaks",
    "scan_edition",
    "quiz_texts",
    "quiz_leaks",
    "main",
]

_NUM = re.compile(
    r"(?<![\w.])[-−]?\d+(?:\{,\}\d{3}|,\d{3}|\\,\d{3}| \d{3}(?!\d))*(?:\.\d+)?"
)
_WORD = re.compile(r"[a-zA-Z]+")


def _numbers(text: str) -> set[str]:
    """The numbers of a text, normalized (thousands separators removed, ASCII minus)."""
    out = set()
    for m in _NUM.finditer(text):
        s = re.sub(r"\{,\}|\\,|,| ", "", m.group(0)).replace("−", "-").lstrip("-")
        out.add(s)
    return out


def _significant(num: str) -> bool:
    """A number worth protecting: at least 3 significant digits, not a round power of ten."""
    digits = num.replace(".", "").lstrip("0")
    return len(digits.rstrip("0")) >= 3 or (len(digits) >= 5 and "." not in num)


def _given_numbers() -> set[str]:
    """Numbers the book gives rather than derives: the published models' hyperparameters
    (:mod:`formulated.models.sizes`), the powers of two and the 10000 of the sinusoidal
    encoding.  A solution may repeat them without giving anything away."""
    from formulated.models.sizes import SIZES

    given = {str(2**k) for k in range(20)} | {"10000"}
    for row in SIZES.values() if isinstance(SIZES, dict) else SIZES:
        given |= {str(getattr(row, f)) for f in ("L", "H", "A", "F", "V", "n_ctx")}
    return given


def _prose(text: str) -> str:
    """Markdown without its math and code: what a sentence of an answer is made of."""
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    return myst.INLINE_CODE.sub(" ", myst.MATH.sub(" ", text))


def _shingles(text: str, k: int = 8) -> set[str]:
    words = [w.lower() for w in _WORD.findall(_prose(text))]
    return {" ".join(words[i : i + k]) for i in range(len(words) - k + 1)}


@functools.lru_cache(maxsize=64)
def _code_lines(code: str) -> frozenset[str]:
    """The distinctive lines of ``code``, blanks collapsed (cached: a scan asks for the lines
    of every chapter's shown code once per exercise)."""
    out = set()
    for ln in code.splitlines():
        s = re.sub(r"\s+", " ", ln.split("  #")[0]).strip()
        if len(s) >= 25 and not s.startswith(("#", "import ", "from ", "print(")):
            out.add(s)
    return frozenset(out)


#: A printed number with an exponent: ``8.88e-16`` is round-off, not an answer.
_EXPONENT = re.compile(r"(?<![\w.])[-−]?\d+(?:\.\d+)?[eE]([-+]?\d+)")


def _printed_numbers(text: str) -> set[str]:
    """The significant numbers a cell printed, less those written with an exponent below -4
    (round-off such as ``max |ours - torch| = 8.88e-16``, which every chapter prints)."""
    noise = {
        m.group(0).lstrip("-−").split("e")[0].split("E")[0]
        for m in _EXPONENT.finditer(text)
        if int(m.group(1)) < -4
    }
    return {n for n in _numbers(text) if _significant(n)} - noise


def solution_fingerprints(
    ex: Exercise, shown_code: str = "", printed: str = ""
) -> dict[str, set[str]]:
    """What must not appear in student material for ``ex``: the significant numbers and the
    8-word phrases of its solution's text, the significant numbers its solution's code cells
    ``printed`` when executed (the graded values), and its solution's code lines; less what its
    own prompt says, the numbers the book gives (:func:`_given_numbers`) and the code lines the
    book shows outside solutions (``shown_code``)."""
    nums = {
        n for n in _numbers(ex.solution_text) if _significant(n)
    } | _printed_numbers(printed)
    return {
        "numbers": nums - _numbers(ex.prompt) - _given_numbers(),
        "phrases": _shingles(ex.solution_text) - _shingles(ex.prompt),
        "code": _code_lines("\n".join(ex.solution_code)) - _code_lines(shown_code),
    }


def _digits(num: str) -> int:
    """The significant digits of a number as written (``0.0540`` has 3, ``1500`` has 2)."""
    digits = num.replace(".", "").lstrip("0")
    return len(digits if "." in num else digits.rstrip("0"))


def _close(a: str, b: str) -> bool:
    """``b`` is ``a`` or a rounding of it to at least 3 significant digits (``0.16997`` of
    ``0.169971``)."""
    if a == b:
        return True
    if "." not in b or not _significant(b):
        return False
    decimals = len(b.split(".")[1])
    try:
        return abs(float(a) - float(b)) <= 0.5 * 10**-decimals + 1e-15
    except ValueError:
        return False


def executed_outputs(notebooks: dict[str, Any] | None = None) -> dict[str, str]:
    """What every code cell printed or showed as text in the executed chapters (the execution
    cache of ``make book``, :func:`booktools.i18n.outputs.executed_notebooks`): its source, stripped ->
    its stream and ``text/plain`` outputs, joined; ``{}`` without a cache."""
    if notebooks is None:
        from booktools.i18n.outputs import executed_notebooks

        notebooks = executed_notebooks() if CACHE.is_dir() else {}
    out: dict[str, str] = {}
    for nb in notebooks.values():
        for cell in nb.get("cells", []):
            if cell.get("cell_type") != "code":
                continue
            texts = []
            for o in cell.get("outputs", []):
                t = (
                    o.get("text")
                    if o.get("output_type") == "stream"
                    else o.get("data", {}).get("text/plain")
                )
                if t:
                    texts.append("".join(t) if isinstance(t, list) else t)
            source = (
                cell["source"]
                if isinstance(cell["source"], str)
                else "".join(cell["source"])
            )
            if texts:
                out[source.strip()] = "\n".join(texts)
    return out


_ATTR = re.compile(r'\b(?:alt|aria-label|title)=(\\?)"(.*?)\1"', re.S)
_WIDGET_STATE = re.compile(
    r'<script type="application/vnd\.jupyter\.widget-state\+json">(.*?)</script>', re.S
)


def html_text(page: str) -> str:
    """What a student reads on an HTML page of the student edition: its text
    (:func:`booktools.course.student.page_text`), the alt texts and labels of its images and controls,
    and the text and alt texts of its widgets' saved states (a widget's figure describes its
    values in an alt text inside the state's JSON)."""
    from booktools.course.student import page_text

    parts = [page_text(page)] + [
        _html.unescape(m.group(2)) for m in _ATTR.finditer(page)
    ]
    for m in _WIDGET_STATE.finditer(page):
        try:
            state = json.loads(m.group(1)).get("state", {})
        except ValueError:
            continue
        for model in state.values():
            for key, value in (model.get("state") or {}).items():
                if (
                    key in ("value", "description", "tooltip", "placeholder")
                    and isinstance(value, str)
                    and not value.startswith("IPY_MODEL_")
                ):
                    value = re.sub(r'src="data:[^"]*"', "", value)
                    parts += [page_text(value)] + [
                        _html.unescape(a.group(2)) for a in _ATTR.finditer(value)
                    ]
    return "\n".join(parts)


def _student_text(path: Path) -> str:
    """Everything a student receives in a file: cell sources and notebook metadata (tests);
    of an HTML page, :func:`html_text`."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".html":
        return html_text(text)
    if path.suffix == ".ipynb":
        nb = json.loads(text)
        parts = [
            "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in nb["cells"]
        ]
        parts.append(json.dumps(nb.get("metadata", {}), ensure_ascii=False))
        return "\n".join(parts)
    return text


def _chapter_number(name: str) -> int:
    m = re.match(r"(?:ex-)?(\d+)", name)
    return int(m.group(1)) if m else 0


#: Numbers of a solution that the chapter gives as the exercise's data, not its answer
#: (label -> number -> why); each was found by the scan of the student edition.
INPUTS: dict[str, dict[str, str]] = {
    "ex-18-4": {
        "1003854": "the training split's size, which chapter 18 prints: the data of "
        "the question, whose answers are 3,072,000 predictions and 3.1 passes"
    }
}


def _close_to_any(num: str, given: set[str]) -> bool:
    return num in given or any(_close(num, g) for g in given)


def leaks(
    student_files: list[str | Path],
    chapters: list[str | Path],
    outputs: dict[str, str] | None = None,
) -> list[str]:
    """Every place where a solution of ``chapters`` shows in ``student_files``; empty if none.

    A student file of chapter *c* is checked against the solutions of chapters *c* and later:
    a later chapter may build on an earlier exercise's result (that assignment is over), but no
    chapter may give away an exercise of its own or of a chapter still to come; a file without
    a chapter number (the introduction, an appendix) against every solution.

    ``outputs`` (:func:`executed_outputs`: a code cell's source -> what it printed) adds the
    numbers each solution's code printed (the graded values), checked in its own chapter's files
    and the unnumbered pages; less the numbers that the chapters up to the exercise's own state
    in their prose, that earlier chapters print outside solutions, and (on an unnumbered page)
    that any chapter's prose states: a solution prints its data and intermediate values too.
    In an earlier chapter's file a number counts only exact or with 4 significant digits; an
    unnumbered HTML page (an appendix lists source lines by number) is checked for decimals and
    integers of 5 digits or more, less what any chapter's prose states.
    """
    outputs = outputs or {}
    segs = {
        Path(ch).name: segments(Path(ch).read_text(encoding="utf-8")) for ch in chapters
    }
    shown = "\n".join(v for seg in segs.values() for k, v in seg if k == "code")
    prose = {
        name: _numbers("\n".join(v for k, v in seg if k == "md"))
        for name, seg in segs.items()
    }
    printed_outside = {
        name: set().union(
            *[
                _printed_numbers(outputs.get(v.strip(), ""))
                for k, v in seg
                if k == "code"
            ]
        )
        for name, seg in segs.items()
    }
    book_prose = set().union(*prose.values())
    prints = []
    for seg in segs.values():
        for kind, ex in seg:
            if kind != "exercise":
                continue
            c = _chapter_number(ex.label)
            fp = solution_fingerprints(ex, shown)
            given = set().union(
                *[prose[n] for n in segs if _chapter_number(n) <= c],
                *[printed_outside[n] for n in segs if _chapter_number(n) < c],
            )
            out = "\n".join(outputs.get(code.strip(), "") for code in ex.solution_code)
            fp["printed"] = {
                n
                for n in _printed_numbers(out)
                - fp["numbers"]
                - _numbers(ex.prompt)
                - _given_numbers()
                if not _close_to_any(n, given)
            }
            for key in ("numbers", "printed"):
                fp[key] -= set(INPUTS.get(ex.label, {}))
            prints.append((ex.label, fp))
    found = []
    for f in map(Path, student_files):
        text = _student_text(f)
        flat = re.sub(r"\s+", " ", text)
        nums, phrases = _numbers(text), _shingles(text)
        k = _chapter_number(f.name)
        for label, fp in prints:
            c = _chapter_number(label)
            if k and c < k:
                continue
            check = set(fp["numbers"])
            if not k or k == c:
                check |= fp["printed"]
            if (
                not k and f.suffix == ".html"
            ):  # an appendix: no source line numbers, nothing
                # any chapter states (other unnumbered files are checked against everything)
                check = {
                    n
                    for n in check
                    if ("." in n or len(n) >= 5) and not _close_to_any(n, book_prose)
                }
            # an earlier chapter's printout matches a later answer's rounding to 3 digits by
            # chance (chapter 8's variance 0.999, ex-12-3's 0.99935): 4 digits or exact there
            near = [m for m in nums if not k or k == c or _digits(m) >= 4]
            for n in sorted(check):
                hit = next((m for m in near if n == m or _close(n, m)), None)
                if hit:
                    found.append(f"{f.name}: number {hit} of {label}'s solution")
            for p in sorted(fp["phrases"] & phrases):
                found.append(f"{f.name}: phrase '{p}' of {label}'s solution")
            for code in sorted(fp["code"]):
                if code in flat:
                    found.append(f"{f.name}: code '{code}' of {label}'s solution")
    return found


def hidden_test_lines(chapters: list[str | Path]) -> set[str]:
    """The distinctive code lines of every hidden test (:data:`booktools.course.specs.SPECS`):
    at least 30 characters, not an import or comment, not a line the chapters show."""
    from booktools.course.specs import SPECS

    shown = re.sub(
        r"\s+",
        " ",
        "\n".join(
            v
            for ch in chapters
            for k, v in segments(Path(ch).read_text(encoding="utf-8"))
            if k in ("md", "code")
        ),
    )
    out = set()
    for spec in SPECS.values():
        for test in spec.hidden:
            for line in test.splitlines():
                s = re.sub(r"\s+", " ", line).strip()
                if (
                    len(s) >= 30
                    and not s.startswith(("import ", "from ", "#"))
                    and s not in shown
                ):
                    out.add(s)
    return out


def quiz_texts() -> dict[str, str]:
    """Quiz id (``"ch08"``) -> everything its quiz holds (:mod:`formulated.quizzes`): prompts,
    options and feedback, each answer at full precision and as shown, each named mistake's
    value; the page shows some of these only in attributes, so they are checked here too."""
    from formulated.quizzes import QUIZZES, Numeric, questions

    texts = {}
    for quiz_id in QUIZZES:
        parts = []
        for q in questions(quiz_id):
            parts.append(q.prompt)
            if isinstance(q, Numeric):
                parts += [repr(float(q.answer)), q.shown, q.explain, q.hint]
                parts += [f"{m.value!r} {m.feedback}" for m in q.mistakes]
            else:
                parts += [f"{o.text} {o.feedback}" for o in q.options]
        texts[quiz_id] = "\n".join(parts)
    return texts


def quiz_leaks(
    chapters: list[str | Path],
    outputs: dict[str, str] | None = None,
    texts: dict[str, str] | None = None,
) -> list[str]:
    """Every solution fingerprint of ``chapters`` found in a quiz (:func:`quiz_texts`, or
    ``texts``): a quiz of chapter *c* is checked as a page of chapter *c* (:func:`leaks`)."""
    import tempfile

    texts = quiz_texts() if texts is None else texts
    by_number = {_chapter_number(Path(c).name): Path(c).stem for c in chapters}
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for quiz_id, text in texts.items():
            number = int(quiz_id.removeprefix("ch"))
            if number not in by_number:
                raise ValueError(
                    f"texts: quiz {quiz_id!r} has no chapter among {sorted(by_number)}"
                )
            f = Path(tmp) / f"{by_number[number]}.quiz.txt"
            f.write_text(text, encoding="utf-8")
            files.append(f)
        return leaks(files, chapters, outputs)


def scan_edition(
    folder: Path | None = None,
    root: Path | None = None,
    outputs: dict[str, str] | None = None,
) -> list[str]:
    """Every solution and hidden-test line found in the student edition: the HTML pages under
    ``folder/html`` (default ``_build/student``; every page, the appendices checked against
    every chapter's solutions) and the student notebooks of every chapter (written afresh
    into a temporary folder, as ``make notebooks STUDENT=1`` writes them).  ``outputs``:
    :func:`executed_outputs` (default: from the execution cache)."""
    import tempfile

    from booktools.build import notebooks

    root = ROOT if root is None else Path(root)
    folder = root / "_build" / "student" if folder is None else Path(folder)
    chapters = notebooks.chapters(root)
    pages = sorted((folder / "html").rglob("*.html"))
    if not pages:
        raise FileNotFoundError(
            f"folder: no student pages in {folder / 'html'} "
            "(make student-book builds them)"
        )
    pages = [
        p for p in pages if p.parent.name == "chapters" or p.parent == folder / "html"
    ]
    outputs = executed_outputs() if outputs is None else outputs
    lines = hidden_test_lines(chapters)
    with tempfile.TemporaryDirectory() as tmp:
        files = list(pages)
        for source in chapters:
            nb = Path(tmp) / source.with_suffix(".ipynb").name
            nb.write_text(
                notebooks.notebook_text(source, student=True), encoding="utf-8"
            )
            files.append(nb)
        found = leaks(files, chapters, outputs) + quiz_leaks(chapters, outputs)
        for f in files:
            flat = re.sub(r"\s+", " ", _student_text(f))
            found += [
                f"{f.name}: hidden test line {s!r}" for s in sorted(lines) if s in flat
            ]
    return found


def main(argv: list[str] | None = None) -> int:
    """``python -m booktools leak-scan [FOLDER]``: scan the student edition (default
    ``_build/student``); exit status 1, with what was found, when a solution shows."""
    import argparse

    parser = argparse.ArgumentParser(
        description="Scan the student edition for solutions."
    )
    parser.add_argument(
        "folder",
        nargs="?",
        type=Path,
        default=None,
        help="the student edition's folder (default _build/student)",
    )
    args = parser.parse_args(argv)
    outputs = executed_outputs()
    if not outputs:
        print(
            "leak scan: no execution cache (_build/.jupyter_cache): the numbers the "
            "solutions print are not checked",
            file=sys.stderr,
        )
    found = scan_edition(args.folder, outputs=outputs)
    for entry in found[:60]:
        print(f"leak: {entry}")
    if found:
        print(
            f"leak scan: {len(found)} solution fingerprint(s) in the student edition "
            "(above, at most 60); nothing may be published",
            file=sys.stderr,
        )
        return 1
    print(
        "leak scan: no solution and no hidden test in the student pages and notebooks"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
