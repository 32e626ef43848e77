"""``make pdf``: the book as one PDF, from the chapters the HTML book executed.

Jupyter Book 1's LaTeX route with Debian's TeX Live (XeLaTeX, ``latexmk``):

1. ``make pdf`` first runs :mod:`booktools.build.prebuild`, which executes only the chapters whose
   code is not yet in the execution cache ``_build/.jupyter_cache``; Sphinx then finds every
   chapter there ("Using cached notebook") and executes nothing.
2. Sphinx's LaTeX builder writes ``_build/latex/the-formulated-gpt.tex`` (``-n -W``: a warning
   fails the build, as for the HTML book). Its doctrees go to ``_build/.doctrees-latex``, so
   the HTML and LaTeX builds never invalidate each other's environment.
   :mod:`booktools.sphinx.pdf` adds the book's macros, the ``bbm`` stub, the figures as PDF
   (``rsvg-convert``), the widgets' snapshots, lettered appendices and the solutions appendix.
3. ``latexmk`` (XeLaTeX, as many runs as the cross-references need) makes the PDF, copied to
   ``_build/pdf/the-formulated-gpt.pdf``; then the log is checked (:func:`log_problems`): no
   LaTeX error, no undefined reference, no overfull box wider than :data:`MAX_OVERFULL_PT`,
   nothing run off a page's foot (a table taller than the page).

**The Korean edition** (``_build/pdf/the-formulated-gpt-ko.pdf``) is the same route with
:mod:`booktools.i18n`'s settings (``language=ko``, the catalogues compiled into
``_build/i18n/locales``), from the same execution cache (nothing runs again), in
``_build/latex-ko`` with its own doctrees; :func:`booktools.sphinx.pdf.korean_latex` sets
Hangul with xeCJK and the Noto CJK fonts (Debian's ``texlive-lang-cjk``, ``fonts-noto-cjk``).
What cells print, the widgets' labels and the figures' texts are Korean in it as in the Korean
HTML book: the same outputs catalogues (``locales/ko/outputs``) and functions
(:mod:`booktools.sphinx.i18n`), applied to the LaTeX document.

The instructors' answer keys (``make answer-keys KEYS_ARGS=--pdf``,
:mod:`booktools.course.answer_keys`) take the same route: :func:`sphinx_latex`, :func:`latexmk` and
:func:`log_problems`.

``python -m booktools pdf [--language en|ko|all] [--tex-only]`` (``all``, the default, builds
both; ``--tex-only`` stops after step 2, to iterate on the ``.tex`` with ``latexmk`` in
``_build/latex``).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from booktools.paths import CONFIG, ROOT
from booktools.sphinx.pdf import PDF_NAMES, PDF_PATH

__all__ = [
    "LATEX_DIR",
    "PDF",
    "TEX",
    "KO_LATEX_DIR",
    "KO_PDF",
    "KO_TEX",
    "Edition",
    "EDITIONS",
    "MAX_OVERFULL_PT",
    "LogProblems",
    "log_problems",
    "sphinx_latex",
    "build_tex",
    "check_tools",
    "latexmk",
    "build_pdf",
    "main",
]


@dataclass(frozen=True)
class Edition:
    """Where one language's LaTeX build writes: its folder, doctrees and the final PDF
    (the ``.tex`` is always ``the-formulated-gpt.tex``: jupyter-book sets the name from
    ``_config.yml`` after any override)."""

    language: str
    latex_dir: Path
    doctrees: Path
    pdf: Path

    @property
    def tex(self) -> Path:
        return self.latex_dir / "the-formulated-gpt.tex"


EDITIONS = {
    "en": Edition(
        "en",
        ROOT / "_build" / "latex",
        ROOT / "_build" / ".doctrees-latex",
        ROOT / PDF_PATH,
    ),
    "ko": Edition(
        "ko",
        ROOT / "_build" / "latex-ko",
        ROOT / "_build" / ".doctrees-latex-ko",
        ROOT / PDF_PATH.parent / PDF_NAMES["ko"],
    ),
}
LATEX_DIR, TEX, PDF = EDITIONS["en"].latex_dir, EDITIONS["en"].tex, EDITIONS["en"].pdf
KO_LATEX_DIR, KO_TEX, KO_PDF = (
    EDITIONS["ko"].latex_dir,
    EDITIONS["ko"].tex,
    EDITIONS["ko"].pdf,
)

#: An overfull box wider than this is a line that runs into the margin visibly.
MAX_OVERFULL_PT = 10.0

#: Debian packages of the route (``make pdf`` installs them when missing; CI runs as root).
APT_PACKAGES = (
    "texlive-xetex",
    "texlive-latex-extra",
    "texlive-fonts-recommended",
    "latexmk",
    "fonts-freefont-otf",
    "fonts-dejavu-core",
    "poppler-utils",
    "librsvg2-bin",
    "texlive-lang-cjk",
    "fonts-noto-cjk",
)

_OVERFULL = re.compile(r"^Overfull \\hbox \((\d+(?:\.\d+)?)pt too wide\)(.*)$", re.M)
#: What the page builder could not fit on a page (a ``tabulary`` taller than the page): it runs
#: off the page's foot, which no overfull hbox reports.
_OFF_PAGE = re.compile(
    r"^Overfull \\vbox \((\d+(?:\.\d+)?)pt too high\) has occurred while "
    r"\\output is active",
    re.M,
)
_ERROR = re.compile(r"^! (.*)$", re.M)
_UNDEFINED = re.compile(
    r"LaTeX Warning: (?:Reference|Citation|Hyper reference) `([^']*)' "
    r"on page (\d+) undefined"
)


@dataclass(frozen=True)
class LogProblems:
    """What the XeLaTeX log of the book reports."""

    errors: list[str]
    undefined: list[str]
    overfull: list[tuple[float, str]]
    off_page: list[float]

    def messages(self) -> list[str]:
        """One line per problem, for a build's output or a test's failure."""
        return (
            [f"LaTeX error: {e}" for e in self.errors]
            + [f"undefined reference: {u}" for u in self.undefined]
            + [
                f"overfull box {pt:.1f}pt > {MAX_OVERFULL_PT}pt{where}"
                for pt, where in self.overfull
            ]
            + [
                f"{pt:.1f}pt of a page's content run off its foot (a table or box taller "
                f"than the page)"
                for pt in self.off_page
            ]
        )


def log_problems(log: str, max_overfull_pt: float = MAX_OVERFULL_PT) -> LogProblems:
    """Errors (``! ...`` lines), undefined references, overfull boxes wider than
    ``max_overfull_pt`` and page content taller than the page by more than that, in the text
    of a (Xe)LaTeX log."""
    return LogProblems(
        errors=_ERROR.findall(log),
        undefined=sorted(
            {f"{name} (page {page})" for name, page in _UNDEFINED.findall(log)}
        ),
        overfull=[
            (float(pt), where)
            for pt, where in _OVERFULL.findall(log)
            if float(pt) > max_overfull_pt
        ],
        off_page=[
            float(pt) for pt in _OFF_PAGE.findall(log) if float(pt) > max_overfull_pt
        ],
    )


def sphinx_latex(
    srcdir: Path, outdir: Path, doctrees: Path, conf: dict, path_config: Path = CONFIG
) -> None:
    """Sphinx's LaTeX builder through Jupyter Book 1 (``_config.yml`` and ``conf`` on top),
    warnings as errors: the one place the book, its Korean edition and the answer keys
    (:mod:`booktools.course.answer_keys`) write their ``.tex``."""
    from jupyter_book.sphinx import build_sphinx

    result = build_sphinx(
        srcdir,
        outdir,
        noconfig=True,
        path_config=str(path_config),
        confoverrides=conf,
        doctreedir=doctrees,
        builder="latex",
        warningiserror=True,
        keep_going=True,
    )
    if result:
        raise SystemExit(
            f"pdf: the LaTeX build failed ({result!r}); see the messages above"
        )


def build_tex(edition: Edition = EDITIONS["en"]) -> None:
    """Sphinx's LaTeX builder on the book, from the execution cache, warnings as errors; for
    Korean with the Korean HTML book's settings (:func:`booktools.i18n.overrides`)."""
    conf = {
        "external_toc_path": (ROOT / "_toc.yml").as_posix(),
        "latex_individualpages": False,
        "nitpicky": True,
    }
    if edition.language != "en":
        from booktools import i18n

        i18n.compile_catalogues()
        conf = i18n.overrides("latex")
    sphinx_latex(ROOT, edition.latex_dir, edition.doctrees, conf)


