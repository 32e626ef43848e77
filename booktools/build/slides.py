"""Slides: one reveal.js deck per chapter, in English and Korean, designed as a lecture.

``make slides`` (``python -m booktools slides``) writes, for each numbered chapter, a slide
source into ``_build/slides_src/<lang>`` and builds it with sphinx-revealjs's ``revealjs``
builder into ``_build/html/slides/<lang>/chapters/<chapter>.html`` (the book serves them; each
chapter page and appendix C link to its deck), then a printable handout of each deck
(``…/handouts/<chapter>.pdf``, reveal.js's print mode rendered by headless Chromium, where
Chromium is installed).  The decks' text is the chapter's own, so that the Korean deck takes
it from the chapter's catalogue (``locales/ko``, the same docname); the outputs come from the
execution cache that ``make book`` fills.

A deck is a lecture (:func:`slide_cells`; what of the chapter goes on it:
:mod:`booktools.build.lecture`):

* a title slide (the chapter's number and title) and the objectives (the chapter's "By the
  end …" list);
* every ``{prf:definition}``, each on a slide of its own, and after it the lines of code that
  compute it (:func:`~booktools.build.lecture.code_slides`, at most
  :data:`~booktools.build.lecture.MAX_CODE_LINES` on a slide);
* every block marked by a line ``<!-- slide -->`` above it
  (:data:`~booktools.build.lecture.MARK`): a code cell with a key figure (shown with its alt
  text), a step of the worked example (its code and what it printed) or a widget (the
  snapshot of its initial state: :func:`widget_outputs`); any other directive as it is;
* a summary (the chapter's "Summary" section, else the list of its definitions), then every
  ``{exercise}``'s prompt, without the autograder's instructions
  (:data:`booktools.build.notes.GRADER`); solutions never (:func:`leaks` runs the student
  edition's leak scan over every deck).

A slide's title is its section's, numbered as in the chapter (8.3, 8.3.2).  Every slide has
speaker notes (``S`` in the deck), first found of: a comment ``<!-- notes … -->`` written for
the slide above its block (``<!-- notes title|objectives|summary … -->`` for those slides),
whose Korean is in ``locales/ko/slides/<docname>.po``; a figure's alt text; the prose
paragraph just above the block; a sentence of :data:`WORDS`.  Notes are said, not read
(:mod:`booktools.build.notes`).  The decks' paths and the book's links to them are
:mod:`booktools.build.decks`; the handouts, :mod:`booktools.build.handouts`.
reveal.js is npm's, vendored (:data:`REVEALJS`), and MathJax the book's offline copy: no CDN.
The Sphinx side (configuration, Korean outputs and figures, section numbers, notes) is
``booktools/build/slides_conf/conf.py``; its script ``formulated-slides.js`` still splits a
slide too tall for 1280x720 (tests/test_slides.py checks that none is, before it runs).
"""

from __future__ import annotations

import argparse
import base64
import copy
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from booktools import myst
from booktools.build.decks import LANGUAGES, OUT, SRC
from booktools.build.handouts import browser, handouts
from booktools.build.lecture import (
    MARK,
    MAX_CODE_LINES,
    NUMBERED,
    Piece,
    chapter_number,
    chapter_title,
    chapters,
    code_slides,
    first_paragraph,
    keyed_notes,
    objectives,
    pieces,
    sections,
    summary,
)
from booktools.build.notes import (
    NOTES_CATALOGUES,
    notes_translations,
    spoken,
    update_notes_catalogues,
)
from booktools.paths import ROOT

__all__ = [
    "REVEALJS",
    "WORDS",
    "widget_outputs",
    "slide_cells",
    "write_sources",
    "build",
    "leaks",
    "main",
]

#: reveal.js, vendored from npm (its ``dist`` files the decks load, and its license).
REVEALJS = ROOT / "chapters" / "_static_assets" / "vendor" / "revealjs-6.0.2"
#: The height (px) a slide has below its title, and what a line of code and a printed line
#: take there (the deck's CSS: code at 0.66 and printed lines at 0.55 of 30 px, 1.2 apart):
#: a step whose code and output would not fit shows them on two slides.
SLIDE_BUDGET, CODE_LINE, PRINTED_LINE = 590, 24, 20
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"

