"""Helpers of the browser tests (tests/test_browser.py, tests/test_a11y.py,
tests/test_quiz_browser.py): Debian's Chromium via selenium, a static server for the built
book, and the measurement of a page in the browser.

Both books are checked: the English pages and the Korean ones under ``ko/``.  Each page is
loaded once per test run (:func:`audit`), at 1280 px in light mode: the layout measurement,
axe's audit and the page's images and controls come from that one load; then, in the same page,
as a reader does it, the English book is switched to dark mode with the theme's button (the
images, and axe's color rules where :func:`axe_rules` says), and every page is narrowed to
390 px, as a phone turned or a window narrowed (:func:`resize`: the viewport is emulated, and
the page's own handlers of the resize run), and measured (and audited) again.  A page load
(MathJax's typesetting, the widgets drawn) costs Chromium 1-5 CPU-seconds, so one instead of
three or four per page; an audit by every rule of axe 1-7, two thirds of it its color rules,
which :func:`axe_rules` runs only where colors can differ from what is audited already.  The
pages of :data:`FRESH_PHONE_PAGES` are also loaded fresh at 390 px, and tests/test_browser.py
checks that both agree.  Every test module reads the same reports, in every pytest-xdist worker
(the worker that loads a page keeps them on disk for the others: under ``--dist load`` the
tests of a page go to both workers).

The book must be built first (``make book``; CI runs it before ``make test``). ``BOOK_HTML`` may
point the tests at another build folder.
"""

from __future__ import annotations

import atexit
import dataclasses
import fcntl
import functools
import http.server
import json
import os
import re
import shutil
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from _chapters import ROOT
from _helpers import run_folder

from booktools.build.toc import toc_files

HTML = Path(os.environ.get("BOOK_HTML", ROOT / "_build" / "html"))
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
INSTALL = (
    "apt-get install chromium chromium-driver fonts-noto-cjk (Debian/Ubuntu; `make test` "
    "does this when it can)"
)
WIDTHS = (1280, 390)


def require_book() -> Path:
    """The built book, or a failure that says how to get it (never a silent skip)."""
    if not (HTML / "chapters" / "intro.html").is_file():
        pytest.fail(
            f"no built book at {HTML}: run `make book` first (the browser tests read it)",
            pytrace=False,
        )
    return HTML


def new_driver(width: int, height: int = 900) -> Any:
    """Headless Debian Chromium of the given window width, logging the browser console."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not Path(p).is_file()]
    if missing:
        pytest.fail(f"{' and '.join(missing)} not found: {INSTALL}", pytrace=False)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={width},{height}",
        "--hide-scrollbars",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    emulate(driver, width, height)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(60)
    return driver


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass


def serve(directory: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve ``directory`` on 127.0.0.1 (a free port) in a daemon thread; return server, URL."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


#: The two books: the English one at the root of the build, the Korean one under ``ko/``.
LANGUAGES = ("en", "ko")


def pages(language: str = "en") -> list[str]:
    """Every page of the table of contents in the book of ``language``, as paths relative to
    the HTML root (``chapters/intro.html``, ``ko/chapters/intro.html``)."""
    if language not in LANGUAGES:
        raise ValueError(f"language: expected one of {LANGUAGES}, got {language!r}")
    prefix = "" if language == "en" else f"{language}/"
    return [f"{prefix}{name}.html" for name in toc_files()]


def language_of(page: str) -> str:
    """The book a page path of :func:`pages` belongs to."""
    first = page.split("/", 1)[0]
    return first if first in LANGUAGES[1:] else "en"


def page_id(page: str, *rest: object) -> str:
    """A short test id: ``08_attention-1280``, ``ko-08_attention-1280`` for the Korean page."""
    name = page.rsplit("/", 1)[-1][:-5]
    lang = language_of(page)
    return "-".join(([lang] if lang != "en" else []) + [name] + [str(r) for r in rest])


# In the page: resolves once the page's debounced handlers have run, that is after ``ms`` with
# no resize and no element added or removed (every change restarts the wait): the theme updates
# the tab stops of scrolling boxes 300 ms after either (pydata-sphinx-theme's
# addTabStopsToScrollableElements, which axe checks), the book fits display math and marks wide
# tables 200 ms after a resize (formulated-live.js).  A timer set after theirs, with the
# longest of their delays, runs after them.  ``cap`` ms at most, should a page never settle.
SETTLE_JS = r"""
const settle = (ms, cap) => new Promise((resolve) => {
  let timer = null;
  const again = () => { clearTimeout(timer); timer = setTimeout(done, ms); };
  const observer = new MutationObserver(again);
  const limit = setTimeout(done, cap);
  function done() {
    observer.disconnect();
    removeEventListener("resize", again);
    clearTimeout(timer);
    clearTimeout(limit);
    resolve();
  }
  observer.observe(document.body, {childList: true, subtree: true});
  addEventListener("resize", again);
  again();
});
"""
#: The longest delay of the page's handlers of a resize or a change of the page (SETTLE_JS).
SETTLE_MS = 300

# The page as a reader gets it, in the page: waits until it is loaded, typeset (MathJax, after
# the fonts, as the book's fitting of display math does) and its widget snapshots are drawn
# (all of them, at once), then for the page's handlers of those changes (SETTLE_JS); returns
# the page's weight as opened.
LOAD_JS = (
    SETTLE_JS
    + r"""
