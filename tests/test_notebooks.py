"""Colab notebooks (chapters/notebooks/*.ipynb): in sync with the chapters, no outputs, a set-up
cell that installs the book on Colab only, and chapters that run outside the repository."""

from __future__ import annotations

import json
import re
import shutil
import sys
import types

import nbformat
import pytest
from _chapters import ROOT

from booktools.build import notebooks
from booktools.sphinx.launch import BookHome, book_home

CONFIGURED = BookHome("https://github.com/some-course/formulated-gpt", "main", "")
PLACEHOLDER = BookHome("https://github.com/formulated-gpt/formulated-gpt", "main", "")


def _setup_cell(nb) -> str:
    cells = [
        c for c in nb.cells if notebooks.BOOTSTRAP_TAG in c.metadata.get("tags", [])
    ]
    assert len(cells) == 1
    return cells[0].source


def test_every_chapter_has_an_up_to_date_notebook():
    stale = notebooks.out_of_date()
    assert not stale, f"run `make notebooks` (python -m booktools notebooks): {stale}"
    assert len(notebooks.chapters()) >= 18


def test_the_sync_check_notices_an_edited_chapter_and_an_orphan(tmp_path):
    shutil.copy(ROOT / "_config.yml", tmp_path / "_config.yml")
    (tmp_path / "chapters").mkdir()
    shutil.copy(ROOT / "chapters/11_ffn_gelu.md", tmp_path / "chapters")
    notebooks.write_all(tmp_path)
    assert notebooks.out_of_date(tmp_path) == []
    chapter = tmp_path / "chapters/11_ffn_gelu.md"
    chapter.write_text(chapter.read_text() + "\nOne more sentence.\n")
    (tmp_path / "chapters/notebooks/99_gone.ipynb").write_text("{}")
    assert notebooks.out_of_date(tmp_path) == [
        "chapters/11_ffn_gelu.md",
        "chapters/notebooks/99_gone.ipynb",
    ]
    notebooks.write_all(tmp_path)
    assert notebooks.out_of_date(tmp_path) == []


