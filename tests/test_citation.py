"""The book is citable: CITATION.cff validates, agrees with the one home of each fact
(version: ``formulated.__version__``; repository: ``_config.yml``'s ``repository.url``; title:
``_config.yml``'s ``title``), and the intro's "Cite this book" BibTeX is ``cffconvert``'s."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
import yaml
from _chapters import ROOT

import formulated

CFF = ROOT / "CITATION.cff"
INTRO = ROOT / "chapters" / "intro.md"


def cffconvert(*args: str) -> subprocess.CompletedProcess[str]:
    """``cffconvert`` of this environment (``make env`` installs it) on CITATION.cff."""
    exe = Path(sys.executable).with_name("cffconvert")
    exe = exe if exe.is_file() else shutil.which("cffconvert")
    if exe is None:
        pytest.fail(
            "cffconvert not found: `make env` installs it (pip install --no-deps "
            "cffconvert==2.0.0 pykwalify docopt ruamel.yaml)",
            pytrace=False,
        )
    return subprocess.run(
        [str(exe), "-i", str(CFF), *args], capture_output=True, text=True, timeout=120
    )


def cff() -> dict:
    return yaml.safe_load(CFF.read_text(encoding="utf-8"))


def config() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))


def intro_bibtex(text: str) -> str:
    """The ```bibtex block of the intro's "Cite this book" section."""
    section = text.split("\n## Cite this book\n", 1)
    assert len(section) == 2, "chapters/intro.md has no '## Cite this book' section"
    found = re.search(r"^```bibtex\n(.*?)^```$", section[1], re.S | re.M)
    assert found, "the 'Cite this book' section has no ```bibtex block"
    return found.group(1)


@pytest.mark.slow  # runs cffconvert
def test_citation_cff_validates() -> None:
    result = cffconvert("--validate")
    assert result.returncode == 0, result.stdout + result.stderr


def test_citation_agrees_with_the_one_home_of_each_fact() -> None:
    data, conf = cff(), config()
    assert data["version"] == formulated.__version__
    assert data["repository-code"] == conf["repository"]["url"]
    assert data["title"] == conf["title"]
    # One author string: CITATION.cff, pyproject.toml and _config.yml say the same.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "project"
    ]
    assert data["authors"] == [{"name": conf["author"]}] == project["authors"]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(data["date-released"]))


#: The key cffconvert gives every BibTeX entry; the book's entry has a key of its own.
PLACEHOLDER_KEY = "YourReferenceHere"


@pytest.mark.slow  # runs cffconvert
def test_intro_bibtex_is_cffconverts() -> None:
    result = cffconvert("-f", "bibtex")
    assert result.returncode == 0, result.stderr
    ours = intro_bibtex(INTRO.read_text(encoding="utf-8")).strip()
    key = re.match(r"@misc\{(\w+),\n", ours)
    assert key and key[1] != PLACEHOLDER_KEY, (
        f"the BibTeX entry needs a real key: {ours[:40]}"
    )
    assert ours.replace(key[1], PLACEHOLDER_KEY, 1) == result.stdout.strip()


def test_version_has_one_home() -> None:
    """pyproject.toml reads the version from formulated.__version__ (no second copy)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"]
    assert "version" in project["project"]["dynamic"]
    attr = project["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "formulated.__version__"
    assert re.fullmatch(r"\d+\.\d+\.\d+", formulated.__version__)
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## [{formulated.__version__}]" in changelog, (
        "CHANGELOG.md lacks this version"
    )
