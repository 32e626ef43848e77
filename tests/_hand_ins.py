"""Hand-ins that ``otter run`` grades without running the whole chapter again, the wrong answers
they are graded with, and what the chapters import: helpers of tests/test_autograder_zip.py and
tests/test_assignments.py.

A *reduced hand-in* (:func:`reduced_hand_in`) is a student notebook cut down to what grading
needs: otter's init cell, the chapter's first code cell (its imports and seeds), every answer
cell (filled in or left blank), and the chapter cells that bind what the answers and the
exercises' tests read, found by a backward slice over the cells (:func:`needed_cells`).

The slice is static (:func:`reads_and_binds`).  A cell is kept when it binds a name that a
kept cell or a test reads after it: by assignment, ``def``, ``import``, a loop, ``global``
inside a function, or a change through a subscript or an attribute (``x[i] = ...``).  The
names a cell reads include those its functions and comprehensions read from the notebook, but
not those it has itself surely bound before reading them.  A test reads the names its source
reads and its exercise's names (:attr:`Spec.names`), since some read them through the
notebook's namespace.  Every chapter cell after the first answer cell is kept (there is none
today), so no cell left out runs after an answer.

What the slice cannot see is a change made through a method or a function
(``model.train_()``, ``fill(x)``) or a name read through the namespace by a string (other
than an exercise's names).  A cell missed that way leaves a kept cell failing (a
``NameError``: tests/test_autograder_zip.py grades in otter's debug mode, where that fails
the test) or the chapter's values different, which only changes the grade if the answers or
the tests depend on them.
"""

from __future__ import annotations

import ast
import builtins
import re
import symtable
from functools import cache
from pathlib import Path

from _chapters import ROOT

from booktools.course import assign, grading
from booktools.course.specs import SPECS

#: Wrong answers (label -> the answer cell's code) of two chapters: common mistakes that the
#: hidden tests must reject.  A chapter's wrong submission is its reduced hand-in with these
#: answers and the book's solutions for its other exercises: it must score some points, but not
#: those exercises'.  tests/test_assignments.py grades :data:`LOCAL_WRONG`'s through
#: booktools.course.grading (the instructor's ``otter run``, in the repository's environment);
#: tests/test_autograder_zip.py grades the other's from its zip alone: each path shown to give
#: partial marks once.  That every exercise's tests reject its most common mistakes (these
#: among them) is checked for every exercise by tests/test_grading_fairness.py, without otter:
#: chapters 11 and 12's wrong submissions, graded from their zips before, held what that test
#: scores: the tanh form (11.2) and 1.702 for both constants (11.3) are its mistakes, a ratio
#: of 1 its mistake and its guess (12.3), an ``a_limit`` below the answer its mistake (12.2:
#: 0.003 there, 0.01 here; its hidden test rejects any value below the answer).  What they
#: showed besides, that the tests as written into a zip reject under otter, chapter 8's shows
#: (the zips are written by the same code).
WRONG = {
    "08_attention": {
        # forgets the 1/sqrt(D) of scaled dot-product attention
        "ex-08-3": "def self_attention(X):\n"
        "    Q, K, V = X @ ex.QKV_W_QUERY, X @ ex.QKV_W_KEY, X @ ex.QKV_W_VALUE\n"
        "    return fg.softmax(Q @ K.T) @ V"
    },
    "09_masks": {
        # multiplies the weights by the 0/1 mask instead of adding -inf to the scores
        "ex-09-2": "lengths, n_b, D_b = [5, 3], 5, 4\n"
        "Qb, Kb, Vb = (rng.standard_normal((2, n_b, D_b)) for _ in range(3))\n"
        "real = np.arange(n_b)[None, :] < np.array(lengths)[:, None]\n"
        "mask_b = np.tril(np.ones((n_b, n_b), dtype=bool))[None] & real[:, None, :]\n"
        "ours_b = np.stack([(fg.softmax(Qb[b] @ Kb[b].T / np.sqrt(D_b)) * mask_b[b])"
        " @ Vb[b] for b in range(2)])",
        # forgets to renormalize
        "ex-09-3": "product_w = fg.softmax(ex.MASK_SCALED_SCORES) * np.tril(np.ones((4, 4)))\n"
        "renormalized = product_w",
        # counts n^2/2 and forgets the diagonal
        "ex-09-4": "causal_pairs = 1024 * 1023 // 2\nwasted_fraction = 0.5\n"
        "band_pairs = 2048 * 256",
    },
}
#: The chapter whose wrong submission tests/test_assignments.py grades in the repository's
#: environment (the other's is graded from its zip): one is enough to show that the
#: instructor's path gives partial marks.
LOCAL_WRONG = "09_masks"


