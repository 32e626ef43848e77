"""Chapter 19 states its head findings from the measured shares, never typed: the cell that
prints them is run here on made-up shares, and the widget calls take the measured heads."""

from __future__ import annotations

import contextlib
import io
import re
import textwrap

import numpy as np
from _chapters import ROOT

CHAPTER = (ROOT / "chapters" / "19_inside_the_model.md").read_text(encoding="utf-8")


def _cell(marker: str) -> str:
    cells = re.findall(r"```\{code-cell\} python3\n(.*?)```", CHAPTER, re.S)
    (cell,) = [c for c in cells if marker in c]
    return cell


def _run_findings(best_of: dict[str, tuple[int, int]]) -> tuple[str, dict]:
    shares = {}
    for name, (l, a) in best_of.items():
        grid = np.full((4, 4), 0.05)
        grid[l, a] = 0.8
        shares[name] = {"share": grid, "chance": 0.02}
    scope = {"np": np, "textwrap": textwrap, "shares": shares}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(_cell("ORDINAL = "), scope)  # noqa: S102  (the chapter's own cell)
    return out.getvalue(), scope["best"]


def test_findings_follow_the_shares():
    text, best = _run_findings(
        {
            "previous character": (2, 1),
            "last newline": (0, 3),
            "start of the word": (3, 0),
        }
    )
    assert best == {
        "previous character": (3, 2),
        "last newline": (1, 4),
        "start of the word": (4, 1),
    }
    assert "head 2 of the third layer" in text and "head 4 of the first layer" in text
    other, _ = _run_findings(
        {
            "previous character": (0, 0),
            "last newline": (1, 1),
            "start of the word": (2, 2),
        }
    )
    assert (
        "head 1 of the first layer" in other and "head 2 of the second layer" in other
    )


def test_no_typed_heads_or_ratios():
    # The widgets get the measured heads; the prose names no layer of a finding.
    calls = re.findall(r"(?:attention_map|kv_cache)_widget\((.*?)\)\n", CHAPTER, re.S)
    assert len(calls) == 2 and all("layer=layer, head=head" in c for c in calls)
    prose = re.sub(r"```.*?```", "", CHAPTER, flags=re.S)
    assert not re.search(r"(first|second|third|fourth) layer", prose)
    assert "half a million" not in prose