const [quiet, done] = [arguments[0], arguments[arguments.length - 1]];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
(async () => {
  for (let i = 0; i < 100 && document.readyState !== "complete"; i++) await sleep(100);
  if (document.fonts) await document.fonts.ready;
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  if (document.fonts) await document.fonts.ready;  // and those of the typeset math
  // What a reader's browser loaded for the page as opened (before scrolling to any widget).
  const entries = () => [...performance.getEntriesByType("navigation"),
                         ...performance.getEntriesByType("resource")];
  const initial = entries();
  const weight = {bytes: initial.reduce((s, e) => s + (e.decodedBodySize || 0), 0),
                  requests: initial.length,
                  widgetRuntime: initial.some((e) => /embed-amd\.js/.test(e.name)),
                  largest: initial.map((e) => [e.name.replace(location.origin, ""),
                                               e.decodedBodySize || 0])
                                  .sort((a, b) => b[1] - a[1]).slice(0, 6)};
  const views = () => [...document.querySelectorAll(
    'script[type="application/vnd.jupyter.widget-view+json"]')];
  const rendered = (s) => s.parentElement.querySelector(".widget-subarea *, .jupyter-widgets");
  // The runtime loads when a widget nears the screen; here all of them are wanted at once.
  if (views().length && window.formulatedLoadWidgets) window.formulatedLoadWidgets();
  for (let i = 0; i < 150 && !views().every(rendered); i++) await sleep(100);
  await settle(quiet, 10 * quiet);
  weight.allBytes = entries().reduce((s, e) => s + (e.decodedBodySize || 0), 0);
  return {weight: weight};
})().then(done, (e) => done({error: String(e)}));
"""
)

# The measurement, in the page as it is now (after LOAD_JS, at any width): what the tests of
# tests/test_browser.py read.
MEASURE_JS = r"""
const views = () => [...document.querySelectorAll(
  'script[type="application/vnd.jupyter.widget-view+json"]')];
const rendered = (s) => s.parentElement.querySelector(".widget-subarea *, .jupyter-widgets");
// A widget output a reader can operate (a slider, a list, a box, a button), which needs the
// "static snapshot" note, and one that is complete as drawn (a progress bar), which does not.
const controlled = views().filter((s) => s.parentElement.querySelector(
  ".widget-subarea :is(input, select, textarea, button, [role=slider])")).length;
const box = (el) => el.getBoundingClientRect();
const scrolls = (el) => ["auto", "scroll"].includes(getComputedStyle(el).overflowX);
const label = (el) => (el.closest("section[id]") || {}).id || "";
const report = {innerWidth: window.innerWidth, lang: document.documentElement.lang,
  shrunk: document.querySelectorAll('mjx-container[data-formulated-fit]').length,
  pageWidth: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth),
  math: [], tables: [], widgets: [], notes: document.querySelectorAll(
    ".formulated-static-note").length, views: views().length, controlled: controlled,
  noteTexts: [...new Set([...document.querySelectorAll(".formulated-static-note")]
    .map((n) => n.textContent.trim()))],
  unrendered: views().filter((s) => !rendered(s)).length};
