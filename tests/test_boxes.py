"""Every source box reads as its definition: what it shows is mostly computation.

A chapter's ``{formulated-source}`` box shows an object under its definition
(booktools/sphinx/source.py): the signature, one line of what and shapes (the docstring's
first line, which is its whole first paragraph: a one-line summary) and the computation, as
the file has them (:func:`booktools.sphinx.source.shown_source`).  Validation lives in the
checker: the ``@checked(...)`` line is not shown (the sentence under the box names the
checker); the rest of the docstring is ``help()``'s and the API appendix's.  These tests
measure every line the box *shows*.

**The measure.**  Each non-blank line a box shows is one of (blank lines are not counted):

- a **decorator** line (``@checked(_attention_args)``, ``@torch.no_grad()``,
  ``@property``), of the object or of anything defined inside it;
- a **signature** line: a ``def`` or ``class`` header, from its keyword to its colon, of the
  object and of every method or inner function;
- a **docstring** line: the object's one-line summary (and a docstring that is a whole
  body, which no box has);
- a **comment** line (a line holding nothing but a comment);
- a **code** line, sorted by :func:`measure` (below) into check, delegation and computation.

The share of a box set is its computation lines over all its non-blank shown lines, every
object counted once however many chapters show it (:func:`breakdown`).  The rules:

- all boxes together: computation is at least two thirds of the shown lines
  (:data:`MIN_SHARE`).  Per box that cannot hold for a one-line formula (``return
  np.diag(x)`` under its decorator and signature is a third): the aggregate is the share a
  reader meets;
- every box: no signature takes more than two lines (:data:`MAX_SIGNATURE`), so a boxed
  function carries no type annotations where they would wrap it (its docstring gives the
  shapes);
- every box: at least two thirds of its *code* lines are computation;
- every box shows exactly one docstring line when its object has a docstring (none when it
  has none): the docstring's first line, which must be its whole first paragraph (the next
  line blank), a sentence (ending in a full stop) that fits :data:`WIDTH` columns once
  closed with its quotes.  That line is also the API appendix's summary (appendix E shows
  the first paragraph).  No "Checked by" line: the sentence under the box says it, once;
- every box: no ``@checked(...)`` line; the only decorators shown are those that change
  what the code means (:data:`MEANING_DECORATORS`: ``@torch.no_grad()``, ``@dataclass``,
  ``@classmethod``, ``@property``, ``@staticmethod``).

The page should show the formula, not the guards around it, so argument checks live in a
checker attached with ``@checked(_attention_args)`` (``formulated/_checks.py``) or a helper
called once at the top.  :func:`measure` sorts the code lines of a box's source:

*Code lines* are the physical lines of the source that hold code, leaving out blank lines,
comment-only lines, docstrings, decorators and the signatures (``def`` / ``class`` headers, up
to the colon) of the object and of any method it defines.  Each code line is one of:

- **check**: part of argument validation.  That is a ``raise`` or ``assert`` statement; an
  ``if`` statement whose body ends in a ``raise`` and whose ``else`` (if any) is itself a check
  (the condition, the message building and the raise all count); a ``for`` loop or ``with``
  block whose body is all checks; a statement whose value is a call of a validator, or a tuple
  of such calls (``X = as_float_array(X, "X")``, ``n, kind = check_positive_int(n, "n"),
  _check_kind(kind)``).  A *validator* is a function whose name starts with ``check`` or
  ``_check`` (``_checked_qkv`` too) or ends with ``_args`` (the package's name for the
  checker of a function's arguments, as in ``@checked(_attention_args)``), or that
  ``formulated._checks`` defines (``as_float_array``, ``as_token_ids``, ...).
- **delegation**: a ``return`` of one call of a private function (``return _softmax(X, axis,
  "X")``).  The formula then lives elsewhere and the box does not show it; it is counted as
  neither computation nor check, so it lowers the computation share.
- **computation**: every other code line.

Each rule is first shown to fail on a planted bad box (a guarded function, a signature of
three lines, boxes whose overhead outweighs their formulas, a box without its summary, with
its whole docstring, with a summary that wraps or runs past the margin, with its
``@checked`` line).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import io
import textwrap
import tokenize
from dataclasses import dataclass

import pytest
from _chapters import ROOT, source_directives

from booktools.sphinx.source import (
    BLOCK,
    FOLD_OVER,
    WIDTH,
    folded,
    resolve,
    shown_lines,
    shown_source,
    shown_text,
    source_text,
)

#: The least share of computation lines: of all boxes' shown lines, and of each box's code.
MIN_SHARE = 2 / 3
#: The most lines a boxed signature (``def``/``class`` header) may take.
MAX_SIGNATURE = 2
#: The decorators a box may show: they change what the code means (``@checked(...)``
#: only validates the arguments, and lives in the checker).
MEANING_DECORATORS = frozenset(
    {"torch.no_grad()", "dataclass", "classmethod", "property", "staticmethod"}
)


def _validator_names() -> frozenset[str]:
    import formulated._checks as checks

    return frozenset(
        name
        for name, obj in vars(checks).items()
        if inspect.isfunction(obj) and obj.__module__ == checks.__name__
    )


VALIDATORS = _validator_names()


def is_validator(name: str) -> bool:
    """A function whose call is argument validation (see the module docstring)."""
    return (
        name.lstrip("_").startswith("check")
        or name.endswith("_args")
        or name in VALIDATORS
    )


@dataclass(frozen=True)
class Measure:
    """The code lines of a box's source, sorted (see the module docstring)."""

    code: int
    check: int
    delegation: int

    @property
    def computation(self) -> int:
        return self.code - self.check - self.delegation

    @property
    def share(self) -> float:
        return self.computation / self.code if self.code else 0.0


