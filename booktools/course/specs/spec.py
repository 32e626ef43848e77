"""The grading record of one exercise (:class:`Spec`), how a test function becomes an otter
test (:func:`test_source`), and the helpers that tests paste in.

A test is a function in the module of its part (``foundations.py`` ... ``training.py``).  Its
parameters are the names of the student's notebook that it reads (the chapter's, the answer's),
and the one parameter ``notebook``, if present, is the notebook's namespace itself (what
:func:`calls_behind` reads).  Otter runs it in the student's notebook: :func:`test_source`
pastes the helpers the test calls, the test itself, and a call that passes it the notebook's
names (``theta0_is_the_least_squares_intercept(X, y, theta0)``).  A test imports what it uses
inside its body (the notebook need not hold ``np``), asserts, and returns nothing (otter prints
a returned value, and compares printed output).

Tolerances accept exactly the precision each prompt states, computed in float32: "to N
significant digits" is a relative tolerance of 6e-4 for N = 4 (rounding leaves at most 5e-4,
float32 adds about 1e-7), "to N decimal places" an absolute one of 0.5 * 10**-N plus a margin;
a property checked between two separately rounded values allows twice that.  Public tests check
a property that a placeholder (``...``, zeros, ones, a guess) fails and that does not give the
graded value away; hidden tests compare with an independent reference.

Every autograded exercise has fairness answers next to its spec, checked by
``tests/test_grading_fairness.py``: ``ANSWERS[label]()`` returns the chapter's names that its
tests read (small, seeded, from the package) and a dict of variants, each a dict of the
answer's names: ``"float64"`` and ``"float32"`` (a correct answer, and the same computed in
float32 or, for counts, as another number type) and ``"mistake 1"``, ``"mistake 2"`` (its two
most common mistakes).  ``SHORTCUTS[label]`` is the student's cell of a shortcut the prompt
forbids, ``GUESSES[label]`` cells of placeholders besides ``...``, zeros and ones, and
``INPUTS[label]`` the names a student chooses (kept, not rounded, when the answer is rounded as
stated).
"""

from __future__ import annotations

import ast
import builtins
import copy
import inspect
import io
import textwrap
import tokenize
from dataclasses import dataclass

import numpy as np

__all__ = [
    "Spec",
    "auto",
    "written",
    "open_ended",
    "public_message",
    "bpe_merges_problem",
    "calls_behind",
    "source_of",
    "cell_of",
    "test_source",
    "float32",
    "count_answers",
    "NOTEBOOK",
    "WRITTEN_PART_SUFFIX",
]

#: The otter question of an autograded exercise's written part is named ``<label>`` + this.
WRITTEN_PART_SUFFIX = "-written"

#: The parameter of a test function that receives the notebook's namespace (``globals()``).
NOTEBOOK = "notebook"


@dataclass(frozen=True)
class Spec:
    """Grading of one exercise (see :mod:`booktools.course.specs`).

    :attr:`public` and :attr:`hidden` are otter tests: Python source that otter runs in the
    student's notebook (:func:`auto` makes them from test functions).
    """

    kind: str
    points: int = 2
    names: tuple[str, ...] = ()
    public: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()
    rubric: str = ""
    #: What a passing ``grader.check`` has verified, shown to the student (otter's success
    #: message): a property of the answer, never the graded value.
    checks: str = "shape and form only"
    #: The rubric of an ``auto`` exercise's written part ("Show that...", "Why...",
    #: "Predict..."): a Markdown answer cell graded by hand, worth :attr:`written_points`, in an
    #: otter question of its own named ``label + WRITTEN_PART_SUFFIX``.  Empty: no written part.
    written: str = ""
    written_points: int = 0

    def __post_init__(self):
        if self.kind not in ("auto", "written", "open"):
            raise ValueError(
                f"kind: expected 'auto', 'written' or 'open', got {self.kind!r}"
            )
        if self.kind == "auto" and not (self.names and self.public and self.hidden):
            raise ValueError(
                "an 'auto' exercise needs names, public tests and hidden tests"
            )
        if bool(self.written) != bool(self.written_points) or (
            self.written and self.kind != "auto"
        ):
            raise ValueError(
                "written part: expected a rubric and its points, on an 'auto' "
                "exercise only"
            )
        for test in self.public + self.hidden:
            # otter runs a test as a doctest that expects no output: a bare expression would
            # print its value and fail the test whatever the answer
            shown = _printed(ast.parse(test))
            if shown:
                raise ValueError(
                    f"test: expected statements that print nothing, got the "
                    f"expression {ast.unparse(shown[0])!r} in {test!r}"
                )

    @property
    def written_part(self) -> "Spec | None":
        """The written part as a ``written`` spec of its own (``None`` without one)."""
        return (
            Spec("written", self.written_points, rubric=self.written)
            if self.written
            else None
        )


