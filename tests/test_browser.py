"""The rendered book in Debian's headless Chromium, at 1280 px and at 390 px.

For every page of the table of contents, in English and in Korean (``ko/``): no
clipped display math, no table or page overflow, no console errors or failed requests, every
widget labeled, a note on every static widget, inline code wrapped at its separators only, at
1280 px no printed output to scroll sideways; the words the page's script writes (the static
note, the wide-table hint) in the page's language.
And once: ``make live``'s servers (:class:`booktools.lab.live.LiveBook`), live code on
chapter 11, the GELU slider moved, the plot redrawn.

Every page is loaded once, at 1280 px, and narrowed to 390 px in the same page, as a phone
turned or a window narrowed (``_browser.audit``; tests/test_a11y.py reads the same load).  The
pages of ``_browser.FRESH_PHONE_PAGES`` are also loaded fresh at 390 px, and
:func:`test_a_page_narrowed_in_place_looks_as_one_loaded_at_390px` checks that both agree.

Needs the built book (``make book`` first; CI runs it before ``make test``) and
``apt-get install chromium chromium-driver``; a missing one fails with that message.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from _browser import (
    FRESH_PHONE_PAGES,
    LANGUAGES,
    WIDTHS,
    PageReport,
    audit,
    browsers,
    expect,
    fresh_phone_report,
    language_of,
    new_driver,
    page_id,
    pages,
    require_book,
)

pytestmark = pytest.mark.browser  # Chromium: make check leaves it out

PAGES = [page for language in LANGUAGES for page in pages(language)]


@pytest.fixture(scope="module")
def site() -> str:
    """The built book over http on 127.0.0.1 (as readers get it, not file://)."""
    return browsers().url


@pytest.fixture(scope="module")
def reports(request: pytest.FixtureRequest) -> Any:
    """Each page measured at each width in light mode (at 1280 px as loaded, at 390 px narrowed
    in place; tests/test_a11y.py's axe audit comes from the same load), lazily; the tests below
    read the same report."""
    expect(request.session.items)

    def get(page: str, width: int) -> PageReport:
        return audit(page, width, "light")

    return get


CASES = [
    pytest.param(page, width, id=page_id(page, width))
    for width in WIDTHS
    for page in PAGES
]


@pytest.mark.parametrize(("page", "width"), CASES)
def test_no_console_errors_or_failed_requests(
    reports: Any, page: str, width: int
) -> None:
    report = reports(page, width)
    assert report.console == [], f"{page} at {width}px: console errors\n" + "\n".join(
        report.console
    )


@pytest.mark.parametrize(("page", "width"), CASES)
def test_page_does_not_scroll_sideways(reports: Any, page: str, width: int) -> None:
    data = reports(page, width).data
    # A phone's layout viewport grows to the widest content, so the width asked for is the bound.
    assert data["pageWidth"] <= min(width, data["innerWidth"]), (
        f"{page} at {width}px is {data['pageWidth']}px wide in a {width}px window"
    )
    assert data["headings"] == [], (
        f"{page} at {width}px: headings past the edge\n"
        + "\n".join(
            f"  §{h['section']}: {h['text']!r} to x={h['right']}"
            for h in data["headings"]
        )
    )
    assert data["sticking"] == [], (
        f"{page} at {width}px: cut off at the right edge\n"
        + "\n".join(
            f"  §{e['section']}: <{e['tag']} class={e['cls']!r}> to x={e['right']}: {e['text']!r}"
            for e in data["sticking"]
        )
    )


@pytest.mark.parametrize(("page", "width"), CASES)
def test_display_math_not_clipped(reports: Any, page: str, width: int) -> None:
    """At 1280 px every display equation fits its box; on a phone it may scroll inside it."""
    data = reports(page, width).data
    bad = [m for m in data["math"] if width >= 1000 or not m["scrolls"]]
    if width >= 1000:  # on a desktop nothing needs the phone's smaller size
        assert data["shrunk"] == 0, (
            f"{page} at {width}px: {data['shrunk']} equation(s) shrunk"
        )
    assert bad == [], (
        f"{page} at {width}px: display math wider than its box\n"
        + "\n".join(
            f"  §{m['section']}: needs {m['need']}px, has {m['have']}px (scrolls: {m['scrolls']}): "
            f"{m['tex']}"
            for m in bad
        )
    )


@pytest.mark.parametrize(("page", "width"), CASES)
def test_tables_fit_or_scroll_in_a_bounded_box(
    reports: Any, page: str, width: int
) -> None:
    """A table wider than its column scrolls in a bordered box that says so (a visible hint)
    and that the keyboard can scroll (a focusable, named region)."""
    keys = ("scrolls", "bordered", "hinted", "keyboard")
    bad = [
        t for t in reports(page, width).data["tables"] if not all(t[k] for k in keys)
    ]
    assert bad == [], (
        f"{page} at {width}px: tables wider than the column\n"
        + "\n".join(
            f"  §{t['section']}: {t['need']}px in {t['have']}px ("
            + ", ".join(f"{k}: {t[k]}" for k in keys)
            + ")"
            for t in bad
        )
    )


@pytest.mark.parametrize(("page", "width"), CASES)
def test_every_widget_rendered_labeled_and_noted(
    reports: Any, page: str, width: int
) -> None:
    data = reports(page, width).data
    assert data["unrendered"] == 0, (
        f"{page}: {data['unrendered']} widget(s) did not render"
    )
    bad = [w for w in data["widgets"] if not w["text"] or w["hidden"] or w["truncated"]]
    assert bad == [], (
        f"{page} at {width}px: widgets without a readable label\n"
        + "\n".join(
            f"  §{w['section']}: {w['cls'].split()[-1]} label {w['text']!r} "
            f"(hidden: {w['hidden']}, truncated: {w['truncated']})"
            for w in bad
        )
    )
    # One note per widget output with controls (a static snapshot, and the ways to make it
    # live); none on an output that is complete as drawn (chapter 18's progress bar).
    assert data["notes"] == data["controlled"], (
        f"{page}: {data['controlled']} widget snapshot(s) with controls "
        f"(of {data['views']}) but {data['notes']} static note(s)"
    )


@pytest.mark.parametrize(("page", "width"), CASES)
def test_printed_output_does_not_scroll_sideways_on_a_laptop(
    reports: Any, page: str, width: int
) -> None:
    """At 1280 px every printed output shows whole: 88 columns fit (tests/test_columns.py), and
    a Korean line, whose Hangul is wider than a Latin letter, must fit in its box too."""
    if width < 1000:
        pytest.skip("on a phone an output box scrolls sideways")
    bad = [b for b in reports(page, width).data["scrollingPre"] if b["output"]]
    assert bad == [], f"{page} at {width}px: output to scroll sideways\n" + "\n".join(
        f"  §{b['section']}: {b['need']}px in {b['have']}px: {b['line']!r}" for b in bad
    )


#: What the page's script (formulated-live.js) writes, in each language: the wide-table hint,
#: the wide table's accessible name, the start of the note on a static widget.
SCRIPT_WORDS = {
    "en": (
        "Wide table: scroll sideways \u2192",
        "wide table, scrolls sideways",
        "Static snapshot (the controls do not recompute).",
    ),
    "ko": (
        "넓은 표: 옆으로 스크롤 \u2192",
        "넓은 표, 옆으로 스크롤됨",
        "멈춘 스냅숏(컨트롤을 움직여도 다시 계산하지 않음).",
    ),
}


@pytest.mark.parametrize(("page", "width"), CASES)
def test_page_script_writes_in_the_page_language(
    reports: Any, page: str, width: int
) -> None:
    """``<html lang>`` names the book's language, and the hint over a wide table, the table's
    name and the note under a static widget are in it (formulated-live.js reads the lang)."""
    data = reports(page, width).data
    language = language_of(page)
    hint, name, note = SCRIPT_WORDS[language]
    assert data["lang"] == language, f"{page}: <html lang={data['lang']!r}>"
    wrong = [
        f"hint {t['hint']!r}, name {t['label']!r}"
        for t in data["tables"]
        if t["hint"] != hint or not t["label"].endswith(name)
    ]
    wrong += [f"note {n[:70]!r}" for n in data["noteTexts"] if not n.startswith(note)]
    assert wrong == [], f"{page} at {width}px: not in {language!r}\n" + "\n".join(wrong)


def test_script_words_are_the_page_script_s(site: str) -> None:
    """The expected words above are what formulated-live.js writes: its tr() on an English and
    on a Korean page (guards the test above against a stale copy of the texts)."""
    driver = browsers().driver()  # the worker's Chromium
    for language in LANGUAGES:
        driver.get(site + pages(language)[0])
        hint, name, _ = SCRIPT_WORDS[language]
        got = driver.execute_script(
            "return [formulatedTr('Wide table: scroll sideways \u2192'),"
            " formulatedTr('wide table, scrolls sideways'),"
            " formulatedTr('Running cell {0} of {1} ({2})\u2026', [3, 7, 'Binder'])]"
        )
        running = {
            "en": "Running cell 3 of 7 (Binder)\u2026",
            "ko": "셀 3/7 실행 중 (Binder)\u2026",
        }[language]
        assert got == [hint, name, running], (language, got)


#: Where inline code may break inside a word: after a separator that has a <wbr>
#: (booktools.sphinx.html.break_long_code) or where the line-breaking rules allow one; after
#: a keyword argument's "=" (``figsize=|(width, height)``: Chromium breaks there when the call
#: starts a line of a narrow column, as in appendix E's Korean table at 390 px).
BREAKS_AFTER = tuple("._/:-)=")


@pytest.mark.parametrize(("page", "width"), CASES)
def test_inline_code_wraps_at_separators_not_inside_words(
    reports: Any, page: str, width: int
) -> None:
    """``formulated.formulas.attention`` wraps after a dot, not as ``attenti|on``; in a table,
    a column is not squeezed to a few letters per line (the table scrolls instead)."""
    breaks = reports(page, width).data["codeBreaks"]
    bad = [b for b in breaks if not b["before"].endswith(BREAKS_AFTER)]
    assert bad == [], (
        f"{page} at {width}px: inline code broken inside a word\n"
        + "\n".join(
            f"  §{b['section']}{' (table)' if b['table'] else ''}: "
            f"...{b['before'][-30:]} | {b['after'][:30]}..."
            for b in bad[:10]
        )
    )


#: What the tests above read of a page at 390 px: counts, and findings (display math wider
#: than its box, wide tables, content cut off, headings past the edge, printed output or code
#: that scrolls, breaks in inline code, widget labels) with what they say but not their pixels.
PHONE_COUNTS = (
    "innerWidth",
    "pageWidth",
    "shrunk",
    "lang",
    "unrendered",
    "views",
    "controlled",
    "notes",
    "noteTexts",
)
PHONE_FINDINGS = (
    "math",
    "tables",
    "sticking",
    "headings",
    "scrollingPre",
    "codeBreaks",
    "widgets",
)
PIXELS = ("need", "have", "right")


def what_the_tests_read(report: PageReport) -> dict[str, Any]:
    """The parts of ``report`` the tests above assert on, pixels of findings left out."""
    data = report.data
    findings = {
        key: [{k: v for k, v in item.items() if k not in PIXELS} for item in data[key]]
        for key in PHONE_FINDINGS
    }
    counts = {key: data[key] for key in PHONE_COUNTS}
    return {**counts, **findings, "console": report.console}


PHONE_CASES = [
    pytest.param(page, id=page_id(page, WIDTHS[1])) for page in FRESH_PHONE_PAGES
]


def test_the_fresh_phone_pages_are_pages_of_the_books() -> None:
    assert set(FRESH_PHONE_PAGES) <= set(PAGES), FRESH_PHONE_PAGES


@pytest.mark.parametrize("page", PHONE_CASES)
def test_a_page_narrowed_in_place_looks_as_one_loaded_at_390px(
    reports: Any, page: str
) -> None:
    """The tests above see every page at 390 px after narrowing it in place (its handlers of
    the resize run: display math fitted again, wide tables marked); a phone opens the page at
    390 px.  On the pages of ``_browser.FRESH_PHONE_PAGES`` (one per book) the two must
    agree."""
    narrowed = what_the_tests_read(reports(page, WIDTHS[1]))
    fresh = what_the_tests_read(fresh_phone_report(page))
    differ = [key for key in fresh if narrowed[key] != fresh[key]]
    assert differ == [], (
        f"{page} narrowed to 390 px differs from it loaded at 390 px\n"
        + (
            "\n".join(
                f"  {key}:\n    narrowed {narrowed[key]!r:.300}\n    loaded   {fresh[key]!r:.300}"
                for key in differ
            )
        )
    )


def _gelu_plot(driver: Any) -> tuple[Any, str]:
    """The slider and the first plot of the cell that runs ``gelu_widget()``."""
    return driver.execute_script("""
        const cell = [...document.querySelectorAll('div.cell')].find(
            (c) => c.textContent.includes('gelu_widget()'));
        if (!cell) return [null, ''];
        cell.scrollIntoView();  // the live widget lays out (and draws) once it is on screen
        const img = cell.querySelector('img');
        return [cell.querySelector('.widget-slider .noUi-handle, .widget-slider input'),
                img ? img.src : ''];
    """)


def test_live_code_moves_the_gelu_plot() -> None:
    """`make live`'s servers; chapter 11's Live Code; the GELU slider moved redraws the plot."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    from booktools.lab.live import LiveBook

    book = require_book()
    driver = new_driver(1280)  # its own: the live page keeps a kernel and a log
    try:
        with LiveBook(book) as live:
            driver.get(live.url + "chapters/11_ffn_gelu.html")
            driver.find_element(
                By.CSS_SELECTOR, ".dropdown-launch-buttons > button"
            ).click()
            live_button = driver.find_element(
                By.XPATH, "//button[.//span[contains(., 'Live Code')]]"
            )
            live_button.click()
            WebDriverWait(driver, 240, poll_frequency=1).until(
                lambda d: d.execute_script(
                    "return document.body.classList.contains('formulated-live') || "
                    "(document.querySelector('.thebe-launch-button') || {}).textContent"
                    ".startsWith('Live code failed')"
                )
            )
            status = driver.execute_script(
                "return document.querySelector('.thebe-launch-button').textContent"
            )
            assert status.startswith("Live:"), f"live code did not start: {status}"
            assert (
                driver.execute_script(
                    "return document.querySelectorAll('.formulated-static-note').length"
                )
                == 0
            )
            # The cells have run; the widget's figures arrive in its Output area just after.
            WebDriverWait(driver, 60, poll_frequency=0.5).until(
                lambda d: _gelu_plot(d)[0] is not None and _gelu_plot(d)[1]
            )
            handle, before = _gelu_plot(driver)
            handle.click()
            for _ in range(10):
                handle.send_keys(Keys.ARROW_RIGHT)
            deadline = time.monotonic() + 60
            after = before
            while time.monotonic() < deadline and after == before:
                time.sleep(0.5)
                after = _gelu_plot(driver)[1]
            assert after and after != before, (
                "moving the GELU slider did not redraw the plot"
            )
            severe = [
                e["message"]
                for e in driver.get_log("browser")
                if e["level"] == "SEVERE"
            ]
            assert severe == [], "console errors while live:\n" + "\n".join(severe)
    finally:
        driver.quit()


def test_launch_buttons_only_on_pages_with_code_and_no_cdn_thebe() -> None:
    """Chapters (code to run) have the launch menu with Live Code; the intro and the appendices,
    whose cells only generate tables, have none; no page loads Thebe from a CDN."""
    book = require_book()
    thebe = book / "_static" / "vendor" / "thebe-0.9.3" / "index.js"
    assert thebe.is_file(), "Thebe is not served by the book"
    wrong = []
    for page in PAGES:
        html = (book / page).read_text(encoding="utf-8")
        has_code = page.split("/")[-1][
            :2
        ].isdigit()  # chapters are NN_name; intro, appendix_x
        has_menu = "dropdown-launch-buttons" in html
        if has_menu != has_code or has_menu != ("window.FORMULATED_LIVE =" in html):
            wrong.append(
                f"{page}: launch menu {has_menu}, live config "
                f"{'window.FORMULATED_LIVE =' in html}, expected {has_code}"
            )
        for bad in ("unpkg.com", "THEBE_JS_URL", "thebe@0.8"):
            if bad in html:
                wrong.append(f"{page} mentions {bad}")
    assert wrong == [], "\n".join(wrong)


def test_code_cells_show_88_columns_on_a_laptop(site: str) -> None:
    """At 1280 px a code cell, a printed output and a definition's opened source box show 88
    columns without scrolling (tests/test_columns.py keeps every line within them); at the
    theme's 14 px only 77 fit in a cell and 70 in a source box."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver = browsers().driver()  # the worker's Chromium
    driver.get(site + "chapters/10_multi_head.html")
    driver.execute_script(
        "document.querySelector('.formulated-source .admonition-title').click()"
    )
    WebDriverWait(driver, 10, poll_frequency=0.1).until(  # the box opens
        lambda d: d.execute_script(
            "return document.querySelector('.formulated-source div.highlight pre')"
            ".clientWidth > 0"
        )
    )
    columns = driver.execute_script("""
        const pres = [...document.querySelectorAll(
            'div.cell div.highlight pre, div.cell_output pre')].slice(0, 4);
        pres.push(document.querySelector('.formulated-source div.highlight pre'));
        return pres.map((pre) => {
            const cs = getComputedStyle(pre), probe = document.createElement('span');
            probe.textContent = 'x'.repeat(100);
            pre.appendChild(probe);
            const w = probe.getBoundingClientRect().width / 100;
            probe.remove();
            return (pre.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight)) / w;
        });""")
    assert len(columns) == 5 and min(columns) >= 88, columns


def test_search_snippets_show_formulas_without_tex(site: str) -> None:
    """Search results quote the found page; a formula there reads as text, not as TeX."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver = browsers().driver()  # the worker's Chromium
    driver.get(site + "search.html?q=softmax")
    WebDriverWait(driver, 60, poll_frequency=0.5).until(
        lambda d: d.execute_script(
            "return document.querySelectorAll('#search-results p.context').length >= 3"
        )
    )
    snippets = driver.execute_script(
        "return [...document.querySelectorAll('#search-results p.context')]"
        ".map((p) => p.textContent)"
    )
    tex = [
        s
        for s in snippets
        if "\\(" in s or "\\frac" in s or "\\mathbf" in s or "$" in s
    ]
    assert snippets and tex == [], "search snippets with TeX:\n" + "\n".join(
        t[:160] for t in tex
    )


def test_live_code_without_a_server_or_repository_says_how_to_go_live(
    site: str,
) -> None:
    """On a static host with the placeholder repository.url, Live Code says in words how to make
    the page live (``make live``, or set ``repository.url``), not "failed: undefined"."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from booktools.sphinx.launch import book_home, is_placeholder

    if not is_placeholder(book_home().repository_url):
        pytest.skip(
            "repository.url is set: Live Code goes to Binder (not reachable in tests)"
        )
    driver = browsers().driver()  # the worker's Chromium
    driver.get(site + "chapters/11_ffn_gelu.html")
    driver.find_element(By.CSS_SELECTOR, ".dropdown-launch-buttons > button").click()
    driver.find_element(By.XPATH, "//button[.//span[contains(., 'Live Code')]]").click()
    status = WebDriverWait(driver, 30, poll_frequency=0.5).until(
        lambda d: d.execute_script(
            "const t = (document.querySelector('.thebe-launch-button') || {}).textContent || '';"
            "return t.startsWith('Live code failed') ? t : null;"
        )
    )
    assert "make live" in status and "repository.url" in status, status
    assert "undefined" not in status, status
