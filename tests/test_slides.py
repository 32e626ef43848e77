"""The slide decks of ``make slides`` (:mod:`booktools.build.slides`): lectures, not pages.

Without a browser: what a chapter puts on slides (a title, the objectives, the definitions and
the lines of code that compute them, at most 15 on a slide, the marked cells, a summary, the
exercises' prompts, never a solution); notes as text to say (no raw TeX, no sentence about the
page); every written note has its Korean.  With one (``browser``, conftest.py; Debian's
Chromium as in tests/test_browser.py): every deck, both languages, built by ``python -m
booktools slides`` in a process of its own, then each deck at 1280x720 -- every slide fits the
frame as the deck made it (before the script that would split it), no slide's content overflows
or is cut or set smaller, every slide has speaker notes without raw TeX, no slide or note shows a
line about the page or the autograder, no slide shows more than 15 lines of code, the fonts the
deck's CSS names cover every character it shows, the math is typeset, no console error,
ArrowRight moves to the next slide, axe-core finds nothing serious or critical (on the Korean
decks every rule but the color rules: :func:`deck_axe_rules`), the median deck
weighs at most 2.5 MB -- the Korean decks show the Korean figures, every deck has its handout
(PDF, a page per slide and notes) and the leak scan finds no solution in any deck.  Each check
is shown to fail on a wrong deck (:func:`wrong_deck`) or a planted fault.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _browser import (
    AXE_JS,
    AXE_RULE_SETS,
    AXE_RUN_JS,
    AXE_TAGS,
    new_driver,
    serve,
    styles_in,
)
from _chapters import ROOT, newest_change
from _helpers import locked, once, run_folder

from booktools.build import decks as deck_paths
from booktools.build import lecture, slides
from booktools.build import notes as speaker_notes
from booktools.sphinx import slides as sphinx_slides

#: Where the decks are looked for: ``SLIDES_HTML`` may point at another build.
DECKS = Path(os.environ.get("SLIDES_HTML", deck_paths.OUT))
SEVERE = {"serious", "critical"}
MAX_MEDIAN_BYTES = 2.5e6
WIDGET = "application/vnd.jupyter.widget-view+json"

CHAPTER = """\
# Attention

Intro paragraph.

## The definition

The paragraph that leads to the box.

```{prf:definition} Scaled attention
:label: def-x

$a = b$
```

```{formulated-source} formulated.formulas.heads.attention
```

<!-- slide -->

```{code-cell} python3
print(1)
```

```{code-cell} python3
print("not on a slide")
```

## Exercises

```{exercise}
:label: ex-1

Prompt one.
```

```{solution} ex-1
SECRET ANSWER ONE
```

```{exercise}
:label: ex-2

Prompt two.
```

```{solution-start} ex-2
```

<!-- slide -->
```{code-cell} python3
print("SECRET CELL")
```

```{solution-end}
```
"""


def test_pieces_are_definitions_code_tagged_cells_and_prompts() -> None:
    found = lecture.pieces(CHAPTER)
    assert [p.kind for p in found] == [
        "prf:definition",
        "formulated-source",
        "cell",
        "exercise",
        "exercise",
    ]
    assert found[0].heading == "The definition"
    assert found[0].notes == "The paragraph that leads to the box."
    assert found[2].cell == 0 and found[3].heading == "Exercises"
    text = "\n".join(p.text for p in found)
    assert "SECRET" not in text and "not on a slide" not in text


def test_slide_cells_take_outputs_from_the_executed_notebook() -> None:
    out = {"output_type": "stream", "name": "stdout", "text": "1\n"}
    executed = {
        "cells": [
            {
                "cell_type": "code",
                "source": "print(1)",
                "outputs": [out],
                "metadata": {},
            },
            {"cell_type": "code", "source": 'print("not on a slide")', "outputs": []},
            {"cell_type": "code", "source": 'print("SECRET CELL")', "outputs": []},
        ]
    }
    cells = slides.slide_cells(CHAPTER, executed)
    assert cells[0]["source"].startswith("# Attention\n")
    code = [c for c in cells if c["cell_type"] == "code"]
    assert [c["outputs"] for c in code] == [[out]]
    assert (
        "```{revealjs-notes}\nThe paragraph that leads to the box.\n```"
        in cells[1]["source"]
    )
    widget = {"output_type": "display_data", "data": {WIDGET: {}}, "metadata": {}}
    executed["cells"][0]["outputs"] = [widget]
    with pytest.raises(ValueError, match="widget without a figure panel"):
        slides.slide_cells(CHAPTER, executed)
    executed["cells"][0]["source"] = "print(2)"  # a stale cache
    with pytest.raises(ValueError, match="stale execution cache"):
        slides.slide_cells(CHAPTER, executed)


def test_a_widget_shows_as_the_snapshot_of_its_figure_panels() -> None:
    svg = "<svg xmlns='http://www.w3.org/2000/svg'/>"
    panel = {
        "model_name": "OutputModel",
        "state": {"outputs": [{"data": {"image/svg+xml": svg}}]},
    }
    executed = {
        "metadata": {"widgets": {slides.WIDGET_STATE: {"state": {"m1": panel}}}}
    }
    view = {"output_type": "display_data", "data": {WIDGET: {"model_id": "m1"}}}
    shown, alt = slides.widget_outputs(executed, [view], 0)
    assert [o["data"] for o in shown] == [{"image/svg+xml": svg}]
    assert alt.startswith("Snapshot of the interactive widget")
    panel["state"]["outputs"] = []  # no figure: nothing to show, said so
    with pytest.raises(ValueError, match="widget without a figure panel"):
        slides.widget_outputs(executed, [view], 0)


def test_an_unended_solution_and_a_bad_language_are_named() -> None:
    with pytest.raises(ValueError, match="solution-start is never ended"):
        lecture.pieces("# T\n\n```{solution-start} ex-1\n```\n")
    with pytest.raises(ValueError, match="language"):
        deck_paths.deck_path("chapters/08_attention", "fr")


def test_every_chapter_has_slides_and_links_to_its_deck() -> None:
    names = lecture.chapters()
    assert len(names) == 19
    for name in names:
        text = (ROOT / f"{name}.md").read_text(encoding="utf-8")
        kinds = {p.kind for p in lecture.pieces(text)}
        assert {"prf:definition", "exercise"} <= kinds, name
    assert deck_paths.deck_href("chapters/08_attention", "ko") == (
        "../../slides/ko/chapters/08_attention.html"
    )


LECTURE = r"""\
# Attention

