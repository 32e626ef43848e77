"""The coverage map (appendix D) names exactly the book's chapters, and covers every source."""

from __future__ import annotations

import re

import pytest
from _chapters import ROOT

from booktools.build.toc import toc_files
from formulated.coverage import (
    COVERAGE,
    SOURCE_TITLES,
    coverage_by_chapter,
    coverage_by_source,
)


def test_every_chapter_named_exists_in_toc():
    toc = set(toc_files())
    missing = [c.chapter for c in COVERAGE if c.chapter not in toc]
    assert not missing, f"COVERAGE names chapters that _toc.yml lacks: {missing}"
    for c in COVERAGE:
        assert (ROOT / f"{c.chapter}.md").exists(), c.chapter


def test_every_chapter_of_the_toc_is_covered():
    named = {c.chapter for c in COVERAGE}
    numbered = [f for f in toc_files() if re.match(r"chapters/\d\d_", f)]
    assert len(numbered) == 19, numbered  # the book's chapters 1-19
    assert [f"{i:02d}" for i in range(1, 20)] == [f.split("/")[1][:2] for f in numbered]
    missing = [f for f in toc_files() if f not in named]
    assert not missing, f"chapters of _toc.yml missing from COVERAGE: {missing}"
    assert len(named) == len(COVERAGE), "a chapter appears twice in COVERAGE"


def test_every_source_is_covered_and_keys_are_known():
    for c in COVERAGE:
        assert set(c.sections) <= set(SOURCE_TITLES), (c.chapter, c.sections)
        assert all(isinstance(v, tuple) and v for v in c.sections.values()), c.chapter
    for key in SOURCE_TITLES:
        chapters = [c.chapter for c in COVERAGE if key in c.sections]
        assert len(chapters) >= 3, (key, chapters)


def test_rendered_tables_link_every_chapter():
    by_chapter = coverage_by_chapter()
    for c in COVERAGE:
        assert f"{{doc}}`{c.doc}`" in by_chapter
    by_source = coverage_by_source()
    assert (
        by_source.count("→ {doc}`06_tokenization`") == 4
    )  # two sections of 002, two of 003


def test_unknown_source_key_is_rejected(monkeypatch):
    import formulated.coverage as mod

    monkeypatch.setattr(
        mod, "COVERAGE", COVERAGE + [mod.Coverage("chapters/x", {"005": ("y",)})]
    )
    with pytest.raises(ValueError, match=r"unknown sources \['005'\]"):
        mod.coverage_by_chapter()


# The items once "not yet treated": each is registered with the chapter that now treats it.
TREATED = {
    ("000", "the Definition's vocabulary “of s items”"): "chapters/13_gpt",
    ("001", "the Definition's vocabulary “of s items”"): "chapters/13_gpt",
    ("000", "the Softmax box"): "chapters/13_gpt",
    ("001", "the Softmax box"): "chapters/13_gpt",
    ("000", "the second matrix Y, rows P(x_i | x_1 … x_n)"): "chapters/13_gpt",
    ("000", "the CrossEntropy box"): "chapters/17_training_objective",
    ("000", "the BERT box's output, named GPT(x)"): "chapters/15_bert_roberta",
    ("002", "the layer X′ = PE(X)"): "chapters/07_embeddings_positions",
    (
        "002",
        "the table of notations, in full (extended to all sources)",
    ): "chapters/appendix_a_notation",
    ("003", "GPT as an autoregressive model (the AR(p) equation)"): "chapters/13_gpt",
    (
        "003",
        "its training-data row (WebText, not OpenWebText)",
    ): "chapters/14_gpt2_gpt3",
    ("004", "attention's reference window (“infinite”)"): "chapters/08_attention",
    (
        "004",
        "the “Conversation Dialog” slide: generation one token at a time",
    ): "chapters/13_gpt",
}


@pytest.mark.parametrize(
    "item", sorted(TREATED), ids=lambda item: f"{item[0]}:{item[1][:30]}"
)
def test_items_once_untreated_are_registered_with_their_chapter(item):
    source, section = item
    chapters = [c.chapter for c in COVERAGE if section in c.sections.get(source, ())]
    assert chapters == [TREATED[item]], (item, chapters)


def test_every_table_row_has_one_cell_per_column():
    """A "|" inside a section name is escaped: otherwise it ends its cell and the rest of the row
    shifts (chapter 13's "rows P(x_i | x_1 … x_n)" was cut there)."""
    import re

    rows = coverage_by_chapter().splitlines()
    widths = {len(re.split(r"(?<!\\)\|", row)) for row in rows}
    assert len(widths) == 1, widths
    assert r"P(x_i \| x_1" in coverage_by_chapter()