// Content cut off at the right edge of the article (the theme clips it instead of scrolling
// the page): anything wider than the article that no scrolling box around it contains.
const article = document.querySelector("article") || document.body;
const edge = Math.min(box(article).right, window.innerWidth) + 1;
report.sticking = [];
for (const el of article.querySelectorAll("*")) {
  const r = box(el);
  if (r.width === 0 || r.right <= edge) continue;
  const style = getComputedStyle(el);  // e.g. a heading's permalink, shown on hover only
  if (style.visibility === "hidden" || style.opacity === "0") continue;
  let contained = false;
  for (let a = el.parentElement; a && a !== article; a = a.parentElement) {
    if (scrolls(a) || getComputedStyle(a).overflowX === "hidden") { contained = true; break; }
  }
  if (contained || scrolls(el)) continue;
  report.sticking.push({tag: el.tagName.toLowerCase(), cls: String(el.className).slice(0, 60),
    right: Math.round(r.right), text: el.textContent.trim().slice(0, 60), section: label(el)});
  if (report.sticking.length >= 10) break;
}
for (const c of document.querySelectorAll('mjx-container[display="true"]')) {
  const inner = c.querySelector("mjx-math") || c;
  const need = box(inner).width, have = c.clientWidth;
  if (need <= have + 1) continue;
  let scroller = null;
  for (let el = c; el && el !== document.body; el = el.parentElement) {
    if (scrolls(el) && el.scrollWidth > el.clientWidth) { scroller = el; break; }
  }
  report.math.push({need: Math.round(need), have: have, scrolls: !!scroller,
    section: label(c), tex: (c.getAttribute("aria-label") || c.textContent).slice(0, 80)});
}
for (const t of document.querySelectorAll("article table")) {
  const parent = t.parentElement;
  const need = box(t).width, have = parent.clientWidth;
  if (need <= have + 1) continue;
  const style = getComputedStyle(parent);
  // It shows that it scrolls: a visible hint before the box, and the box is a named region
  // that takes the keyboard's focus (arrow keys then scroll it).
  const hint = parent.previousElementSibling;
  report.tables.push({need: Math.round(need), have: have, scrolls: scrolls(parent),
    bordered: parseFloat(style.borderLeftWidth) > 0 && style.borderLeftStyle !== "none",
    hinted: !!hint && hint.classList.contains("formulated-scroll-hint") &&
      hint.offsetWidth > 0 && !!hint.textContent.trim(),
    hint: hint && hint.classList.contains("formulated-scroll-hint") ? hint.textContent : "",
    label: parent.getAttribute("aria-label") || "",
    keyboard: parent.tabIndex === 0 && parent.getAttribute("role") === "region" &&
      !!(parent.getAttribute("aria-label") || "").trim(),
    section: label(t)});
}
// Headings (with their permalink "#", hidden until hover but still taking room) that reach
// past the right edge of the window: the page then scrolls sideways on a phone.
report.headings = [];
for (const h of article.querySelectorAll("h1, h2, h3, h4")) {
  const right = Math.max(box(h).right, ...[...h.querySelectorAll("*")].map((c) => box(c).right));
  if (right > window.innerWidth + 1 || h.scrollWidth > h.clientWidth + 1) {
    report.headings.push({text: h.textContent.trim().slice(0, 60), right: Math.round(right),
                          section: label(h)});
  }
}
const controls = ".widget-slider, .widget-dropdown, .widget-text, .widget-textarea, " +
  ".widget-checkbox, .widget-toggle-buttons, .widget-radio, .widget-select, " +
  ".widget-hslider, .widget-vslider, .widget-inline-hbox.widget-play";
for (const w of document.querySelectorAll(controls)) {
  if (w.parentElement.closest(controls)) continue;
  // The description: a label before the control, or (checkbox) the text after the box.
  const lab = [...w.querySelectorAll(":scope > .widget-label, :scope > .widget-label-basic")]
    .find((l) => l.offsetWidth > 0 && l.textContent.replace("\u200b", "").trim());
  const text = lab ? lab.textContent.trim() : (w.getAttribute("aria-label") || "");
  const hidden = !lab;
  report.widgets.push({cls: w.className, text: text, hidden: hidden,
    truncated: lab ? lab.scrollWidth > lab.clientWidth + 1 : false, section: label(w)});
}
// Code and printed output that the reader must scroll sideways to read (88 columns,
// tests/test_columns.py; a Korean line is wider than its characters).
report.scrollingPre = [];
for (const pre of article.querySelectorAll("div.cell pre")) {
  if (pre.offsetWidth === 0 || pre.scrollWidth <= pre.clientWidth + 1) continue;
  const lines = pre.textContent.split("\n");
  report.scrollingPre.push({need: pre.scrollWidth, have: pre.clientWidth, section: label(pre),
    output: !!pre.closest(".cell_output"),
    line: lines.reduce((a, b) => (b.length > a.length ? b : a), "").slice(0, 100)});
}
// Inline code that wraps: the text on each side of every line break that falls inside a word
// (no blank between the last character of one line and the first of the next), e.g.
// ["formulated.formulas.attenti", "on"] for a name broken in the middle of a word.
report.codeBreaks = [];
for (const code of article.querySelectorAll("code.literal")) {
  if (code.getClientRects().length < 2) continue;
  const chars = [];  // [character, top of its box or null for a blank at a line end]
  const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    for (let i = 0; i < n.data.length; i++) {
      const r = document.createRange();
      r.setStart(n, i);
      r.setEnd(n, i + 1);
      const rect = r.getBoundingClientRect();
      chars.push([n.data[i], rect.width > 0 ? rect.top : null]);
    }
  }
  const text = chars.map((c) => c[0]).join("");
  let last = null, blank = false;
  chars.forEach(([ch, top], i) => {
    if (!ch.trim() || top === null) { blank = true; return; }
    if (last !== null && top > last + 2 && !blank) {
      report.codeBreaks.push({before: text.slice(0, i), after: text.slice(i),
                              table: !!code.closest("table"), section: label(code)});
    }
    last = top;
    blank = false;
  });
}
return report;
"""


@dataclass
class PageReport:
    """What one page looks like at one width and color mode (and, from :func:`audit`, what axe
    and a screen reader find on it).  ``resized``: measured in a page loaded at 1280 px and then
    narrowed (:func:`resize`), not in one loaded at this width."""

    page: str
    width: int
    data: dict[str, Any]
    console: list[str] = field(default_factory=list)
    violations: list[dict[str, Any]] = field(default_factory=list)
    content: dict[str, Any] = field(default_factory=dict)
    mode: str = "light"
    resized: bool = False
    #: The rules axe audited (a key of AXE_RULE_SETS; "" where it did not run).
    rules: str = ""


def console_errors(driver: Any) -> list[str]:
    """The SEVERE entries of the browser log since the last call (which emptied it)."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def measure(driver: Any, url: str, page: str, width: int) -> PageReport:
    """Load ``url``, wait for it (:data:`LOAD_JS`) and measure it (:data:`MEASURE_JS`), with
    the console errors of the load."""
    console_errors(driver)  # drop what an earlier page left
    driver.get(url)
    loaded = driver.execute_async_script(LOAD_JS, SETTLE_MS)
    assert "error" not in loaded, f"{page}: {loaded['error']}"
    data = {**driver.execute_script(MEASURE_JS), **loaded}
    return PageReport(page, width, data, console_errors(driver))