def _code_lines(source: str) -> set[int]:
    """The 1-based line numbers that hold a token other than a comment or a line end."""
    skip = {
        tokenize.COMMENT,
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.ENDMARKER,
        tokenize.ENCODING,
    }
    lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in skip:
            lines.update(range(tok.start[0], tok.end[0] + 1))
    return lines


def _span(node: ast.AST) -> set[int]:
    return set(range(node.lineno, node.end_lineno + 1))


def _called_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Name):
            return f.id
        if isinstance(f, ast.Attribute):
            return f.attr
    return None


def _is_validation_call(value: ast.AST | None) -> bool:
    if isinstance(value, ast.Tuple) and value.elts:
        return all(_is_validation_call(v) for v in value.elts)
    name = _called_name(value) if value is not None else None
    return name is not None and is_validator(name)


def _is_check(stmt: ast.stmt) -> bool:
    """Whether ``stmt`` (with everything inside it) is argument validation."""
    if isinstance(stmt, (ast.Raise, ast.Assert)):
        return True
    if isinstance(stmt, ast.If):
        return (
            bool(stmt.body)
            and isinstance(stmt.body[-1], ast.Raise)
            and all(_is_check(s) for s in stmt.orelse)
        )
    if isinstance(stmt, (ast.For, ast.With)):
        return not getattr(stmt, "orelse", []) and all(_is_check(s) for s in stmt.body)
    if isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign)):
        return _is_validation_call(stmt.value)
    return False


def _is_delegation(stmt: ast.stmt) -> bool:
    name = _called_name(stmt.value) if isinstance(stmt, ast.Return) else None
    return name is not None and name.startswith("_") and not is_validator(name)


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def summary_problems(shown: str, source: str) -> list[str]:
    """What breaks the summary and decorator rules (see the module docstring) in a box
    that shows ``shown`` for the object whose source is ``source``."""
    shown, source = textwrap.dedent(shown), textwrap.dedent(source)
    problems = []
    top = ast.parse(source).body[0]
    doc = top.body[0] if top.body and _is_docstring(top.body[0]) else None
    kinds = breakdown_of(shown)
    if kinds.docstring != (doc is not None):
        problems.append(
            f"shows {kinds.docstring} docstring lines, expected {int(doc is not None)}"
        )
    if doc is not None:
        paragraph = ast.get_docstring(top).split("\n\n")[0]
        if "\n" in paragraph:
            problems.append(
                "the docstring's first paragraph takes more than one line: make its "
                f"first line a one-line summary: {paragraph!r}"
            )
        elif not paragraph.rstrip().endswith("."):
            problems.append(f"the summary is not a sentence: {paragraph!r}")
        first = source.splitlines()[doc.lineno - 1].strip()
        rows = shown.splitlines()
        if kinds.docstring == 1 and not any(r.strip().startswith(first) for r in rows):
            problems.append(
                f"the box does not show the docstring's first line {first!r}"
            )
    for node in _defs(ast.parse(shown)):
        for d in node.decorator_list:
            text = ast.unparse(d)
            if text not in MEANING_DECORATORS:
                problems.append(f"shows the decorator @{text}")
    problems += [f"over {WIDTH} columns: {line}" for line in long_lines(shown)]
    return problems


