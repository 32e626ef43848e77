"""The repository's layout stays the one a maintainer expects.

* ``tests/`` holds test modules (``test_*.py``), pytest's ``conftest.py`` and helpers whose
  names start with ``_``; tools (``python -m booktools <command>``) live in ``booktools/``.
* A helper the tests share is defined once: ``ROOT`` in ``_chapters.py``, the rest in
  ``_helpers.py``.
* A module holds one idea; as a backstop, no module of ``formulated/`` or ``booktools/``
  holds more than :data:`MAX_STATEMENTS` statements (a count the formatter cannot change).
"""

from __future__ import annotations

import ast
import re

from _chapters import ROOT

TESTS = ROOT / "tests"
#: Statements per module (every ``ast.stmt``, nested ones included).  When it was set, the
#: largest modules held 420 (the exercise specs of chapters 8-12, tests included), 325 and 323:
#: well above them, so that no module by one idea comes near it.
MAX_STATEMENTS = 600

#: A module-level ``ROOT = Path(__file__)...``: the definition the tests share.
ROOT_DEFINITION = re.compile(r"^ROOT\s*=\s*Path\(__file__\)", re.M)


def _test_modules():
    return sorted(p for p in TESTS.rglob("*.py") if "vendor" not in p.parts)


def test_tests_hold_only_tests_and_helpers():
    """A module under ``tests/`` is a test, ``conftest.py`` or an ``_helper``: tools live in
    ``booktools/`` (run as ``python -m booktools <command>``)."""
    strays = [
        p.relative_to(ROOT).as_posix()
        for p in _test_modules()
        if not (p.name.startswith(("test_", "_")) or p.name == "conftest.py")
    ]
    assert not strays, f"tools in tests/ (move them to booktools/): {strays}"


def test_root_is_defined_once():
    """``ROOT`` is defined in one helper module and imported everywhere else."""
    defining = [
        p.relative_to(ROOT).as_posix()
        for p in _test_modules()
        if ROOT_DEFINITION.search(p.read_text(encoding="utf-8"))
    ]
    assert len(defining) == 1, f"ROOT = Path(__file__)... defined in {defining}"


def test_the_tools_define_root_once():
    """In ``booktools/``, ``ROOT`` is defined by :mod:`booktools.paths` alone (any
    ``ROOT = ...`` at a module's top level counts) and imported everywhere else."""
    defining = [
        p.relative_to(ROOT).as_posix()
        for p in sorted((ROOT / "booktools").rglob("*.py"))
        if re.search(r"^ROOT\s*=", p.read_text(encoding="utf-8"), re.M)
    ]
    assert defining == ["booktools/paths.py"], f"ROOT defined in {defining}"


def statements(source: str) -> int:
    """The statements of a module's source, nested ones included (a docstring counts as one,
    a comment or a blank line as none, a long call spread over many lines as one)."""
    return sum(isinstance(node, ast.stmt) for node in ast.walk(ast.parse(source)))


def test_statements_are_counted_not_lines():
    one = "total = sum(\n    x\n    for x in range(3)\n)\n"
    assert statements(one) == 1
    assert statements("def f():\n    if True:\n        return 1\n    return 2\n") == 4
    assert statements("# a comment\n\n") == 0


def test_no_module_over_the_statement_cap():
    """Every module of the package and of the tooling holds at most MAX_STATEMENTS: past it,
    it holds more than one idea, and is split by idea (never into halves by size)."""
    over = {
        p.relative_to(ROOT).as_posix(): n
        for package in ("formulated", "booktools")
        for p in sorted((ROOT / package).rglob("*.py"))
        if (n := statements(p.read_text(encoding="utf-8"))) > MAX_STATEMENTS
    }
    assert not over, f"modules over {MAX_STATEMENTS} statements: {over}"


def _top_level(body: list[ast.stmt]):
    """The statements run at import: the module's, and those inside its top-level ``if`` and
    ``try`` blocks (not inside functions or classes)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.If, ast.Try)):
            for block in (stmt.body, stmt.orelse, getattr(stmt, "finalbody", [])):
                yield from _top_level(block)
            for handler in getattr(stmt, "handlers", []):
                yield from _top_level(handler.body)


def reexported(source: str, package: str) -> set[str]:
    """The names a non-``__init__`` module of ``package`` (``formulated`` or ``booktools``)
    imports at module level from another module of the same package only to pass them on:
    listed in its ``__all__``, imported under their own name (``a as a``, the re-export
    idiom), or never used in the module."""
    tree = ast.parse(source)
    listed: set[str] = set()
    imported: dict[str, bool] = {}  # name -> imported as itself (``a as a``)
    for stmt in _top_level(tree.body):
        if isinstance(stmt, ast.ImportFrom) and (
            stmt.level or (stmt.module or "").split(".")[0] == package
        ):
            for alias in stmt.names:
                imported[alias.asname or alias.name] = alias.asname == alias.name
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                listed |= {
                    n.value
                    for n in ast.walk(stmt.value)
                    if isinstance(n, ast.Constant) and isinstance(n.value, str)
                }
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return {
        name
        for name, as_itself in imported.items()
        if name in listed or as_itself or name not in used
    }


def facades(package: str) -> dict[str, set[str]]:
    """Every non-``__init__`` module of ``package`` that re-exports names of its package's
    other modules (:func:`reexported`), with those names."""
    found = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        if path.name == "__init__.py":
            continue
        names = reexported(path.read_text(encoding="utf-8"), package)
        if names:
            found[path.relative_to(ROOT).as_posix()] = names
    return found


def test_a_facade_is_found():
    facade = (
        "from .heads import attention\n"
        "from .masking import softmax\n"
        "from . import losses\n"
        "from ..models.params import Block as Block\n"
        "from ._checks import MASK_KINDS  # noqa: F401\n"
        "__all__ = ['attention', 'helper']\n"
        "def helper(x):\n"
        "    return losses.cross_entropy(softmax(x), 0)\n"
    )
    assert reexported(facade, "formulated") == {"attention", "Block", "MASK_KINDS"}
    aliased = "from formulated.heads import attention as attention\n"
    assert reexported(aliased, "formulated") == {"attention"}
    # a name imported and used, or imported from outside the package, is no re-export
    assert not reexported("import numpy as np\nfrom typing import Any\n", "formulated")
    used = "from .heads import attention\nattention(1, 2, 3)\n"
    assert not reexported(used, "formulated")


def test_no_module_re_exports_its_siblings_names():
    """A module's names are imported from the module that defines them: no module keeps an
    old import path alive by re-exporting another module's names (a package's ``__init__``,
    its public face, excepted)."""
    found = {
        path: sorted(names)
        for package in ("formulated", "booktools")
        for path, names in facades(package).items()
    }
    assert not found, f"modules re-exporting names of their package's modules: {found}"