def remeasure(driver: Any, report: PageReport, width: int) -> PageReport:
    """``report``'s page measured again as it is now, after :func:`resize` to ``width`` (its
    weight as opened is the load's), with the console errors since ``report``."""
    data = {**report.data, **driver.execute_script(MEASURE_JS)}
    console = report.console + console_errors(driver)
    return dataclasses.replace(
        report, width=width, data=data, console=console, resized=True
    )


# ---- the page in another width or color mode, in place -----------------------------------------


def emulate(driver: Any, width: int, height: int = 900) -> None:
    """A viewport of ``width`` in ``driver``: a window is at least 500 px wide, so a phone's
    width is emulated, as a mobile viewport (the page's ``<meta name=viewport>`` applies)."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {
            "width": width,
            "height": height,
            "deviceScaleFactor": 1,
            "mobile": width < 600,
        },
    )


# Notes that the window fired "resize" (before the viewport changes).
WATCH_RESIZE_JS = r"""
window.formulatedResized = false;
addEventListener("resize", () => { window.formulatedResized = true; }, {once: true});
"""

# Waits for the page's handlers of a resize (SETTLE_JS).  Chromium fires "resize" when the
# emulated viewport changes (it did in 2025); were it to stop, the handlers would not run and
# the page would keep its 1280 px fitting, so then the event is fired as a window does.
RESIZED_JS = (
    SETTLE_JS
    + r"""
const [quiet, done] = [arguments[0], arguments[arguments.length - 1]];
const frame = () => new Promise((r) => requestAnimationFrame(r));
(async () => {
  for (let i = 0; i < 10 && !window.formulatedResized; i++) await frame();
  if (!window.formulatedResized) dispatchEvent(new Event("resize"));
  await settle(quiet, 10 * quiet);
})().then(() => done(null), (e) => done({error: String(e)}));
"""
)


def resize(driver: Any, width: int) -> None:
    """The page in ``driver`` narrowed (or widened) to ``width`` in place, as a window resized
    or a phone turned (the viewport of :func:`new_driver`), once the page's handlers of the
    resize have run: the book's fitting of display math and marking of wide tables, the theme's
    tab stops on scrolling boxes."""
    driver.execute_script(WATCH_RESIZE_JS)
    emulate(driver, width)
    result = driver.execute_async_script(RESIZED_JS, SETTLE_MS)
    assert result is None, result


# Switches the color mode with the theme's own button (pydata-sphinx-theme's
# .theme-switch-button: it cycles auto, dark, light, or auto, light, dark where the system is
# dark, so two presses reach any mode) and waits for the theme's color transitions (up to
# .3 s; axe must read the colors they end on).  Returns the mode the page is then in.
MODE_JS = r"""
const [mode, done] = [arguments[0], arguments[arguments.length - 1]];
const html = document.documentElement;
const button = document.querySelector(".theme-switch-button");
for (let i = 0; i < 3 && button && html.dataset.theme !== mode; i++) button.click();
Promise.all(document.getAnimations().filter((a) => a instanceof CSSTransition)
  .map((a) => a.finished.catch(() => null))).then(() => done(html.dataset.theme));
