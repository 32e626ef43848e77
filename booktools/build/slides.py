"""Slides: one reveal.js deck per chapter, in English and Korean, from the chapter.

``make slides`` (``python -m booktools slides``) writes, for each numbered chapter, a slide
source into ``_build/slides_src`` and builds it with sphinx-revealjs's ``revealjs`` builder,
once per language, into ``_build/html/slides/<lang>/chapters/<chapter>.html`` (the book serves
them; each chapter page and appendix C link to its deck).  Nothing is a second copy of the
content: a slide source is a notebook whose cells are pieces of the chapter, verbatim, so that
the Korean deck takes its text from the chapter's own catalogue (``locales/ko``, the same
docname), and whose outputs come from the execution cache that ``make book`` fills.

What goes on a slide (:func:`slide_cells`):

* the chapter's title (the first slide);
* every ``{prf:definition}``, and the ``{formulated-source}`` box under it (its code);
* every block marked by a line ``<!-- slide -->`` above it (:data:`MARK`; a blank line between
  them, as JupyterLab's save writes it, is allowed): a code cell
  with a key figure, shown with its alt text, a step of the worked example, shown with its
  code and what it printed, or a widget, shown as the snapshot of its initial state (its figure
  panels, as the PDF shows them: :func:`widget_outputs`); any other directive, as it is;
* every ``{exercise}``'s prompt; solutions never (``{solution}`` blocks and the cells between
  ``{solution-start}`` and ``{solution-end}`` are skipped, as :func:`booktools.course.student.strip_solutions`
  skips them; then :func:`leaks` runs the student edition's leak scan over every deck).

Each language has its own slide sources (``_build/slides_src/<lang>``: the widgets' snapshots
carry their labels in that language, through the chapter's outputs catalogue).  A slide's
title is the heading of the chapter's section it comes from; the prose paragraph just
above a definition or a marked block becomes the slide's speaker notes (``S`` in the deck).
reveal.js is npm's, vendored (:data:`REVEALJS`, in place of the copy sphinx-revealjs ships;
served from the deck's ``_static``) and MathJax the book's offline copy (``sphinx-mathjax-offline``): no CDN.  The Sphinx side of the build
(configuration, Korean outputs) is ``booktools/build/slides_conf/conf.py``; its script
``formulated-slides.js`` splits a slide too long for 1280x720 into continuation slides.
"""

from __future__ import annotations

import argparse
import base64
import copy
import json
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from booktools import myst
from booktools.build.toc import toc_files
from booktools.paths import ROOT

__all__ = [
    "LANGUAGES",
    "SRC",
    "OUT",
    "MARK",
    "REVEALJS",
    "Piece",
    "chapters",
    "pieces",
    "widget_outputs",
    "slide_cells",
    "write_sources",
    "deck_path",
    "deck_href",
    "build",
    "leaks",
    "main",
]

LANGUAGES = ("en", "ko")
#: The slide sources (a Sphinx project of its own) and the decks.
SRC = ROOT / "_build" / "slides_src"
OUT = ROOT / "_build" / "html" / "slides"
#: reveal.js, vendored from npm (its ``dist`` files the decks load, and its license).
REVEALJS = ROOT / "chapters" / "_static_assets" / "vendor" / "revealjs-6.0.2"
#: The line above a block (a code cell, an admonition, ...) that puts it on a slide: an HTML
#: comment, which neither the book, its catalogues, the Colab notebooks nor the execution
#: cache's hash of the code cells sees (a cell tag would re-execute the chapter).
MARK = "<!-- slide -->"
#: The directives that go on a slide whatever their tags.
KINDS = ("prf:definition", "formulated-source", "exercise")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
_NUMBERED = re.compile(r"^chapters/\d\d_\w+$")


@dataclass(frozen=True)
class Piece:
    """One piece of a chapter that goes on a slide: ``kind`` is a directive's name or
    ``"cell"`` (a tagged code cell, ``cell`` its index among the chapter's code cells);
    ``text`` the block's lines, verbatim; ``heading`` the section's title; ``notes`` the
    paragraph above it ("" if none)."""

    kind: str
    text: str
    heading: str
    notes: str
    cell: int = -1


def chapters(root: Path = ROOT) -> list[str]:
    """The numbered chapters' docnames, in the order of ``_toc.yml``."""
    return [name for name in toc_files(root) if _NUMBERED.match(name)]


def _paragraph_above(lines: list[str], start: int) -> str:
    """The prose paragraph that ends just above line ``start`` (blank lines between allowed),
    or "" when a heading, a label, a block or a list is there instead."""
    j = start - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    if j >= 0 and lines[j].strip() == MARK:
        j -= 1
        while j >= 0 and not lines[j].strip():
            j -= 1
    end = j + 1
    while j >= 0 and lines[j].strip():
        j -= 1
    para = lines[j + 1 : end]
    if not para or re.match(
        r"^(#|\(|`{3}|:{3}|~{3}|\+\+\+|\$\$|[-*] |\d+\. )", para[0]
    ):
        return ""
    if any(line.startswith(("```", ":::", "$$")) for line in para):
        return ""
    return "\n".join(para)


