"""The audit ledger: every claim of the five sources, with its verdict (appendix B).

One file per source, ``formulated/errata/ledgers/<id>.tsv``, lists the passages of that source
that carry a formula, a number, a table cell or a technical claim: their line range, the claim in
a few words, a verdict, a note and how many readers judged it.  The verdicts follow the rules of
CONTRIBUTING.md ("Judging a claim"):

==============  ============================================================================
verdict         ``ref`` names
==============  ============================================================================
``holds``       what confirms it: ``test:tests/<file>.py::<test>`` or ``label:<myst-label>``
                (a definition, section or cell label in a chapter)
``erratum``     the key of an :class:`~formulated.errata.Erratum` of kind ``"error"``, or
                ``pending:<key>`` while its record is being written
``omission``    the key of an :class:`~formulated.errata.Erratum` of kind ``"omission"`` (or
                ``pending:<key>``)
``ambiguity``   ``-`` or a label where the book discusses it; ``note`` names both readings:
                ``Reading 1: … Reading 2: … Neither is wrong: …``
``out-of-scope`` ``-``; ``note`` says why (front matter, a picture's file name, a link)
==============  ============================================================================

``readers`` is ``2`` when a second reader, who did not write the row, re-judged it against the
lines it cites, and ``1`` when only its writer did.  A note under ``holds`` or ``ambiguity`` may
not concede that the source is wrong (:func:`concessions`): a conceding word ("slip", "wrong",
"should", …) is allowed only in a note that says, after ``Still right:``, why the verdict stands.

The file format is tab-separated, one entry a line, ``#`` starting a comment::

    # sha256 <hex digest of the source file the line numbers refer to>
    233-248<TAB>erratum<TAB>bert-unmasked-input<TAB>BERT box: the input is unmasked<TAB><TAB>2

``tests/test_ledger.py`` computes which source lines carry math, digits or technical terms
(:func:`claim_lines`) and fails when one is covered by no entry, and resolves every ``ref``.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from ..sources import SOURCES

__all__ = [
    "VERDICTS",
    "READERS",
    "PENDING",
    "CONCEDING",
    "LedgerEntry",
    "LEDGER_DIR",
    "ledger",
    "ledger_digest",
    "claim_lines",
    "verdict_counts",
    "ledger_table",
    "source_digest",
    "uncovered",
    "concessions",
    "needs_second_reader",
]

#: The verdicts, in the order the appendix counts them.
VERDICTS = ("holds", "erratum", "omission", "ambiguity", "out-of-scope")
LEDGER_DIR = Path(__file__).with_name("ledgers")
_NEEDS_NOTE = {"ambiguity", "out-of-scope"}
_NEEDS_REF = {"holds", "erratum", "omission"}
_RECORDED = {"erratum", "omission"}
#: How many readers judged a row: its writer alone, or a second reader too.
READERS = (1, 2)
#: The prefix of an erratum's key whose record is not registered yet.
PENDING = "pending:"
#: The three parts an ``ambiguity`` note has, in this order.
_READINGS = re.compile(r"Reading 1: .+ Reading 2: .+ Neither is wrong: .+", re.S)
#: Words by which a note concedes an error.  Under ``holds`` or ``ambiguity`` they are allowed
#: only in a note that also says ``Still right:`` (why the verdict stands all the same).
CONCEDING = re.compile(
    r"(?i)\b(?:slip\w*|should|wrong\w*|false\w*|lack\w*|incorrect\w*|typo\w*|errors?"
    r"|erroneous\w*|mistak\w*|misspel\w*|misnam\w*|mislabel\w*|misprint\w*|loose\w*"
    r"|abus\w*|sloppy|inconsisten\w*|contradict\w*|not right|not true|conced\w*)\b"
)
_STILL_RIGHT = "Still right:"
_NEITHER = "Neither is wrong:"


@dataclass(frozen=True)
class LedgerEntry:
    """One claim of a source: lines ``first``..``last`` (1-based, inclusive) and its verdict."""

    source: str
    first: int
    last: int
    verdict: str
    ref: str
    claim: str
    note: str = ""
    readers: int = 1

    @property
    def pending(self) -> bool:
        """True for an erratum or omission whose record is not registered yet."""
        return self.ref.startswith(PENDING)

    @property
    def key(self) -> str:
        """The erratum key an ``erratum``/``omission`` entry names (``pending:`` removed)."""
        return self.ref.removeprefix(PENDING)

    @property
    def lines(self) -> range:
        """The source lines the entry covers."""
        return range(self.first, self.last + 1)

    @property
    def span(self) -> str:
        """``"233–248"`` (or ``"81"`` for one line), as the appendix prints it."""
        return (
            str(self.first) if self.first == self.last else f"{self.first}–{self.last}"
        )


def _parse_line(source: str, row: str, where: str) -> LedgerEntry:
    cells = row.split("\t")
    if len(cells) != 6:
        raise ValueError(
            f"{where}: expected 6 tab-separated cells (lines, verdict, ref, claim, note, "
            f"readers), got {len(cells)}"
        )
    span, verdict, ref, claim, note, readers = (c.strip() for c in cells)
    m = re.fullmatch(r"(\d+)(?:-(\d+))?", span)
    if not m:
        raise ValueError(f"{where}: lines: expected 'N' or 'N-M', got {span!r}")
    first, last = int(m.group(1)), int(m.group(2) or m.group(1))
    if not 1 <= first <= last:
        raise ValueError(f"{where}: lines: expected 1 <= first <= last, got {span!r}")
    if verdict not in VERDICTS:
        raise ValueError(
            f"{where}: verdict: expected one of {VERDICTS}, got {verdict!r}"
        )
    if not claim:
        raise ValueError(f"{where}: claim: expected a few words, got nothing")
    if verdict in _NEEDS_REF and ref in ("", "-", PENDING):
        raise ValueError(
            f"{where}: ref: a {verdict!r} entry names what confirms it, got {ref!r}"
        )
    if ref.startswith(PENDING) and verdict not in _RECORDED:
        raise ValueError(
            f"{where}: ref: only an erratum or omission can be {PENDING}<key>, "
            f"got {ref!r} under {verdict!r}"
        )
    if verdict in _NEEDS_NOTE and not note:
        raise ValueError(f"{where}: note: an {verdict!r} entry says why, got nothing")
    if verdict == "ambiguity" and not _READINGS.search(note):
        raise ValueError(
            f"{where}: note: an 'ambiguity' entry names both readings, as "
            f"'Reading 1: … Reading 2: … {_NEITHER} …', got {note[:60]!r}"
        )
    if readers not in {str(r) for r in READERS}:
        raise ValueError(
            f"{where}: readers: expected one of {READERS}, got {readers!r}"
        )
    return LedgerEntry(source, first, last, verdict, ref, claim, note, int(readers))


def ledger_digest(source: str) -> str:
    """The sha256 recorded in the ledger of ``source``: the version its line numbers refer to."""
    text = _ledger_path(source).read_text(encoding="utf-8")
    m = re.search(r"^#\s*sha256\s+([0-9a-f]{64})\s*$", text, re.M)
    if not m:
        raise ValueError(
            f"ledger {source}: expected a '# sha256 <hex>' line, found none"
        )
    return m.group(1)


def _ledger_path(source: str) -> Path:
    if source not in SOURCES:
        raise ValueError(f"source: expected one of {sorted(SOURCES)}, got {source!r}")
    return LEDGER_DIR / f"{source}.tsv"


def ledger(source: str) -> list[LedgerEntry]:
    """The entries of ``source``'s ledger, in file order."""
    first = _ledger_path(source)
    entries = []
    # <id>.part*.tsv: drafts written alongside while an audit is in progress, read after <id>.tsv
    for path in [first, *sorted(first.parent.glob(f"{source}.part*.tsv"))]:
        for i, row in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if row.strip() and not row.lstrip().startswith("#"):
                entries.append(_parse_line(source, row, f"{path.name}:{i}"))
    return entries