"""


def switch_mode(driver: Any, mode: str) -> str:
    """The page in ``driver`` switched to the color ``mode`` as a reader does (the theme's
    button, which also keeps it for later pages); the mode it is then in."""
    return driver.execute_async_script(MODE_JS, mode)


def reset_view(driver: Any) -> None:
    """``driver``'s next page at 1280 px in light mode, whatever was done to this one: the
    mode kept for the next page (the theme reads ``localStorage`` before it paints), and this
    page left before the viewport widens (or Chromium would lay it out again, for nothing)."""
    driver.execute_script(
        "localStorage.setItem('mode', 'light'); localStorage.setItem('theme', 'light');"
    )
    driver.get("about:blank")
    emulate(driver, WIDTHS[0])


# ---- accessibility (axe-core) and page weight -------------------------------------------------

#: axe-core from its npm package (tests/vendor/VENDOR.md), injected into each page.
AXE_VERSION = "4.14.1"
AXE_JS = Path(__file__).parent / "vendor" / f"axe-core-{AXE_VERSION}" / "axe.min.js"
AXE_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")
MODES = ("light", "dark")


def set_mode(driver: Any, site: str, mode: str) -> None:
    """The theme's color mode for every later page of ``site``: pydata-sphinx-theme reads
    ``localStorage.mode`` before it paints (``data-theme`` on ``<html>``)."""
    driver.get(
        site + "_static/live/favicon.svg"
    )  # any page of the origin, without scripts
    driver.execute_script(
        "localStorage.setItem('mode', arguments[0]);"
        "localStorage.setItem('theme', arguments[0]);",
        mode,
    )


# axe's run of the tags ``arguments[0]``; a second argument narrows it to some of their rules:
# ``{only: [ids]}`` runs those rules alone, ``{skip: [ids]}`` all but those (:func:`axe_violations`).
AXE_RUN_JS = r"""
const done = arguments[arguments.length - 1];
const narrow = arguments.length > 2 ? arguments[1] : {};
const options = {runOnly: {type: "tag", values: arguments[0]}, resultTypes: ["violations"]};
if (narrow.only) options.runOnly = {type: "rule", values: narrow.only};
if (narrow.skip) options.rules = Object.fromEntries(narrow.skip.map((id) => [id, {enabled: false}]));
axe.run(document, options)
  .then((r) => done(r.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({target: n.target.join(" "), html: n.html.slice(0, 160),
                                summary: (n.failureSummary || "").slice(0, 200)}))}))),
        (e) => done({error: String(e)}));
"""

#: axe's rules among :data:`AXE_TAGS` that read the colors of the page: what the dark mode, or
#: the Korean book with the English one's classes, can change (see :func:`axe_rules`).  They
#: are also most of an audit's time: on chapter 8, 1.7 of 2.3 CPU-seconds, on appendix B 4.9
#: of 6 (color-contrast finds the background behind every piece of text).
AXE_COLOR_RULES = ("color-contrast", "link-in-text-block")
#: What :func:`axe_violations` runs: every rule of the tags, the color rules alone, the others.
AXE_RULE_SETS = {
    "all": {},
    "color": {"only": list(AXE_COLOR_RULES)},
    "no-color": {"skip": list(AXE_COLOR_RULES)},
}


def axe_violations(driver: Any, rules: str = "all") -> list[dict[str, Any]]:
    """axe's WCAG 2.1 A/AA violations of the page loaded in ``driver`` (after :func:`measure`),
    of the rules ``rules`` (a key of :data:`AXE_RULE_SETS`)."""
    if not driver.execute_script("return !!window.axe"):
        driver.execute_script(AXE_JS.read_text(encoding="utf-8"))
    result = driver.execute_async_script(
        AXE_RUN_JS, list(AXE_TAGS), AXE_RULE_SETS[rules]
    )
    if isinstance(result, dict):
        raise RuntimeError(f"axe failed: {result['error']}")
    return result


def blocked_urls(driver: Any, patterns: list[str]) -> None:
    """Chromium loads nothing whose URL matches one of ``patterns`` (``*`` a wildcard) in
    ``driver``'s later pages; ``[]`` lifts the block."""
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": patterns})


def http_cache(driver: Any, enabled: bool) -> None:
    """Chromium's HTTP cache on or off for every later page of ``driver``: off, a page loads as
    on a first visit (its weight then counts every resource; cached ones are missing from the
    Resource Timing API)."""
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": not enabled})


