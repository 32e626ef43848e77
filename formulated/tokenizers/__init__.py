"""Tokenizers: text -> token ids -> text (chapters 5, 6 and 18).

- :mod:`~formulated.tokenizers.char` -- :class:`CharTokenizer`, the character-level
  vocabulary of the "Notations" source; chapter 18 trains on it.
- :mod:`~formulated.tokenizers.bpe` -- byte-pair encoding (chapter 6): the learner
  (:func:`learn_bpe`) and the tokenizer (:class:`BPETokenizer`).
- :mod:`~formulated.tokenizers.corpus` -- the corpus BPE works on: words as symbols, their
  adjacent pairs counted and merged.

This face exports the three modules' public names.  Ids are 0-based in code
(``0 .. V-1``); the book's math numbers the vocabulary ``1 .. V``.
"""

from __future__ import annotations

from .bpe import BPETokenizer, Merge, bpe_vocab_size, learn_bpe, learn_bpe_incremental
from .char import CharTokenizer
from .corpus import (
    END_OF_WORD,
    count_pairs,
    greedy_bpe_states,
    initial_symbols,
    merge_pair,
    split_word,
    word_frequencies,
)

__all__ = [
    "CharTokenizer",
    "END_OF_WORD",
    "Merge",
    "BPETokenizer",
    "word_frequencies",
    "split_word",
    "merge_pair",
    "count_pairs",
    "initial_symbols",
    "learn_bpe",
    "learn_bpe_incremental",
    "greedy_bpe_states",
    "bpe_vocab_size",
]
