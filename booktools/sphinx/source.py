"""Sphinx extension: a definition's code and its check, on the page (definition -> code -> check).

Under a ``{prf:definition}`` box a chapter writes (several objects may follow, one box)::

    ```{formulated-source} formulated.formulas.feedforward.ffn_gelu
    ```

naming each object by the module that defines it (:func:`check_defining_path`), since the
box's title is that path: the title names the file that holds the code.

and the rendered page shows, open, the function as a reader needs it under its definition
(:func:`shown_source`): the signature, one line of what and shapes (the docstring's first
line, a one-line summary) and the computation, as the file has them.  Validation lives in
the checker: the ``@checked(...)`` line is left out, and the sentence under the code names
the checker; the rest of the docstring is ``help()``'s and the API appendix's.  Under the
code, once, the tests that check it against its reference.  A box longer than
:data:`FOLD_OVER` shown lines
(a long helper) is folded (one click opens it, via ``sphinx-togglebutton``'s
``.admonition.dropdown``); an object already shown on the page is not shown twice: its second
box is one line linking to the first.  The function's docstring carries both facts, one line
each::

    Definition: def-11-ffn (more labels separated by commas).
    Checked by: tests/test_formulas.py::test_ffn_gelu_torch, tests/test_models.py::test_x

so the docstring (what ``help()`` shows) and the page (what a reader sees) cannot disagree.
:func:`implementations` collects these lines over the package; ``tests/test_definitions.py``
uses it to check that every label exists, that every box whose label a function names shows
that function's source, and that every test named exists.
"""

from __future__ import annotations

import ast
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

from booktools import myst

DIRECTIVE = "formulated-source"
#: ``Definition: def-11-ffn, def-11-gelu.`` in a docstring: the boxes the object implements.
DEFINITION_LINE = re.compile(
    r"^\s*Definitions?:\s*(?P<labels>def-[\w-]+(?:\s*,\s*def-[\w-]+)*)", re.M
)
#: ``Checked by: tests/test_x.py::test_y, ...`` in a docstring: the tests against a reference.
#: The list may wrap (88 columns): it may start on the next line, and a comma at the end of a
#: line continues it on the next.
CHECKED_LINE = re.compile(
    r"^[ \t]*Checked by:[ \t]*(?:\n[ \t]*)?"
    r"(?P<tests>[^\s,]+(?:[ \t]*,\s*[^\s,]+)*)",
    re.M,
)
TEST_ID = re.compile(r"^tests/[\w/]+\.py::\w+$")
#: A box of more shown lines (blank ones not counted) than this is folded: a long helper.
FOLD_OVER = 40
#: The columns a box shows (tests/test_columns.py).
WIDTH = 88


@dataclass(frozen=True)
class Implementation:
    """One object of :mod:`formulated` whose docstring names definition boxes."""

    name: str  # dotted path, e.g. "formulated.formulas.feedforward.ffn_gelu"
    labels: tuple[str, ...]  # the definition labels it implements
    tests: tuple[str, ...]  # "tests/test_formulas.py::test_name", ...


