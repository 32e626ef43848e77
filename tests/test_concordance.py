"""The concordance with Phuong & Hutter (appendix F): every function it names exists, every test
it names exists, every definition label it cites is defined in a chapter."""

from __future__ import annotations

import importlib
import re

import pytest
from _chapters import ROOT

APPENDIX = ROOT / "chapters" / "appendix_f_concordance.md"


def rows() -> list[list[str]]:
    out = []
    for line in APPENDIX.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 5 and cells[0] not in ("#", "---"):
            out.append(cells)
    return out


ROWS = rows()


def resolve(dotted: str):
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(dotted)


def test_table_covers_the_fifteen_algorithms():
    numbers = {re.match(r"\d+", r[0]).group() for r in ROWS}
    assert numbers == {str(k) for k in range(1, 16)}
    gaps = [r[0] for r in ROWS if "**gap**" in r[2]]
    assert gaps == ["8", "11", "15"]


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_named_function_and_test_exist(row):
    _, _, _, function, test = row
    if "**gap**" in row[2]:
        assert function == "—" and test == "—"
        return
    name = re.match(r"`([\w.]+)`", function).group(1)
    assert callable(resolve(name)), name
    path, test_name = re.match(r"`([\w/.]+)::(\w+)`", test).groups()
    source = (ROOT / path).read_text(encoding="utf-8")
    assert re.search(rf"^def {test_name}\(", source, re.M), f"{path} has no {test_name}"


def test_cited_labels_are_defined():
    text = APPENDIX.read_text(encoding="utf-8")
    cited = set(re.findall(r"\{prf:ref\}`(def-[\w-]+)`", text))
    defined = set()
    for chapter in (ROOT / "chapters").glob("*.md"):
        defined |= set(
            re.findall(r":label: (def-[\w-]+)", chapter.read_text(encoding="utf-8"))
        )
    assert cited and not cited - defined, sorted(cited - defined)
