"""Every figure on a Korean page speaks Korean: the texts of the built Korean figures.

A figure of a Korean page is an SVG in ``_build/html/ko/_images`` that a chapter shows, or a
widget's snapshot (an SVG inside the widget state's HTML).  The Korean build
(:func:`booktools.sphinx.i18n.translate_svg`) replaces each text line of a figure by its
translation from the outputs catalogue; a line that stays drawn as English glyphs, or a
``<text>`` the catalogue did not translate, is English on a Korean page.  The test reads what
a reader sees of every figure (each ``<text>``, and each line still drawn as glyphs: its
comment names it) and looks for English words (:func:`english_words`).  A word is no
offence when it is

* inside quotes (data: ‘book’, ('dog'));
* an identifier: with a digit or an underscore (``float32``, ``λ_max``, ``log10``);
* an acronym in capitals (GPT, RNN, FFN, BPE), or a name with a capital inside (LayerNorm,
  XLNet, ReLU, OneHot): the glossary keeps names in Latin letters;
* a name or a function in :data:`NAMES` (``softmax``, ``tanh``, ``torch``), or a model size
  in :data:`NAMED` (GPT-2 small);
* a whole line that is one word of an example's data (:data:`DATA_WORDS`: the tick labels
  of an embedding or attention plot, ``cat``, ``the``): data stays as the corpus has it.

A raster figure (PNG, JPEG) on a Korean chapter page fails too: its text cannot be read; so
does a Korean page that shows fewer figures than its English page.
The pages' test is skipped where ``_build/html/ko`` (or ``FORMULATED_KO_HTML``) is absent
(``python -m booktools i18n build``).  ``python tests/test_korean_figures.py [folder]``
prints every figure that has English.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
import sys
from pathlib import Path

import pytest

from booktools import myst
from booktools.i18n import KO_HTML, outputs, svg_math
from booktools.sphinx.i18n import translate_svg

#: The built Korean book (``FORMULATED_KO_HTML`` names another, e.g. an older build's copy).
BOOK = Path(os.environ.get("FORMULATED_KO_HTML") or KO_HTML)

#: Functions, libraries and names a Korean figure writes as the English one does.
NAMES = frozenset(
    # functions as code and formulas write them
    "softmax sigmoid tanh relu erf sqrt log ln exp sin cos max min inf Var Mask torch "
    "ids top".split()
)
#: Names of more than one word (model sizes, a data set, a sampling rule).
NAMED = (
    "GPT-1",
    "GPT-2 small",
    "GPT-2 medium",
    "GPT-2 large",
    "GPT-2 XL",
    "GPT-3 175B",
    "BERT-base",
    "Tiny Shakespeare",
    "top-k",
    "post-LN",
    "pre-LN",
)
#: The words of the examples' data (vocabularies, sentences), allowed as a whole line: a
#: tick label of an embedding or attention plot.
DATA_WORDS = frozenset(
    "cat dog kitten puppy mouse king queen crown castle house milk water fish meat cheese "
    "the The big red sat down".split()
)

_QUOTED = re.compile(r"‘[^’]*’|'[^']*'|“[^”]*”|\"[^\"]*\"")
_TOKEN = re.compile(r"[A-Za-z0-9_]+")
_TAG = re.compile(r"<[^>]+>")
_IMG = re.compile(r'<img [^>]*src="((?:\.\./)*_images/[^"]+)"')
_WIDGETS = re.compile(
    r'<script type="application/vnd\.jupyter\.widget-state\+json">(.*?)</script>', re.S
)


def english_words(line: str) -> list[str]:
    """The English words of one line of a figure's text (empty when it has none)."""
    line = line.strip()
    if line in DATA_WORDS:
        return []
    line = _QUOTED.sub(" ", line)
    for name in NAMED:
        line = line.replace(name, " ")
    found = []
    for token in _TOKEN.findall(line):
        if len(re.findall("[A-Za-z]", token)) < 2 or re.search(r"[\d_]", token):
            continue  # a letter (a variable), an identifier
        if token.isupper() or re.search(r"[a-z][A-Z]|[A-Z]{2}[a-z]", token):
            continue  # an acronym, a name with a capital inside
        if token not in NAMES:
            found.append(token)
    return found


#: A formula's variable in a translated figure (booktools.i18n.svg_math writes each in italics).
_VARIABLE = re.compile(r'<tspan [^>]*font-style="italic"[^>]*>[^<]*</tspan>')


def _lines(svg: str) -> list[tuple[str, str]]:
    """Each line a reader sees in a figure, as shown and as checked for words: a ``<text>``
    (its tags removed; its formula's italic variables left out of the check) and a line
    still drawn as glyphs (named by its comment; its math shown as drawn, not checked)."""
    found = []
    for m in re.finditer(r"<text\b[^>]*>(.*?)</text>", svg, re.S):
        shown = html.unescape(_TAG.sub("", m[1]))
        found.append((shown, html.unescape(_TAG.sub(" ", _VARIABLE.sub(" ", m[1])))))
    for m in outputs.SVG_GLYPHS.finditer(svg):
        line = html.unescape(m["text"])
        found.append((_as_drawn(line), myst.MATH.sub(" ", line)))
    return found


