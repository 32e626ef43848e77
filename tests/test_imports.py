"""No import cycles in ``formulated/`` or ``booktools/``.

Every ``import`` and ``from ... import`` anywhere in a module counts, inside functions too
(a cycle hidden in a function still ties two modules into one), with relative imports resolved.
``from pkg import name`` is an edge to the submodule ``pkg.name`` when there is one, else to
``pkg`` itself (its ``__init__``): a submodule that imports its own package's face is in a
cycle with it when that face imports the submodule.  The strongly connected components of the
graph (Tarjan's algorithm) with more than one module are the cycles.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from _chapters import ROOT

PACKAGES = ("formulated", "booktools")


def module_names(root: Path, packages=PACKAGES) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file under ``root/<package>``
    (``pkg/__init__.py`` is the module ``pkg``)."""
    names = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            names[".".join(parts)] = path
    return names


def imported_modules(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that module ``name`` (file ``path``) imports, anywhere in it."""
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    found = set()

    def add(target: str) -> None:
        # the deepest known module named by ``target`` (an attribute path ends in a module)
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target and target != name:
            found.add(target)

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                base = ".".join(base + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                child = f"{base}.{alias.name}"
                add(child if child in known else base)
    return found


def import_graph(root: Path, packages=PACKAGES) -> dict[str, set[str]]:
    """Module -> the modules it imports, within ``packages`` under ``root``."""
    files = module_names(root, packages)
    known = set(files)
    return {name: imported_modules(name, path, known) for name, path in files.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_no_import_cycles():
    """No two modules of the package or the tooling import each other, directly or through
    others (imports inside functions included)."""
    found = cycles(import_graph(ROOT))
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        # a ring of three, one link inside a function and one relative
        (
            {
                "pkg/__init__.py": "",
                "pkg/a.py": "from pkg import b\n",
                "pkg/b.py": "def f():\n    from .c import x\n",
                "pkg/c.py": "import pkg.a\nx = 1\n",
            },
            [["pkg.a", "pkg.b", "pkg.c"]],
        ),
        # a submodule that imports its package's face, which imports the submodule
        (
            {
                "pkg/__init__.py": "from .sub.mod import VALUE\n",
                "pkg/sub/__init__.py": "",
                "pkg/sub/mod.py": "from .. import helper\nVALUE = 1\n",
                "pkg/helper.py": "from pkg import VALUE\n",
            },
            [["pkg", "pkg.helper", "pkg.sub.mod"]],
        ),
        # no cycle: a face that imports its submodules, which import each other one way
        (
            {
                "pkg/__init__.py": "from .a import A\nfrom .b import B\n",
                "pkg/a.py": "A = 1\n",
                "pkg/b.py": "from pkg.a import A\nimport os\nB = A\n",
            },
            [],
        ),
    ],
)
def test_cycles_are_found(tmp_path, files, expected):
    """The walker sees a planted cycle (and no cycle where there is none)."""
    _write(tmp_path, files)
    assert cycles(import_graph(tmp_path, ("pkg",))) == expected
