"""Sphinx extension for the two editions: English at the root, Korean under ``ko/``.

``_config.yml`` lists it; :mod:`booktools.i18n` builds the Korean book with ``language=ko``.

* **Language switch on every page**: a link to the same page in the other language, at the top
  of the article.  An English page ``chapters/intro.html`` links to ``ko/chapters/intro.html``,
  a Korean page ``ko/chapters/intro.html`` to ``../chapters/intro.html`` (relative links, so the
  book works from ``file://`` and under any prefix).  The head also names the other page as
  ``<link rel="alternate" hreflang>``.
* **Korean typography** (``_static/i18n/ko.css``) on Korean pages only; the switch's style
  (``_static/i18n/switch.css``) on all.
* The part captions of the sidebar are translated (:class:`TranslateTocCaptions`).
* Display math is no message (:class:`KeepMathBlocks`): it cannot be translated by mistake.
* The page language (``<html lang>``) is Sphinx's ``language``: ``en`` unless set.
* **Outputs in the page's language** (Korean book only, :func:`translate_outputs`, after the
  build): printed lines, widget labels and panels' alt text (the widget state), and the texts
  of figures follow ``locales/ko/outputs/<page>.po`` (booktools/i18n/__init__.py); the
  printed values are put back unchanged, nothing runs again.  The interface strings that
  booktools, Sphinx, the theme, MyST-NB and sphinx-proof leave in English (or in a wrong
  Korean) are translated by :data:`UI_KO`, on every page (search and index pages too), and
  sphinx-copybutton's tooltips by :data:`COPYBUTTON_KO`; the ``<title>`` and the logo say
  :data:`TITLE_KO` (tests/test_korean_pages.py scans the built pages).
* **Exercise labels** as the glossary has them: "연습문제 8.1" (``numfig_format``) and
  "연습문제 8.1 풀이" (:class:`KoreanSolutionTitles`), where sphinx-exercise's Korean says
  "연습 8.1" and "해답 연습 8.1".
* **A source's names** in a table (appendix A's rows of 002, class ``source-names``): the
  Korean book translates them and keeps the source's English in a column of its own
  (:class:`SourceNamesColumn`), not as a gloss in every cell.
  **The Korean PDF** too, with the same catalogues and functions on the LaTeX builder's
  document: printed lines (:class:`TranslatePrinted`), and the widgets' snapshots and the
  figures where :mod:`booktools.sphinx.pdf_figures` makes them (:func:`translate_widget_state`,
  :func:`translate_svg`); :func:`output_table` is the one lookup of a page's translations.
* **Korean search** (:class:`booktools.sphinx.korean_search.SearchKorean`, registered here): a word
  is indexed and searched without its particle (트랜스포머의 -> 트랜스포머); English words are
  stemmed as in the English book.
* MyST-NB writes the executed notebooks and output images beside the output folder, for the
  Korean book into ``_build/html/jupyter_execute`` (4.5 MB): sphinx-book-theme's launch buttons
  read the notebooks from exactly that folder (``outdir/../jupyter_execute``), so it stays.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
from collections import ChainMap
from pathlib import Path
from typing import Any, Mapping

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform

from booktools.i18n import columns, outputs, svg_math
from booktools.i18n.catalogues import LANGUAGE
from booktools.paths import ROOT
from booktools.sphinx import launch
from booktools.sphinx.korean_search import SearchKorean

__all__ = [
    "KeepMathBlocks",
    "KoreanSolutionTitles",
    "SOURCE_NAMES",
    "SOURCE_NAMES_KO",
    "add_source_names_column",
    "SourceNamesColumn",
    "TITLE_KO",
    "EXERCISE_KO",
    "SOLUTION_KO",
    "translate_ui",
    "TranslateTocCaptions",
    "LANGUAGES",
    "SUBDIR",
    "KO_CSS",
    "SWITCH_CSS",
    "other_language",
    "switch_href",
    "switch_html",
    "UI_KO",
    "translate_page",
    "translate_svg",
    "translate_printed",
    "translate_widget_state",
    "output_table",
    "docname_of",
    "translate_outputs",
    "TranslatePrinted",
    "setup",
]

#: The two editions: language code -> the switch's text, in that language.
LANGUAGES = {"en": "English", "ko": "한국어"}
#: The folder of the Korean book inside the English one.
SUBDIR = "ko"
KO_CSS = "i18n/ko.css"
SWITCH_CSS = "i18n/switch.css"


def other_language(language: str | None) -> str:
    """The language the switch leads to: Korean from English (or no language), else English."""
    return "en" if language == "ko" else "ko"


def switch_href(pagename: str, language: str | None) -> str:
    """The relative URL of page ``pagename`` (a Sphinx docname, ``/``-separated) in the other
    language, from the page itself."""
    if "\\" in pagename or pagename.startswith("/") or not pagename:
        raise ValueError(
            f"pagename: expected a relative docname like 'chapters/intro', "
            f"got {pagename!r}"
        )
    up = "../" * pagename.count("/")
    if other_language(language) == "ko":
        return f"{up}{SUBDIR}/{pagename}.html"
    return f"../{up}{pagename}.html"


def switch_html(pagename: str, language: str | None) -> str:
    """The switch: a small navigation landmark with one link, named in its own language."""
    target = other_language(language)
    href = html.escape(switch_href(pagename, language))
    label = "Language" if language != "ko" else "언어"
    return (
        f'<nav class="formulated-lang-switch" aria-label="{label}">'
        f'<a href="{href}" hreflang="{target}" lang="{target}" rel="alternate">'
        f"{LANGUAGES[target]}</a></nav>\n"
    )


def _page_context(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    if app.builder.format != "html":
        return
    language = app.config.language
    target = other_language(language)
    href = html.escape(switch_href(pagename, language))
    context["metatags"] = (
        context.get("metatags", "")
        + f'\n<link rel="alternate" hreflang="{target}" href="{href}" />'
    )
    if "body" in context:  # pages with an article (not the search page or the index)
        context["body"] = switch_html(pagename, language) + context["body"]


def _builder_inited(app: Sphinx) -> None:
    app.add_css_file(SWITCH_CSS)
    if app.config.language != "ko":
        return
    app.add_css_file(KO_CSS)
    # the book's Korean title in every page's <title> and the sidebar's logo text
    app.config.html_title = TITLE_KO


def _korean_pdf_title(app: Sphinx, env: Any) -> None:
    """The Korean PDF's title page reads :data:`TITLE_KO`.  Jupyter Book writes the English
    title of ``_config.yml`` into ``latex_documents`` after Sphinx starts; the LaTeX builder
    reads them when it writes, after the pages are read (here)."""
    if app.config.language == "ko" and app.builder.name == "latex":
        app.config.latex_documents = [
            (d[0], d[1], TITLE_KO, *d[3:]) for d in app.config.latex_documents
        ]


def _korean_exercise_labels(app: Sphinx, config: Any) -> None:
    """The Korean book numbers exercises "연습문제 8.1" (sphinx-exercise's own Korean says
    연습): boxes, references and the PDF's titles all read ``numfig_format["exercise"]``.
    Before sphinx-exercise's handler, which keeps a value set here."""
    if config.language == "ko" and "exercise" not in (config.numfig_format or {}):
        config.numfig_format = {
            **(config.numfig_format or {}),
            "exercise": f"{EXERCISE_KO} %s",
        }