def docstring_facts(obj: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The labels (``Definition:``) and tests (``Checked by:``) named in ``obj``'s docstring."""
    doc = inspect.getdoc(obj) or ""
    labels = tuple(
        label.strip()
        for m in DEFINITION_LINE.finditer(doc)
        for label in m.group("labels").split(",")
    )
    tests = tuple(
        t.strip().rstrip(".")
        for m in CHECKED_LINE.finditer(doc)
        for t in m.group("tests").split(",")
    )
    return labels, tests


def _own_objects(module: Any) -> list[tuple[str, Any]]:
    """The functions and classes defined in ``module`` (not imported into it)."""
    return [
        (k, v)
        for k, v in vars(module).items()
        if (inspect.isfunction(v) or inspect.isclass(v))
        and getattr(v, "__module__", None) == module.__name__
    ]


@functools.lru_cache(maxsize=None)
def implementations(package: str = "formulated") -> tuple[Implementation, ...]:
    """Every function or class of ``package`` (all submodules) whose docstring has a
    ``Definition:`` line, under the dotted path of the module that defines it."""
    root = importlib.import_module(package)
    names = [package] + [
        m.name for m in pkgutil.walk_packages(root.__path__, package + ".")
    ]
    found = []
    for mod_name in sorted(names):
        if mod_name.endswith("__main__"):
            continue  # a __main__ runs a command line
        module = importlib.import_module(mod_name)
        for obj_name, obj in _own_objects(module):
            # a class's own methods too (GPT.forward), under module.Class.method; only a
            # docstring of their own (getdoc would inherit the base class's)
            members = [(obj_name, obj)] + [
                (f"{obj_name}.{k}", v)
                for k, v in vars(obj).items()
                if inspect.isclass(obj) and inspect.isfunction(v) and v.__doc__
            ]
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
        raise ValueError(
            f"{DIRECTIVE}: expected a dotted path such as "
            f"formulated.formulas.layer_norm, got {dotted!r}"
        )
    try:
        owner = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name != module_name:
            raise
        owner = resolve(
            module_name
        )  # a method: formulated.models.trainable.GPT.forward
    return getattr(owner, attr)


def defining_path(dotted: str) -> str:
    """The dotted path of the object at ``dotted`` by the module that defines it
    (``formulated.formulas.heads.attention``, where ``formulated.formulas.attention`` is the
    same function exported by the package's face): what a box's title must name, so that the
    title names the file that holds the code."""
    # unwrap: @checked and torch.no_grad keep the original's name and module
    obj = inspect.unwrap(resolve(dotted))
    return f"{obj.__module__}.{obj.__qualname__}"


def check_defining_path(dotted: str) -> None:
    """Raise ``ValueError`` when ``dotted`` does not name its object by the module that
    defines it (:func:`defining_path`)."""
    where = defining_path(dotted)
    if where != dotted:
        raise ValueError(
            f"{DIRECTIVE}: expected the path of the module that defines the code, "
            f"{where!r}, got {dotted!r}"
        )


def source_text(dotted: str) -> str:
    """The dedented source of the object at ``dotted`` (OSError/TypeError where it has none)."""
    return textwrap.dedent(inspect.getsource(resolve(dotted))).rstrip("\n")


def _docstring(node: ast.AST) -> ast.Expr | None:
    body = getattr(node, "body", None)
    if (
        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        return body[0]
    return None


#: The quotes that open a docstring's first line (a prefix such as ``r`` kept).
OPENING_QUOTES = re.compile(r"^\s*[rRuU]?(\"\"\"|\'\'\'|\"|\')")


def _is_checked(decorator: ast.expr) -> bool:
    """Whether ``decorator`` is ``@checked(...)``: validation, which lives in the checker."""
    return (
        isinstance(decorator, ast.Call)
        and isinstance(decorator.func, ast.Name)
        and decorator.func.id == "checked"
    )


def shown_text(source: str) -> str:
    """``source`` (a function's or a class's) as its box shows it: the signature, one line
    of what and shapes, the computation.  Every line is as the file has it, but the
    object's docstring is its first line (closed with its quotes; the docstring's first line
    is its one-line summary); the docstrings of the functions and classes inside it are left
    out with the blank lines that follow them (a docstring that is a whole body stays: the
    code would not parse without it), and so is the object's ``@checked(...)`` line."""
    lines = source.splitlines()
    cut: set[int] = set()  # 0-based line numbers
    top = ast.parse(source).body[0]
    for decorator in getattr(top, "decorator_list", []):
        if _is_checked(decorator):
            cut.update(range(decorator.lineno - 1, decorator.end_lineno))
    summary: dict[int, str] = {}
    for node in ast.walk(top):
        doc = _docstring(node)
        if doc is None or (node is not top and len(node.body) == 1):
            continue
        end = doc.end_lineno  # the line after the docstring, 0-based
        while node is not top and end < len(lines) and not lines[end].strip():
            end += 1
        first = doc.lineno - 1
        cut.update(range(first, end))
        if node is top:
            line = lines[first].rstrip()
            quotes = OPENING_QUOTES.match(line)
            closed = doc.end_lineno == doc.lineno
            summary[first] = (
                line if closed or quotes is None else line + quotes.group(1)
            )
    return "\n".join(
        summary.get(i, line)
        for i, line in enumerate(lines)
        if i not in cut or i in summary
    )


def shown_source(dotted: str) -> str:
    """What the box of the object at ``dotted`` shows: signature, one-line summary and
    computation (:func:`shown_text` of :func:`source_text`)."""
    return shown_text(source_text(dotted))


def shown_lines(text: str) -> int:
    """The lines of ``text`` a reader reads (blank ones not counted)."""
    return sum(1 for line in text.splitlines() if line.strip())


def folded(texts: list[str]) -> bool:
    """Whether a box of these shown sources is folded (a long helper: :data:`FOLD_OVER`)."""
    return sum(shown_lines(t) for t in texts) > FOLD_OVER


def checker_of(obj: Any) -> str | None:
    """The name of the function that checks ``obj``'s arguments, attached by
    ``@checked(...)`` (through any wrapper above it, such as ``torch.no_grad``), or None."""
    while obj is not None:
        checker = getattr(obj, "__checked_by__", None)
        if checker is not None:
            return checker.__name__
        obj = getattr(obj, "__wrapped__", None)
    return None


def checked_sentence(dotted: str) -> str:
    """The sentences under a source box (Markdown): the tests its docstring names, and the
    checker of its arguments (:func:`checker_of`), whose line the box leaves out."""
    words = WORDS["en"]
    obj = resolve(dotted)
    _, tests = docstring_facts(obj)
    if not tests:
        sentence = words["none"]
    else:
        sentence = words["checked"] + ", ".join(f"`{t}`" for t in tests) + words["end"]
    checker = checker_of(obj)
    if checker is not None:
        sentence += f"{words['checker']}`{checker}`{words['checker_end']}"
    return sentence


#: The directive block in a chapter's Markdown: ```{formulated-source} names``` (and its end).
BLOCK = myst.block_pattern(DIRECTIVE, "names")


def markdown_box(
    names: list[str], open_tag: str = "dropdown", seen: set[str] | None = None
) -> str:
    """The source box of ``names`` as MyST Markdown (``open_tag`` "dropdown": a ``{dropdown}``
    for jupyterlab-myst) or plain HTML (``open_tag`` "details": ``<details>`` for Colab and any
    Markdown viewer); the same content as the book's directive: open unless :func:`folded`.
    ``seen`` (updated) holds the names shown earlier in the same notebook: those are not shown
    again, a line says so."""
    seen = set() if seen is None else seen
    new = [n for n in names if n not in seen]
    again = [n for n in names if n in seen]
    seen.update(names)
    for name in names:
        check_defining_path(name)
    title = "Code: " + ", ".join(f"`{n}`" for n in names)
    texts = [shown_source(n) for n in new]
    parts = [
        f"```python\n{t}\n```\n\n{checked_sentence(n)}" for n, t in zip(new, texts)
    ]
    parts += [f"`{n}`: its code is shown above." for n in again]
    body = "\n\n".join(parts)
    is_open = not folded(texts)
    if open_tag == "details":
        return (
            f"<details{' open' if is_open else ''}>\n<summary>{title}</summary>\n\n{body}"
            f"\n\n</details>"
        )
    options = ":open:\n\n" if is_open else ""
    return f"::::{{dropdown}} {title}\n{options}{body}\n::::"


def render_blocks(markdown: str, open_tag: str = "dropdown") -> str:
    """``markdown`` with every ``{formulated-source}`` block replaced by :func:`markdown_box`
    (an object shown twice in ``markdown``: the second box links back, as in the book)."""
    seen: set[str] = set()
    return BLOCK.sub(
        lambda m: markdown_box(m.group("names").split(), open_tag, seen), markdown
    )


#: The box's words in each edition (the Korean book builds the same directive with
#: ``language = "ko"``; these words are not prose of the chapter, so no catalogue holds them).
WORDS: dict[str, dict[str, str]] = {
    "en": {
        "code": "Code: ",
        "checked": "Checked against its reference by ",
        "end": ".",
        "none": "No test names this function.",
        "checker": " Its arguments are checked by ",
        "checker_end": ".",
        "shown": ": its code is shown ",
        "above": "above",
        "after": ".",
    },
    "ko": {
        "code": "코드: ",
        "checked": "참조 구현과 대조하는 테스트: ",
        "end": ".",
        "none": "이 함수를 확인하는 테스트가 없다.",
        "checker": " 인자를 검사하는 함수: ",
        "checker_end": ".",
        "shown": ": 코드는 ",
        "above": "위",
        "after": "에 있다.",
    },
}


def box_words(language: str | None) -> dict[str, str]:
    """The words of a source box in ``language`` (English for any language without its own)."""
    return WORDS.get((language or "en").split("_")[0], WORDS["en"])


class SourceDirective(Directive):
    """``{formulated-source} formulated.module.f [formulated.module.g ...]``: one box with what
    a reader needs of each object named (:func:`shown_source`) and the tests its docstring
    names; open, folded only when long (:func:`folded`); an object the page showed already
    gets a line linking to its first box instead."""

    required_arguments = 1
    optional_arguments = 8
    has_content = False

    @property
    def words(self) -> dict[str, str]:
        return box_words(self.state.document.settings.env.config.language)

    def _check(self, obj: Any) -> nodes.paragraph:
        _, tests = docstring_facts(obj)
        check = nodes.paragraph()
        if tests:
            check += nodes.Text(self.words["checked"])
            for i, test in enumerate(tests):
                if i:
                    check += nodes.Text(", ")
                check += nodes.literal(test, test)
            check += nodes.Text(self.words["end"])
        else:
            check += nodes.Text(self.words["none"])
        checker = checker_of(obj)
        if checker is not None:  # the box leaves its @checked line out
            check += nodes.Text(self.words["checker"])
            check += nodes.literal(checker, checker)
            check += nodes.Text(self.words["checker_end"])
        return check

    def _one(self, dotted: str, shown: dict[str, str]) -> tuple[list[nodes.Node], str]:
        """The nodes of one object's source (or of the line linking to where the page showed
        it) and the text shown."""
        try:
            obj = resolve(dotted)
            check_defining_path(dotted)
            source = shown_source(dotted)
        except (
            ImportError,
            AttributeError,
            ValueError,
            OSError,
            TypeError,
            SyntaxError,
        ) as err:
            raise self.error(
                f"{DIRECTIVE}: cannot show the source of {dotted!r}: {err}"
            )
        env = self.state.document.settings.env
        # Rebuild the page when the code changes (unwrap: a torch.no_grad() function's own file).
        env.note_dependency(inspect.getsourcefile(inspect.unwrap(obj)))
        if dotted in shown:
            line = nodes.paragraph()
            line += nodes.literal(dotted, dotted)
            line += nodes.Text(self.words["shown"])
            line += nodes.reference(
                "", self.words["above"], internal=True, refid=shown[dotted]
            )
            line += nodes.Text(self.words["after"])
            return [line], ""
        target = nodes.make_id(f"code-{dotted}")
        shown[dotted] = target
        block = nodes.literal_block(source, source, language="python", ids=[target])
        return [block, self._check(obj)], source

    def run(self) -> list[nodes.Node]:
        env = self.state.document.settings.env
        # per page: temp_data lives while one document is read
        shown: dict[str, str] = env.temp_data.setdefault("formulated_source_shown", {})
        title = nodes.title("", self.words["code"])
        for i, dotted in enumerate(self.arguments):
            if i:
                title += nodes.Text(", ")
            title += nodes.literal(dotted, dotted)
        content, texts = [], []
        for dotted in self.arguments:
            part, text = self._one(dotted, shown)
            content.extend(part)
            texts.append(text)
        classes = (["dropdown"] if folded(texts) else []) + ["formulated-source"]
        box = nodes.admonition(classes=classes)
        box += title
        box.extend(content)
        return [box]


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the ``formulated-source`` directive."""
    app.add_directive(DIRECTIVE, SourceDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
