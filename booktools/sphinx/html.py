"""Sphinx extension for the rendered book: live code served from the book, and a clean page.

What it changes in the HTML that Jupyter Book 1 produces (``_config.yml`` lists it in
``sphinx.extra_extensions``):

* **Live code from the book, not a CDN.** Jupyter Book always loads ``sphinx-thebe``, which
  hard-codes Thebe 0.8.2 from unpkg (and declares ``THEBE_JS_URL`` twice on every page, a console
  error). Its two hooks are disconnected here; the theme's "Live Code" button instead calls
  ``initThebe()`` from ``_static/live/formulated-live.js``, which loads the vendored Thebe 0.9.3
  (``_static/vendor/thebe-0.9.3/``) and connects to the local server of ``make live`` or to Binder.
* **Launch buttons only where there is something to run:** a page keeps its launch menu only if
  one of its code cells shows its source (not ``remove-input``/``hide-input``) and its front
  matter does not say ``launch_buttons: false`` (the intro); the appendices, whose cells only
  generate tables, have none.
* **Per-page live configuration** (Binder repository, branch, kernel path) as one inline script,
  so the page JS has a single source: ``_config.yml``'s ``repository`` and ``launch_buttons``.
* **Long inline code breaks at its separators.** A token of inline code of at least
  :data:`WBR_MIN` characters gets a line-break opportunity (``<wbr>``) after each ``.``, ``/``,
  ``::`` and ``_``: on a phone, ``formulated.formulas.attention`` then wraps after a dot instead of
  inside a word (the stylesheet's ``overflow-wrap: anywhere`` stays the fallback).  ``<wbr>`` is
  not a character, so copied text is unchanged.
* ``default_mode`` for the theme's color mode, whose absence makes the theme log an error.
* **Lighter, accessible theme chrome** (:func:`tidy_page`, on every written page once the build
  has finished): no Font Awesome script (1.5 MB on every page; the theme's stylesheet already
  draws the same icons with its webfont), icons hidden from screen readers, and the search
  buttons named by their visible text ("Search Ctrl+K", WCAG 2.5.3 "label in name") instead of
  an ``aria-label`` that leaves the shortcut out.  The search index (``searchindex.js``, 0.15 MB,
  with ``searchtools.js`` and ``language_data.js``) only on the search page: the theme loads it
  on every page for its search-as-you-type, which is off (``search_as_you_type = false``; the
  search box opens ``search.html``, which loads the index itself).  The one icon of Font
  Awesome's brands font (the GitHub mark of the source-repository menu, which cost every page the
  0.12 MB font) becomes the solid font's code-branch icon.
* **Live code without a repository** says how to make the page live: the page config carries no
  Binder repository while ``repository.url`` is a placeholder (:mod:`booktools.sphinx.launch`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from booktools.sphinx.launch import is_placeholder

#: Tags with which a code cell's source is not shown, so the page has nothing to run there.
HIDDEN_SOURCE_TAGS = frozenset({"remove-input", "remove-cell", "hide-input"})

#: Files under ``_static`` that every page loads (``chapters/_static_assets`` is the static path).
LIVE_JS = "live/formulated-live.js"
LIVE_CSS = "live/formulated-live.css"
#: Figures and widget panels follow the page theme in dark mode (formulated/plotting.py).
FIGURES_CSS = "live/figures-theme.css"


def disconnect_sphinx_thebe(app: Sphinx) -> None:
    """Remove sphinx-thebe's script injection (CDN Thebe 0.8.2) and its per-page config node."""
    try:
        import sphinx_thebe
    except ImportError:  # Jupyter Book without it: nothing to undo
        return
    unwanted = {sphinx_thebe.init_thebe_core, sphinx_thebe.update_thebe_context}
    for listeners in app.events.listeners.values():
        for listener in list(listeners):
            if listener.handler in unwanted:
                app.disconnect(listener.id)


def shows_code(doctree: nodes.document | None) -> bool:
    """True when some code cell of the page shows its source to the reader."""
    if doctree is None:
        return False
    for node in doctree.findall(nodes.container):
        if node.get("nb_element") != "cell_code":
            continue
        tags = set(node.get("cell_metadata", {}).get("tags", []))
        if not tags & HIDDEN_SOURCE_TAGS:
            return True
    return False


#: Inline code tokens at least this long get break opportunities after their separators.
WBR_MIN = 16

# Sphinx writes each whitespace-separated word of inline code as <span class="pre">word</span>
# (text only, HTML-escaped: no tag or separator inside an entity).
_PRE_TOKEN = re.compile(r'<span class="pre">([^<]+)</span>')
_SEPARATOR = re.compile(r"(::|[./_])(?=.)")


def break_long_code(html: str, min_len: int = WBR_MIN) -> str:
    """``html`` with ``<wbr>`` after each separator of every inline-code token of at least
    ``min_len`` characters (``a.b`` -> ``a.<wbr>b``); shorter tokens and the rest unchanged."""

    def one(m: re.Match[str]) -> str:
        token = m.group(1)
        if len(token) < min_len:
            return m.group(0)
        return '<span class="pre">' + _SEPARATOR.sub(r"\1<wbr>", token) + "</span>"

    return _PRE_TOKEN.sub(one, html)