class KoreanSolutionTitles(SphinxPostTransform):
    """A solution box's title in Korean order: "연습문제 8.1 풀이" (the exercise, linked, then
    the word), where sphinx-exercise writes "해답 연습 8.1" ("Solution to" first).  After
    sphinx-exercise's title resolution (priorities 20-22), in HTML and LaTeX."""

    default_priority = 23

    def run(self, **kwargs: Any) -> None:
        if self.config.language != "ko":
            return
        from sphinx_exercise.nodes import solution_node

        for node in self.document.findall(solution_node):
            title = node.children[0] if node.children else None
            if not isinstance(title, nodes.title):
                continue
            refs = [c for c in title.children if isinstance(c, nodes.reference)]
            if len(refs) != 1:
                continue
            ref = refs[0]
            first = ref.children[0] if ref.children else None
            if not isinstance(first, nodes.Text):
                continue
            words = (
                str(first).strip().split(" ", 1)
            )  # "연습 8.1" -> the number after the word
            number = words[1] if len(words) > 1 else ""
            ref.replace(first, nodes.Text(f"{EXERCISE_KO} {number}".strip()))
            title.children = []
            title += ref
            title += nodes.Text(f" {SOLUTION_KO}")
            node["title"] = f"{EXERCISE_KO} {number} {SOLUTION_KO}".replace("  ", " ")


