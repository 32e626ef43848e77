"""Byte-pair encoding (chapter 6): the learner and the tokenizer.

A small, readable BPE trainer and encoder in the style of Sennrich, Haddow and Birch (2016):
the corpus is a table of word frequencies, each word starts as its characters, and the most
frequent adjacent pair of symbols is merged, again and again (:func:`learn_bpe`).  Like their
reference implementation (subword-nmt) and Hugging Face's ``BpeTrainer``, the end-of-word
marker is glued to the last character (``"low" -> l o w</w>``), so that a word-final
``w</w>`` and a word-inner ``w`` are different symbols.  Readable, not fast: the chapter
trains a few hundred merges on a slice of Tiny Shakespeare in about a second.

The corpus these work on (words as symbols, pairs counted and merged) is
:mod:`formulated.tokenizers.corpus`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from .._checks import check_int, check_text, checked, tokens_of
from .corpus import (
    END_OF_WORD,
    check_end_of_word,
    check_symbol_order,
    check_word_counts,
    count_pairs,
    initial_symbols,
    merge_pair,
    split_word,
    word_frequencies,
)

__all__ = [
    "Merge",
    "learn_bpe",
    "learn_bpe_incremental",
    "BPETokenizer",
    "bpe_vocab_size",
]


@dataclass(frozen=True)
class Merge:
    """One learned merge: the symbols ``left`` and ``right`` become ``left + right``.

    ``count`` is how often the pair occurred in the (frequency-weighted) corpus at the moment it
    was chosen -- the number the merge table of a textbook example prints next to each pair.
    ``tied_with`` lists the other pairs that had the same count *and the same left symbol*, so
    that only the order of the right symbols decided (see :func:`learn_bpe`); it is not part of
    the merge's identity (two merges compare equal without it).
    """

    left: str
    right: str
    count: int
    tied_with: tuple[tuple[str, str], ...] = field(
        default=(), compare=False, repr=False
    )

    @property
    def pair(self) -> tuple[str, str]:
        return (self.left, self.right)

    @property
    def token(self) -> str:
        return self.left + self.right


def _learn_bpe_args(
    word_counts: Any,
    num_merges: Any,
    end_of_word: Any = END_OF_WORD,
    symbol_order: Any = None,
) -> tuple:
    """The checks of :func:`learn_bpe`; ``symbol_order`` comes back as a list, by default
    :func:`initial_symbols`, holding every initial symbol of the corpus."""
    word_counts = check_word_counts(word_counts)
    num_merges = check_int(num_merges, "num_merges", 0, "a non-negative integer")
    check_end_of_word(end_of_word)
    order = (
        check_symbol_order(symbol_order)
        if symbol_order is not None
        else initial_symbols(word_counts, end_of_word)
    )
    known = set(order)
    missing = sorted(
        {s for w in word_counts for s in split_word(w, end_of_word) if s not in known}
    )
    if missing:
        raise ValueError(
            f"symbol_order: expected every initial symbol of the corpus, "
            f"got none for {missing[:5]}"
        )
    return word_counts, num_merges, end_of_word, order


def _best_pair(
    counts: Mapping[tuple[str, str], int], rank: Mapping[str, int]
) -> tuple[tuple[str, str], Merge]:
    """The pair to merge next and its :class:`Merge`: the most frequent pair, ties going to
    the smallest (rank of left, rank of right); ``tied_with`` the other pairs of that count
    with the same left symbol."""
    top = max(counts.values())
    tops = [p for p, c in counts.items() if c == top]
    best = min(tops, key=lambda p: (rank[p[0]], rank[p[1]]))
    tied = tuple(
        sorted(
            (p for p in tops if p[0] == best[0] and p != best), key=lambda p: rank[p[1]]
        )
    )
    return best, Merge(best[0], best[1], top, tied)


@checked(_learn_bpe_args)
def learn_bpe(word_counts, num_merges, *, end_of_word=END_OF_WORD, symbol_order=None):
    """Learn up to ``num_merges`` BPE merges from a table of word frequencies.

    The algorithm (Sennrich et al. 2016, Algorithm 1), as a textbook loop: split every
    word into its symbols (:func:`split_word`); then repeat: count the adjacent pairs,
    weighted by word frequency (:func:`count_pairs`); pick the most frequent pair; merge
    it everywhere (:func:`merge_pair`).  It stops after ``num_merges`` merges or when no
    pair is left (every word is one token).

    **Ties.** Several pairs often have the same count.  The winner is the pair whose
    symbols come first in the vocabulary: compare the positions of the left symbols,
    then of the right ones.  The vocabulary is :func:`initial_symbols` followed by every
    new token in the order it was created.  This is the rule of Hugging Face's
    ``BpeTrainer`` (it compares token ids), so the two learn the same merges whenever
    its ids for the end-of-word symbols are ordered like ours; ``symbol_order`` replaces
    :func:`initial_symbols` to reproduce another order exactly.

    Every step recounts every pair of the corpus; :func:`learn_bpe_incremental` learns
    the same merges faster, for large corpora.

    Returns the merges in the order learned, each with its count at that moment.

    Definition: def-06-bpe.
    Checked by: tests/test_tokenizers.py::test_lecture_example_equals_hugging_face
    Checked by: tests/test_tokenizers.py::test_merges_are_greedy_under_some_tie_breaking
    """
    # each word as its symbols -> frequency (two words never share a segmentation)
    words = {split_word(w, end_of_word): c for w, c in word_counts.items()}
    rank = {s: i for i, s in enumerate(symbol_order)}  # ties: earlier symbols win
    merges: list[Merge] = []
    while len(merges) < num_merges:
        counts = count_pairs(words)
        if not counts:  # every word is one token
            break
        best, merge = _best_pair(counts, rank)
        merges.append(merge)
        rank.setdefault(merge.token, len(rank))  # the new token, last in the vocabulary
        words = {merge_pair(w, best): c for w, c in words.items()}
    return merges


@checked(_learn_bpe_args)
def learn_bpe_incremental(
    word_counts: Mapping[str, int],
    num_merges: int,
    *,
    end_of_word: str = END_OF_WORD,
    symbol_order: Sequence[str] | None = None,
) -> list[Merge]:
    """The merges of :func:`learn_bpe`, learned without recounting the corpus at each step.

    The pair counts are kept from step to step: a merge updates them for the words that
    contain the merged pair only (taking each such word's old pairs out and its new pairs
    in).  Same arguments, checks and result as :func:`learn_bpe`, ties included
    (tests/test_tokenizers.py::test_incremental_bpe_equals_the_textbook_loop); used where
    the corpus is large (:meth:`BPETokenizer.train`).
    """
    rank = {s: i for i, s in enumerate(symbol_order)}
    words = [split_word(w, end_of_word) for w in word_counts]
    freqs = list(word_counts.values())

    counts: Counter = Counter()
    # pair -> words that contain it
    where: dict[tuple[str, str], set[int]] = defaultdict(set)
    for i, symbols in enumerate(words):
        for pair in zip(symbols, symbols[1:]):
            counts[pair] += freqs[i]
            where[pair].add(i)

    merges: list[Merge] = []
    while len(merges) < num_merges and counts:
        best, merge = _best_pair(counts, rank)
        merges.append(merge)
        rank.setdefault(merge.token, len(rank))
        for i in where.pop(best):
            old = words[i]
            new = merge_pair(old, best)
            # take the word's old pairs out of the counts ...
            for pair in zip(old, old[1:]):
                counts[pair] -= freqs[i]
                if counts[pair] == 0:
                    del counts[pair]
            # ... and put its new pairs in
            for pair in zip(new, new[1:]):
                counts[pair] += freqs[i]
                where[pair].add(i)
            words[i] = new
    return merges


def _check_bpe_args(merges: Any, alphabet: Any, end_of_word: Any) -> list[Merge]:
    """The merges of a :class:`BPETokenizer` as :class:`Merge` objects, each joining
    symbols of the alphabet or of earlier merges; the alphabet distinct non-empty strings,
    the end-of-word marker a non-empty string."""
    if not isinstance(end_of_word, str) or not end_of_word:
        raise ValueError(
            f"end_of_word: expected a non-empty marker such as '</w>' "
            f"(decoding needs it to find the spaces), "
            f"got {end_of_word!r}"
        )
    known = list(alphabet)
    for s in known:
        if not isinstance(s, str) or not s:
            raise ValueError(f"alphabet: expected non-empty strings, got {s!r}")
    if len(set(known)) != len(known):
        raise ValueError("alphabet: expected distinct symbols, got duplicates")
    known = set(known)
    checked_merges = []
    for k, m in enumerate(merges):
        if not isinstance(m, Merge):
            if not (isinstance(m, tuple) and len(m) == 2):
                raise ValueError(
                    f"merges[{k}]: expected a Merge or a pair of strings, got {m!r}"
                )
            m = Merge(m[0], m[1], 0)
        for side in (m.left, m.right):
            if side not in known:
                raise ValueError(
                    f"merges[{k}]: expected symbols already in the "
                    f"vocabulary, got {side!r} in {m.pair}"
                )
        known.add(m.token)
        checked_merges.append(m)
    return checked_merges


def _check_symbols(
    symbols: tuple[str, ...], word: str, stoi: dict[str, int], end_of_word: str
) -> None:
    """Every initial symbol of ``word`` is in the vocabulary (``KeyError`` otherwise)."""
    unknown = [s for s in symbols if s not in stoi]
    if unknown:
        bare = (
            unknown[0][: -len(end_of_word)]
            if unknown[0].endswith(end_of_word)
            else None
        )
        why = (
            f" ({bare!r} is known, but never ended a word of the training corpus)"
            if bare in stoi
            else ""
        )
        raise KeyError(
            f"text: expected only symbols of the vocabulary "
            f"(V={len(stoi)}), got unknown symbol {unknown[0]!r} "
            f"in the word {word!r}{why}"
        )


class BPETokenizer:
    """Byte-pair encoding: text -> words -> sub-word tokens -> ids, and back.

    The vocabulary ``itos`` is the initial symbols (:func:`initial_symbols`: characters,
    then end-of-word characters such as ``"w</w>"``) followed by the token of every
    merge, in merge order (a token that two merges produce is listed once).  ``stoi``
    maps a token to its id.

    **Encoding a word** applies the learned merges in the order they were learned: while
    some adjacent pair of the word is a merge, merge the pair learned earliest (all its
    occurrences, left to right).  **Decoding** joins the tokens and turns each
    end-of-word marker back into a space, so
    ``decode(encode(s)) == " ".join(s.split())``: the words come back, separated by
    single spaces (BPE with whitespace pre-tokenization does not keep line breaks).

    Definition: def-06-bpe-encode.
    Checked by: tests/test_tokenizers.py::test_lecture_example_equals_hugging_face
    Checked by: tests/test_tokenizers.py::test_shakespeare_slice_equals_hugging_face
    """

    def __init__(self, merges, alphabet, *, end_of_word=END_OF_WORD):
        alphabet = list(alphabet)  # an iterator is read once, by the check and here
        self.merges: list[Merge] = _check_bpe_args(merges, alphabet, end_of_word)
        self.end_of_word = end_of_word
        itos = list(alphabet)
        for m in self.merges:  # each merge adds its token, once
            if m.token not in itos:
                itos.append(m.token)
        self.itos: list[str] = itos
        self.stoi: dict[str, int] = {s: i for i, s in enumerate(itos)}
        self.ranks: dict[tuple[str, str], int] = {}
        for r, m in enumerate(self.merges):
            self.ranks.setdefault(m.pair, r)
        self._cache: dict[str, tuple[str, ...]] = {}

    @classmethod
    def train(cls, corpus, num_merges, *, end_of_word=END_OF_WORD, symbol_order=None):
        """Learn ``num_merges`` merges from a text or a word-frequency table.

        The merges of :func:`learn_bpe`, computed by :func:`learn_bpe_incremental`,
        which learns the same merges without recounting the corpus at every step
        (about 25 times as fast on 200,000 characters of Tiny Shakespeare;
        tests/test_tokenizers.py checks the two equal)."""
        word_counts = word_frequencies(corpus) if isinstance(corpus, str) else corpus
        # the merges of learn_bpe's loop, learned faster (the two are tested equal)
        merges = learn_bpe_incremental(
            word_counts, num_merges, end_of_word=end_of_word, symbol_order=symbol_order
        )
        alphabet = symbol_order or initial_symbols(word_counts, end_of_word)
        return cls(merges, alphabet, end_of_word=end_of_word)

    @property
    def vocab_size(self):
        """``V``: initial symbols plus one token per (distinct) merge."""
        return len(self.itos)

    def tokenize_word(self, word):
        """The tokens of one word: ``"lowest" -> ("low", "est</w>")`` after suitable
        merges."""
        if word in self._cache:
            return self._cache[word]
        symbols = split_word(word, self.end_of_word)
        _check_symbols(symbols, word, self.stoi, self.end_of_word)
        while len(symbols) > 1:
            pairs = [p for p in zip(symbols, symbols[1:]) if p in self.ranks]
            if not pairs:
                break
            first = min(pairs, key=self.ranks.__getitem__)  # the merge learned earliest
            symbols = merge_pair(symbols, first)
        self._cache[word] = symbols
        return symbols

    def tokenize(self, text):
        """``str -> list[str]``: the tokens of every whitespace-separated word, in
        order."""
        check_text(text)
        return [t for w in text.split() for t in self.tokenize_word(w)]

    def encode(self, text):
        """``str -> list[int]``: token ids ``0 .. V-1``; an unknown character raises
        ``KeyError``."""
        return [self.stoi[t] for t in self.tokenize(text)]

    def decode(self, ids):
        """``list[int] -> str``: join the tokens, each end-of-word marker becoming a
        space."""
        pieces = tokens_of(ids, self.itos)
        return "".join(pieces).replace(self.end_of_word, " ").rstrip(" ")

    def __repr__(self):
        return f"BPETokenizer(V={self.vocab_size}, merges={len(self.merges)})"


def _vocab_size_args(base_symbols: Any, merges: Any, special_tokens: Any = 0) -> tuple:
    return tuple(
        check_int(v, name, 0, "a non-negative integer")
        for name, v in (
            ("base_symbols", base_symbols),
            ("merges", merges),
            ("special_tokens", special_tokens),
        )
    )


@checked(_vocab_size_args)
def bpe_vocab_size(base_symbols, merges, special_tokens=0):
    """BPE vocabulary size ``V = base symbols + merges + special tokens``.

    Every merge adds one token (when no two merges produce the same string).  GPT-1:
    ``478 + 40_000 = 40_478``; GPT-2 and GPT-3 (byte-level BPE):
    ``256 + 50_000 + 1 = 50_257``, the one special token being ``<|endoftext|>``.

    Definition: def-06-vocab-size.
    Checked by:
    tests/test_tokenizers.py::test_gpt_vocabulary_sizes_against_transformers_configs
    """
    return base_symbols + merges + special_tokens
