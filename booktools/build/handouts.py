"""The slide decks' printable handouts: reveal.js's print mode, printed by headless Chromium.

:func:`handouts` serves the built decks, opens each in reveal.js's print mode
(:data:`PRINT_QUERY`: one page per slide, its speaker notes on the page after it) and prints it
to PDF once the deck is typeset, at :func:`booktools.build.decks.handout_path`.  Chromium and
chromedriver (:data:`CHROMIUM`, :data:`CHROMEDRIVER`; :func:`browser` finds them) as the
browser tests use them.
"""

from __future__ import annotations

import base64
import shutil
from pathlib import Path
from typing import Any

from booktools.build.decks import LANGUAGES, OUT, deck_path, handout_path
from booktools.build.lecture import chapters

__all__ = ["CHROMIUM", "CHROMEDRIVER", "PRINT_QUERY", "browser", "handouts"]

#: Debian's Chromium and its driver, which print the handouts (as the browser tests use them).
CHROMIUM = ("chromium", "chromium-browser", "google-chrome")
CHROMEDRIVER = ("chromedriver",)
#: What reveal.js's print mode adds to a deck's address: a page per slide, then its notes.
PRINT_QUERY = "?print-pdf&showNotes=separate-page"

_PRINTED_JS = """
const done = arguments[arguments.length - 1];
(async () => {
  const ready = () => document.documentElement.hasAttribute("data-slides-fitted")
    && document.querySelector(".reveal .pdf-page");
  for (let i = 0; i < 600 && !ready(); i++) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 300));
  done(document.querySelectorAll(".reveal .pdf-page").length);
})();
"""


def browser() -> tuple[str, str] | None:
    """Chromium and chromedriver, if both are installed."""
    chromium = next((p for c in CHROMIUM if (p := shutil.which(c))), None)
    driver = next((p for c in CHROMEDRIVER if (p := shutil.which(c))), None)
    return (chromium, driver) if chromium and driver else None


def handouts(
    names: list[str] | None = None,
    languages: tuple[str, ...] = LANGUAGES,
    out: Path = OUT,
) -> list[Path]:
    """The printable handout of each deck: reveal.js's print mode (:data:`PRINT_QUERY`: one
    page per slide, its speaker notes on the page after it) printed to PDF by headless
    Chromium once the deck is typeset; the PDFs written.  No Chromium or chromedriver:
    ``FileNotFoundError`` naming what to install."""
    import http.server
    import threading
    from functools import partial

    found = browser()
    if found is None:
        raise FileNotFoundError(
            "handouts: Chromium and chromedriver print the decks "
            "(apt-get install chromium chromium-driver, as for the browser tests)"
        )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = found[0]
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
    ):
        options.add_argument(arg)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), partial(Quiet, directory=str(out))
    )
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    site = f"http://127.0.0.1:{httpd.server_address[1]}/"
    driver = webdriver.Chrome(service=Service(found[1]), options=options)
    written = []
    try:
        driver.set_script_timeout(90)
        for language in languages:
            for name in names or chapters():
                deck = deck_path(name, language, out)
                if not deck.is_file():
                    raise FileNotFoundError(
                        f"out: no deck {deck} (build the decks first)"
                    )
                driver.get(site + deck.relative_to(out).as_posix() + PRINT_QUERY)
                if not driver.execute_async_script(_PRINTED_JS):
                    raise SystemExit(f"slides: {deck} laid out no page to print")
                pdf = driver.execute_cdp_cmd(
                    "Page.printToPDF",
                    {"preferCSSPageSize": True, "printBackground": True},
                )
                path = handout_path(name, language, out)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(base64.b64decode(pdf["data"]))
                written.append(path)
    finally:
        driver.quit()
        httpd.shutdown()
    return written
