"""benchmarks/sweep_gpu.py reads the figures a run printed, and shows a crash as a crash."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest
from _chapters import ROOT

REPORT = """device cuda; 10,745,088 parameters
target val <= 1.47 first reached at step 750 (val 1.4688), 25.3 s after process start; limit 30 s: MET
final val loss   1.4547
wall time        30.0 s from process start (training call 22.1 s)
tokens/s         1,851,873 (steady training throughput)
MFU              13.4 % of NVIDIA H100's dense bf16 peak
"""
CRASH = """Traceback (most recent call last):
ValueError: Expected a torch.device with a specified index or an integer, but got:cuda
"""


@pytest.fixture()
def sweep():
    spec = importlib.util.spec_from_file_location(
        "sweep_gpu", ROOT / "benchmarks" / "sweep_gpu.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fake_run(stdout: str, rc: int):
    def run(cmd, **kwargs):
        assert cmd[0] == sys.executable and cmd[1].endswith("train_gpu.py")
        return subprocess.CompletedProcess(cmd, rc, stdout=stdout, stderr="")

    return run


def test_row_reads_the_printed_figures(sweep, monkeypatch):
    monkeypatch.setattr(sweep.subprocess, "run", fake_run(REPORT, 0))
    row = sweep.run_variant("B=128 compile=off", timeout_s=5)
    assert row["reached"] == "750 / 1.4688 / 25.3"
    assert (row["final"], row["wall"], row["tok_s"], row["mfu"]) == (
        "1.4547",
        "30.0",
        "1,851,873",
        "13.4",
    )
    assert "error" not in row


def test_a_crash_with_exit_code_1_shows_its_error(sweep, monkeypatch):
    # Exit code 1 is also "ran and missed the target"; only the missing report tells them apart.
    monkeypatch.setattr(sweep.subprocess, "run", fake_run(CRASH, 1))
    row = sweep.run_variant("", timeout_s=5)
    assert row["final"] == "-"
    assert row["error"].startswith("ValueError: Expected a torch.device")


def test_a_missed_target_is_not_an_error(sweep, monkeypatch):
    missed = REPORT.replace("first reached at step 750 (val 1.4688), 25.3 s", "")
    monkeypatch.setattr(sweep.subprocess, "run", fake_run(missed, 1))
    row = sweep.run_variant("", timeout_s=5)
    assert row["reached"] == "-" and row["final"] == "1.4547" and "error" not in row
