"""booktools.sphinx_html.break_long_code: line-break opportunities in long inline code."""
from __future__ import annotations

from booktools.sphinx_html import WBR_MIN, break_long_code


def pre(text: str) -> str:
    return f'<code class="docutils literal notranslate"><span class="pre">{text}</span></code>'


def test_long_names_break_after_dots_slashes_colons_and_underscores():
    assert break_long_code(pre("formulated.formulas.attention")) == pre(
        "formulated.<wbr>formulas.<wbr>attention")
    assert break_long_code(pre("tests/test_a.py::test_b")) == pre(
        "tests/<wbr>test_<wbr>a.<wbr>py::<wbr>test_<wbr>b")


def test_short_tokens_text_and_attributes_are_unchanged():
    short = "x" * (WBR_MIN - 2) + ".y"
    assert len(short) == WBR_MIN
    assert break_long_code(pre(short)) == pre(short.replace(".", ".<wbr>"))
    assert break_long_code(pre(short[1:])) == pre(short[1:])          # one character shorter
    html = ('<a href="https://example.org/a_b.c/d_e_f_g_h_i_j_k">formulated.formulas.attention'
            '</a><span class="n">formulated.formulas.attention</span>')
    assert break_long_code(html) == html                                # not inline code


def test_trailing_separator_gets_no_break_and_text_is_kept():
    out = break_long_code(pre("formulated.models.params."))
    assert out == pre("formulated.<wbr>models.<wbr>params.")
    assert out.replace("<wbr>", "") == pre("formulated.models.params.")
