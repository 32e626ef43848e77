"""Every erratum has its proof: the check tells the source's value from the true one, and the
chapter holds the label."""

from __future__ import annotations

import pytest
from _chapters import ROOT

from booktools.build.toc import toc_files
from formulated.basics import gpt_log_likelihood
from formulated.errata import (
    ERRATA,
    ERRATUM_HOLDS,
    NO_ERRATUM,
    SEVERITIES,
    SOURCES,
    Erratum,
    errata_table,
    source_counts,
)


def test_errata_table_lists_every_erratum():
    """Every erratum has its row, linked to its label (unique keys: the test below)."""
    table = errata_table()
    for e in ERRATA:
        assert f"<{e.label}>`" in table


@pytest.mark.parametrize("erratum", ERRATA, ids=[e.key for e in ERRATA])
def test_erratum_has_its_proof(erratum):
    assert erratum.kind in {"error", "omission"}
    assert erratum.severity in SEVERITIES
    assert (erratum.severity == "omission") == (erratum.kind == "omission")
    assert erratum.sources and set(erratum.sources) <= set(SOURCES), erratum.sources
    assert erratum.chapter in toc_files(), f"{erratum.chapter} is not in _toc.yml"
    text = (ROOT / f"{erratum.chapter}.md").read_text(encoding="utf-8")
    assert f"({erratum.label})=" in text, (
        f"{erratum.chapter}.md lacks the label ({erratum.label})="
    )


@pytest.mark.parametrize("erratum", ERRATA, ids=[e.key for e in ERRATA])
def test_check_tells_the_source_from_the_truth(erratum):
    # The same check, given the source's value and then the corrected one, must answer
    # differently: a check that cannot fail (a tautology) answers the same both times.
    assert erratum.stated is not erratum.true
    assert erratum.verdict(erratum.stated) == ERRATUM_HOLDS, (
        f"{erratum.key}: the source's value is no longer found wrong"
    )
    assert erratum.verdict(erratum.true) == NO_ERRATUM, (
        f"{erratum.key}: the corrected value is found wrong too"
    )
    assert erratum.holds()


def _record(**kw) -> Erratum:
    base = dict(
        key="x",
        sources=("000",),
        section="s",
        says="a",
        correct="b",
        chapter="chapters/13_gpt",
        stated=1,
        true=2,
        check=lambda v: v == 1,
        severity="error",
    )
    return Erratum(**{**base, **kw})


def test_verdict_reads_the_check_and_rejects_a_non_bool():
    e = _record()
    assert (e.verdict(1), e.verdict(2)) == (ERRATUM_HOLDS, NO_ERRATUM) and e.holds()
    assert not _record(check=lambda v: True).holds()  # a tautology does not hold
    with pytest.raises(TypeError, match="expected a bool"):
        _record(check=lambda v: 1).verdict(1)


def test_record_rejects_unknown_sources_and_kinds():
    with pytest.raises(ValueError, match="sources: expected ids"):
        _record(sources=("005",))
    with pytest.raises(ValueError, match="sources: expected ids"):
        _record(sources=())
    with pytest.raises(ValueError, match="kind: expected one of"):
        _record(kind="typo")


@pytest.mark.parametrize(
    "kw",
    [
        {"severity": ""},  # not judged
        {"severity": "typo"},  # no severity of the rules
        {"severity": "omission"},  # an error-kind case cannot be an omission
        {"kind": "omission", "severity": "slip"},  # nor an omission a slip
        {"kind": "omission", "severity": "error"},
    ],
)
def test_record_without_a_valid_severity_is_refused(kw):
    base = dict(
        key="x",
        sources=("000",),
        section="s",
        says="a",
        correct="b",
        chapter="chapters/13_gpt",
        stated=1,
        true=2,
        check=lambda v: v == 1,
    )
    with pytest.raises(ValueError, match="severity: expected one of"):
        Erratum(**{**base, **kw})
    # every severity the rules allow is accepted where it belongs
    assert {_record(severity=v).severity for v in ("error", "slip")} == {
        "error",
        "slip",
    }
    assert _record(kind="omission", severity="omission").severity == "omission"


def test_a_record_written_without_severity_is_refused():
    # The field has no default: a record added without judging it fails at import time.
    base = dict(
        key="x",
        sources=("000",),
        section="s",
        says="a",
        correct="b",
        chapter="chapters/13_gpt",
        stated=1,
        true=2,
        check=lambda v: v == 1,
    )
    with pytest.raises(ValueError, match=r"severity: expected .* got ''"):
        Erratum(**base)


