"""``make pdf``: the book as one PDF, from the chapters the HTML book executed (issue 26).

Jupyter Book 1's LaTeX route with Debian's TeX Live (XeLaTeX, ``latexmk``):

1. ``make pdf`` first runs :mod:`booktools.prebuild`, which executes only the chapters whose
   code is not yet in the execution cache ``_build/.jupyter_cache``; Sphinx then finds every
   chapter there ("Using cached notebook") and executes nothing.
2. Sphinx's LaTeX builder writes ``_build/latex/the-formulated-gpt.tex`` (``-n -W``: a warning
   fails the build, as for the HTML book). Its doctrees go to ``_build/.doctrees-latex``, so
   the HTML and LaTeX builds never invalidate each other's environment.
   :mod:`booktools.sphinx_pdf` adds the book's macros, the ``bbm`` stub, the figures as PDF
   (``rsvg-convert``), the widgets' snapshots, lettered appendices and the solutions appendix.
3. ``latexmk`` (XeLaTeX, as many runs as the cross-references need) makes the PDF, copied to
   ``_build/pdf/the-formulated-gpt.pdf``; then the log is checked (:func:`log_problems`): no
   LaTeX error, no undefined reference, no overfull box wider than :data:`MAX_OVERFULL_PT`.

``python -m booktools.pdf [--tex-only]`` (``--tex-only`` stops after step 2, to iterate on the
``.tex`` with ``latexmk`` in ``_build/latex``).
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

from booktools.launch import ROOT
from booktools.sphinx_pdf import PDF_NAME, PDF_PATH

__all__ = ["LATEX_DIR", "PDF", "TEX", "MAX_OVERFULL_PT", "LogProblems", "log_problems",
           "build_tex", "build_pdf", "main"]

LATEX_DIR = ROOT / "_build" / "latex"
TEX = LATEX_DIR / "the-formulated-gpt.tex"
PDF = ROOT / PDF_PATH
DOCTREES = ROOT / "_build" / ".doctrees-latex"

#: An overfull box wider than this is a line that runs into the margin visibly.
MAX_OVERFULL_PT = 10.0

#: Debian packages of the route (``make pdf`` installs them when missing; CI runs as root).
APT_PACKAGES = ("texlive-xetex", "texlive-latex-extra", "texlive-fonts-recommended", "latexmk",
                "fonts-freefont-otf", "fonts-dejavu-core", "poppler-utils", "librsvg2-bin")

_OVERFULL = re.compile(r"^Overfull \\hbox \((\d+(?:\.\d+)?)pt too wide\)(.*)$", re.M)
_ERROR = re.compile(r"^! (.*)$", re.M)
_UNDEFINED = re.compile(r"LaTeX Warning: (?:Reference|Citation|Hyper reference) `([^']*)' "
                        r"on page (\d+) undefined")


@dataclass(frozen=True)
class LogProblems:
    """What the XeLaTeX log of the book reports."""

    errors: list[str]
    undefined: list[str]
    overfull: list[tuple[float, str]]

    def messages(self) -> list[str]:
        """One line per problem, for a build's output or a test's failure."""
        return ([f"LaTeX error: {e}" for e in self.errors]
                + [f"undefined reference: {u}" for u in self.undefined]
                + [f"overfull box {pt:.1f}pt > {MAX_OVERFULL_PT}pt{where}"
                   for pt, where in self.overfull])


def log_problems(log: str, max_overfull_pt: float = MAX_OVERFULL_PT) -> LogProblems:
    """Errors (``! ...`` lines), undefined references and overfull boxes wider than
    ``max_overfull_pt`` in the text of a (Xe)LaTeX log."""
    return LogProblems(
        errors=_ERROR.findall(log),
        undefined=sorted({f"{name} (page {page})" for name, page in _UNDEFINED.findall(log)}),
        overfull=[(float(pt), where) for pt, where in _OVERFULL.findall(log)
                  if float(pt) > max_overfull_pt])


def build_tex() -> None:
    """Sphinx's LaTeX builder on the book, from the execution cache, warnings as errors."""
    from jupyter_book.sphinx import build_sphinx

    result = build_sphinx(
        ROOT, LATEX_DIR, noconfig=True, path_config=str(ROOT / "_config.yml"),
        confoverrides={"external_toc_path": (ROOT / "_toc.yml").as_posix(),
                       "latex_individualpages": False, "nitpicky": True},
        doctreedir=DOCTREES, builder="latex", warningiserror=True, keep_going=True)
    if result:
        raise SystemExit(f"pdf: the LaTeX build failed ({result!r}); see the messages above")


def build_pdf() -> Path:
    """``latexmk`` in the LaTeX folder; the PDF copied to :data:`PDF`; the log checked."""
    missing = [tool for tool in ("xelatex", "latexmk") if shutil.which(tool) is None]
    if missing:
        raise SystemExit(f"pdf: {' and '.join(missing)} not found: apt-get install "
                         + " ".join(APT_PACKAGES) + " (make pdf does this as root)")
    built = LATEX_DIR / PDF_NAME
    built.unlink(missing_ok=True)  # never copy a PDF of an earlier run
    done = subprocess.run(["latexmk", "-xelatex", "-interaction=nonstopmode", "-halt-on-error",
                           "-silent", TEX.name], cwd=LATEX_DIR, check=False,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log = TEX.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    problems = log_problems(log).messages()
    for line in problems:
        print(f"pdf: {line}")
    if done.returncode or not built.is_file() or _ERROR.search(log):
        print(done.stdout[-3000:])
        raise SystemExit(f"pdf: latexmk failed ({done.returncode}); see {TEX.with_suffix('.log')}")
    PDF.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(built, PDF)
    return PDF


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tex-only", action="store_true", help="stop after the .tex")
    args = parser.parse_args(argv)
    start = time.monotonic()
    build_tex()
    if not args.tex_only:
        pdf = build_pdf()
        print(f"pdf: {pdf.relative_to(ROOT)} in {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