#: The words of a deck that are not the chapter's (no catalogue holds them).
WORDS: dict[str, dict[str, str]] = {
    "en": {
        "chapter": "Chapter {n}",
        "objectives": "Objectives",
        "objectives_lead": "By the end of this lecture you will be able to",
        "summary": "Summary",
        "definitions": "The definitions of this chapter:",
        "definition": "Definition {n}",
        "title_notes": "Today: {title}.",
        "objectives_notes": (
            "These are the aims of the lecture. Read them out, and come back to them at the "
            "summary: each one is a definition or an experiment we will do together."
        ),
        "definition_notes": (
            "Read the definition aloud, then name every symbol in it and its shape."
        ),
        "code_notes": (
            "The code of {names} in the package formulated, without the docstring and the "
            "argument checks. Walk through it line by line, saying which symbol of the "
            "definition each line computes."
        ),
        "cell_notes": "Run through what this step computes and what it printed.",
        "summary_notes": (
            "Recap: one sentence for each point, and ask which of the objectives is still "
            "unclear."
        ),
        "exercise_notes": (
            "Give the class a few minutes on this exercise; its solution is in the "
            "instructors' answer key, not on the slides."
        ),
    },
    "ko": {
        "chapter": "{n}장",
        "objectives": "학습 목표",
        "objectives_lead": "이 강의를 마치면 다음을 할 수 있다.",
        "summary": "요약",
        "definitions": "이 장의 정의:",
        "definition": "정의 {n}",
        "title_notes": "오늘의 주제는 {title}이다.",
        "objectives_notes": (
            "강의의 목표다. 소리 내어 읽고, 요약에서 다시 돌아온다. 목표 하나하나가 함께 "
            "살펴볼 정의나 실험이다."
        ),
        "definition_notes": "정의를 소리 내어 읽고, 그 안의 기호와 모양을 하나씩 짚는다.",
        "code_notes": (
            "formulated 패키지의 {names} 코드로, 문서 문자열과 인자 검사는 뺐다. 한 줄씩 "
            "짚으며 각 줄이 정의의 어느 기호를 계산하는지 말한다."
        ),
        "cell_notes": "이 단계가 무엇을 계산하고 무엇을 출력했는지 짚어 간다.",
        "summary_notes": (
            "정리: 항목마다 한 문장씩 말하고, 학습 목표 가운데 아직 분명하지 않은 것이 "
            "무엇인지 묻는다."
        ),
        "exercise_notes": (
            "이 연습문제에 몇 분을 준다. 풀이는 슬라이드가 아니라 강사용 답안에 있다."
        ),
    },
}


# ---- the deck ------------------------------------------------------------------------------


