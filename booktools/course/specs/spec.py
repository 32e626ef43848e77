"""The grading record of one exercise (:class:`Spec`) and the helpers its tests paste in.

:mod:`booktools.exercises` documents the kinds and holds :data:`~booktools.exercises.SPECS`;
the specs themselves live in ``booktools/exercise_specs_*.py`` (one module per group of
chapters, none over 700 lines).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

__all__ = [
    "Spec",
    "auto",
    "written",
    "open_ended",
    "public_message",
    "bpe_merges_problem",
    "calls_behind",
    "source_of",
    "WRITTEN_PART_SUFFIX",
]

#: The otter question of an autograded exercise's written part is named ``<label>`` + this.
WRITTEN_PART_SUFFIX = "-written"


@dataclass(frozen=True)
class Spec:
    """Grading of one exercise (see :mod:`booktools.exercises`)."""

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


def _printed(node: ast.AST) -> list[ast.Expr]:
    """The expression statements that an interactive run (a doctest) would print: those
    outside function bodies, where a bare value is only returned."""
    if isinstance(node, ast.Expr):
        return [node]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return []
    return [e for child in ast.iter_child_nodes(node) for e in _printed(child)]


def auto(
    names: str,
    public: list[str],
    hidden: list[str],
    points: int = 2,
    checks: str = "shape and form only",
    written: str = "",
    written_points: int = 0,
) -> Spec:
    """An autograded exercise defining the space-separated ``names``; ``checks`` says what its
    public tests verify (shown to the student when they pass); ``written`` is the rubric of its
    written part, worth ``written_points`` (1 unless given)."""
    return Spec(
        "auto",
        points,
        tuple(names.split()),
        tuple(public),
        tuple(hidden),
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


def source_of(func) -> str:
    """``func``'s source without its docstring (an otter test must print nothing, and a bare
    string is an expression) nor comments, to be pasted into a test: the autograder has the
    book's package, not ``booktools``."""
    import inspect

    tree = ast.parse(inspect.getsource(func))
    body = tree.body[0].body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
    ):
        tree.body[0].body = body[1:]
    return ast.unparse(tree)
