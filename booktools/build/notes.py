"""Speaker notes: said, not read.

A slide's notes (``S`` in the deck) are text to say: their math is rendered as text
(:func:`spoken_math`: ``\\bm{Q}\\bm{K}^\\top`` -> ``QKᵀ``) and a sentence about the page, the
notebook or the autograder (:data:`PAGE_ONLY`) is left out (:func:`without_page_lines`,
:func:`spoken`); an exercise's prompt goes on a slide without the autograder's instructions
(:data:`GRADER`).  The notes written for slides (``<!-- notes … -->`` comments in a chapter,
:func:`written_notes`) have their Korean in ``locales/ko/slides/<docname>.po``
(:data:`NOTES_CATALOGUES`, :func:`notes_translations`), merged as ``make po`` merges the prose
(:func:`update_notes_catalogues`; ``python -m booktools slides --update-notes``).
"""

from __future__ import annotations

import re
from pathlib import Path

from booktools import myst
from booktools.build.lecture import NOTES, chapters, joined
from booktools.paths import LOCALES, ROOT

__all__ = [
    "GRADER",
    "PAGE_ONLY",
    "LEAD_IN",
    "EMPTY_BRACKETS",
    "NOTES_CATALOGUES",
    "spoken_math",
    "without_page_lines",
    "spoken",
    "written_notes",
    "notes_translations",
    "update_notes_catalogues",
]

#: The Korean of the notes written for slides (one catalogue per chapter, msgid the English).
NOTES_CATALOGUES = LOCALES / "ko" / "slides"

#: The autograder's instructions in an exercise's prompt ("Store … in `x`.", "Graded to 4
#: significant digits.", "Float32 is precise enough."), in either language: not on a slide.
GRADER = re.compile(
    r"^Store\b|Graded to|Float32 is precise enough|저장하라\.?$|채점한다\.?$|Float32로도",
    re.I,
)
#: Sentences that speak of the page, the notebook or the autograder, not of the subject:
#: left out of speaker notes (both languages).
PAGE_ONLY = re.compile(
    r"live kernel|the page\b|this page\b|\bon the page|\bbelow\b|\babove\b|\bwidget\b"
    r"|\bthe cell\b|\bcells?\b (?:above|below)|Checked against|^Store\b|Graded to"
    r"|Float32 is precise enough|tests/\w|\bas a notebook\b|\bthe book's tests\b"
    r"|라이브 커널|이 페이지|페이지는|아래|위의|위에서|위젯|셀은|셀이|셀로|저장하라|채점한다"
    r"|Float32로도|노트북으로 열면|책의 테스트",
    re.I,
)
#: A sentence that leads in to what the page shows next (a list, a formula, a table): at the
#: end of a note it announces what the note does not say ("you will be able to", "term by
#: term:"), and is left out.
LEAD_IN = re.compile(r"(?:[:,]|\bable to|다음을 할 수 있다\.?)$")


