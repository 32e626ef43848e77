"""The PDF edition: ``make pdf``'s book, read back with poppler's tools.

The PDF is built at most once per test session (``python -m booktools pdf``, a few minutes;
under a file lock, so pytest-xdist workers share it), and not at all when
``_build/pdf/the-formulated-gpt.pdf`` is newer than every input (CI runs ``make pdf`` first).
Needs TeX Live and poppler-utils (``make tex``); a missing tool fails with that message.
The Korean PDF (``_build/pdf/the-formulated-gpt-ko.pdf``) likewise, once, when older than the
chapters, the build code or the Korean catalogues, prose and outputs (``python -m booktools pdf
--language ko``).
"""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from _chapters import ROOT, tool

from booktools.build.pdf import KO_PDF, KO_TEX, LATEX_DIR, PDF, TEX, log_problems
from booktools.build.toc import toc_files

pytestmark = [pytest.mark.slow, pytest.mark.pdf]  # XeLaTeX

#: 341 pages (329 before the figures were images); a lost part or a doubled appendix leaves
#: the range.
PAGES = (280, 420)

INPUTS = [
    ROOT / "_toc.yml",
    ROOT / "_config.yml",
    ROOT / "booktools" / "build" / "pdf.py",
    ROOT / "formulated" / "plotting.py",
    ROOT / "booktools" / "sphinx" / "i18n.py",
    ROOT / "booktools" / "i18n" / "columns.py",
    *sorted((ROOT / "booktools" / "sphinx").glob("pdf*.py")),
    *sorted((ROOT / "chapters").glob("*.md")),
]


def build_env() -> dict[str, str]:
    """The environment of a PDF build: this one without conftest's ``MPLBACKEND=Agg``, which a
    chapter executed by the build (one missing from the cache) would inherit and then show no
    figure (chapter 18's two went missing so)."""
    return {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}