def _severity_count_problems(errata, table: str, summary: str) -> list[str]:
    """What the appendix's severity table and summary get wrong about ``errata``: counted here
    directly, case by case, and compared with the rendered cells."""
    problems = []
    rows = {}
    for line in table.splitlines()[2:]:
        cells = [c.strip().strip("*`") for c in line.strip("|").split("|")]
        rows[cells[0]] = [int(c) for c in cells[1:]]
    for s in SOURCES:
        mine = [e for e in errata if s in e.sources]
        want = [sum(e.severity == v for e in mine) for v in SEVERITIES] + [len(mine)]
        if rows.get(s) != want:
            problems.append(f"{s}: table {rows.get(s)}, counted {want}")
    want = [sum(e.severity == v for e in errata) for v in SEVERITIES] + [len(errata)]
    total = rows.get("all sources, each case once")
    if total != want:
        problems.append(f"total: table {total}, counted {want}")
    if sum(want[:-1]) != len(errata):
        problems.append(f"severities add up to {sum(want[:-1])}, not {len(errata)}")
    for v, n in zip(SEVERITIES, want):
        if f"{n} {v}" not in summary:
            problems.append(f"summary lacks '{n} {v}'")
    return problems


def test_severity_counts_add_up_in_the_table_and_the_summary():
    from formulated.errata.table import errata_summary, severity_counts, severity_table

    counts = severity_counts()
    assert set(counts) == set(SEVERITIES) and sum(counts.values()) == len(ERRATA)
    assert _severity_count_problems(ERRATA, severity_table(), errata_summary()) == []
    # Fails when the table or the summary was rendered from other records than those counted.
    fewer = [e for e in ERRATA if e.severity != "slip"][:-1]
    problems = _severity_count_problems(
        ERRATA, severity_table(fewer), errata_summary(fewer)
    )
    assert any(p.startswith("total") for p in problems), problems
    assert any("summary lacks" in p for p in problems), problems


def test_source_counts_add_up_to_more_than_the_cases():
    # 000 and 001 share their boxes: an erratum in both counts once for each (appendix B says so).
    counts = source_counts()
    shared = sum(len(e.sources) - 1 for e in ERRATA)
    assert shared > 0 and sum(counts.values()) == len(ERRATA) + shared
    assert set(counts) == set(SOURCES)


def test_errata_table_rejects_duplicate_keys(monkeypatch):
    import formulated.errata.registry as registry

    monkeypatch.setattr(registry, "ERRATA", ERRATA + [ERRATA[0]])
    with pytest.raises(ValueError, match="unique keys"):
        errata_table()


# A third value, wrong in another way than the source's, must also be found wrong: the checks
# compute the truth, they do not merely recognize the source's value.
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
    "004-gradient-step": lambda loss, grad, th, a: th - a * grad(th),  # one step only
    "003-bpe-tables": (
        [("l", "o"), ("e", "s"), ("es", "t"), ("lo", "w")],  # another tie order
        (("low",), ("low", "e", "r"), ("n", "e", "w", "est"), ("w", "i", "d", "est")),
    ),
    "000-argmax-identity": lambda p1, cond: cond,
    "001-bert-corruption": (0.8, 0.2, 0.0),
    "concat-h-undefined": lambda hp: hp["A"] + 1,
    "bert-jmasked-range": lambda n_A, n_B: set(range(2, n_A + n_B + 2)),  # contiguous
    "versions-gpt2-mixed": (
        48,
        1600,
        25,
        1.5e9,
        15e9,
    ),  # XL's shape, the source's range
    "003-gpt2-training-data": "Books1",
    "004-qkv-width-forced": lambda shape: shape[1] == 3,  # the columns forced instead
    "002-shape-product-dims": (  # operands of the wrong shape
        "B x T x D @ D x D",
        "B x H x T x T @ B x H x T x T",
    ),
    "002-embedding-letter-x": lambda X, X_tilde, b: X_tilde[0],  # always sequence 1
    "000-segment-update-equation": lambda X0, S: (
        X0,
        X0,
    ),  # holds, names the wrong matrix
    "001-final-layernorm-equation": lambda X, ln: (
        X,
        X,
    ),  # holds, names the wrong matrix
    "001-token-type-ids-name": "attention_mask",
    "001-roberta-token-brackets": ("<s>", "<mask>", "</s>"),  # roles swapped
    "001-xlnet-subset": lambda z, S: (
        True
    ),  # holds of anything, a tuple too short included
    "001-xlnet-objective": lambda model, ids, z: gpt_log_likelihood(
        model, ids
    ),  # one order
    "002-parameter-space": lambda S, theta, estimate: theta,  # increasing in θ
    "003-gpt3-bookscorpus": (
        "Common Crawl (filtered)",
        "WebText2",
        "Wikipedia",
        "Books1",
        "BooksCorpus",
    ),
}