_GREEK = {
    name: chr(code)
    for name, code in {
        "alpha": 0x3B1, "beta": 0x3B2, "gamma": 0x3B3, "delta": 0x3B4, "epsilon": 0x3B5,
        "varepsilon": 0x3B5, "zeta": 0x3B6, "eta": 0x3B7, "theta": 0x3B8, "iota": 0x3B9,
        "kappa": 0x3BA, "lambda": 0x3BB, "mu": 0x3BC, "nu": 0x3BD, "xi": 0x3BE, "pi": 0x3C0,
        "rho": 0x3C1, "sigma": 0x3C3, "tau": 0x3C4, "phi": 0x3C6, "varphi": 0x3C6,
        "chi": 0x3C7, "psi": 0x3C8, "omega": 0x3C9, "Gamma": 0x393, "Delta": 0x394,
        "Theta": 0x398, "Lambda": 0x39B, "Pi": 0x3A0, "Sigma": 0x3A3, "Phi": 0x3A6,
        "Psi": 0x3A8, "Omega": 0x3A9,
    }.items()
}  # fmt: skip
_SYMBOLS = {
    "times": "×", "cdot": "·", "cdots": "⋯", "ldots": "…", "dots": "…", "le": "≤",
    "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠", "approx": "≈", "in": "∈",
    "to": "→", "rightarrow": "→", "mapsto": "↦", "infty": "∞", "sum": "Σ", "prod": "Π",
    "partial": "∂", "nabla": "∇", "odot": "⊙", "otimes": "⊗", "oplus": "⊕", "sim": "~",
    "propto": "∝", "pm": "±", "mid": "|", "lvert": "|", "rvert": "|", "lVert": "‖",
    "rVert": "‖", "|": "‖", "top": "ᵀ", "R": "ℝ", "ell": "ℓ", "circ": "∘", "star": "*",
    "equiv": "≡", "ll": "≪", "gg": "≫", "cup": "∪", "cap": "∩", "subset": "⊂",
    "langle": "⟨", "rangle": "⟩", "lfloor": "⌊", "rfloor": "⌋", "lceil": "⌈",
    "rceil": "⌉", "neg": "¬", "forall": "∀", "exists": "∃", "{": "{", "}": "}",
    "%": "%", "_": "_", "#": "#", "&": "&", "$": "$",
}  # fmt: skip
_SUB = str.maketrans(
    "0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"
)
_SUP = str.maketrans(
    "0123456789+-=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVW",
    "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂ",
)
_SPACING = re.compile(r"\\(?:,|;|:|!|quad|qquad| )|~")
_DROP = re.compile(
    r"\\(?:left|right|big|Big|bigg|Bigg|displaystyle|limits|nolimits)(?![a-zA-Z])"
)
_ONE_ARG = re.compile(
    r"\\(?:bm|boldsymbol|mathbf|mathrm|mathit|mathsf|mathtt|mathcal|mathbb|text|textrm"
    r"|textbf|textit|operatorname\*?|mbox)\s*\{(?P<arg>[^{}]*)\}"
)
_ACCENT = {
    "hat": "\u0302",
    "tilde": "\u0303",
    "bar": "\u0304",
    "vec": "\u20d7",
    "dot": "\u0307",
}


def _script(arg: str, table: dict[int, int], mark: str) -> str:
    """A sub- or superscript in Unicode where every character has one, else ``mark`` (a
    placeholder of ``^`` or ``_``) and the argument, in parentheses if longer than one."""
    if arg and all(ord(c) in table for c in arg):
        return arg.translate(table)
    return f"{mark}{arg}" if len(arg) == 1 else f"{mark}({arg})"


#: Placeholders while :func:`spoken_math` works: ``^``, ``_``, ``{``, ``}`` that stay.
_KEEP = {"\x00": "^", "\x01": "_", "\x02": "{", "\x03": "}"}


def spoken_math(tex: str) -> str:
    """TeX as plain text for speaker notes (which show no typeset math): letters, Unicode
    symbols and scripts (``\\bm{Q}\\bm{K}^\\top`` -> ``QKᵀ``, ``\\sqrt{D}`` -> ``√D``,
    ``\\frac{a}{b}`` -> ``a/b``), no backslash or brace left."""
    s = tex.replace("\\{", "\x02").replace("\\}", "\x03").replace("\\|", "‖")
    s = re.sub(r"\^\s*(?:\\top|\{\s*\\top\s*\}|\{T\})", "ᵀ", s)
    s = _SPACING.sub(" ", s)
    s = _DROP.sub("", s)
    s = re.sub(
        r"\\([a-zA-Z]+)(?![a-zA-Z])",
        lambda m: _GREEK.get(m[1], _SYMBOLS.get(m[1], m[0])),
        s,
    )
    for _ in range(8):  # innermost first, until nothing changes
        before = s
        s = _ONE_ARG.sub(
            lambda m: "ℝ" if m["arg"] == "R" and "mathbb" in m[0] else m["arg"], s
        )
        s = re.sub(  # an accent on one letter without braces: \hat y
            r"\\(hat|tilde|bar|vec|dot)\s+([A-Za-z])(?![A-Za-z])",
            lambda m: m[2] + _ACCENT[m[1]],
            s,
        )
        s = re.sub(
            r"\\(hat|tilde|bar|vec|dot)\s*\{([^{}]*)\}",
            lambda m: m[2] + _ACCENT[m[1]] if len(m[2]) == 1 else m[2],
            s,
        )
        s = re.sub(
            r"\\sqrt\s*\{([^{}]*)\}",
            lambda m: "√" + (m[1] if len(m[1].strip()) <= 1 else f"({m[1].strip()})"),
            s,
        )
        s = re.sub(
            r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}",
            lambda m: f"{_wrap(m[1])}/{_wrap(m[2])}",
            s,
        )
        s = re.sub(
            r"\^\s*\{([^{}]*)\}", lambda m: _script(m[1].strip(), _SUP, "\x00"), s
        )
        s = re.sub(
            r"_\s*\{([^{}]*)\}", lambda m: _script(m[1].strip(), _SUB, "\x01"), s
        )
        if s == before:
            break
    s = re.sub(r"\\([a-zA-Z]+)", lambda m: m[1], s)  # an operator's name: exp, log, ...
    s = re.sub(r"\\(.)", lambda m: _SYMBOLS.get(m[1], m[1]), s)
    s = re.sub(r"\^\s*([^\s\x00-\x03])", lambda m: _script(m[1], _SUP, "\x00"), s)
    s = re.sub(r"_\s*([A-Za-z0-9])", lambda m: _script(m[1], _SUB, "\x01"), s)
    s = s.replace("{", "").replace("}", "")
    for mark, char in _KEEP.items():
        s = s.replace(mark, char)
    return re.sub(r"\s+", " ", s).strip()