# A line carries a claim when it has a digit, math (TeX, $, ^, _, =, ×) or a technical term.
_MATH = re.compile(r"[0-9\\$^_=×∈∑√≤≥→]|\bO\(")
_TERMS = re.compile(
    r"(?i)\b(?:token|vocab|embed|position|attention|attend|head|mask|softmax|layer|norm|"
    r"residual|feed-?forward|ffn|gelu|relu|sigmoid|tanh|gradient|loss|entropy|probabilit|"
    r"likelihood|matri|vector|dimension|weight|bias|parameter|train|model|gpt|bert|transformer|"
    r"decoder|encoder|bpe|byte|corpus|dataset|query|key|value|logit|neuron|network|lstm|rnn|"
    r"regression|function|derivative|learning|optimi|batch|sequence|context|output|input|"
    r"information|bit|shannon|kl\b|divergence|dropout|scale|dot|product|concat|projection|"
    r"predict|next|sample|distribution|objective|fine-?tun|pre-?train|encoding|one-?hot)"
)
_HANGUL_TERMS = re.compile(
    r"토큰|어휘|임베딩|위치|어텐션|헤드|마스크|소프트맥스|레이어|층|정규화|잔차|순전파|역전파|"
    r"활성|함수|기울기|손실|엔트로피|확률|우도|행렬|벡터|차원|가중치|편향|매개변수|파라미터|"
    r"훈련|학습|모형|모델|디코더|인코더|말뭉치|코퍼스|데이터|쿼리|키|값|출력|입력|예측|분포|"
    r"사전|미세|인코딩|원핫|셀프|멀티|트랜스포머|생성|자기회귀"
)
_NOT_A_CLAIM = re.compile(
    r"^\s*(?:&nbsp;|-{3,}|</?div[^>]*>|\$\$|\\\[|\\\]|[-*_]{3,}|```)?\s*$"
)


