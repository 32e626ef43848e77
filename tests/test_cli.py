"""``python -m booktools <command>``: the one command line of the book's tools.

Every command names a module with a ``main`` that takes the arguments; the Makefile and
Binder's ``postBuild`` call the tools through it, by commands that exist; a wrong command or
argument is refused with a message that names it.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys

import pytest
from _chapters import ROOT

from booktools.__main__ import COMMANDS, main

#: ``python -m booktools <command>`` in a recipe or a script.
CALL = re.compile(r"python -m booktools(?:\s+([\w-]+)|(\.[\w.]+))")


def _module_file(module: str):
    path = ROOT.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_runs_a_main_that_takes_the_arguments(command):
    """Read, not imported (a tool's module may import Sphinx or otter): the module defines
    ``main`` with a parameter for the argument list."""
    module = COMMANDS[command][0]
    tree = ast.parse(_module_file(module).read_text(encoding="utf-8"))
    mains = [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name == "main"
    ]
    assert mains, f"{command}: {module} has no main()"
    assert mains[0].args.args, f"{command}: {module}.main takes no argument list"


def _calls(text: str) -> list[str]:
    """The commands ``text`` calls; a dotted ``python -m booktools.x`` call is returned as
    ``.x`` (the Makefile uses the one command line instead)."""
    return [m.group(1) or m.group(2) for m in CALL.finditer(text)]


@pytest.mark.parametrize("path", ["Makefile", ".binder/postBuild"])
def test_the_makefile_and_binder_call_known_commands(path):
    calls = _calls((ROOT / path).read_text(encoding="utf-8"))
    assert calls, f"{path} calls no booktools command"
    unknown = [c for c in calls if c not in COMMANDS]
    assert not unknown, f"{path}: not commands of python -m booktools: {unknown}"


def test_a_call_by_module_path_or_an_unknown_command_is_seen():
    """The check above can fail: a dotted module path and a misspelled command are found."""
    text = "\tpython -m booktools.build.pdf\n\tpython -m booktools pfd\n"
    assert [c for c in _calls(text) if c not in COMMANDS] == [".build.pdf", "pfd"]


def test_an_unknown_command_is_refused(capsys):
    assert main(["nope"]) == 2
    assert "command: expected one of" in capsys.readouterr().err


def test_no_command_lists_the_commands(capsys):
    assert main([]) == 2
    out = capsys.readouterr().out
    assert all(f"  {name} " in out for name in COMMANDS)


def test_a_command_gets_its_arguments(capsys):
    """``check extra`` reaches ``booktools.build.check.main(["extra"])``, which refuses it."""
    assert main(["check", "extra"]) == 2
    assert "check: expected no arguments, got ['extra']" in capsys.readouterr().err


def test_python_dash_m_booktools_runs(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "booktools", "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0 and "usage: python -m booktools" in out.stdout
