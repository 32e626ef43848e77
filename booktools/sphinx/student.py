"""The student edition in Sphinx: the book without solutions.

``_config.yml`` lists this extension; it does nothing unless the config value
``formulated_student_edition`` (:data:`CONFIG_NAME`) is true, which the student build
(:mod:`booktools.course.student`, ``make student-book``) sets.  Then, after sphinx-exercise has
merged every ``{solution-start}`` … ``{solution-end}`` into one solution node (its transform of
priority 10), :class:`RemoveSolutions` deletes every solution node with what it holds (text,
code cells, outputs).  sphinx-exercise's own ``hide_solutions`` drops ``{solution}`` boxes
only, not the gated ones (checked in sphinx-exercise 1.2.1).

The download menu offers neither the page's ``.md`` nor its ``.ipynb`` (both hold the
solutions), nor the PDF (its solutions appendix).  Appendix C, the instructors' guide (hidden
tests, answer keys, the tooling's files), is replaced by a short page for students
(:data:`STUDENT_APPENDIX_C`).
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform

__all__ = [
    "CONFIG_NAME",
    "INSTRUCTORS_PAGE",
    "STUDENT_APPENDIX_C",
    "student_appendix",
    "RemoveSolutions",
    "setup",
]

#: The Sphinx config value that turns the student edition on.
CONFIG_NAME = "formulated_student_edition"

#: The instructors' appendix, which the student edition replaces by :data:`STUDENT_APPENDIX_C`.
INSTRUCTORS_PAGE = "chapters/appendix_c_instructors"
#: Appendix C of the student edition: what a student needs, none of the instructor's tooling.
STUDENT_APPENDIX_C = """# For instructors

This is the student edition of the book: every chapter keeps its exercises, and none shows a
solution. The guide for instructors (how the exercises become graded assignments) is in the
book's full edition.

To work on a chapter's exercises, open the chapter's notebook: with the launch buttons at the top
of the chapter's page where your course has set them up, or as your instructor hands it out. The
notebook runs the chapter's code and leaves room for your answers; your instructor says how and
when to hand it in.
"""


def student_appendix(app: Sphinx, docname: str, source: list[str]) -> None:
    """In the student edition, the instructors' appendix is :data:`STUDENT_APPENDIX_C`."""
    if getattr(app.config, CONFIG_NAME, False) and docname == INSTRUCTORS_PAGE:
        source[0] = STUDENT_APPENDIX_C


class RemoveSolutions(SphinxTransform):
    """Delete every solution node (a ``{solution}`` box or a merged gated solution with its
    code cells and their outputs) when :data:`CONFIG_NAME` is true."""

    default_priority = 11  # after sphinx-exercise's MergeGatedSolutions (10)

    def apply(self, **kwargs: Any) -> None:
        if not getattr(self.config, CONFIG_NAME, False):
            return
        from sphinx_exercise.nodes import (
            solution_end_node,
            solution_node,
            solution_start_node,
        )

        for node in list(
            self.document.findall(
                lambda n: isinstance(
                    n, (solution_node, solution_start_node, solution_end_node)
                )
            )
        ):
            if node.parent is not None:
                node.parent.remove(node)
        # sphinx-exercise lists solutions for its reference resolution: a removed one must
        # not be found (it would link to a page section that is not there)
        registry = getattr(self.env, "sphinx_exercise_registry", {})
        for label in [
            k
            for k, v in registry.items()
            if v.get("type") == "solution" and v.get("docname") == self.env.docname
        ]:
            del registry[label]


def _no_source_download(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """The student edition's download menu keeps "print to PDF" only: the page's ``.md`` and
    ``.ipynb`` hold the solutions."""
    if not getattr(app.config, CONFIG_NAME, False):
        return
    for group in context.get("header_buttons", []):
        if group.get("label") == "download-buttons":
            group["buttons"] = [
                b
                for b in group["buttons"]
                if b.get("label")
                not in ("download-notebook-button", "download-source-button")
            ]


def _no_pdf(app: Sphinx, config: Any) -> None:
    """No "Download PDF" and no PDF copied beside the student pages: the PDF has a solutions
    appendix.  (:mod:`booktools.sphinx.pdf` sets ``formulated_pdf`` when the PDF exists, at
    ``config-inited``; this runs after it.)"""
    if getattr(config, CONFIG_NAME, False):
        config.formulated_pdf = ""


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value(CONFIG_NAME, False, "env", [bool])
    app.connect("config-inited", _no_pdf, priority=900)
    app.add_transform(RemoveSolutions)
    app.connect("source-read", student_appendix)
    app.connect("html-page-context", _no_source_download, priority=920)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
