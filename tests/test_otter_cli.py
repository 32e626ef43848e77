"""booktools.course.otter_cli: otter's own command line, with kernel replies awaited in slices."""

from __future__ import annotations

import subprocess
import sys

import pytest
from _chapters import ROOT

from booktools.course import grading

# A fresh interpreter (the test process has the patch from conftest already): run the entry
# point as ``python -m`` does, then report whether the channel class was patched.
PROBE = """
import runpy, sys
from jupyter_client.channels import AsyncZMQSocketChannel
before = hasattr(AsyncZMQSocketChannel.get_msg, "_formulated_sliced_get_msg")
sys.argv = ["otter", "--version"]
try:
    runpy.run_module("booktools.course.otter_cli", run_name="__main__")
except SystemExit as stop:
    code = stop.code
print(before, hasattr(AsyncZMQSocketChannel.get_msg, "_formulated_sliced_get_msg"), code)
"""


@pytest.mark.slow  # runs otter
def test_entry_point_patches_the_channels_then_runs_otter():
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Otter-Grader version" in done.stdout, done.stdout
    assert done.stdout.split()[-3:] == ["False", "True", "0"], done.stdout


@pytest.mark.slow  # runs otter
def test_otter_errors_keep_their_exit_status():
    done = subprocess.run(
        [sys.executable, "-m", "booktools.course.otter_cli", "run", "--bogus"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "No such option '--bogus'" in done.stderr


def test_grading_runs_otter_through_the_entry_point(monkeypatch, tmp_path):
    """grading.grade launches ``python -m booktools otter run``, not bare ``otter``."""
    import zipfile

    calls = []

    def fake_run(cmd, **kwargs):
        calls.append(cmd)
        (tmp_path / "out" / "results.json").write_text('{"tests": []}')
        return subprocess.CompletedProcess(cmd, 0, "", "")

    autograder = tmp_path / "ag.zip"
    with zipfile.ZipFile(autograder, "w") as z:
        z.writestr("tests/q.py", "")
    monkeypatch.setattr(grading.subprocess, "run", fake_run)
    assert grading.grade(tmp_path / "s.ipynb", autograder, tmp_path / "out") == {
        "total": 0.0
    }
    assert calls[0][:4] == [
        sys.executable,
        "-m",
        "booktools.course.otter_cli",
        "run",
    ], calls


def test_grades_csv_rounds_the_points(monkeypatch, tmp_path):
    """otter writes a share of a question's points as 0.66667: grades.csv shows the sum as
    1.6667, not 1.6666699999999999."""
    import csv
    import json
    import zipfile

    def fake_run(cmd, **kwargs):
        results = {
            "tests": [
                {"name": "ex-1", "score": 0.66667},
                {"name": "ex-2", "score": 1.0},
            ]
        }
        (kwargs["cwd"] / "results.json").write_text(json.dumps(results))
        return subprocess.CompletedProcess(cmd, 0, "", "")

    autograder = tmp_path / "ag.zip"
    with zipfile.ZipFile(autograder, "w") as z:
        z.writestr("tests/q.py", "")
    monkeypatch.setattr(grading.subprocess, "run", fake_run)
    table = grading.grade_all(
        [tmp_path / "a" / "s.ipynb"], autograder, tmp_path / "grades"
    )
    text = table.read_text()
    (row,) = csv.DictReader(text.splitlines())
    assert (row["ex-1"], row["ex-2"], row["total"]) == ("0.6667", "1.0", "1.6667"), text
