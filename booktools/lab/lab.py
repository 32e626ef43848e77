"""JupyterLab for the chapters: the MyST-Markdown chapters open as rendered, runnable notebooks.

``make lab`` runs ``python -m booktools lab``; Binder's ``.binder/postBuild`` runs
``python -m booktools lab --install-only``.  Both install two small files into the Python
environment (``sys.prefix``), so that every way of starting JupyterLab there behaves the same:

* ``share/jupyter/lab/settings/overrides.json`` (:data:`SETTINGS_OVERRIDES`): a ``.md`` file opens
  with the *Jupytext Notebook* viewer (double-click, ``lab/tree/chapters/…md`` URLs, Binder's
  ``urlpath``), and notebooks render every cell (``windowingMode: none``), which jupyterlab-myst
  needs to resolve references between the cells of a chapter;
* ``etc/jupyter/jupyter_server_config.json`` (merged into an existing one; the ``.d`` folder
  beside it only enables extensions): the server's contents manager is
  :class:`BookContentsManager`, jupytext's own manager plus two fixes for the chapters:

  - **the book's math macros in every notebook.**  jupyterlab-myst reads macros only from the
    MyST front matter of a notebook's first Markdown cell; the book defines them once, in
    ``_config.yml`` (``sphinx.config.mathjax3_config``).  A chapter opened in Lab therefore gets
    a first cell with that front matter (:func:`macro_cell`), made from ``_config.yml`` when the
    chapter is opened and removed again when it is saved;
  - **gated solutions folded.**  jupyterlab-myst folds a ``{solution-start}`` … ``{solution-end}``
    solution's text, not the code cells in between; the manager collapses those
    (:func:`fold_solutions`; a click on the cell's collapser opens one).  Running such a cell
    would show its output again; :mod:`booktools.lab.kernel`, loaded in the kernels
    (``etc/ipython/ipython_kernel_config.json``), puts that output in a closed box;
  - **saving keeps the chapter's text stable.**  A running kernel adds ``language_info`` to the
    notebook, and jupytext would then rewrite every ``{code-cell} python3`` as ``ipython3``; the
    manager drops it before saving, and writes back each code cell's option block as the
    chapter had it (:func:`keep_option_blocks`);
  - **opening is not an edit.**  The notebook gets the kernel's own ``kernelspec`` and
    ``language_info`` (:func:`match_kernel`), which Lab would otherwise write when the kernel
    starts, marking the chapter modified; the chapter's ``kernelspec`` is restored on save.  (The header keeps its two keys through
    ``[tool.jupytext] notebook_metadata_filter`` in ``pyproject.toml``.)

Finally ``jupyter lab`` starts in the repository, with ``--allow-root`` when run as root (a
container), which JupyterLab otherwise refuses.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import Any, Sequence

import yaml
from jupytext.async_contentsmanager import AsyncTextFileContentsManager
from traitlets import Unicode

from booktools import myst
from booktools.lab.kernel import FOLD_MARK
from booktools.paths import CONFIG, ROOT
from booktools.sphinx.source import BLOCK, markdown_box

__all__ = [
    "SETTINGS_OVERRIDES",
    "SERVER_CONFIG",
    "MACRO_CELL_MARK",
    "math_macros",
    "macro_cell",
    "add_macro_cell",
    "fold_solutions",
    "show_sources",
    "SOURCE_MARK",
    "prepare_for_save",
    "KERNEL_CONFIG",
    "KERNEL_MARK",
    "match_kernel",
    "keep_option_blocks",
    "BookContentsManager",
    "install",
    "lab_command",
    "main",
]

#: The repository (``chapters/``, ``_config.yml``, ``data/``): two levels above this package.
#: The JupyterLab viewer that jupytext registers for text notebooks.
JUPYTEXT_NOTEBOOK = "Jupytext Notebook"

#: JupyterLab settings that the project ships (``overrides.json``).
SETTINGS_OVERRIDES: dict[str, dict[str, Any]] = {
    "@jupyterlab/docmanager-extension:plugin": {
        "defaultViewers": {"markdown": JUPYTEXT_NOTEBOOK}
    },
    # Virtual scrolling renders only the visible cells; jupyterlab-myst then cannot number the
    # definitions of cells not yet rendered nor resolve {prf:ref} links to them.
    "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"},
    # No "fetch Jupyter news?" prompt over the chapter, and no request to the internet.
    "@jupyterlab/apputils-extension:notification": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}

#: IPython kernel configuration that the project ships: :mod:`booktools.lab.kernel` keeps a
#: folded solution's output in a closed box when the cell runs.
KERNEL_CONFIG: dict[str, Any] = {
    "InteractiveShellApp": {"extensions": ["booktools.lab.kernel"]}
}

#: Jupyter server configuration that the project ships.
SERVER_CONFIG: dict[str, Any] = {
    "ServerApp": {"contents_manager_class": "booktools.lab.lab.BookContentsManager"}
}

#: Metadata key that marks the generated macro cell, so that saving can remove it.
MACRO_CELL_MARK = "formulated-generated"


def math_macros(config_path: Path | None = None) -> dict[str, str]:
    """The book's TeX macros from ``_config.yml`` as ``{"\\\\bm": "\\\\boldsymbol{#1}", ...}``.

    ``_config.yml`` writes them in MathJax's form: ``name: body`` or ``name: [body, n_args]``;
    KaTeX (jupyterlab-myst) and MathJax both read ``#1`` … in the body, so the body is all
    that is kept.
    """
    path = CONFIG if config_path is None else Path(config_path)
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    try:
        macros = config["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"]
    except (KeyError, TypeError):
        raise ValueError(
            f"config_path: expected {path} to define "
            "sphinx.config.mathjax3_config.tex.macros, found none"
        ) from None
    out: dict[str, str] = {}
    for name, value in macros.items():
        body = value[0] if isinstance(value, list) and value else value
        if not isinstance(body, str):
            raise ValueError(
                f"config_path: macro {name!r} in {path}: expected a string or "
                f"[string, number of arguments], got {value!r}"
            )
        out["\\" + name] = body
    return out


def macro_cell(macros: dict[str, str]) -> dict[str, Any]:
    """A Markdown cell whose MyST front matter defines ``macros`` (jupyterlab-myst reads it)."""
    front = yaml.safe_dump(
        {"math": macros}, default_flow_style=False, allow_unicode=True
    )
    return {
        "cell_type": "markdown",
        "id": "formulated-math-macros",
        "metadata": {
            MACRO_CELL_MARK: "math macros from _config.yml; not saved",
            "editable": False,
            "deletable": False,
        },
        "source": f"---\n{front}---\n",
    }


def add_macro_cell(
    notebook: dict[str, Any], macros: dict[str, str] | None = None
) -> None:
    """Put :func:`macro_cell` first in ``notebook`` (a notebook dict), unless it is there."""
    cells = notebook.setdefault("cells", [])
    if cells and MACRO_CELL_MARK in cells[0].get("metadata", {}):
        return
    cells.insert(0, macro_cell(math_macros() if macros is None else macros))


def fold_solutions(notebook: dict[str, Any]) -> int:
    """Fold (collapse input and output of) the code cells of gated solutions, between a
    ``{solution-start}`` and its ``{solution-end}``: jupyterlab-myst folds the solution's text
    but cannot reach the code cells in between.  Returns the number of cells folded."""
    inside, folded = False, 0
    for cell in notebook.get("cells", []):
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        if cell.get("cell_type") == "markdown":
            start, end = (
                source.rfind("{solution-start}"),
                source.rfind("{solution-end}"),
            )
            if start >= 0 or end >= 0:
                inside = start > end
        elif cell.get("cell_type") == "code" and inside:
            metadata = cell.setdefault("metadata", {})
            metadata.setdefault("jupyter", {}).update(
                source_hidden=True, outputs_hidden=True
            )
            metadata[FOLD_MARK] = True
            folded += 1
    return folded


#: Metadata key of a Markdown cell whose ``{formulated-source}`` blocks the view expanded: the
#: cell's text as the chapter has it, restored on save.
SOURCE_MARK = "formulated-source-original"


def show_sources(notebook: dict[str, Any]) -> int:
    """Expand every ``{formulated-source}`` block (a Sphinx directive of the book, unknown to
    jupyterlab-myst) into a ``{dropdown}`` with the function's signature, summary, code and
    tests, as the book shows it (open unless long; an object shown earlier in the notebook is
    only named); each (box, directive) pair is kept in the cell's metadata for the save.
    Returns the number of cells changed."""
    changed = 0
    seen: set[str] = (
        set()
    )  # an object shown twice in the notebook: the second box links back
    for cell in notebook.get("cells", []):
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        if cell.get("cell_type") != "markdown" or not BLOCK.search(source):
            continue
        pairs: list[list[str]] = []

        def expand(match: Any) -> str:
            box = markdown_box(match.group("names").split(), seen=seen)
            pairs.append([box, match.group(0)])
            return box

        try:
            cell["source"] = BLOCK.sub(expand, source)
        except (ImportError, AttributeError, ValueError, OSError, TypeError):
            continue  # a name that does not resolve stays a directive (the book build fails on it)
        cell.setdefault("metadata", {})[SOURCE_MARK] = pairs
        changed += 1
    return changed


def _restore_sources(cell: dict[str, Any]) -> None:
    """Swap each box that :func:`show_sources` expanded back to the chapter's directive; edits
    made in the view elsewhere in the cell are kept."""
    pairs = cell.get("metadata", {}).pop(SOURCE_MARK, None)
    if not pairs:
        return
    source = cell.get("source", "")
    source = "".join(source) if isinstance(source, list) else source
    for box, directive in pairs:
        source = source.replace(box, directive, 1)
    cell["source"] = source


def prepare_for_save(notebook: dict[str, Any]) -> None:
    """Undo what the notebook view added: the macro cell, the folds of solutions, and
    ``language_info`` (whose ``pygments_lexer`` would make jupytext write ``ipython3`` instead
    of ``python3``)."""
    notebook["cells"] = [
        c
        for c in notebook.get("cells", [])
        if MACRO_CELL_MARK not in c.get("metadata", {})
    ]
    for cell in notebook["cells"]:
        _restore_sources(cell)
        metadata = cell.get("metadata", {})
        if metadata.pop(FOLD_MARK, False):
            jupyter = metadata.get("jupyter", {})
            jupyter.pop("source_hidden", None)
            jupyter.pop("outputs_hidden", None)
            if not jupyter:
                metadata.pop("jupyter", None)
    metadata = notebook.get("metadata", {})
    original = metadata.pop(KERNEL_MARK, None)
    if original is not None:
        metadata["kernelspec"] = original
    if "default_lexer" in metadata.get("jupytext", {}):
        metadata.pop("language_info", None)


#: Notebook metadata key: the chapter's own ``kernelspec``, restored on save.
KERNEL_MARK = "formulated-kernelspec"


def match_kernel(notebook: dict[str, Any]) -> None:
    """Give ``notebook`` the ``kernelspec`` and ``language_info`` that JupyterLab writes when
    its kernel starts (the installed kernel's display name, ipykernel's language info): Lab
    skips a value equal to the one there, while a different one (the chapter says "Python 3",
    the kernel "Python 3 (ipykernel)") marked every chapter modified as soon as it opened.
    The chapter's own ``kernelspec`` is kept under :data:`KERNEL_MARK` for the save."""
    metadata = notebook.setdefault("metadata", {})
    spec = metadata.get("kernelspec") or {}
    try:
        from ipykernel.ipkernel import IPythonKernel
        from jupyter_client.kernelspec import KernelSpecManager

        installed = KernelSpecManager().get_kernel_spec(spec.get("name", "python3"))
    except Exception:  # noqa: BLE001 - no such kernel: Lab will ask for one anyway
        return
    metadata.setdefault(KERNEL_MARK, dict(spec))
    metadata["kernelspec"] = {
        "name": spec.get("name", "python3"),
        "display_name": installed.display_name,
        "language": installed.language,
    }
    if installed.language == "python":
        metadata["language_info"] = dict(IPythonKernel.language_info)


