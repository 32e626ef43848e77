"""Tokenizers: text → token ids → text (chapters 5, 6 and 18).

* :class:`CharTokenizer` — the character-level vocabulary of the "Notations" source: ``stoi``
  maps each character to its id, ``itos`` maps back.  Chapter 18 trains on it.
* Byte-pair encoding (chapter 6) lives further down this module.

Ids are 0-based in code (``0 .. V-1``); the book's math numbers the vocabulary ``1 .. V``.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

__all__ = ["CharTokenizer"]


class CharTokenizer:
    """Character-level tokenizer: the vocabulary is the sorted set of characters of a corpus.

    ``stoi[c]`` is the id of character ``c`` and ``itos[i]`` the character of id ``i``, so
    ``decode(encode(s)) == s`` for every string made of known characters.
    """

    def __init__(self, chars: Iterable[str]):
        chars = list(chars)
        for c in chars:
            if not isinstance(c, str) or len(c) != 1:
                raise ValueError(f"chars: expected single characters, got {c!r}")
        if len(set(chars)) != len(chars):
            raise ValueError("chars: expected distinct characters, got duplicates")
        if not chars:
            raise ValueError("chars: expected at least one character, got none")
        self.itos: list[str] = chars
        self.stoi: dict[str, int] = {c: i for i, c in enumerate(chars)}

    @classmethod
    def from_text(cls, text: str) -> "CharTokenizer":
        """Build the vocabulary from a corpus: its distinct characters, sorted by code point."""
        if not isinstance(text, str) or not text:
            raise ValueError(f"text: expected a non-empty string, got {type(text).__name__} "
                             f"of length {len(text) if isinstance(text, str) else '?'}")
        return cls(sorted(set(text)))

    @property
    def vocab_size(self) -> int:
        """``V``, the number of distinct tokens."""
        return len(self.itos)

    def encode(self, text: str) -> list[int]:
        """``str -> list[int]`` of length ``len(text)``; unknown characters raise ``KeyError``."""
        if not isinstance(text, str):
            raise TypeError(f"text: expected a string, got {type(text).__name__}")
        try:
            return [self.stoi[c] for c in text]
        except KeyError:
            unknown = sorted({c for c in text if c not in self.stoi})
            pos = next(i for i, c in enumerate(text) if c not in self.stoi)
            raise KeyError(f"text: expected only characters of the vocabulary "
                           f"(V={self.vocab_size}), got unknown character(s) {unknown!r}, "
                           f"the first at position {pos}") from None

    def decode(self, ids: Sequence[int] | np.ndarray) -> str:
        """``list[int] -> str``; ids outside ``0 .. V-1`` raise ``ValueError``."""
        arr = np.asarray(ids)
        if arr.size and (arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer)):
            raise TypeError(f"ids: expected integer token ids, got dtype {arr.dtype}")
        out = []
        for i in arr.reshape(-1).tolist():
            if not 0 <= i < self.vocab_size:
                raise ValueError(f"ids: expected token ids in 0..{self.vocab_size - 1} "
                                 f"(V={self.vocab_size}), got {i}")
            out.append(self.itos[i])
        return "".join(out)

    def __repr__(self) -> str:
        return f"CharTokenizer(V={self.vocab_size})"

    def to_dict(self) -> dict:
        """A JSON-able form, stored in checkpoints."""
        return {"kind": "char", "itos": "".join(self.itos)}

    @classmethod
    def from_dict(cls, d: dict) -> "CharTokenizer":
        if not isinstance(d, dict) or d.get("kind") != "char" or not isinstance(d.get("itos"), str):
            raise ValueError(f"d: expected {{'kind': 'char', 'itos': str}}, got {d!r:.80}")
        return cls(list(d["itos"]))


# == Byte-pair encoding (chapter 6) ============================================================
