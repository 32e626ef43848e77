"""The character-level tokenizer (chapters 5 and 18): text -> token ids -> text.

:class:`CharTokenizer` is the character-level vocabulary of the "Notations" source: ``stoi``
maps each character to its id, ``itos`` maps back.  Chapter 18 trains on it.

Ids are 0-based in code (``0 .. V-1``); the book's math numbers the vocabulary ``1 .. V``.
"""

from __future__ import annotations

from typing import Any, Iterable

from .._checks import check_text, tokens_of

__all__ = ["CharTokenizer"]


def _check_chars(chars: Iterable[str], name: str = "chars") -> list[str]:
    """``chars`` as a list of distinct single characters, at least one; the messages name
    ``name`` (``d['itos']`` when the characters come from a saved tokenizer)."""
    chars = list(chars)
    for c in chars:
        if not isinstance(c, str) or len(c) != 1:
            raise ValueError(f"{name}: expected single characters, got {c!r}")
    if len(set(chars)) != len(chars):
        raise ValueError(f"{name}: expected distinct characters, got duplicates")
    if not chars:
        raise ValueError(f"{name}: expected at least one character, got none")
    return chars


def _check_corpus(text: Any) -> None:
    if not isinstance(text, str) or not text:
        raise ValueError(
            f"text: expected a non-empty string, "
            f"got {type(text).__name__} "
            f"of length {len(text) if isinstance(text, str) else '?'}"
        )


def _check_known(text: Any, stoi: dict[str, int]) -> None:
    """``text`` is a string of characters that ``stoi`` knows (``KeyError`` naming the
    unknown ones and where the first stands)."""
    check_text(text)
    unknown = sorted(set(text) - stoi.keys())
    if unknown:
        pos = next(i for i, c in enumerate(text) if c not in stoi)
        raise KeyError(
            f"text: expected only characters of the vocabulary "
            f"(V={len(stoi)}), got unknown character(s) "
            f"{unknown!r}, the first at position {pos}"
        )


def _check_char_dict(d: Any) -> list[str]:
    """The characters of a saved character tokenizer ``d``, with messages naming ``d``."""
    if (
        not isinstance(d, dict)
        or d.get("kind") != "char"
        or not isinstance(d.get("itos"), str)
    ):
        raise ValueError(f"d: expected {{'kind': 'char', 'itos': str}}, got {d!r:.80}")
    return _check_chars(d["itos"], "d['itos']")


class CharTokenizer:
    """Character-level tokenizer: the vocabulary is a corpus's sorted characters.

    ``stoi[c]`` is the id of character ``c`` and ``itos[i]`` the character of id ``i``,
    so ``decode(encode(s)) == s`` for every string made of known characters.

    Definition: def-06-tokenizer.
    Checked by: tests/test_tokenizers.py::test_char_tokenizer_stoi_itos_round_trip
    """

    def __init__(self, chars):
        chars = _check_chars(chars)
        self.itos: list[str] = chars
        self.stoi: dict[str, int] = {c: i for i, c in enumerate(chars)}

    @classmethod
    def from_text(cls, text):
        """Build the vocabulary from a corpus: its distinct characters, sorted by code
        point."""
        _check_corpus(text)
        return cls(sorted(set(text)))

    @property
    def vocab_size(self):
        """``V``, the number of distinct tokens."""
        return len(self.itos)

    def encode(self, text):
        """``str -> list[int]`` of length ``len(text)``; unknown characters raise
        ``KeyError``."""
        _check_known(text, self.stoi)
        return [self.stoi[c] for c in text]

    def decode(self, ids):
        """``list[int] -> str``; ids outside ``0 .. V-1`` raise ``ValueError``."""
        return "".join(tokens_of(ids, self.itos))

    def __repr__(self):
        return f"CharTokenizer(V={self.vocab_size})"

    def to_dict(self):
        """A JSON-able form, stored in checkpoints."""
        return {"kind": "char", "itos": "".join(self.itos)}

    @classmethod
    def from_dict(cls, d):
        return cls(_check_char_dict(d))
