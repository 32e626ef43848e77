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


@pytest.fixture(scope="module")
def one_torch_thread():
    """One PyTorch thread for a test module: tiny models run faster (no thread hand-offs) and
    the same on every machine; the previous setting is restored afterwards."""
    import torch

    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


# `make check` leaves these out (-m "not browser and not pdf"): they drive Chromium or XeLaTeX.
_BROWSER_MODULES = {
    "test_browser",
    "test_a11y",
    "test_lab_browser",
    "test_dist",
    "test_quiz_browser",
}
_PDF_MODULES = {"test_pdf"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1] if item.module else ""
        if module in _BROWSER_MODULES:
            item.add_marker(pytest.mark.browser)
        if module in _PDF_MODULES:
            item.add_marker(pytest.mark.pdf)
