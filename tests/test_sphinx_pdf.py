"""The PDF edition's LaTeX fixes (booktools/sphinx/pdf.py) on small documents, without TeX.

The whole PDF is checked in tests/test_pdf.py (slow); these pin the pieces: figures' light
colors for print, widget panels found in a widget's state, appendices lettered, tables that fit.
"""

from __future__ import annotations

import base64
import re
import shutil
from types import SimpleNamespace

import matplotlib.pyplot as plt
import yaml
from _chapters import ROOT
from docutils import nodes
from sphinx import addnodes

from booktools.build.pdf import log_problems
from booktools.sphinx.i18n import TranslatePrinted
from booktools.sphinx.pdf import PDF_NAME, PDF_NAMES, letter_appendices, set_version
from booktools.sphinx.pdf_figures import widget_snapshot
from booktools.sphinx.pdf_tables import (
    LONG_WIDE_TABLE_ROWS,
    break_before_brackets,
    column_widths,
    fit_table,
    split_math_lists,
)
from formulated import plotting


def test_light_svg_fixes_every_themed_color_to_its_light_value() -> None:
    with plt.rc_context(plotting.style()):
        fig, ax = plt.subplots(figsize=(3, 2))
        ax.plot([0, 1], [1, 0], label="a")
        ax.grid(True)
        ax.legend()
        themed = plotting.svg(fig)
        plt.close(fig)
    light = plotting.light_svg(themed)
    assert "var(" not in light and "prefers-color-scheme" not in light
    sheet = re.search(r"<style>svg\{.*?</style>", themed, re.S).group(0)  # the theme's
    # Each themed property now carries the light color it stood for, one for one; the
    # style sheet, which named each light color once more, is gone.
    for name, values in (("fg", plotting.FOREGROUND), ("grid", plotting.GRID)):
        assert themed.count(f"var(--{name}, {values['light']})") > 0
        assert light.count(values["light"]) == (
            themed.count(values["light"]) - sheet.count(values["light"])
        ), name
    # An SVG without the theme comes back as it was.
    plain = (
        '<svg xmlns="http://www.w3.org/2000/svg"><path style="fill: #123456"/></svg>'
    )
    assert plotting.light_svg(plain) == plain


def test_widget_snapshot_finds_svg_panels_of_html_children_in_order() -> None:
    svg1, svg2 = b"<svg>1</svg>", b"<svg>2</svg>"

    def img(data: bytes) -> str:
        return f'<img alt="x" src="data:image/svg+xml;base64,{base64.b64encode(data).decode()}">'

    states = {
        "a0": {
            "model_name": "VBoxModel",
            "state": {
                "children": [  # ids are hex, as Jupyter's
                    "IPY_MODEL_b1",
                    "IPY_MODEL_c2",
                    "IPY_MODEL_d3",
                    "IPY_MODEL_e4",
                ]
            },
        },
        "b1": {"model_name": "HTMLModel", "state": {"value": "<b>Masks</b>"}},
        "c2": {
            "model_name": "FloatSliderModel",
            "state": {"description": "T", "value": 0.5},
        },
        "d3": {"model_name": "HTMLModel", "state": {"value": img(svg1)}},
        "e4": {"model_name": "HTMLModel", "state": {"value": img(svg2)}},
    }
    images, caption, text = widget_snapshot(states, "a0")
    assert images == [("image/svg+xml", svg1), ("image/svg+xml", svg2)]
    assert caption == "Masks. Snapshot of the interactive widget at T = 0.5."
    assert text == ""  # a panel's <img> is no text under the figure


def test_appendix_starts_at_the_first_unnumbered_document_not_at_a_part() -> None:
    doc = nodes.document(None, None)
    for name in ("Foundations", "ch1", "Appendices", "app_a", "app_b"):
        doc += addnodes.start_of_file(docname=name)
    letter_appendices(doc, numbered={"ch1"}, docs={"ch1", "app_a", "app_b"})
    order = [
        c["docname"] if isinstance(c, addnodes.start_of_file) else c.astext()
        for c in doc.children
    ]
    assert order == [
        "Foundations",
        "ch1",
        "Appendices",
        "\\appendix\n",
        "app_a",
        "app_b",
    ]


def table(*rows: tuple[str, ...]) -> nodes.table:
    group = nodes.tgroup(cols=len(rows[0]))
    group += [nodes.colspec(colwidth=1) for _ in rows[0]]
    body = nodes.tbody()
    for cells in rows:
        row = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            entry += nodes.paragraph(cell, cell)
            row += entry
        body += row
    group += body
    out = nodes.table()
    out += group
    return out