# Run in the page after the measurement of tests/_browser.py (widgets rendered): the images a
# reader should be told about, and the widget controls with the name a screen reader announces.
CONTENT_JS = r"""
const article = document.querySelector("article") || document.body;
const text = (id) => ((document.getElementById(id) || {}).textContent || "").trim();
const name = (el) => {
  const labeledby = (el.getAttribute("aria-labeledby") || "").split(/\s+/).filter(Boolean);
  if (labeledby.length) return labeledby.map(text).join(" ").trim();
  if ((el.getAttribute("aria-label") || "").trim()) return el.getAttribute("aria-label").trim();
  if (el.id) {
    const label = document.querySelector(`label[for="${CSS.escape(el.id)}"]`);
    if (label && label.textContent.trim()) return label.textContent.trim();
  }
  const wrapping = el.closest("label");
  if (wrapping && wrapping.textContent.trim()) return wrapping.textContent.trim();
  if (el.tagName === "BUTTON" && el.textContent.trim()) return el.textContent.trim();
  return (el.getAttribute("title") || "").trim();
};
const section = (el) => (el.closest("section[id]") || {}).id || "";
return {
  images: [...article.querySelectorAll("img")]
    .filter((img) => img.getAttribute("role") !== "presentation" &&
                     img.getAttribute("aria-hidden") !== "true")
    .map((img) => ({alt: img.getAttribute("alt"), src: (img.getAttribute("src") || "").slice(0, 80),
                    widget: !!img.closest(".jupyter-widgets, .widget-subarea"),
                    background: getComputedStyle(img).backgroundColor,
                    section: section(img)})),
  controls: [...article.querySelectorAll(
      ".jupyter-widgets input, .jupyter-widgets select, .jupyter-widgets textarea, " +
      ".jupyter-widgets button, .jupyter-widgets [role=slider]")]
    .filter((el) => el.type !== "hidden" && el.getClientRects().length > 0)
    .map((el) => ({tag: el.tagName.toLowerCase(), role: el.getAttribute("role") || el.type || "",
                   name: name(el), section: section(el)})),
  math: document.querySelectorAll("mjx-container").length,
  // Elements the theme shows in one color mode only (an image drawn for a dark page and its
  // light twin): none, or the dark mode has a DOM of its own to audit (_browser.axe_rules).
  swapped: document.querySelectorAll(".only-light, .only-dark").length,
  assistiveMath: document.querySelectorAll("mjx-container mjx-assistive-mml math").length,
};
"""


# ---- one load per page, shared by the test modules of a process --------------------------------


class _Browsers:
    """The built book served over http on 127.0.0.1 (as readers get it, not file://) and one
    Chromium per width, for the whole test process; closed when it ends."""

    def __init__(self) -> None:
        self.httpd, self.url = serve(require_book())
        self.drivers: dict[int, Any] = {}
        self.cache: dict[str, list[PageReport]] = {}
        atexit.register(self.close)

    def driver(self, width: int = WIDTHS[0]) -> Any:
        """The Chromium of ``width``, in light mode, every page as on a first visit (its full
        weight); a page narrowed or switched to dark mode in it is put back (:func:`reset_view`)."""
        if width not in self.drivers:
            driver = new_driver(width)
            http_cache(driver, enabled=False)
            set_mode(driver, self.url, "light")
            self.drivers[width] = driver
        return self.drivers[width]

    def close(self) -> None:
        for driver in self.drivers.values():
            driver.quit()
        self.drivers.clear()
        self.httpd.shutdown()
        self.httpd.server_close()


@functools.cache
def browsers() -> _Browsers:
    """The process's :class:`_Browsers` (started on first use)."""
    return _Browsers()


#: The color modes each book is seen in: the Korean book in light mode only (its pages have
#: the same theme, figures and widgets as the English ones; dark mode would double its time).
BOOK_MODES = {"en": MODES, "ko": ("light",)}

#: The pages axe audits at 390 px, in both books: chapter 8 (display math, code and its printed
#: output, a widget, figures, a quiz, exercises) and appendix B (the widest tables).  Every page
#: is audited at 1280 px and measured at 390 px.  At 390 px axe reads the same elements as at
#: 1280 px; what the width changes is the phone's frame (its header and drawer, the same on
#: every page) and which boxes scroll sideways, which must then take the keyboard's focus (the
#: theme adds their tab stops): these two pages have the most such boxes (code, outputs and
#: display math; tables).  The intro and chapter 18 were audited at 390 px too: their elements
#: that these two lack (the intro's table of contents and shell and BibTeX blocks, chapter
#: 18's progress bar, captioned figure and note) are audited at 1280 px.  Dropping them saved
#: six audits at 390 px and the color rules on their Korean pages at 1280 px (the Korean
#: pages' rule, :func:`axe_rules`), about 22 CPU-seconds.  axe on every page at 390 px took a
#: tenth of make test.
PHONE_AUDIT_NAMES = ("08_attention", "appendix_b_errata")
#: The pages also loaded fresh at 390 px (:func:`fresh_phone_report`), as a phone opens them,
#: to show that narrowing a page in place, as the tests do, sees what a phone's load does: the
#: handlers that fit display math, mark wide tables and add tab stops run at a load and at a
#: resize.  They are the book's scripts, the same on every page of both books; these two pages
#: give them the most to do: chapter 8 (display math, a widget, figures, a quiz) in English,
#: appendix B (the widest tables) in Korean.  The eight pages then audited at 390 px were loaded
#: fresh, and agreed in every run before this choice; each fresh load cost 2-3 CPU-seconds.
FRESH_PHONE_PAGES = ("chapters/08_attention.html", "ko/chapters/appendix_b_errata.html")


def audited_by_axe(page: str, width: int) -> bool:
    """Whether :func:`audit` runs axe on ``page`` at ``width`` in light mode (see
    :data:`PHONE_AUDIT_NAMES`)."""
    name = page.rsplit("/", 1)[-1].removesuffix(".html")
    return width == WIDTHS[0] or name in PHONE_AUDIT_NAMES