#: The class of a table whose first column holds a source's own names as the source writes
#: them (appendix A's rows of 002, ``formulated.notation.source_002.SOURCE_NAMES``).
SOURCE_NAMES = "source-names"
#: The Korean header of the column that keeps them in English.
SOURCE_NAMES_KO = "영어 원문"


def add_source_names_column(table: nodes.table, header: str) -> None:
    """Insert after ``table``'s first column a copy of it headed ``header``: the same cells,
    left untranslated (``translatable`` off) and marked English (``lang="en"``)."""
    tgroup = next(table.findall(nodes.tgroup), None)
    colspecs = [c for c in (tgroup or []) if isinstance(c, nodes.colspec)]
    if tgroup is None or not colspecs:
        raise ValueError(
            f"table: expected a table with columns, got {table.astext()!r:.80}"
        )
    tgroup.insert(tgroup.index(colspecs[0]) + 1, colspecs[0].deepcopy())
    tgroup["cols"] = len(colspecs) + 1
    for row in tgroup.findall(nodes.row):
        first = next(c for c in row.children if isinstance(c, nodes.entry))
        if isinstance(row.parent, nodes.thead):
            copy = nodes.entry("", nodes.paragraph(text=header))
        else:
            copy = first.deepcopy()
            for text in copy.findall(nodes.TextElement):
                text["translatable"] = False
            for paragraph in copy.findall(nodes.paragraph):
                paragraph["classes"].append("language-en")
        row.insert(row.index(first) + 1, copy)


class SourceNamesColumn(SphinxTransform):
    """The Korean book's tables of a source's names (class :data:`SOURCE_NAMES`) keep the
    source's English in a column of its own after the translated names
    (:func:`add_source_names_column`), instead of a gloss in every cell.  Before the Locale
    transform (20), after booktools.sphinx.table_sources (15) has located the cells."""

    default_priority = 16

    def apply(self, **kwargs: Any) -> None:
        if self.config.language != LANGUAGE or self.app.builder.name == "gettext":
            return
        for table in list(self.document.findall(nodes.table)):
            if SOURCE_NAMES in table["classes"]:
                add_source_names_column(table, SOURCE_NAMES_KO)


class KeepMathBlocks(SphinxTransform):
    """Display math is the same in both books: not a message to translate (Sphinx would
    extract a ``$$`` block's TeX as one)."""

    default_priority = 10  # before Sphinx's Locale transform (20) and any extraction

    def apply(self, **kwargs: Any) -> None:
        for node in self.document.findall(nodes.math_block):
            node["translatable"] = False