def test_split_math_lists_breaks_only_at_top_level_commas() -> None:
    t = table(("",))
    para = t.next_node(nodes.paragraph)
    para += [
        nodes.math("", r"\mathbf{W}^{FF,(\ell)}_1, \mathbf{b}_1"),
        nodes.Text(" and "),
        nodes.math("", r"f(a, b)"),
    ]
    split_math_lists(t)
    math_nodes = [m.astext() for m in t.findall(nodes.math)]
    assert math_nodes == [r"\mathbf{W}^{FF,(\ell)}_1", r"\mathbf{b}_1", "f(a, b)"]
    assert para.astext() == r"\mathbf{W}^{FF,(\ell)}_1, \mathbf{b}_1 and f(a, b)"


def test_column_widths_give_each_column_its_longest_word_then_share_by_length() -> None:
    long_text = "a summary of several words that runs on " * 3
    t = table(
        *[("formulated.formulas", "f", "g(x: Optional[Sequence[int]])", long_text)] * 3
    )
    widths = column_widths(t, line=100)
    assert abs(sum(widths) - 100) <= 2
    # "formulated." (11 characters + 1) on a 100-character line: at least 12 %.
    assert widths[0] >= 12
    assert widths[1] == 2  # "f" and one character
    assert widths[3] > widths[2] > widths[0]  # the rest follows the mean length
    assert re.fullmatch(r"\d+", "".join(map(str, widths)))


def test_column_widths_count_a_hangul_syllable_as_two_letters() -> None:
    """The word "FFN의" is as wide as five Latin letters: counted as four, appendix A's first
    column in the Korean PDF came out 10.6 pt too narrow for it."""
    widths = column_widths(table(("FFN의", "abcdefghij" * 5)), line=57)
    # F, F, N, 의 (two) and one more character: 6 of 6 + 51 (with 의 as one: 5 of 56, 9 %)
    assert widths == [11, 89]


def test_korean_pages_link_the_korean_pdf_and_its_latex_sets_hangul_with_xecjk(
    tmp_path,
):
    """The Korean HTML links the Korean PDF when it exists (else the English one, else none);
    the Korean LaTeX loads xeCJK with Noto CJK and no language package; English is as before."""
    shutil.copyfile(ROOT / "_config.yml", tmp_path / "_config.yml")
    pdfs = tmp_path / "_build" / "pdf"
    pdfs.mkdir(parents=True)

    mathjax = yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]["config"][
        "mathjax3_config"
    ]

    def configured(language: str | None) -> SimpleNamespace:
        config = SimpleNamespace(
            language=language,
            html_theme_options={},
            latex_elements={},
            nb_mime_priority_overrides=[],
            mathjax3_config=mathjax,
        )
        set_version(SimpleNamespace(srcdir=str(tmp_path)), config)
        return config

    assert configured("ko").formulated_pdf == ""
    (pdfs / PDF_NAME).write_bytes(b"%PDF-1.5")
    assert configured("ko").formulated_pdf == PDF_NAME
    (pdfs / PDF_NAMES["ko"]).write_bytes(b"%PDF-1.5")
    assert configured("ko").formulated_pdf == PDF_NAMES["ko"]
    assert configured("en").formulated_pdf == PDF_NAME
    korean = configured("ko").latex_elements
    assert "\\usepackage{xeCJK}" in korean["fontenc"]
    assert (
        "Noto Serif CJK KR" in korean["fontenc"]
        and "CJKspace=true" in korean["fontenc"]
    )
    assert korean["babel"] == korean["polyglossia"] == ""
    assert "\\renewcommand{\\contentsname}{차례}" in korean["preamble"]
    english = configured("en").latex_elements
    assert "fontenc" not in english and "차례" not in english["preamble"]
    # the book's macros, from _config.yml's mathjax3_config (MathJax's own list)
    assert "\\renewcommand{\\bm}[1]{\\symbfit{#1}}" in english["preamble"]
    assert "\\renewcommand{\\R}{\\mathbb{R}}" in english["preamble"]


def test_korean_widget_snapshot_caption() -> None:
    states = {
        "a0": {
            "model_name": "VBoxModel",
            "state": {"children": ["IPY_MODEL_b1", "IPY_MODEL_c2"]},
        },
        "b1": {"model_name": "HTMLModel", "state": {"value": "<b>마스크</b>"}},
        "c2": {
            "model_name": "FloatSliderModel",
            "state": {"description": "T", "value": 0.5},
        },
    }
    assert (
        widget_snapshot(states, "a0", "ko")[1]
        == "마스크. 대화형 위젯의 스냅숏: T = 0.5."
    )
    assert (
        widget_snapshot(states, "a0", "en")[1]
        == "마스크. Snapshot of the interactive widget at T = 0.5."
    )


