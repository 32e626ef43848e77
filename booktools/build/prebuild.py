"""Execute the chapters a few at a time before Sphinx reads them (the first step of ``make book``).

Jupyter Book 1 (``execute_notebooks: cache`` in ``_config.yml``) executes a chapter when Sphinx
reads its page, one page after the other, so a clean build keeps one core busy for the whole
sum of the chapters' run times.  This module runs every chapter whose code is not yet in the
book's execution cache (``_build/.jupyter_cache``) in ``jobs`` kernels at once, the way Myst-NB
would run it:

* the notebook is read by Myst-NB's own reader, so it hashes to the key Myst-NB looks up;
* it runs in the chapter's folder, with the ``execute.timeout`` of ``_config.yml``, errors not
  allowed, and the kernel-client settings of :mod:`booktools.sphinx.kernel_client`;
* a chapter that succeeds is stored in the cache; Sphinx then finds it ("Using cached
  notebook") and renders its outputs.  A chapter that fails is not stored: Sphinx executes it
  once more and reports the error exactly as without this step.

Every chapter still runs in a fresh kernel of its own and the chapters set their own seeds and
thread counts, so the outputs are the ones a one-at-a-time build prints.  The numbered chapters
are started last-first: the later ones train and analyze models and take longest (chapter 18
about 50 s), and starting them first keeps the workers evenly loaded.

``python -m booktools prebuild [--jobs N]`` (``make book`` passes ``JOBS``).
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing
import os
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import nbformat
import yaml

from booktools.paths import CACHE, ROOT

#: The fingerprint of :data:`INPUTS` that the cached chapters were run with.
STAMP = CACHE.parent / ".jupyter_cache.inputs"

__all__ = [
    "Outcome",
    "chapters",
    "read_chapter",
    "pending",
    "execute",
    "cell_seconds",
    "kernel_environment",
    "run",
    "execution_timeout",
    "INPUTS",
    "inputs_fingerprint",
    "drop_stale_cache",
    "main",
]

#: What a chapter's outputs depend on beyond its own code, which alone keys Myst-NB's cache:
#: the package it imports (a quiz's text, an erratum's record) and the vendored data.
INPUTS = ("formulated", "data")


@dataclass(frozen=True)
class Outcome:
    """One chapter executed by a worker: its notebook (JSON) or the error that stopped it."""

    path: str
    seconds: float
    notebook: str | None
    error: str | None
    #: Each code cell's seconds from its start to its reply (None: not run), in cell order.
    cell_seconds: tuple[float | None, ...] = ()

    def cache_data(self) -> dict[str, object]:
        """What the cache record keeps beside the notebook (its ``data``)."""
        return {
            "execution_seconds": self.seconds,
            "cell_seconds": list(self.cell_seconds),
        }


def chapters(root: Path = ROOT) -> list[Path]:
    """The book's notebook chapters, in the order they are started (see the module docstring)."""
    from myst_nb.core.read import is_myst_markdown_notebook

    found = [
        p
        for p in sorted((root / "chapters").glob("*.md"))
        if is_myst_markdown_notebook(p.read_text(encoding="utf-8"))
    ]
    numbered = [p for p in found if p.name[:2].isdigit()]
    return numbered[::-1] + [p for p in found if not p.name[:2].isdigit()]


def read_chapter(path: Path) -> nbformat.NotebookNode:
    """The chapter as Myst-NB reads it for the build (so that its cache key is Myst-NB's)."""
    from myst_nb.core.read import read_myst_markdown_notebook
    from myst_parser.config.main import MdParserConfig

    return read_myst_markdown_notebook(
        path.read_text(encoding="utf-8"),
        config=MdParserConfig(),
        add_source_map=True,
        path=path,
    )


def pending(paths: list[Path], cache: object) -> list[Path]:
    """The chapters whose current code has no executed notebook in ``cache``."""
    todo = []
    for path in paths:
        try:
            cache.match_cache_notebook(read_chapter(path))
        except KeyError:
            todo.append(path)
    return todo


@contextmanager
def kernel_environment(threads: int) -> Iterator[None]:
    """The environment a chapter's kernel inherits, for the duration of the block (restored
    after it: the tests execute chapters in their own process).

    * ``OMP_NUM_THREADS``: two kernels that each spread over every core would make their
      threads wait for each other (a timing cell of chapter 7 went from 0.005 to 7.8 ms).
    * no ``MPLBACKEND``: a kernel that inherits one (the tests set ``Agg``) draws no figure
      into the notebook, and the run, stored in the cache, showed the chapter without them
      (chapters 16 and 19 lost four figures that way)."""
    saved = {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "MPLBACKEND")}
    os.environ["OMP_NUM_THREADS"] = str(threads)
    os.environ.pop("MPLBACKEND", None)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def execute(path: str, timeout: int, threads: int) -> Outcome:
    """Run one chapter in a fresh kernel in its own folder (a worker process, or a test's); the
    kernel may use ``threads`` threads (the cores shared out among the workers)."""
    from jupyter_cache.executors.utils import single_nb_execution

    from booktools.sphinx import kernel_client

    kernel_client.install()
    nb = read_chapter(Path(path))
    # coalesce_streams: one print() can reach the client in two pieces on a busy machine, and
    # Myst-NB would join them with a line break; the kernel's own text is kept instead.
    # record_timing: each cell's start and reply (metadata.execution), which the tests read
    # (a widget cell that stalled but finished within the build's timeout shows there).
    with kernel_environment(threads):
        result = single_nb_execution(
            nb,
            cwd=str(Path(path).parent),
            timeout=timeout,
            allow_errors=False,
            meta_override=True,
            record_timing=True,
            coalesce_streams=True,
        )
    if result.err is not None:
        return Outcome(
            path, result.time, None, f"{type(result.err).__name__}: {result.err}"
        )
    took = cell_seconds(nb)
    return Outcome(path, result.time, nbformat.writes(nb), None, took)


