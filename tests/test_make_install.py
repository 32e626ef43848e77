"""`make test` installs what its tests need on a bare machine: TeX Live (`tex`) and
Chromium (`browser`), as root with apt-get, else with sudo, else one line saying what to run.

A bare machine is simulated by a PATH holding only fake ``apt-get``/``sudo``/``id`` (which
record their arguments) and the few tools the recipes call; no package is installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from _chapters import ROOT

MAKE = shutil.which("make")
pytestmark = pytest.mark.skipif(MAKE is None, reason="make is not installed")


def _bare_path(tmp_path: Path, uid: int, apt: bool, sudo: bool) -> dict[str, str]:
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    log = tmp_path / "calls.log"
    for tool in ("grep", "cat", "sh"):
        (bin_ / tool).symlink_to(shutil.which(tool))
    fakes = {"id": f"echo {uid}"}
    if apt:
        fakes["apt-get"] = f'echo "apt-get $*" >> {log}'
    if sudo:
        fakes["sudo"] = f'echo "sudo $*" >> {log}'
    for name, body in fakes.items():
        (bin_ / name).write_text(f"#!/bin/sh\n{body}\n")
        (bin_ / name).chmod(0o755)
    return {"PATH": str(bin_), "HOME": os.environ.get("HOME", "/tmp")}


def _make(target: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [MAKE, "--no-print-directory", "-s", target],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    "target, packages",
    [
        ("tex", ("texlive-xetex", "latexmk", "fonts-noto-cjk")),
        ("browser", ("chromium",)),
    ],
)
def test_as_root_apt_get_installs_what_is_missing(tmp_path, target, packages):
    env = _bare_path(tmp_path, uid=0, apt=True, sudo=False)
    result = _make(target, env)
    assert result.returncode == 0, result.stdout + result.stderr
    calls = (tmp_path / "calls.log").read_text()
    assert "apt-get update" in calls
    install = next(c for c in calls.splitlines() if " install " in c)
    assert all(p in install.split() for p in packages), install


@pytest.mark.parametrize("target", ["tex", "browser"])
def test_a_user_installs_with_sudo(tmp_path, target):
    env = _bare_path(tmp_path, uid=1000, apt=True, sudo=True)
    result = _make(target, env)
    assert result.returncode == 0, result.stdout + result.stderr
    calls = (tmp_path / "calls.log").read_text().splitlines()
    assert calls and all(c.startswith("sudo ") for c in calls), calls
    assert "with sudo" in result.stdout


@pytest.mark.parametrize("target", ["tex", "browser"])
def test_without_apt_get_one_line_says_what_to_run(tmp_path, target):
    env = _bare_path(tmp_path, uid=1000, apt=False, sudo=False)
    result = _make(target, env)
    assert result.returncode != 0
    said = [
        line for line in result.stdout.splitlines() if "sudo apt-get install" in line
    ]
    assert len(said) == 1, result.stdout
    assert not (tmp_path / "calls.log").exists()