class TranslateTocCaptions(SphinxTransform):
    """The part captions of ``_toc.yml`` ("Foundations", …) in the page's language.

    sphinx-external-toc inserts the toctrees (its transform, priority 100) after Sphinx's
    Locale transform (20) has translated the page, so their captions would stay English in the
    sidebar; here they are looked up in the page's catalogue the way Locale does."""

    default_priority = 101

    def apply(self, **kwargs: Any) -> None:
        if self.config.language in (None, "en") or self.app.builder.name == "gettext":
            return
        from sphinx import addnodes
        from sphinx.locale import init as init_locale
        from sphinx.util.i18n import docname_to_domain

        domain = docname_to_domain(self.env.docname, self.config.gettext_compact)
        dirs = [os.path.join(self.env.srcdir, d) for d in self.config.locale_dirs]
        catalog, found = init_locale(dirs, self.config.language, domain)
        if not found:
            return
        for node in self.document.findall(addnodes.toctree):
            if node.get("caption"):
                node["caption"] = catalog.gettext(node["caption"])


# -- Outputs and interface strings in the page's language (Korean book) -------------------------

#: The Korean title of the book (the intro's heading; ``<title>`` suffix and logo text).
TITLE_KO = "수식으로 구현하는 GPT"
#: The Korean book's exercise and solution labels (the glossary's 연습문제 / 풀이):
#: "연습문제 8.1" and "연습문제 8.1 풀이" in boxes, references and the PDF.
EXERCISE_KO = "연습문제"
SOLUTION_KO = "풀이"

_NOT_CONFIGURED_KO = (
    "이 책의 공개 {what}이 아직 설정되지 않았습니다. _config.yml에서 {key} 값을 "
    "설정하고 책을 다시 빌드하십시오."
)