def long_lines(text: str) -> list[str]:
    """The lines of ``text`` longer than :data:`WIDTH` columns."""
    return [line for line in text.splitlines() if len(line) > WIDTH]


def _defs(tree: ast.AST) -> list[ast.AST]:
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    ]


def _header_end(lines: list[str], node: ast.AST) -> int:
    """The 1-based line of the colon that ends ``node``'s ``def``/``class`` header."""
    text = "\n".join(lines[node.lineno - 1 :]) + "\n"
    depth = 0
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in ")]}":
            depth -= 1
        elif tok.type == tokenize.OP and tok.string == ":" and depth == 0:
            return node.lineno + tok.start[0] - 1
    raise ValueError(f"no colon ends the header at line {node.lineno}")


def signatures(text: str) -> list[tuple[str, int]]:
    """(name, lines) of every ``def``/``class`` header in ``text``: the object's and those
    of the methods and functions inside it."""
    text = textwrap.dedent(text)
    lines = text.splitlines()
    return [
        (node.name, _header_end(lines, node) - node.lineno + 1)
        for node in _defs(ast.parse(text))
    ]


def long_signatures(texts: dict[str, str]) -> dict[str, list[tuple[str, int]]]:
    """The boxes (name -> shown text) with a signature over :data:`MAX_SIGNATURE` lines."""
    found = {
        name: [(d, n) for d, n in signatures(text) if n > MAX_SIGNATURE]
        for name, text in texts.items()
    }
    return {name: sigs for name, sigs in found.items() if sigs}


@dataclass(frozen=True)
class Breakdown:
    """The non-blank lines a box set shows, by kind (see the module docstring)."""

    decorator: int
    signature: int
    docstring: int
    comment: int
    check: int
    delegation: int
    computation: int

    @property
    def lines(self) -> int:
        return (
            self.decorator
            + self.signature
            + self.docstring
            + self.comment
            + self.check
            + self.delegation
            + self.computation
        )

    @property
    def share(self) -> float:
        """Computation over every non-blank shown line."""
        return self.computation / self.lines if self.lines else 0.0

    def __add__(self, other: Breakdown) -> Breakdown:
        return Breakdown(*(getattr(self, f) + getattr(other, f) for f in FIELDS))


FIELDS = (
    "decorator",
    "signature",
    "docstring",
    "comment",
    "check",
    "delegation",
    "computation",
)


def breakdown_of(text: str) -> Breakdown:
    """The kinds of the non-blank lines of one box's shown ``text``."""
    text = textwrap.dedent(text)
    lines = text.splitlines()
    tree = ast.parse(text)
    decorator: set[int] = set()
    signature: set[int] = set()
    docstring: set[int] = set()
    for node in _defs(tree):
        for d in node.decorator_list:
            decorator.update(_span(d))
        signature.update(range(node.lineno, _header_end(lines, node) + 1))
        if node.body and _is_docstring(node.body[0]):
            docstring.update(_span(node.body[0]))
    code = _code_lines(text) - decorator - signature - docstring
    comment = {
        i for i, line in enumerate(lines, 1) if line.strip().startswith("#")
    } - docstring
    m = measure(text)
    assert m.code == len(code), (m, len(code))  # both ways of sorting agree
    return Breakdown(
        len(decorator & _code_lines(text)),
        len(signature & _code_lines(text)),
        len(docstring),
        len(comment),
        m.check,
        m.delegation,
        m.computation,
    )


def breakdown(texts: list[str]) -> Breakdown:
    """The kinds of the non-blank lines of all ``texts`` together."""
    return sum((breakdown_of(t) for t in texts), Breakdown(*[0] * len(FIELDS)))


def measure(source: str) -> Measure:
    """Sort the code lines of ``source`` (a function's or a class's) into check, delegation
    and computation lines."""
    source = textwrap.dedent(source)
    code = _code_lines(source)
    check: set[int] = set()
    delegation: set[int] = set()

    def visit(body: list[ast.stmt]) -> None:
        for stmt in body:
            if _is_docstring(stmt):
                code.difference_update(_span(stmt))
            elif isinstance(
                stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            ):
                # decorators and the header, up to the line before the body's first statement
                first = min([d.lineno for d in stmt.decorator_list] + [stmt.lineno])
                code.difference_update(range(first, stmt.body[0].lineno))
                visit(stmt.body)
            elif _is_check(stmt):
                check.update(_span(stmt))
            elif _is_delegation(stmt):
                delegation.update(_span(stmt))
            else:
                for field in ("body", "orelse", "finalbody"):
                    visit(getattr(stmt, field, []))
                for handler in getattr(stmt, "handlers", []):
                    visit(handler.body)

    visit(ast.parse(source).body)
    return Measure(len(code), len(check & code), len(delegation & code))


