"""The leak scan: does any solution of the chapters show in the student material?

:func:`leaks` looks in the student files (notebooks, cell sources and metadata) for every
solution's fingerprints (:func:`solution_fingerprints`): its significant numbers (or roundings of
them), its 8-word phrases and its code lines, less what the book itself gives outside solutions.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from booktools.assign import Exercise, segments

__all__ = ["solution_fingerprints", "leaks"]

_NUM = re.compile(r"(?<![\w.])[-−]?\d+(?:\{,\}\d{3}|,\d{3}|\\,\d{3}| \d{3}(?!\d))*(?:\.\d+)?")
_WORD = re.compile(r"[a-zA-Z]+")


def _numbers(text: str) -> set[str]:
    """The numbers of a text, normalised (thousands separators removed, ASCII minus)."""
    out = set()
    for m in _NUM.finditer(text):
        s = re.sub(r"\{,\}|\\,|,| ", "", m.group(0)).replace("−", "-").lstrip("-")
        out.add(s)
    return out


def _significant(num: str) -> bool:
    """A number worth protecting: at least 3 significant digits, not a round power of ten."""
    digits = num.replace(".", "").lstrip("0")
    return len(digits.rstrip("0")) >= 3 or (len(digits) >= 5 and "." not in num)


def _given_numbers() -> set[str]:
    """Numbers the book gives rather than derives: the published models' hyperparameters
    (:mod:`formulated.models.sizes`), the powers of two and the 10000 of the sinusoidal
    encoding.  A solution may repeat them without giving anything away."""
    from formulated.models.sizes import SIZES

    given = {str(2 ** k) for k in range(20)} | {"10000"}
    for row in (SIZES.values() if isinstance(SIZES, dict) else SIZES):
        given |= {str(getattr(row, f)) for f in ("L", "H", "A", "F", "V", "n_ctx")}
    return given


def _prose(text: str) -> str:
    """Markdown without its math and code: what a sentence of an answer is made of."""
    text = re.sub(r"\$\$.*?\$\$|\$[^$]*\$|```.*?```|`[^`]*`", " ", text, flags=re.S)
    return text


def _shingles(text: str, k: int = 8) -> set[str]:
    words = [w.lower() for w in _WORD.findall(_prose(text))]
    return {" ".join(words[i:i + k]) for i in range(len(words) - k + 1)}


def _code_lines(code: str) -> set[str]:
    out = set()
    for ln in code.splitlines():
        s = re.sub(r"\s+", " ", ln.split("  #")[0]).strip()
        if len(s) >= 25 and not s.startswith(("#", "import ", "from ", "print(")):
            out.add(s)
    return out


def solution_fingerprints(ex: Exercise, shown_code: str = "") -> dict[str, set[str]]:
    """What must not appear in student material for ``ex``: the significant numbers and the
    8-word phrases of its solution's text, and its solution's code lines; less what its own
    prompt says, the numbers the book gives (:func:`_given_numbers`) and the code lines the
    book shows outside solutions (``shown_code``)."""
    nums = {n for n in _numbers(ex.solution_text) if _significant(n)}
    return {"numbers": nums - _numbers(ex.prompt) - _given_numbers(),
            "phrases": _shingles(ex.solution_text) - _shingles(ex.prompt),
            "code": _code_lines("\n".join(ex.solution_code)) - _code_lines(shown_code)}


def _close(a: str, b: str) -> bool:
    """``b`` is ``a`` or a rounding of it to at least 3 significant digits (``0.16997`` of
    ``0.169971``)."""
    if a == b:
        return True
    if "." not in b or not _significant(b):
        return False
    decimals = len(b.split(".")[1])
    try:
        return abs(float(a) - float(b)) <= 0.5 * 10 ** -decimals + 1e-15
    except ValueError:
        return False


def _student_text(path: Path) -> str:
    """Everything a student receives in a file: cell sources and notebook metadata (tests)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".ipynb":
        nb = json.loads(text)
        parts = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                 for c in nb["cells"]]
        parts.append(json.dumps(nb.get("metadata", {}), ensure_ascii=False))
        return "\n".join(parts)
    return text


def _chapter_number(name: str) -> int:
    m = re.match(r"(?:ex-)?(\d+)", name)
    return int(m.group(1)) if m else 0


def leaks(student_files: list[str | Path], chapters: list[str | Path]) -> list[str]:
    """Every place where a solution of ``chapters`` shows in ``student_files``; empty if none.

    A student file of chapter *c* is checked against the solutions of chapters *c* and later:
    a later chapter may build on an earlier exercise's result (that assignment is over), but no
    chapter may give away an exercise of its own or of a chapter still to come.
    """
    segs = [segments(Path(ch).read_text(encoding="utf-8")) for ch in chapters]
    shown = "\n".join(v for seg in segs for k, v in seg if k == "code")
    prints = [(ex.label, solution_fingerprints(ex, shown))
              for seg in segs for k, ex in seg if k == "exercise"]
    found = []
    for f in map(Path, student_files):
        text = _student_text(f)
        flat = re.sub(r"\s+", " ", text)
        nums, phrases = _numbers(text), _shingles(text)
        for label, fp in prints:
            if _chapter_number(label) < _chapter_number(f.name):
                continue
            for n in sorted(fp["numbers"]):
                hit = next((m for m in nums if _close(n, m)), None)
                if hit:
                    found.append(f"{f.name}: number {hit} of {label}'s solution")
            for p in sorted(fp["phrases"] & phrases):
                found.append(f"{f.name}: phrase '{p}' of {label}'s solution")
            for c in sorted(fp["code"]):
                if c in flat:
                    found.append(f"{f.name}: code '{c}' of {label}'s solution")
    return found

