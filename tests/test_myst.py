"""The one MyST parser (booktools/myst.py): tricky inputs, and no tool keeping its own copy."""

from __future__ import annotations

import re

import pytest
from _chapters import ROOT

from booktools import myst

NESTED = """\
Some prose.

````{admonition} Outer
:class: note

```{exercise}
:label: ex-inner
Inner.
```
````

::::{dropdown} A dropdown
:open:

:::{note} inside
A note.
:::

```{code-cell} python3
x = 1
```
::::

```python
```{not-a-directive}
```

```{code-cell} python3
---
tags: [hide-input]
mystnb:
  image:
    alt: a plot
---
y = 2
```
"""


def test_top_level_blocks_keep_nested_fences_in_their_body() -> None:
    lines = NESTED.split("\n")
    found = list(myst.blocks(lines))
    assert [(b.name, b.arg) for b in found] == [
        ("admonition", "Outer"),
        ("dropdown", "A dropdown"),
        ("code-cell", "python3"),
    ]
    outer, dropdown, cell = found
    # the three-backtick exercise does not close the four-backtick admonition
    assert outer.options == {"class": "note"}
    assert outer.body[0] == "```{exercise}" and outer.body[-1] == "```"
    assert lines[outer.end] == "````"
    # a colon fence: the shorter ::: of the note stays inside the ::::
    assert dropdown.fence == "::::" and dropdown.options == {"open": ""}
    inner = list(myst.blocks(dropdown.body))
    assert [(b.name, b.arg, b.body) for b in inner] == [
        ("note", "inside", ["A note."]),
        ("code-cell", "python3", ["x = 1"]),
    ]
    # a code cell's YAML option block: every key, nested ones too; the code after it
    assert cell.options == {
        "tags": "[hide-input]",
        "mystnb": "",
        "image": "",
        "alt": "a plot",
    }
    assert cell.body == ["y = 2"]
    assert (cell.start, cell.end) == (
        lines.index("y = 2") - 7,
        lines.index("y = 2") + 1,
    )


def test_a_code_fence_is_code_and_an_unclosed_block_is_an_error() -> None:
    lines = ["```python", "```{note}", "```", "after"]
    assert list(myst.blocks(lines)) == []
    with pytest.raises(
        ValueError, match=r"\{note\} block opened on line 2 is never closed"
    ):
        list(myst.blocks(["text", "```{note}", "body"]))
    lenient = list(myst.blocks(["```{note}", "body"], strict=False))
    assert lenient[0].end == 2 and lenient[0].body == ["body"]
    # indented four spaces: an indented code block, no directive
    assert myst.block_at(["    ```{note}", "```"], 0) is None


def test_opening_lines() -> None:
    m = myst.OPEN.match("  :::{prf:definition}  Scaled attention \t")
    assert m and (m["indent"], m["fence"], m["name"], m["arg"]) == (
        "  ",
        ":::",
        "prf:definition",
        "Scaled attention",
    )
    assert myst.OPEN.match("~~~{code-cell} python3")["name"] == "code-cell"
    assert myst.OPEN.match("```python") is None
    assert myst.CODE_OPEN.match("```python")["info"] == "python"
    assert myst.OPEN_PREFIX.sub("", "````{dropdown} The ledger of `000`") == (
        "The ledger of `000`"
    )


def test_roles_with_and_without_a_target() -> None:
    text = (
        "See {ref}`the attention <def-08-attention>`, {doc}`09_masks` and {math}`a<b`."
    )
    roles = [(m["name"], myst.explicit(m["text"])) for m in myst.ROLE.finditer(text)]
    assert roles == [
        ("ref", ("the attention", "def-08-attention")),
        ("doc", ("", "09_masks")),
        ("math", ("", "a<b")),
    ]
    assert myst.explicit("<ex-1>") == ("", "ex-1")
    assert myst.ROLE.search("{ref}``") is None


def test_whole_block_patterns() -> None:
    text = "a\n````{formulated-source} f g\n```\n````\nb\n"
    m = myst.block_pattern("formulated-source", "names").search(text)
    assert m and m["names"] == "f g" and m.group(0).endswith("```\n````")
    chapter = "```{code-cell} python3\n---\nalt: >-\n  x\n---\nprint(1)\n```\n"
    m = myst.CODE_CELL_OPTIONS.search(chapter)
    assert m and m["yaml"] == "alt: >-\n  x\n"


def test_front_matter() -> None:
    assert myst.split_front_matter("---\njupytext: {}\n---\n# T\n") == (
        "jupytext: {}\n",
        "# T\n",
    )
    assert myst.split_front_matter("# T\n---\n") == ("", "# T\n---\n")
    with pytest.raises(ValueError, match="front matter"):
        myst.split_front_matter("---\nno end\n")


#: A directive's fence written as a regex: three or more backticks, tildes or colons.
FENCE_REGEX = re.compile(r"[`~:]\{3,\}")


def test_no_other_tool_parses_fences_itself() -> None:
    """The directive-fence regex lives in booktools/myst.py only: a second copy would drift."""
    own = {
        path.relative_to(ROOT).as_posix(): [
            line.strip()
            for line in path.read_text(encoding="utf-8").split("\n")
            if FENCE_REGEX.search(line)
        ]
        for path in sorted((ROOT / "booktools").rglob("*.py"))
        if path.name != "myst.py"
    }
    assert {name: lines for name, lines in own.items() if lines} == {}


#: Math, an ATX heading and inline code written as a regex (``\$[^$``, ``#{1,6}``,
#: ```` `[^`] ````): :data:`booktools.myst.MATH`, ``HEADING`` and ``INLINE_CODE`` are the
#: one spelling of each.
PROSE_REGEX = re.compile(r"\\\$\[\^\$|#\{1,6\}|`\[\^`\]")


def _own_copies(paths, root=ROOT) -> dict[str, list[str]]:
    return {
        path.relative_to(root).as_posix(): lines
        for path in paths
        if (
            lines := [
                line.strip()
                for line in path.read_text(encoding="utf-8").split("\n")
                if PROSE_REGEX.search(line)
            ]
        )
    }


def test_no_other_tool_spells_math_headings_or_inline_code() -> None:
    """The math, heading and inline-code regexes live in booktools/myst.py only."""
    paths = [
        p for p in sorted((ROOT / "booktools").rglob("*.py")) if p.name != "myst.py"
    ]
    assert _own_copies(paths) == {}


def test_a_copy_of_the_math_regex_is_found(tmp_path) -> None:
    """The check above can fail: a tool with its own math and heading regexes is found."""
    tool = tmp_path / "booktools" / "tool.py"
    tool.parent.mkdir()
    lines = [
        r'MATH = re.compile(r"\$\$.+?\$\$|\$[^$]*\$")',
        r'HEADING = re.compile(r"^#{1,6}\s+(.*)")',
        r'CODE = re.compile(r"`[^`]+`")',
    ]
    tool.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert _own_copies([tool], tmp_path) == {"booktools/tool.py": lines}
