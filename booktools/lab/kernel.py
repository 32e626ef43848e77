"""IPython extension for the chapters in JupyterLab: a folded solution's output stays folded.

:func:`booktools.lab.lab.fold_solutions` folds the code cells of a gated solution (input and output
hidden).  Running a cell makes JupyterLab show its output again (``CodeCell.execute`` sets
``outputHidden = false``), so after *Run All* the solution's printed answer stood open under its
folded code.  JupyterLab sends the cell's metadata with the execute request; for a cell that
carries :data:`FOLD_MARK` this extension captures what the cell prints and displays, and shows it
inside one ``<details>`` box ("Output of the solution"), closed until the reader opens it.

:func:`booktools.lab.lab.install` loads it in every IPython kernel of the environment
(``etc/ipython/ipython_kernel_config.json``).  In any other cell, and in kernels that get no such
metadata (``make book``, ``nbclient``, the tests), it does nothing.  Errors are not captured:
a failing solution shows its traceback.  Widgets are shown after the box (they cannot live in it).
"""

from __future__ import annotations

import html
from typing import Any

__all__ = [
    "FOLD_MARK",
    "SUMMARY",
    "folded_html",
    "load_ipython_extension",
    "unload_ipython_extension",
]

#: Metadata key on the code cells of a gated solution that the notebook view folds.
FOLD_MARK = "formulated-folded"
SUMMARY = "Output of the solution (click to show)"
_WIDGET = "application/vnd.jupyter.widget-view+json"


def _request_metadata(shell: Any) -> dict[str, Any]:
    """The metadata of the execute request being run (JupyterLab: the cell's metadata)."""
    kernel = getattr(shell, "kernel", None)
    get_parent = getattr(kernel, "get_parent", None)
    parent = (
        get_parent()
        if callable(get_parent)
        else getattr(kernel, "_parent_header", None)
    )
    metadata = (parent or {}).get("metadata") or {}
    return metadata if isinstance(metadata, dict) else {}


def folded_html(stdout: str, stderr: str, outputs: list[dict[str, Any]]) -> str:
    """One closed ``<details>`` box holding the printed text and the displayed outputs
    (``outputs``: MIME bundles); empty when there is nothing to show."""
    parts = [f"<pre>{html.escape(text)}</pre>" for text in (stdout, stderr) if text]
    for data in outputs:
        if "image/png" in data:
            parts.append(
                f'<img alt="figure" src="data:image/png;base64,{data["image/png"]}">'
            )
        elif "image/svg+xml" in data:
            parts.append(data["image/svg+xml"])
        elif "text/html" in data:
            parts.append(data["text/html"])
        elif "text/plain" in data:
            parts.append(f"<pre>{html.escape(data['text/plain'])}</pre>")
    if not parts:
        return ""
    return (
        f"<details class='formulated-solution-output'><summary>{SUMMARY}</summary>"
        + "".join(parts)
        + "</details>"
    )


class _Fold:
    """``pre_run_cell`` / ``post_run_cell`` hooks: capture a folded cell's output, show it
    folded."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.capture: Any = None
        self.captured: Any = None

    def pre_run_cell(self, info: Any = None) -> None:
        if self.capture is None and _request_metadata(self.shell).get(FOLD_MARK):
            from IPython.utils.capture import capture_output

            self.capture = capture_output(stdout=True, stderr=True, display=True)
            self.captured = self.capture.__enter__()

    def post_run_cell(self, result: Any = None) -> None:
        if self.capture is None:
            return
        capture, captured = self.capture, self.captured
        self.capture = self.captured = None
        capture.__exit__(None, None, None)
        from IPython.display import display

        bundles = [o.data for o in captured.outputs]
        box = folded_html(
            captured.stdout, captured.stderr, [b for b in bundles if _WIDGET not in b]
        )
        if box:
            display(
                {
                    "text/html": box,
                    "text/plain": "(output of the solution, folded: open the cell)",
                },
                raw=True,
            )
        for bundle in bundles:
            if _WIDGET in bundle:
                display(bundle, raw=True)


_HOOKS: dict[int, _Fold] = {}


def load_ipython_extension(shell: Any) -> None:
    fold = _Fold(shell)
    _HOOKS[id(shell)] = fold
    shell.events.register("pre_run_cell", fold.pre_run_cell)
    shell.events.register("post_run_cell", fold.post_run_cell)


def unload_ipython_extension(shell: Any) -> None:
    fold = _HOOKS.pop(id(shell), None)
    if fold is not None:
        shell.events.unregister("pre_run_cell", fold.pre_run_cell)
        shell.events.unregister("post_run_cell", fold.post_run_cell)
