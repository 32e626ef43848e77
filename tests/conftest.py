"""Shared test settings: a headless matplotlib and a fixed hypothesis profile."""
import os

os.environ.setdefault("MPLBACKEND", "Agg")

from hypothesis import HealthCheck, settings  # noqa: E402

# Deterministic property tests: the same examples on every run (derandomize) and no deadline,
# since CI runs on 2 shared cores.
settings.register_profile("book", derandomize=True, deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("book")