def cell_seconds(nb: nbformat.NotebookNode) -> tuple[float | None, ...]:
    """Each code cell's time from its start to its reply, taken out of the cell's metadata
    (nbclient's ``record_timing``): Myst-NB's cache key hashes every metadata key, so a cell
    that kept it would never be found again."""
    took = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        timing = cell.metadata.pop("execution", {})
        start = timing.get("iopub.execute_input")
        end = timing.get("shell.execute_reply")
        took.append(
            round((_instant(end) - _instant(start)).total_seconds(), 3)
            if start and end
            else None
        )
    return tuple(took)


def _instant(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def execution_timeout(root: Path = ROOT) -> int:
    """``execute.timeout`` of ``_config.yml`` (seconds per cell), the build's own setting."""
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    return int(config["execute"]["timeout"])


def inputs_fingerprint(root: Path = ROOT) -> str:
    """A SHA-256 of every file under :data:`INPUTS` (its path and its bytes; compiled files
    and packaging metadata left out)."""
    digest = hashlib.sha256()
    for folder in INPUTS:
        for f in sorted((root / folder).rglob("*")):
            if f.is_file() and "__pycache__" not in f.parts and f.suffix != ".pyc":
                digest.update(f.relative_to(root).as_posix().encode() + b"\0")
                digest.update(f.read_bytes() + b"\0")
    return digest.hexdigest()


def drop_stale_cache(cache: object, stamp: Path, fingerprint: str) -> bool:
    """Empty ``cache`` when ``stamp`` (the fingerprint its notebooks were run with) differs from
    ``fingerprint``, then record ``fingerprint``; True when it was emptied.  Myst-NB keys a
    chapter on its code alone: after an edit to ``formulated/`` the cache would still serve
    the chapters' old outputs (a quiz's former wording, in the book and in the tests).  The
    Sphinx environments beside the stamp (``environment.pickle`` under ``_build``) go too:
    Sphinx reads a page again only when its source changed, and would keep the old outputs
    in its doctrees."""
    old = stamp.read_text(encoding="utf-8").strip() if stamp.is_file() else None
    stale = old != fingerprint
    if stale:
        cache.clear_cache()
        for environment in stamp.parent.rglob("environment.pickle"):
            environment.unlink()
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(fingerprint + "\n", encoding="utf-8")
    return stale


def run(paths: list[Path], cache: object, jobs: int, timeout: int) -> list[Outcome]:
    """Execute ``paths`` ``jobs`` at a time and store each success in ``cache``; the outcomes
    in the order they finished."""
    from jupyter_cache.base import CacheBundleIn

    if not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs: expected a positive number of workers, got {jobs!r}")
    threads = max(1, (os.cpu_count() or 1) // jobs)
    outcomes = []
    # spawn: each worker starts clean (no copy of this process's open cache database)
    with ProcessPoolExecutor(
        max_workers=jobs, mp_context=multiprocessing.get_context("spawn")
    ) as pool:
        futures = [pool.submit(execute, str(p), timeout, threads) for p in paths]
        for future in as_completed(futures):
            out = future.result()
            outcomes.append(out)
            name = Path(out.path).name
            if out.error is not None:
                print(
                    f"prebuild: {name} failed ({out.error.splitlines()[0][:200]}); "
                    f"the build will run it again and report the error",
                    flush=True,
                )
                continue
            cache.cache_notebook_bundle(
                CacheBundleIn(
                    nbformat.reads(out.notebook, as_version=4),
                    out.path,
                    data=out.cache_data(),
                ),
                check_validity=False,
                overwrite=True,
            )
            print(f"prebuild: {name} executed in {out.seconds:.1f} s", flush=True)
    return outcomes


def main(argv: list[str] | None = None) -> int:
    """Execute the chapters missing from the cache, ``--jobs`` at a time; always returns 0 (a
    failing chapter is left to Sphinx, which reports it)."""
    from jupyter_cache import get_cache

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--jobs",
        type=int,
        default=min(4, os.cpu_count() or 1),
        help="chapters executed at once (default: cores, at most 4)",
    )
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs: expected a positive number of workers, got {args.jobs}")
    cache = get_cache(str(CACHE))
    if drop_stale_cache(cache, STAMP, inputs_fingerprint()):
        print(
            "prebuild: formulated/ or data/ changed since the cached runs: every chapter "
            "runs again",
            flush=True,
        )
    every = chapters()
    todo = pending(every, cache)
    if not todo:
        print(
            f"prebuild: the {len(every)} chapters' outputs are in the cache", flush=True
        )
        return 0
    start = time.perf_counter()
    outcomes = run(todo, cache, args.jobs, execution_timeout())
    done = sum(o.error is None for o in outcomes)
    print(
        f"prebuild: {done} of {len(todo)} chapters executed in "
        f"{time.perf_counter() - start:.0f} s, {args.jobs} at a time",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