#: Every interface string that booktools, Sphinx, the theme (pydata-sphinx-theme and
#: sphinx-book-theme), MyST-NB and sphinx-proof leave in English (or in a wrong Korean) on a
#: Korean page, as it appears in the written HTML -> what the Korean page says instead.
#: The one table of such overrides: :func:`translate_page` applies it to every page of the
#: Korean book, tests/test_korean_pages.py checks that no English is left.  An attribute
#: entry is written with its quotes (``="Light"``), so only an attribute's whole value
#: matches; a text entry with its tags or the words around it.
UI_KO: dict[str, str] = {
    # booktools.sphinx.pdf: the download menu's entry and the footer's version
    ">Download PDF<": ">PDF 내려받기<",
    '"Download PDF"': '"PDF 내려받기"',
    '"The whole book as one PDF"': '"책 전체를 PDF 하나로"',
    '<p class="formulated-version">Version ': '<p class="formulated-version">버전 ',
    # booktools.sphinx.html: Thebe's button
    ">Live Code<": ">라이브 코드<",
    '"Live Code"': '"라이브 코드"',
    # booktools.sphinx.launch: buttons whose target the book has not configured, and their messages
    " (not configured)<": " (설정되지 않음)<",
    ' (not configured) logo"': ' (설정되지 않음) 로고"',
    ">Repository (설정되지 않음)<": ">저장소 (설정되지 않음)<",
    ">Open issue (설정되지 않음)<": ">이슈 열기 (설정되지 않음)<",
    **{
        '"' + launch.NOT_CONFIGURED.format(what=what, key=key) + '"': '"'
        + _NOT_CONFIGURED_KO.format(what=korean, key=key)
        + '"'
        for what, korean, key in (
            ("repository URL", "저장소 URL", "repository.url"),
            ("JupyterHub URL", "JupyterHub URL", "launch_buttons.jupyterhub_url"),
        )
    },
    # MyST-NB: folded cells
    ">Show code cell source<": ">코드 셀 소스 보기<",
    ">Hide code cell source<": ">코드 셀 소스 숨기기<",
    ">Show code cell outputs<": ">코드 셀 출력 보기<",
    ">Hide code cell outputs<": ">코드 셀 출력 숨기기<",
    ">Show code cell content<": ">코드 셀 내용 보기<",
    ">Hide code cell content<": ">코드 셀 내용 숨기기<",
    # pydata-sphinx-theme (no Korean for these in its catalogue)
    ">Skip to main content<": ">본문으로 건너뛰기<",
    "</i>Back to top</button>": "</i>맨 위로</button>",
    '="Search this book..."': '="이 책에서 검색…"',
    '="Color mode"': '="색상 모드"',
    '="Light"': '="밝게"',
    '="Dark"': '="어둡게"',
    '="System Settings"': '="시스템 설정"',
    '="Version warning"': '="버전 경고"',
    '="Site navigation"': '="사이트 탐색"',
    '="On this page"': '="이 페이지의 목차"',
    '="Main"': '="책 목차"',
    '="Page"': '="페이지 목차"',
    '="previous page"': '="이전 페이지"',
    '="next page"': '="다음 페이지"',
    # pydata-sphinx-theme's Korean, corrected: the page TOC's title (usual: 목차), the footer
    # ("By {author}" comes out as "으로 {author}"; a Korean book says "{author} 지음")
    '<i class="fa-solid fa-list" aria-hidden="true"></i> 내용\n': '<i class="fa-solid fa-list" aria-hidden="true"></i> 목차\n',
    "\n으로 The Formulated GPT authors\n": f"\n{TITLE_KO} 저자들 지음\n",
    "© Copyright ": "저작권 © ",
    # sphinx-book-theme (buttons and tooltips without a Korean in its catalogue; the
    # fullscreen button's Korean spaced right)
    '="Toggle primary sidebar"': '="주 사이드바 열기/닫기"',
    '="Toggle secondary sidebar"': '="보조 사이드바 열기/닫기"',
    '="Launch interactive content"': '="대화형 실행"',
    '="Launch Thebe"': '="Thebe로 실행"',
    '="Source repositories"': '="소스 저장소"',
    '="Source repository"': '="소스 저장소"',
    '="Open an issue"': '="이슈 열기"',
    ">Repository<": ">저장소<",
    ">Open issue<": ">이슈 열기<",
    '="전체 화면으로보기"': '="전체 화면으로 보기"',
    # Sphinx (its Korean catalogue lacks these)
    '="Link to this heading"': '="이 제목으로 연결"',
    '="Link to this image"': '="이 그림으로 연결"',
    '="Link to this definition"': '="이 정의로 연결"',
    '="Link to this equation"': '="이 수식으로 연결"',
    '="Link to this table"': '="이 표로 연결"',
    '="Link to this code"': '="이 코드로 연결"',
    # sphinx-proof's index page (prf-prf.html)
    "<title>Proof Index &#8212;": "<title>정의·정리 색인 &#8212;",
    "<h1>Proof Index</h1>": "<h1>정의·정리 색인</h1>",
    "<em>definition</em></td>": "<em>정의</em></td>",
    "<em>theorem</em></td>": "<em>정리</em></td>",
}

#: sphinx-copybutton's tooltips, which its script picks by the page's language and has no
#: Korean for (English: Copy, Copy to clipboard, Copied!, Failed to copy): added to the
#: Korean book's copy of the script (:func:`translate_outputs`).
COPYBUTTON_KO = {
    "copy": "복사",
    "copy_to_clipboard": "클립보드에 복사",
    "copy_success": "복사했습니다!",
    "copy_failure": "복사하지 못했습니다",
}
_COPYBUTTON_MESSAGES = "const messages = {\n"

_STREAM = re.compile(
    r'(<div class="output stream[^"]*"><div class="highlight"><pre>'
    r"(?:<span></span>)?)(.*?)(</pre>)",
    re.S,
)
_WIDGET_STATE = re.compile(
    r'(<script type="application/vnd\.jupyter\.widget-state\+json">)'
    r"(.*?)(</script>)",
    re.S,
)
_SVG_IMG = re.compile(r'<img [^>]*src="((?:\.\./)*_images/[^"]+\.svg)"')
_USE_AT = re.compile(r'<use xlink:href="#[^"]+"(?: transform="translate\((-?[\d.]+))?')
_SVG_FONT = "'DejaVu Sans', 'Noto Sans CJK KR', 'Apple SD Gothic Neo', 'Malgun Gothic', sans-serif"
_PYGMENTS_ESCAPE = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}