def _as_drawn(line: str) -> str:
    """A line drawn as glyphs with its math as a reader sees it."""

    def seen(m: re.Match[str]) -> str:
        try:
            return svg_math.math_text(m[0].strip("$"))
        except ValueError:
            return m[0]

    return myst.MATH.sub(seen, line)


def figure_lines(svg: str) -> list[str]:
    """What a reader sees written in a figure, line by line."""
    return [shown for shown, _ in _lines(svg)]


def english_lines(svg: str) -> list[str]:
    """The lines of a figure that have English words (as shown)."""
    return [shown for shown, checked in _lines(svg) if english_words(checked)]


def page_figures(page: Path) -> dict[str, str]:
    """A Korean page's figures: name -> SVG text (its ``_images`` files, and the SVGs of
    its widgets' snapshots); a raster image as its name -> ``""``."""
    text = page.read_text(encoding="utf-8")
    figures: dict[str, str] = {}
    for src in _IMG.findall(text):
        image = (page.parent / src).resolve()
        svg = image.suffix == ".svg" and image.is_file()
        figures[image.name] = image.read_text(encoding="utf-8") if svg else ""
    for i, state in enumerate(_WIDGETS.findall(text)):
        value = json.dumps(json.loads(state.replace("<\\/", "</")), ensure_ascii=False)
        for j, m in enumerate(outputs.SVG_DATA.finditer(value)):
            figures[f"widget {i}.{j}"] = base64.b64decode(m.group(2)).decode("utf-8")
    return figures


def offences(book: Path) -> dict[str, list[str]]:
    """``page: figure`` -> its English lines, for every chapter page of a built Korean book
    (a raster figure: one line saying so)."""
    found: dict[str, list[str]] = {}
    for page in sorted((book / "chapters").glob("*.html")):
        for name, svg in page_figures(page).items():
            lines = english_lines(svg) if svg else [f"a raster figure: {name}"]
            if lines:
                found[f"{page.stem}: {name}"] = lines
    return found


# -- the built book -------------------------------------------------------------------------


def test_no_english_in_the_korean_books_figures() -> None:
    if not (BOOK / "chapters").is_dir():
        pytest.skip(f"no Korean book at {BOOK}: python -m booktools i18n build")
    found = offences(BOOK)
    assert not found, "\n".join(f"{k}: {v}" for k, v in found.items())


def missing_figures(book: Path, english: Path) -> dict[str, tuple[int, int]]:
    """``page`` -> (figures of the English page, of the Korean page), for every chapter page
    of the Korean ``book`` that shows fewer figures than its English page in ``english``."""
    found = {}
    for page in sorted((book / "chapters").glob("*.html")):
        other = english / "chapters" / page.name
        if other.is_file():
            counts = len(page_figures(other)), len(page_figures(page))
            if counts[1] < counts[0]:
                found[page.stem] = counts
    return found


def test_a_korean_page_shows_every_figure_of_its_english_page() -> None:
    """Both books render the same executed notebooks: a figure missing from a Korean page
    is a figure the Korean reader never sees (an output lost from the execution cache)."""
    if not (BOOK / "chapters").is_dir() or not (BOOK.parent / "chapters").is_dir():
        pytest.skip(f"no English and Korean books at {BOOK.parent}: make book")
    assert missing_figures(BOOK, BOOK.parent) == {}


def test_the_scan_finds_a_planted_english_label(tmp_path: Path) -> None:
    """A Korean book whose one figure keeps an English title (a ``<text>``), an English line
    drawn as glyphs, and a PNG: each is found; its Korean lines and allowed names are not."""
    korean = (
        '<g id="text_1"><text x="0" y="0">행 표준편차 σ</text></g>'
        '<g id="text_2"><text x="0" y="0">GPT-2 small, LayerNorm, ‘book’, float32</text>'
        '</g><g id="text_3"><text x="0" y="0">dog</text></g>'
    )
    planted = (
        '<g id="text_4"><text x="0" y="0">The two placements of ε</text></g>'
        '<g id="text_5">\n <!-- 33 of 144 pairs -->\n'
        ' <g transform="translate(1 2) scale(0.1 -0.1)"><use xlink:href="#a"/></g>\n</g>'
    )
    (tmp_path / "_images").mkdir()
    (tmp_path / "chapters").mkdir()
    (tmp_path / "_images" / "fig.svg").write_text(f"<svg>{korean}</svg>", "utf-8")
    page = tmp_path / "chapters" / "01_x.html"
    page.write_text('<img alt="" src="../_images/fig.svg"/>', "utf-8")
    assert offences(tmp_path) == {}
    (tmp_path / "_images" / "fig.svg").write_text(
        f"<svg>{korean}{planted}</svg>", "utf-8"
    )
    (tmp_path / "_images" / "plot.png").write_bytes(b"\x89PNG")
    page.write_text(
        '<img alt="" src="../_images/fig.svg"/><img alt="" src="../_images/plot.png"/>',
        "utf-8",
    )
    assert offences(tmp_path) == {
        "01_x: fig.svg": ["The two placements of ε", "33 of 144 pairs"],
        "01_x: plot.png": ["a raster figure: plot.png"],
    }
    # the English page shows one figure more than the Korean one
    (tmp_path / "en" / "chapters").mkdir(parents=True)
    (tmp_path / "en" / "chapters" / "01_x.html").write_text(
        page.read_text("utf-8") + '<img alt="" src="../_images/more.svg"/>', "utf-8"
    )
    assert missing_figures(tmp_path, tmp_path / "en") == {"01_x": (3, 2)}


