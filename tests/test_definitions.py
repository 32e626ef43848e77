"""Definition -> code -> check: the docstrings, the chapters and the tests agree.

A function that implements a boxed definition names the box's label (``Definition:``) and the
tests that check it against a reference (``Checked by:``) in its docstring; the chapter shows
its source right under the box with the ``formulated-source`` directive
(booktools/sphinx/source.py).  These tests keep the three in step.
"""

from __future__ import annotations

import inspect
import re
from collections import defaultdict
from pathlib import Path

import pytest
from _chapters import ROOT, source_directives

from booktools.sphinx.source import (
    DIRECTIVE,
    TEST_ID,
    docstring_facts,
    implementations,
    resolve,
)

CHAPTERS = sorted((ROOT / "chapters").glob("*.md"))
SOURCE_LINE = re.compile(r"^```\{" + re.escape(DIRECTIVE) + r"\}\s+(?P<names>.+?)\s*$")

#: The boxes that show no source, each with the reason: no function of the package implements
#: them (notation, a convention, a pattern), or the one that does cannot name its box yet.
NO_SOURCE = {
    "def-05-dimensions": "notation: the letters n, V, H, A, D, F, L, B (data: shapes.NOTATION)",
    "def-05-vocabulary": "notation: stoi/itos, built in the chapter with plain dicts",
    "def-05-batch": "a convention (shapes B x n x H), no computation of its own",
    "def-05-wise": "a classification of operations, measured in the chapter, not a function",
    "def-07-dropout": "the models call torch.nn.Dropout; the chapter checks its formula inline",
    "def-12-residual": "a pattern, X + f(X), written inside block_post_ln and block_pre_ln",
    "def-17-likelihood": "a definition and an argmax; the per-sequence sum is def-17-chain-rule",
    "def-18-clip": "the training loop calls torch.nn.utils.clip_grad_norm_",
}


def definition_boxes(text: str) -> list[tuple[str | None, list[str] | None]]:
    """Each ``{prf:definition}`` box of a chapter: its label and the objects named by the
    ``formulated-source`` directive right after it (``None`` if none follows)."""
    lines = text.splitlines()
    boxes = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("```{prf:definition}"):
            i += 1
            continue
        label, j = None, i + 1
        while j < len(lines) and lines[j].strip() != "```":
            m = re.match(r":label:\s*(\S+)", lines[j])
            label = m.group(1) if m else label
            j += 1
        k = j + 1
        # blank lines and HTML comments (the slides' <!-- slide-code ... --> marks) between
        while k < len(lines) and (
            not lines[k].strip() or re.fullmatch(r"\s*<!--.*-->\s*", lines[k])
        ):
            k += 1
        m = SOURCE_LINE.match(lines[k]) if k < len(lines) else None
        boxes.append((label, m.group("names").split() if m else None))
        i = k
    return boxes


def chapter_boxes() -> dict[str, tuple[str, list[str] | None]]:
    """label -> (chapter file name, objects shown under the box)."""
    out = {}
    for path in CHAPTERS:
        for label, names in definition_boxes(path.read_text(encoding="utf-8")):
            if label is not None:
                out[label] = (path.name, names)
    return out


def test_functions_name_definitions():
    # The mechanism is in use: the core formulas and the models name their boxes (the
    # formulas under the module that defines them; formulated.formulas re-exports them).
    named = {resolve(impl.name) for impl in implementations()}
    for name in (
        "formulated.formulas.layer_norm",
        "formulated.formulas.attention",
        "formulated.models.reference.gpt2_probabilities",
    ):
        assert resolve(name) in named


def test_every_label_named_in_a_docstring_exists():
    boxes = chapter_boxes()
    missing = [
        (impl.name, label)
        for impl in implementations()
        for label in impl.labels
        if label not in boxes
    ]
    assert not missing, f"docstrings name definition labels no chapter has: {missing}"


def test_every_named_box_shows_the_source_of_its_functions():
    wanted: dict[str, set[str]] = defaultdict(set)
    for impl in implementations():
        for label in impl.labels:
            wanted[label].add(impl.name)
    boxes = chapter_boxes()
    wrong = {}
    for label, names in wanted.items():
        if label in boxes:
            chapter, shown = boxes[label]
            # a chapter may name a function where a package face exports it
            # (formulated.formulas.attention is formulated.formulas.heads.attention)
            same = shown is not None and (
                {id(resolve(n)) for n in shown} == {id(resolve(n)) for n in names}
            )
            if not same:
                wrong[label] = (chapter, shown, sorted(names))
    assert not wrong, (
        "a definition box must be followed by a formulated-source directive "
        f"naming the functions that implement it: {wrong}"
    )


def test_every_box_shows_source_or_says_why_not():
    boxes = chapter_boxes()
    silent = {label for label, (_, names) in boxes.items() if names is None}
    assert silent <= set(NO_SOURCE), (
        f"boxes with no formulated-source directive and no reason in NO_SOURCE: "
        f"{sorted(silent - set(NO_SOURCE))}"
    )
    stale = sorted(set(NO_SOURCE) - silent)
    assert not stale, (
        f"NO_SOURCE lists boxes that show a source or do not exist: {stale}"
    )