def _escape_pre(text: str) -> str:
    """Escaped as Pygments escapes a highlighted output line."""
    return "".join(_PYGMENTS_ESCAPE.get(c, c) for c in text)


def translate_svg(svg: str, table: Mapping[str, str]) -> str:
    """A figure with its texts translated: ``<text>`` contents, or a glyph-drawn text (each
    line of it, :data:`booktools.i18n.outputs.SVG_GLYPHS`) replaced by a ``<text>`` in the
    same place, size and color (centered on the English text's middle; left-aligned in a
    legend).  A label's math comes from the English and is written as text
    (:func:`booktools.i18n.svg_math.svg_label`)."""

    def text(m: re.Match[str]) -> str:
        english = html.unescape(m.group(2))
        korean = outputs.translate_output(english, table)
        if korean == english:
            return m.group(0)
        return (
            m.group(1) + svg_math.svg_label(korean, _font_size(m.group(1))) + m.group(3)
        )

    svg = outputs.SVG_TEXT.sub(text, svg)
    legends = [m.start() for m in re.finditer(r'<g id="legend_\d+">', svg)]
    others = [
        m.start() for m in re.finditer(r'<g id="(?:axes_|matplotlib\.axis_)\d+">', svg)
    ]

    def glyphs(m: re.Match[str]) -> str:
        english = html.unescape(m["text"])
        korean = outputs.translate_output(english, table)
        if korean == english:
            return m.group(0)
        scale = float(m["scale"])
        # the English line's width: its last glyph's place (math places glyphs of every
        # size, in any order) plus about one glyph's advance
        width = max((float(x or 0) for x in _USE_AT.findall(m["body"])), default=0.0)
        width += 60.0
        in_legend = max([p for p in legends if p < m.start()], default=-1) > max(
            [p for p in others if p < m.start()], default=-1
        )
        x, anchor = (0.0, "start") if in_legend else (width * scale / 2, "middle")
        style = (m["style"] + "; ") if m["style"] else ""
        defs = "".join(
            re.findall(r"<defs>.*?</defs>", m["body"], re.S)
        )  # later texts use them
        return (
            f'{m.group(1)}{m["text"]}{m.group(3)}{defs}<text x="{x:.3f}" y="0" '
            f'transform="{m["place"]}" style="{style}font-size: {scale * 100:.4g}px; '
            f'font-family: {_SVG_FONT}; text-anchor: {anchor}">'
            f"{svg_math.svg_label(korean, scale * 100)}</text>"
        )

    return outputs.SVG_GLYPHS.sub(glyphs, svg)


def _font_size(start_tag: str) -> float:
    """The font size of a ``<text>`` start tag, in pixels (matplotlib writes it in the
    style, or the font shorthand); 10 where it says none."""
    m = re.search(r"font(?:-size)?:[^;\"]*?([\d.]+)px", start_tag)
    return float(m[1]) if m else 10.0


def _translate_html_value(value: str, table: Mapping[str, str]) -> str:
    """A widget's HTML: alt texts and texts between tags by clauses, figures inside too."""
    value = outputs.ALT_ATTR.sub(
        lambda m: (
            m.group(1)
            + html.escape(outputs.translate_clauses(html.unescape(m.group(2)), table))
            + m.group(3)
        ),
        value,
    )
    value = outputs.SVG_DATA.sub(
        lambda m: (
            m.group(1)
            + base64.b64encode(
                translate_svg(
                    base64.b64decode(m.group(2)).decode("utf-8"), table
                ).encode()
            ).decode()
        ),
        value,
    )
    parts = re.split(r"(<[^>]*>)", value)
    return "".join(
        p
        if p.startswith("<") or not p.strip()
        else html.escape(
            outputs.translate_clauses(html.unescape(p), table), quote=False
        )
        for p in parts
    )