def check_tools() -> None:
    """Stop with the packages to install when XeLaTeX or ``latexmk`` is missing."""
    missing = [tool for tool in ("xelatex", "latexmk") if shutil.which(tool) is None]
    if missing:
        raise SystemExit(
            f"pdf: {' and '.join(missing)} not found: apt-get install "
            + " ".join(APT_PACKAGES)
            + " (make pdf does this as root)"
        )


def latexmk(tex: Path) -> Path:
    """``latexmk -xelatex`` on ``tex`` in its folder (as many runs as the cross-references
    need); the problems of its log printed (:func:`log_problems`); the PDF it wrote.  A LaTeX
    error or a missing PDF stops with the log's path."""
    check_tools()
    built = tex.with_suffix(".pdf")
    built.unlink(missing_ok=True)  # never copy a PDF of an earlier run
    done = subprocess.run(
        [
            "latexmk",
            "-xelatex",
            "-interaction=nonstopmode",
            "-halt-on-error",
            "-silent",
            tex.name,
        ],
        cwd=tex.parent,
        check=False,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    log = tex.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    for line in log_problems(log).messages():
        print(f"pdf: {tex.name}: {line}")
    if done.returncode or not built.is_file() or _ERROR.search(log):
        print(done.stdout[-3000:])
        raise SystemExit(
            f"pdf: latexmk failed ({done.returncode}); see {tex.with_suffix('.log')}"
        )
    return built


def build_pdf(edition: Edition = EDITIONS["en"]) -> Path:
    """``latexmk`` in the edition's LaTeX folder; the PDF copied to ``edition.pdf``; the log
    checked."""
    built = latexmk(edition.tex)
    edition.pdf.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(built, edition.pdf)
    return edition.pdf


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--language",
        choices=(*EDITIONS, "all"),
        default="all",
        help="the edition to build (default: all)",
    )
    parser.add_argument("--tex-only", action="store_true", help="stop after the .tex")
    args = parser.parse_args(argv)
    for language in EDITIONS if args.language == "all" else [args.language]:
        start = time.monotonic()
        build_tex(EDITIONS[language])
        if not args.tex_only:
            pdf = build_pdf(EDITIONS[language])
            print(f"pdf: {pdf.relative_to(ROOT)} in {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