def _markdown(source: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def _notes(text: str) -> str:
    """The speaker-notes directive of a slide (the text to say, one paragraph)."""
    return f"\n\n```{{revealjs-notes}}\n{text}\n```" if text else ""


def _heading(title: str, number: str, slide: int) -> str:
    """A slide's title, with a label that carries the chapter's section number (the Sphinx
    side puts "8.3 " before the translated title: ``NumberTitles`` in slides_conf)."""
    label = f"(sn-{number.replace('.', '-')}-k{slide})=\n" if number else ""
    return f"{label}## {title}\n\n"


def widget_outputs(
    executed: dict[str, Any],
    outputs: list[dict[str, Any]],
    cell: int,
    language: str = "en",
    name: str = "",
) -> tuple[list[dict[str, Any]], str]:
    """A widget's snapshot as a slide shows it: the images of its initial state (the panels
    the PDF shows, :func:`booktools.sphinx.pdf_figures.widget_snapshot`) as outputs, and their
    alt text (the widget's title and settings), in ``language`` (Korean: the labels through
    chapter ``name``'s outputs catalogue, as the Korean book shows them)."""
    from booktools.sphinx.pdf_figures import widget_snapshot

    widgets = executed.get("metadata", {}).get("widgets", {})
    state = copy.deepcopy(widgets.get(WIDGET_STATE, {"state": {}}))
    if language == "ko":
        from booktools.i18n.outputs import OUTPUTS, output_table
        from booktools.sphinx.i18n import translate_widget_state

        translate_widget_state(state, output_table(OUTPUTS / f"{name}.po"))
    view = next(
        out["data"][WIDGET_VIEW]
        for out in outputs
        if WIDGET_VIEW in out.get("data", {})
    )
    images, alt, _ = widget_snapshot(state["state"], view.get("model_id", ""), language)
    if not images:
        raise ValueError(
            f"executed: code cell {cell + 1} (marked {MARK}) shows a widget without a figure "
            "panel: a deck has no snapshot of it to show"
        )
    shown = [
        {
            "output_type": "display_data",
            "data": {
                mime: data.decode("utf-8")
                if mime == "image/svg+xml"
                else base64.b64encode(data).decode("ascii")
            },
            "metadata": {},
        }
        for mime, data in images
    ]
    return shown, alt


def _height(code_lines: int, outputs: list[dict[str, Any]]) -> int:
    """About how tall a cell's code and printed text stand on a slide (px)."""
    printed = 0
    for out in outputs:
        text = out.get("text") or out.get("data", {}).get("text/plain", "")
        printed += len("".join(text).rstrip("\n").splitlines())
    return 16 + code_lines * CODE_LINE + 24 + printed * PRINTED_LINE


class _Deck:
    """The cells of one deck, with the language's words and the notes' translations."""

    def __init__(
        self, language: str, number: int, korean: dict[str, str], prose: dict[str, str]
    ) -> None:
        if language not in LANGUAGES:
            raise ValueError(f"language: {language!r} is not one of {LANGUAGES}")
        self.words, self.number, self.korean = WORDS[language], number, korean
        self.prose = prose
        self.language = language
        self.cells: list[dict[str, Any]] = []
        self.count = 0
        self.shown: set[str] = set()  # the objects whose code a slide showed

    def said(self, written: str, *fallbacks: str) -> str:
        """The notes of a slide: the written ones (in the deck's language), else the first
        fallback that still says something once the page's sentences are left out."""
        if written:
            text = self.korean.get(written, "") if self.language == "ko" else written
            if not text:
                raise ValueError(
                    f"notes: no Korean for the note {written[:60]!r}… in "
                    f"{NOTES_CATALOGUES} (python -m booktools slides --update-notes)"
                )
            return spoken(text)
        for text in fallbacks:
            if text and (kept := _keep_translatable(text)):
                return kept
        return ""

    def slide(
        self, title: str, section: str, body: str, notes: str, level: str = "##"
    ) -> None:
        self.count += 1
        number = f"{self.number}.{section}" if section else ""
        if level == "#":
            head = f"# {title}\n\n"
        else:
            head = _heading(title, number, self.count)
        self.cells.append(_markdown(head + body.strip() + _notes(notes)))


def _keep_translatable(text: str) -> str:
    """Prose of the chapter as notes: verbatim (the Korean deck's catalogue translates the
    paragraph as a whole; the Sphinx side renders its math as text and leaves out its
    sentences about the page), or "" when every sentence is about the page."""
    plain = spoken(text)
    return text if plain else ""


def slide_cells(
    text: str,
    executed: dict[str, Any],
    language: str = "en",
    name: str = "",
    korean: dict[str, str] | None = None,
    prose: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """The cells of a chapter's slide source (see the module's docstring): ``text`` the
    chapter's MyST, ``executed`` its executed notebook (the execution cache), whose code cells
    give the marked cells' outputs; a widget shows as its snapshot (:func:`widget_outputs`, in
    ``language``; ``name`` the chapter's docname); ``korean`` the Korean of the written notes
    (:func:`notes_translations`), ``prose`` of the chapter's sentences (its catalogue).  A marked cell whose code differs from the executed one is
    a ``ValueError`` (the cache is stale: ``make book`` or ``python -m booktools prebuild``)."""
    code = [c for c in executed["cells"] if c["cell_type"] == "code"]
    number = chapter_number(name) if NUMBERED.match(name) else 0
    deck = _Deck(language, number, korean or {}, prose or {})
    words, keyed = deck.words, keyed_notes(text)
    title = chapter_title(text)
    deck.slide(
        title,
        "",
        f"{words['chapter'].format(n=number)}" if number else "",
        deck.said(keyed.get("title", ""), first_paragraph(text))
        or words["title_notes"].format(title=title),
        level="#",
    )
    aims = objectives(text)
    if aims:
        items = "\n".join("- " + item.replace("\n", "\n  ") for item in aims)
        deck.slide(
            words["objectives"],
            "",
            f"{words['objectives_lead']}\n\n{items}",
            deck.said(keyed.get("objectives", "")) or words["objectives_notes"],
        )
    found = pieces(text)
    definitions = [p for p in found if p.kind == "prf:definition"]
    summarized = False
    for piece in found:
        if piece.kind == "exercise" and not summarized:
            _summary_slide(deck, text, definitions, keyed.get("summary", ""))
            summarized = True
        if piece.kind == "formulated-source":
            block = myst.block_at(piece.text.split("\n"), 0)
            assert block is not None
            # an object shown on an earlier slide is not shown again (as the page links back)
            new = [n for n in block.arg.split() if n not in deck.shown]
            deck.shown.update(block.arg.split())
            if not new:
                continue
            specs = tuple(
                c
                for c in piece.code
                if any((c.split(":")[0].strip() + ".").startswith(n + ".") for n in new)
            )
            for names, listing in code_slides(new, specs):
                caption = ", ".join(f"`{n}`" for n in names)
                shown = ", ".join(n.rsplit(".", 1)[-1] for n in names)
                deck.slide(
                    piece.heading,
                    piece.section,
                    f"{caption}\n\n```python\n{listing}\n```",
                    deck.said(piece.written) or words["code_notes"].format(names=shown),
                )
            continue
        if piece.kind == "exercise":
            deck.slide(
                piece.heading,
                piece.section,
                piece.text,
                deck.said(piece.written) or words["exercise_notes"],
            )
            continue
        if piece.kind != "cell":
            fallback = (
                words["definition_notes"] if piece.kind == "prf:definition" else ""
            )
            deck.slide(
                piece.heading,
                piece.section,
                piece.text,
                deck.said(piece.written, piece.notes) or fallback,
            )
            continue
        if piece.cell >= len(code):
            raise ValueError(
                f"executed: the chapter's code cell {piece.cell + 1} is not in the cache"
            )
        ran = code[piece.cell]
        source = "".join(ran["source"])
        block = myst.block_at(piece.text.split("\n"), 0)
        assert block is not None
        if "\n".join(block.body).strip() != source.strip():
            raise ValueError(
                f"executed: code cell {piece.cell + 1} differs from the chapter "
                "(stale execution cache: run `python -m booktools prebuild` first)"
            )
        outputs = ran.get("outputs", [])
        if not outputs:  # nothing to show: a slide of its title alone would be empty
            print(
                f"slides: {name or 'the chapter'}: code cell {piece.cell + 1} (marked "
                f"{MARK}) has no output in the execution cache; no slide for it",
                file=sys.stderr,
            )
            continue
        meta = {k: v for k, v in ran.get("metadata", {}).items() if k != "execution"}
        alt = meta.get("mystnb", {}).get("image", {}).get("alt", "")
        if any(WIDGET_VIEW in out.get("data", {}) for out in outputs):
            outputs, alt = widget_outputs(executed, outputs, piece.cell, language, name)
            meta["mystnb"] = {"image": {"alt": alt}}
        mimes = {k for out in outputs for k in out.get("data", {})}
        figure = any(k.startswith("image/") for k in mimes)
        if (
            alt and not figure
        ):  # a figure's cell whose run drew nothing: no slide of code
            print(
                f"slides: {name or 'the chapter'}: code cell {piece.cell + 1} (marked "
                f"{MARK}) drew no figure in the execution cache; no slide for it",
                file=sys.stderr,
            )
            continue
        if (
            figure
        ):  # a figure's slide shows the figure (what the cell printed: the page's)
            outputs = [
                o
                for o in outputs
                if any(k.startswith("image/") for k in o.get("data", {}))
            ]
        lines = [line for line in source.strip().splitlines() if line.strip()]
        notes = deck.said(piece.written, alt if figure else "", piece.notes)
        notes = notes or words["cell_notes"]
        if figure or len(lines) > MAX_CODE_LINES:
            shown = [("remove-input", outputs)]
        elif _height(len(lines), outputs) > SLIDE_BUDGET:  # code, then what it printed
            shown = [("remove-output", outputs), ("remove-input", outputs)]
        else:
            shown = [("", outputs)]
        for tag, outs in shown:
            deck.slide(piece.heading, piece.section, "", notes)
            deck.cells.append(
                {
                    "cell_type": "code",
                    "execution_count": None,
                    "metadata": {**meta, "tags": [tag] if tag else []},
                    "outputs": outs,
                    "source": source,
                }
            )
    if not summarized:
        _summary_slide(deck, text, definitions, keyed.get("summary", ""))
    return deck.cells


def _summary_slide(
    deck: _Deck, text: str, definitions: list[Piece], written: str
) -> None:
    """The summary: the chapter's "Summary" section, else the list of its definitions."""
    words = deck.words
    body = summary(text)
    if body:
        title, section = "Summary", sections(text).get("Summary", "")
    else:
        title, section = words["summary"], ""
        rows = []
        for k, piece in enumerate(definitions, 1):
            block = myst.block_at(piece.text.split("\n"), 0)
            assert block is not None
            # the catalogue holds a box's title as sphinx-proof shows it: in parentheses
            name = deck.prose.get(block.arg) or deck.prose.get(f"({block.arg})", "")
            name = name.removeprefix("(").removesuffix(")") or block.arg
            label = words["definition"].format(n=f"{deck.number}.{k}")
            rows.append(f"- {label}: {name}")
        body = words["definitions"] + "\n\n" + "\n".join(rows)
    deck.slide(title, section, body, deck.said(written) or words["summary_notes"])


def _notebook(cells: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "cells": [{"id": f"slide-{i}", **cell} for i, cell in enumerate(cells)],
        "metadata": {
            "kernelspec": {
                "display_name": "Python 3",
                "language": "python",
                "name": "python3",
            },
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _prose_translations(name: str) -> dict[str, str]:
    """The chapter's catalogue (English paragraph or title -> Korean)."""
    from booktools.i18n.catalogues import CATALOGUES, read_catalogue

    po = CATALOGUES / f"{name}.po"
    if not po.is_file():
        return {}
    return {m.id: m.string for m in read_catalogue(po) if m.id and m.string}


def write_sources(
    names: list[str], src: Path = SRC, root: Path = ROOT, language: str = "en"
) -> dict[str, int]:
    """The slide source of each chapter in ``names`` (docnames) under ``src``, from the
    chapter and the execution cache (widgets' snapshots in ``language``); returns docname ->
    number of slides."""
    from booktools.i18n.outputs import executed_notebooks

    ran = executed_notebooks(root)
    counts: dict[str, int] = {}
    src.mkdir(parents=True, exist_ok=True)
    for name in names:
        if name not in ran:
            raise SystemExit(
                f"slides: {name} is not in the execution cache; run `make book` first"
            )
        text = (root / f"{name}.md").read_text(encoding="utf-8")
        korean = notes_translations(name) if language == "ko" else {}
        prose = _prose_translations(name) if language == "ko" else {}
        cells = slide_cells(text, ran[name], language, name, korean, prose)
        _write(src / f"{name}.ipynb", _notebook(cells))
        counts[name] = sum(
            c["cell_type"] == "markdown"
            and c["source"].lstrip().startswith(("#", "(sn-"))
            for c in cells
        )
    every = chapters(root)
    for name in every:  # a subset: the others' titles keep the chapters' numbers
        stub = src / f"{name}.ipynb"
        if name not in names and not stub.is_file():
            title = chapter_title((root / f"{name}.md").read_text(encoding="utf-8"))
            _write(stub, _notebook([_markdown(f"# {title}")]))
    entries = "\n".join(every)
    index = f"# Slides\n\n```{{toctree}}\n:numbered:\n:hidden:\n\n{entries}\n```\n"
    (src / "index.md").write_text(index, encoding="utf-8")
    locales = src / "locales"
    if not locales.exists():
        locales.symlink_to(root / "locales")  # the Korean printed lines (slides_conf)
    return counts


def _write(path: Path, notebook: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(notebook, ensure_ascii=False, indent=1) + "\n"
    if not path.is_file() or path.read_text(encoding="utf-8") != data:
        path.write_text(data, encoding="utf-8")


def build(
    languages: tuple[str, ...] = LANGUAGES,
    src: Path = SRC,
    out: Path = OUT,
    names: list[str] | None = None,
) -> dict[str, int]:
    """Write the slide sources of the chapters ``names`` (default: every chapter) and build
    the decks of ``languages``, each in a process of its own (``sphinx-build -b revealjs``);
    returns docname -> slides."""
    every = chapters()
    if not every:
        raise ValueError("_toc.yml: no numbered chapter to build")
    names = names or every
    unknown = [n for n in names if n not in every]
    if unknown:
        raise ValueError(f"names: {unknown} are not numbered chapters of _toc.yml")
    counts: dict[str, int] = {}
    for language in languages:
        if language not in LANGUAGES:
            raise ValueError(f"languages: {language!r} is not one of {LANGUAGES}")
        counts = write_sources(names, src / language, language=language)
        if language == "ko":
            from booktools.i18n import compile_catalogues

            compile_catalogues()
        started = time.monotonic()
        cmd = [
            sys.executable,
            "-m",
            "sphinx",
            "-b",
            "revealjs",
            "-q",
            "-c",
            str(Path(__file__).with_name("slides_conf")),
            "-d",
            str(src / f".doctrees-{language}"),
            "-D",
            f"language={language}",
            str(src / language),
            str(out / language),
        ]
        result = subprocess.run(cmd, cwd=ROOT, check=False)
        if result.returncode:
            raise SystemExit(f"slides: the {language} decks failed to build")
        # reveal.js from npm (chapters/_static_assets/vendor/VENDOR.md) in place of the copy
        # sphinx-revealjs ships, at the paths its pages name (revealjs/dist/...)
        static = out / language / "_static" / "revealjs"
        shutil.rmtree(static, ignore_errors=True)
        shutil.copytree(REVEALJS, static)
        for junk in ("index.html", "genindex.html", "search.html", "searchindex.js"):
            (out / language / junk).unlink(missing_ok=True)
        shutil.rmtree(out / language / "_sources", ignore_errors=True)
        print(
            f"slides: {len(names)} {language} decks in {out / language} "
            f"({time.monotonic() - started:.0f} s)"
        )
    return counts


def leaks(out: Path = OUT) -> list[str]:
    """Every solution of the chapters found in a deck under ``out`` (the leak scan of the
    student edition, :func:`booktools.course.leak_scan.leaks`, with what the solutions printed)."""
    from booktools.build import notebooks
    from booktools.course import leak_scan

    decks = sorted(out.glob("*/chapters/*.html"))
    if not decks:
        raise FileNotFoundError(f"out: no deck in {out} (make slides builds them)")
    return leak_scan.leaks(decks, notebooks.chapters(), leak_scan.executed_outputs())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--language", choices=LANGUAGES, action="append", help="default: both"
    )
    parser.add_argument(
        "--chapter",
        action="append",
        help="a chapter's docname or number (default: every chapter)",
    )
    parser.add_argument("--src", type=Path, default=SRC, help=f"default: {SRC}")
    parser.add_argument("--out", type=Path, default=OUT, help=f"default: {OUT}")
    parser.add_argument(
        "--no-handouts", action="store_true", help="build the decks only"
    )
    parser.add_argument(
        "--update-notes",
        action="store_true",
        help=f"merge the chapters' written notes into {NOTES_CATALOGUES} and stop",
    )
    args = parser.parse_args(argv)
    every = chapters()
    names = None
    if args.chapter:
        names = []
        for c in args.chapter:
            match = [n for n in every if n == c or n.split("/")[1][:2] == f"{c:0>2}"]
            if not match:
                parser.error(f"--chapter: {c!r} is no numbered chapter")
            names += match
    if args.update_notes:
        for name, what in update_notes_catalogues(names).items():
            print(f"{name}: {what}")
        return 0
    languages = tuple(args.language or LANGUAGES)
    counts = build(languages, src=args.src, out=args.out, names=names)
    for name, count in counts.items():
        print(f"{name}: {count} slides")
    if not args.no_handouts:
        if browser() is None:
            print(
                "slides: no handouts: Chromium and chromedriver print them "
                "(apt-get install chromium chromium-driver)"
            )
        else:
            printed = handouts(names, languages, args.out)
            print(
                f"slides: {len(printed)} handouts (PDF) in {args.out}/<lang>/handouts"
            )
    found = leaks(args.out)
    if found:
        print("slides: solutions found in the decks:\n  " + "\n  ".join(found))
        return 1
    print(
        f"slides: no solution in the decks (leak scan); {sum(counts.values())} slides"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