# The class names and inline styles of a built page, also those in its widgets' saved state
# (escaped quotes): what its colors come from, given the book's CSS.
_STYLED = re.compile(r'\b(class|style)=\\?"([^"\\]*)')


def styling(page: str) -> frozenset[str]:
    """The class names and inline styles that ``page`` (a path of :func:`pages`) has."""
    return styles_in(HTML / page)


def styles_in(path: Path) -> frozenset[str]:
    """The class names and inline styles of the HTML file ``path`` (as ``class:name`` and
    ``style:text``)."""
    html = path.read_text(encoding="utf-8")
    found = set()
    for kind, value in _STYLED.findall(html):
        found |= {
            f"{kind}:{v}" for v in (value.split() if kind == "class" else [value])
        }
    return frozenset(found)


@functools.cache
def dark_audit_pages() -> tuple[str, ...]:
    """The English pages axe's color rules audit in dark mode at 1280 px: the pages of
    :data:`PHONE_AUDIT_NAMES`, then, one at a time, the page with the most class names and
    inline styles that the chosen ones lack, until they have every one the book has.

    The dark mode changes the theme's colors, not the page: the same elements, shown or hidden
    alike (the theme swaps none of this book's images: ``swapped``, tests/test_a11y.py), so
    axe's other rules find in dark mode what they find in light mode, where every page is
    audited by all of them.  What the colors of an element are, in either mode, follows from
    the book's CSS and the element's classes (and inline style): an element whose colors fail
    in dark mode fails on every page that has its classes, so the chosen pages, which together
    have them all, show it.  Each audit in dark mode took 2-7 CPU-seconds; 26 pages were 100."""
    english = pages("en")
    chosen = [p for p in english if audited_by_axe(p, WIDTHS[1])]
    have = set().union(*(styling(p) for p in chosen))
    rest = {p: styling(p) for p in english if p not in chosen}
    while rest:
        page = max(rest, key=lambda p: len(rest[p] - have))
        if not rest[page] - have:
            break
        chosen.append(page)
        have |= rest.pop(page)
    return tuple(p for p in english if p in chosen)


def axe_rules(page: str, width: int, mode: str) -> str | None:
    """What axe audits of ``page`` at ``width`` in color ``mode`` (a key of
    :data:`AXE_RULE_SETS`), or ``None`` where it does not run:

    * every rule at 1280 px in light mode on every page of the English book, and at 390 px on
      those of :data:`PHONE_AUDIT_NAMES` (in both books);
    * in dark mode (the English book) the color rules only, at 1280 px on the pages of
      :func:`dark_audit_pages`, at 390 px on those of :data:`PHONE_AUDIT_NAMES`;
    * on the Korean pages at 1280 px every rule but the color rules, except on those of
      :data:`PHONE_AUDIT_NAMES` (every rule): a Korean page has the same classes and styles as
      the English one (tests/test_a11y.py checks it), so the same colors, which the English
      page's audit checks; what differs is its text: its language, titles, names, alt texts,
      headings, which the other rules read.  The color rules were two thirds of an audit."""
    phone = audited_by_axe(page, WIDTHS[1])
    if width != WIDTHS[0] and not phone:
        return None
    if mode == "dark":
        return "color" if width != WIDTHS[0] or page in dark_audit_pages() else None
    if language_of(page) != "en" and width == WIDTHS[0] and not phone:
        return "no-color"
    return "all"


def audit(page: str, width: int, mode: str = "light") -> PageReport:
    """``page`` (a path of :func:`pages`) at ``width`` in color ``mode``: :func:`measure`'s
    report, axe's violations (:func:`axe_violations`, where :func:`audited_by_axe`) and the
    page's images and widget controls (:data:`CONTENT_JS`).  All of them come from one load of
    the page (:func:`page_reports`)."""
    if mode not in MODES:
        raise ValueError(f"mode: expected one of {MODES}, got {mode!r}")
    wanted = (width, mode, width != WIDTHS[0])  # at 390 px: narrowed in place
    for report in page_reports(page):
        if (report.width, report.mode, report.resized) == wanted:
            return report
    raise ValueError(f"{page}: no report at {width} px in {mode} mode (BOOK_MODES)")


def fresh_phone_report(page: str) -> PageReport:
    """``page`` (of :data:`FRESH_PHONE_PAGES`) loaded at 390 px and measured, as a phone opens
    it: what :func:`audit`'s page narrowed to 390 px must agree with."""
    for report in page_reports(page):
        if report.width == WIDTHS[1] and not report.resized:
            return report
    raise ValueError(
        f"{page} is not loaded fresh at {WIDTHS[1]} px (FRESH_PHONE_PAGES)"
    )


def page_reports(page: str) -> list[PageReport]:
    """Every report of ``page`` in this test run, from one load (:func:`_load`).  Under
    pytest-xdist, the worker that wants a page first keeps its reports in the run's folder,
    where the others read them (:func:`_shared`)."""
    b = browsers()
    if page not in b.cache:
        folder = run_folder()
        if folder is None:
            b.cache[page] = _load(b, page)
        else:
            kept = _shared(b, folder / "pages", page)
            b.cache[page] = [PageReport(**r) for r in json.loads(kept.read_text())]
    return b.cache[page]


