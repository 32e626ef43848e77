"""Student and instructor notebooks: solutions removed (or marked), answer cells added."""
from __future__ import annotations

import pytest

from formulated import teaching
from _chapters import ROOT, toc_files

CHAPTER = """\
---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# Toy

```{code-cell} python3
x = 1
```

```{exercise}
:label: ex-toy-1

What is $1+1$?
```

````{solution} ex-toy-1
:class: dropdown

It is 2, SECRET-TEXT.

```python
print(2)
```
````

```{exercise}
:label: ex-toy-2

Compute $2^{10}$.
```

```{solution-start} ex-toy-2
:class: dropdown
```

```{code-cell} python3
answer = 2 ** 10  # SECRET-CODE
```

```{solution-end}
```

Closing words.
"""


def test_exercises_are_found_with_their_kind():
    assert teaching.exercises(CHAPTER) == [teaching.Exercise("ex-toy-1", False),
                                           teaching.Exercise("ex-toy-2", True)]


def test_student_text_drops_every_solution_and_adds_answer_cells():
    text = teaching.student_text(CHAPTER)
    assert "SECRET" not in text and "solution" not in text
    assert "Closing words." in text and "x = 1" in text
    assert text.count("# Your answer to exercise") == 2
    assert text.index("# Your answer to exercise ex-toy-1") > text.index("What is $1+1$?")


def test_student_notebook_is_a_valid_notebook(tmp_path):
    import nbformat

    src = tmp_path / "toy.md"
    src.write_text(CHAPTER)
    out = teaching.write_notebooks([src], tmp_path / "students")
    nb = nbformat.read(out[0], as_version=4)
    nbformat.validate(nb)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    assert code == ["x = 1", "# Your answer to exercise ex-toy-1",
                    "# Your answer to exercise ex-toy-2"]


def test_instructor_notebook_marks_solution_code_for_nbgrader(tmp_path):
    src = tmp_path / "toy.md"
    src.write_text(CHAPTER)
    nb = teaching.instructor_notebook(src)
    marked = [c for c in nb.cells if "nbgrader" in c.metadata]
    assert len(marked) == 1
    assert marked[0].metadata["nbgrader"]["grade_id"] == "ex-toy-2-1"
    assert marked[0].source.startswith("### BEGIN SOLUTION") and "SECRET-CODE" in marked[0].source


def test_bad_input_gets_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="never closed"):
        teaching.student_text("```{exercise}\n:label: ex-a\n")
    with pytest.raises(ValueError, match="no ':label:'"):
        teaching.student_text("```{exercise}\nno label\n```\n")
    with pytest.raises(ValueError, match="never ended"):
        teaching.student_text("```{solution-start} ex-a\n```\n")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        teaching.write_notebooks([tmp_path / "nope.md"], tmp_path / "out")
    src = tmp_path / "toy.md"
    src.write_text(CHAPTER)
    with pytest.raises(ValueError, match="no chapter is overwritten"):
        teaching.write_notebooks([src], tmp_path)


@pytest.mark.parametrize("chapter", [c for c in toc_files() if "appendix" not in c
                                     and c != "chapters/intro"])
def test_every_chapter_yields_a_student_notebook_without_solutions(chapter):
    text = (ROOT / f"{chapter}.md").read_text(encoding="utf-8")
    student = teaching.student_text(text)
    assert "{solution" not in student
    assert student.count("# Your answer to exercise") == len(teaching.exercises(text))