def check_partial(stem: str, scores: dict[str, float]) -> None:
    """``scores`` (points per autograded exercise) of ``stem``'s wrong submission, from either
    environment: every exercise of the chapter graded, some points given but not all, and
    below full marks on each exercise that ``WRONG`` answers wrong."""
    chapter = ROOT / "chapters" / f"{stem}.md"
    full = {label: float(SPECS[label].points) for label in grading.solutions(chapter)}
    assert set(scores) == set(full), (sorted(scores), sorted(full))
    assert 0 < sum(scores.values()) < sum(full.values()), scores
    for label in WRONG[stem]:
        assert scores[label] < full[label], f"{label}: the wrong answer got full marks"


#: otter's init cell (``grader = otter.Notebook(...)``) and an answer cell of an autograded
#: exercise, as booktools.course.assign writes them into the student notebook.
INIT_CELL = re.compile(r"^grader = otter\.Notebook\(", re.M)
ANSWER_CELL = re.compile(r"# Exercise (\S+): define")
#: The cells otter adds besides those: grader.check, the export, the answer cells of written
#: and open-ended exercises (placeholders a student fills in, which grading does not read).
OTTER_CELL = re.compile(r"^(?:grader\.check\(|# Save your notebook|# Exercise )")


def _python(source: str) -> str:
    """A cell's source as Python (IPython's magics and shell lines translated)."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(source)


@cache
def reads_and_binds(
    source: str,
) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """``(reads, binds, rebinds)`` of a cell: the notebook names it reads before it binds
    them itself (builtins left out; a function's globals included), the names it may bind or
    change (assigned anywhere at top level, ``global`` inside a function, or changed through a
    subscript or attribute), and those that a top-level statement always rebinds (an
    assignment, a definition, an import), whose earlier value the cell does not need."""
    code = _python(source)
    tree = ast.parse(code)
    binds = _scope_names(code)[1] | _changed(tree)
    reads = _block_reads(tree.body) - set(dir(builtins))
    return frozenset(reads), frozenset(binds), frozenset(_rebound(tree.body))


def _scope_names(code: str) -> tuple[set[str], set[str]]:
    """The names ``code`` reads from the notebook (in any of its scopes: a function's or a
    comprehension's globals too) and those it binds there (``global`` ones included)."""
    reads, binds = set(), set()

    def walk(scope: symtable.SymbolTable, top: bool) -> None:
        for s in scope.get_symbols():
            if s.is_referenced() and (top or s.is_global()):
                reads.add(s.get_name())
            if (s.is_assigned() or s.is_imported()) and (top or s.is_declared_global()):
                binds.add(s.get_name())
        for child in scope.get_children():
            walk(child, False)

    walk(symtable.symtable(code, "<cell>", "exec"), True)
    return reads, binds


def _reads(nodes: list[ast.stmt]) -> set[str]:
    return _scope_names(ast.unparse(ast.Module(body=nodes, type_ignores=[])))[0]


def _block_reads(block: list[ast.stmt]) -> set[str]:
    """The names the statements of ``block`` read before one of them has surely bound them:
    ``x = 1; print(x)`` needs no earlier ``x``."""
    reads, bound = set(), set()
    for stmt in block:
        reads |= _statement_reads(stmt) - bound
        bound |= _rebound([stmt])
    return reads


def _statement_reads(stmt: ast.stmt) -> set[str]:
    """The names ``stmt`` reads; a loop's body and a ``with`` block do not read the names that
    their ``for`` or ``as`` binds (``for p in net.parameters(): p.grad = None``)."""
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        body = _block_reads(stmt.body) - _names(stmt.target)
        return _reads([ast.Expr(stmt.iter)]) | body | _block_reads(stmt.orelse)
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        bound = {n for i in stmt.items for n in _names(i.optional_vars)}
        heads = _reads([ast.Expr(i.context_expr) for i in stmt.items])
        return heads | (_block_reads(stmt.body) - bound)
    if isinstance(stmt, ast.If):
        test = _reads([ast.Expr(stmt.test)])
        return test | _block_reads(stmt.body) | _block_reads(stmt.orelse)
    return _reads([stmt])


def _names(target: ast.expr | None) -> set[str]:
    """The names a ``for`` or ``as`` target binds (``x``, ``(x, y)``; not ``d[k]``)."""
    if target is None:
        return set()
    return {
        n.id
        for n in ast.walk(target)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }


def _changed(tree: ast.Module) -> set[str]:
    """The names whose value a statement changes in place: ``x[i] = ...``, ``x.a = ...``,
    ``x[i] += ...``, ``del x[i]``."""
    out = set()
    for node in ast.walk(tree):
        targets = (
            node.targets
            if isinstance(node, (ast.Assign, ast.Delete))
            else [node.target]
            if isinstance(node, (ast.AugAssign, ast.AnnAssign))
            else []
        )
        for target in targets:
            while isinstance(target, (ast.Subscript, ast.Attribute)):
                target = target.value
                if isinstance(target, ast.Name):
                    out.add(target.id)
    return out


def _rebound(block: list[ast.stmt]) -> set[str]:
    """The names that a statement of ``block`` (not one nested in it) binds whatever runs
    before it: an assignment, a definition, an import."""
    out = set()
    for stmt in block:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(stmt.name)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).split(".")[0] for a in stmt.names}
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    out.add(target.id)
                elif isinstance(target, (ast.Tuple, ast.List)):
                    out |= {e.id for e in target.elts if isinstance(e, ast.Name)}
    return out


