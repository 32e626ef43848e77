"""The slide decks of ``make slides`` (:mod:`booktools.build.slides`).

Without a browser: what a chapter puts on slides (definitions, their code, tagged cells, the
exercises' prompts, never a solution).  With one (``browser``, conftest.py; Debian's Chromium as
in tests/test_browser.py): every deck, both languages, built by ``python -m booktools slides``
in a process of its own, then each deck at 1280x720 -- no slide's content overflows the slide or
is cut, the math is typeset, no console error, ArrowRight moves to the next slide, axe-core finds
nothing serious or critical, the median deck weighs at most 2.5 MB -- and the leak scan finds no
solution in any deck.  Each check is shown to fail on a wrong deck (:func:`wrong_deck`).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _browser import AXE_JS, AXE_RUN_JS, AXE_TAGS, new_driver, serve
from _chapters import ROOT

from booktools.build import slides
from booktools.sphinx import slides as sphinx_slides

#: Where the decks are looked for: ``SLIDES_HTML`` may point at another build.
DECKS = Path(os.environ.get("SLIDES_HTML", slides.OUT))
SEVERE = {"serious", "critical"}
MAX_MEDIAN_BYTES = 2.5e6
WIDGET = "application/vnd.jupyter.widget-view+json"

CHAPTER = """\
# Attention

Intro paragraph.

## The definition

The paragraph above the box.

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
    found = slides.pieces(CHAPTER)
    assert [p.kind for p in found] == [
        "prf:definition",
        "formulated-source",
        "cell",
        "exercise",
        "exercise",
    ]
    assert found[0].heading == "The definition"
    assert found[0].notes == "The paragraph above the box."
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
    assert cells[0]["source"] == "# Attention"
    code = [c for c in cells if c["cell_type"] == "code"]
    assert [c["outputs"] for c in code] == [[out]]
    assert (
        "```{revealjs-notes}\nThe paragraph above the box.\n```" in cells[1]["source"]
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
        slides.pieces("# T\n\n```{solution-start} ex-1\n```\n")
    with pytest.raises(ValueError, match="language"):
        slides.deck_path("chapters/08_attention", "fr")


def test_every_chapter_has_slides_and_links_to_its_deck() -> None:
    names = slides.chapters()
    assert len(names) == 19
    for name in names:
        text = (ROOT / f"{name}.md").read_text(encoding="utf-8")
        kinds = {p.kind for p in slides.pieces(text)}
        assert {"prf:definition", "exercise"} <= kinds, name
    assert slides.deck_href("chapters/08_attention", "ko") == (
        "../../slides/ko/chapters/08_attention.html"
    )


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
  const box = document.querySelector(".reveal .slides").getBoundingClientRect();
  const problems = [];
  const sections = Reveal.getSlides();
  for (let n = 0; n < sections.length; n++) {
    const s = sections[n];
    const idx = Reveal.getIndices(s);
    Reveal.slide(idx.h, idx.v);
    await sleep(30);
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
  }
  const math_nodes = document.querySelectorAll(".reveal .math, .reveal span.math, .reveal div.math").length;
  const typeset = document.querySelectorAll(".reveal mjx-container").length;
  Reveal.slide(0, 0);
  await sleep(50);
  const before = JSON.stringify(Reveal.getIndices());
  document.body.focus();
  done({problems, math_nodes, typeset, slides: sections.length, before});
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


def deck_report(driver: Any, url: str) -> dict[str, Any]:
    """One deck loaded at ``url``: its slides' problems, math, console errors, the effect of
    ArrowRight, axe's serious or critical findings and the bytes it loaded."""
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
    driver.execute_script(AXE_JS.read_text(encoding="utf-8"))
    found = driver.execute_async_script(AXE_RUN_JS, list(AXE_TAGS))
    if isinstance(found, dict):
        raise RuntimeError(f"axe failed: {found['error']}")
    report["axe"] = [v for v in found if v["impact"] in SEVERE]
    report["console"] = [
        e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"
    ]
    return report


def deck_problems(report: dict[str, Any]) -> list[str]:
    """What is wrong with a deck, from :func:`deck_report` ([] for a good deck)."""
    found = list(report["problems"])
    if report["math_nodes"] and not report["typeset"]:
        found.append(f"{report['math_nodes']} math elements, none typeset by MathJax")
    found += [f"console: {m}" for m in report["console"]]
    if report["slides"] > 1 and report["after"] == report["before"]:
        found.append("ArrowRight did not move to the next slide")
    found += [f"axe {v['impact']}: {v['id']} {v['help']}" for v in report["axe"]]
    return found


@pytest.fixture(scope="module")
def decks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every deck in both languages, built by ``python -m booktools slides`` in a process of
    its own, once per test run: pytest-xdist's workers share the build (a lock; the first
    builds, the others wait).  ``SLIDES_HTML`` set: the decks there, not built again."""
    if "SLIDES_HTML" in os.environ:
        return DECKS
    base = tmp_path_factory.getbasetemp()
    tmp = (base.parent if "PYTEST_XDIST_WORKER" in os.environ else base) / "slides"
    tmp.mkdir(exist_ok=True)
    out = tmp / "html" / "slides"
    with open(tmp / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (tmp / "built").is_file():
            result = subprocess.run(
                [sys.executable, "-m", "booktools.build.slides"]
                + ["--src", str(tmp / "src"), "--out", str(out)],
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=False,
            )
            assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
            assert "no solution in the decks" in result.stdout
            (tmp / "built").touch()
    return out


@pytest.fixture(scope="module")
def site(decks: Path) -> Any:
    httpd, url = serve(decks)
    yield url
    httpd.shutdown()


@pytest.fixture(scope="module")
def driver() -> Any:
    d = new_driver(1280, 720)
    yield d
    d.quit()


_REPORTS: dict[str, dict[str, Any]] = {}


def report_of(driver: Any, site: str, deck: str) -> dict[str, Any]:
    if deck not in _REPORTS:
        _REPORTS[deck] = deck_report(driver, site + deck)
    return _REPORTS[deck]


DECK_NAMES = [
    f"{lang}/{name}.html" for lang in slides.LANGUAGES for name in slides.chapters()
]


@pytest.mark.browser
def test_every_deck_is_built_in_both_languages(decks: Path) -> None:
    missing = [d for d in DECK_NAMES if not (decks / d).is_file()]
    assert missing == []
    ko = (decks / "ko" / "chapters" / "08_attention.html").read_text(encoding="utf-8")
    # the book's catalogue ("Definition 8.1") and its outputs catalogue (a printed line)
    assert '<html lang="ko"' in ko and "정의 8.1" in ko and "입력 X (3 x 4):" in ko
    assert "cdn" not in ko.lower() and "https://" not in ko.split("<body")[0]
    # npm's reveal.js (vendored), not sphinx-revealjs's copy
    for lang in slides.LANGUAGES:
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
def test_median_deck_weight(driver: Any, site: str) -> None:
    weights = [report_of(driver, site, d)["weight"] for d in DECK_NAMES]
    assert statistics.median(weights) <= MAX_MEDIAN_BYTES, max(weights)


@pytest.mark.browser
def test_no_solution_in_any_deck(decks: Path) -> None:
    assert slides.leaks(decks) == []


# ---- each check fails on a wrong deck ---------------------------------------------------------

#: A wrong deck: chapter 8's with one fault injected (before </body>, or a replacement).
WRONG = {
    "overflow": (
        "<section><h2>Tall</h2><div style='height:2000px'>x</div></section>",
        "content",
    ),
    "untypeset": ("NO-MATHJAX", "none typeset"),
    "console": ("<script>console.error('boom')</script>", "console:"),
    "keys": ("<script>Reveal.configure({keyboard: false})</script>", "ArrowRight"),
    "axe": (
        "<section><h2>Img</h2><img src='data:image/gif;base64,R0lGODlhAQABAAAAACw='></section>",
        "axe critical: image-alt",
    ),
}


def wrong_deck(decks: Path, fault: str) -> str:
    """Chapter 8's English deck with ``fault`` injected, written beside it; its path."""
    page = (decks / "en" / "chapters" / "08_attention.html").read_text(encoding="utf-8")
    snippet = WRONG[fault][0]
    if fault == "untypeset":
        page = page.replace('src="../_static/mathjax/tex-chtml.js"', 'src="data:,"')
    elif snippet.startswith("<section"):
        page = page.replace(
            '<div class="slides" role="main">',
            '<div class="slides" role="main">' + snippet,
            1,
        )
    else:
        page = page.replace("</body>", snippet + "</body>")
    # beside the chapters' folder (the same relative paths), outside the leak scan's reach
    wrong = decks / "en" / "wrong" / f"{fault}.html"
    wrong.parent.mkdir(exist_ok=True)
    wrong.write_text(page, encoding="utf-8")
    return f"en/wrong/{fault}.html"