def translate_printed(text: str, table: Mapping[str, str]) -> str:
    """What a cell printed, line by line (:func:`booktools.outputs.translate_output`: a line
    without a translation stays as it is, the values are kept), its columns lined up again by
    display width (:func:`booktools.i18n.columns.translate_lines`)."""
    return columns.translate_lines(text, table)


def translate_widget_state(state: dict[str, Any], table: Mapping[str, str]) -> None:
    """A notebook's widget state (``{"state": {model id: model}}``) translated in place: labels,
    options, tooltips, and the texts, alt texts and figures of HTML widgets."""
    for model in state.get("state", {}).values():
        values = model.get("state", {})
        for key in outputs.WIDGET_KEYS:
            if isinstance(values.get(key), str):
                values[key] = outputs.translate_output(values[key], table)
            elif isinstance(values.get(key), list):
                values[key] = [
                    outputs.translate_output(v, table) if isinstance(v, str) else v
                    for v in values[key]
                ]
        if model.get("model_name") in outputs.HTML_WIDGETS and isinstance(
            values.get("value"), str
        ):
            values["value"] = _translate_html_value(values["value"], table)


def translate_page(page: str, table: Mapping[str, str]) -> str:
    """A written Korean page with its printed lines and widget state translated by ``table``
    (from :func:`booktools.outputs.output_table`) and the interface strings by :data:`UI_KO`;
    a line without a translation stays as it is (applying it twice changes nothing)."""

    def stream(m: re.Match[str]) -> str:
        lines = m.group(2).split("\n")
        english = [html.unescape(line) for line in lines]
        korean = translate_printed("\n".join(english), table).split("\n")
        out = [
            line if k == e else _escape_pre(k)
            for line, e, k in zip(lines, english, korean)
        ]
        return m.group(1) + "\n".join(out) + m.group(3)

    def widgets(m: re.Match[str]) -> str:
        state = json.loads(m.group(2))
        translate_widget_state(state, table)
        # as MyST-NB writes it: "</" escaped so the JSON cannot close its script element
        return (
            m.group(1)
            + json.dumps(state, ensure_ascii=False).replace("</", "<\\/")
            + m.group(3)
        )

    page = _STREAM.sub(stream, page)
    page = _WIDGET_STATE.sub(widgets, page)
    return translate_ui(page)


def translate_ui(page: str) -> str:
    """A written Korean page with the interface strings of :data:`UI_KO` in Korean."""
    for english, korean in UI_KO.items():
        page = page.replace(english, korean)
    return page


def _tables(catalogues: Path) -> dict[str, dict[str, str]]:
    return {
        po.relative_to(catalogues).with_suffix("").as_posix(): outputs.output_table(po)
        for po in sorted(catalogues.rglob("*.po"))
    }


def output_table(app: Sphinx, docname: str) -> Mapping[str, str] | None:
    """The outputs table of page ``docname`` in the build's language: the page's catalogue
    first, the other pages' next (the same line printed on two pages is translated once);
    ``None`` for a build whose language has no outputs catalogues (the English books).  Read
    once per build."""
    if app.config.language != LANGUAGE:
        return None
    cached = getattr(app, "_formulated_output_tables", None)
    if cached is None:
        catalogues = Path(app.srcdir) / outputs.OUTPUTS.relative_to(ROOT)
        tables = _tables(catalogues)
        every: dict[str, str] = {}
        for table in tables.values():
            for msgid, msgstr in table.items():
                every.setdefault(msgid, msgstr)
        cached = app._formulated_output_tables = (tables, every)  # type: ignore[attr-defined]
    tables, every = cached
    return ChainMap(tables.get(docname, {}), every)