@pytest.mark.parametrize("key", sorted(THIRD_VALUES))
def test_a_third_wrong_value_is_found_wrong(key):
    from formulated.errata import erratum

    assert erratum(key).verdict(THIRD_VALUES[key]) == ERRATUM_HOLDS


def test_erratum_lookup_names_the_key():
    from formulated.errata import erratum

    assert erratum("s-items").key == "s-items"
    with pytest.raises(
        ValueError, match="key: expected the key of an erratum, got 'nope'"
    ):
        erratum("nope")


def test_every_erratum_label_in_the_chapters_is_registered():
    # A chapter that keeps an erratum box after its record was removed (or softened into a
    # note) would claim an error the appendix no longer lists.
    import re

    labels = {e.label for e in ERRATA}
    for path in sorted((ROOT / "chapters").glob("*.md")):
        found = re.findall(
            r"^\((erratum-[\w-]+)\)=", path.read_text(encoding="utf-8"), re.M
        )
        assert set(found) <= labels, (path.name, sorted(set(found) - labels))


def test_errata_modules_follow_the_parts_of_the_toc():
    # errata/ is grouped like widgets/: one module per part of _toc.yml, named as widgets' are.
    import importlib
    import pkgutil

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
    # The five parts hold every erratum (the audit's finds too, in the part of their chapter),
    # and no other module of errata/ holds errata of its own (the registry joins the five).
    assert sum(len(getattr(mod, n).ERRATA) for n in names) == len(ERRATA)
    holders = {
        m.name
        for m in pkgutil.iter_modules(mod.__path__)
        if m.name != "registry"
        and hasattr(importlib.import_module(f"{mod.__name__}.{m.name}"), "ERRATA")
    }
    assert holders == set(names), sorted(holders)


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
    assert end[0] > 0 and end[1] == 0.0  # the minimum is at (-2, 3)
    end = slides_search(loss, None, np.array([-0.5, 0.5]), 0.01)
    assert np.allclose(end, [-2.0, 3.0], atol=0.05)  # same signs: it gets there


def test_letter_checks_read_the_book_config():
    # s-items and concat-h-undefined hand their candidate the hyperparameters of the book's own
    # model code by letter: s and h are no hyperparameter of any model.
    from dataclasses import fields

    from formulated.errata.models import hyperparameters
    from formulated.models import Config

    hp = hyperparameters(V=11, n_ctx=8, H=8, A=2, L=1)
    assert (
        set(hp)
        == {f.name for f in fields(Config)}
        == {"V", "n_ctx", "H", "A", "L", "F", "D"}
    )
    assert (hp["F"], hp["D"]) == (32, 4)


def test_citation_checks_name_their_source_and_accept_only_it():
    from formulated.errata import erratum

    cited = [e for e in ERRATA if e.basis == "citation"]
    assert cited and all(e.cites for e in cited)
    assert all(not e.cites for e in ERRATA if e.basis == "computed")
    data = erratum("003-gpt2-training-data")
    for name in (
        "OpenWebText",
        "Books1",
        "BooksCorpus",
        "WebText2",
        "webtext",
        "Common Crawl",
    ):
        assert data.verdict(name) == ERRATUM_HOLDS, name
    mix = erratum("003-gpt3-bookscorpus")
    assert (
        mix.verdict(tuple(reversed(mix.true))) == NO_ERRATUM
    )  # the order is not a claim
    assert mix.verdict(mix.true[:-1]) == ERRATUM_HOLDS  # one corpus missing
    assert mix.verdict(mix.true + ("Books1",)) == ERRATUM_HOLDS  # one listed twice
    sizes = erratum("versions-gpt2-mixed")
    assert (
        sizes.verdict((24, 1024, 16, 0.35e9, 0.36e9)) == NO_ERRATUM
    )  # GPT-2 medium, 354.8M
    assert sizes.verdict((24, 1024, 16, 0.30e9, 0.34e9)) == ERRATUM_HOLDS


def test_record_requires_cites_exactly_for_a_citation():
    with pytest.raises(ValueError, match="basis: expected one of"):
        _record(basis="lookup")
    with pytest.raises(ValueError, match="cites: expected the cited work"):
        _record(basis="citation")
    with pytest.raises(ValueError, match="cites: expected the cited work"):
        _record(cites="a paper")
    assert _record(basis="citation", cites="a paper").basis == "citation"


