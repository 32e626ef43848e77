"""Where the book lives, set once, and the launch buttons (Binder, JupyterHub, Colab) built from it.

The one setting is ``_config.yml``: ``repository.url`` (and ``repository.branch``) say where the
book's repository is public, ``launch_buttons.jupyterhub_url`` where a course's JupyterHub is.
Everything else is derived from them: the theme's launch buttons, the Colab notebooks'
set-up cell (:mod:`booktools.build.notebooks`), and this Sphinx extension, which

* points the **Colab** button at the chapter's ``.ipynb`` copy in ``chapters/notebooks/`` (Colab
  opens only ``.ipynb``; the theme would link the ``.md`` source);
* in the **student edition** (``make student-book``), points Binder, Colab and JupyterHub at the
  student notebooks of the course's repository (``student_edition`` in ``_config.yml``,
  :func:`student_home`), and the repository button there too; without that setting the student
  pages show none of them, since the book's repository holds every solution;
* while a URL is still a **placeholder** (:data:`PLACEHOLDER_REPOSITORY_URLS`, or a host under
  ``example.org``/``.com``/``.net``), prints a notice during the build and turns the buttons that
  would lead there into buttons that say so (``_static/launch/launch.js``) instead of linking to
  a page that does not exist.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlparse

import yaml

from booktools.paths import CONFIG

__all__ = [
    "PLACEHOLDER_REPOSITORY_URLS",
    "NOTEBOOKS_DIR",
    "BookHome",
    "book_home",
    "StudentHome",
    "student_home",
    "is_placeholder",
    "colab_url",
    "binder_url",
    "jupyterhub_url",
    "STUDENT_CONFIG",
    "setup",
]

#: Repository URLs that stand for "not decided yet" (the one the book shipped with).
PLACEHOLDER_REPOSITORY_URLS = frozenset(
    {"https://github.com/formulated-gpt/formulated-gpt"}
)

#: Hosts reserved for examples (RFC 2606): a URL there cannot be a real JupyterHub.
_EXAMPLE_DOMAINS = ("example.org", "example.com", "example.net")

#: Where the Colab copies of the chapters live, relative to the repository root.
NOTEBOOKS_DIR = "chapters/notebooks"

#: Static files of this extension, under ``chapters/_static_assets`` (the html_static_path).
LAUNCH_JS = "launch/launch.js"

NOT_CONFIGURED = (
    "The book's public {what} is not configured yet: set {key} in _config.yml "
    "and rebuild the book."
)


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
    path = CONFIG if config_path is None else Path(config_path)
    config = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    repository = config.get("repository") or {}
    launch = config.get("launch_buttons") or {}
    url = repository.get("url")
    if not isinstance(url, str):
        raise ValueError(
            f"config_path: expected repository.url (a string) in {path}, got {url!r}"
        )
    return BookHome(
        repository_url=url.strip().rstrip("/"),
        branch=str(repository.get("branch") or "main"),
        jupyterhub_url=str(launch.get("jupyterhub_url") or "").strip().rstrip("/"),
    )


@dataclass(frozen=True)
class StudentHome:
    """Where a course publishes the student notebooks (``make notebooks STUDENT=1``): a
    repository (``home``, on GitHub for Colab) and the folder of the notebooks in it."""

    home: BookHome
    notebooks_path: str

    @property
    def configured(self) -> bool:
        return self.home.repository_configured and bool(self.home.github_repo)


#: The Sphinx config value of the student edition's launch target (set by booktools.course.student).
STUDENT_CONFIG = "formulated_student_home"


def student_home(config_path: Path | None = None) -> StudentHome:
    """``student_edition`` of ``_config.yml``: ``repository_url`` (empty: no launch buttons in
    the student edition), ``branch`` (default ``main``), ``notebooks_path`` (default
    ``notebooks``)."""
    path = CONFIG if config_path is None else Path(config_path)
    config = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    student = config.get("student_edition") or {}
    if not isinstance(student, dict):
        raise ValueError(
            f"config_path: expected student_edition to be a mapping in {path}, "
            f"got {student!r}"
        )
    url = str(student.get("repository_url") or "").strip().rstrip("/")
    return StudentHome(
        BookHome(url, str(student.get("branch") or "main"), ""),
        str(student.get("notebooks_path") or "notebooks").strip("/"),
    )


COLAB = "https://colab.research.google.com"


def colab_url(
    home: BookHome, chapter: str, colab: str = COLAB, folder: str = NOTEBOOKS_DIR
) -> str:
    """Colab's URL of a chapter's notebook copy in ``folder`` of the repository; ``chapter``
    like ``"11_ffn_gelu"``."""
    if not home.github_repo:
        raise ValueError(
            f"home: Colab opens notebooks from GitHub; repository.url is "
            f"{home.repository_url!r}"
        )
    return (
        f"{colab.rstrip('/')}/github/{home.github_repo}/blob/{home.branch}/"
        f"{folder.strip('/')}/{chapter}.ipynb"
    )


def jupyterhub_url(hub: str, home: BookHome, source: str) -> str:
    """A JupyterHub's nbgitpuller link that pulls ``home``'s repository and opens ``source``
    (a path in it) in JupyterLab, as the theme's own JupyterHub button does."""
    from urllib.parse import urlencode

    name = (
        home.github_repo.split("/")[-1]
        or home.repository_url.rstrip("/").split("/")[-1]
    )
    query = urlencode(
        {
            "repo": home.repository_url,
            "urlpath": f"lab/tree/{name}/{source}",
            "branch": home.branch,
        },
        safe="/",
    )
    return f"{hub.rstrip('/')}/hub/user-redirect/git-pull?{query}"