def _wrap(part: str) -> str:
    part = part.strip()
    return part if re.fullmatch(r"[\w\\√]+", part) else f"({part})"


def without_page_lines(text: str) -> str:
    """``text`` without its sentences about the page, the notebook or the autograder
    (:data:`PAGE_ONLY`), and without a last sentence that leads in to what the page shows
    next (:data:`LEAD_IN`)."""
    parts = [
        p
        for p in re.split(r"(?<=[.!?:])\s+", text.strip())
        if p and not PAGE_ONLY.search(p)
    ]
    while parts and LEAD_IN.search(parts[-1].strip()):
        parts.pop()
    return " ".join(parts)


#: Roles that point elsewhere: without a title of their own they name a label
#: (``def-13-gpt``), which is not said.
_REFERENCES = {"ref", "prf:ref", "numref", "eq", "doc"}
#: A bracket left empty once its reference is not said: "(def-13-gpt)" -> "()".
EMPTY_BRACKETS = re.compile(r"\s*\(\s*\)")


def _said_role(m: re.Match[str]) -> str:
    title, target = myst.explicit(m["text"])
    if title:
        return title
    return "" if m["name"] in _REFERENCES else target


def spoken(text: str) -> str:
    """A note as plain text to say: math rendered (:func:`spoken_math`), roles and emphasis
    marks left out, and no sentence about the page."""
    text = myst.MATH.sub(lambda m: spoken_math(m[0].strip("$")), joined(text))
    text = myst.ROLE.sub(_said_role, text)
    text = EMPTY_BRACKETS.sub("", text)
    text = re.sub(r"\*\*?([^*]+)\*\*?", r"\1", text)
    return without_page_lines(text)


def written_notes(text: str) -> list[str]:
    """Every note written for a slide of a chapter (``<!-- notes -->`` comments), each as one
    paragraph: the messages of its notes catalogue."""
    return [joined(m["text"]) for m in NOTES.finditer(text)]


def _notes_po(name: str, catalogues: Path = NOTES_CATALOGUES) -> Path:
    return catalogues / f"{name}.po"


def notes_translations(
    name: str, catalogues: Path = NOTES_CATALOGUES
) -> dict[str, str]:
    """English note -> its Korean, for chapter ``name`` (translated, not fuzzy, entries)."""
    from booktools.i18n.catalogues import read_catalogue

    po = _notes_po(name, catalogues)
    if not po.is_file():
        return {}
    return {
        m.id: m.string for m in read_catalogue(po) if m.id and m.string and not m.fuzzy
    }


def update_notes_catalogues(
    names: list[str] | None = None,
    root: Path = ROOT,
    catalogues: Path = NOTES_CATALOGUES,
) -> dict[str, str]:
    """Merge the notes written in each chapter into its notes catalogue (as ``make po`` does
    for the prose: translations kept, a changed note fuzzy, a removed one obsolete)."""
    from babel.messages.catalog import Catalog

    from booktools.i18n.catalogues import merge_catalogue

    report: dict[str, str] = {}
    for name in names or chapters(root):
        text = (root / f"{name}.md").read_text(encoding="utf-8")
        notes = written_notes(text)
        po = _notes_po(name, catalogues)
        if not notes and not po.is_file():
            continue  # no note written for this chapter's slides
        template = Catalog(locale=None)
        for note in notes:
            template.add(note, locations=[(f"{name}.md", 0)])
        po.parent.mkdir(parents=True, exist_ok=True)
        report[name] = merge_catalogue(po, template, name)
    return report