def claim_lines(text: str) -> list[int]:
    """The 1-based numbers of the lines of ``text`` that carry math, a digit or a technical term
    (English or Korean); blank lines, rules, bare ``$$`` and ``<div>`` lines carry none."""
    out = []
    for i, line in enumerate(text.splitlines(), start=1):
        if _NOT_A_CLAIM.match(line):
            continue
        if _MATH.search(line) or _TERMS.search(line) or _HANGUL_TERMS.search(line):
            out.append(i)
    return out


def source_digest(path: Path) -> str:
    """The sha256 of a source file (to compare with :func:`ledger_digest`)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def verdict_counts(source: str) -> dict[str, int]:
    """How many entries of ``source``'s ledger have each verdict (every verdict present)."""
    counts = dict.fromkeys(VERDICTS, 0)
    for e in ledger(source):
        counts[e.verdict] += 1
    return counts


def _ref_md(e: LedgerEntry) -> str:
    if e.pending:
        return f"`{e.key}` (record pending)"
    if e.verdict in _RECORDED:
        return f"{{ref}}`{e.ref} <erratum-{e.ref}>`"
    if e.ref.startswith("label:"):
        label = e.ref.removeprefix("label:")
        return (
            f"{{ref}}`{label} <{label}>`"
            if not label.startswith("def-")
            else f"{{prf:ref}}`{label}`"
        )
    if e.ref.startswith("test:"):
        return f"`{e.ref.removeprefix('test:').split('::')[-1]}`"
    return ""


def ledger_table(source: str) -> str:
    """The ledger of ``source`` as a MyST table: lines, claim, verdict, where it is confirmed."""
    rows = ["| lines | claim | verdict | confirmed by |", "| --- | --- | --- | --- |"]
    for e in ledger(source):
        claim = e.claim + (f" ({e.note})" if e.note else "")
        claim = claim.replace("|", "\\|")
        rows.append(f"| {e.span} | {claim} | {e.verdict} | {_ref_md(e)} |")
    return "\n".join(rows)


def uncovered(source: str, text: str) -> list[int]:
    """The claim lines of ``text`` (source ``source``) that no ledger entry covers."""
    covered = {n for e in ledger(source) for n in e.lines}
    return [n for n in claim_lines(text) if n not in covered]


def concessions(entry: LedgerEntry) -> list[str]:
    """The conceding words of ``entry``'s note, if its verdict (``holds`` or ``ambiguity``)
    forbids them: none for other verdicts, and none when the note says ``Still right:``."""
    if entry.verdict not in ("holds", "ambiguity") or _STILL_RIGHT in entry.note:
        return []
    return CONCEDING.findall(entry.note.replace(_NEITHER, ""))


def needs_second_reader(entry: LedgerEntry) -> bool:
    """True for the rows a second reader must re-judge: every ``ambiguity``, and every
    ``holds`` that carries a note or rests on a label rather than a computing test."""
    return entry.verdict == "ambiguity" or (
        entry.verdict == "holds"
        and (bool(entry.note) or entry.ref.startswith("label:"))
    )


if __name__ == "__main__":  # python -m formulated.errata.ledger 002 path/to/002_….txt
    import sys

    _src, _path = sys.argv[1], Path(sys.argv[2])
    _text = _path.read_text(encoding="utf-8")
    _lines = _text.splitlines()
    _todo = uncovered(_src, _text)
    print(f"{len(_todo)} of {len(claim_lines(_text))} claim lines uncovered")
    for _n in _todo:
        print(f"{_n:5d}  {_lines[_n - 1][:110]}")
