"""How often does ``otter``'s grading of a student notebook stall, bare and through
``booktools.course.otter_cli`` (kernel replies awaited in slices)?

Each run grades a chapter's blank student notebook in a fresh process, as ``otter run`` and the
export's ``run_tests`` do (``otter.execute.grade_notebook``: a new kernel, no cell time limit),
``--parallel`` runs at a time, alternating the two modes so both see the same load.  A run that
has not finished after ``--limit`` seconds is a stall (killed).  Prints runs, stalls and the
slowest finished run per mode.  Baseline: bare otter, measured in the same run.

    .venv/bin/python benchmarks/otter_stalls.py                   # 06_tokenization, 2 x 30 runs
    .venv/bin/python benchmarks/otter_stalls.py --runs 10 --chapter 09_masks
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from booktools.course import assign  # noqa: E402

ONE_RUN = """
import sys
if sys.argv[1] == "sliced":
    from booktools.sphinx.kernel_client import patch_shell_wait
    patch_shell_wait()
from otter.execute import grade_notebook
grade_notebook(sys.argv[2], test_dir="./tests", tests_glob=[], cwd=sys.argv[3])
"""
MODES = ("bare", "sliced")


def one_run(mode: str, student: Path, limit: float) -> float | None:
    """Seconds one grading took, or None when it stalled past ``limit``."""
    with tempfile.TemporaryDirectory() as d:
        nb = Path(d) / student.name
        nb.write_bytes(student.read_bytes())
        start = time.perf_counter()
        try:
            subprocess.run(
                [sys.executable, "-c", ONE_RUN, mode, str(nb), d],
                cwd=d,
                check=True,
                capture_output=True,
                timeout=limit,
            )
        except subprocess.TimeoutExpired:
            return None
        return time.perf_counter() - start


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--chapter", default="06_tokenization", help="chapter stem (has a widget)"
    )
    p.add_argument("--runs", type=int, default=30, help="runs per mode")
    p.add_argument("--parallel", type=int, default=3, help="runs at a time")
    p.add_argument(
        "--limit", type=float, default=100.0, help="seconds before a run is a stall"
    )
    a = p.parse_args()
    for name in ("runs", "parallel", "limit"):
        if getattr(a, name) <= 0:
            p.error(f"--{name}: expected a positive number, got {getattr(a, name)}")
    with tempfile.TemporaryDirectory() as out:
        student = assign.write_assignment(ROOT / "chapters" / f"{a.chapter}.md", out)
        jobs = [MODES[i % 2] for i in range(2 * a.runs)]
        with ThreadPoolExecutor(a.parallel) as pool:
            times = list(pool.map(lambda m: one_run(m, student, a.limit), jobs))
    print(
        f"{a.chapter}, {a.parallel} gradings at a time, stall = no result after {a.limit:.0f} s"
    )
    stalls = {}
    for mode in MODES:
        mine = [t for m, t in zip(jobs, times) if m == mode]
        done = [t for t in mine if t is not None]
        stalls[mode] = len(mine) - len(done)
        print(
            f"  {mode:6s} runs {len(mine):3d}  stalls {stalls[mode]:2d}  "
            f"slowest finished {max(done, default=float('nan')):5.1f} s"
        )
    print(f"stalls, sliced vs bare: {stalls['sliced']} vs {stalls['bare']}")


if __name__ == "__main__":
    main()
