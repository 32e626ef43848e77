"""The offline copy: ``make dist``'s zip, unpacked in an empty folder and read from
``file://`` in Debian's headless Chromium.

The zip is packed here from the built book (:func:`booktools.build.dist.pack`; ``make book`` after
``make pdf``, as CI does), so the test reads what ``make dist`` ships. For every page of the table
of contents: every local link and image found, "Download PDF" and the version in the footer.
Opened from ``file://`` in Chromium, on :data:`FILE_URL_PAGES` (every kind of content: prose,
math, figures, widget snapshots, training output, wide tables; every page loads the same
scripts from the same relative paths): no console error, the math typeset, every image
loaded, every widget snapshot drawn.
"""

from __future__ import annotations

import re
import zipfile
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from _browser import new_driver, pages, require_book
from _helpers import once

import formulated
from booktools.build.dist import archive_name, pack
from booktools.sphinx.pdf import PDF_NAME

pytestmark = [pytest.mark.slow, pytest.mark.browser]

PAGES = pages()
#: The pages opened from ``file://`` (see above): 27 took four minutes of make test.
FILE_URL_PAGES = [
    f"chapters/{name}.html"
    for name in (
        "intro",
        "08_attention",
        "11_ffn_gelu",
        "18_train_tiny_gpt",
        "appendix_b_errata",
    )
]


@pytest.fixture(scope="module")
def unpacked(shared_tmp: Path) -> Path:
    """The zip, packed from the built book and unpacked in an empty folder, once per test
    run (conftest.py's ``shared_tmp``: pytest-xdist's workers share it)."""
    html = require_book()

    def build(folder: Path) -> None:
        try:
            archive = pack(html=html, out_dir=folder / "zip")
        except (FileNotFoundError, ValueError) as err:
            # pack refuses only a book built without the PDF, or before it: what the README's
            # `make book` and `make test` leave when TeX Live is missing (they build no PDF
            # then); `.ci/run`'s `make book` builds the PDF first, so CI packs and tests it.
            pytest.skip(f"no offline copy to test: {err}")
        with zipfile.ZipFile(archive) as zf:
            names = zf.namelist()
            assert all(n.startswith(archive_name() + "/") for n in names), (
                "one top folder"
            )
            zf.extractall(folder / "offline")

    return once(shared_tmp / "dist", build) / "offline" / archive_name()


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if value and (
                (tag == "a" and key == "href")
                or (key == "src" and tag in ("img", "script"))
                or (tag == "link" and key == "href")
            ):
                self.refs.append(value)


def local_targets(page: Path) -> list[str]:
    """Relative links, images, scripts and stylesheets of ``page`` that are not on disk."""
    parser = _Refs()
    parser.feed(page.read_text(encoding="utf-8"))
    missing = []
    for ref in parser.refs:
        parts = urlsplit(ref)
        if (
            parts.scheme or parts.netloc or not parts.path
        ):  # external, or a link in the page
            continue
        if not (page.parent / unquote(parts.path)).exists():
            missing.append(ref)
    return missing


def test_zip_holds_the_pdf_and_every_page(unpacked: Path) -> None:
    assert (unpacked / "index.html").is_file()
    assert (unpacked / PDF_NAME).read_bytes()[:5] == b"%PDF-"
    missing = [p for p in PAGES if not (unpacked / p).is_file()]
    assert not missing, missing


@pytest.mark.parametrize("page", PAGES)
def test_local_links_resolve(unpacked: Path, page: str) -> None:
    assert local_targets(unpacked / page) == []


@pytest.mark.parametrize("page", PAGES)
def test_pdf_link_and_version_on_every_page(unpacked: Path, page: str) -> None:
    html = (unpacked / page).read_text(encoding="utf-8")
    link = re.search(r'href="([^"]*' + re.escape(PDF_NAME) + r')"', html)
    assert link and "Download PDF" in html, f"{page}: no Download PDF link"
    assert (unpacked / page).parent.joinpath(link.group(1)).resolve().is_file()
    assert f"Version {formulated.__version__}" in html, (
        f"{page}: no version in the footer"
    )


# In the page: wait for MathJax, bring every widget near the screen (the runtime loads on
# demand) until it is drawn, then count what did not load.
CHECK_JS = r"""
const done = arguments[arguments.length - 1];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
(async () => {
  for (let i = 0; i < 100 && document.readyState !== "complete"; i++) await sleep(100);
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  const views = [...document.querySelectorAll(
    'script[type="application/vnd.jupyter.widget-view+json"]')];
  const drawn = (s) => s.parentElement.querySelector(".widget-subarea *, .jupyter-widgets");
  for (const v of views) {
    v.parentElement.scrollIntoView();
    for (let i = 0; i < 100 && !drawn(v); i++) await sleep(100);
  }
  const article = document.querySelector("article") || document.body;
  const imgs = [...article.querySelectorAll("img")];
  for (let i = 0; i < 50 && !imgs.every((im) => im.complete); i++) await sleep(100);
  done({
    math: document.querySelectorAll("mjx-container").length,
    rawMath: [...article.querySelectorAll(".math")].filter(
      (m) => !m.querySelector("mjx-container")).length,
    images: imgs.length,
    broken: imgs.filter((im) => !(im.complete && im.naturalWidth > 0)).map((im) => im.src),
    views: views.length,
    undrawn: views.filter((v) => !drawn(v)).length,
  });
})().catch((e) => done({error: String(e)}));
"""


@pytest.fixture(scope="module")
def browser() -> Any:
    driver = new_driver(1280)
    yield driver
    driver.quit()


def test_the_file_url_pages_are_pages_of_the_book() -> None:
    assert set(FILE_URL_PAGES) <= set(PAGES), sorted(set(FILE_URL_PAGES) - set(PAGES))


@pytest.mark.parametrize("page", FILE_URL_PAGES)
def test_page_works_from_file_url(unpacked: Path, browser: Any, page: str) -> None:
    path = unpacked / page
    source = path.read_text(encoding="utf-8")
    browser.get_log("browser")
    browser.get(path.as_uri())
    data = browser.execute_async_script(CHECK_JS)
    console = [
        e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"
    ]
    assert "error" not in data, data
    assert console == [], f"{page} from file://: console errors\n" + "\n".join(console)
    if 'class="math' in source:
        assert data["math"] > 0 and data["rawMath"] == 0, (
            f"{page}: math not typeset {data}"
        )
    if "<img" in source.split("<article", 1)[-1]:
        assert data["images"] > 0 and data["broken"] == [], f"{page}: images {data}"
    assert data["undrawn"] == 0, (
        f"{page}: {data['undrawn']} of {data['views']} widgets undrawn"
    )
