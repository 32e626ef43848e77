"""Shared test settings: a headless matplotlib, a fixed hypothesis profile, one torch thread."""

import os

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")

# Kernel replies are awaited in 1 s slices: a missed wake-up no longer stalls a cell for its
# whole timeout; kernels stop without the 1.3 s teardown (booktools/sphinx/kernel_client.py).
from booktools.sphinx import kernel_client  # noqa: E402

kernel_client.install()

from hypothesis import HealthCheck, settings  # noqa: E402

# Deterministic property tests: the same examples on every run (derandomize) and no deadline,
# since CI runs on 2 shared cores.
settings.register_profile(
    "book",
    derandomize=True,
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("book")


@pytest.fixture(autouse=True, scope="session")
def one_torch_thread():
    """One PyTorch thread for every test: tiny models run faster (no thread hand-offs) and the
    same on every machine, and two pytest workers on two cores do not wait for each other's
    threads.  Training runs set their own count (``threads``) and restore this one."""
    import torch

    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)
