"""booktools.sphinx.html.break_long_code: line-break opportunities in long inline code."""

from __future__ import annotations

import re

from booktools.sphinx.html import WBR_MIN, break_long_code


def pre(text: str) -> str:
    return f'<code class="docutils literal notranslate"><span class="pre">{text}</span></code>'


def test_long_names_break_after_dots_slashes_colons_and_underscores():
    assert break_long_code(pre("formulated.formulas.attention")) == pre(
        "formulated.<wbr>formulas.<wbr>attention"
    )
    assert break_long_code(pre("tests/test_a.py::test_b")) == pre(
        "tests/<wbr>test_<wbr>a.<wbr>py::<wbr>test_<wbr>b"
    )


def test_short_tokens_text_and_attributes_are_unchanged():
    short = "x" * (WBR_MIN - 2) + ".y"
    assert len(short) == WBR_MIN
    assert break_long_code(pre(short)) == pre(short.replace(".", ".<wbr>"))
    assert break_long_code(pre(short[1:])) == pre(short[1:])  # one character shorter
    html = (
        '<a href="https://example.org/a_b.c/d_e_f_g_h_i_j_k">formulated.formulas.attention'
        '</a><span class="n">formulated.formulas.attention</span>'
    )
    assert break_long_code(html) == html  # not inline code


def test_trailing_separator_gets_no_break_and_text_is_kept():
    out = break_long_code(pre("formulated.models.params."))
    assert out == pre("formulated.<wbr>models.<wbr>params.")
    assert out.replace("<wbr>", "") == pre("formulated.models.params.")


def test_tidy_page_drops_fontawesome_hides_icons_and_names_by_visible_text():
    from booktools.sphinx.html import tidy_page

    page = (
        '<head>\n  <script defer src="../_static/scripts/fontawesome.js?digest=1"></script>\n'
        '<script src="../_static/doctools.js"></script></head>'
        '<button class="btn search-button-field search-button__button" title="Search" '
        'aria-label="Search"><i class="fa-solid fa-magnifying-glass"></i>'
        "<span>Search</span><kbd>Ctrl</kbd>+<kbd>K</kbd></button>"
        '<button class="btn search-button" aria-label="Search"><i class="fas fa-x"></i>'
        '</button><summary aria-label="Toggle hidden content"><p>Show code</p></summary>'
        '<i class="fa fa-play" aria-hidden="true"></i><i class="italic">word</i>'
    )
    tidy = tidy_page(page)
    assert "fontawesome.js" not in tidy and "doctools.js" in tidy
    assert (
        '<button class="btn search-button-field search-button__button" title="Search">'
        in tidy
    )
    assert (
        '<button class="btn search-button" aria-label="Search">' in tidy
    )  # icon only: kept
    assert '<i class="fa-solid fa-magnifying-glass" aria-hidden="true">' in tidy
    assert '<i class="fas fa-x" aria-hidden="true">' in tidy
    assert tidy.count("aria-hidden") == 3 and '<i class="italic">word</i>' in tidy
    assert "<summary><p>Show code</p>" in tidy
    assert tidy_page(tidy) == tidy


def test_live_config_has_no_binder_repository_while_the_url_is_a_placeholder():
    from types import SimpleNamespace

    from booktools.sphinx.html import live_config
    from booktools.sphinx.launch import PLACEHOLDER_REPOSITORY_URLS

    def app(url: str) -> SimpleNamespace:
        options = {
            "repository_url": url,
            "repository_branch": "main",
            "launch_buttons": {"binderhub_url": "https://mybinder.org"},
        }
        return SimpleNamespace(config=SimpleNamespace(html_theme_options=options))

    placeholder = next(iter(PLACEHOLDER_REPOSITORY_URLS))
    assert live_config(app(placeholder), "chapters/01_x")["repo"] == ""
    real = live_config(app("https://github.com/someone/book"), "chapters/01_x")
    assert real["repo"] == "someone/book" and real["kernelPath"] == "chapters"


def test_tidy_page_keeps_the_search_index_on_the_search_page_only():
    from booktools.sphinx.html import tidy_page

    scripts = (
        '    <script src="../_static/searchtools.js"></script>\n'
        '    <script src="../_static/language_data.js"></script>\n'
        '    <script src="../searchindex.js"></script>\n'
    )
    off = "<script>DOCUMENTATION_OPTIONS.search_as_you_type = false;</script>\n"
    chapter = (
        "<script>DOCUMENTATION_OPTIONS.pagename = 'chapters/08_attention';</script>\n"
        + off
        + scripts
        + '<i class="fab fa-github"></i>'
    )
    tidy = tidy_page(chapter)
    assert "search" not in tidy.replace("search_as_you_type", "")
    assert '<i class="fa-solid fa-code-branch" aria-hidden="true"></i>' in tidy
    assert "fab" not in tidy and tidy_page(tidy) == tidy
    search = (
        "<script>DOCUMENTATION_OPTIONS.pagename = 'search';</script>\n" + off + scripts
    )
    assert scripts in tidy_page(search)
    as_you_type = chapter.replace(
        "= false", "= true"
    )  # the theme's live search needs them
    assert scripts in tidy_page(as_you_type)


def test_source_box_words_in_each_edition():
    from booktools.sphinx.source import WORDS, box_words

    assert (
        box_words("ko")["checked"] == WORDS["ko"]["checked"] != WORDS["en"]["checked"]
    )
    assert box_words(None) == box_words("de") == WORDS["en"]
    assert set(WORDS["ko"]) == set(WORDS["en"])
    hangul = [k for k, v in WORDS["ko"].items() if re.search(r"[가-힣]", v)]
    assert set(hangul) >= {"code", "checked", "none", "shown", "above", "after"}