def test_ambiguity_notes_are_not_registered_errata():
    # A record judged an ambiguity leaves the registry; its chapter keeps a note labeled
    # (ambiguity-<key>)=, which must not name a registered erratum.
    import re

    keys = {e.key for e in ERRATA}
    found = set()
    for path in sorted((ROOT / "chapters").glob("*.md")):
        found |= set(
            re.findall(
                r"^\(ambiguity-([\w-]+)\)=", path.read_text(encoding="utf-8"), re.M
            )
        )
    assert {
        "wp-n-rows",
        "003-layer-index",
        "slide-masked-input",
        "002-untied-head",
        "001-objective-from-j1",
        "004-mixed-log-bases",
    } <= found
    assert not found & keys, sorted(found & keys)


def test_reference_window_check_measures_an_infinite_claim(monkeypatch):
    # The infinite claim is refuted by a measured length, not by fiat: were attention's weights
    # free, the same claim would stand.
    from formulated.errata import block, erratum

    e = erratum("004-infinite-reference-window")
    assert e.verdict(e.stated) == ERRATUM_HOLDS
    monkeypatch.setattr(block, "_attention_weight_bytes", lambda n: 0)
    assert e.verdict(e.stated) == NO_ERRATUM


def test_summary_counts_kinds_bases_and_sources():
    from formulated.errata.table import basis_counts, errata_summary, kind_counts

    text = errata_summary()
    kinds, bases = kind_counts(), basis_counts()
    assert sum(kinds.values()) == sum(bases.values()) == len(ERRATA)
    assert f"**{len(ERRATA)} cases**" in text
    assert (
        f"{bases['computed']} computed" in text
        and f"{bases['citation']} resting on" in text
    )
    for s, n in source_counts().items():
        assert f"`{s}`: {n}" in text
    table = errata_table()
    assert table.count("*(citation: ") == bases["citation"]
    assert "in chapter {doc}" not in table


def test_ledger_section_counts_verdicts():
    from formulated.errata.ledger import ledger, verdict_counts
    from formulated.errata.table import ledger_section

    for source in SOURCES:
        text = ledger_section(source)
        counts = verdict_counts(source)
        assert f"**{len(ledger(source))} passage" in text
        assert all(f"*{v}* {n}" in text for v, n in counts.items())


def test_heads_share_weights_refuses_an_unknown_claim():
    from formulated.errata.block import head_sharing_is_wrong

    with pytest.raises(ValueError, match="claim: expected 'shared' or 'separate'"):
        head_sharing_is_wrong("sharing")


def test_mixed_gpt2_column_count_is_computed_and_matches_transformers():
    import torch
    import transformers as T

    from formulated.errata import erratum
    from formulated.errata.models import mixed_gpt2_count

    with torch.device("meta"):
        model = T.GPT2Model(T.GPT2Config(n_embd=1024, n_layer=48, n_head=16))
    assert mixed_gpt2_count() == sum(p.numel() for p in model.parameters())
    assert f"{mixed_gpt2_count():,}" in erratum("versions-gpt2-mixed").correct


def test_xlnet_check_measures_a_network_not_a_joint_table(monkeypatch):
    # On the conditionals of one joint distribution every order gives the same sum, log P(x),
    # and the source's equation holds: the check finds it wrong only because it measures a
    # network, whose orders disagree.
    import numpy as np

    import formulated.basics as basics
    from formulated.errata import erratum

    e = erratum("001-xlnet-objective")
    assert e.verdict(e.stated) == ERRATUM_HOLDS

    def joint(V, n, seed=0):
        rng = np.random.default_rng(seed)
        return basics.JointTableModel(rng.dirichlet(np.ones(V**n)).reshape((V,) * n))

    monkeypatch.setattr(basics, "TinyAttentionModel", joint)
    assert e.verdict(e.stated) == NO_ERRATUM


def test_segment_equation_check_reads_the_segment_table(monkeypatch):
    # X_0 = X_0 + S is found wrong because BERT's segment term is not zero; with a zero
    # token-type table the same equation would hold.
    import torch

    from formulated.errata import erratum, models

    e = erratum("000-segment-update-equation")
    assert e.verdict(e.stated) == ERRATUM_HOLDS
    real = models._tiny_bert

    def zero_segments(seed=0):
        model = real(seed)
        with torch.no_grad():
            model.embeddings.token_type_embeddings.weight.zero_()
        return model

    monkeypatch.setattr(models, "_tiny_bert", zero_segments)
    assert e.verdict(e.stated) == NO_ERRATUM