@pytest.mark.parametrize(
    "path", sorted((ROOT / "chapters/notebooks").glob("*.ipynb")), ids=lambda p: p.stem
)
def test_notebook_is_valid_without_outputs_and_starts_with_the_setup(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert all(
        not c.get("outputs") and c.get("execution_count") is None
        for c in nb.cells
        if c.cell_type == "code"
    )
    assert (
        nb.cells[1].cell_type == "code"
        and notebooks.BOOTSTRAP_TAG in nb.cells[1].metadata.tags
    )
    assert nb.metadata.kernelspec.name == "python3"
    # The chapter follows: its first heading is the notebook's first heading after the set-up.
    source = (ROOT / "chapters" / f"{path.stem}.md").read_text()
    title = re.search(r"^# .+$", source, re.M).group(0)
    assert nb.cells[2].source.startswith(title)


def _run_setup(source: str, monkeypatch, on_colab: bool):
    """Execute the set-up cell's code; record what it would run instead of running it."""
    calls: list[list[str]] = []
    monkeypatch.setattr("subprocess.run", lambda cmd, **kw: calls.append(list(cmd)))
    monkeypatch.setattr(sys, "path", list(sys.path))
    widgets_enabled: list[bool] = []
    if on_colab:
        colab = types.ModuleType("google.colab")
        colab.output = types.SimpleNamespace(
            enable_custom_widget_manager=lambda: widgets_enabled.append(True)
        )
        monkeypatch.setitem(sys.modules, "google", types.ModuleType("google"))
        monkeypatch.setitem(sys.modules, "google.colab", colab)
        monkeypatch.setattr("os.path.isdir", lambda p: False)
    else:
        assert "google.colab" not in sys.modules
    path_before = list(sys.path)
    exec(compile(source, "<setup cell>", "exec"), {})
    return calls, sys.path != path_before, widgets_enabled


def test_setup_cell_does_nothing_outside_colab(monkeypatch):
    for path in sorted((ROOT / "chapters/notebooks").glob("*.ipynb")):
        source = _setup_cell(nbformat.read(path, as_version=4))
        calls, path_changed, widgets = _run_setup(source, monkeypatch, on_colab=False)
        assert (calls, path_changed, widgets) == ([], False, []), path.name
    # ... including the configured version of the cell.
    calls, path_changed, _ = _run_setup(
        notebooks.bootstrap_source(CONFIGURED), monkeypatch, False
    )
    assert (calls, path_changed) == ([], False)


def test_setup_cell_on_colab_clones_and_installs_the_configured_repository(monkeypatch):
    calls, path_changed, widgets = _run_setup(
        notebooks.bootstrap_source(CONFIGURED), monkeypatch, on_colab=True
    )
    clone, install = calls
    assert clone[:2] == ["git", "clone"] and CONFIGURED.repository_url in clone
    assert clone[clone.index("--branch") + 1] == "main"
    assert install[1:4] == ["-m", "pip", "install"] and install[-2:] == [
        "-e",
        clone[-1],
    ]
    assert (
        "https://download.pytorch.org/whl/cpu" in install
    )  # never a CUDA build from PyPI
    assert path_changed and widgets == [True]


def test_setup_cell_on_colab_with_the_placeholder_says_so(monkeypatch):
    with pytest.raises(RuntimeError, match="repository.url"):
        _run_setup(notebooks.bootstrap_source(PLACEHOLDER), monkeypatch, on_colab=True)


def test_committed_setup_cell_uses_the_configured_repository():
    home = book_home()
    nb = nbformat.read(ROOT / "chapters/notebooks/11_ffn_gelu.ipynb", as_version=4)
    assert _setup_cell(nb) == notebooks.bootstrap_source(home)


def test_intro_cell_defines_the_books_macros():
    nb = nbformat.read(ROOT / "chapters/notebooks/11_ffn_gelu.ipynb", as_version=4)
    intro = nb.cells[0].source
    assert "\\newcommand{\\bm}[1]{\\boldsymbol{#1}}" in intro
    assert "\\newcommand{\\R}{\\mathbb{R}}" in intro


RELATIVE_PATH = re.compile(
    r"""["'](\.\./|\./)?(data|chapters|formulated|_static|_build)/"""
)


def test_no_chapter_code_opens_a_path_inside_the_repository():
    """A downloaded chapter runs anywhere: files are found through the package (formulated.data)."""
    for path in notebooks.chapters():
        nb = nbformat.reads(
            json.dumps(json.loads(notebooks.notebook_text(path))), as_version=4
        )
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert not RELATIVE_PATH.search(cell.source), (
                    path.name,
                    cell.source[:200],
                )
    assert RELATIVE_PATH.search(
        "text = open('../data/tinyshakespeare.txt').read()"
    )  # the control


@pytest.mark.slow
@pytest.mark.parametrize("chapter", ["08_attention"])
def test_downloaded_chapter_runs_from_an_empty_directory(chapter, tmp_path):
    """From a bare copy of a chapter's notebook, in a new folder, every cell runs and nothing is
    written beside it.

    Chapter 8: a widget, figures, a quiz and exercises, in a few seconds of cells.  The
    chapters that read Tiny Shakespeare (6, 18 and 19) take 20 s to a minute of cells; that
    the package finds the corpus from any folder, not through the folder it runs in, is
    tests/test_autograder_zip.py's ``test_the_data_folder_can_be_named_by_an_environment_variable``
    (run in a folder that holds a decoy), and chapter 18 reads it in the zip's environment."""
    from nbclient import NotebookClient

    copy = tmp_path / f"{chapter}.ipynb"
    shutil.copy(ROOT / "chapters/notebooks" / copy.name, copy)
    nb = nbformat.read(copy, as_version=4)
    NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    ).execute()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        copy.name
    ]  # wrote nothing beside it