# --------------------------------------------------------------------------------------
# The measure itself, on inline examples (so that the rule is seen to fail a guarded box)

GUARDED = '''
def attention(Q, K, V):
    """Docstring lines do not count."""
    Q = as_float_array(Q, "Q")
    K = as_float_array(K, "K")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"K: expected the width of Q, "
                         f"got {K.shape}")
    for name, arr in (("Q", Q), ("K", K)):
        if arr.ndim < 2:
            raise ValueError(name)
    # a comment does not count
    scores = Q @ K.T / math.sqrt(Q.shape[-1])
    return softmax(scores) @ V
'''

CLEAN = '''
def attention(Q, K, V):
    """Docstring."""
    Q, K, V = _checked_qkv(Q, K, V)  # the checks: _checked_qkv
    scores = Q @ K.T / math.sqrt(Q.shape[-1])  # (n, m)
    return softmax(scores) @ V
'''


def test_measure_counts_guards_as_checks():
    m = measure(GUARDED)
    # code: 2 conversions, if (3 lines), for (3 lines), 2 computation lines = 10
    assert (m.code, m.check, m.delegation, m.computation) == (10, 8, 0, 2)
    assert m.share < MIN_SHARE


def test_measure_passes_a_box_with_one_check_call():
    m = measure(CLEAN)
    assert (m.code, m.check, m.computation) == (3, 1, 2)
    assert m.share >= MIN_SHARE


def test_measure_counts_a_delegation_as_no_computation():
    m = measure(
        'def softmax(X, axis=-1):\n    """Doc."""\n    return _softmax(X, axis, "X")\n'
    )
    assert (m.code, m.delegation, m.computation) == (1, 1, 0)
    assert m.share < MIN_SHARE


def test_measure_keeps_a_branch_of_the_formula_as_computation():
    src = """
def gelu(x, approximation="erf"):
    if approximation == "erf":
        return x * (1 + erf(x / sqrt(2))) / 2
    return x * sigmoid(1.702 * x)
"""
    assert measure(src) == Measure(3, 0, 0)


def test_measure_leaves_out_method_signatures_and_docstrings():
    src = '''
class Tok:
    """Doc."""

    def __init__(self, text: str,
                 n: int) -> None:
        """Doc."""
        check_text(text, "text")
        self.text = text

    @property
    def size(self) -> int:
        return len(self.text)
'''
    assert measure(src) == Measure(3, 1, 0)


def test_breakdown_sorts_every_shown_line():
    src = """
@checked(_f_args)
@torch.no_grad()
def f(
    x, y
):
    \"\"\"One.

    Two.
    \"\"\"
    # a comment
    x = check_x(x)

    def g(z):  # inner
        return z + 1

    return _h(g(x), y)
"""
    b = breakdown_of(src)
    assert b == Breakdown(
        decorator=2,
        signature=4,
        docstring=4,
        comment=1,
        check=1,
        delegation=1,
        computation=1,
    )
    assert b.lines == 14 and b.share == 1 / 14


#: A box as it was before boxed signatures lost their annotations (attention, 2026-11).
LONG_SIGNATURE = """
@checked(_attention_args)
def attention(
    Q: Any,
    K: Any,
    V: Any,
    mask: Any = None,
    scale: bool | float = True,
    kind: str = "additive",
) -> np.ndarray:
    scores = Q @ np.swapaxes(K, -1, -2) * scale  # (..., n, m)
    weights = softmax(scores) if mask is None else masked_softmax(scores, mask, kind)
    return weights @ V  # (..., n, D_v)
"""


def test_a_planted_long_signature_is_found():
    short = (
        "def attention(Q, K, V, mask=None, scale=None, kind='additive'):\n    pass\n"
    )
    two = "def f(\n    x):\n    pass\n"  # two lines: allowed
    method = "class C:\n    def m(\n        self,\n        x,\n    ):\n        pass\n"
    assert signatures(LONG_SIGNATURE) == [("attention", 8)]
    assert signatures(method) == [("C", 1), ("m", 4)]
    assert long_signatures({"long": LONG_SIGNATURE, "short": short, "two": two}) == {
        "long": [("attention", 8)]
    }
    assert long_signatures({"method": method}) == {"method": [("m", 4)]}


