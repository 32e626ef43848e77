"""Every erratum has its proof: the check recomputes it, and the chapter holds the label."""
from __future__ import annotations

import pytest

from formulated.errata import ERRATA, SOURCES, errata_table
from _chapters import ROOT, toc_files


def test_errata_keys_are_unique_and_table_renders():
    table = errata_table()
    for e in ERRATA:
        assert f"<{e.label}>`" in table


@pytest.mark.parametrize("erratum", ERRATA, ids=[e.key for e in ERRATA])
def test_erratum_has_its_proof(erratum):
    assert erratum.kind in {"error", "omission"}
    assert erratum.sources and set(erratum.sources) <= set(SOURCES), erratum.sources
    assert erratum.chapter in toc_files(), f"{erratum.chapter} is not in _toc.yml"
    text = (ROOT / f"{erratum.chapter}.md").read_text(encoding="utf-8")
    assert f"({erratum.label})=" in text, f"{erratum.chapter}.md lacks the label ({erratum.label})="
    assert erratum.check() is True, f"the check of {erratum.key} no longer shows the error"


def test_errata_table_rejects_duplicate_keys(monkeypatch):
    import formulated.errata as mod

    if not ERRATA:
        pytest.skip("no errata registered yet")
    monkeypatch.setattr(mod, "ERRATA", ERRATA + [ERRATA[0]])
    with pytest.raises(ValueError, match="unique keys"):
        mod.errata_table()