def pieces(text: str) -> list[Piece]:
    """The pieces of a chapter's MyST text that go on slides, in order (see the module's
    docstring).  A ``{solution-start}`` never ended is a ``ValueError``, as in
    :func:`booktools.course.student.strip_solutions`."""
    _, body = myst.split_front_matter(text)
    lines = body.split("\n")
    found: list[Piece] = []
    heading, cell, gated, i = "", -1, False, 0
    while i < len(lines):
        block = myst.block_at(lines, i)
        if block is None:
            if m := myst.HEADING.match(lines[i]):
                heading = m["title"]
            i += 1
            continue
        name = block.name
        if name == "code-cell":
            cell += 1
        if name == "solution-start":
            gated = True
        elif name == "solution-end":
            gated = False
        elif not gated and name != "solution":
            whole = "\n".join(lines[block.start : block.end + 1])
            notes = _paragraph_above(lines, block.start)
            marked = _marked(lines, block.start)
            if name in KINDS or (marked and name != "code-cell"):
                found.append(Piece(name, whole, heading, notes))
            elif name == "code-cell" and marked:
                found.append(Piece("cell", whole, heading, notes, cell))
        i = block.end + 1
    if gated:
        raise ValueError(
            "text: a solution-start is never ended (expected a {solution-end})"
        )
    return found


def _marked(lines: list[str], start: int) -> bool:
    """Whether the last line above line ``start`` that is not blank is :data:`MARK`."""
    j = start - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    return j >= 0 and lines[j].strip() == MARK


def _title(text: str) -> str:
    _, body = myst.split_front_matter(text)
    m = re.search(r"^# (.+)$", body, re.M)
    if not m:
        raise ValueError("text: the chapter has no '# title' line")
    return m.group(1).strip()


def _markdown(source: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def _notes(piece: Piece) -> str:
    return f"\n\n```{{revealjs-notes}}\n{piece.notes}\n```" if piece.notes else ""


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


def slide_cells(
    text: str, executed: dict[str, Any], language: str = "en", name: str = ""
) -> list[dict[str, Any]]:
    """The cells of a chapter's slide source: ``text`` the chapter's MyST, ``executed`` its
    executed notebook (the execution cache), whose code cells give the marked cells' outputs;
    a widget shows as its snapshot (:func:`widget_outputs`, in ``language``; ``name`` the
    chapter's docname).
    A tagged cell whose code differs from the executed one is a ``ValueError`` (the cache is
    stale: ``make book`` or ``python -m booktools prebuild`` first)."""
    code = [c for c in executed["cells"] if c["cell_type"] == "code"]
    cells = [_markdown(f"# {_title(text)}")]
    for piece in pieces(text):
        head = f"## {piece.heading}\n\n" if piece.heading else ""
        if piece.kind != "cell":
            cells.append(_markdown(head + piece.text + _notes(piece)))
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
        meta = {k: v for k, v in ran.get("metadata", {}).items() if k != "execution"}
        if any(WIDGET_VIEW in out.get("data", {}) for out in outputs):
            outputs, alt = widget_outputs(executed, outputs, piece.cell, language, name)
            meta["mystnb"] = {"image": {"alt": alt}}
        mimes = {k for out in outputs for k in out.get("data", {})}
        figure = any(k.startswith("image/") for k in mimes)
        meta["tags"] = ["remove-input"] if figure else []
        cells.append(_markdown(head.rstrip() + _notes(piece)))
        cells.append(
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": meta,
                "outputs": outputs,
                "source": source,
            }
        )
    return cells


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
        cells = slide_cells(text, ran[name], language, name)
        path = src / f"{name}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        data = json.dumps(_notebook(cells), ensure_ascii=False, indent=1) + "\n"
        if not path.is_file() or path.read_text(encoding="utf-8") != data:
            path.write_text(data, encoding="utf-8")
        counts[name] = sum(
            c["cell_type"] == "markdown" and c["source"].startswith("#") for c in cells
        )
    entries = "\n".join(names)
    index = f"# Slides\n\n```{{toctree}}\n:numbered:\n:hidden:\n\n{entries}\n```\n"
    (src / "index.md").write_text(index, encoding="utf-8")
    locales = src / "locales"
    if not locales.exists():
        locales.symlink_to(root / "locales")  # the Korean printed lines (slides_conf)
    return counts


def deck_path(name: str, language: str, out: Path = OUT) -> Path:
    """Where the deck of chapter ``name`` (docname) in ``language`` is written."""
    if language not in LANGUAGES:
        raise ValueError(f"language: {language!r} is not one of {LANGUAGES}")
    return out / language / f"{name}.html"


def deck_href(name: str, language: str) -> str:
    """The link from chapter ``name``'s page in ``language`` to its deck (relative)."""
    up = "../" if language == "en" else "../../"
    return f"{up}slides/{language}/{name}.html"


def build(
    languages: tuple[str, ...] = LANGUAGES, src: Path = SRC, out: Path = OUT
) -> dict[str, int]:
    """Write the slide sources of every chapter and build the decks of ``languages``, each in a
    process of its own (``sphinx-build -b revealjs``); returns docname -> slides."""
    names = chapters()
    if not names:
        raise ValueError("_toc.yml: no numbered chapter to build")
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
    parser.add_argument("--src", type=Path, default=SRC, help=f"default: {SRC}")
    parser.add_argument("--out", type=Path, default=OUT, help=f"default: {OUT}")
    args = parser.parse_args(argv)
    counts = build(tuple(args.language or LANGUAGES), src=args.src, out=args.out)
    for name, count in counts.items():
        print(f"{name}: {count} slides (before long ones are split)")
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
