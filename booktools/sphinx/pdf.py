"""Sphinx extension for the PDF edition and the book's version.

``_config.yml`` lists it in ``sphinx.extra_extensions``. For every builder:

* **The version from one place.** ``version`` and ``release`` are ``formulated.__version__``;
  the HTML footer says "version X" (the LaTeX title page shows the release).

For the LaTeX builder (``make pdf``, :mod:`booktools.build.pdf`):

* **The book's math macros in the preamble**, generated from ``mathjax3_config.tex.macros`` of
  ``_config.yml`` (the one list of them; MathJax reads the same entries). ``\\boldsymbol`` becomes
  unicode-math's ``\\symbfit``: the ``bm``/``amsbsy`` bold does not mix with unicode-math fonts.
* **A ``bbm.sty`` of one line** in the LaTeX folder: sphinx-jupyterbook-latex's class loads
  ``bbm`` (blackboard digits), which Debian ships only in the 500 MB ``texlive-fonts-extra``;
  the book never writes ``\\mathbbm``, so it maps to ``\\mathbb``.
* **Figures as PDF** (:mod:`booktools.sphinx.pdf_figures`). The chapters' figures are SVG
  (:mod:`formulated.plotting`), which LaTeX cannot include: MyST-NB is told to pick
  ``image/svg+xml`` for LaTeX too (after ``application/pdf``, before ``image/png``), and
  :class:`~booktools.sphinx.pdf_figures.SvgToPdf` converts each SVG with ``rsvg-convert`` (Debian's ``librsvg2-bin``) after fixing its light colors in
  (:func:`formulated.plotting.light_svg`).  Vector figures, sharp at any zoom; the HTML book
  and the notebooks are unchanged.
* **Widget snapshots as figures** (:mod:`booktools.sphinx.pdf_figures`). A widget output shows in the HTML book as its saved state;
  in LaTeX it would print its Python repr.  Instead, its figure panels (the SVG ``<img>`` of its
  ``HTML`` children, PNGs of its ``Output`` children) become one figure, whose caption is the
  widget's title and the settings of its controls, followed by the text the widget printed.
* **Appendices lettered.** The chapters of the table of contents' unnumbered part (the
  appendices; the HTML book numbers none of them) follow LaTeX's ``\appendix``: A, B, ...,
  as the chapters call them, instead of chapters 20, 21, ...
* **Solutions in an appendix.** Every ``{solution}`` box leaves its chapter and goes, in
  order, to a last appendix, "Solutions to the exercises", each under its exercise's number.
* **Tables that fit the page** (:mod:`booktools.sphinx.pdf_tables`): cells wrap, long tables
  break across pages, wide ones are set in small type.
* **The Korean edition** (``language=ko``): xeCJK and Korean captions (:func:`korean_latex`);
  the widgets' snapshots and the figures with their Korean texts (the page's outputs
  catalogue, :func:`booktools.sphinx.i18n.output_table`), a snapshot's caption in Korean
  (:data:`booktools.sphinx.pdf_figures.WIDGET_CAPTIONS`); in a table a line may break between
  Hangul and a bracket (:func:`booktools.sphinx.pdf_tables.break_before_brackets`).

For the HTML builder:

* **"Download PDF"** joins each page's download menu when the PDF exists at build time
  (``_build/pdf/the-formulated-gpt.pdf``, written by ``make pdf``), and the PDF is copied next
  to the pages; without the PDF there is no link (no dead link). Its presence is a config value
  of the ``html`` kind, so a rebuild after ``make pdf`` rewrites every page.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any, Callable

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.config import Config

from booktools.sphinx.pdf_figures import LATEX_SVG_PRIORITY, SvgToPdf, WidgetSnapshots
from booktools.sphinx.pdf_tables import break_before_brackets, fit_table

#: Relative to the repository root: where ``make pdf`` writes the book and its name in the HTML.
PDF_NAME = "the-formulated-gpt.pdf"
PDF_PATH = Path("_build") / "pdf" / PDF_NAME
#: The Korean edition's PDF (``language=ko``, :mod:`booktools.i18n`'s catalogues), beside it.
PDF_NAMES = {"en": PDF_NAME, "ko": "the-formulated-gpt-ko.pdf"}

#: Korean in XeLaTeX: xeCJK sets Hangul in the Noto CJK fonts (Debian's ``fonts-noto-cjk``), the
#: Latin text, math and code stay in the English edition's fonts.  No language package:
#: polyglossia's ``korean`` wants one Hangul font for all text, Latin too, and babel has no
#: Korean for XeLaTeX; the captions are Korean here (:data:`KOREAN_PREAMBLE`).
#: ``\xeCJKVerbAddon`` keeps code's columns (no extra space between Hangul and Latin in a
#: ``Verbatim``).  fncychap's headings spell the number in English words ("CHAPTER ONE"):
#: a Korean chapter opens "제 1 장" / "부록 A" instead.
KOREAN_LATEX = {
    "babel": "",
    "polyglossia": "",
    "fncychap": "",
    "fontenc": (
        "\\usepackage{fontspec}\n"
        "\\defaultfontfeatures[\\rmfamily,\\sffamily,\\ttfamily]{}\n"
        "\\usepackage{xeCJK}\n"
        "\\setCJKmainfont{Noto Serif CJK KR}\n"
        "\\setCJKsansfont{Noto Sans CJK KR}\n"
        "\\setCJKmonofont{Noto Sans Mono CJK KR}\n"
        # Korean puts blanks between words (xeCJK drops them, as Chinese has none)
        "\\xeCJKsetup{CJKspace=true}\n"
    ),
    "fvset": "\\fvset{fontsize=\\small,formatcom=\\xeCJKVerbAddon}",
}

#: The Korean captions, chapter heading, running foot and head.  sphinx-jupyterbook-latex's
#: preamble adds to ``\captionsenglish`` with babel's ``\addto``: both are given a harmless
#: meaning.
KOREAN_PREAMBLE = r"""
% booktools/sphinx/pdf.py: the Korean edition
\makeatletter
\providecommand{\addto}[2]{}
\providecommand{\captionsenglish}{}
\renewcommand{\contentsname}{차례}
\renewcommand{\chaptername}{장}
\renewcommand{\appendixname}{부록}
\renewcommand{\figurename}{그림}
\renewcommand{\tablename}{표}
\newcommand{\formulatedchapterlabel}{제~\thechapter~장}
\g@addto@macro\appendix{\gdef\formulatedchapterlabel{부록~\thechapter}}
% the running foot: "8장 어텐션", "부록 A 표기법" (the class's is "장 8. 어텐션")
\newcommand{\formulatedchaptermark}{\thechapter 장}
\g@addto@macro\appendix{\gdef\formulatedchaptermark{부록~\thechapter}}
\renewcommand{\chaptermark}[1]{\markboth{\ifnum\c@secnumdepth>\m@ne
  \formulatedchaptermark\space\fi #1}{}}
% the running head: "The Formulated GPT 0.1.0" (the version needs no word; Sphinx's
% "릴리스" is software talk, and "판" names an edition, which 0.1.0 is not)
\renewcommand{\py@release}{\version}
\renewcommand{\sphinxheadercomma}{\space}
\renewcommand{\@makechapterhead}[1]{\vspace*{40\p@}{\parindent\z@\raggedright\normalfont
  \ifnum\c@secnumdepth>\m@ne
    {\huge\bfseries\formulatedchapterlabel\par}\nobreak\vskip 16\p@\fi
  \interlinepenalty\@M{\Huge\bfseries #1\par}\nobreak\vskip 32\p@}}
\makeatother
"""

#: The English edition has Hangul only in appendix A's term index, whose Korean cells are
#: inlines of the class ``hangul`` (:mod:`booktools.sphinx.term_index`): set in the Noto CJK
#: font, without xeCJK, which would also take over the quotation marks and dashes of the text.
HANGUL_PREAMBLE = r"""
% booktools/sphinx/pdf.py: Hangul in the English edition (appendix A's term index)
\newfontfamily\formulatedhangul{Noto Sans CJK KR}
\newcommand{\DUrolehangul}[1]{{\formulatedhangul #1}}
"""

#: MathJax commands with a different spelling under XeLaTeX + unicode-math.
LATEX_SPELLING = {"\\boldsymbol": "\\symbfit"}

BBM_STY = (
    "\\NeedsTeXFormat{LaTeX2e}\\ProvidesPackage{bbm}[2026/01/01 stub of the book]\n"
    "\\newcommand{\\mathbbm}[1]{\\mathbb{#1}}\n"
)

APPENDIX_TITLE = "Solutions to the exercises"
#: Its title in the Korean edition.
APPENDIX_TITLES = {"en": APPENDIX_TITLE, "ko": "연습문제 풀이"}
#: The Korean edition's exercise and solution labels, one wording ("연습문제 8.1",
#: "연습문제 8.1 풀이", under "연습문제 풀이"): sphinx-exercise's own Korean says "연습 8.1" and
#: "해답 연습 8.1".
KOREAN_EXERCISE = "연습문제 %s"
KOREAN_SOLUTION = "%s 풀이"


#: Within the margins: inline code (test ids such as ``tests/test_x.py::test_a_b``, signatures
#: such as ``f(x: Optional[Sequence[int]])``) may break after ``_``, ``:``, ``(`` and ``[``
#: too (Sphinx already breaks after ``.`` and ``/``); code and outputs use DejaVu Sans Mono,
#: which has the ``ᵀ`` and ``⊙`` the outputs print (FreeMono lacks them).
#: A box's title (Sphinx sets it in one ``\makebox`` line) wraps in a ``\parbox``.
LAYOUT_PREAMBLE = r"""
% booktools/sphinx/pdf.py: breakable inline code, a monospace font with the outputs' symbols
\makeatletter
\DeclareRobustCommand{\_}{\ifmmode\nfss@text{\textunderscore}\else
  \textunderscore\discretionary{}{}{}\fi}
\def\sphinxbreaksafteractivelist{\do\.\do\,\do\;\do\?\do\!\do\/\do\:\do\(\do\[}
% the tallest an image may be, here (a widget's panels share one figure on one page)
\newcommand{\formulatedimagemaxheight}[1]{\spx@image@maxheight=#1\relax}
\makeatother
% a box's title wraps (a Code: box names several functions) instead of running off the page
\usepackage{etoolbox}
\newcommand{\formulatedtitlebox}[1]{\parbox[t]{\linewidth}{\raggedright#1}}
\patchcmd{\sphinxdotitlerowwithicon}{\makebox[\linewidth][l]}{\formulatedtitlebox}{}
  {\PackageError{formulated}{Sphinx's title row of boxes changed: titles cannot wrap}{}}
\setmonofont{DejaVu Sans Mono}[Scale=MatchLowercase]
% the math fonts' definition files are read before the first code block: the mark of a wrapped
% code line is a formula, and a .fd file read among a Verbatim's active characters is an error
% (an answer key whose first formula is that mark stopped on rsfs's)
\AtBeginDocument{\sbox0{$x$}}
"""


def mathjax_macros(mathjax3_config: dict[str, Any] | None) -> dict[str, Any]:
    """``tex.macros`` of the Sphinx config value ``mathjax3_config`` (``_config.yml``'s
    ``sphinx.config.mathjax3_config``, which Jupyter Book passes on): name -> body or
    [body, number of arguments]."""
    try:
        return dict(mathjax3_config["tex"]["macros"])  # type: ignore[index]
    except (KeyError, TypeError) as err:
        raise ValueError(
            f"mathjax3_config: expected tex.macros (sphinx.config.mathjax3_config "
            f"of _config.yml), missing {err}"
        ) from None


def latex_macros(macros: dict[str, Any]) -> str:
    """LaTeX definitions of MathJax ``macros``: ``\\providecommand`` (so a name a package already
    defines is not an error) then ``\\renewcommand`` (so the book's meaning wins)."""
    lines = []
    for name, value in macros.items():
        body, nargs = (
            (value, 0) if isinstance(value, str) else (value[0], int(value[1]))
        )
        if not isinstance(body, str) or not name.isalpha():
            raise ValueError(
                f"macro {name!r}: expected a letters-only name and a string body "
                f"or [body, arguments], got {value!r}"
            )
        for mathjax, latex in LATEX_SPELLING.items():
            body = body.replace(mathjax, latex)
        args = f"[{nargs}]" if nargs else ""
        lines.append(
            f"\\providecommand{{\\{name}}}{{}}\\renewcommand{{\\{name}}}{args}{{{body}}}"
        )
    return "\n".join(lines) + "\n"


def set_version(app: Sphinx, config: Config) -> None:
    """``version``/``release`` from ``formulated.__version__``; the HTML footer shows it."""
    import formulated

    config.version = config.release = formulated.__version__
    theme = config.html_theme_options
    footer = f'<p class="formulated-version">Version {formulated.__version__}</p>'
    theme["extra_footer"] = str(theme.get("extra_footer", "") or "") + footer
    # The Korean pages link the Korean PDF when it exists, else the English one.
    names = [PDF_NAMES["ko"], PDF_NAME] if config.language == "ko" else [PDF_NAME]
    found = [n for n in names if (Path(app.srcdir) / PDF_PATH.parent / n).is_file()]
    config.formulated_pdf = found[0] if found else ""
    overrides = [tuple(o) for o in config.nb_mime_priority_overrides]
    if LATEX_SVG_PRIORITY not in overrides:
        config.nb_mime_priority_overrides = [*overrides, LATEX_SVG_PRIORITY]
    macros = latex_macros(mathjax_macros(getattr(config, "mathjax3_config", None)))
    elements = config.latex_elements
    # A figure (a widget's snapshot) stays where the text shows it, as on the page: floated
    # (htbp), chapter 4's snapshot went to the top of a page whose unbreakable code box then
    # ran 228 pt off its foot in the Korean edition.
    elements.setdefault("figure_align", "H")
    if config.language == "ko":
        korean_latex(elements)
    else:
        elements["preamble"] = elements.get("preamble", "") + HANGUL_PREAMBLE
    elements["preamble"] = (
        elements.get("preamble", "")
        + LAYOUT_PREAMBLE
        + "\n% The book's macros (_config.yml)\n"
        + macros
    )


def korean_latex(elements: dict[str, str]) -> None:
    """``latex_elements`` of the Korean edition (:data:`KOREAN_LATEX`).  Sphinx's LaTeX builder
    takes its language name from docutils' table, which has no Korean (a warning, so an
    error under ``-W``); polyglossia's name for it, ``korean``, is added to Sphinx's copy."""
    from sphinx.builders.latex.util import ExtBabel

    if "ko" not in ExtBabel.language_codes:
        ExtBabel.language_codes = {**ExtBabel.language_codes, "ko": "korean"}
    for key, value in KOREAN_LATEX.items():
        elements.setdefault(key, value)
    elements["preamble"] = elements.get("preamble", "") + KOREAN_PREAMBLE


def write_bbm_stub(app: Sphinx) -> None:
    """The one-line ``bbm.sty`` next to the ``.tex`` (LaTeX builder only)."""
    if app.builder.format == "latex":
        Path(app.outdir).mkdir(parents=True, exist_ok=True)
        (Path(app.outdir) / "bbm.sty").write_text(BBM_STY, encoding="utf-8")


def latex_fixes(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """In the one LaTeX document: tables fit the page (:func:`fit_table`); a ``{numref}`` of an
    exercise
    links sphinx-exercise's label with the number the HTML shows (Sphinx's own ``\\ref`` of it
    stays undefined); solutions move to the appendix (:func:`solutions_to_appendix`)."""
    if app.builder.format != "latex" or docname != app.config.root_doc:
        return
    from sphinx_exercise.nodes import exercise_latex_number_reference

    for table in list(doctree.findall(nodes.table)):
        fit_table(table)
        break_before_brackets(table)
    registry = getattr(app.env, "sphinx_exercise_registry", {})
    for ref in list(doctree.findall(addnodes.number_reference)):
        target = re.split(r"[#:]", ref.get("refid") or ref.get("refuri", ""))[-1]
        if target in registry and not isinstance(ref, exercise_latex_number_reference):
            new = exercise_latex_number_reference(refid=target)
            new += nodes.Text(ref.astext())
            ref.replace_self(new)
    letter_appendices(doctree, set(app.env.toc_secnumbers), set(app.env.found_docs))
    if app.config.language == "ko":
        korean_solution_titles(doctree)
    solutions_to_appendix(
        doctree, APPENDIX_TITLES.get(app.config.language, APPENDIX_TITLE)
    )


def korean_solution_titles(doctree: nodes.document) -> None:
    """Each solution box titled "연습문제 8.1 풀이" (:data:`KOREAN_SOLUTION`) instead of
    sphinx-exercise's "해답 연습문제 8.1": its word for a solution dropped, the exercise's
    label (:data:`KOREAN_EXERCISE`, set for the Korean LaTeX build) followed by 풀이."""
    from sphinx_exercise.nodes import solution_node

    exercise = re.compile(re.escape(KOREAN_EXERCISE).replace("%s", r"[\d.]+"))
    for node in doctree.findall(solution_node):
        title = node.children[0] if node.children else None
        if not isinstance(title, nodes.title):
            continue
        found = exercise.search(title.astext())
        if found:
            label = KOREAN_SOLUTION % found.group(0)
            title[:] = [nodes.Text(label)]


def letter_appendices(
    doctree: nodes.document, numbered: set[str], docs: set[str]
) -> None:
    """``\\appendix`` before the first chapter whose document (one of ``docs``) has no section
    number (the unnumbered part after the numbered ones): from there on LaTeX letters the
    chapters.  (sphinx-jupyterbook-latex wraps each part in a ``start_of_file`` too, named by
    the part's caption, not a document.)"""
    seen_numbered = False
    for start in doctree.findall(addnodes.start_of_file):
        if start["docname"] in numbered:
            seen_numbered = True
        elif seen_numbered and start["docname"] in docs:
            start.parent.insert(
                start.parent.index(start), nodes.raw("", "\\appendix\n", format="latex")
            )
            return


def solutions_to_appendix(doctree: nodes.document, title: str = APPENDIX_TITLE) -> None:
    """Move every solution box of the LaTeX document to a last appendix chapter, ``title``."""
    from sphinx_exercise.nodes import solution_node

    found = list(doctree.findall(solution_node))
    if not found:
        return
    section = nodes.section(
        ids=["formulated-solutions"], names=["formulated-solutions"]
    )
    section += nodes.title(title, title)
    for node in found:
        node.parent.remove(node)
        section += node
    # A chapter after the last one: a sibling of the section the last document starts.
    last = list(doctree.findall(addnodes.start_of_file))[-1]
    last.parent.insert(last.parent.index(last) + 1, section)


def add_pdf_link(
    app: Sphinx,
    pagename: str,
    templatename: str,
    context: dict[str, Any],
    doctree: nodes.document | None,
) -> None:
    """ "Download PDF" as the first entry of the theme's download menu (when the PDF exists)."""
    if not app.config.formulated_pdf:
        return
    for group in context.get("header_buttons", []):
        if group.get("label") == "download-buttons":
            group["buttons"].insert(
                0,
                {
                    "type": "link",
                    "url": context["pathto"](app.config.formulated_pdf, 1),
                    "text": "Download PDF",
                    "tooltip": "The whole book as one PDF",
                    "icon": "fas fa-book",
                    "label": "download-book-pdf-button",
                },
            )


def copy_pdf(app: Sphinx, exception: Exception | None) -> None:
    """The PDF next to the HTML pages, so that the link works (also from ``file://``)."""
    if exception is None and app.builder.format == "html" and app.config.formulated_pdf:
        name = app.config.formulated_pdf
        shutil.copyfile(
            Path(app.srcdir) / PDF_PATH.parent / name, Path(app.outdir) / name
        )


def proof_title_in_language(
    depart: Callable[[Any, nodes.Element], None],
) -> Callable[[Any, nodes.Element], None]:
    """sphinx-proof's LaTeX departure, then its box title in the book's language.

    sphinx-proof titles a box ``realtype.title()`` ("Definition 8.2.1") in LaTeX but
    translates it in HTML ("정의 8.2.1"); this wrapper translates the word it has just
    inserted, with sphinx-proof's own catalogue."""
    from sphinx_proof import nodes as proof

    def wrapped(self: Any, node: nodes.Element) -> None:
        depart(self, node)
        word = node.attributes.get("realtype", "").title()
        at = proof.list_rindex(self.body, proof.latex_admonition_start) + 2
        if word and self.body[at].startswith(word):
            self.body[at] = proof._(word) + self.body[at][len(word) :]

    return wrapped


def translate_proof_titles(app: Sphinx) -> None:
    """Install :func:`proof_title_in_language` for every box of sphinx-proof (LaTeX only)."""
    if app.builder.format != "latex" or "sphinx_proof" not in app.extensions:
        return
    from sphinx_proof import nodes as proof

    kinds = [
        (
            proof.unenumerable_node,
            proof.visit_unenumerable_node,
            proof.depart_unenumerable_node,
        )
    ]
    kinds += [
        (cls, proof.visit_enumerable_node, proof.depart_enumerable_node)
        for cls in proof.NODE_TYPES.values()
    ]
    for cls, visit, depart in kinds:
        app.registry.add_translation_handlers(
            cls, latex=(visit, proof_title_in_language(depart))
        )


#: sphinx-proof's and sphinx-exercise's boxes are numbered within chapters in every edition:
#: "Definition 8.1", as the HTML book numbers them.
NUMFIG_SECNUM_DEPTH = 1


def number_boxes_by_chapter(app: Sphinx) -> None:
    """Number the LaTeX build's boxes as the HTML book does, within chapters (LaTeX only).

    sphinx-jupyterbook-latex sets ``numfig_secnum_depth`` to 2 when the table of contents
    has parts (it counts the part as a level, and its LaTeX resets the figure and equation
    counters at each chapter from that value).  Sphinx numbers the boxes with the same value
    when the environment is updated, and sphinx-proof and sphinx-exercise write those
    numbers as text: the PDF said "Definition 8.2.1" where the HTML says "Definition 8.1".
    So the numbers are assigned with :data:`NUMFIG_SECNUM_DEPTH` (this hook runs after
    sphinx-jupyterbook-latex's, priority 900) and its value comes back for the writer
    (:func:`restore_numfig_depth`), whose LaTeX counters stay within chapters."""
    if app.builder.format == "latex":
        app._formulated_numfig_depth = app.config.numfig_secnum_depth  # type: ignore[attr-defined]
        app.config.numfig_secnum_depth = NUMFIG_SECNUM_DEPTH
        if (
            app.config.language == "ko"
        ):  # exercise titles and references: "연습문제 8.1"
            app.config.numfig_format = {
                **app.config.numfig_format,
                "exercise": KOREAN_EXERCISE,
            }


def restore_numfig_depth(app: Sphinx, env: Any) -> list[str]:
    """After Sphinx has numbered the boxes (its ``env-get-updated`` listener, priority 500;
    this one runs at 999), before writing: the LaTeX writer's value of
    ``numfig_secnum_depth`` (its ``numfigreset``) as it was.  No document to rewrite."""
    depth = getattr(app, "_formulated_numfig_depth", None)
    if depth is not None:
        app.config.numfig_secnum_depth = depth
    return []


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the config value and the hooks (the page hook after the theme's, at 500)."""
    app.add_config_value("formulated_pdf", "", "html")
    app.add_post_transform(WidgetSnapshots)
    app.add_post_transform(SvgToPdf)
    app.connect("config-inited", set_version)
    app.connect("builder-inited", write_bbm_stub)
    app.connect("builder-inited", translate_proof_titles)
    app.connect("builder-inited", number_boxes_by_chapter, priority=900)
    app.connect("env-get-updated", restore_numfig_depth, priority=999)
    app.connect("doctree-resolved", latex_fixes)
    app.connect("html-page-context", add_pdf_link, priority=910)
    app.connect("build-finished", copy_pdf)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
