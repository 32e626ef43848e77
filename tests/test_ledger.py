"""The audit ledger (appendix B): every claim line of every source has a verdict, and every
verdict names something that exists.

The sources themselves are not part of the project (the book never reads them); the coverage
test reads them from ``$FORMULATED_SOURCES`` or from ``../shared/sources`` beside the clone, where
CI and the developers' machines have them, and skips, saying so, where neither exists.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from _chapters import ROOT

from formulated.errata import ERRATA
from formulated.errata.ledger import (
    VERDICTS,
    LedgerEntry,
    claim_lines,
    ledger,
    ledger_digest,
    ledger_table,
    source_digest,
    uncovered,
    verdict_counts,
)
from formulated.sources import SOURCES

#: Claim lines that no entry needs to cover, with the reason (kept short: the target is >= 98 %).
NOT_CLAIMS: dict[tuple[str, int], str] = {}
#: The least share of claim lines every ledger must cover.
TARGET = 0.98


def _source_dir() -> Path | None:
    env = os.environ.get("FORMULATED_SOURCES")
    for d in ([Path(env)] if env else []) + [ROOT.parent / "shared" / "sources"]:
        if d.is_dir():
            return d
    return None


def _source_path(source: str) -> Path:
    d = _source_dir()
    if d is None:
        pytest.skip(
            "the sources are not here ($FORMULATED_SOURCES or ../shared/sources): "
            "the ledger's coverage is checked where they are (CI)"
        )
    found = sorted(d.glob(f"{source}_*.txt"))
    assert len(found) == 1, f"expected one file {source}_*.txt in {d}, got {found}"
    return found[0]


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_ledger_refers_to_this_version_of_the_source(source):
    assert source_digest(_source_path(source)) == ledger_digest(source), (
        f"source {source} changed since its ledger was written: its line numbers may be off"
    )


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_every_claim_line_is_covered(source):
    path = _source_path(source)
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    claims = claim_lines(text)
    todo = [n for n in uncovered(source, text) if (source, n) not in NOT_CLAIMS]
    share = 1 - len(todo) / len(claims)
    shown = "\n".join(f"{n}: {lines[n - 1][:80]}" for n in todo[:20])
    assert share >= TARGET, (
        f"ledger {source}: {len(todo)} of {len(claims)} claim lines "
        f"uncovered ({share:.1%} < {TARGET:.0%}):\n{shown}"
    )
    assert all(e.last <= len(lines) for e in ledger(source)), (
        "an entry ends past the last line"
    )


def test_claim_lines_finds_math_digits_and_terms_and_skips_the_rest():
    text = "\n".join(
        [
            "",
            "&nbsp;",
            "---",
            "We walked home.",
            "$$",
            "x = 1",
            "the softmax of the scores",
            "토큰의 임베딩",
            "</div>",
            "In 2019 they",
        ]
    )
    assert claim_lines(text) == [6, 7, 8, 10]


def test_uncovered_fails_on_a_missing_entry(monkeypatch):
    import formulated.errata.ledger as mod

    entries = [LedgerEntry("000", 2, 3, "holds", "label:x", "c")]
    monkeypatch.setattr(mod, "ledger", lambda source: entries)
    assert mod.uncovered("000", "x = 1\ny = 2\nz = 3\nw = 4") == [1, 4]


def _labels() -> set[str]:
    labels: set[str] = set()
    for md in (ROOT / "chapters").glob("*.md"):
        text = md.read_text(encoding="utf-8")
        labels |= set(re.findall(r"^\(([\w-]+)\)=\s*$", text, re.M))
        labels |= set(re.findall(r"^:label:\s*([\w-]+)\s*$", text, re.M))
        labels |= set(re.findall(r"^:name:\s*([\w-]+)\s*$", text, re.M))
    return labels


_KINDS = {e.key: e for e in ERRATA}


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_every_ref_resolves(source):
    labels = _labels()
    bad = []
    for e in ledger(source):
        where = f"{source}:{e.span} ({e.claim[:40]})"
        if e.verdict in ("erratum", "omission"):
            rec = _KINDS.get(e.ref)
            if rec is None:
                bad.append(f"{where}: no erratum {e.ref!r}")
            elif (rec.kind == "omission") != (e.verdict == "omission"):
                bad.append(
                    f"{where}: {e.ref!r} is of kind {rec.kind!r}, not {e.verdict!r}"
                )
            elif source not in rec.sources:
                bad.append(f"{where}: erratum {e.ref!r} does not name source {source}")
        elif e.ref.startswith("label:"):
            if e.ref.removeprefix("label:") not in labels:
                bad.append(f"{where}: no label {e.ref!r} in chapters/")
        elif e.ref.startswith("test:"):
            file, _, name = e.ref.removeprefix("test:").partition("::")
            path = ROOT / file
            if not path.is_file() or not re.search(
                rf"^def {re.escape(name)}\(", path.read_text(encoding="utf-8"), re.M
            ):
                bad.append(f"{where}: no test {e.ref!r}")
        elif e.verdict == "holds" or e.ref not in ("", "-"):
            bad.append(f"{where}: ref {e.ref!r} is neither label: nor test:")
    assert not bad, "\n".join(bad[:30])


def test_every_registered_erratum_of_a_source_is_in_its_ledger():
    # The ledger and the registry agree: a record that names a source is an entry of its ledger.
    missing = [
        (e.key, s)
        for e in ERRATA
        for s in e.sources
        if e.key
        not in {x.ref for x in ledger(s) if x.verdict in ("erratum", "omission")}
    ]
    assert not missing, f"errata not in their sources' ledgers: {missing}"


def test_ledger_rejects_bad_rows(tmp_path, monkeypatch):
    import formulated.errata.ledger as mod

    monkeypatch.setattr(mod, "LEDGER_DIR", tmp_path)
    for row, message in [
        ("1-2\tholds\t-\tclaim", "ref: a 'holds' entry"),
        ("3-1\tholds\tlabel:x\tclaim", "lines: expected 1 <= first"),
        ("1\tcorrect\tlabel:x\tclaim", "verdict: expected one of"),
        ("1\tambiguity\t-\tclaim", "note: an 'ambiguity' entry"),
        ("x\tholds\tlabel:x\tclaim", "lines: expected 'N' or 'N-M'"),
        ("1\tholds", "expected 4 or 5"),
    ]:
        (tmp_path / "000.tsv").write_text(
            f"# sha256 {'0' * 64}\n{row}\n", encoding="utf-8"
        )
        with pytest.raises(ValueError, match=re.escape(message)):
            mod.ledger("000")


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_counts_and_table(source):
    counts = verdict_counts(source)
    assert set(counts) == set(VERDICTS) and sum(counts.values()) == len(ledger(source))
    assert ledger_table(source).count("\n") == len(ledger(source)) + 1


@pytest.mark.parametrize("book", ["", "ko/"])
def test_built_appendix_folds_every_ledger_table(book):
    # What a reader gets: five tables, each in a folded cell output, and no Markdown left raw
    # (a directive inside a cell's Markdown output is not parsed: it would show as text).
    page = ROOT / "_build" / "html" / book / "chapters" / "appendix_b_errata.html"
    if not page.exists():
        pytest.skip("the book is not built (make book)")
    html = page.read_text(encoding="utf-8")
    assert "{dropdown}" not in html and "````" not in html
    section = html[html.index('id="the-ledger"') :]
    folded = re.findall(
        r'<div class="cell tag_remove-input tag_hide-output[^"]*"', section
    )
    assert len(folded) == len(SOURCES), f"{len(folded)} folded ledger tables"
    assert section.count("<table") >= len(SOURCES)
