"""Where the book lives (one setting in _config.yml) and the launch buttons built from it."""

from __future__ import annotations

import copy
import types

import pytest
from _chapters import ROOT

from booktools.sphinx import launch
from booktools.sphinx.launch import BookHome

REAL = "https://github.com/some-course/formulated-gpt"


@pytest.mark.parametrize(
    "url, placeholder",
    [
        ("https://github.com/formulated-gpt/formulated-gpt", True),
        ("https://github.com/formulated-gpt/formulated-gpt/", True),
        ("https://hub.example.org", True),
        ("https://example.com/hub", True),
        ("", True),
        (REAL, False),
        ("https://jupyter.university.edu", False),
        ("https://notexample.org", False),
    ],
)
def test_is_placeholder(url, placeholder):
    assert launch.is_placeholder(url) is placeholder


def test_book_home_reads_the_one_setting():
    home = launch.book_home()
    assert home.repository_url == "https://github.com/formulated-gpt/formulated-gpt"
    assert home.branch == "main" and home.jupyterhub_url == "https://hub.example.org"
    assert not home.repository_configured and not home.jupyterhub_configured


def test_book_home_without_repository_url_is_a_clear_error(tmp_path):
    (tmp_path / "_config.yml").write_text("title: x\n")
    with pytest.raises(ValueError, match="repository.url"):
        launch.book_home(tmp_path / "_config.yml")


def test_colab_and_binder_urls():
    home = BookHome(REAL, "main", "")
    assert launch.colab_url(home, "11_ffn_gelu") == (
        "https://colab.research.google.com/github/some-course/formulated-gpt/blob/main/"
        "chapters/notebooks/11_ffn_gelu.ipynb"
    )
    assert (ROOT / "chapters/notebooks/11_ffn_gelu.ipynb").is_file()
    assert launch.binder_url(home, "chapters/11_ffn_gelu.md") == (
        "https://mybinder.org/v2/gh/some-course/formulated-gpt/main"
        "?urlpath=lab/tree/chapters/11_ffn_gelu.md"
    )
    with pytest.raises(ValueError, match="GitHub"):
        launch.colab_url(BookHome("https://gitlab.com/a/b", "main", ""), "11_ffn_gelu")


def _theme_buttons(repo: str, hub: str) -> list[dict]:
    """What sphinx-book-theme puts in the page context (header_buttons), in its own shape."""
    org_repo = repo.split("github.com/")[-1]
    return [
        {
            "type": "group",
            "label": "source-buttons",
            "buttons": [
                {
                    "type": "link",
                    "url": repo,
                    "text": "Repository",
                    "label": "source-repository-button",
                },
                {
                    "type": "link",
                    "url": f"{repo}/issues/new?title=Issue",
                    "text": "Open issue",
                },
            ],
        },
        {
            "type": "group",
            "label": "launch-buttons",
            "buttons": [
                {
                    "type": "link",
                    "text": "Binder",
                    "tooltip": "Launch on Binder",
                    "url": f"https://mybinder.org/v2/gh/{org_repo}/main?urlpath=lab/tree/chapters/11_ffn_gelu.md",
                },
                {
                    "type": "link",
                    "text": "JupyterHub",
                    "url": f"{hub}/hub/user-redirect/git-pull?repo=x",
                },
                {
                    "type": "link",
                    "text": "Colab",
                    "url": f"https://colab.research.google.com/github/{org_repo}/blob/main/chapters/11_ffn_gelu.md",
                },
                {
                    "type": "javascript",
                    "text": "Live Code",
                    "javascript": "initThebeSBT()",
                },
            ],
        },
    ]


def _fake_app(repo: str, hub: str):
    theme = {
        "repository_url": repo,
        "repository_branch": "main",
        "launch_buttons": {
            "jupyterhub_url": hub,
            "binderhub_url": "https://mybinder.org",
            "colab_url": "https://colab.research.google.com",
        },
    }
    return types.SimpleNamespace(config=types.SimpleNamespace(html_theme_options=theme))


def _fixed(repo: str, hub: str) -> dict[str, dict]:
    context = {"header_buttons": _theme_buttons(repo, hub)}
    launch.fix_buttons(
        _fake_app(repo, hub), "chapters/11_ffn_gelu", "page.html", context, None
    )
    return {b["text"]: b for g in context["header_buttons"] for b in g["buttons"]}


def test_placeholders_turn_buttons_into_notices():
    buttons = _fixed(
        "https://github.com/formulated-gpt/formulated-gpt", "https://hub.example.org"
    )
    for name in ("Binder", "Colab", "Repository", "Open issue"):
        b = buttons[f"{name} (not configured)"]
        assert b["type"] == "javascript" and "url" not in b
        assert "repository.url" in b["tooltip"] and "_config.yml" in b["tooltip"]
    assert (
        "launch_buttons.jupyterhub_url"
        in buttons["JupyterHub (not configured)"]["tooltip"]
    )
    assert (
        buttons["Live Code"]["javascript"] == "initThebeSBT()"
    )  # not a link: left alone


