"""Sphinx extension: a definition's code and its check, on the page (definition -> code -> check).

Under a ``{prf:definition}`` box a chapter writes (several objects may follow, one box)::

    ```{formulated-source} formulated.formulas.ffn_relu formulated.formulas.ffn_gelu
    ```

and the rendered page shows, collapsed (one click opens it, via ``sphinx-togglebutton``'s
``.admonition.dropdown``), the highlighted source of that function and the tests that check it
against its reference.  The function's docstring carries both facts, one line each::

    Definition: def-11-ffn (more labels separated by commas).
    Checked by: tests/test_formulas.py::test_ffn_gelu_torch, tests/test_models.py::test_x

so the docstring (what ``help()`` shows) and the page (what a reader sees) cannot disagree.
:func:`implementations` collects these lines over the package; ``tests/test_definitions.py``
uses it to check that every label exists, that every box whose label a function names shows
that function's source, and that every test named exists.
"""
from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
import re
import textwrap
from dataclasses import dataclass
from typing import Any, Callable

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.application import Sphinx

DIRECTIVE = "formulated-source"
#: ``Definition: def-11-ffn, def-11-gelu.`` in a docstring: the boxes the object implements.
DEFINITION_LINE = re.compile(r"^\s*Definitions?:\s*(?P<labels>def-[\w-]+(?:\s*,\s*def-[\w-]+)*)",
                             re.M)
#: ``Checked by: tests/test_x.py::test_y, ...`` in a docstring: the tests against a reference.
#: The list may wrap (88 columns): it may start on the next line, and a comma at the end of a
#: line continues it on the next.
CHECKED_LINE = re.compile(r"^[ \t]*Checked by:[ \t]*(?:\n[ \t]*)?"
                          r"(?P<tests>[^\s,]+(?:[ \t]*,\s*[^\s,]+)*)", re.M)
TEST_ID = re.compile(r"^tests/[\w/]+\.py::\w+$")


@dataclass(frozen=True)
class Implementation:
    """One object of :mod:`formulated` whose docstring names definition boxes."""

    name: str                    # dotted path, e.g. "formulated.formulas.ffn_gelu"
    labels: tuple[str, ...]      # the definition labels it implements
    tests: tuple[str, ...]       # "tests/test_formulas.py::test_name", ...


