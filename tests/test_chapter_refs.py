"""Chapter references: ``{doc}`15_bert_roberta``` reads "Chapter 15 (BERT and
RoBERTa)" in the English book and "15장(BERT와 RoBERTa)" in the Korean one
(booktools/sphinx/chapter_refs.py), so the sentences around them say "in {doc}`x`", never
"chapter {doc}`x`" or "{doc}`x`장", and no gloss stands right before such a reference's brackets.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
import yaml
from _chapters import ROOT
from babel.messages.pofile import read_po

from booktools.i18n.catalogues import CATALOGUES
from booktools.sphinx.chapter_refs import chapter_ref_text, number_from_stem

HTML = ROOT / "_build" / "html"


# -- the text of a reference --------------------------------------------------------------------


@pytest.mark.parametrize(
    "number, title, language, expected",
    [
        (15, "BERT and RoBERTa", "en", "Chapter 15 (BERT and RoBERTa)"),
        (15, "BERT와 RoBERTa", "ko", "15장(BERT와 RoBERTa)"),
        (9, "Masks", None, "Chapter 9 (Masks)"),
        ("B", "Errata", "en", "Appendix B (Errata)"),
        ("B", "정오표", "ko", "부록 B(정오표)"),
        (None, "The Formulated GPT", "en", "The Formulated GPT"),
        (None, "수식으로 구현하는 GPT", "ko", "수식으로 구현하는 GPT"),
        (
            3,
            "Neural networks",
            "de",
            "Chapter 3 (Neural networks)",
        ),  # no format of its own
    ],
)
def test_chapter_ref_text(number, title, language, expected) -> None:
    assert chapter_ref_text(number, title, language) == expected


@pytest.mark.parametrize("bad", [True, 1.5, ""])
def test_chapter_ref_text_refuses_a_bad_number(bad) -> None:
    with pytest.raises(TypeError, match="number"):
        chapter_ref_text(bad, "Masks")


def test_numbers_from_file_names_agree_with_the_table_of_contents() -> None:
    """The Colab notebooks number chapters by file name; the book by ``_toc.yml`` (numbered parts
    counted on across parts, then the unnumbered part lettered A, B, ...)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    expected: dict[str, int | str | None] = {Path(toc["root"]).name: None}
    chapter, letters = 0, iter("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    for part in toc["parts"]:
        for entry in part["chapters"]:
            stem = Path(entry["file"]).name
            if part.get("numbered"):
                chapter += 1
                expected[stem] = chapter
            else:
                expected[stem] = next(letters)
    assert {stem: number_from_stem(stem) for stem in expected} == expected


# -- the transform, on a small Sphinx project ----------------------------------------------------


def _project(src: Path, titles: dict[str, str], body: str) -> None:
    """A book like ours: a root page, two numbered parts, an unnumbered part (appendices)."""
    src.mkdir()
    (src / "conf.py").write_text(
        "extensions = ['sphinx_multitoc_numbering', 'booktools.sphinx.chapter_refs']\n"
        "latex_documents = [('index', 'book.tex', 'Book', 'A', 'manual')]\n",
        encoding="utf-8",
    )
    parts = [
        ("One", ["ch1", "ch2"], True),
        ("Two", ["ch3"], True),
        ("Appendices", ["app_a", "app_b"], False),
    ]
    toctrees = "".join(
        f"\n.. toctree::\n   :caption: {caption}\n"
        + ("   :numbered:\n" if num else "")
        + "\n"
        + "".join(f"   {d}\n" for d in docs)
        for caption, docs, num in parts
    )
    (src / "index.rst").write_text(
        f"{titles['index']}\n{'=' * 20}\n\n{body}\n{toctrees}", encoding="utf-8"
    )
    for doc in ("ch1", "ch2", "ch3", "app_a", "app_b"):
        (src / f"{doc}.rst").write_text(
            f"{titles[doc]}\n{'=' * 20}\n\nText.\n", encoding="utf-8"
        )


def _build(src: Path, out: Path, builder: str, language: str) -> None:
    # In a process of its own: an in-process Sphinx registers node classes globally, and a
    # later strict (-W) build in the same pytest worker (the Korean book) then fails on
    # "already registered" warnings.
    import subprocess
    import sys

    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-b",
            builder,
            "-E",
            "-q",
            "-D",
            f"language={language}",
            str(src),
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr[-2000:]


BODY = "See :doc:`ch3`, :doc:`app_b`, :doc:`the first <ch1>` and :doc:`index`.\n"
CASES = {
    "en": (
        {
            "index": "The Book",
            "ch1": "Learning",
            "ch2": "Masks",
            "ch3": "BERT and RoBERTa",
            "app_a": "Notation",
            "app_b": "Errata",
        },
        [
            "Chapter 3 (BERT and RoBERTa)",
            "Appendix B (Errata)",
            "the first",
            "The Book",
        ],
    ),
    "ko": (
        {
            "index": "책",
            "ch1": "학습",
            "ch2": "마스크",
            "ch3": "BERT와 RoBERTa",
            "app_a": "표기법",
            "app_b": "정오표",
        },
        ["3장(BERT와 RoBERTa)", "부록 B(정오표)", "the first", "책"],
    ),
}


@pytest.mark.parametrize("language", sorted(CASES))
def test_a_reference_reads_number_and_title_in_html_and_latex(
    tmp_path: Path, language: str
) -> None:
    """Numbered chapters by their number across parts, appendices by letter, the unnumbered root
    page by its title; a reference with its own text keeps it.  HTML and LaTeX alike."""
    titles, expected = CASES[language]
    _project(tmp_path / "src", titles, BODY)
    _build(tmp_path / "src", tmp_path / "html", "html", language)
    page = (tmp_path / "html" / "index.html").read_text(encoding="utf-8")
    shown = [
        html.unescape(t) for t in re.findall(r'<span class="doc">([^<]*)</span>', page)
    ]
    assert shown == expected
    _build(tmp_path / "src", tmp_path / "latex", "latex", language)
    tex = (tmp_path / "latex" / "book.tex").read_text(encoding="utf-8")
    assert [t for t in re.findall(r"\\DUrole\{doc\}\{([^}]*)\}", tex)] == expected


# -- the sentences around the references ---------------------------------------------------------


def _sources() -> list[Path]:
    """Every text that writes a {doc} role: the chapters and the Python that prints Markdown."""
    return sorted(
        [
            *ROOT.glob("chapters/*.md"),
            *ROOT.glob("formulated/**/*.py"),
            *ROOT.glob("booktools/**/*.py"),
        ]
    )


#: "chapter {doc}`x`", which now reads "chapter Chapter 8"; also in Python, as an f-string's
#: ``{{doc}}``, even across two literals (``f"... in chapter "`` then ``f"{{doc}}`..."``).
CHAPTER_WORD = re.compile(
    r"\b(?:[Cc]hapter|[Aa]ppendix)(?:\s|\"\s*[fr]{0,2}\")+"
    r"\{\{?doc\}\}?`(?![^`]*<)"
)


def test_no_source_says_chapter_before_a_chapter_reference() -> None:
    found = [
        f"{p.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
        for p in _sources()
        for text in [p.read_text(encoding="utf-8")]
        for m in CHAPTER_WORD.finditer(text)
    ]
    assert found == []


def _translations() -> list[tuple[str, str, str]]:
    """(catalogue, msgid, msgstr) of every translated, current message of the Korean book."""
    out = []
    for po in sorted(CATALOGUES.rglob("*.po")):
        with po.open("rb") as f:
            out += [
                (po.relative_to(CATALOGUES).as_posix(), m.id, m.string)
                for m in read_po(f, locale="ko")
                if m.id and m.string and not m.fuzzy
            ]
    return out


#: A reference without its own text, then 장: "{doc}`09_masks`장" reads "9장(마스크)장".
KOREAN_JANG = re.compile(r"\{doc\}`[^`<]*`\s*장")
#: A gloss right before a bracketed reference: "마스크(mask)({doc}`09_masks`)" reads
#: "마스크(mask)(9장(마스크))".
GLOSS_THEN_REFERENCE = re.compile(r"\)\(\{doc\}`[^`<]*`")


@pytest.mark.parametrize(
    "pattern", [KOREAN_JANG, GLOSS_THEN_REFERENCE], ids=["jang", "gloss"]
)
def test_korean_reads_well_around_chapter_references(pattern: re.Pattern[str]) -> None:
    found = [
        f"{name}: {m.group(0)!r} in {msgstr[max(0, m.start() - 30) : m.end() + 10]!r}"
        for name, _, msgstr in _translations()
        for m in pattern.finditer(msgstr)
    ]
    assert found == []


def test_the_checks_catch_what_they_are_for() -> None:
    assert CHAPTER_WORD.search("as shown in chapter {doc}`08_attention`")
    assert CHAPTER_WORD.search('f"in chapter {{doc}}`{name}`"')
    assert CHAPTER_WORD.search(
        'f"the computation in chapter "\n            f"{{doc}}`{name}`"'
    )
    assert not CHAPTER_WORD.search("in {doc}`chapter 5 <05_notation_shapes>`")
    assert KOREAN_JANG.search("{doc}`08_attention` 장의 계산")
    assert not KOREAN_JANG.search("{doc}`5장 <05_notation_shapes>`에서")
    assert GLOSS_THEN_REFERENCE.search("자기회귀 마스크(mask)({doc}`09_masks`)가")
    assert not GLOSS_THEN_REFERENCE.search("마스크(mask, {doc}`09_masks`)가")


# -- the built books (make book; skipped without them) -------------------------------------------


def _link_texts(page: Path, target: str) -> list[str]:
    text = page.read_text(encoding="utf-8")
    return [
        html.unescape(t)
        for t in re.findall(
            rf'<a class="reference internal" href="{re.escape(target)}"><span class="doc">([^<]*)'
            r"</span></a>",
            text,
        )
    ]


@pytest.mark.parametrize(
    "book, expected",
    [
        (
            "",
            {
                "17_training_objective": (
                    "15_bert_roberta",
                    "Chapter 15 (BERT and RoBERTa)",
                ),
                "08_attention": ("09_masks", "Chapter 9 (Masks)"),
            },
        ),
        (
            "ko",
            {
                "17_training_objective": ("15_bert_roberta", "15장(BERT와 RoBERTa)"),
                "08_attention": ("09_masks", "9장(마스크)"),
            },
        ),
    ],
    ids=["en", "ko"],
)
def test_built_book_names_chapters_by_number_and_title(
    book: str, expected: dict
) -> None:
    folder = HTML / book / "chapters" if book else HTML / "chapters"
    if not (folder / "17_training_objective.html").is_file():
        pytest.skip(f"no built book at {folder.relative_to(ROOT)} (make book)")
    for page, (target, text) in expected.items():
        assert text in _link_texts(folder / f"{page}.html", f"{target}.html"), page


def test_a_reference_inside_brackets_does_not_nest_them():
    from docutils import nodes as dn

    from booktools.sphinx.chapter_refs import _in_brackets, chapter_ref_text

    assert chapter_ref_text(9, "Masks", bracketed=True) == "Chapter 9, Masks"
    assert chapter_ref_text(9, "마스크", "ko", bracketed=True) == "9장 마스크"
    assert chapter_ref_text("B", "Errata", bracketed=True) == "Appendix B, Errata"
    para = dn.paragraph()
    para += [dn.Text("the attention ("), dn.inline(), dn.Text(") and ("), dn.inline()]
    assert _in_brackets(para[1]) and _in_brackets(para[3])
    para2 = dn.paragraph()
    para2 += [dn.Text("(an aside) then "), dn.inline()]
    assert not _in_brackets(para2[1])