#: The pages the collected tests ask :func:`audit` for, in their order (:func:`expect`), and
#: those that failed to load in :func:`_prefetch` (not tried again there).
_expected: list[str] = []
_failed: set[str] = set()


def expect(items: list[pytest.Item]) -> None:
    """Note the pages (the ``page`` parameter) of the collected tests ``items``: what a worker
    loads while another loads the page it wants (:func:`_shared`)."""
    params = (getattr(item, "callspec", None) for item in items)
    found = [c.params["page"] for c in params if c and "page" in c.params]
    _expected[:] = dict.fromkeys(_expected + found)


def _shared(b: _Browsers, folder: Path, page: str) -> Path:
    """The file of ``page``'s reports in ``folder``, loaded by this worker unless another did.
    While another loads it, this one loads an expected page that no worker has begun, rather
    than wait: a worker that only waited would then want the same next page as the other, and
    the two would go on loading by turns, one at a time."""
    folder.mkdir(parents=True, exist_ok=True)
    while not _keep(b, folder, page, wait=False):
        if not any(_prefetch(b, folder, p) for p in _expected if p != page):
            _keep(b, folder, page, wait=True)
            break
    return _kept(folder, page)


def _prefetch(b: _Browsers, folder: Path, page: str) -> bool:
    """Whether this worker loaded ``page`` now (no worker had begun it)."""
    if page in _failed or _kept(folder, page).is_file():
        return False
    try:
        return _keep(b, folder, page, wait=False)
    except Exception:  # noqa: BLE001 - the test that wants the page loads it again and says why
        _failed.add(page)
        return True


def _kept(folder: Path, page: str) -> Path:
    return folder / f"{page.replace('/', '~')}.json"


def _keep(b: _Browsers, folder: Path, page: str, wait: bool) -> bool:
    """Whether ``page``'s reports are kept in ``folder`` now, loaded unless they were; without
    ``wait``, False at once while another worker loads the page."""
    kept = _kept(folder, page)
    lock_file = kept.with_suffix(".lock")
    with open(lock_file, "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            return False
        if not kept.is_file():
            reports = [dataclasses.asdict(r) for r in _load(b, page)]
            kept.write_text(json.dumps(reports))
    return True


def _load(b: _Browsers, page: str) -> list[PageReport]:
    """``page`` loaded once at 1280 px in light mode and seen in every width and mode of its
    book in that page (:func:`_views`); a page of :data:`FRESH_PHONE_PAGES` also loaded fresh
    at 390 px, in the same Chromium (a second one per worker took a CPU-second to start, and
    more to keep)."""
    driver = b.driver()
    try:
        reports = _views(driver, measure(driver, b.url + page, page, WIDTHS[0]))
        if page in FRESH_PHONE_PAGES:
            reset_view(driver)
            emulate(driver, WIDTHS[1])  # before the page: it opens at 390 px
            reports.append(measure(driver, b.url + page, page, WIDTHS[1]))
    finally:
        reset_view(driver)
    return reports


def _views(driver: Any, desktop: PageReport) -> list[PageReport]:
    """In the order that switches the mode least: 1280 px light, dark; narrowed to 390 px:
    dark (where axe audits it; nothing else reads the phone in dark mode), light.  At 1280 px
    the dark view shares the light one's measurement: the mode changes colors, not layout."""
    page = desktop.page
    dark = "dark" in BOOK_MODES[language_of(page)]
    reports = [_seen(driver, desktop, "light")]
    if dark:
        switch_mode(driver, "dark")
        reports.append(_seen(driver, reports[-1], "dark"))
    resize(driver, WIDTHS[1])
    if dark and axe_rules(page, WIDTHS[1], "dark"):
        phone = remeasure(driver, reports[-1], WIDTHS[1])
        reports.append(_seen(driver, phone, "dark"))
    if dark:
        switch_mode(driver, "light")
    phone = remeasure(driver, reports[-1], WIDTHS[1])
    reports.append(_seen(driver, phone, "light"))
    return reports


def _seen(driver: Any, report: PageReport, mode: str) -> PageReport:
    """``report`` in the color ``mode`` the page is now in: axe's violations (of the rules of
    :func:`axe_rules`), the images and controls, the console errors so far."""
    theme = driver.execute_script("return document.documentElement.dataset.theme")
    assert theme == mode, f"{report.page}: the theme is in {theme!r} mode, not {mode!r}"
    rules = axe_rules(report.page, report.width, mode)
    return dataclasses.replace(
        report,
        mode=mode,
        rules=rules or "",
        violations=axe_violations(driver, rules) if rules else [],
        content=driver.execute_script(CONTENT_JS),
        console=report.console + console_errors(driver),
    )
