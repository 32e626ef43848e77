"""The chapters as ``.ipynb`` notebooks for Google Colab, generated from the MyST-Markdown sources.

Colab opens only ``.ipynb`` files from GitHub, and a fresh Colab machine has neither the
``formulated`` package nor the book's data.  ``make notebooks`` (``python -m
booktools.build.notebooks``) therefore writes ``chapters/notebooks/NN_name.ipynb`` for every
numbered chapter: the chapter's cells (by jupytext, without outputs), after two cells of its own:

1. a Markdown cell saying what the next cell does, which also defines the book's math macros
   (``\\bm``, ``\\R``, …: ``_config.yml`` is their one source) for Colab's MathJax;
2. a code cell (:func:`bootstrap_source`) that, **on Colab only** (``"google.colab" in
   sys.modules``), clones the book's repository (``repository.url`` in ``_config.yml``), installs
   it with ``pip install -e`` (the data are found through the package: :mod:`formulated.data`)
   and turns on Colab's widget support.  Anywhere else it does nothing.  A student notebook's
   cell checks out only ``formulated/`` and ``data/`` (and the files at the top, such as
   ``pyproject.toml``): neither ``booktools/`` (the hidden tests) nor ``chapters/`` (the
   solutions) reaches the student's machine.

The chapter's Markdown cells are converted to plain Markdown (:func:`booktools.build.plain_markdown.to_plain`):
Colab renders neither MyST directives (definition boxes, exercises, solutions, admonitions,
``{formulated-source}``) nor roles (``{doc}``, ``{prf:ref}``, …).  Code cells are kept as they are.

``make notebooks STUDENT=1`` (``--student``) writes a course's notebooks without solutions to
``_build/student/notebooks`` (:mod:`booktools.course.student`), for the course's own repository.

The notebooks are committed (Colab reads them from GitHub) and ``tests/test_notebooks.py`` fails
when one is out of date: run ``make notebooks`` after editing a chapter.  The book's build
ignores the folder (``_config.yml`` ``exclude_patterns``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import jupytext
import nbformat

from booktools.build.plain_markdown import chapter_titles, label_texts, to_plain
from booktools.course.student import strip_solutions
from booktools.lab.lab import math_macros
from booktools.paths import ROOT
from booktools.sphinx.launch import NOTEBOOKS_DIR, BookHome, book_home

__all__ = [
    "CHAPTER_GLOB",
    "BOOTSTRAP_TAG",
    "chapters",
    "bootstrap_source",
    "intro_source",
    "image_base",
    "colab_notebook",
    "STUDENT_DIR",
    "notebook_text",
    "write_all",
    "out_of_date",
    "main",
]

#: The chapters that get a Colab notebook: the numbered ones (the appendices run no code).
CHAPTER_GLOB = "[0-9][0-9]_*.md"

#: Where ``make notebooks STUDENT=1`` writes the notebooks without solutions.
STUDENT_DIR = Path("_build") / "student" / "notebooks"

#: Tag of the set-up cell (tests find it by this tag).
BOOTSTRAP_TAG = "colab-setup"

#: PyTorch's CPU wheels: used only if Colab's own PyTorch were missing.
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def chapters(root: Path = ROOT) -> list[Path]:
    """The numbered chapters' sources, in order."""
    return sorted((root / "chapters").glob(CHAPTER_GLOB))


#: What a student notebook's set-up cell checks out of the book's repository (git's cone mode
#: adds the files at the top: ``pyproject.toml``, ``README.md``); no ``booktools/``, no chapters.
STUDENT_CHECKOUT = ("formulated", "data")


_FULL_CLONE = (
    '        subprocess.run(["git", "clone", "--quiet", "--depth", "1", "--branch",\n'
    "                        BOOK_BRANCH, BOOK_REPOSITORY, BOOK_DIR], check=True)\n"
)
_STUDENT_CLONE = (
    "        # only the package and its data: the hidden tests and the solutions stay on GitHub\n"
    '        subprocess.run(["git", "clone", "--quiet", "--depth", "1", "--filter=blob:none",\n'
    '                        "--sparse", "--branch", BOOK_BRANCH, BOOK_REPOSITORY, BOOK_DIR],\n'
    "                       check=True)\n"
    '        subprocess.run(["git", "-C", BOOK_DIR, "sparse-checkout", "set", '
    + ", ".join(f'"{p}"' for p in STUDENT_CHECKOUT)
    + "],\n"
    "                       check=True)\n"
)


def bootstrap_source(home: BookHome, student: bool = False) -> str:
    """The set-up cell: on Colab, fetch and install the book; elsewhere nothing.  ``student``:
    fetch only :data:`STUDENT_CHECKOUT` (a sparse, blob-less clone), not the instructor's
    tooling and the chapters with their solutions."""
    head = (
        "# Set-up for Google Colab (about a minute): fetch the book's code and data, install\n"
        "# them, and turn on interactive widgets. Anywhere else this cell does nothing.\n"
        "import sys\n"
        "\n"
        'if "google.colab" in sys.modules:\n'
    )
    if not home.repository_configured:
        return head + (
            "    raise RuntimeError(\n"
            '        "The book\'s public repository is not configured (repository.url in "\n'
            '        "_config.yml is a placeholder), so this notebook cannot fetch the "\n'
            '        "formulated package. Clone the book and run `pip install -e .` in it.")\n'
        )
    return head + (
        "    import os\n"
        "    import subprocess\n"
        "\n"
        f'    BOOK_REPOSITORY = "{home.repository_url}"  # _config.yml: repository.url\n'
        f'    BOOK_BRANCH = "{home.branch}"\n'
        '    BOOK_DIR = "/content/formulated-gpt"\n'
        "    if not os.path.isdir(BOOK_DIR):\n"
        + (_STUDENT_CLONE if student else _FULL_CLONE)
        + "    # Colab's own PyTorch satisfies the requirement; were it missing, the CPU build is used.\n"
        '    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--extra-index-url",\n'
        f'                    "{TORCH_CPU_INDEX}", "-e", BOOK_DIR], check=True)\n'
        "    sys.path.insert(0, BOOK_DIR)  # the editable install is seen by new processes only\n"
        "    from google.colab import output\n"
        "\n"
        "    output.enable_custom_widget_manager()\n"
    )