def test_planted_boxes_of_overhead_fail_the_share():
    # the planted long signature and a one-line formula under a decorator, a signature and
    # a docstring: 4 computation lines of 16
    tiny = '@checked(_diag_args)\ndef diag(x):\n    """Diagonal."""\n    return np.diag(x)\n'
    b = breakdown([LONG_SIGNATURE, tiny])
    assert (b.computation, b.lines) == (4, 16)
    assert b.share < MIN_SHARE


#: A formula as the file has it: its checker's decorator and a docstring of three
#: paragraphs, the first one line.
FORMULA = '''
@checked(_diag_args)
def diag(x):
    """Diagonal matrix ``diag(x)[i, i] = x[i]``, 0 elsewhere: ``(n,) -> (n, n)``.

    Off the diagonal every entry is 0.

    Definition: def-07-diag.
    Checked by: tests/test_formulas.py::test_diag_matches_torch
    """
    return np.diag(x)
'''


def test_shown_text_keeps_the_summary_and_drops_the_checker_line():
    shown = shown_text(FORMULA.strip())
    assert shown.splitlines() == [
        "def diag(x):",
        '    """Diagonal matrix ``diag(x)[i, i] = x[i]``, 0 elsewhere: '
        '``(n,) -> (n, n)``."""',
        "    return np.diag(x)",
    ]
    assert summary_problems(shown, FORMULA) == []
    b = breakdown_of(shown)
    assert (b.decorator, b.signature, b.docstring, b.computation) == (0, 1, 1, 1)
    # a decorator that changes what the code means stays; an inner docstring goes
    kept = shown_text(
        '@torch.no_grad()\ndef f(x):\n    """F."""\n\n    def g(y):\n        """G.\n\n'
        '        More."""\n        return y\n\n    return g(x)'
    )
    assert kept.splitlines()[:3] == ["@torch.no_grad()", "def f(x):", '    """F."""']
    assert '"""G.' not in kept and summary_problems(kept, kept) == []


def test_planted_bad_summaries_are_found():
    def problems(shown, source=FORMULA):
        return summary_problems(shown, source)

    good = shown_text(FORMULA.strip())
    # the box as it was: no docstring at all
    bare = "def diag(x):\n    return np.diag(x)\n"
    assert problems(bare) == ["shows 0 docstring lines, expected 1"]
    # the box as it was before: the whole docstring
    whole = FORMULA.replace("@checked(_diag_args)\n", "")
    assert problems(whole) == ["shows 7 docstring lines, expected 1"]
    # the checker's line
    assert problems("@checked(_diag_args)\n" + good) == [
        "shows the decorator @checked(_diag_args)"
    ]
    assert problems("@functools.cache\n" + good) == [
        "shows the decorator @functools.cache"
    ]
    # a summary that wraps: its box would show half a sentence
    wrapped = FORMULA.replace(
        "``(n,) -> (n, n)``.", "``(n,) -> (n, n)``,\n    a square matrix."
    )
    found = problems(shown_text(wrapped.strip()), wrapped)
    assert len(found) == 1 and "takes more than one line" in found[0]
    # a first line that is no sentence, and one past the margin
    colon = FORMULA.replace("``(n,) -> (n, n)``.", "``(n,) -> (n, n)``:")
    assert "not a sentence" in problems(shown_text(colon.strip()), colon)[0]
    wide = FORMULA.replace("Diagonal matrix", "The diagonal matrix of a vector")
    assert problems(shown_text(wide.strip()), wide)[0].startswith("over 88 columns")
    # a summary that is not the docstring's first line
    other = good.replace("Diagonal matrix", "Diagonal")
    assert "does not show the docstring's first line" in problems(other)[0]
    # an object without a docstring shows none
    assert problems(bare, bare) == []
    assert problems(good, bare) == ["shows 1 docstring lines, expected 0"]


# --------------------------------------------------------------------------------------
# Every box of the book

BOXES = sorted({name for _, name in source_directives()})


def shown_boxes() -> dict[str, str]:
    """Every boxed object, once, and the text its box shows."""
    return {name: shown_source(name) for name in BOXES}