def built(language: str, pdf: Path, tex: Path, inputs: list[Path]) -> Path:
    """The PDF of ``language`` (``python -m booktools pdf --language ...``), built when it or
    its LaTeX log is missing or older than one of its ``inputs``; one worker builds, the others
    wait for it and reuse it."""
    tools = ("xelatex", "latexmk", "rsvg-convert", "pdfinfo", "pdftotext", "pdffonts")
    for name in (*tools, "pdftoppm"):
        tool(name)
    pdf.parent.mkdir(parents=True, exist_ok=True)
    with open(pdf.parent / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        log = tex.with_suffix(".log")
        if not (
            pdf.is_file()
            and log.is_file()
            and pdf.stat().st_mtime > max(p.stat().st_mtime for p in inputs)
        ):
            result = subprocess.run(
                [sys.executable, "-m", "booktools.build.pdf", "--language", language],
                cwd=ROOT,
                env=build_env(),
                capture_output=True,
                text=True,
                timeout=1500,
            )
            assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return pdf


def page_texts(pdf: Path) -> list[str]:
    """The text of every page of ``pdf`` (pdftotext, one form feed after each page)."""
    out = subprocess.run(
        [tool("pdftotext"), "-enc", "UTF-8", str(pdf), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return out.split("\f")[:-1]


@pytest.fixture(scope="session")
def pdf() -> Path:
    """The built PDF (built here when missing or older than its inputs)."""
    return built("en", PDF, TEX, INPUTS)


def normal(text: str) -> str:
    """Text compared as a reader sees it: ligatures split, one blank between words."""
    text = unicodedata.normalize("NFKC", text).replace("\u00ad", "")
    text = text.translate(
        str.maketrans("\u201c\u201d\u2018\u2019", "\"\"''")
    )  # TeX's quotes
    return re.sub(r"\s+", " ", text)


@pytest.fixture(scope="session")
def pages(pdf: Path) -> list[str]:
    return page_texts(pdf)


def chapter_titles() -> dict[str, str]:
    """The first ``# `` heading of every page of the table of contents, Markdown stripped."""
    titles = {}
    for name in toc_files():
        text = (ROOT / f"{name}.md").read_text(encoding="utf-8")
        title = re.search(r"^# (.+)$", text, re.M).group(1)
        titles[name] = re.sub(r"[`*]", "", title).strip()
    return titles


def definition_titles() -> list[tuple[str, str]]:
    """(chapter, title) of every ``{prf:definition}`` box; math ($...$) left out."""
    found = []
    for path in sorted((ROOT / "chapters").glob("*.md")):
        for title in re.findall(
            r"^```\{prf:definition\}[ \t]*(.+)$", path.read_text(encoding="utf-8"), re.M
        ):
            found.append((path.stem, title.strip()))
    return found


def text_parts(title: str) -> list[str]:
    """The pieces of a title outside its inline math and Markdown marks."""
    return [
        p.strip()
        for p in re.split(r"\$[^$]*\$", re.sub(r"[`*]", "", title))
        if p.strip()
    ]


def test_page_count(pdf: Path) -> None:
    info = subprocess.run(
        [tool("pdfinfo"), str(pdf)], capture_output=True, text=True, check=True
    ).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    assert PAGES[0] <= pages <= PAGES[1], f"{pages} pages, expected {PAGES}"


def test_every_chapter_and_definition_title_is_in_the_text(pages: list[str]) -> None:
    text = normal(" ".join(pages))
    missing = [
        f"chapter {name}: {title!r}"
        for name, title in chapter_titles().items()
        if normal(title) not in text
    ]
    missing += [
        f"definition in {chapter}: {title!r}"
        for chapter, title in definition_titles()
        for part in text_parts(title)
        if normal(part) not in text
    ]
    assert not missing, "not in the PDF's text:\n" + "\n".join(missing)


def test_no_unresolved_reference(pages: list[str]) -> None:
    bad = [
        f"page {i + 1}: ...{p[max(0, p.find('??') - 60) : p.find('??') + 20]!r}..."
        for i, p in enumerate(pages)
        if "??" in p
    ]
    assert not bad, "unresolved references ('??'):\n" + "\n".join(bad)


def test_log_has_no_error_undefined_reference_or_wide_overfull_box(pdf: Path) -> None:
    """Nor content run off a page's foot (a tabulary taller than the page: appendix D's
    coverage table lost 590 pt so)."""
    problems = log_problems(
        TEX.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    )
    assert not problems.messages(), "\n".join(problems.messages()[:40])


def test_every_glyph_is_in_its_font(pdf: Path) -> None:
    """XeLaTeX drops a character its font lacks, with only a log line."""
    log = TEX.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    missing = sorted(
        set(re.findall(r"Missing character: There is no (.+?) in font", log))
    )
    assert not missing, f"characters left out of the PDF: {missing}"


def test_fonts_embedded(pdf: Path) -> None:
    rows = subprocess.run(
        [tool("pdffonts"), str(pdf)], capture_output=True, text=True, check=True
    ).stdout.splitlines()[2:]
    assert rows, "pdffonts lists no font"
    # Columns: name, type, encoding, emb, sub, uni, object ID (the name has no blanks).
    not_embedded = [r for r in rows if r.split()[-5] != "yes"]
    assert not not_embedded, "fonts not embedded:\n" + "\n".join(not_embedded)


def chapter_pages(pages: list[str], title: str, next_title: str) -> range:
    """Pages of the chapter ``title``: from its opening page (which begins "CHAPTER", the
    number in words, the title in capitals) to the page before the next chapter's."""

    def opening(t: str) -> int:
        for i, page in enumerate(pages):
            lines = [line.strip() for line in page.split("\n") if line.strip()]
            if lines[:1] == ["CHAPTER"] and normal(
                " ".join(lines[2:5])
            ).upper().startswith(normal(t).upper()[:30]):
                return i
        raise AssertionError(f"no page opens the chapter {t!r}")

    return range(opening(title), opening(next_title))


@pytest.mark.parametrize("chapter", ["08_attention", "18_train_tiny_gpt"])
def test_chapter_pages_render(pages: list[str], pdf: Path, chapter: str) -> None:
    """Chapters 8 and 18 to PNG in _build/pdf/pages/ (to be looked at); none blank."""
    titles = chapter_titles()
    names = list(titles)
    name = f"chapters/{chapter}"
    span = chapter_pages(pages, titles[name], titles[names[names.index(name) + 1]])
    assert 3 <= len(span) <= 40, f"{chapter}: pages {span.start + 1}-{span.stop}"
    out = PDF.parent / "pages"
    out.mkdir(exist_ok=True)
    for old in out.glob(f"{chapter}-*.png"):
        old.unlink()
    subprocess.run(
        [
            tool("pdftoppm"),
            "-png",
            "-r",
            "60",
            "-f",
            str(span.start + 1),
            "-l",
            str(span.stop),
            str(pdf),
            str(out / chapter),
        ],
        check=True,
    )
    pngs = sorted(out.glob(f"{chapter}-*.png"))
    assert len(pngs) == len(span)
    from matplotlib.image import imread

    blank = [
        p.name for p in pngs if imread(p).min() > 0.95
    ]  # nothing darker than paper
    assert not blank, f"blank pages: {blank}"


def test_latex_folder_has_the_bbm_stub_and_macros(pdf: Path) -> None:
    tex = TEX.read_text(encoding="utf-8")
    assert (LATEX_DIR / "bbm.sty").is_file()
    assert "\\renewcommand{\\bm}[1]{\\symbfit{#1}}" in tex
    assert "Solutions to the exercises" in tex


def test_figures_and_widgets_are_images_not_reprs(pages: list[str]) -> None:
    """A figure or widget whose output LaTeX cannot show falls back to its Python repr."""
    text = normal(" ".join(pages))
    reprs = re.findall(r"<Figure size [^>]*>|FormulaWidget\(children=", text)
    assert not reprs, f"{len(reprs)} figures/widgets printed as text, e.g. {reprs[:3]}"
    assert "Snapshot of the interactive widget" in text


def test_appendices_are_lettered(pages: list[str]) -> None:
    """The appendices open as "APPENDIX A" ... in the order of the table of contents, the
    solutions last; no chapter is numbered after 19."""
    titles = [t for name, t in chapter_titles().items() if "/appendix_" in name]
    titles.append("Solutions to the exercises")
    openings = []
    for page in pages:
        lines = [line.strip() for line in page.split("\n") if line.strip()]
        if lines[:1] == ["APPENDIX"]:
            openings.append((lines[1], normal(" ".join(lines[2:5])).upper()))
    assert [letter for letter, _ in openings] == [
        chr(ord("A") + i) for i in range(len(titles))
    ]
    for (letter, text), title in zip(openings, titles):
        assert text.startswith(normal(title).upper()[:25]), (letter, text, title)


def test_every_figure_output_is_an_included_image(pdf: Path) -> None:
    """The chapters' figures (SVG, converted to PDF) and the widgets' panels are images in
    the LaTeX source, each file present."""
    tex = TEX.read_text(encoding="utf-8")
    included = re.findall(
        r"\\sphinxincludegraphics(?:\[[^\]]*\])?\{\{([^}]*)\}(\.\w+)\}", tex
    )
    figures = [
        n for n, ext in included if ext == ".pdf" and not n.startswith("widget-")
    ]
    panels = [n for n, ext in included if n.startswith("widget-")]
    assert len(figures) >= 38 and len(panels) >= 18, (len(figures), len(panels))
    missing = [n + e for n, e in included if not (LATEX_DIR / (n + e)).is_file()]
    assert not missing, missing


# -- The Korean edition (_build/pdf/the-formulated-gpt-ko.pdf) ---------------------------------

KO_INPUTS = [
    *INPUTS,
    *sorted((ROOT / "booktools" / "i18n").glob("*.py")),
    *sorted((ROOT / "locales" / "ko" / "LC_MESSAGES").rglob("*.po")),
    *sorted((ROOT / "locales" / "ko" / "outputs").rglob("*.po")),
]
HANGUL = re.compile(r"[\uac00-\ud7a3]")


@pytest.fixture(scope="session")
def ko_pdf() -> Path:
    """The Korean PDF, built when missing or older than its inputs: the chapters, the build
    code and the Korean catalogues."""
    return built("ko", KO_PDF, KO_TEX, KO_INPUTS)


@pytest.fixture(scope="session")
def ko_pages(ko_pdf: Path) -> list[str]:
    return page_texts(ko_pdf)


def korean_chapter_titles() -> dict[str, str]:
    """docname -> the Korean title of every page of the table of contents, from its catalogue
    (``msgstr`` of the message that is the page's ``# `` heading), Markdown stripped."""
    from babel.messages.pofile import read_po

    titles = {}
    for name in toc_files():
        heading = (
            re.search(
                r"^# (.+)$", (ROOT / f"{name}.md").read_text(encoding="utf-8"), re.M
            )
            .group(1)
            .strip()
        )
        po = ROOT / "locales" / "ko" / "LC_MESSAGES" / f"{name}.po"
        with po.open("rb") as f:
            message = read_po(f).get(heading)
        assert message is not None and message.string and not message.fuzzy, (
            f"{po.name}: no Korean for the title {heading!r}"
        )
        titles[name] = re.sub(r"[`*]", "", message.string).strip()
    return titles


def squeezed(text: str) -> str:
    """Text without blanks (pdftotext's spacing of Hangul next to Latin varies)."""
    return re.sub(r"\s+", "", normal(text))


def ko_titles_missing(pages: list[str], titles: dict[str, str]) -> list[str]:
    """The titles (Hangul ones) that no page's text holds."""
    text = squeezed(" ".join(pages))
    return [
        f"{name}: {title!r}"
        for name, title in titles.items()
        if HANGUL.search(title) and squeezed(title) not in text
    ]


def test_korean_pdf_has_every_korean_chapter_title(ko_pages: list[str]) -> None:
    titles = korean_chapter_titles()
    assert sum(bool(HANGUL.search(t)) for t in titles.values()) >= 20, titles
    missing = ko_titles_missing(ko_pages, titles)
    assert not missing, "Korean titles not in the Korean PDF:\n" + "\n".join(missing)
    # the words keep their blanks (xeCJK drops blanks between Hangul unless told otherwise)
    assert "데이터로부터 학습" in titles["chapters/01_learning_from_data"]
    assert any("데이터로부터 학습" in normal(p) for p in ko_pages)


def test_korean_pdf_has_no_unresolved_reference_error_or_wide_overfull_box(
    ko_pages: list[str],
) -> None:
    """As for the English PDF: no "??", and a log without LaTeX error, undefined reference,
    overfull box wider than 10 pt (appendix F's concordance ran 17 pt wide in Korean) or
    content run off a page."""
    bad = [f"page {i + 1}" for i, p in enumerate(ko_pages) if "??" in p]
    assert not bad, "unresolved references ('??') on " + ", ".join(bad)
    log = KO_TEX.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    problems = log_problems(log)
    assert not problems.messages(), "\n".join(problems.messages()[:20])
    missing = sorted(
        set(re.findall(r"Missing character: There is no (.+?) in font", log))
    )
    assert not missing, f"characters left out of the Korean PDF: {missing}"


def test_korean_pdf_fonts_embedded_hangul_in_noto_cjk(ko_pdf: Path) -> None:
    rows = subprocess.run(
        [tool("pdffonts"), str(ko_pdf)], capture_output=True, text=True, check=True
    ).stdout.splitlines()[2:]
    not_embedded = [r for r in rows if r.split()[-5] != "yes"]
    assert rows and not not_embedded, "fonts not embedded:\n" + "\n".join(not_embedded)
    assert any(
        "NotoSerifCJKkr" in r.replace("-", "") or "NotoSerifCJK" in r for r in rows
    ), "no Noto Serif CJK font: Hangul is not set in the Korean font\n" + "\n".join(
        rows
    )


def test_korean_chapter_8_opening_page_renders(
    ko_pages: list[str], ko_pdf: Path
) -> None:
    """Chapter 8's first page, "제 8 장" and its Korean title, to PNG in _build/pdf/pages/
    (to be looked at); not blank."""
    title = squeezed(korean_chapter_titles()["chapters/08_attention"])
    opening = [
        i for i, p in enumerate(ko_pages) if squeezed(p).startswith("제8장" + title)
    ]
    assert len(opening) == 1, f"pages opening chapter 8 ({title!r}): {opening}"
    out = KO_PDF.parent / "pages"
    out.mkdir(exist_ok=True)
    stem = out / "ko-08_attention"
    page = str(opening[0] + 1)
    subprocess.run(
        [
            tool("pdftoppm"),
            "-png",
            "-r",
            "80",
            "-f",
            page,
            "-l",
            page,
            "-singlefile",
            str(ko_pdf),
            str(stem),
        ],
        check=True,
    )
    from matplotlib.image import imread

    assert imread(stem.with_suffix(".png")).min() < 0.5, (
        "chapter 8's first page is blank"
    )


def test_korean_pdf_prints_outputs_in_korean(ko_pages: list[str]) -> None:
    """What cells print is Korean, as in the Korean HTML book: a line of chapter 8 is the
    catalogue's translation (locales/ko/outputs/chapters/08_attention.po), the same values,
    and its English is gone; widget snapshots are captioned in Korean, figures' texts are
    Korean."""
    from booktools.i18n import outputs

    table = outputs.output_table(outputs.OUTPUTS / "chapters" / "08_attention.po")
    english = "beta =    1: weights [0.2119 0.5761 0.2119]  output 26.3582"
    korean = outputs.translate_output(english, table)
    assert korean == "beta =    1: 가중치 [0.2119 0.5761 0.2119]  출력 26.3582"
    text = squeezed(" ".join(ko_pages))
    # pdftotext sets the aligned "beta =    1" apart, and "출력" after three blanks (its
    # column lined up by display width): compared from the value on, column by column
    weights, output = korean.split("=", 1)[1].split("출력")
    assert squeezed(weights) in text and squeezed("출력" + output) in text
    assert squeezed(english.split("=", 1)[1]) not in text
    assert "대화형위젯의스냅숏" in text and "Snapshotoftheinteractivewidget" not in text
    # a figure's legend (chapter 1, its catalogue's "a chord below the graph"), drawn Korean
    assert "그래프아래의현" in text


def test_boxes_are_titled_in_the_pdfs_language(
    pages: list[str], ko_pages: list[str]
) -> None:
    """Every ``{prf:definition}`` box is titled "Definition <number>" in the English PDF and
    "정의 <number>" (sphinx-proof's own Korean) in the Korean one, as in the HTML books: none is
    left in English in the Korean PDF, and the counts agree."""
    numbered = r"{} (\d+(?:\.\d+)+)"
    english = re.findall(numbered.format("Definition"), normal(" ".join(pages)))
    korean_text = normal(" ".join(ko_pages))
    korean = re.findall(numbered.format("정의"), korean_text)
    assert len(english) >= len(definition_titles()) > 0
    assert sorted(set(korean)) == sorted(set(english))
    assert not re.findall(numbered.format("Definition"), korean_text)


# -- One numbering of the boxes in the HTML books and the PDFs ----------------------------------

#: The HTML books' chapters (``make book``, ``make ko``): the numbers a citation uses.
HTML_CHAPTERS = {
    "en": ROOT / "_build" / "html" / "chapters",
    "ko": ROOT / "_build" / "html" / "ko" / "chapters",
}
#: Each language's words for a definition and an exercise box.
BOX_WORDS = {"en": ("Definition", "Exercise"), "ko": ("정의", "연습문제")}
_NUMBER = r"(\d+(?:\.\d+)+)"


def html_box_numbers(language: str) -> dict[str, set[str]]:
    """word -> the numbers of the boxes the HTML book of ``language`` titles "<word> N.M" (its
    ``caption-number`` spans); the test is skipped without that HTML book."""
    folder = HTML_CHAPTERS[language]
    pages = sorted(folder.glob("*.html")) if folder.is_dir() else []
    if not pages:
        pytest.skip(f"no HTML book in {folder.relative_to(ROOT)} (make book / make ko)")
    text = "".join(p.read_text(encoding="utf-8") for p in pages)
    return {
        word: set(re.findall(r'caption-number">' + word + " " + _NUMBER, text))
        for word in BOX_WORDS[language]
    }


def pdf_box_numbers(pages: list[str], language: str) -> dict[str, set[str]]:
    """word -> every number the PDF's text writes after "<word> " (box titles, the solutions'
    titles and cross-references)."""
    text = normal(" ".join(pages))
    gap = (
        r"\s?" if language == "ko" else " "
    )  # pdftotext may drop the blank after Hangul
    return {
        word: set(re.findall(word + gap + _NUMBER, text))
        for word in BOX_WORDS[language]
    }


def box_number_problems(
    html: dict[str, set[str]], pdf: dict[str, set[str]]
) -> list[str]:
    return [
        f"{word}: only in the PDF {sorted(pdf[word] - html[word])[:8]}, only in the HTML "
        f"{sorted(html[word] - pdf[word])[:8]}"
        for word in html
        if pdf[word] != html[word]
    ]


def test_pdf_numbers_definitions_and_exercises_as_the_html_book(
    pages: list[str],
) -> None:
    """A citation means the same box everywhere: every "Definition N.M" and "Exercise N.M" of
    the English PDF (titles, solutions, references) is one the HTML book numbers so, and
    every one of the HTML book's is in the PDF (the PDF said "Definition 8.2.1")."""
    html = html_box_numbers("en")
    assert len(html["Definition"]) >= len(definition_titles()) > 0
    problems = box_number_problems(html, pdf_box_numbers(pages, "en"))
    assert not problems, "\n".join(problems)


def test_korean_pdf_numbers_definitions_and_exercises_as_the_korean_html(
    ko_pages: list[str],
) -> None:
    """The same in Korean: "정의 8.1" and "연습문제 8.1" as the Korean HTML book."""
    html = html_box_numbers("ko")
    assert len(html["정의"]) >= len(definition_titles()) > 0 and html["연습문제"]
    problems = box_number_problems(html, pdf_box_numbers(ko_pages, "ko"))
    assert not problems, "\n".join(problems)


def test_korean_pdf_labels_exercises_and_solutions_in_one_wording(
    ko_pages: list[str],
) -> None:
    """ "연습문제 N.M", its solution "연습문제 N.M 풀이", in the appendix "연습문제 풀이":
    not sphinx-exercise's "연습 N.M" and "해답 연습 N.M", nor "연습문제 해답"."""
    text = squeezed(" ".join(ko_pages))
    assert not re.findall(r"연습(?!문제)" + _NUMBER, text)
    assert not re.search(r"해답연습", text)
    solutions = re.findall(r"연습문제" + _NUMBER + "풀이", text)
    exercises = (
        html_box_numbers("ko")["연습문제"] if HTML_CHAPTERS["ko"].is_dir() else set()
    )
    assert len(solutions) >= 30 and set(solutions) <= (exercises or set(solutions))
    assert any(squeezed(p).startswith("부록G연습문제풀이") for p in ko_pages)


def test_korean_pdf_running_head_and_foot_read_korean(ko_pages: list[str]) -> None:
    """The foot names the chapter as Korean does, "8장 어텐션" (not "장 8. 어텐션"), an
    appendix "부록 A …"; the head is the Korean title and the version, "수식으로 구현하는 GPT
    0.2.0" (no "릴리스"), as on the title page."""
    import formulated
    from booktools.sphinx.i18n import TITLE_KO

    title = squeezed(korean_chapter_titles()["chapters/08_attention"])
    lines = [{squeezed(line) for line in page.split("\n")} for page in ko_pages]
    assert (
        sum(f"8장{title}" in page for page in lines) >= 3
    )  # a line of its own: the foot
    assert not any(f"장8.{title}" in page for page in lines)
    assert not any("릴리스" in "".join(page) for page in lines)
    head = squeezed(f"{TITLE_KO} {formulated.__version__}")
    assert sum(head in page for page in lines) >= 100
    appendix_a = squeezed(
        korean_chapter_titles()[next(n for n in toc_files() if "appendix_a" in n)]
    )
    assert sum(f"부록A{appendix_a}" in page for page in lines) >= 1
