"""The audit ledger (appendix B): every claim line of every source has a verdict, and every
verdict names something that exists.

The sources themselves are not part of the project (the book never reads them); the coverage
test reads them from ``$FORMULATED_SOURCES`` or from ``../shared/sources`` beside the clone. It
skips, saying so, only on a machine that has neither and is not CI; in CI (``$CI`` set) a missing
source fails, and a ``$FORMULATED_SOURCES`` that names no folder fails everywhere.

The verdicts follow CONTRIBUTING.md ("Judging a claim"): a note under ``holds`` or ``ambiguity``
concedes nothing, an ``ambiguity`` names both readings, and the rows that need a second reader
record one.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
from _chapters import ROOT

from formulated.errata import ERRATA
from formulated.errata.ledger import (
    LEDGER_DIR,
    VERDICTS,
    LedgerEntry,
    claim_lines,
    concessions,
    ledger,
    ledger_digest,
    ledger_table,
    needs_second_reader,
    source_digest,
    uncovered,
    verdict_counts,
)
from formulated.errata.table import ledger_section
from formulated.sources import SOURCES

#: Claim lines that no entry needs to cover, with the reason (kept short: the target is >= 98 %).
NOT_CLAIMS: dict[tuple[str, int], str] = {}
#: The least share of claim lines every ledger must cover.
TARGET = 0.98


def _source_dir() -> Path | None:
    env = os.environ.get("FORMULATED_SOURCES")
    if env:
        if not Path(env).is_dir():
            pytest.fail(
                f"FORMULATED_SOURCES={env!r} names no folder: the sources are not there"
            )
        return Path(env)
    d = ROOT.parent / "shared" / "sources"
    return d if d.is_dir() else None


def _source_path(source: str) -> Path:
    d = _source_dir()
    if d is None:
        if os.environ.get("CI"):
            pytest.fail(
                "CI: the sources are missing ($FORMULATED_SOURCES is unset and "
                "../shared/sources does not exist); the ledger's coverage must be checked here"
            )
        pytest.skip(
            "the sources are not here ($FORMULATED_SOURCES or ../shared/sources): "
            "the ledger's coverage is checked where they are (CI)"
        )
    found = sorted(d.glob(f"{source}_*.txt"))
    assert len(found) == 1, f"expected one file {source}_*.txt in {d}, got {found}"
    return found[0]


def test_a_missing_source_skips_only_outside_ci(monkeypatch, tmp_path):
    import _pytest.outcomes

    monkeypatch.delenv("FORMULATED_SOURCES", raising=False)
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path / "clone")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(_pytest.outcomes.Skipped):
        _source_path("000")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(_pytest.outcomes.Failed, match="CI: the sources are missing"):
        _source_path("000")
    monkeypatch.setenv("FORMULATED_SOURCES", str(tmp_path / "nowhere"))
    monkeypatch.delenv("CI")
    with pytest.raises(_pytest.outcomes.Failed, match="names no folder"):
        _source_path("000")


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_ledger_refers_to_this_version_of_the_source(source):
    assert source_digest(_source_path(source)) == ledger_digest(source), (
        f"source {source} changed since its ledger was written: its line numbers may be off"
    )


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_claim_lines_are_covered_to_the_target(source):
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
        if e.pending:
            if e.key in _KINDS:
                bad.append(
                    f"{where}: {e.key!r} is registered: drop 'pending:' from its ref"
                )
        elif e.verdict in ("erratum", "omission"):
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
    readings = "Reading 1: a. Reading 2: b. Neither is wrong: c"
    for row, message in [
        ("1-2\tholds\t-\tclaim\t\t1", "ref: a 'holds' entry"),
        ("3-1\tholds\tlabel:x\tclaim\t\t1", "lines: expected 1 <= first"),
        ("1\tcorrect\tlabel:x\tclaim\t\t1", "verdict: expected one of"),
        ("1\tambiguity\t-\tclaim\t\t1", "note: an 'ambiguity' entry says why"),
        ("1\tambiguity\t-\tclaim\tmeant as rows\t1", "names both readings"),
        (
            "1\tambiguity\t-\tclaim\tReading 1: a. Reading 2: b.\t1",
            "names both readings",
        ),
        ("x\tholds\tlabel:x\tclaim\t\t1", "lines: expected 'N' or 'N-M'"),
        ("1\tholds", "expected 6 tab-separated cells"),
        ("1\tholds\tlabel:x\tclaim\t", "expected 6 tab-separated cells"),
        ("1\tholds\tlabel:x\tclaim\t\t3", "readers: expected one of (1, 2)"),
        ("1\terratum\tpending:\tclaim\t\t2", "ref: a 'erratum' entry"),
        ("1\tholds\tpending:x\tclaim\t\t2", "only an erratum or omission"),
    ]:
        (tmp_path / "000.tsv").write_text(
            f"# sha256 {'0' * 64}\n{row}\n", encoding="utf-8"
        )
        with pytest.raises(ValueError, match=re.escape(message)):
            mod.ledger("000")
    (tmp_path / "000.tsv").write_text(
        f"# sha256 {'0' * 64}\n1\tambiguity\t-\tclaim\t{readings}\t2\n"
        "2\terratum\tpending:new-key\tclaim\t\t2\n",
        encoding="utf-8",
    )
    a, e = mod.ledger("000")
    assert (a.readers, a.note, e.pending, e.key) == (2, readings, True, "new-key")


def _raw_counts(source: str) -> dict[str, int]:
    """Verdicts counted from the TSV text itself (the second tab-separated field of each
    non-comment line), not through the parser."""
    counts = dict.fromkeys(VERDICTS, 0)
    for path in [LEDGER_DIR / f"{source}.tsv", *LEDGER_DIR.glob(f"{source}.part*.tsv")]:
        for row in path.read_text(encoding="utf-8").splitlines():
            if row.strip() and not row.startswith("#"):
                verdict = row.split("\t")[1]
                counts[verdict] = counts.get(verdict, 0) + 1
    return counts


def _count_mismatches(source: str) -> list[str]:
    """Where the counts the appendix shows (the line above each ledger, and the table's rows)
    differ from the raw TSV's."""
    raw = _raw_counts(source)
    bad = []
    if verdict_counts(source) != raw:
        bad.append(f"verdict_counts {verdict_counts(source)} != raw {raw}")
    shown = dict(re.findall(r"\*([a-z-]+)\* (\d+)", ledger_section(source)))
    if {v: int(n) for v, n in shown.items()} != raw:
        bad.append(f"the appendix's line {ledger_section(source)!r} != raw {raw}")
    rows = ledger_table(source).splitlines()[2:]
    in_table = dict.fromkeys(VERDICTS, 0)
    for r in rows:
        verdict = re.split(r"(?<!\\)\|", r)[3].strip()
        in_table[verdict] = in_table.get(verdict, 0) + 1
    if in_table != raw:
        bad.append(f"the appendix's table has {in_table} != raw {raw}")
    return bad


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_appendix_counts_agree_with_the_raw_ledger(source):
    assert not _count_mismatches(source)


def test_count_check_fails_on_a_dropped_row(monkeypatch):
    import formulated.errata.ledger as mod

    entries = mod.ledger("000")
    monkeypatch.setattr(mod, "ledger", lambda source: entries[:-1])
    assert _count_mismatches("000")


_PLANTED = [
    LedgerEntry("000", 1, 1, "holds", "label:x", "c", "the letter lacks its tilde"),
    LedgerEntry(
        "000", 2, 2, "holds", "label:x", "c", "a notational slip, meaning clear"
    ),
    LedgerEntry(
        "000",
        3,
        3,
        "ambiguity",
        "-",
        "c",
        "Reading 1: a. Reading 2: b, which is wrong. Neither is wrong: c",
    ),
]


def test_notes_under_holds_and_ambiguity_concede_nothing():
    bad = [
        f"{s}:{e.span} {e.verdict} {concessions(e)}: {e.note[:70]}"
        for s in sorted(SOURCES)
        for e in ledger(s)
        if concessions(e)
    ]
    assert not bad, (
        "notes that concede an error under holds/ambiguity (give the erratum, or say after "
        "'Still right:' why the verdict stands):\n" + "\n".join(bad)
    )


def test_concession_check_fails_on_planted_rows():
    assert [bool(concessions(e)) for e in _PLANTED] == [True, True, True]
    defended = LedgerEntry(
        "000", 1, 1, "holds", "label:x", "c", "Still right: the markup, not the formula"
    )
    assert concessions(defended) == []
    erratum = LedgerEntry("000", 1, 1, "erratum", "k", "c", "a slip")
    assert concessions(erratum) == []


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_rows_that_need_a_second_reader_have_one(source):
    alone = [
        f"{e.span} {e.verdict}"
        for e in ledger(source)
        if needs_second_reader(e) and e.readers < 2
    ]
    assert not alone, f"ledger {source}: rows judged by their writer alone: {alone}"


def test_second_reader_check_fails_on_a_first_reading():
    row = LedgerEntry("000", 1, 1, "holds", "label:x", "c", "", readers=1)
    assert needs_second_reader(row)
    assert not needs_second_reader(
        LedgerEntry("000", 1, 1, "holds", "test:tests/t.py::t", "c", "", readers=1)
    )


#: A digit or a formula symbol in a row's claim: the claim carries a number or a formula.
_NUMBER_OR_FORMULA = re.compile(r"\d|[=×^∑∏√≤≥<>∈⊆∪*]|\bsqrt\b|\bsum_|(?<=\w) x (?=\w)")
_NAME = "the digits are part of a name, not a number the claim asserts"
_NOTATION = "a definition of notation: letters and index ranges, nothing to compute"
_CITED = "a fact about a paper or its code, checked against the source the note names"
#: ``holds`` rows whose claim has a digit or formula symbol and still rest on a label, each
#: with the reason no computing test is owed: the digit names something, the formula only
#: introduces notation, or the number is a fact of a paper that no computation reproduces.
LABEL_ONLY: dict[tuple[str, str], str] = {
    ("001", "201"): f"{_NAME} (X_0, X_1..X_L name the embedding and layer outputs)",
    ("001", "242"): f"{_NAME} (000's is source 000)",
    ("001", "255"): "the angle brackets spell the tokens <s>, </s>, <mask>",
    ("001", "263"): f"{_CITED} (fairseq's MaskTokensDataset draws over 1..n)",
    ("001", "289"): f"{_NOTATION} (which variable each objective predicts)",
    ("001", "291"): f"{_NOTATION} (M and z_1..z_n named)",
    ("001", "328-330"): f"{_NOTATION} (where the layer index is written)",
    ("002", "5-21"): f"{_NOTATION} (the dimension letters and D = d_model)",
    ("002", "31-41"): f"{_NOTATION} (the vocabulary's elements named w_1..w_V)",
    ("002", "469-475"): f"{_NOTATION} (blocks numbered 1..L)",
    ("002", "898-900"): f"{_NOTATION} (V = |vocabulary| defines the letter)",
    ("002", "982-986"): f"{_NAME} (Step 6 of the source's walk-through)",
    ("002", "1195"): f"{_NAME} (GPT-2, the model)",
    ("002", "1260-1270"): f"{_NAME} (row 5 of the source's code table)",
    ("002", "1415"): f"{_NOTATION} (Z^(l)_i named)",
    ("002", "1447"): f"{_NAME} (GPT-2, the model)",
    ("003", "48-50"): f"{_CITED} (the years of the three papers)",
    ("003", "55"): f"{_NAME} (GPT-1, the model)",
    ("003", "65"): f"{_CITED} (Brown et al. 2020, section 2.1: a context of 2,048)",
    ("004", "178-180"): f"{_NAME} (the course MIT 6.S191 credited)",
    ("004", "304-315"): "the slide's numbers are illustrative values, not a claim",
    ("004", "389-391"): "+50 is a bounty on the web page the slide shows, not a claim",
    ("004", "480-482"): f"{_NAME} (inputs 2 and 3 of the slide's picture)",
}


def _span_key(e: LedgerEntry) -> tuple[str, str]:
    """``("002", "23-27")``: a row's source and lines, as the ledger file writes them."""
    return e.source, f"{e.first}-{e.last}" if e.last > e.first else str(e.first)


def _carries_number_or_formula(e: LedgerEntry) -> bool:
    return bool(_NUMBER_OR_FORMULA.search(e.claim))


def _label_only_numbers(entries: list[LedgerEntry]) -> list[str]:
    """The ``holds`` rows whose claim carries a number or formula but cite only a label,
    and are not in :data:`LABEL_ONLY`."""
    return [
        f"{e.source}:{e.span} {e.ref}: {e.claim[:70]}"
        for e in entries
        if e.verdict == "holds"
        and e.ref.startswith("label:")
        and _carries_number_or_formula(e)
        and _span_key(e) not in LABEL_ONLY
    ]


def test_holds_rows_with_a_number_or_formula_cite_a_computing_test():
    entries = [e for s in sorted(SOURCES) for e in ledger(s)]
    bad = _label_only_numbers(entries)
    assert not bad, (
        "holds rows whose claim carries a number or formula but cite only a label (point "
        "the ref at a test that computes the claim, or exempt it in LABEL_ONLY with why):\n"
        + "\n".join(bad)
    )
    # Every exemption is still needed: a row of that span holds on a label with a digit.
    needing = {
        _span_key(e)
        for e in entries
        if e.verdict == "holds"
        and e.ref.startswith("label:")
        and _carries_number_or_formula(e)
    }
    stale = sorted(set(LABEL_ONLY) - needing)
    assert not stale, f"LABEL_ONLY names rows that no longer need it: {stale}"


def test_number_check_fails_on_a_planted_label_only_row():
    planted = [
        LedgerEntry("002", 1, 3, "holds", "label:x", "three bits give 2^3 = 8 values"),
        LedgerEntry("002", 4, 4, "holds", "label:x", "applied B x T times"),
        LedgerEntry("002", 5, 5, "holds", "label:x", "sum_k a_ik b_kj"),
    ]
    assert len(_label_only_numbers(planted)) == 3
    fine = [
        LedgerEntry("002", 1, 3, "holds", "test:tests/t.py::t", "2^3 = 8"),
        LedgerEntry("002", 4, 4, "holds", "label:x", "the FFN is a perceptron"),
        LedgerEntry("002", 5, 5, "erratum", "k", "2^3 = 9"),
        LedgerEntry("003", 55, 55, "holds", "label:x", "Training data of GPT-1"),
    ]
    assert _label_only_numbers(fine) == []


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
