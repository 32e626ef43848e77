"""The Colab notebooks' Markdown is plain Markdown (booktools/build/plain_markdown.py): no MyST
directive, role, option or target is left for Colab to show as raw text, and math is unchanged."""

from __future__ import annotations

import re
from collections import Counter

import jupytext
import nbformat
import pytest
from _chapters import ROOT

from booktools.build import notebooks
from booktools.build.plain_markdown import (
    DIRECTIVES,
    chapter_titles,
    directive_names,
    label_texts,
    to_plain,
)
from booktools.sphinx.source import markdown_box

CHAPTERS = notebooks.chapters()
TITLES = {"08_attention": "Attention", "09_masks": "Masks"}
LABELS = {
    "def-08-attention": "Definition 8.1 (Scaled dot-product attention)",
    "ex-08-1": "Exercise 8.1",
    "ex-08-2": "Exercise 8.2",
    "erratum-x": "Source erratum: a title",
}

#: MyST that a plain Markdown viewer would show as raw text.
MYST = re.compile(
    r"^[ \t]*(`{3,}|:{3,})\{|\{[\w:.-]+\}`[^`]|^[ \t]*:(label|class|name|nonumber):"
    r"|^[ \t]*\([\w:.-]+\)=[ \t]*$",
    re.M,
)
CODE_BLOCK = re.compile(r"^[ \t]*```[\w-]*\n.*?^[ \t]*```[ \t]*$", re.M | re.S)
MATH_BLOCK = re.compile(r"\$\$.+?\$\$", re.S)


def myst_left(markdown: str) -> list[str]:
    """The MyST constructs in ``markdown`` outside plain code blocks (a function's source may
    contain ``{x}`` followed by a backtick)."""
    return [m.group(0) for m in MYST.finditer(CODE_BLOCK.sub("", markdown))]


def markdown_cells(nb) -> list[str]:
    return [c.source for c in nb.cells if c.cell_type == "markdown"]


def colab(path):
    return nbformat.read(notebooks.target(path), as_version=4)


# -- the notebooks ----------------------------------------------------------------------------


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_colab_markdown_has_no_myst(path):
    left = [
        (i, found)
        for i, cell in enumerate(markdown_cells(colab(path)))
        for found in myst_left(cell)
    ]
    assert not left, f"MyST left in {notebooks.target(path).name}: {left[:5]}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_the_myst_check_fails_on_unconverted_cells(path):
    """The control: the chapter's cells as jupytext gives them do contain MyST the check finds
    (directives, :label: lines, roles)."""
    raw = [
        found
        for cell in markdown_cells(jupytext.read(path))
        for found in myst_left(cell)
    ]
    assert any(f.lstrip().startswith("```{") for f in raw), raw[:5]
    assert any(":label:" in f for f in raw) and any(
        f.endswith("`") or "`" in f for f in raw
    )


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_math_blocks_are_unchanged(path):
    raw = Counter(
        m
        for cell in markdown_cells(jupytext.read(path))
        for m in MATH_BLOCK.findall(CODE_BLOCK.sub("", cell))
    )
    converted = Counter(
        m
        for cell in markdown_cells(colab(path))
        for m in MATH_BLOCK.findall(CODE_BLOCK.sub("", cell.replace("\n> ", "\n")))
    )
    assert raw and converted == raw


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_cells_without_myst_are_unchanged(path):
    for cell in markdown_cells(jupytext.read(path)):
        if not myst_left(cell):
            assert to_plain(cell) == cell


def test_every_directive_in_the_chapters_is_converted_on_purpose():
    used = {name for path in CHAPTERS for name in directive_names(path.read_text())}
    assert used - {"code-cell"} <= set(DIRECTIVES), sorted(
        used - {"code-cell"} - set(DIRECTIVES)
    )
    assert {
        "prf:definition",
        "exercise",
        "solution",
        "solution-start",
        "admonition",
        "formulated-source",
    } <= used  # the grep finds them


def test_every_reference_in_the_chapters_resolves():
    titles, labels = chapter_titles(ROOT / "chapters"), label_texts(ROOT / "chapters")
    for path in CHAPTERS:
        for role, target in re.findall(
            r"\{(doc|ref|prf:ref|numref|eq)\}`([^`<]+)`", path.read_text()
        ):
            assert target in (titles if role == "doc" else labels), (
                path.name,
                role,
                target,
            )
    assert labels["def-08-attention"] == "Definition 8.1 (Scaled dot-product attention)"
    assert labels["ex-08-1"] == "Exercise 8.1" and labels["ex-11-1"] == "Exercise 11.1"
    assert titles["08_attention"] == "Attention"


def test_converted_definition_in_the_notebook():
    cells = markdown_cells(colab(ROOT / "chapters/08_attention.md"))
    text = "\n".join(cells)
    assert "**Definition 8.1 (Scaled dot-product attention).**\n\nFor queries" in text
    name = "formulated.formulas.heads.attention"
    assert f"<summary>Code: <code>{name}</code></summary>" in text
    assert "the subject of Chapter 9 (Masks); this chapter" in text