def intro_source(macros: dict[str, str]) -> str:
    """The Markdown cell before the set-up cell; its hidden formula defines the macros."""
    definitions = ""
    for name, body in macros.items():
        n_args = max((int(d) for d in re.findall(r"#(\d)", body)), default=0)
        definitions += (
            f"\\newcommand{{{name}}}"
            + (f"[{n_args}]" if n_args else "")
            + f"{{{body}}}"
        )
    return (
        "*The Formulated GPT* as a notebook. **On Google Colab, run the next cell first**: "
        "it installs the book's `formulated` package. Elsewhere it does nothing.\n"
        f"${definitions}$"
    )


def image_base(home: BookHome) -> str:
    """What goes before a chapter's relative image path in its notebook: the file on GitHub
    (Colab sees no other file of the repository) where the repository is configured, else the
    path from ``chapters/notebooks/``."""
    if home.repository_configured and home.github_repo:
        return f"https://raw.githubusercontent.com/{home.github_repo}/{home.branch}/chapters/"
    return "../"


def colab_notebook(
    source: Path, home: BookHome, macros: dict[str, str], student: bool = False
) -> nbformat.NotebookNode:
    """The Colab notebook of one chapter: set-up cells, then the chapter's cells, no outputs,
    the Markdown cells as plain Markdown (:func:`~booktools.build.plain_markdown.to_plain`);
    ``student``: without the solutions (:func:`booktools.course.student.strip_solutions`)."""
    if student:
        nb = jupytext.reads(
            strip_solutions(source.read_text(encoding="utf-8")), fmt="md:myst"
        )
    else:
        nb = jupytext.read(source)
    titles, labels = chapter_titles(source.parent), label_texts(source.parent)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = to_plain(cell.source, titles, labels, image_base(home))
    intro = nbformat.v4.new_markdown_cell(intro_source(macros))
    setup = nbformat.v4.new_code_cell(
        bootstrap_source(home, student), metadata={"tags": [BOOTSTRAP_TAG]}
    )
    nb.cells = [intro, setup] + nb.cells
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i:03d}"  # stable ids: regenerating an unchanged chapter changes nothing
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.metadata = {
        "kernelspec": nb.metadata.get(
            "kernelspec",
            {"display_name": "Python 3", "language": "python", "name": "python3"},
        ),
        "language_info": {"name": "python"},
        "colab": {"provenance": []},
    }
    return nb


def notebook_text(
    source: Path,
    home: BookHome | None = None,
    macros: dict[str, str] | None = None,
    student: bool = False,
) -> str:
    """The exact text of ``source``'s Colab notebook file (``student``: without solutions)."""
    nb = colab_notebook(source, home or book_home(), macros or math_macros(), student)
    nbformat.validate(nb)
    return nbformat.writes(nb) + "\n"


def target(source: Path, root: Path = ROOT) -> Path:
    """Where the Colab notebook of ``source`` is written."""
    return root / NOTEBOOKS_DIR / source.with_suffix(".ipynb").name


def out_of_date(root: Path = ROOT) -> list[str]:
    """Chapters whose notebook is missing or differs, and notebooks without a chapter."""
    home, macros = book_home(root / "_config.yml"), math_macros(root / "_config.yml")
    stale = [
        str(s.relative_to(root))
        for s in chapters(root)
        if not target(s, root).is_file()
        or target(s, root).read_text(encoding="utf-8") != notebook_text(s, home, macros)
    ]
    wanted = {target(s, root).name for s in chapters(root)}
    stale += [
        str(p.relative_to(root))
        for p in sorted((root / NOTEBOOKS_DIR).glob("*.ipynb"))
        if p.name not in wanted
    ]
    return stale


def write_all(root: Path = ROOT, student: bool = False) -> list[Path]:
    """(Re)write every chapter's notebook, delete those of removed chapters; the files written.
    ``student``: the notebooks without solutions, in ``_build/student/notebooks`` (a course
    publishes these; the repository's ``chapters/notebooks`` keep the solutions)."""
    home, macros = book_home(root / "_config.yml"), math_macros(root / "_config.yml")
    out = root / (STUDENT_DIR if student else NOTEBOOKS_DIR)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for source in chapters(root):
        path = out / source.with_suffix(".ipynb").name
        text = notebook_text(source, home, macros, student)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(path)
    wanted = {target(s, root).name for s in chapters(root)}
    for old in out.glob("*.ipynb"):
        if old.name not in wanted:
            old.unlink()
    return written


def main(argv: list[str] | None = None) -> int:
    """``python -m booktools notebooks [--check | --student]``: write the notebooks (with
    ``--student`` those without solutions, :data:`STUDENT_DIR`), or only check."""
    argv = sys.argv[1:] if argv is None else argv
    if "--student" in argv:
        for path in write_all(student=True):
            print(f"wrote {path.relative_to(ROOT)}")
        return 0
    if "--check" in argv:
        stale = out_of_date()
        for name in stale:
            print(f"out of date: {name} (run `make notebooks`)")
        return 1 if stale else 0
    for path in write_all():
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