def test_every_shown_object_names_the_box_above_it():
    boxes = chapter_boxes()
    shown_under = {
        name: label for label, (_, names) in boxes.items() for name in names or ()
    }
    for chapter, name in source_directives():
        obj = resolve(name)  # the directive's target exists
        labels, _ = docstring_facts(obj)
        assert shown_under.get(name) in labels, (
            f"{chapter}: {name} is shown under box {shown_under.get(name)!r}, but its docstring "
            f"names {labels}"
        )


def _test_names(path: Path) -> set[str]:
    return set(
        re.findall(
            r"(?m)^(?:async )?def (test_\w+)\(", path.read_text(encoding="utf-8")
        )
    )


def test_every_named_test_exists():
    bad = []
    for impl in implementations():
        if not impl.tests:
            bad.append((impl.name, "names no test"))
        for test in impl.tests:
            if not TEST_ID.match(test):
                bad.append((impl.name, f"{test!r} is not tests/<file>.py::test_name"))
                continue
            file, name = test.split("::")
            path = ROOT / file
            if not path.exists() or name not in _test_names(path):
                bad.append((impl.name, f"{test} does not exist"))
    assert not bad, bad


@pytest.mark.parametrize(
    "doc, labels, tests",
    [
        (
            "f(x).\n\nDefinition: def-11-ffn.\nChecked by: tests/test_a.py::test_b\n",
            ("def-11-ffn",),
            ("tests/test_a.py::test_b",),
        ),
        (
            "Definitions: def-11-gelu, def-11-gelu-approx.\nChecked by: tests/t.py::test_1, "
            "tests/t.py::test_2\n",
            ("def-11-gelu", "def-11-gelu-approx"),
            ("tests/t.py::test_1", "tests/t.py::test_2"),
        ),
        (
            "Checked by: tests/t.py::test_1,\n    tests/t.py::test_2.\nNext paragraph, not a test.\n",
            (),
            ("tests/t.py::test_1", "tests/t.py::test_2"),
        ),  # a list wrapped at 88 columns
        (
            "Checked by: tests/t.py::test_1.\nnot_a_test, either\n",
            (),
            ("tests/t.py::test_1",),
        ),
        (
            "Checked by:\n    tests/t.py::test_a_name_too_long_for_the_first_line.\n",
            (),
            ("tests/t.py::test_a_name_too_long_for_the_first_line",),
        ),
        ("No box here.", (), ()),
    ],
)
def test_docstring_facts_parses_both_lines(doc, labels, tests):
    def f():
        pass

    f.__doc__ = doc
    assert docstring_facts(f) == (labels, tests)


def test_definition_boxes_parser():
    text = (
        "```{prf:definition} A\n:label: def-a\n\nx\n```\n\n"
        "```{formulated-source} m.f m.g\n```\n\n"
        "```{prf:definition} B\n:label: def-b\n```\ntext\n"
    )
    assert definition_boxes(text) == [("def-a", ["m.f", "m.g"]), ("def-b", None)]
    marked = text.replace("x\n```\n\n", "x\n```\n\n<!-- slide-code m.f -->\n\n", 1)
    assert definition_boxes(marked) == definition_boxes(text)
    prose = text.replace("x\n```\n\n", "x\n```\n\nProse.\n\n", 1)
    assert definition_boxes(prose) == [("def-a", None), ("def-b", None)]


#: The functions shown under a definition box that take no ``@checked`` checker, each with the
#: reason.  Classes (a model, a tokenizer, a parameter set) are not formulas and are left out.
NOT_CHECKED = {
    "formulated.models.trainable.GPT.forward": (
        "an nn.Module method that torch.compile traces; it checks its arguments first with "
        "self._checked_ids, which needs the model's config"
    ),
    "formulated.models.params.parameter_count": (
        "the sum of parameter_breakdown's terms, one line; it passes every argument on to "
        "parameter_breakdown, whose checker names the argument at fault"
    ),
}


def boxed_formulas() -> list[str]:
    """Every function (or method) that a ``{prf:definition}`` box of the book shows with its
    ``formulated-source`` directive: the formulas of every chapter, from the basics of
    chapters 1-4 to the models and the training loop."""
    return sorted(
        {
            name
            for _, names in chapter_boxes().values()
            for name in names or ()
            if inspect.isfunction(resolve(name))
        }
    )


def test_every_boxed_formula_checks_its_arguments_with_checked():
    names = boxed_formulas()
    for name in (
        "formulated.formulas.feedforward.gelu",
        "formulated.tokenizers.bpe.learn_bpe",
        "formulated.basics.networks.mlp2_forward",
        "formulated.basics.sequences.rnn_backward",
        "formulated.models.reference.gpt2_probabilities",
    ):
        assert name in names, name
    assert len(names) >= 60
    bare = [
        n
        for n in names
        if n not in NOT_CHECKED and not hasattr(resolve(n), "__checked_by__")
    ]
    assert not bare, f"boxed formulas without @checked (formulated/_checks.py): {bare}"
    stale = sorted(
        n
        for n in NOT_CHECKED
        if n not in names or hasattr(resolve(n), "__checked_by__")
    )
    assert not stale, (
        f"NOT_CHECKED lists functions that are @checked or not boxed: {stale}"
    )