def test_a_table_line_may_break_between_hangul_and_a_bracket() -> None:
    """Appendix F's "트랜스포머(EDTransformer)" ran 17 pt into the next column of the Korean
    PDF: a break is allowed before the bracket, not in code and not in English."""
    t = table(("인코더-디코더 트랜스포머(EDTransformer)", "transformer (E)"))
    code = nodes.paragraph()
    code += nodes.literal("", "값(x)")
    t.next_node(nodes.entry).append(code)
    break_before_brackets(t)
    first = t.next_node(nodes.paragraph)
    assert [c.astext() for c in first.children] == [
        "인코더-디코더 트랜스포머",
        "\\allowbreak{}",
        "(EDTransformer)",
    ]
    assert (
        isinstance(first.children[1], nodes.raw)
        and first.children[1]["format"] == "latex"
    )
    assert code.astext() == "값(x)" and len(list(t.findall(nodes.raw))) == 1


def _latex_document(language: str, docname: str, text: str) -> nodes.document:
    """A LaTeX builder's one document, holding page ``docname`` with one printed output, with
    just enough of Sphinx around it for the post-transforms (``language``, the catalogues)."""
    from docutils.utils import new_document

    config = SimpleNamespace(language=language, root_doc="chapters/intro")
    app = SimpleNamespace(config=config, srcdir=str(ROOT))
    doc = new_document("book")
    doc.settings.env = SimpleNamespace(app=app, config=config)
    page = addnodes.start_of_file(docname=docname)
    section = nodes.section()
    section += nodes.literal_block(text, text, classes=["output", "stream"])
    section += nodes.literal_block(text, text, classes=["output", "stderr"])
    page += section
    doc += page
    return doc


def test_korean_latex_prints_the_catalogues_translation_of_a_printed_line() -> None:
    """The Korean PDF: what a cell printed goes through the page's outputs catalogue, as in
    the Korean HTML book (stdout only, the values kept); English is untouched."""
    english = (
        "beta =    1: weights [0.2119 0.5761 0.2119]  output 26.3582\nq_1 . k_j = 7   x"
    )
    korean_doc = _latex_document("ko", "chapters/08_attention", english)
    TranslatePrinted(korean_doc).run()
    stdout, stderr = korean_doc.findall(nodes.literal_block)
    assert stdout.astext() == (
        "beta =    1: 가중치 [0.2119 0.5761 0.2119]  출력 26.3582\nq_1 . k_j = 7   x"
    )
    assert (
        stdout.rawsource == stdout.astext()
    )  # else Sphinx takes it for a parsed literal
    assert stderr.astext() == english
    english_doc = _latex_document("en", "chapters/08_attention", english)
    TranslatePrinted(english_doc).run()
    assert [b.astext() for b in english_doc.findall(nodes.literal_block)] == [
        english
    ] * 2


def test_a_wide_table_of_many_rows_is_a_longtable_and_a_narrow_one_is_not() -> None:
    """A tabulary cannot break across pages: appendix D's six-column coverage table (26 rows)
    ran 590 pt off its page, appendix F's five-column concordance (17 rows) 240 pt."""

    def fitted(*rows: tuple[str, ...]) -> nodes.table:
        page = nodes.section()  # fit_table puts its type size around the table
        page += table(*rows)
        fit_table(page[0])
        return page.next_node(nodes.table)

    wide = fitted(*[("a", "b", "c", "d", "e")] * (LONG_WIDE_TABLE_ROWS + 1))
    assert {"longtable", "colwidths-given"} <= set(wide["classes"])
    assert [c["colwidth"] for c in wide.findall(nodes.colspec)] == [20] * 5
    narrow = fitted(*[("a", "b", "c", "d")] * (LONG_WIDE_TABLE_ROWS + 1))
    assert "longtable" not in narrow["classes"]
    few = fitted(*[("a", "b", "c", "d", "e")] * LONG_WIDE_TABLE_ROWS)
    assert "longtable" not in few["classes"]


def test_log_problems_reads_content_run_off_a_page() -> None:
    log = (
        "Overfull \\vbox (242.11995pt too high) has occurred while \\output is active []\n"
        "Overfull \\vbox (4.5pt too high) has occurred while \\output is active []\n"
        "Overfull \\vbox (38.5pt too high) detected at line 13672\n"
        "Overfull \\hbox (17.1305pt too wide) in paragraph at lines 24234--24234\n"
    )
    problems = log_problems(log)
    assert problems.off_page == [242.11995]
    assert [pt for pt, _ in problems.overfull] == [17.1305]
    assert len(problems.messages()) == 2