Attention mixes the rows. By the end of this chapter you will be able to

- explain attention as a soft lookup,
- compute it by hand.

## Retrieval

Words.

## The definition

The paragraph that leads to the box.

```{prf:definition} Scaled attention
:label: def-x

$a = b$
```

<!-- slide-code formulated.formulas.heads.attention: scores = .. return -->

```{formulated-source} formulated.formulas.heads.attention
```

### A step

The widget below shows it. With a live kernel, edit it.

<!-- slide -->
<!-- notes
Say this: $\bm{Q}\bm{K}^\top$ over $\sqrt{D}$.
-->

```{code-cell} python3
print(1)
```

## Summary

- Attention is a soft lookup.

## Exercises

```{exercise}
:label: ex-1

Prompt one. Store it in `x`. Graded to 4 significant digits.
```
"""


def test_a_deck_is_a_lecture() -> None:
    """Title, objectives, definition, its code, the step, the summary, the exercise: in that
    order, titled as the chapter numbers its sections, each with notes to say."""
    out = {"output_type": "stream", "name": "stdout", "text": "1\n"}
    executed = {
        "cells": [{"cell_type": "code", "source": "print(1)", "outputs": [out]}]
    }
    note = "Say this: $\\bm{Q}\\bm{K}^\\top$ over $\\sqrt{D}$."
    korean = {note: "이것을 말한다: $\\bm{Q}\\bm{K}^\\top$를 $\\sqrt{D}$로 나눈다."}
    for language in deck_paths.LANGUAGES:
        cells = slides.slide_cells(
            LECTURE, executed, language, "chapters/08_attention", korean
        )
        heads = [c["source"] for c in cells if c["cell_type"] == "markdown"]
        words = slides.WORDS[language]
        assert heads[0].startswith("# Attention\n\n" + words["chapter"].format(n=8))
        assert heads[1].startswith("## " + words["objectives"])
        assert "- explain attention as a soft lookup," in heads[1]
        assert heads[2].startswith(
            "(sn-8-2-k3)=\n## The definition"
        )  # 8.2, as the page
        assert heads[3].startswith("(sn-8-2-k4)=\n## The definition")
        assert "```python\ndef attention(" in heads[3] and '"""' not in heads[3]
        assert "    ...\n    scores = " in heads[3]
        assert heads[4].startswith("(sn-8-2-1-k5)=\n## A step")
        assert heads[5].startswith("(sn-8-3-k6)=\n## Summary")
        assert heads[6].startswith("(sn-8-4-k7)=\n## Exercises")
        for (
            head
        ) in heads:  # notes everywhere, as text: no TeX, no sentence about the page
            notes = head.split("```{revealjs-notes}\n", 1)[1]
            assert notes.strip("`\n") and not RAW_TEX.search(notes), (head, notes)
        assert ("QKᵀ over √D" if language == "en" else "QKᵀ를 √D로") in heads[4]
    korean.clear()  # a written note with no Korean: named, not shown in English
    with pytest.raises(ValueError, match="no Korean for the note"):
        slides.slide_cells(LECTURE, executed, "ko", "chapters/08_attention", korean)


#: What raw TeX looks like in text meant to be read or said.
RAW_TEX = re.compile(r"\\[A-Za-z]+|\\[{}|,;!]|\$|\^\{|_\{")


def test_notes_say_math_as_text() -> None:
    cases = {
        r"\bm{Q}\bm{K}^\top": "QKᵀ",
        r"n \times m": "n × m",
        r"n_\text{ctx}": "n_ctx",
        r"\frac{\bm{Q}\bm{K}^\top}{\sqrt{D}}": "QKᵀ/√D",
        r"\R^{n \times D}": "ℝ^(n × D)",
        r"w_{ij} = \exp(s_{ij})": "wᵢⱼ = exp(sᵢⱼ)",
        r"\operatorname{softmax}(\bm{q}\cdot\bm{k}_1, \dots)": "softmax(q·k₁, …)",
        r"\{0, 1\}": "{0, 1}",
        r"10^{-4}": "10⁻⁴",
        r"-\sum_{v=1}^V y_v \log \hat y_v": "-Σᵥ₌₁ⱽ yᵥ log y\u0302ᵥ",
        r"\bm{x}^{(N)}": "x⁽ᴺ⁾",
    }
    for tex, said in cases.items():
        assert speaker_notes.spoken_math(tex) == said
        assert RAW_TEX.search(tex) and not RAW_TEX.search(said)  # the check sees TeX


def test_lines_about_the_page_or_the_grader_are_left_out() -> None:
    text = (
        "Attention is soft. The widget below holds the same example. With a live kernel, "
        "editing an input redraws the scores. Checked against its reference by `tests/x`."
    )
    assert speaker_notes.without_page_lines(text) == "Attention is soft."
    # a last sentence that leads in to a list or formula the note does not have
    for lead in (
        "By the end of it you will be able to",
        "Adding up the sizes, term by term:",
        "This chapter builds that matrix,",
    ):
        assert speaker_notes.without_page_lines(f"GPT reads tokens. {lead}") == (
            "GPT reads tokens."
        )
    assert speaker_notes.without_page_lines(
        "이 장은 행렬을 만든다. 다음을 할 수 있다."
    ) == ("이 장은 행렬을 만든다.")
    # a reference without a title of its own names a label, which is not said
    assert (
        speaker_notes.spoken(
            "GPT learns everything ({prf:ref}`def-13-gpt`) in one set, as in {doc}`the "
            "chapter <13_gpt>`; `code` stays."
        )
        == "GPT learns everything in one set, as in the chapter; `code` stays."
    )
    for said in (
        "Opened as a notebook, it lets the class edit.",
        "노트북으로 열면 고칠 수 있다.",
    ):
        assert speaker_notes.PAGE_ONLY.search(said)
    for said in ("아래 위젯은 같은 예제다.", "라이브 커널에서 입력을 고친다."):
        assert speaker_notes.PAGE_ONLY.search(said)
    for line in (
        "Store the three scores in `scores`.",
        "Graded to 4 significant digits.",
        "Float32 is precise enough.",
        "세 점수는 `scores`에 저장하라.",
        "유효숫자 4자리까지 채점한다.",
    ):
        assert speaker_notes.GRADER.search(line), line
    assert not speaker_notes.GRADER.search("Show that the variance is D.")