def test_configured_repository_links_colab_to_the_notebook_copy():
    buttons = _fixed(REAL, "https://jupyter.university.edu")
    assert buttons["Colab"]["url"].endswith(
        "/blob/main/chapters/notebooks/11_ffn_gelu.ipynb"
    )
    assert buttons["Binder"]["url"].endswith("urlpath=lab/tree/chapters/11_ffn_gelu.md")
    assert (
        buttons["JupyterHub"]["type"] == "link" and buttons["Repository"]["url"] == REAL
    )


def test_only_the_hub_placeholder_leaves_the_other_buttons_alone():
    buttons = _fixed(REAL, "https://hub.example.org")
    assert "JupyterHub (not configured)" in buttons
    assert buttons["Binder"]["type"] == "link" and buttons["Colab"]["type"] == "link"


def test_unchanged_theme_buttons_would_link_to_the_md_source():
    """The control: without the fix, Colab gets the .md file, which it cannot open."""
    raw = {
        b["text"]: b
        for g in copy.deepcopy(_theme_buttons(REAL, "h"))
        for b in g["buttons"]
    }
    assert raw["Colab"]["url"].endswith(".md")


def test_the_page_script_and_the_config_are_wired():
    js = (ROOT / "chapters/_static_assets" / launch.LAUNCH_JS).read_text()
    assert "window.formulatedNotConfigured = function" in js
    config = (ROOT / "_config.yml").read_text()
    assert "- booktools.sphinx.launch" in config and '"chapters/notebooks"' in config


def test_built_chapter_buttons_follow_the_setting():
    """In the built book (`make book`): with the placeholders the launch buttons say "not
    configured" and call launch.js; with a real URL, Colab opens the notebook copy."""
    import re

    from _browser import require_book

    html = (require_book() / "chapters" / "11_ffn_gelu.html").read_text(
        encoding="utf-8"
    )
    start = html.index("dropdown-launch-buttons")
    menu = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html[start : start + 4000]))
    home = launch.book_home()
    if not home.repository_configured:
        for name in ("Binder", "Colab"):
            assert f"{name} (not configured)" in menu, menu[:400]
        assert "mybinder.org/v2/gh/formulated-gpt" not in html
        assert launch.LAUNCH_JS in html
    else:
        assert launch.colab_url(home, "11_ffn_gelu") in html


# ------------------------------------------------------------------------ the student edition
def _fixed_student(
    student: launch.StudentHome | None, page: str = "chapters/11_ffn_gelu"
):
    app = _fake_app(REAL, "https://jupyter.university.edu")
    setattr(app.config, "formulated_student_edition", True)
    setattr(app.config, launch.STUDENT_CONFIG, student)
    live = (
        '<script>window.FORMULATED_LIVE = {"binderUrl": "https://mybinder.org", '
        '"kernelPath": "chapters", "ref": "main", "repo": "some-course/formulated-gpt"};'
    )
    context = {
        "header_buttons": _theme_buttons(REAL, "https://jupyter.university.edu"),
        "body": live,
    }
    launch.fix_buttons(app, page, "page.html", context, None)
    return {
        b["text"]: b for g in context["header_buttons"] for b in g["buttons"]
    }, context


def test_student_edition_without_a_student_repository_shows_no_way_to_the_book():
    """The book's repository holds every solution: no Binder, Colab, JupyterHub, Repository
    or issue button, and live code asks no Binder for it."""
    buttons, context = _fixed_student(None)
    assert set(buttons) == {"Live Code"}, set(buttons)
    assert '"repo": ""' in context["body"] and "some-course" not in context["body"]
    assert launch.student_home().home.repository_url == ""  # the shipped setting: none
    assert not launch.student_home().configured


def test_student_edition_buttons_open_the_student_notebooks(tmp_path):
    (tmp_path / "_config.yml").write_text(
        "repository:\n  url: https://github.com/a/b\nstudent_edition:\n"
        "  repository_url: https://github.com/my-course/gpt-notebooks/\n  branch: spring\n"
        "  notebooks_path: week-notebooks\n"
    )
    home = launch.student_home(tmp_path / "_config.yml")
    assert home.configured and home.notebooks_path == "week-notebooks"
    buttons, context = _fixed_student(home)
    assert buttons["Colab"]["url"] == (
        "https://colab.research.google.com/github/my-course/"
        "gpt-notebooks/blob/spring/week-notebooks/11_ffn_gelu.ipynb"
    )
    assert buttons["Binder"]["url"] == (
        "https://mybinder.org/v2/gh/my-course/gpt-notebooks/"
        "spring?urlpath=lab/tree/week-notebooks/11_ffn_gelu.ipynb"
    )
    hub = buttons["JupyterHub"]["url"]
    assert hub.startswith("https://jupyter.university.edu/hub/user-redirect/git-pull?")
    assert "gpt-notebooks" in hub and "some-course" not in hub
    assert buttons["Repository"]["url"] == "https://github.com/my-course/gpt-notebooks"
    assert "Open issue" not in buttons
    assert '"repo": "my-course/gpt-notebooks"' in context["body"]
    # a page that is no chapter has no student notebook: no launch button there
    buttons, _ = _fixed_student(home, "chapters/appendix_b_errata")
    assert not {"Binder", "Colab", "JupyterHub"} & set(buttons)
