"""The repository's layout stays the one a maintainer expects (issue 36).

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