def test_a_definition_shows_the_lines_that_compute_it() -> None:
    lines = lecture.computation("formulated.formulas.heads.attention")
    assert lines[0] == "def attention(Q, K, V, mask=None, scale=None, kind='additive'):"
    assert not any('"""' in line or line.lstrip().startswith("@") for line in lines)
    assert lines[-1].strip().startswith("return weights @ V")
    forward = lecture.computation("formulated.models.trainable.CausalSelfAttention")
    assert forward[0].startswith("def forward(self, X)")  # a module: its forward
    part = lecture.computation(
        "formulated.formulas.heads.attention", "scores =", "return"
    )
    assert part[1] == "    ..." and part[2].lstrip().startswith("scores =")
    long = "formulated.models.kv_cache.forward_cached"
    assert len(lecture.computation(long)) > lecture.MAX_CODE_LINES
    with pytest.raises(ValueError, match="slide-code"):
        lecture.code_slides([long])
    with pytest.raises(ValueError, match="no line contains"):
        lecture.computation("formulated.formulas.heads.attention", "no such line")


def test_every_code_slide_of_the_book_has_at_most_15_lines() -> None:
    """Each ``{formulated-source}`` box of every chapter, as its slides show it (the
    ``<!-- slide-code -->`` choices included): at most 15 lines a slide (code_slides refuses
    more, test_a_definition_shows_the_lines_that_compute_it)."""
    from booktools import myst

    seen = 0
    for name in lecture.chapters():
        text = (ROOT / f"{name}.md").read_text(encoding="utf-8")
        for piece in lecture.pieces(text):
            if piece.kind == "formulated-source":
                block = myst.block_at(piece.text.split("\n"), 0)
                for _, listing in lecture.code_slides(block.arg.split(), piece.code):
                    assert len(listing.splitlines()) <= lecture.MAX_CODE_LINES, name
                    seen += 1
    assert seen >= 60


def test_every_chapter_has_objectives_and_every_written_note_its_korean() -> None:
    missing = []
    for name in lecture.chapters():
        text = (ROOT / f"{name}.md").read_text(encoding="utf-8")
        assert len(lecture.objectives(text)) >= 3, name
        korean = speaker_notes.notes_translations(name)
        missing += [
            f"{name}: {n[:60]}"
            for n in speaker_notes.written_notes(text)
            if n not in korean
        ]
    assert missing == [], "run python -m booktools slides --update-notes and translate"


# ---- the built decks, in Chromium -------------------------------------------------------------

#: Every slide of the loaded deck, one after the other (Reveal.slide): what overflows or is cut,
#: raw TeX left untypeset; then ArrowRight from the first slide, and the deck's weight.
DECK_JS = r"""
const done = arguments[arguments.length - 1];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
(async () => {
  const fitted = () => document.documentElement.hasAttribute("data-slides-fitted");
  for (let i = 0; i < 300 && !(window.Reveal && Reveal.isReady() && fitted()); i++) await sleep(100);
  if (!fitted()) { done({error: "the deck never finished fitting its slides"}); return; }
  // every font the slides use is loaded (fitting showed each slide once, which asked for
  // them): the walk below measures each slide as drawn in its own fonts
  await document.fonts.ready;
  const box = document.querySelector(".reveal .slides").getBoundingClientRect();
  const problems = [], slides = [];
  const sections = Reveal.getSlides();
  for (let n = 0; n < sections.length; n++) {
    const s = sections[n];
    const idx = Reveal.getIndices(s);
    // no wait between slides: Reveal.slide is synchronous and every measure below forces
    // the layout; a wait would only have Chromium draw each slide (CPU spent, nothing read)
    Reveal.slide(idx.h, idx.v);
    const where = `slide ${n + 1} (${(s.querySelector("h1, h2") || {}).textContent || ""})`;
    const cfg = Reveal.getConfig();
    if (s.scrollHeight > cfg.height + 1 || s.scrollWidth > cfg.width + 1)
      problems.push(`${where}: content ${s.scrollWidth}x${s.scrollHeight} > ${cfg.width}x${cfg.height}`);
    for (const el of s.querySelectorAll("*")) {
      if (el.closest("aside.notes, script, style, mjx-assistive-mml")) continue;
      // a formula counts as one box (its glyph parts may stick out of their own boxes)
      if (el.tagName.startsWith("MJX-") && el.tagName !== "MJX-CONTAINER") continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (r.bottom > box.bottom + 1 || r.right > box.right + 1 || r.top < box.top - 8) {
        problems.push(`${where}: <${el.tagName.toLowerCase()}> outside the slide`);
        break;
      }
      if ((el.tagName === "PRE" || el.tagName === "CODE") &&
          (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)) {
        problems.push(`${where}: <${el.tagName.toLowerCase()}> cut`);
        break;
      }
    }
    const text = s.innerText;
    if (/\\\(|\\\[|\$\$/.test(text)) problems.push(`${where}: raw TeX`);
    // the slide as the deck made it, before formulated-slides.js split or shrank anything
    const made = s.getAttribute("data-source-height");
    if (made !== null && +made > cfg.height + 1)
      problems.push(`${where}: ${made} px tall as made (the frame is ${cfg.height})`);
    if (s.style.fontSize) problems.push(`${where}: text set at ${s.style.fontSize}`);
    const notes = s.querySelector("aside.notes");
    slides.push({where, made: made !== null, notes: notes ? notes.textContent.trim() : "",
                 text, code: [...s.querySelectorAll("pre")]
                   .filter((p) => !p.closest(".output, .cell_output"))
                   .map((p) => p.textContent.replace(/\n+$/, "").split("\n").length)});
  }
  // what CSS draws itself (::before, ::after): checked against the deck's fonts too
  const pseudo = new Set();
  for (const el of document.querySelectorAll(".reveal .slides *")) {
    if (el.closest("mjx-container, aside.notes")) continue;
    for (const where of ["::before", "::after"]) {
      const c = getComputedStyle(el, where).content;
      if (c && c.startsWith('"')) for (const ch of JSON.parse(c)) pseudo.add(ch);
    }
  }
  const math_nodes = document.querySelectorAll(".reveal .math, .reveal span.math, .reveal div.math").length;
  const typeset = document.querySelectorAll(".reveal mjx-container").length;
  Reveal.slide(0, 0);
  await sleep(50);
  const before = JSON.stringify(Reveal.getIndices());
  document.body.focus();
  done({problems, math_nodes, typeset, slides: sections.length, before, shown: slides,
        pseudo: [...pseudo]});
})();
"""