# -- each conversion --------------------------------------------------------------------------


def convert(markdown: str) -> str:
    return to_plain(markdown, TITLES, LABELS)


def test_definition_box():
    src = (
        "Before.\n\n```{prf:definition} Scaled dot-product attention\n:label: def-08-attention\n"
        "\nFor queries $Q$,\n\n$$\nA = B\n$$\n```\n\nAfter."
    )
    assert convert(src) == (
        "Before.\n\n**Definition 8.1 (Scaled dot-product attention).**\n\n"
        "For queries $Q$,\n\n$$\nA = B\n$$\n\nAfter."
    )
    # Without the labels: the kind and the title.
    assert to_plain(src).startswith(
        "Before.\n\n**Definition (Scaled dot-product attention).**"
    )


def test_exercise_and_solution():
    src = (
        "```{exercise}\n:label: ex-08-1\n\nShow it.\n```\n\n"
        "```{solution} ex-08-1\n:class: dropdown\n\nIt is $x$.\n```"
    )
    assert convert(src) == (
        "**Exercise 8.1.**\n\nShow it.\n\n<details>\n"
        "<summary>Solution to Exercise 8.1</summary>\n\nIt is $x$.\n\n</details>"
    )


def test_gated_solution_spans_cells():
    start = "```{solution-start} ex-08-2\n:class: dropdown\n```\n\n(a) Uniform."
    assert (
        convert(start)
        == "**Solution to Exercise 8.2** (try the exercise first)\n\n(a) Uniform."
    )
    end = "```{solution-end}\n```\n\n```{exercise}\n:label: ex-08-1\n\nNext.\n```"
    assert convert(end) == "---\n\n**Exercise 8.1.**\n\nNext."


def test_admonitions_become_blockquotes():
    src = (
        "(erratum-x)=\n```{admonition} Source erratum: a title\n:class: warning\n\n"
        "Line one\nline two.\n\nSecond $a$.\n```"
    )
    assert convert(src) == (
        "> **Source erratum: a title**\n>\n> Line one\n> line two.\n>\n> Second $a$."
    )
    assert convert("```{note}\nMind it.\n```") == "> **Note**\n>\n> Mind it."
    assert convert(":::{warning} Careful.\n:::") == "> **Warning**\n>\n> Careful."


def test_dropdown_figure_and_unknown_directive():
    assert convert("```{dropdown} More `x`\nHidden.\n```") == (
        "<details>\n<summary>More <code>x</code></summary>\n\nHidden.\n\n</details>"
    )
    assert convert(
        "```{figure} images/a.png\n:name: fig-a\n:alt: A plot\n\nThe caption.\n```"
    ) == ("![A plot](../images/a.png)\n\n*The caption.*")
    assert to_plain("```{image} a.png\n```", image_base="https://x/chapters/") == (
        "![](https://x/chapters/a.png)"
    )
    assert convert(
        "```{unheard-of} arg\n:opt: 1\n\nThe body {doc}`09_masks`.\n```"
    ) == ("The body Chapter 9 (Masks).")


def test_formulated_source_is_a_details_box():
    src = "Text.\n\n```{formulated-source} formulated.formulas.feedforward.ffn_relu\n```\n\nMore."
    box = markdown_box(["formulated.formulas.feedforward.ffn_relu"], "details").replace(
        "<summary>Code: `formulated.formulas.feedforward.ffn_relu`</summary>",
        "<summary>Code: <code>formulated.formulas.feedforward.ffn_relu</code></summary>",
    )
    assert "<summary>Code: <code>" in box
    assert convert(src) == f"Text.\n\n{box}\n\nMore."


def test_roles():
    assert convert("See {doc}`08_attention` and {doc}`chapter 9 <09_masks>`.") == (
        "See Chapter 8 (Attention) and chapter 9."
    )
    assert convert(
        "({prf:ref}`def-08-attention`), {ref}`ex-08-1`, "
        "{ref}`an erratum <erratum-x>`, {ref}`erratum-x`"
    ) == (
        "(Definition 8.1 (Scaled dot-product attention)), Exercise 8.1, an erratum, "
        "Source erratum: a title"
    )
    assert (
        convert("{numref}`Box %s <def-08-attention>` and {eq}`eq-1`")
        == "Box 8.1 and (eq-1)"
    )
    assert convert("{math}`x^2` and {sub}`2`") == "$x^2$ and <sub>2</sub>"
    assert to_plain("{prf:ref}`def-unknown`") == "def-unknown"
    # Roles spanning a line break; inline code and code blocks are kept.
    assert convert("as {ref}`an\nerratum <erratum-x>` says") == "as an\nerratum says"
    code = 'Write `{doc}`x`` or\n\n```python\nf"{x}`"\n```'
    assert convert(code) == code


def test_targets_and_option_lines_are_dropped_and_math_kept():
    src = "(sec-a)=\n## A\n\n$$V = V_0 + k,$$\n\n$$\n{doc}`x`\n$$"
    assert convert(src) == "## A\n\n$$V = V_0 + k,$$\n\n$$\n{doc}`x`\n$$"