def test_allowed_words_are_no_offence_and_english_is() -> None:
    for line in (
        "GELU (tanh)",
        "softmax(Q K^T / sqrt(3))",
        "Mask^ST (띠)",
        "XLNet, z = (3, 1, 4, 2)",
        "the",
        "‘book’ 프리셋 훈련",
        "bfloat16",
        "max |Δp|",
    ):
        assert english_words(line) == [], line
    assert english_words("the big red dog") == ["the", "big", "red", "dog"]
    assert english_words("P(heads)") == ["heads"]
    assert english_words("ffn") == ["ffn"]


# -- the pipeline that makes them (no build needed) ----------------------------------------


def _figure_svg(title: str, xlabel: str, ylabel: str) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from formulated import plotting

    with matplotlib.rc_context(plotting.style()):
        fig, ax = plt.subplots(figsize=(3, 2))
        ax.plot([1, 2], [1, 2], label=r"$1/\sigma$ (no $\epsilon$)")
        ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
        ax.legend()
        svg = plotting.svg(fig)
        plt.close(fig)
    return svg


def test_every_line_of_a_figure_and_every_label_with_math_is_a_message() -> None:
    svg = _figure_svg(
        "bidirectional\n33 of 144 pairs",
        r"row standard deviation $\sigma$",
        r"$\|\partial x_l / \partial x_0\|_2$",
    )
    msgids = {outputs.output_template(f)[0] for f in outputs.svg_fragments(svg)}
    assert {
        "bidirectional",
        "{0} of {1} pairs",  # the second line of a title
        "row standard deviation {0}",  # a label's math is one value
        "{0} (no {1})",
    } <= msgids
    assert not any("partial" in m for m in msgids)  # all math: nothing to translate


def test_a_translated_figure_has_no_english_and_writes_its_math_as_text() -> None:
    svg = _figure_svg(
        "bidirectional\n33 of 144 pairs",
        r"row standard deviation $\sigma$",
        r"factor applied to $x - \mu$",
    )
    assert english_lines(svg)  # the English figure
    table = {
        "bidirectional": "양방향",
        "{0} of {1} pairs": "쌍 {1}개 중 {0}개",
        "row standard deviation {0}": "행 표준편차 {0}",
        "factor applied to {0}": "{0}에 곱하는 인수",
        "{0} (no {1})": "{0} ({1} 없음)",
    }
    korean = translate_svg(svg, table)
    assert english_lines(korean) == []
    lines = figure_lines(korean)
    assert {
        "양방향",
        "쌍 144개 중 33개",
        "행 표준편차 σ",
        "x − μ에 곱하는 인수",
    } <= set(lines)
    assert "1/σ (ε 없음)" in lines
    # one message missing: its line stays English, and the scan says so
    del table["{0} of {1} pairs"]
    assert english_lines(translate_svg(svg, table)) == ["33 of 144 pairs"]


def test_math_as_svg_text() -> None:
    assert svg_math.math_text(r"1/\sqrt{\sigma^2+\epsilon}") == "1/√(σ2 + ε)"
    assert svg_math.math_text(r"x_l = x_{l-1} + f_l(x_{l-1})") == "xl = xl−1 + fl(xl−1)"
    assert svg_math.math_text(r"\epsilon = 10^{-5}") == "ε = 10−5"
    assert svg_math.math_text(r"\|\partial x_l / \partial x_0\|_2") == "‖∂xl/∂x0‖2"
    label = svg_math.svg_label(r"$\sigma^2$ 값 & <b>", 10)
    assert label == (
        'σ<tspan dy="-4" font-size="7">2</tspan><tspan dy="4"> 값 &amp; &lt;b&gt;</tspan>'
    )
    with pytest.raises(ValueError, match=r"no SVG text for \\overbrace"):
        svg_math.math_runs(r"\overbrace{x}")
    with pytest.raises(ValueError, match="without its"):
        svg_math.math_runs(r"x^{2")
    with pytest.raises(ValueError, match="size"):
        svg_math.svg_label("x", 0)


if __name__ == "__main__":
    book = Path(sys.argv[1]) if len(sys.argv) > 1 else BOOK
    for where, lines in offences(book).items():
        print(f"{where}: {lines}")
    for page, (en, ko) in missing_figures(book, book.parent).items():
        print(f"{page}: {en} figures in English, {ko} in Korean")