WEIGHT_JS = r"""
return [...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")]
  .reduce((s, e) => s + (e.decodedBodySize || e.transferSize || 0), 0);
"""


SHOW_ALL_JS = r"""
for (const s of document.querySelectorAll(".reveal .slides section")) {
  s.removeAttribute("hidden"); s.removeAttribute("aria-hidden"); s.removeAttribute("inert");
  s.classList.remove("past", "future"); s.classList.add("present"); s.style.display = "block";
}
"""


#: axe-core put in the deck by a script element (the driver's ``axe_src``), not as the text of
#: a script Selenium runs: Chromium keeps the script's compiled code between decks, where the
#: text would be compiled anew in each (a tenth of a CPU-second a deck).
AXE_LOAD_JS = r"""
const [src, done] = [arguments[0], arguments[arguments.length - 1]];
const script = document.createElement("script");
script.src = src;
script.onload = () => done(true);
script.onerror = () => done(false);
document.head.appendChild(script);
"""


def deck_axe_rules(deck: str) -> str:
    """What axe audits of ``deck`` (a key of ``_browser.AXE_RULE_SETS``): every rule on an
    English deck; on a Korean one every rule but the color rules.  Both are built from the same
    CSS, and a Korean deck has the English one's class names and inline styles
    (:func:`test_korean_decks_are_styled_as_the_english_ones`), so its text has the English
    deck's colors, which the English deck's audit checks, as on the book's pages
    (``_browser.axe_rules``); the color rules were over half of a deck's audit."""
    return "no-color" if deck.startswith("ko/") else "all"


def deck_report(driver: Any, url: str, rules: str = "all") -> dict[str, Any]:
    """One deck loaded at ``url``: its slides' problems, math, console errors, the effect of
    ArrowRight, axe's serious or critical findings (of the rules ``rules``, a key of
    ``_browser.AXE_RULE_SETS``) and the bytes it loaded."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    driver.get(url)
    report = driver.execute_async_script(DECK_JS)
    if "error" in report:
        raise AssertionError(f"{url}: {report['error']}")
    report["weight"] = driver.execute_script(WEIGHT_JS)
    ActionChains(driver).send_keys(Keys.ARROW_RIGHT).perform()
    report["after"] = driver.execute_script(
        "return JSON.stringify(Reveal.getIndices())"
    )
    # axe skips what is hidden: every slide is shown at once (one audit covers the deck)
    driver.execute_script(SHOW_ALL_JS)
    if not driver.execute_async_script(AXE_LOAD_JS, driver.axe_src):
        raise RuntimeError(f"axe did not load from {driver.axe_src}")
    found = driver.execute_async_script(
        AXE_RUN_JS, list(AXE_TAGS), AXE_RULE_SETS[rules]
    )
    if isinstance(found, dict):
        raise RuntimeError(f"axe failed: {found['error']}")
    report["axe"] = [v for v in found if v["impact"] in SEVERE]
    report["console"] = [
        e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"
    ]
    return report


#: A line about the page, the notebook or the autograder, which a slide or its notes never
#: show (both languages).
PAGE_LINE = re.compile(
    r"live kernel|Checked against|Graded to|Float32 is precise|\btests/\w|"
    r"라이브 커널|참조 구현과 대조|채점한다|Float32로도"
)


def slide_problems(shown: list[dict[str, Any]]) -> list[str]:
    """What is wrong with the slides a deck shows: notes missing or with raw TeX, a line about
    the page, more than :data:`lecture.MAX_CODE_LINES` lines of code."""
    found = []
    for slide in shown:
        where = slide["where"]
        if (
            slide["made"] and not slide["notes"]
        ):  # a continuation shares its slide's notes
            found.append(f"{where}: no speaker notes")
        if RAW_TEX.search(slide["notes"]):
            found.append(f"{where}: raw TeX in the notes")
        for text in (slide["text"], slide["notes"]):
            if m := PAGE_LINE.search(text):
                found.append(f"{where}: a line about the page ({m[0]!r})")
        if any(n > lecture.MAX_CODE_LINES for n in slide["code"]):
            found.append(f"{where}: {max(slide['code'])} lines of code on one slide")
    return found


def deck_problems(report: dict[str, Any]) -> list[str]:
    """What is wrong with a deck, from :func:`deck_report` ([] for a good deck)."""
    found = list(report["problems"]) + slide_problems(report["shown"])
    found += [
        f"U+{ord(c):04X} drawn by CSS, in a private-use area no deck font fills"
        for c in report["pseudo"]
        if 0xE000 <= ord(c) <= 0xF8FF
    ]
    if report["math_nodes"] and not report["typeset"]:
        found.append(f"{report['math_nodes']} math elements, none typeset by MathJax")
    found += [f"console: {m}" for m in report["console"]]
    if report["slides"] > 1 and report["after"] == report["before"]:
        found.append("ArrowRight did not move to the next slide")
    found += [f"axe {v['impact']}: {v['id']} {v['help']}" for v in report["axe"]]
    return found


#: What a deck is made from besides the execution cache (its chapter, the tooling, the Korean
#: catalogues, the widgets' snapshots): decks built after their last change are current.
DECK_INPUTS = ("chapters", "booktools", "locales", "formulated")


def current(out: Path) -> bool:
    """Every deck under ``out`` exists and is newer than every file it is made from."""
    built = [out / d for d in DECK_NAMES]
    if not all(p.is_file() for p in built):
        return False
    configs = [ROOT / "_config.yml", ROOT / "_toc.yml"]
    newest = max(newest_change(DECK_INPUTS), *(p.stat().st_mtime for p in configs))
    return min(p.stat().st_mtime for p in built) > newest


@pytest.fixture(scope="module")
def decks(shared_tmp: Path) -> Path:
    """Every deck in both languages: those ``make book`` built when they are current, else
    built here by ``python -m booktools slides`` in a process of its own, once per test run
    (conftest.py's ``shared_tmp``: pytest-xdist's workers share the build).  ``SLIDES_HTML``
    set: the decks there."""
    if "SLIDES_HTML" in os.environ:
        return DECKS
    if current(deck_paths.OUT):
        return deck_paths.OUT

    def build(tmp: Path) -> None:
        result = subprocess.run(
            [sys.executable, "-m", "booktools.build.slides"]
            + ["--src", str(tmp / "src"), "--out", str(tmp / "html" / "slides")],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        assert "no solution in the decks" in result.stdout

    return once(shared_tmp / "slides", build) / "html" / "slides"


@pytest.fixture(scope="module")
def site(decks: Path) -> Any:
    httpd, url = serve(decks)
    yield url
    httpd.shutdown()


@pytest.fixture(scope="module")
def driver() -> Any:
    """Chromium at the decks' 1280x720, with ``axe_src``: axe-core, served (:data:`AXE_LOAD_JS`)."""
    d = new_driver(1280, 720)
    httpd, url = serve(AXE_JS.parent)
    d.axe_src = url + AXE_JS.name
    yield d
    d.quit()
    httpd.shutdown()