def docname_of(node: nodes.Node, root_doc: str) -> str:
    """The page a node of the LaTeX builder's one document came from: the ``start_of_file``
    around it (the root page's own nodes have none)."""
    from sphinx import addnodes

    parent = node.parent
    while parent is not None:
        if isinstance(parent, addnodes.start_of_file):
            return parent["docname"]
        parent = parent.parent
    return root_doc


def translate_outputs(app: Sphinx, exception: Exception | None) -> None:
    """After the Korean HTML build: every page through :func:`translate_page` and the figures
    it shows through :func:`translate_svg`, with the page's :func:`output_table`."""
    if (
        exception is not None
        or app.builder.format != "html"
        or output_table(app, app.config.root_doc) is None
    ):
        return
    outdir = Path(app.outdir)
    copybutton = outdir / "_static" / "copybutton.js"
    if copybutton.is_file():
        script = copybutton.read_text(encoding="utf-8")
        if "'ko':" not in script and _COPYBUTTON_MESSAGES in script:
            korean = f"  'ko': {json.dumps(COPYBUTTON_KO, ensure_ascii=False)},\n"
            copybutton.write_text(
                script.replace(_COPYBUTTON_MESSAGES, _COPYBUTTON_MESSAGES + korean, 1),
                encoding="utf-8",
            )
    pages = {outdir / f"{docname}.html" for docname in app.env.found_docs}
    for path in sorted(
        outdir.rglob("*.html")
    ):  # the pages Sphinx writes itself: search, …
        if path not in pages and not {"_static", "_sources"} & set(path.parts):
            text = path.read_text(encoding="utf-8")
            if translate_ui(text) != text:
                path.write_text(translate_ui(text), encoding="utf-8")
    for docname in sorted(app.env.found_docs):
        path = outdir / f"{docname}.html"
        table = output_table(app, docname)
        if table is None or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        done = translate_page(text, table)
        if done != text:
            path.write_text(done, encoding="utf-8")
        for src in _SVG_IMG.findall(done):
            image = (path.parent / src).resolve()
            if image.is_file():
                svg = image.read_text(encoding="utf-8")
                korean = translate_svg(svg, table)
                if korean != svg:
                    image.write_text(korean, encoding="utf-8")


class TranslatePrinted(SphinxPostTransform):
    """The Korean PDF (LaTeX builder): what cells printed, as in the Korean HTML book
    (:func:`translate_printed` with the page's :func:`output_table`).  The widgets' snapshots
    and the figures are translated where :mod:`booktools.sphinx.pdf_figures` makes them
    (its ``WidgetSnapshots`` and ``SvgToPdf``), with the same functions."""

    default_priority = 2
    formats = ("latex",)

    def run(self, **kwargs: Any) -> None:
        if output_table(self.app, self.config.root_doc) is None:
            return
        for block in list(self.document.findall(nodes.literal_block)):
            classes = set(block["classes"])
            # what a cell printed, or the text a cell shows in a PDF (a quiz's one line)
            if "output" not in classes or not classes & {"stream", "text_plain"}:
                continue
            table = output_table(self.app, docname_of(block, self.config.root_doc))
            english = block.astext()
            korean = translate_printed(english, table or {})
            if korean != english:
                block.rawsource = (
                    korean  # Sphinx highlights a block whose text is its source
                )
                block[:] = [nodes.Text(korean)]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_transform(KeepMathBlocks)
    app.add_transform(SourceNamesColumn)
    app.add_transform(TranslateTocCaptions)
    app.connect("builder-inited", _builder_inited, priority=900)
    app.connect("html-page-context", _page_context, priority=950)
    app.connect("build-finished", translate_outputs)
    app.add_post_transform(TranslatePrinted)
    app.add_post_transform(KoreanSolutionTitles)
    app.connect("config-inited", _korean_exercise_labels, priority=400)
    app.connect("env-updated", _korean_pdf_title)
    app.add_search_language(SearchKorean)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
