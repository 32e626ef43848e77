"""Helpers that several test modules share, defined once (``ROOT`` lives in ``_chapters.py``).

``t()`` used to be written four times with two meanings; it is now two functions whose names say
which: ``as_torch`` keeps the array's dtype, ``as_torch64`` makes it float64.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import MappingProxyType

import numpy as np
import torch


def rng(seed: int = 0) -> np.random.Generator:
    """A fresh NumPy generator, seeded: each test draws the same numbers on every run."""
    return np.random.default_rng(seed)


def as_torch(x) -> torch.Tensor:
    """``x`` as a torch tensor with its own dtype kept (a copy; a 0-d array stays 0-d)."""
    return torch.from_numpy(np.array(x))


def as_torch64(x) -> torch.Tensor:
    """``x`` as a float64 torch tensor (a copy): references computed in double precision."""
    return torch.from_numpy(np.array(x, dtype=np.float64))


#: The smallest training run the tests use (1 layer, 2 heads, H = 16, 16 tokens, 4 sequences,
#: one CPU thread, no evaluation or checkpoints unless a test asks): ``dict(TINY, ...)``.
#: Read-only, since every training test module shares it.
TINY = MappingProxyType(
    dict(
        L=1,
        A=2,
        H=16,
        n_ctx=16,
        B=4,
        warmup_steps=2,
        eval_interval=0,
        ckpt_interval=0,
        log_interval=2,
        eval_batch=512,
        device="cpu",
        threads=1,
    )
)


def tiny_run(data, **overrides) -> dict:
    """:data:`TINY` smaller still, for the bad-input tests: width 8, 8 tokens, a warm-up of one
    step, eager (no ``torch.compile``), on the corpus file ``data``; ``overrides`` last, e.g.
    ``train(None, out, progress=False, **tiny_run(path, max_steps=2))``."""
    small = dict(H=8, n_ctx=8, warmup_steps=1, eval_batch=64, log_interval=1)
    return {**TINY, **small, "compile": "off", "data": str(data), **overrides}


#: Set by conftest.py in each pytest-xdist worker: the folder of the test run, which every
#: worker's own temporary folder is inside.
RUN_FOLDER_VARIABLE = "FORMULATED_TEST_RUN"


def run_folder() -> Path | None:
    """The folder that every pytest-xdist worker of this test run shares (what one builds
    there, the others reuse), or ``None`` outside pytest-xdist (one process runs every test:
    a session fixture is already built once)."""
    folder = os.environ.get(RUN_FOLDER_VARIABLE)
    return Path(folder) if folder else None


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on the file ``path`` (created): one process at a time."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def once(folder: Path, build: Callable[[Path], object]) -> Path:
    """``folder`` as ``build(folder)`` makes it, built once: a process that finds it built
    (by an earlier test or another worker) reuses it, one that comes while another builds it
    waits.  A build that raises leaves nothing behind, and the next caller tries again."""
    done = folder / ".built"
    with locked(folder.with_name(folder.name + ".lock")):
        if not done.is_file():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            try:
                build(folder)
            except BaseException:
                shutil.rmtree(folder, ignore_errors=True)
                raise
            done.touch()
    return folder