@pytest.mark.browser
@pytest.mark.parametrize("fault", WRONG)
def test_each_check_fails_on_a_wrong_deck(
    driver: Any, site: str, decks: Path, fault: str
) -> None:
    name = wrong_deck(decks, fault)
    try:
        found = deck_problems(deck_report(driver, site + name))
    finally:
        (decks / name).unlink()
    assert any(WRONG[fault][1] in f for f in found), found
    other = {k: v for k, v in WRONG.items() if k != fault}
    assert not any(v[1] in f for v in other.values() for f in found), found


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


@pytest.mark.parametrize("language", ["en", "ko"])
def test_chapter_pages_and_appendix_c_link_the_decks(
    tmp_path: Path, language: str
) -> None:
    """A small book (every chapter a title, appendix C the directive), built by Sphinx in a
    process of its own: each chapter page links its deck under its title, the appendix lists
    the 19 decks, in the build's language."""
    names = slides.chapters()
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
    href = slides.deck_href("chapters/08_attention", language)
    assert f'<a href="{href}">{sphinx_slides.LINK_TEXT[language]}</a>' in page
    assert page.index("</h1>") < page.index(href)
    appendix = (out / "appendix_c_instructors.html").read_text(encoding="utf-8")
    assert appendix.count(f"slides/{language}/chapters/") == 19
    assert href in appendix and "formulated-slides" not in page.split("</h1>")[0]
    assert "formulated-slides" not in appendix.split("<h1")[1].split("</h1>")[0]
    with pytest.raises(ValueError, match="language"):
        sphinx_slides.link_html("chapters/08_attention", "fr")
