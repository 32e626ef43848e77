"""One home per measured number: the benchmark figures are stated in the summary of
``benchmarks/README.md`` only; the README and chapter 18 point there instead of copying them,
so a new run cannot leave a stale count behind in another file.
"""

from __future__ import annotations

import re

import pytest
from _chapters import ROOT

HOME = ROOT / "benchmarks" / "README.md"
POINTERS = [ROOT / "README.md", ROOT / "chapters" / "18_train_tiny_gpt.md"]

#: What a measurement looks like in prose: a count of runs, a time or a throughput measured,
#: a ratio of run times.  Targets ("1.47 within 30 s") are goals, not measurements.
MEASURED = [
    re.compile(
        r"\b\d+ of \d+\b(?! (?:the )?(?:windows|characters|steps))"
    ),  # 7 of 11 runs
    re.compile(r"\b\d+(?:\.\d+)?-\d+(?:\.\d+)? s\b"),  # 25.3-36.7 s
    re.compile(r"\b\d+(?:\.\d+)? s after\b"),  # 54.9 s after
    re.compile(
        r"\b\d+(?:\.\d+)?(?:-\d+(?:\.\d+)?)? ?M tokens/s\b"
    ),  # 1.5-2.0 M tokens/s
    re.compile(r"\b0\.\d\d of the README run's time\b"),  # 0.55 of ... time
    re.compile(r"\btook \d+(?:\.\d+)? s\b"),  # took 54.9 s
]


def measured_figures(text: str) -> list[str]:
    """The phrases of ``text`` that state a measured benchmark figure."""
    text = re.sub(r"\s+", " ", text)
    return [m.group(0) for pattern in MEASURED for m in pattern.finditer(text)]


def test_the_pattern_finds_what_the_old_texts_copied():
    old = (
        "On an H100 80GB it first passed 1.47 25.3-36.7 s after the process started (11 runs, "
        "within 30 s in 7; 1.5-2.0 M tokens/s); the compiled preset took 54.9 s. The 30 s "
        "target is met in 10 of 16 runs, in 0.55 and 0.88 of the README run's time."
    )
    found = measured_figures(old)
    for phrase in (
        "25.3-36.7 s",
        "1.5-2.0 M tokens/s",
        "took 54.9 s",
        "10 of 16",
        "0.88 of the README run's time",
    ):
        assert phrase in found
    assert (
        measured_figures(
            "target: val <= 1.47 within 30 s of process start; 600 steps of "
            "16 windows of 128 characters"
        )
        == []
    )


def test_the_summary_holds_the_figures():
    home = HOME.read_text(encoding="utf-8")
    summary = home.split("## Summary", 1)[1].split("\n## ", 1)[0]
    assert measured_figures(summary)  # the counts and times are stated there


@pytest.mark.parametrize("path", POINTERS, ids=[p.name for p in POINTERS])
def test_readme_and_chapter_18_point_to_the_summary_instead_of_copying(path):
    text = path.read_text(encoding="utf-8")
    assert not measured_figures(text), f"{path.name} copies measured figures"
    assert "benchmarks/README.md" in text