def binder_url(
    home: BookHome, source: str, binderhub: str = "https://mybinder.org"
) -> str:
    """Binder's URL that opens ``source`` (e.g. ``chapters/11_ffn_gelu.md``) in JupyterLab;
    the project's settings (``.binder/postBuild``) open a ``.md`` chapter as a notebook."""
    return (
        f"{binderhub.rstrip('/')}/v2/gh/{home.github_repo}/{home.branch}"
        f"?urlpath=lab/tree/{source}"
    )


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
    button.update(
        type="javascript",
        tooltip=message,
        text=f"{text} (not configured)",
        javascript="formulatedNotConfigured(this)",
    )


def _home_of(app: Any) -> BookHome:
    theme = app.config.html_theme_options
    launch = theme.get("launch_buttons", {}) or {}
    return BookHome(
        repository_url=str(theme.get("repository_url", "")).rstrip("/"),
        branch=str(theme.get("repository_branch") or "main"),
        jupyterhub_url=str(launch.get("jupyterhub_url", "")).rstrip("/"),
    )


_LIVE = re.compile(r"window\.FORMULATED_LIVE = (\{.*?\});")


def student_buttons(app: Any, pagename: str, context: dict[str, Any]) -> None:
    """The student edition's buttons: nothing may lead to the book's repository, whose
    chapters and notebooks hold every solution.  Binder, Colab and JupyterHub open the
    chapter's student notebook in the course's repository (:func:`student_home`, passed as
    :data:`STUDENT_CONFIG`), the repository button goes there; without that repository (or on
    a page that is not a numbered chapter) they are left out.  Live code (booktools.sphinx.html)
    asks Binder for the course's repository, or for none."""
    student = getattr(app.config, STUDENT_CONFIG, None) or StudentHome(
        BookHome("", "main", ""), "notebooks"
    )
    book = _home_of(app)
    chapter = PurePosixPath(pagename).name
    target = f"{student.notebooks_path}/{chapter}.ipynb"
    open_here = student.configured and re.fullmatch(r"\d\d_\w+", chapter) is not None
    launch = app.config.html_theme_options.get("launch_buttons", {}) or {}
    for group in context.get("header_buttons", []):
        if group.get("type") != "group":
            continue
        kept = []
        for button in group.get("buttons", []):
            url, text = str(button.get("url", "")), str(button.get("text", ""))
            if button.get("type") != "link":
                kept.append(button)
            elif group.get("label") == "launch-buttons":
                if not open_here:
                    continue
                if text == "Colab":
                    button["url"] = colab_url(
                        student.home,
                        chapter,
                        launch.get("colab_url") or COLAB,
                        student.notebooks_path,
                    )
                elif text == "Binder":
                    button["url"] = binder_url(
                        student.home,
                        target,
                        launch.get("binderhub_url") or "https://mybinder.org",
                    )
                elif text == "JupyterHub" and book.jupyterhub_configured:
                    button["url"] = jupyterhub_url(
                        book.jupyterhub_url, student.home, target
                    )
                else:
                    continue
                kept.append(button)
            elif text == "Repository" and student.configured:
                button["url"] = student.home.repository_url
                kept.append(button)
            elif not url.startswith(book.repository_url) and "github.com" not in url:
                kept.append(button)
        group["buttons"] = kept
    context["header_buttons"] = [
        g
        for g in context.get("header_buttons", [])
        if g.get("type") != "group" or g.get("buttons")
    ]
    live = {
        "repo": student.home.github_repo if student.configured else "",
        "ref": student.home.branch,
        "kernelPath": student.notebooks_path,
    }
    context["body"] = _LIVE.sub(
        lambda m: (
            "window.FORMULATED_LIVE = "
            + json.dumps({**json.loads(m.group(1)), **live}, sort_keys=True)
            + ";"
        ),
        context.get("body", ""),
    )