def docstring_facts(obj: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The labels (``Definition:``) and tests (``Checked by:``) named in ``obj``'s docstring."""
    doc = inspect.getdoc(obj) or ""
    labels = tuple(label.strip() for m in DEFINITION_LINE.finditer(doc)
                   for label in m.group("labels").split(","))
    tests = tuple(t.strip().rstrip(".") for m in CHECKED_LINE.finditer(doc)
                  for t in m.group("tests").split(","))
    return labels, tests


def _own_objects(module: Any) -> list[tuple[str, Any]]:
    """The functions and classes defined in ``module`` (not imported into it)."""
    return [(k, v) for k, v in vars(module).items()
            if (inspect.isfunction(v) or inspect.isclass(v))
            and getattr(v, "__module__", None) == module.__name__]


@functools.lru_cache(maxsize=None)
def implementations(package: str = "formulated") -> tuple[Implementation, ...]:
    """Every function or class of ``package`` (all submodules) whose docstring has a
    ``Definition:`` line, under the dotted path of the module that defines it."""
    root = importlib.import_module(package)
    names = [package] + [m.name for m in pkgutil.walk_packages(root.__path__, package + ".")]
    found = []
    for mod_name in sorted(names):
        if mod_name.startswith(f"{package}.book.sphinx") or mod_name.endswith("__main__"):
            continue  # the extensions import Sphinx; a __main__ runs a command line
        module = importlib.import_module(mod_name)
        for obj_name, obj in _own_objects(module):
            # a class's own methods too (GPT.forward), under module.Class.method; only a
            # docstring of their own (getdoc would inherit the base class's)
            members = [(obj_name, obj)] + [
                (f"{obj_name}.{k}", v) for k, v in vars(obj).items()
                if inspect.isclass(obj) and inspect.isfunction(v) and v.__doc__]
            for name, member in members:
                labels, tests = docstring_facts(member)
                if labels:
                    found.append(Implementation(f"{mod_name}.{name}", labels, tests))
    return tuple(found)


def resolve(dotted: str) -> Callable[..., Any]:
    """The object at a dotted path such as ``formulated.formulas.ffn_gelu`` (or a class's
    method, ``formulated.models.trainable.GPT.forward``)."""
    module_name, _, attr = dotted.rpartition(".")
    if not module_name:
        raise ValueError(f"{DIRECTIVE}: expected a dotted path such as "
                         f"formulated.formulas.layer_norm, got {dotted!r}")
    try:
        owner = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name != module_name:
            raise
        owner = resolve(module_name)  # a method: formulated.models.trainable.GPT.forward
    return getattr(owner, attr)


def source_text(dotted: str) -> str:
    """The dedented source of the object at ``dotted`` (OSError/TypeError where it has none)."""
    return textwrap.dedent(inspect.getsource(resolve(dotted))).rstrip("\n")


def checked_sentence(dotted: str) -> str:
    """The sentence under a source box: the tests its docstring names (Markdown)."""
    _, tests = docstring_facts(resolve(dotted))
    if not tests:
        return "No test names this function."
    return "Checked against its reference by " + ", ".join(f"`{t}`" for t in tests) + "."


#: The directive block in a chapter's Markdown: ```{formulated-source} names``` (and its end).
BLOCK = re.compile(r"^(?P<fence>`{3,})\{" + re.escape(DIRECTIVE) + r"\}[ \t]+(?P<names>[^\n]+)\n"
                   r"(?:[^\n]*\n)*?(?P=fence)[ \t]*$", re.M)


def markdown_box(names: list[str], open_tag: str = "dropdown") -> str:
    """The source box of ``names`` as MyST Markdown (``open_tag`` "dropdown": a ``{dropdown}``
    for jupyterlab-myst) or plain HTML (``open_tag`` "details": ``<details>`` for Colab and any
    Markdown viewer); the same content as the book's directive."""
    title = "Code: " + ", ".join(f"`{n}`" for n in names)
    body = "\n\n".join(f"```python\n{source_text(n)}\n```\n\n{checked_sentence(n)}"
                        for n in names)
    if open_tag == "details":
        return f"<details>\n<summary>{title}</summary>\n\n{body}\n\n</details>"
    return f"::::{{dropdown}} {title}\n{body}\n::::"


def render_blocks(markdown: str, open_tag: str = "dropdown") -> str:
    """``markdown`` with every ``{formulated-source}`` block replaced by :func:`markdown_box`."""
    return BLOCK.sub(lambda m: markdown_box(m.group("names").split(), open_tag), markdown)


class SourceDirective(Directive):
    """``{formulated-source} formulated.module.f [formulated.module.g ...]``: one collapsed box
    with the source of each object named and the tests its docstring names."""

    required_arguments = 1
    optional_arguments = 8
    has_content = False

    def _one(self, dotted: str) -> list[nodes.Node]:
        try:
            obj = resolve(dotted)
            source = textwrap.dedent(inspect.getsource(obj)).rstrip("\n")
        except (ImportError, AttributeError, ValueError, OSError, TypeError) as err:
            raise self.error(f"{DIRECTIVE}: cannot show the source of {dotted!r}: {err}")
        env = self.state.document.settings.env
        # Rebuild the page when the code changes (unwrap: a torch.no_grad() function's own file).
        env.note_dependency(inspect.getsourcefile(inspect.unwrap(obj)))
        _, tests = docstring_facts(obj)
        check = nodes.paragraph()
        if tests:
            check += nodes.Text("Checked against its reference by ")
            for i, test in enumerate(tests):
                if i:
                    check += nodes.Text(", ")
                check += nodes.literal(test, test)
            check += nodes.Text(".")
        else:
            check += nodes.Text("No test names this function.")
        return [nodes.literal_block(source, source, language="python"), check]

    def run(self) -> list[nodes.Node]:
        box = nodes.admonition(classes=["dropdown", "formulated-source"])
        title = nodes.title("", "Code: ")
        for i, dotted in enumerate(self.arguments):
            if i:
                title += nodes.Text(", ")
            title += nodes.literal(dotted, dotted)
        box += title
        for dotted in self.arguments:
            box.extend(self._one(dotted))
        return [box]


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the ``formulated-source`` directive."""
    app.add_directive(DIRECTIVE, SourceDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