def live_config(app: Sphinx, pagename: str) -> dict[str, Any]:
    """Where the live-code button finds a kernel for ``pagename`` when not under ``make live``."""
    theme = app.config.html_theme_options
    launch = theme.get("launch_buttons", {})
    repo_url = str(theme.get("repository_url", ""))
    repo = (
        repo_url.split("github.com/")[-1].strip("/")
        if "github.com/" in repo_url
        else ""
    )
    if is_placeholder(
        repo_url
    ):  # no Binder to ask: the page says how to go live instead
        repo = ""
    folder = str(PurePosixPath(pagename).parent)
    book_path = str(theme.get("path_to_docs", "")).strip("/")
    return {
        "binderUrl": str(launch.get("binderhub_url", "")).rstrip("/"),
        "repo": repo,
        "ref": str(theme.get("repository_branch", "main")),
        "kernelPath": "/".join(p for p in (book_path, folder) if p and p != "."),
    }


def page_context(
    app: Sphinx,
    pagename: str,
    templatename: str,
    context: dict[str, Any],
    doctree: nodes.document | None,
) -> None:
    """Break long inline code at its separators; drop the launch menu on pages without visible
    code (or whose front matter says ``launch_buttons: false``); give the other pages their live
    config."""
    context["body"] = break_long_code(context.get("body", ""))
    front_matter = app.env.metadata.get(pagename, {})
    opted_out = (
        str(front_matter.get("launch_buttons", "")).lower() == "false"
    )  # arrives as "False"
    if opted_out or not shows_code(doctree):
        context["header_buttons"] = [
            b
            for b in context.get("header_buttons", [])
            if b.get("label") != "launch-buttons"
        ]
        return
    config = json.dumps(live_config(app, pagename), sort_keys=True)
    context["body"] = (
        context.get("body", "")
        + f"\n<script>window.FORMULATED_LIVE = {config};</script>\n"
    )


def set_default_mode(app: Sphinx) -> None:
    """The theme reads ``default_mode``; unset, its script logs 'Got invalid theme mode'."""
    app.config.html_context.setdefault("default_mode", "auto")


# The theme's Font Awesome script: it swaps every <i class="fa-..."> for an inline SVG. The
# theme's stylesheet has the webfont rules for the same classes, so the icons stay without it.
_FONTAWESOME_JS = re.compile(
    r'[ \t]*<script [^>]*src="[^"]*/fontawesome\.js[^"]*"></script>\n?'
)
# An icon element (no text of its own) that does not yet say it is decorative.
_ICON = re.compile(r'<i class="((?:[^"]*\s)?fa[bsr]?[ -][^"]*)"(?![^>]*aria-hidden)')
# The search buttons show "Search" and a shortcut (Ctrl+K); their aria-label ("Search", in the
# Korean book "검색") leaves the shortcut out, so the name a voice user says does not match what
# is shown.
_SEARCH_BUTTON = re.compile(
    r'(<button class="btn search-button-field[^"]*"[^>]*?) aria-label="[^"]*"'
)


# The theme's search scripts, loaded on every page for search-as-you-type; with that off, only
# the search page (which has its own copies of these tags) uses them.
_SEARCH_SCRIPTS = re.compile(
    r'[ \t]*<script src="[^"]*(?:_static/searchtools\.js|'
    r'_static/language_data\.js|searchindex\.js)"></script>\n?'
)
_NO_SEARCH_AS_YOU_TYPE = "DOCUMENTATION_OPTIONS.search_as_you_type = false;"
_SEARCH_PAGE = "DOCUMENTATION_OPTIONS.pagename = 'search';"
# The brands webfont's only icon on the pages; the solid font, loaded anyway, has this one.
_BRAND_ICON = '<i class="fab fa-github"'
_SOLID_ICON = '<i class="fa-solid fa-code-branch"'


# sphinx-togglebutton names each folded cell "Toggle hidden content" although it shows
# "Show code cell source": the visible text is the better name (WCAG 2.5.3).
_TOGGLE_SUMMARY = re.compile(r'(<summary[^>]*?) aria-label="Toggle hidden content"')


def tidy_page(html: str) -> str:
    """``html`` without the Font Awesome script, without the search scripts unless it is the
    search page or searches as you type, without the brands font's icon, with ``aria-hidden``
    icons, and search buttons and folded cells named by their visible text; applying it twice
    changes nothing."""
    html = _FONTAWESOME_JS.sub("", html)
    if _NO_SEARCH_AS_YOU_TYPE in html and _SEARCH_PAGE not in html:
        html = _SEARCH_SCRIPTS.sub("", html)
    html = html.replace(_BRAND_ICON, _SOLID_ICON)
    html = _ICON.sub(r'<i class="\1" aria-hidden="true"', html)
    html = _TOGGLE_SUMMARY.sub(r"\1", html)
    return _SEARCH_BUTTON.sub(r"\1", html)


def tidy_pages(app: Sphinx, exception: Exception | None) -> None:
    """Apply :func:`tidy_page` to every HTML page of the finished build (pages Sphinx did not
    rewrite this time were tidied by an earlier build: the function is idempotent)."""
    if exception is not None or app.builder.format != "html":
        return
    for page in Path(app.outdir).rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        tidy = tidy_page(html)
        if tidy != html:
            page.write_text(tidy, encoding="utf-8")


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the hooks; the theme's launch buttons run at priority 500, this page hook after."""
    app.connect("builder-inited", disconnect_sphinx_thebe)
    app.connect("builder-inited", set_default_mode)
    app.connect("html-page-context", page_context, priority=900)
    app.connect("build-finished", tidy_pages)
    app.add_js_file(LIVE_JS, priority=200)
    app.add_css_file(LIVE_CSS)
    app.add_css_file(FIGURES_CSS)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
