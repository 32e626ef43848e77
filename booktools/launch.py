"""Where the book lives, set once, and the launch buttons (Binder, JupyterHub, Colab) built from it.

The one setting is ``_config.yml``: ``repository.url`` (and ``repository.branch``) say where the
book's repository is public, ``launch_buttons.jupyterhub_url`` where a course's JupyterHub is.
Everything else is derived from them: the theme's launch buttons, the Colab notebooks'
set-up cell (:mod:`booktools.notebooks`), and this Sphinx extension, which

* points the **Colab** button at the chapter's ``.ipynb`` copy in ``chapters/notebooks/`` (Colab
  opens only ``.ipynb``; the theme would link the ``.md`` source);
* while a URL is still a **placeholder** (:data:`PLACEHOLDER_REPOSITORY_URLS`, or a host under
  ``example.org``/``.com``/``.net``), prints a notice during the build and turns the buttons that
  would lead there into buttons that say so (``_static/launch/launch.js``) instead of linking to
  a page that does not exist.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlparse

import yaml

__all__ = ["PLACEHOLDER_REPOSITORY_URLS", "NOTEBOOKS_DIR", "BookHome", "book_home",
           "is_placeholder", "colab_url", "binder_url", "setup"]

ROOT = Path(__file__).resolve().parents[1]

#: Repository URLs that stand for "not decided yet" (the one the book shipped with).
PLACEHOLDER_REPOSITORY_URLS = frozenset({"https://github.com/formulated-gpt/formulated-gpt"})

#: Hosts reserved for examples (RFC 2606): a URL there cannot be a real JupyterHub.
_EXAMPLE_DOMAINS = ("example.org", "example.com", "example.net")

#: Where the Colab copies of the chapters live, relative to the repository root.
NOTEBOOKS_DIR = "chapters/notebooks"

#: Static files of this extension, under ``chapters/_static_assets`` (the html_static_path).
LAUNCH_JS = "launch/launch.js"

NOT_CONFIGURED = ("The book's public {what} is not configured yet: set {key} in _config.yml "
                  "and rebuild the book.")


def is_placeholder(url: str) -> bool:
    """True for an empty URL, a known placeholder, or a host under an example domain."""
    url = (url or "").strip().rstrip("/")
    if not url or url in PLACEHOLDER_REPOSITORY_URLS:
        return True
    host = (urlparse(url).hostname or "").lower()
    return any(host == d or host.endswith("." + d) for d in _EXAMPLE_DOMAINS)


@dataclass(frozen=True)
class BookHome:
    """Where the book lives: its repository (on GitHub) and branch, a course's JupyterHub."""

    repository_url: str
    branch: str
    jupyterhub_url: str

    @property
    def repository_configured(self) -> bool:
        return not is_placeholder(self.repository_url)

    @property
    def jupyterhub_configured(self) -> bool:
        return not is_placeholder(self.jupyterhub_url)

    @property
    def github_repo(self) -> str:
        """``org/name`` of a GitHub repository URL ("" for another host)."""
        parsed = urlparse(self.repository_url)
        parts = [p for p in parsed.path.split("/") if p]
        if parsed.hostname != "github.com" or len(parts) < 2:
            return ""
        return f"{parts[0]}/{parts[1].removesuffix('.git')}"


def book_home(config_path: Path | None = None) -> BookHome:
    """Read :class:`BookHome` from ``_config.yml`` (the one place where it is set)."""
    path = ROOT / "_config.yml" if config_path is None else Path(config_path)
    config = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    repository = config.get("repository") or {}
    launch = config.get("launch_buttons") or {}
    url = repository.get("url")
    if not isinstance(url, str):
        raise ValueError(f"config_path: expected repository.url (a string) in {path}, got {url!r}")
    return BookHome(repository_url=url.strip().rstrip("/"),
                    branch=str(repository.get("branch") or "main"),
                    jupyterhub_url=str(launch.get("jupyterhub_url") or "").strip().rstrip("/"))


COLAB = "https://colab.research.google.com"