_REPORTS: dict[str, dict[str, Any]] = {}


def report_of(driver: Any, site: str, deck: str) -> dict[str, Any]:
    """:func:`deck_report` of ``deck``, once per test run: under pytest-xdist, the worker that
    loads a deck first keeps its report in the run's folder, where the others read it."""
    if deck not in _REPORTS:
        shared = run_folder()
        rules = deck_axe_rules(deck)
        if shared is None:
            _REPORTS[deck] = deck_report(driver, site + deck, rules)
        else:
            kept = shared / "decks" / (deck.replace("/", "~") + ".json")
            with locked(kept.with_suffix(".lock")):
                if not kept.is_file():
                    report = deck_report(driver, site + deck, rules)
                    kept.write_text(json.dumps(report))
            _REPORTS[deck] = json.loads(kept.read_text())
    return _REPORTS[deck]


DECK_NAMES = [
    f"{lang}/{name}.html"
    for lang in deck_paths.LANGUAGES
    for name in lecture.chapters()
]


@pytest.mark.browser
def test_every_deck_is_built_in_both_languages(decks: Path) -> None:
    missing = [d for d in DECK_NAMES if not (decks / d).is_file()]
    assert missing == []
    ko = (decks / "ko" / "chapters" / "08_attention.html").read_text(encoding="utf-8")
    # the book's catalogue ("Definition 8.1") and its outputs catalogue (a printed line)
    assert (
        '<html lang="ko"' in ko and "정의 8.1" in ko and "정확한 가중치 : [0.0634" in ko
    )
    assert "cdn" not in ko.lower() and "https://" not in ko.split("<body")[0]
    # the same style sheets in both languages (what deck_axe_rules relies on)
    css = {
        lang: {
            p.relative_to(decks / lang): p.read_bytes()
            for p in (decks / lang / "_static").rglob("*.css")
        }
        for lang in deck_paths.LANGUAGES
    }
    differ = [
        str(k)
        for k in sorted(css["en"].keys() | css["ko"].keys())
        if css["en"].get(k) != css["ko"].get(k)
    ]
    assert css["en"] and differ == [], (
        f"style sheets differ between en and ko: {differ}"
    )
    # npm's reveal.js (vendored), not sphinx-revealjs's copy
    for lang in deck_paths.LANGUAGES:
        served = decks / lang / "_static" / "revealjs" / "dist" / "reveal.js"
        assert (
            served.read_bytes() == (slides.REVEALJS / "dist" / "reveal.js").read_bytes()
        )


@pytest.mark.browser
@pytest.mark.parametrize(
    "deck", DECK_NAMES, ids=lambda d: d.replace("/chapters/", "-")[:-5]
)
def test_deck_fits_typesets_moves_and_passes_axe(
    driver: Any, site: str, deck: str
) -> None:
    report = report_of(driver, site, deck)
    assert report["slides"] >= 4
    assert deck_problems(report) == []


@pytest.mark.browser
@pytest.mark.parametrize("name", lecture.chapters())
def test_korean_decks_are_styled_as_the_english_ones(decks: Path, name: str) -> None:
    """A Korean deck has the class names and inline styles of the English one: then the decks'
    CSS (the same in both: :func:`test_every_deck_is_built_in_both_languages`) gives its text
    the English deck's colors, which axe's color rules check on the English deck
    (:func:`deck_axe_rules` leaves them out on the Korean one)."""
    english, korean = (
        styles_in(deck_paths.deck_path(name, language, decks))
        for language in ("en", "ko")
    )
    assert english == korean, (
        f"the Korean deck of {name} is styled otherwise: only Korean "
        f"{sorted(korean - english)[:8]}, only English {sorted(english - korean)[:8]}; "
        "audit the Korean decks with axe's color rules too (deck_axe_rules)"
    )


@pytest.mark.browser
def test_median_deck_weight(driver: Any, site: str) -> None:
    weights = [report_of(driver, site, d)["weight"] for d in DECK_NAMES]
    assert statistics.median(weights) <= MAX_MEDIAN_BYTES, max(weights)


@pytest.mark.browser
def test_no_solution_in_any_deck(decks: Path) -> None:
    assert slides.leaks(decks) == []


# ---- fonts, figures and handouts of the built decks -----------------------------------------


def _css_stack(css: str, var: str) -> list[str]:
    m = re.search(re.escape(var) + r":\s*([^;]+);", css)
    assert m, f"the deck's CSS names no {var}"
    return [f.strip().strip("\"'") for f in m.group(1).split(",")]


