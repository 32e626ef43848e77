"""The Binder configuration (.binder/), checked offline: repo2docker's layout, pinned CPU PyTorch,
the post-build step that installs the book and its JupyterLab settings, and the launch URL."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest
from _chapters import ROOT

from booktools.sphinx import launch

BINDER = ROOT / ".binder"


def _constraint(name: str) -> str:
    for line in (ROOT / ".ci/constraints.txt").read_text().splitlines():
        if line.lower().startswith(name.lower() + "=="):
            return line.split("==", 1)[1].strip()
    raise AssertionError(f"{name} is not pinned in .ci/constraints.txt")


def _requirements() -> list[str]:
    lines = (BINDER / "requirements.txt").read_text().splitlines()
    return [l.strip() for l in lines if l.strip() and not l.strip().startswith("#")]


def test_repo2docker_reads_only_the_binder_folder():
    # With .binder/ present repo2docker ignores the root environment.yml (CUDA PyTorch);
    # with both binder/ and .binder/ it refuses to build.
    assert BINDER.is_dir() and not (ROOT / "binder").exists()
    files = {p.name for p in BINDER.iterdir()}
    assert {"requirements.txt", "runtime.txt", "postBuild"} <= files
    # requirements.txt, not environment.yml: one package manager (pip) with the pinned versions.
    assert "environment.yml" not in files and "Dockerfile" not in files


def test_pytorch_is_the_pinned_cpu_build():
    reqs = _requirements()
    torch = [r for r in reqs if re.match(r"torch\b", r)]
    assert torch == [f"torch=={_constraint('torch')}+cpu"]
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in reqs
    # The constraints file is found relative to requirements.txt (pip resolves -c that way).
    constraint = next(r for r in reqs if r.startswith("-c "))
    assert (BINDER / constraint[3:]).resolve() == (
        ROOT / ".ci/constraints.txt"
    ).resolve()


def test_runtime_is_the_python_the_pins_were_made_with():
    runtime = (BINDER / "runtime.txt").read_text().strip()
    assert runtime == f"python-{sys.version_info.major}.{sys.version_info.minor}"


def test_post_build_installs_the_book_and_its_lab_settings():
    post = BINDER / "postBuild"
    assert os.access(post, os.X_OK), "postBuild must be executable"
    if shutil.which("git") and (ROOT / ".git").exists():  # ... in the repository too
        staged = subprocess.run(
            ["git", "ls-files", "-s", ".binder/postBuild"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        ).stdout
        assert staged.startswith("100755"), f"git records postBuild as {staged[:6]!r}"
    text = post.read_text()
    assert text.startswith("#!/bin/bash") and "set -euo pipefail" in text
    assert re.search(r'pip install .*-c \.ci/constraints\.txt -e "\.\[book\]"', text)
    assert "python -m booktools pth\npython -m booktools lab --install-only" in text
    for extension in ("jupyterlab_myst", "jupyterlab_jupytext"):
        assert f"jupyter server extension enable --sys-prefix {extension}" in text
    if shutil.which("bash"):
        subprocess.run(["bash", "-n", str(post)], check=True)


@pytest.mark.slow  # runs Binder's postBuild
def test_post_build_lab_step_runs_offline(tmp_path):
    """The step postBuild runs, into a scratch prefix: the default-viewer override lands."""
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from booktools.lab import lab; "
            f"[print(p) for p in lab.install({str(tmp_path)!r})]",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    overrides = tmp_path / "share/jupyter/lab/settings/overrides.json"
    assert str(overrides) in out.stdout and "Jupytext Notebook" in overrides.read_text()


def test_the_launch_url_opens_a_chapter_in_the_notebook_view():
    home = launch.BookHome("https://github.com/some-course/formulated-gpt", "main", "")
    url = launch.binder_url(home, "chapters/11_ffn_gelu.md")
    assert url.endswith("?urlpath=lab/tree/chapters/11_ffn_gelu.md")
    assert (ROOT / "chapters/11_ffn_gelu.md").is_file()


@pytest.mark.parametrize(
    "name", ["jupyterlab", "jupyterlab_myst", "jupytext", "ipywidgets"]
)
def test_lab_packages_are_pinned(name):
    """Binder installs the same JupyterLab, MyST and jupytext versions as `make`."""
    assert _constraint(name)