def colab_url(home: BookHome, chapter: str, colab: str = COLAB) -> str:
    """Colab's URL of a chapter's notebook copy; ``chapter`` like ``"11_ffn_gelu"``."""
    if not home.github_repo:
        raise ValueError(f"home: Colab opens notebooks from GitHub; repository.url is "
                         f"{home.repository_url!r}")
    return (f"{colab.rstrip('/')}/github/{home.github_repo}/blob/{home.branch}/"
            f"{NOTEBOOKS_DIR}/{chapter}.ipynb")


def binder_url(home: BookHome, source: str, binderhub: str = "https://mybinder.org") -> str:
    """Binder's URL that opens ``source`` (e.g. ``chapters/11_ffn_gelu.md``) in JupyterLab;
    the project's settings (``.binder/postBuild``) open a ``.md`` chapter as a notebook."""
    return (f"{binderhub.rstrip('/')}/v2/gh/{home.github_repo}/{home.branch}"
            f"?urlpath=lab/tree/{source}")


# --- the Sphinx extension --------------------------------------------------------------------

def _iter_buttons(buttons: list[dict[str, Any]]):
    for button in buttons:
        yield button
        if button.get("type") == "group":
            yield from _iter_buttons(button.get("buttons", []))


def _not_configured(button: dict[str, Any], message: str) -> None:
    """Turn a link button into one that shows ``message`` (``launch.js``) when clicked."""
    text = button.get("text") or button.get("tooltip") or "Link"
    button.pop("url", None)
    button.update(type="javascript", tooltip=message, text=f"{text} (not configured)",
                  javascript="formulatedNotConfigured(this)")


def _home_of(app: Any) -> BookHome:
    theme = app.config.html_theme_options
    launch = theme.get("launch_buttons", {}) or {}
    return BookHome(repository_url=str(theme.get("repository_url", "")).rstrip("/"),
                    branch=str(theme.get("repository_branch") or "main"),
                    jupyterhub_url=str(launch.get("jupyterhub_url", "")).rstrip("/"))


def fix_buttons(app: Any, pagename: str, templatename: str, context: dict[str, Any],
                doctree: Any) -> None:
    """Colab -> the chapter's ``.ipynb``; links to unconfigured places -> a notice."""
    home = _home_of(app)
    repo_message = NOT_CONFIGURED.format(what="repository URL", key="repository.url")
    hub_message = NOT_CONFIGURED.format(what="JupyterHub URL", key="launch_buttons.jupyterhub_url")
    for button in _iter_buttons(context.get("header_buttons", [])):
        if button.get("type") != "link":
            continue
        url, text = str(button.get("url", "")), str(button.get("text", ""))
        if text == "JupyterHub" and not home.jupyterhub_configured:
            _not_configured(button, hub_message)
        elif not home.repository_configured and (
                text in {"Binder", "Colab", "JupyterHub"} or url.startswith(home.repository_url)):
            _not_configured(button, repo_message)
        elif text == "Colab" and home.github_repo:
            launch = app.config.html_theme_options.get("launch_buttons", {})
            button["url"] = colab_url(home, PurePosixPath(pagename).name,
                                      launch.get("colab_url") or COLAB)


def announce(app: Any) -> None:
    """Print a notice (not a warning: ``-W`` builds must pass) while a URL is a placeholder."""
    from sphinx.util import logging
    from sphinx.util.console import bold

    home = _home_of(app)
    logger = logging.getLogger(__name__)
    if not home.repository_configured:
        logger.info(bold("NOTICE: repository.url in _config.yml is a placeholder "
                         f"({home.repository_url}); the Binder, Colab and repository buttons "
                         "say 'not configured' until it names the book's public repository."))
    if not home.jupyterhub_configured:
        logger.info(bold("NOTICE: launch_buttons.jupyterhub_url in _config.yml is a placeholder "
                         f"({home.jupyterhub_url or 'empty'}); the JupyterHub button says "
                         "'not configured'."))


def setup(app: Any) -> dict[str, Any]:
    """After the theme's buttons (priority 501) and booktools.sphinx_html (900)."""
    app.connect("builder-inited", announce)
    app.connect("html-page-context", fix_buttons, priority=950)
    app.add_js_file(LAUNCH_JS)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