def _font_files(family: str, theme: str) -> list[Any]:
    """The fonts a family name stands for: the theme's own (@font-face, embedded) or the
    system's (fontconfig's match, when it is that family); a generic name stands for none."""
    import base64
    import io

    from fontTools.ttLib import TTFont

    embedded = [
        TTFont(io.BytesIO(base64.b64decode(m[2])))
        for m in re.finditer(
            r"@font-face\{font-family:([^;]+);src:url\(data:font/woff;base64,([^)]+)\)",
            theme,
        )
        if m[1].strip().strip("\"'") == family
    ]
    if embedded or family in ("serif", "sans-serif", "monospace"):
        return embedded
    found = subprocess.run(
        ["fc-match", "-f", "%{family}|%{file}|%{index}", family],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split("|")
    if len(found) != 3 or family not in found[0].split(","):
        return []
    number = int(found[2]) if found[1].endswith((".ttc", ".otc")) else -1
    return [TTFont(found[1], fontNumber=number)]


def deck_fonts(decks: Path, language: str) -> dict[str, set[int]]:
    """The characters the fonts named by a deck's CSS cover: its text's (``--r-main-font``)
    and its code's (``--r-code-font``)."""
    css = (decks / language / "_static" / "formulated-slides.css").read_text(
        encoding="utf-8"
    )
    theme = decks / language / "_static" / "revealjs" / "dist" / "theme" / "white.css"
    theme_css = theme.read_text(encoding="utf-8")
    covered = {}
    for kind, var in (("text", "--r-main-font"), ("code", "--r-code-font")):
        chars: set[int] = set()
        for family in _css_stack(css, var):
            for font in _font_files(family, theme_css):
                chars |= set(font.getBestCmap())
        covered[kind] = chars
    return covered


def shown_characters(page: str) -> dict[str, set[str]]:
    """The characters a deck shows (its slides: not the notes, scripts or math, which MathJax
    draws with its own fonts), as text and as code."""
    from html.parser import HTMLParser

    class Shown(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.open: list[tuple[str, bool, bool]] = []
            self.chars: dict[str, set[str]] = {"text": set(), "code": set()}

        def handle_starttag(
            self, tag: str, attrs: list[tuple[str, str | None]]
        ) -> None:
            classes = (dict(attrs).get("class") or "").split()
            hidden = tag in ("script", "style", "aside") or "math" in classes
            self.open.append((tag, hidden, tag in ("pre", "code")))

        def handle_endtag(self, tag: str) -> None:
            while self.open and self.open.pop()[0] != tag:
                pass

        def handle_data(self, data: str) -> None:
            if any(hidden for _, hidden, _ in self.open):
                return
            kind = "code" if any(code for _, _, code in self.open) else "text"
            self.chars[kind] |= {c for c in data if not c.isspace() and ord(c) >= 32}

    parser = Shown()
    parser.feed(page[page.find('<div class="slides"') :])
    return parser.chars


def missing_glyphs(
    page: str, covered: dict[str, set[int]], drawn: list[str] = ()
) -> list[str]:
    """The characters of a deck (and ``drawn``, what its CSS draws before or after its
    elements) that no font its CSS names can draw."""
    shown = shown_characters(page)
    shown["text"] |= {c for c in drawn if not c.isspace()}
    return sorted(
        f"{kind} {c!r} (U+{ord(c):04X})"
        for kind, chars in shown.items()
        for c in chars
        if ord(c) not in covered[kind]
    )


@pytest.mark.browser
def test_the_fonts_a_deck_names_cover_every_character_it_shows(
    driver: Any, site: str, decks: Path
) -> None:
    found = []
    # each language's fonts read once (fontTools parses the CJK fonts: seconds of CPU)
    covered = {lang: deck_fonts(decks, lang) for lang in deck_paths.LANGUAGES}
    for language in deck_paths.LANGUAGES:
        for name in lecture.chapters():
            page = deck_paths.deck_path(name, language, decks).read_text(
                encoding="utf-8"
            )
            drawn = report_of(driver, site, f"{language}/{name}.html")["pseudo"]
            found += [
                f"{language} {name}: {m}"
                for m in missing_glyphs(page, covered[language], drawn)
            ]
    assert found == []
    # the check fails on a character no named font has (a private-use one, in text and code)
    page = deck_paths.deck_path("chapters/13_gpt", "en", decks).read_text(
        encoding="utf-8"
    )
    planted = page.replace("</h2>", "\ue000</h2>", 1).replace(
        "</code>", "\ue001</code>", 1
    )
    assert missing_glyphs(planted, covered["en"]) == [
        "code '\\ue001' (U+E001)",
        "text '\\ue000' (U+E000)",
    ]


def figure_texts(page: Path) -> list[str]:
    """The texts of the figures (SVG images) a deck shows."""
    found = []
    for src in re.findall(
        r'<img [^>]*src="([^"]+\.svg)"', page.read_text(encoding="utf-8")
    ):
        svg = (page.parent / src).read_text(encoding="utf-8")
        found += re.findall(r"<text\b[^>]*>([^<]+)</text>", svg)
        found += re.findall(r'<g id="text_\d+">\s*<!-- (.*?) -->', svg)
    return found


def figures_unlike_the_korean_page(decks: Path, name: str) -> list[str]:
    """The figures of chapter ``name``'s Korean deck that are not the Korean page's: each
    figure of the English deck, through the chapter's outputs catalogue as the Korean book
    translates it (:func:`booktools.sphinx.i18n.translate_svg`), must be the Korean deck's."""
    from booktools.i18n.outputs import OUTPUTS, output_table
    from booktools.sphinx.i18n import translate_svg

    table = output_table(OUTPUTS / f"{name}.po")
    pages = {
        lang: deck_paths.deck_path(name, lang, decks) for lang in deck_paths.LANGUAGES
    }
    shown = {
        lang: re.findall(
            r'<img [^>]*src="([^"]+\.svg)"', page.read_text(encoding="utf-8")
        )
        for lang, page in pages.items()
    }
    found = []
    for src in shown["en"]:
        if src not in shown["ko"]:
            continue  # a widget's snapshot: drawn in each language (its labels differ)
        english = (pages["en"].parent / src).read_text(encoding="utf-8")
        korean = (pages["ko"].parent / src).read_text(encoding="utf-8")
        if korean != translate_svg(english, table):
            found.append(src)
    return found


@pytest.mark.browser
def test_the_korean_decks_show_the_korean_figures(decks: Path, tmp_path: Path) -> None:
    """The Korean deck shows the Korean page's figures (chapter 8's heat map reads
    "키 j (입력)"), not the English ones."""
    found = {n: figures_unlike_the_korean_page(decks, n) for n in lecture.chapters()}
    assert {n: f for n, f in found.items() if f} == {}
    assert "키 j (입력)" in figure_texts(
        deck_paths.deck_path("chapters/08_attention", "ko", decks)
    )
    # a Korean deck that shows the English figures is found
    fake = tmp_path / "slides"
    for language in deck_paths.LANGUAGES:
        shutil.copytree(decks / language / "chapters", fake / language / "chapters")
        shutil.copytree(decks / language / "_images", fake / language / "_images")
    shutil.copytree(
        decks / "en" / "_images", fake / "ko" / "_images", dirs_exist_ok=True
    )
    assert figures_unlike_the_korean_page(fake, "chapters/08_attention")


def handout_problems(decks: Path, name: str, language: str) -> list[str]:
    """What is wrong with the handout of a deck: missing, no PDF, fewer pages than slides."""
    pdf = deck_paths.handout_path(name, language, decks)
    if not pdf.is_file():
        return [f"{pdf}: missing"]
    data = pdf.read_bytes()
    if not data.startswith(b"%PDF"):
        return [f"{pdf}: not a PDF"]
    pages = len(re.findall(rb"/Type\s*/Page\b(?!s)", data))
    deck = deck_paths.deck_path(name, language, decks).read_text(encoding="utf-8")
    shown = deck.count('<aside class="notes">')
    return [] if pages >= shown else [f"{pdf}: {pages} pages for {shown} slides"]


@pytest.mark.browser
def test_every_deck_has_its_handout(decks: Path, tmp_path: Path) -> None:
    found = [
        p
        for language in deck_paths.LANGUAGES
        for name in lecture.chapters()
        for p in handout_problems(decks, name, language)
    ]
    assert found == []
    # a handout of one page, for a deck of many slides, is found
    fake = tmp_path / "slides"
    shutil.copytree(decks / "en" / "chapters", fake / "en" / "chapters")
    pdf = deck_paths.handout_path("chapters/08_attention", "en", fake)
    pdf.parent.mkdir(parents=True)
    pdf.write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Page >> endobj\n")
    assert "1 pages for" in handout_problems(fake, "chapters/08_attention", "en")[0]


# ---- each check fails on a wrong deck ---------------------------------------------------------

#: A wrong deck: a small deck (:func:`small_deck`) with one fault injected (a slide put first,
#: a snippet before </body>, or a replacement): the snippet, what deck_problems says of it, and
#: what else it may say (a slide too tall to split is also too tall as made, and set smaller).
NOTES = "<aside class='notes'>Say this.</aside>"
WRONG: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "overflow": (
        f"<section><h2>Tall</h2><div style='height:2000px'>x</div>{NOTES}</section>",
        "content",
        ("as made", "set at"),
    ),
    "tall": (
        "<section><h2>Two</h2><div style='height:500px'>a</div>"
        f"<div style='height:500px'>b</div>{NOTES}</section>",
        "as made",
        (),
    ),
    "shrunk": (
        f"<section style='font-size:50%'><h2>Small</h2><p>x</p>{NOTES}</section>",
        "set at",
        (),
    ),
    "notes": ("<section><h2>Quiet</h2><p>x</p></section>", "no speaker notes", ()),
    "tex": (
        "<section><h2>TeX</h2><p>x</p><aside class='notes'>the scores \\bm{Q}</aside>"
        "</section>",
        "raw TeX in the notes",
        (),
    ),
    "page": (
        f"<section><h2>Page</h2><p>With a live kernel, edit it.</p>{NOTES}</section>",
        "a line about the page",
        (),
    ),
    "code": (
        "<section><h2>Code</h2><pre><code>"
        + "\n".join(f"x = {k}" for k in range(20))
        + f"</code></pre>{NOTES}</section>",
        "lines of code on one slide",
        (),
    ),
    "untypeset": ("NO-MATHJAX", "none typeset", ()),
    "icon": (
        "<style>.reveal div.exercise p.admonition-title::after{content:'\\f303'}</style>",
        "drawn by CSS",
        (),
    ),
    "console": ("<script>console.error('boom')</script>", "console:", ()),
    "keys": ("<script>Reveal.configure({keyboard: false})</script>", "ArrowRight", ()),
    "axe": (
        "<section><h2>Img</h2><img src='data:image/gif;base64,R0lGODlhAQABAAAAACw='>"
        f"{NOTES}</section>",
        "axe critical: image-alt",
        (),
    ),
}

SLIDES_OPEN = '<div class="slides" role="main">'


def top_slides(page: str) -> tuple[int, int, list[str]]:
    """The top-level ``<section>`` elements of a deck (a slide, or a stack of them): where the
    first begins and the last ends in ``page``, and each one's HTML."""
    found, depth, start = [], 0, 0
    begin = page.index(SLIDES_OPEN) + len(SLIDES_OPEN)
    for m in re.compile(r"<section\b[^>]*>|</section>").finditer(page, begin):
        if m[0] == "</section>":
            depth -= 1
            if depth == 0:
                found.append((start, m.end()))
        else:
            if depth == 0:
                start = m.start()
            depth += 1
    return found[0][0], found[-1][1], [page[a:b] for a, b in found]


def small_deck(page: str) -> str:
    """A deck cut down to three of its slides, with everything its checks look at: the title
    slide, the first slide with math (MathJax typesets it: ``untypeset`` has something to
    miss), the last exercise (``icon`` draws on an exercise's title).  A load of it costs a
    fraction of the whole deck's, and each wrong deck is one load."""
    first, last, sections = top_slides(page)
    math = next(s for s in sections if 'class="math' in s)
    exercise = [s for s in sections if 'class="exercise admonition"' in s][-1]
    kept = list(dict.fromkeys([sections[0], math, exercise]))
    return page[:first] + "\n".join(kept) + page[last:]


def wrong_deck(decks: Path, fault: str, into: Path) -> str:
    """Chapter 8's English deck cut down (:func:`small_deck`) with ``fault`` injected, written
    under ``into``; its path there."""
    page = small_deck(
        (decks / "en" / "chapters" / "08_attention.html").read_text(encoding="utf-8")
    )
    snippet = WRONG[fault][0]
    if fault == "untypeset":
        page = re.sub(
            r'src="\.\./_static/mathjax/tex-chtml\.js[^"]*"', 'src="data:,"', page
        )
    elif snippet.startswith("<section"):
        page = page.replace(SLIDES_OPEN, SLIDES_OPEN + snippet, 1)
    else:
        page = page.replace("</body>", snippet + "</body>")
    wrong = into / "en" / "wrong" / f"{fault}.html"
    wrong.parent.mkdir(parents=True, exist_ok=True)
    wrong.write_text(page, encoding="utf-8")
    return f"en/wrong/{fault}.html"


@pytest.fixture(scope="module")
def wrong_site(decks: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A folder of wrong decks, served: beside them (``en/``) the decks' own ``_static`` and
    ``_images`` (links), so that a wrong deck loads what the real one does, while the built
    decks, which other test runs may be reading, and the leak scan never see it."""
    root = tmp_path_factory.mktemp("wrong-decks")
    for folder in ("_static", "_images"):
        (root / "en").mkdir(exist_ok=True)
        (root / "en" / folder).symlink_to(decks / "en" / folder)
    httpd, url = serve(root)
    yield root, url
    httpd.shutdown()


@pytest.mark.browser
def test_a_small_deck_is_a_deck(driver: Any, decks: Path, wrong_site: Any) -> None:
    """The deck the wrong decks are made from: three slides, with math and an exercise, no
    problem found (what each wrong deck shows comes from its fault alone)."""
    root, url = wrong_site
    page = (decks / "en" / "chapters" / "08_attention.html").read_text(encoding="utf-8")
    small = small_deck(page)
    assert len(top_slides(small)[2]) == 3 < len(top_slides(page)[2])
    assert 'class="math' in small and 'class="exercise admonition"' in small
    clean = root / "en" / "wrong" / "clean.html"
    clean.parent.mkdir(parents=True, exist_ok=True)
    clean.write_text(small, encoding="utf-8")
    report = deck_report(driver, url + "en/wrong/clean.html")
    # (a slide the deck splits counts twice: chapter 8's last exercise does)
    assert report["slides"] >= 3 and report["typeset"] > 0
    assert deck_problems(report) == []


@pytest.mark.browser
@pytest.mark.parametrize("fault", WRONG)
def test_each_check_fails_on_a_wrong_deck(
    driver: Any, decks: Path, wrong_site: Any, fault: str
) -> None:
    root, url = wrong_site
    found = deck_problems(deck_report(driver, url + wrong_deck(decks, fault, root)))
    _, says, also = WRONG[fault]
    assert any(says in f for f in found), found
    others = [v[1] for k, v in WRONG.items() if k != fault and v[1] not in also]
    assert not any(other in f for other in others for f in found), found


@pytest.mark.browser
def test_the_leak_scan_finds_a_solution_put_in_a_deck(
    decks: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "slides"
    shutil.copytree(decks / "en" / "chapters", copy / "en" / "chapters")
    text = (ROOT / "chapters" / "08_attention.md").read_text(encoding="utf-8")
    solution = text.split("```{solution} ex-08-1", 1)[1].split("```", 1)[0]
    deck = copy / "en" / "chapters" / "08_attention.html"
    deck.write_text(
        deck.read_text(encoding="utf-8").replace(
            "</body>", f"<p>{solution}</p></body>"
        ),
        encoding="utf-8",
    )
    assert any("08_attention" in f for f in slides.leaks(copy))


# ---- the book links the decks (booktools/sphinx/slides.py) ------------------------------------

LINK_CONF = """\
extensions = ["myst_parser", "booktools.sphinx.chapter_refs", "booktools.sphinx.slides"]
root_doc = "index"
"""


@pytest.mark.slow  # two Sphinx builds in processes of their own
@pytest.mark.parametrize("language", ["en", "ko"])
def test_chapter_pages_and_appendix_c_link_the_decks(
    tmp_path: Path, language: str
) -> None:
    """A small book (every chapter a title, appendix C the directive), built by Sphinx in a
    process of its own: each chapter page links its deck under its title, the appendix lists
    the 19 decks, in the build's language."""
    names = lecture.chapters()
    (tmp_path / "conf.py").write_text(LINK_CONF, encoding="utf-8")
    (tmp_path / "chapters").mkdir()
    for name in names:
        (tmp_path / f"{name}.md").write_text(
            f"# Title {name[9:11]}\n", encoding="utf-8"
        )
    (tmp_path / "chapters" / "appendix_c_instructors.md").write_text(
        "# Appendix\n\n```{formulated-slides}\n```\n", encoding="utf-8"
    )
    toc = "\n".join(names)
    (tmp_path / "index.md").write_text(
        f"# Book\n\n```{{toctree}}\n:numbered:\n\n{toc}\n```\n\n"
        "```{toctree}\nchapters/appendix_c_instructors\n```\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-q",
            "-b",
            "html",
            "-D",
            f"language={language}",
            str(tmp_path),
            str(tmp_path / "out"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    out = tmp_path / "out" / "chapters"
    page = (out / "08_attention.html").read_text(encoding="utf-8")
    href = deck_paths.deck_href("chapters/08_attention", language)
    assert f'<a href="{href}">{sphinx_slides.LINK_TEXT[language]}</a>' in page
    assert page.index("</h1>") < page.index(href)
    appendix = (out / "appendix_c_instructors.html").read_text(encoding="utf-8")
    assert appendix.count(f"slides/{language}/chapters/") == 19
    assert appendix.count(f"slides/{language}/handouts/") == 19
    assert sphinx_slides.HANDOUT_TEXT[language] in appendix
    assert href in appendix and "formulated-slides" not in page.split("</h1>")[0]
    assert "formulated-slides" not in appendix.split("<h1")[1].split("</h1>")[0]
    with pytest.raises(ValueError, match="language"):
        sphinx_slides.link_html("chapters/08_attention", "fr")
