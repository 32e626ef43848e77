"""A translated figure label as the content of an SVG ``<text>``, its math included.

matplotlib draws a label such as ``row standard deviation $\\sigma$`` as glyphs; the Korean
figure (:func:`booktools.sphinx.i18n.translate_svg`) replaces them by a ``<text>`` whose words
come from the outputs catalogue and whose math spans are kept from the English
(:func:`booktools.i18n.outputs.output_template` holds each as a value).  A browser cannot
typeset TeX inside an SVG, so :func:`svg_label` writes each math span the way a printed
formula reads in running text: Unicode symbols (σ, √, ‖, −), Latin letters in italics,
exponents and indices as raised or lowered smaller text (``<tspan dy=…>``), ``\\sqrt{a+b}``
as ``√(a+b)`` and ``\\frac{a}{b}`` as ``a/b``.

Only the TeX that figure labels use is understood (:data:`SYMBOLS`, :data:`FUNCTIONS`,
:data:`FONTS`, :data:`SPACES`, ``\\sqrt``, ``\\frac``, ``^``, ``_``); any other command is
refused with an error naming it, so a new label cannot pass with its TeX shown raw.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from booktools import myst

__all__ = [
    "SYMBOLS",
    "FUNCTIONS",
    "FONTS",
    "SPACES",
    "Run",
    "math_runs",
    "math_text",
    "svg_label",
]

_GREEK = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi "
    "rho sigma tau upsilon phi chi psi omega"
).split()
#: The capitals TeX has a command for (the others are Latin letters: A, B, E, …).
_CAPITALS = "Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega".split()
#: A command that is one symbol -> its character (the Greek letters, capitals too).
SYMBOLS: dict[str, str] = {
    # in Unicode the Greek alphabets run from alpha and Alpha, with one code (final
    # sigma, and a gap among the capitals) before sigma
    **{name: chr(0x3B1 + i + (i > 16)) for i, name in enumerate(_GREEK)},
    **{
        name.capitalize(): chr(0x391 + i + (i > 16))
        for i, name in enumerate(_GREEK)
        if name.capitalize() in _CAPITALS
    },
    "varepsilon": "ε",
    "vartheta": "ϑ",
    "varphi": "φ",
    "partial": "∂",
    "nabla": "∇",
    "infty": "∞",
    "sum": "Σ",
    "prod": "Π",
    "cdot": "·",
    "times": "×",
    "pm": "±",
    "leq": "≤",
    "le": "≤",
    "geq": "≥",
    "ge": "≥",
    "neq": "≠",
    "ne": "≠",
    "approx": "≈",
    "sim": "∼",
    "to": "→",
    "rightarrow": "→",
    "leftarrow": "←",
    "mapsto": "↦",
    "in": "∈",
    "odot": "⊙",
    "ldots": "…",
    "cdots": "⋯",
    "|": "‖",
    "{": "{",
    "}": "}",
    "%": "%",
    "_": "_",
    "#": "#",
    "&": "&",
}
#: Operators written upright as their name (``\\log x`` -> log x).
FUNCTIONS = frozenset(
    "log ln exp max min sin cos tan tanh sinh cosh arg argmax argmin det softmax".split()
)
#: Font commands: their argument as it is, upright (``\\mathrm``, …) or in italics.
FONTS = {
    "mathdefault": False,
    "mathrm": False,
    "text": False,
    "textrm": False,
    "operatorname": False,
    "mathbf": False,
    "bm": True,
    "boldsymbol": True,
    "mathit": True,
}
#: Spacing commands and sizing ones that only stretch a delimiter -> what they leave.
SPACES = {
    ",": "\u2009",
    ":": "\u2009",
    ";": " ",
    "!": "",
    " ": " ",
    "quad": " ",
    "qquad": "  ",
    "left": "",
    "right": "",
    "big": "",
    "Big": "",
    "bigl": "",
    "bigr": "",
}
#: Relations and binary operators set with a space on each side (not in an index, and a
#: minus that begins a group or follows another operator is a sign: ``10^{-5}``, ``(-1)``).
_SPACED = frozenset("=+−<>≤≥≠≈∼→←↦∈×±·⊙")
_TOKEN = re.compile(r"\\([A-Za-z]+|.)|(.)", re.S)


@dataclass(frozen=True)
class Run:
    """A piece of a formula in one style: ``level`` 0 on the baseline, 1 raised (exponent),
    -1 lowered (index); ``italic`` for a Latin letter of the math."""

    text: str
    level: int = 0
    italic: bool = False


class _Parser:
    def __init__(self, tex: str) -> None:
        self.tex = tex
        self.tokens = [
            ("cmd", m[1]) if m[1] is not None else ("chr", m[2])
            for m in _TOKEN.finditer(tex)
        ]
        self.pos = 0

    def error(self, what: str) -> ValueError:
        return ValueError(f"math: {what} in {self.tex!r}")

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise self.error("unexpected end")
        self.pos += 1
        return token

    def group(self, level: int, italic: bool = True) -> list[Run]:
        """Items up to the closing ``}`` of the group (or the end)."""
        runs: list[Run] = []
        while (token := self.peek()) is not None and token != ("chr", "}"):
            runs += self.item(level, italic, runs)
        return runs

    def argument(self, level: int, italic: bool = True) -> list[Run]:
        """A command's or a script's argument: a ``{…}`` group or one item."""
        if self.peek() == ("chr", "{"):
            self.take()
            runs = self.group(level, italic)
            if self.peek() is None:
                raise self.error("a '{' without its '}'")
            self.take()
            return runs
        return self.item(level, italic, [])

    def item(self, level: int, italic: bool, before: list[Run]) -> list[Run]:
        kind, value = self.take()
        if kind == "chr":
            if value in "^_":
                # an index's own index stays at the index's level
                inner = level or (1 if value == "^" else -1)
                return self.argument(inner, italic)
            if value == "{":
                self.pos -= 1
                return self.argument(level, italic)
            if value == "}":
                raise self.error("a '}' without its '{'")
            if value.isspace():
                return []
            if value == "-":
                value = "−"
            if value == "'":
                value = "′"
            if value in _SPACED:
                sign = not before or before[-1].text.endswith(("(", "[", " ", "−"))
                if level or (value == "−" and sign):
                    return [Run(value, level)]
                return [Run(f" {value} ", level)]
            letter = value.isascii() and value.isalpha()
            return [Run(value, level, italic and letter)]
        if value in SYMBOLS:
            symbol = SYMBOLS[value]
            if symbol in _SPACED and not level:
                return [Run(f" {symbol} ", level)]
            return [Run(symbol, level)]
        if value in SPACES:
            return [Run(SPACES[value], level)] if SPACES[value] else []
        if value in FUNCTIONS:
            return [Run(value, level)]
        if value in FONTS:
            return self.argument(level, FONTS[value])
        if value == "sqrt":
            inner = self.argument(level, italic)
            if len("".join(r.text for r in inner)) == 1 and len(inner) == 1:
                return [Run("√", level), *inner]
            return [Run("√(", level), *inner, Run(")", level)]
        if value == "frac":
            top, bottom = self.argument(level, italic), self.argument(level, italic)

            def wrapped(runs: list[Run]) -> list[Run]:
                if len("".join(r.text for r in runs).strip()) == 1:
                    return runs
                return [Run("(", level), *runs, Run(")", level)]

            return [*wrapped(top), Run("/", level), *wrapped(bottom)]
        raise self.error(f"no SVG text for \\{value}")


def math_runs(tex: str) -> list[Run]:
    """The runs of one formula (the TeX inside ``$…$``), neighbors of one style merged."""
    parser = _Parser(tex)
    runs = parser.group(0)
    if parser.peek() is not None:
        raise parser.error("a '}' without its '{'")
    merged: list[Run] = []
    for run in runs:
        if merged and (merged[-1].level, merged[-1].italic) == (run.level, run.italic):
            merged[-1] = Run(merged[-1].text + run.text, run.level, run.italic)
        elif run.text:
            merged.append(run)
    return merged


def math_text(tex: str) -> str:
    """A formula as plain text (its raised and lowered runs inline): ``x_{l-1}`` -> xl−1;
    what a reader of the figure sees, without the positions."""
    return "".join(run.text for run in math_runs(tex))


#: Raised and lowered runs: their size and how far they move, in units of the font size.
_SCRIPT_SIZE = 0.7
_SHIFT = {1: -0.4, -1: 0.2, 0: 0.0}


def svg_label(label: str, size: float) -> str:
    """``label`` (words and ``$…$`` math spans) as the content of a ``<text>`` whose font
    size is ``size`` pixels: words escaped, each formula in runs (:func:`math_runs`), a
    raised or lowered run as a ``<tspan>`` moved by ``dy`` and the next run moved back."""
    if size <= 0:
        raise ValueError(f"size: expected a font size above 0 pixels, got {size!r}")
    runs: list[Run] = []
    end = 0
    for m in myst.MATH.finditer(label):
        runs.append(Run(label[end : m.start()]))
        runs += math_runs(m[0].strip("$"))
        end = m.end()
    runs.append(Run(label[end:]))
    out, offset = [], 0.0
    for run in runs:
        if not run.text:
            continue
        text = html.escape(run.text, quote=False)
        target = _SHIFT[max(-1, min(1, run.level))] * size
        attrs = ""
        if target != offset:
            attrs += f' dy="{target - offset:.3g}"'
            offset = target
        if run.level:
            attrs += f' font-size="{size * _SCRIPT_SIZE:.3g}"'
        if run.italic:
            attrs += ' font-style="italic"'
        out.append(f"<tspan{attrs}>{text}</tspan>" if attrs else text)
    return "".join(out)