def test_the_whole_source_fails_what_the_boxes_must_pass():
    # The boxes as they once were: the whole source, docstring and all.  Most lines were
    # docstring, and most boxes showed more docstring than computation.
    texts = [source_text(n) for n in BOXES]
    assert breakdown(texts).share < MIN_SHARE  # fails the bar the boxes pass
    assert sum("Checked by" in t for t in texts) > 60


def test_all_boxes_together_are_two_thirds_computation():
    b = breakdown(list(shown_boxes().values()))
    assert b.share >= MIN_SHARE, (
        f"computation is {b.computation} of the {b.lines} non-blank lines the boxes show "
        f"({b.share:.1%}); expected at least {MIN_SHARE:.0%}: {b}"
    )


def test_no_boxed_signature_takes_more_than_two_lines():
    long = long_signatures(shown_boxes())
    assert not long, (
        f"boxed signatures over {MAX_SIGNATURE} lines (drop the type annotations of a "
        f"boxed function, or shorten them): {long}"
    )


@pytest.mark.parametrize("name", BOXES)
def test_box_shows_signature_one_line_summary_and_computation(name):
    text = shown_source(name)
    assert not summary_problems(text, source_text(name)), (
        name,
        summary_problems(text, source_text(name)),
    )
    assert "Checked by" not in text and "Definition:" not in text, name
    assert (
        text.splitlines()[0].lstrip().startswith(("def ", "class ", "@", "async def "))
    )


def test_every_box_shows_exactly_one_summary_line():
    texts = shown_boxes()
    with_doc = [n for n in BOXES if inspect.getdoc(inspect.unwrap(resolve(n)))]
    assert len(with_doc) == len(BOXES)  # every boxed object has a docstring
    b = breakdown(list(texts.values()))
    assert b.docstring == len(BOXES), b
    assert not [n for n, t in texts.items() if "@checked" in t]


def test_only_long_boxes_are_folded():
    boxes = [
        m.group("names").split()
        for path in sorted((ROOT / "chapters").glob("*.md"))
        for m in BLOCK.finditer(path.read_text(encoding="utf-8"))
    ]
    sizes = {tuple(b): sum(shown_lines(shown_source(n)) for n in b) for b in boxes}
    assert all(
        folded([shown_source(n) for n in b]) == (sizes[tuple(b)] > FOLD_OVER)
        for b in boxes
    )
    # most definitions are taught with their box open
    assert sum(size <= FOLD_OVER for size in sizes.values()) > 0.85 * len(sizes)


@pytest.mark.parametrize("name", BOXES)
def test_box_is_mostly_computation(name):
    m = measure(shown_source(name))
    assert m.share >= MIN_SHARE, (
        f"{name}: {m.computation} of {m.code} code lines are computation "
        f"({m.share:.0%}; {m.check} check, {m.delegation} delegation); expected at least "
        f"{MIN_SHARE:.0%}: move the argument checks into a helper called once at the top"
    )


# --------------------------------------------------------------------------------------
# A box's title names the file that holds its code


def module_part(dotted: str) -> str:
    """The longest prefix of ``dotted`` that imports as a module
    (``formulated.models.trainable`` of ``formulated.models.trainable.GPT.forward``)."""
    parts = dotted.split(".")
    for end in range(len(parts) - 1, 0, -1):
        name = ".".join(parts[:end])
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name != name:
                raise
            continue
        return name
    raise ValueError(f"dotted: expected a path into a module, got {dotted!r}")


def defining_module(dotted: str) -> str:
    """The name of the module whose file holds the code of the object at ``dotted``."""
    return inspect.getmodule(inspect.unwrap(resolve(dotted))).__name__


def test_a_box_naming_a_face_is_found():
    # the package's face exports attention; its code is in formulas/heads.py
    planted = "formulated.formulas.attention"
    assert module_part(planted) == "formulated.formulas"
    assert defining_module(planted) == "formulated.formulas.heads"
    right = "formulated.formulas.heads.attention"
    assert module_part(right) == defining_module(right)
    method = "formulated.models.trainable.GPT.forward"
    assert module_part(method) == "formulated.models.trainable"
    assert defining_module(method) == "formulated.models.trainable"


def test_every_box_names_the_module_that_defines_its_code():
    wrong = {
        f"{chapter}: {name}": defining_module(name)
        for chapter, name in source_directives()
        if module_part(name) != defining_module(name)
    }
    assert not wrong, f"boxes titled by a module that does not hold the code: {wrong}"
