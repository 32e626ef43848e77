"""Appendix A's term index (용어 대조표): the glossary as a table, Korean first and in 가나다
order in the Korean book, English first in the English one, never a message of the page's
catalogue (booktools/sphinx/term_index.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from _chapters import ROOT

from booktools.i18n.checks import glossary_terms
from booktools.sphinx import term_index


def test_rows_follow_the_glossary_in_each_language() -> None:
    terms = glossary_terms()
    assert ("model", "모형") in terms and ("KV cache", "KV 캐시") in terms
    korean = term_index.term_rows("ko")
    english = term_index.term_rows("en")
    assert len(korean) == len(english) == len(terms)
    assert ("모형", "model") in korean and ("model", "모형") in english
    assert [k for k, _ in korean] == sorted(k for k, _ in korean)  # 가나다
    assert [e.lower() for e, _ in english] == sorted(e.lower() for e, _ in english)
    assert term_index.term_rows(None) == english


def test_appendix_a_places_the_index_and_the_book_loads_it() -> None:
    appendix = (ROOT / "chapters" / "appendix_a_notation.md").read_text(
        encoding="utf-8"
    )
    assert re.search(r"^```\{term-index\}\n```$", appendix, re.M)
    config = (ROOT / "_config.yml").read_text(encoding="utf-8")
    assert re.search(r"^\s+- booktools\.sphinx\.term_index\b", config, re.M)


def _build(tmp_path: Path, builder: str, language: str) -> Path:
    """A one-page Sphinx project with the index, built in its own process, ``-W``."""
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / "conf.py").write_text(
        "extensions = ['booktools.sphinx.term_index']\n", encoding="utf-8"
    )
    (src / "index.rst").write_text(
        "Terms\n=====\n\nThe glossary.\n\n.. term-index::\n", encoding="utf-8"
    )
    out = tmp_path / f"{builder}-{language}"
    run = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", builder]
        + ["-D", f"language={language}", str(src), str(out)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    return out


@pytest.mark.parametrize(
    "language, first_row", [("ko", ("ID", "id")), ("en", ("activation", "활성화"))]
)
def test_the_table_renders_in_the_page_language(
    tmp_path: Path, language: str, first_row: tuple[str, str]
) -> None:
    page = (_build(tmp_path, "html", language) / "index.html").read_text("utf-8")
    header = term_index.HEADERS["ko" if language == "ko" else "en"]
    cells = re.findall(
        r'<t[hd][^>]*>\s*<p lang="(\w+)">(?:<span class="hangul">)?([^<]*)(?:</span>)?</p>',
        page,
    )
    texts = [text for _, text in cells]
    assert tuple(texts[:2]) == header and tuple(texts[2:4]) == first_row, texts[:4]
    assert len(cells) == 2 * (len(glossary_terms()) + 1)
    # each column says its language (the Korean pages' scan skips the English one)
    english = 1 if language == "ko" else 0
    assert {lang for lang, _ in cells[english::2]} == {"en"}
    assert {lang for lang, _ in cells[1 - english :: 2]} == {"ko"}


def test_the_cells_are_no_messages(tmp_path: Path) -> None:
    pot = (_build(tmp_path, "gettext", "en") / "index.pot").read_text("utf-8")
    assert 'msgid "The glossary."' in pot
    assert 'msgid "transformer"' not in pot and "트랜스포머" not in pot


def test_the_english_pdf_sets_the_korean_cells_in_a_hangul_font(tmp_path: Path) -> None:
    """The English PDF has no xeCJK: a Korean cell is a ``hangul`` role, which its preamble
    sets in the Noto CJK font (XeLaTeX otherwise drops every Hangul glyph, with a log line)."""
    from booktools.sphinx.pdf import HANGUL_PREAMBLE

    tex = next((_build(tmp_path, "latex", "en")).glob("*.tex")).read_text("utf-8")
    korean = [k for _, k in glossary_terms()]
    # one per Korean cell, and the header twice: a long table repeats it on every page
    assert tex.count("\\DUrole{hangul}{") == len(korean) + 2
    assert "\\DUrole{hangul}{트랜스포머}" in tex
    outside = re.sub(r"\\DUrole\{hangul\}\{(?:[^{}]|\{[^{}]*\})*\}", "", tex)
    assert not re.search("[\uac00-\ud7a3]", outside), "Hangul outside a hangul role"
    assert "\\DUrolehangul" in HANGUL_PREAMBLE and "Noto Sans CJK KR" in HANGUL_PREAMBLE