#: A code cell's option block in a MyST chapter: the fence line, ``---``, YAML, ``---``.
_OPTION_BLOCK = myst.CODE_CELL_OPTIONS


def keep_option_blocks(before: str, after: str) -> str:
    """``after`` (a chapter as jupytext saved it) with each code cell's option block written as
    in ``before`` where its content is unchanged: jupytext dumps the YAML in its own style
    (a folded ``alt: >-`` becomes one quoted line), which rewrote every figure cell's alt text
    on a save from Lab."""
    originals = [
        (m.group(0), yaml.safe_load(m.group("yaml")))
        for m in _OPTION_BLOCK.finditer(before)
    ]

    def restore(match: re.Match) -> str:
        value = yaml.safe_load(match.group("yaml"))
        for i, (text, old) in enumerate(originals):
            if old == value and text.startswith(match.group("fence")):
                del originals[i]
                return text
        return match.group(0)

    return _OPTION_BLOCK.sub(restore, after)


def _is_text_notebook(path: str, model: dict[str, Any]) -> bool:
    return path.endswith(".md") and model.get("type") == "notebook"


class BookContentsManager(AsyncTextFileContentsManager):
    """Jupytext's contents manager with the book's macros shown and the chapters saved stably."""

    macros_config = Unicode(
        "",
        config=True,
        help="The _config.yml whose macros the notebooks get (default: the "
        "repository's).",
    )

    async def get(
        self,
        path: str,
        content: bool = True,
        type: str | None = None,
        format: str | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> dict[str, Any]:
        model = await super().get(path, content, type, format, *args, **kwargs)
        if content and _is_text_notebook(path, model) and model.get("content"):
            config = Path(self.macros_config) if self.macros_config else None
            try:
                macros = math_macros(config)
            except (
                OSError,
                ValueError,
            ) as error:  # e.g. installed without the repository
                self.log.warning("formulated: no math macros for %s: %s", path, error)
            else:
                add_macro_cell(model["content"], macros)
            fold_solutions(model["content"])
            show_sources(model["content"])
            match_kernel(model["content"])
        return model

    async def save(self, model: dict[str, Any], path: str = "") -> dict[str, Any]:
        if not (_is_text_notebook(path, model) and model.get("content")):
            return await super().save(model, path)
        prepare_for_save(model["content"])
        file = Path(self.root_dir) / path.strip("/")
        before = file.read_text(encoding="utf-8") if file.is_file() else ""
        saved = await super().save(model, path)
        if before and file.is_file():
            after = file.read_text(encoding="utf-8")
            kept = keep_option_blocks(before, after)
            if kept != after:
                file.write_text(kept, encoding="utf-8")
                # the file's new time and size, or Lab would see a change made outside it
                saved = await self.get(path, content=False)
        return saved


def _merge_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` into the JSON file ``path``, keeping its other top-level entries."""
    current = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    for key, value in data.items():
        if isinstance(value, dict) and isinstance(current.get(key), dict):
            current[key] = {**current[key], **value}
        else:
            current[key] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(current, indent=2) + "\n", encoding="utf-8")


def install(prefix: str | Path | None = None) -> list[Path]:
    """Install :data:`SETTINGS_OVERRIDES`, :data:`SERVER_CONFIG` and :data:`KERNEL_CONFIG` into
    ``prefix`` (default: this Python's ``sys.prefix``); returns the three files written."""
    base = Path(sys.prefix if prefix is None else prefix)
    overrides = base / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    # Not jupyter_server_config.d/: the server reads only extension switches from there.
    server = base / "etc" / "jupyter" / "jupyter_server_config.json"
    # IPython reads <sys.prefix>/etc/ipython (its ENV_CONFIG_DIRS) in every kernel it starts
    kernel = base / "etc" / "ipython" / "ipython_kernel_config.json"
    _merge_json(overrides, SETTINGS_OVERRIDES)
    _merge_json(server, SERVER_CONFIG)
    _merge_json(kernel, KERNEL_CONFIG)
    return [overrides, server, kernel]


def lab_command(extra: Sequence[str] = (), uid: int | None = None) -> list[str]:
    """The ``jupyter lab`` command line: in the repository (unless ``extra`` names a root
    directory), with ``--allow-root`` for uid 0."""
    uid = os.geteuid() if uid is None else uid
    command = [sys.executable, "-m", "jupyterlab"]
    root_options = ("--ServerApp.root_dir", "--notebook-dir", "--root-dir")
    if not any(a.startswith(root_options) for a in extra):
        command.append(
            f"--ServerApp.root_dir={ROOT}"
        )  # the repository, unless told otherwise
    if uid == 0:
        command.append(
            "--allow-root"
        )  # a container's root user; Lab refuses it otherwise
    return command + list(extra)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m booktools lab [--install-only] [jupyter lab options]``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--install-only",
        action="store_true",
        help="install the settings and server configuration, do not start Lab",
    )
    args, extra = parser.parse_known_args(argv)
    for path in install():
        print(f"booktools.lab.lab: wrote {path}")
    if args.install_only:
        return 0
    command = lab_command(extra)
    sys.stdout.flush()
    os.execv(command[0], command)  # replaces this process: Ctrl-C reaches Lab directly
    return 0  # pragma: no cover


if __name__ == "__main__":
    sys.exit(main())
