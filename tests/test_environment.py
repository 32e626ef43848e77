"""environment.yml (conda, Binder) and pyproject.toml (pip, make) must name the same packages."""

from __future__ import annotations

import re

import pytest
import yaml
from _chapters import ROOT

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")


def _name(requirement: str) -> str:
    """'jupyter-book>=1.0.4.post1,<2' -> 'jupyter-book' (PEP 503 normalized)."""
    name = re.split(r"[\s<>=!~;\[]", requirement.strip(), maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


def pyproject_names(data: dict) -> set[str]:
    project = data["project"]
    names = {_name(r) for r in project["dependencies"]}
    names |= {_name(r) for r in project["optional-dependencies"]["book"]}
    return names


def environment_names(data: dict) -> set[str]:
    names: set[str] = set()
    for dep in data["dependencies"]:
        if isinstance(dep, dict):
            names |= {_name(r) for r in dep.get("pip", []) if not r.startswith("-e")}
        elif _name(dep) not in {"python", "pip"}:
            names.add(_name(dep))
    return names


def mismatch(pyproject: dict, environment: dict) -> dict[str, set[str]]:
    a, b = pyproject_names(pyproject), environment_names(environment)
    return {"only in pyproject.toml": a - b, "only in environment.yml": b - a}


def _load():
    with open(ROOT / "pyproject.toml", "rb") as f:
        pyproject = tomllib.load(f)
    environment = yaml.safe_load((ROOT / "environment.yml").read_text())
    return pyproject, environment


def test_environment_and_pyproject_name_the_same_packages():
    diff = mismatch(*_load())
    assert not any(diff.values()), f"dependency lists drifted: {diff}"


def test_environment_installs_the_project_itself():
    _, env = _load()
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert "-e ." in pip


@pytest.mark.parametrize("side", ["pyproject", "environment"])
def test_the_check_fails_when_one_side_gains_a_package(side):
    pyproject, env = _load()
    if side == "pyproject":
        pyproject["project"]["dependencies"].append("scipy>=1")
        key = "only in pyproject.toml"
    else:
        env["dependencies"].insert(0, "scipy")
        key = "only in environment.yml"
    assert mismatch(pyproject, env)[key] == {"scipy"}


def test_jupyter_book_is_pinned_below_2():
    pyproject, _ = _load()
    jb = next(
        r
        for r in pyproject["project"]["optional-dependencies"]["book"]
        if _name(r) == "jupyter-book"
    )
    assert "<2" in jb
