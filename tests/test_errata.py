"""Every erratum has its proof: the check tells the source's value from the true one, and the
chapter holds the label."""
from __future__ import annotations

import pytest

from formulated.errata import (ERRATA, ERRATUM_HOLDS, NO_ERRATUM, SOURCES, Erratum, errata_table,
                               source_counts)
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


@pytest.mark.parametrize("erratum", ERRATA, ids=[e.key for e in ERRATA])
def test_check_tells_the_source_from_the_truth(erratum):
    # The same check, given the source's value and then the corrected one, must answer
    # differently: a check that cannot fail (a tautology) answers the same both times.
    assert erratum.stated is not erratum.true
    assert erratum.verdict(erratum.stated) == ERRATUM_HOLDS, \
        f"{erratum.key}: the source's value is no longer found wrong"
    assert erratum.verdict(erratum.true) == NO_ERRATUM, \
        f"{erratum.key}: the corrected value is found wrong too"
    assert erratum.holds()


def _record(**kw) -> Erratum:
    base = dict(key="x", sources=("000",), section="s", says="a", correct="b",
                chapter="chapters/13_gpt", stated=1, true=2, check=lambda v: v == 1)
    return Erratum(**{**base, **kw})


def test_verdict_reads_the_check_and_rejects_a_non_bool():
    e = _record()
    assert (e.verdict(1), e.verdict(2)) == (ERRATUM_HOLDS, NO_ERRATUM) and e.holds()
    assert not _record(check=lambda v: True).holds()       # a tautology does not hold
    with pytest.raises(TypeError, match="expected a bool"):
        _record(check=lambda v: 1).verdict(1)


def test_record_rejects_unknown_sources_and_kinds():
    with pytest.raises(ValueError, match="sources: expected ids"):
        _record(sources=("005",))
    with pytest.raises(ValueError, match="sources: expected ids"):
        _record(sources=())
    with pytest.raises(ValueError, match="kind: expected one of"):
        _record(kind="typo")


def test_source_counts_add_up_to_more_than_the_cases():
    # 000 and 001 share their boxes: an erratum in both counts once for each (appendix B says so).
    counts = source_counts()
    shared = sum(len(e.sources) - 1 for e in ERRATA)
    assert shared > 0 and sum(counts.values()) == len(ERRATA) + shared
    assert set(counts) == set(SOURCES)


def test_errata_table_rejects_duplicate_keys(monkeypatch):
    import formulated.errata as mod

    if not ERRATA:
        pytest.skip("no errata registered yet")
    monkeypatch.setattr(mod, "ERRATA", ERRATA + [ERRATA[0]])
    with pytest.raises(ValueError, match="unique keys"):
        mod.errata_table()


# A third value, wrong in another way than the source's, must also be found wrong: the checks
# compute the truth, they do not merely recognise the source's value.
THIRD_VALUES = {
    "bert-mlm-head": lambda H, V: H * H + 2 * H + V,
    "004-infinite-reference-window": lambda n_ctx: n_ctx + 1,
    "s-items": lambda letters: letters["H"],
    "softmax-box-width": lambda X, H: X.shape[1] - 1,
    "000-second-y-matrix": lambda i, n: set(range(1, i)),
    "004-bits-eliminate": 6,
    "step6-input-step4": 4,
    "004-convex-always-converges": lambda alpha, A: alpha < 3 / max(abs(A).sum(axis=1)),
    "lambda-omits-biases": 116_497_920 + 12 * 768,
    "002-vocab-index-range": lambda V: range(1, V + 1),
}


@pytest.mark.parametrize("key", sorted(THIRD_VALUES))
def test_a_third_wrong_value_is_found_wrong(key):
    from formulated.errata import erratum

    assert erratum(key).verdict(THIRD_VALUES[key]) == ERRATUM_HOLDS


def test_erratum_lookup_names_the_key():
    from formulated.errata import erratum

    assert erratum("s-items").key == "s-items"
    with pytest.raises(ValueError, match="key: expected the key of an erratum, got 'nope'"):
        erratum("nope")


def test_every_erratum_label_in_the_chapters_is_registered():
    # A chapter that keeps an erratum box after its record was removed (or softened into a
    # note) would claim an error the appendix no longer lists.
    import re

    labels = {e.label for e in ERRATA}
    for path in sorted((ROOT / "chapters").glob("*.md")):
        found = re.findall(r"^\((erratum-[\w-]+)\)=", path.read_text(encoding="utf-8"), re.M)
        assert set(found) <= labels, (path.name, sorted(set(found) - labels))