def grading_tests(label: str) -> tuple[str, ...]:
    """The public and hidden tests of exercise ``label``: otter runs both after the last cell,
    and both count towards its points."""
    return SPECS[label].public + SPECS[label].hidden


def names_read(test: str, label: str) -> set[str]:
    """The notebook names that ``test`` of exercise ``label`` reads: those its source reads
    (less its own functions), and the exercise's names (:attr:`Spec.names`), which some tests
    read through the notebook's namespace (``notebook["head_sum"]``), out of a static
    reading's sight."""
    reads, binds, _ = reads_and_binds(test)
    return (reads - binds) | set(SPECS[label].names)


def answer_labels(nb) -> list[str]:
    """The labels of the autograded exercises whose answer cells the notebook ``nb`` holds."""
    return [
        m.group(1)
        for c in nb.cells
        if _kind(c) == "answer"
        for m in [ANSWER_CELL.match(c.source)]
    ]


def needed_cells(sources: list[str], keep: set[int], names: set[str]) -> set[int]:
    """The cells (indices into ``sources``, in notebook order) that a run of the cells
    ``keep`` followed by code reading ``names`` needs: ``keep`` and, walking back from the
    end, every cell that binds or changes a name read later by a cell already needed."""
    live, needed = set(names), set(keep)
    for i in reversed(range(len(sources))):
        reads, binds, rebinds = reads_and_binds(sources[i])
        if i in needed or binds & live:
            needed.add(i)
            live = (live - rebinds) | reads
    return needed


def _kind(cell) -> str:
    """What a cell of a student notebook is: ``init``, ``answer`` (of an autograded
    exercise), ``otter`` (another cell that otter-assign added), ``chapter`` or ``text``."""
    if cell.cell_type != "code":
        return "text"
    if INIT_CELL.search(cell.source):
        return "init"
    if ANSWER_CELL.match(cell.source):
        return "answer"
    return "otter" if OTTER_CELL.match(cell.source) else "chapter"


def reduced_hand_in(student: Path, answers: dict[str, str], out: Path) -> Path:
    """The student notebook ``student`` with the answer cell of each exercise in ``answers``
    (label -> code) filled in, the others left blank, cut down to the cells grading needs
    (this module's docstring); written to ``out``."""
    import nbformat

    nb = nbformat.read(grading.fill_answers(student, answers, out), as_version=4)
    cells = [c for c in nb.cells if _kind(c) in ("init", "chapter", "answer")]
    kinds = [_kind(c) for c in cells]
    first = kinds.index("chapter")  # the imports and seeds every later cell assumes
    answered = kinds.index("answer")
    keep = {i for i, k in enumerate(kinds) if k != "chapter" or i > answered}
    keep.add(first)
    names = {
        name
        for label in answer_labels(nb)
        for test in grading_tests(label)
        for name in names_read(test, label)
    }
    needed = needed_cells([c.source for c in cells], keep, names)
    nb.cells = [c for i, c in enumerate(cells) if i in needed]
    nbformat.write(nb, out)
    return out


def chapter_code(chapter: Path) -> list[str]:
    """Every code cell of a chapter: its own cells, which the student notebook holds, and its
    solutions' code, which the solutions hand-ins run (booktools.course.assign.segments)."""
    parts = assign.segments(chapter.read_text(encoding="utf-8"))
    return [v for k, v in parts if k == "code"] + [
        code for k, v in parts if k == "exercise" for code in v.solution_code
    ]


def import_statements(sources) -> list[str]:
    """Every import of the Python ``sources`` (anywhere, at any depth), one statement per
    imported name (``from a import b`` for each ``b``), sorted: what a run of them needs from
    its environment, submodules (``formulated.widgets``) and their own dependencies included."""
    found = set()
    for source in sources:
        for node in ast.walk(ast.parse(_python(source))):
            if isinstance(node, ast.Import):
                found |= {f"import {a.name}" for a in node.names}
            elif isinstance(node, ast.ImportFrom) and not node.level:
                found |= {f"from {node.module} import {a.name}" for a in node.names}
    return sorted(found)
