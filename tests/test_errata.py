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
    "bert-mlm-head": lambda H, V: H * H + 4 * H + V,
    "004-infinite-reference-window": lambda budget: int((budget // 16) ** 0.5) + 1,
    "s-items": lambda letters: letters["H"],
    "softmax-box-width": lambda X, H: X.shape[1] - 1,
    "000-second-y-matrix": lambda i, n: set(range(1, i)),
    "004-bits-eliminate": 6,
    "step6-input-step4": 4,
    "004-convex-always-converges": lambda alpha, A: alpha < 3 / max(abs(A).sum(axis=1)),
    "lambda-omits-biases": 116_497_920 + 12 * 768,
    "002-vocab-index-range": lambda V: range(1, V + 1),
    "004-gradient-step": lambda loss, grad, th, a: th - a * grad(th),   # one step only
    "003-bpe-tables": ([("l", "o"), ("e", "s"), ("es", "t"), ("lo", "w")],   # another tie order
                       (("low",), ("low", "e", "r"), ("n", "e", "w", "est"),
                        ("w", "i", "d", "est"))),
    "000-argmax-identity": lambda p1, cond: cond,
    "001-objective-from-j1": 3,
    "001-bert-corruption": (0.8, 0.2, 0.0),
    "003-layer-index": lambda L: L - 2,
    "wp-n-rows": lambda n, n_ctx: n_ctx + 1,
    "003-gpt3-bookscorpus": ("Common Crawl (filtered)", "WebText2", "Wikipedia", "Books1",
                             "BooksCorpus"),
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


def test_errata_modules_follow_the_parts_of_the_toc():
    # errata/ is grouped like widgets/: one module per part of _toc.yml, named as widgets' are.
    import yaml

    import formulated.errata as mod
    import formulated.widgets as widgets

    parts = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))["parts"]
    names = ["foundations", "text", "block", "models", "training"]
    for name, part in zip(names, parts):
        assert hasattr(widgets, name)
        files = {c["file"] for c in part["chapters"]}
        for e in getattr(mod, name).ERRATA:
            assert e.chapter in files, (name, e.key, e.chapter)
    assert sum(len(getattr(mod, n).ERRATA) for n in names) == len(ERRATA)


def test_gelu_check_accepts_the_tanh_form_gpt2_uses():
    from formulated import formulas as fm
    from formulated.errata import erratum

    e = erratum("gelu-sigmoid-as-exact")
    assert e.verdict(lambda x: fm.gelu(x, "tanh")) == NO_ERRATUM
    assert e.verdict(lambda x: fm.gelu(x, "sigmoid")) == ERRATUM_HOLDS


def test_slides_search_keeps_the_sign_and_sticks_at_zero():
    import numpy as np

    from formulated.errata.foundations import slides_search

    loss = lambda th: float(np.sum((th - np.array([-2.0, 3.0])) ** 2))  # noqa: E731
    end = slides_search(loss, None, np.array([0.5, 0.0]), 0.01)
    assert end[0] > 0 and end[1] == 0.0          # the minimum is at (-2, 3)
    end = slides_search(loss, None, np.array([-0.5, 0.5]), 0.01)
    assert np.allclose(end, [-2.0, 3.0], atol=0.05)   # same signs: it gets there


def test_symbol_checks_read_the_notation_table():
    from formulated.errata.block import BOX_SYMBOLS
    from formulated.errata.models import DEFINITION_SYMBOLS

    assert BOX_SYMBOLS == DEFINITION_SYMBOLS
    assert {"n", "V", "H", "A", "D", "F", "L"} == set(BOX_SYMBOLS)
    assert "h" not in BOX_SYMBOLS and "s" not in BOX_SYMBOLS


def test_heads_share_weights_refuses_an_unknown_claim():
    from formulated.errata.block import head_sharing_is_wrong

    with pytest.raises(ValueError, match="claim: expected 'shared' or 'separate'"):
        head_sharing_is_wrong("sharing")


def test_mixed_gpt2_column_count_is_computed_and_matches_transformers():
    from formulated.errata import erratum
    import torch
    import transformers as T

    from formulated.errata.models import mixed_gpt2_count

    with torch.device("meta"):
        model = T.GPT2Model(T.GPT2Config(n_embd=1024, n_layer=48, n_head=16))
    assert mixed_gpt2_count() == sum(p.numel() for p in model.parameters())
    assert f"{mixed_gpt2_count():,}" in erratum("versions-gpt2-mixed").correct