def fix_buttons(
    app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Colab -> the chapter's ``.ipynb``; links to unconfigured places -> a notice; in the
    student edition, :func:`student_buttons`."""
    if getattr(app.config, "formulated_student_edition", False):
        student_buttons(app, pagename, context)
        return
    home = _home_of(app)
    repo_message = NOT_CONFIGURED.format(what="repository URL", key="repository.url")
    hub_message = NOT_CONFIGURED.format(
        what="JupyterHub URL", key="launch_buttons.jupyterhub_url"
    )
    for button in _iter_buttons(context.get("header_buttons", [])):
        if button.get("type") != "link":
            continue
        url, text = str(button.get("url", "")), str(button.get("text", ""))
        if text == "JupyterHub" and not home.jupyterhub_configured:
            _not_configured(button, hub_message)
        elif not home.repository_configured and (
            text in {"Binder", "Colab", "JupyterHub"}
            or url.startswith(home.repository_url)
        ):
            _not_configured(button, repo_message)
        elif text == "Colab" and home.github_repo:
            launch = app.config.html_theme_options.get("launch_buttons", {})
            button["url"] = colab_url(
                home, PurePosixPath(pagename).name, launch.get("colab_url") or COLAB
            )


def announce(app: Any) -> None:
    """Print a notice (not a warning: ``-W`` builds must pass) while a URL is a placeholder."""
    from sphinx.util import logging
    from sphinx.util.console import bold

    home = _home_of(app)
    logger = logging.getLogger(__name__)
    if not home.repository_configured:
        logger.info(
            bold(
                "NOTICE: repository.url in _config.yml is a placeholder "
                f"({home.repository_url}); the Binder, Colab and repository buttons "
                "say 'not configured' until it names the book's public repository."
            )
        )
    if not home.jupyterhub_configured:
        logger.info(
            bold(
                "NOTICE: launch_buttons.jupyterhub_url in _config.yml is a placeholder "
                f"({home.jupyterhub_url or 'empty'}); the JupyterHub button says "
                "'not configured'."
            )
        )


def setup(app: Any) -> dict[str, Any]:
    """After the theme's buttons (priority 501) and booktools.sphinx.html (900)."""
    app.add_config_value(STUDENT_CONFIG, None, "html")
    app.connect("builder-inited", announce)
    app.connect("html-page-context", fix_buttons, priority=950)
    app.add_js_file(LAUNCH_JS)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