def _printed(tree: ast.Module) -> list[ast.Expr]:
    """The expression statements that an interactive run (a doctest) would print: those
    outside function bodies, where a bare value is only returned, except a call of a function
    defined in the test that returns nothing (a test function's call)."""
    silent = {
        f.name
        for f in tree.body
        if isinstance(f, ast.FunctionDef) and not _returns_a_value(f)
    }
    return [
        e
        for e in _expressions(tree)
        if not (
            isinstance(e.value, ast.Call)
            and isinstance(e.value.func, ast.Name)
            and e.value.func.id in silent
        )
    ]


def _expressions(node: ast.AST) -> list[ast.Expr]:
    """The expression statements of ``node`` outside function bodies."""
    if isinstance(node, ast.Expr):
        return [node]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return []
    return [e for child in ast.iter_child_nodes(node) for e in _expressions(child)]


def _returns_a_value(func: ast.FunctionDef) -> bool:
    """Whether ``func`` may return something else than ``None`` (a ``return`` with a value, a
    ``yield``), not counting the functions defined inside it."""

    def walk(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if isinstance(child, (ast.Yield, ast.YieldFrom)) or (
                isinstance(child, ast.Return) and child.value is not None
            ):
                return True
            if walk(child):
                return True
        return False

    return walk(func)


def auto(
    names: str,
    public: list,
    hidden: list,
    points: int = 2,
    checks: str = "shape and form only",
    written: str = "",
    written_points: int = 0,
) -> Spec:
    """An autograded exercise defining the space-separated ``names``; ``public`` and
    ``hidden`` are its tests, each a test function (:func:`test_source` makes the otter test)
    or an otter test's source; ``checks`` says what its public tests verify (shown to the
    student when they pass); ``written`` is the rubric of its written part, worth
    ``written_points`` (1 unless given)."""

    def otter(tests):
        return tuple(t if isinstance(t, str) else test_source(t) for t in tests)

    return Spec(
        "auto",
        points,
        tuple(names.split()),
        otter(public),
        otter(hidden),
        checks=checks,
        written=written,
        written_points=written_points or (1 if written else 0),
    )


def public_message(spec: Spec) -> str:
    """What ``grader.check`` says when the public tests pass: what they checked, and that the
    graded tests are hidden (a pass is not a grade)."""
    return f"Checked: {spec.checks}. The graded tests are hidden."


def written(
    rubric: str = "Full marks for a complete, correct argument; half for the right idea "
    "with a gap or a slip.",
    points: int = 2,
) -> Spec:
    """A written answer graded by hand."""
    return Spec("written", points, rubric=rubric)


def open_ended() -> Spec:
    """An exercise for exploration: an answer cell, no grade."""
    return Spec("open", 0)


# ---------------------------------------------------------------- test functions as otter tests
def _definition(func) -> tuple[ast.FunctionDef, list[ast.stmt], list[str]]:
    """``func``'s definition (dedented), the statements of its body after its docstring, and
    its source lines with the comments removed."""
    text = textwrap.dedent(inspect.getsource(func))
    node = ast.parse(text).body[0]
    if not isinstance(node, ast.FunctionDef) or node.decorator_list:
        raise ValueError(
            f"func: expected a plain function definition, got {func.__qualname__}"
        )
    body = node.body
    if (
        len(body) > 1
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    lines = text.splitlines()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            lines[row - 1] = lines[row - 1][:col].rstrip()
    return node, body, lines


def source_of(func) -> str:
    """``func``'s definition as pasted into an otter test: its signature on one line (otter
    reads a line that starts at column 0 as a new statement), its body as written, without
    its docstring (an otter test must print nothing, and a bare string is an expression), its
    comments and blank lines.  Pasted because the autograder has the book's package, not
    ``booktools``."""
    node, body, lines = _definition(func)
    signature = copy.copy(node)
    signature.body = [ast.Pass()]
    header = ast.unparse(signature).splitlines()[0]
    kept = [
        line for line in lines[body[0].lineno - 1 : node.end_lineno] if line.strip()
    ]
    if not all(line[0].isspace() for line in kept):
        raise ValueError(
            f"func: {func.__qualname__}'s body has a line at column 0 (a multi-line "
            "string?), which otter would read as a new statement"
        )
    return "\n".join([header] + kept)


def cell_of(func) -> str:
    """The notebook cell that the body of ``func`` holds (a student's cell, written as a
    function so that ruff reads it): the body without its docstring, its comments, and its
    last statement, a ``return`` of the names the cell defines."""
    node, body, lines = _definition(func)
    if len(body) < 2 or not isinstance(body[-1], ast.Return):
        raise ValueError(
            f"func: expected a body that ends with a return of the cell's names, in "
            f"{func.__qualname__}"
        )
    kept = [line for line in lines[body[0].lineno - 1 : body[-1].lineno - 1]]
    return textwrap.dedent("\n".join(kept)).strip() + "\n"


def _read_globals(func: ast.FunctionDef) -> list[str]:
    """The names ``func`` reads without binding them anywhere inside (its globals), in the
    order they first appear."""
    bound = set()
    for node in ast.walk(func):
        if isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node is not func:
            bound.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    read = [
        n.id
        for n in ast.walk(func)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in bound
    ]
    return list(dict.fromkeys(read))


def _helpers(func, found: dict) -> dict:
    """The functions of this package that ``func`` calls, and theirs, in an order where each
    comes after those it calls (``found``: name -> function, filled in place)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(func))).body[0]
    for name in _read_globals(tree):
        if hasattr(builtins, name) or name in found:
            continue
        value = func.__globals__.get(name)
        if inspect.isfunction(value) and value.__module__.startswith(__package__ + "."):
            _helpers(value, found)
            found[name] = value
        else:
            raise ValueError(
                f"test {func.__name__}: reads the global name {name!r}, which the "
                "student's notebook may not hold: make it a parameter (a name of the "
                "notebook) or, for a module, load it inside the function"
            )
    return found


def test_source(test) -> str:
    """The otter test that runs the test function ``test`` in the student's notebook: the
    functions of this package that it calls (:func:`source_of`), ``test`` itself, and its
    call with the notebook's names that its parameters name (:data:`NOTEBOOK`: the namespace,
    ``globals()``)."""
    params = inspect.signature(test).parameters.values()
    odd = [
        p.name
        for p in params
        if p.kind != p.POSITIONAL_OR_KEYWORD or p.default is not p.empty
    ]
    if odd:
        raise ValueError(
            f"test {test.__name__}: expected parameters that name the notebook's names, "
            f"without defaults, got {odd}"
        )
    helpers = _helpers(test, {})
    args = [p.name for p in params]
    pasted = [*helpers, test.__name__]
    clash = sorted(set(pasted) & set(args))
    if clash:
        raise ValueError(
            f"test {test.__name__}: its parameters {clash} are also functions it pastes; "
            "rename the function"
        )
    call = ", ".join("globals()" if a == NOTEBOOK else a for a in args)
    return "\n".join(
        [source_of(f) for f in helpers.values()]
        + [source_of(test), f"{test.__name__}({call})"]
    )


# ---------------------------------------------------------------- helpers pasted into tests
def bpe_merges_problem(
    word_counts: dict[str, int],
    merges: list[tuple[str, str]],
    end_of_word: str = "</w>",
) -> str:
    """Why ``merges`` is not a valid BPE run on ``word_counts``, or ``""`` if it is.

    Valid: every merge is, at its step, a most frequent adjacent pair (any tie-break is
    accepted), and after the last one every word is a single token.  Counted here from scratch,
    independently of :func:`formulated.tokenizers.learn_bpe`.
    """
    words = {tuple(w[:-1]) + (w[-1] + end_of_word,): c for w, c in word_counts.items()}
    for step, pair in enumerate(merges, 1):
        counts = {}  # (a, b) -> count; no annotation: otter assign cannot parse one in a test
        for symbols, c in words.items():
            for a, b in zip(symbols, symbols[1:]):
                counts[(a, b)] = counts.get((a, b), 0) + c
        pair = tuple(pair)
        if not counts or counts.get(pair, 0) < max(counts.values()):
            return (
                f"merge {step} {pair}: occurs {counts.get(pair, 0)} times, but the most "
                f"frequent pair occurs {max(counts.values(), default=0)} times"
            )
        merged = {}
        for symbols, c in words.items():
            out, i = [], 0
            while i < len(symbols):
                if tuple(symbols[i : i + 2]) == pair:
                    out.append(pair[0] + pair[1])
                    i += 2
                else:
                    out.append(symbols[i])
                    i += 1
            merged[tuple(out)] = c
        words = merged
    left = [" ".join(w) for w in words if len(w) > 1]
    return f"after the merges, words still in pieces: {left}" if left else ""


def calls_behind(names, env):
    """The calls that the notebook's definitions of ``names`` make, as ``(dotted name, module)``
    pairs (``('@', '')`` for a matrix product), read from the cells the kernel ran.

    The definition of a name is the last top-level statement, over the cells in ``env['In']``
    (IPython's input history, which otter's grading kernel has), that assigns it (``=``, a
    loop, ``def``, ``import``); the names that statement reads are followed in turn, so a value
    computed in a helper variable or function is traced too.  The module is where the root of
    the dotted name lives in ``env`` (``numpy`` for ``np.exp`` or an array's method, ``builtins``
    for ``sum``).  Without ``In`` (a plain Python run) nothing can be read: no calls.
    """
    import ast
    import builtins
    import types

    statements = []
    for cell in env.get("In") or []:
        try:
            statements += ast.parse(str(cell)).body
        except SyntaxError:  # a magic or a shell line
            pass

    def assigned(stmt):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return {stmt.name}
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            return {(a.asname or a.name).split(".")[0] for a in stmt.names}
        return {
            n.id
            for n in ast.walk(stmt)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }

    def dotted(func):
        parts = []
        while isinstance(func, ast.Attribute):
            parts.append(func.attr)
            func = func.value
        parts.append(func.id if isinstance(func, ast.Name) else "?")
        return ".".join(reversed(parts))

    def module(name):
        root = name.split(".")[0]
        obj = env.get(root, getattr(builtins, root, None))
        if obj is None:
            return ""
        if isinstance(obj, types.ModuleType):
            return obj.__name__
        return getattr(obj, "__module__", None) or type(obj).__module__ or ""

    todo, seen, found = list(names), set(), []
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        stmt = next((s for s in reversed(statements) if name in assigned(s)), None)
        if stmt is None:
            continue
        # names bound inside the statement (loop and comprehension variables, a function's
        # arguments and locals) are its own, not the notebook's
        # (two short statements: this source is pasted into tests that answer keys print)
        local = {a.arg for a in ast.walk(stmt) if isinstance(a, ast.arg)}
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                local.add(n.id)
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if node.id not in local:
                    todo.append(node.id)
            elif isinstance(node, ast.Call):
                found.append((dotted(node.func), module(dotted(node.func))))
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
                found.append(("@", ""))
    return found


# ---------------------------------------------------------------- helpers of fairness answers
def float32(x):
    """``x`` as a float32 array: a correct answer computed in single precision."""
    return np.asarray(x, dtype=np.float32)


def count_answers(right: int, wrong1: int, wrong2: int, name: str):
    """The fairness answers of an exercise whose answer is the count ``name``: ``right``, the
    same as a NumPy integer, and two wrong counts."""
    return {}, {
        "float64": {name: right},
        "float32": {name: np.int64(right)},
        "mistake 1": {name: wrong1},
        "mistake 2": {name: wrong2},
    }
