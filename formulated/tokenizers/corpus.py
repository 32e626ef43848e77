"""Byte-pair encoding's corpus (chapter 6): words as symbols, their adjacent pairs counted and
merged.

The corpus is a table of word frequencies (:func:`word_frequencies`); each word starts as its
characters, the end-of-word marker glued to the last one (:func:`split_word`); a merge replaces
a pair by its concatenation (:func:`merge_pair`) and the pairs are counted with the words'
frequencies (:func:`count_pairs`).  :func:`greedy_bpe_states` follows every tie of greedy BPE.
The learner and the tokenizer built on these are in :mod:`formulated.tokenizers.bpe`; the
``check_*`` functions check the arguments that both modules take.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Mapping, Sequence

from .._checks import check_positive_int, is_int

__all__ = [
    "END_OF_WORD",
    "word_frequencies",
    "split_word",
    "merge_pair",
    "count_pairs",
    "initial_symbols",
    "greedy_bpe_states",
    "check_end_of_word",
    "check_word_counts",
    "check_symbol_order",
]

END_OF_WORD = "</w>"


def word_frequencies(text: str) -> dict[str, int]:
    """Pre-tokenize ``text`` on whitespace and count the words (in order of first appearance).

    ``"low low lower" -> {"low": 2, "lower": 1}``.  Whitespace itself is not kept: BPE learns
    sub-words *inside* words, and the end-of-word marker records where a word stops.
    """
    if not isinstance(text, str):
        raise TypeError(f"text: expected a string, got {type(text).__name__}")
    return dict(Counter(text.split()))


def split_word(word: str, end_of_word: str = END_OF_WORD) -> tuple[str, ...]:
    """A word as its initial symbols: ``"low" -> ("l", "o", "w</w>")``.

    With ``end_of_word=""`` there is no marker: ``("l", "o", "w")`` (the lecture notes' setting).
    """
    if not isinstance(word, str) or not word or any(c.isspace() for c in word):
        raise ValueError(
            f"word: expected a non-empty string without whitespace, got {word!r}"
        )
    check_end_of_word(end_of_word)
    return tuple(word[:-1]) + (word[-1] + end_of_word,)


def check_end_of_word(end_of_word: Any) -> str:
    """The end-of-word marker is glued to strings: it must be a string (``""``: no marker)."""
    if not isinstance(end_of_word, str):
        raise TypeError(
            f"end_of_word: expected a string such as {END_OF_WORD!r} (or '' for no "
            f"marker), got {end_of_word!r} ({type(end_of_word).__name__})"
        )
    return end_of_word


def merge_pair(symbols: Sequence[str], pair: tuple[str, str]) -> tuple[str, ...]:
    """Replace every occurrence of ``pair`` in ``symbols`` by the joined symbol, left to right.

    Occurrences do not overlap: merging ``("a", "a")`` in ``a a a`` gives ``aa a``.
    """
    # A string "ab" would unpack as ("a", "b") and a 3-tuple would fail to unpack: both are
    # rejected with the argument's name.
    if not (
        isinstance(pair, (tuple, list))
        and len(pair) == 2
        and isinstance(pair[0], str)
        and isinstance(pair[1], str)
        and pair[0]
        and pair[1]
    ):
        raise ValueError(
            f"pair: expected a pair of two non-empty symbols (left, right), "
            f"got {pair!r}"
        )
    left, right = pair
    # learn_bpe calls this for every word at every merge, and most words hold no pair to merge
    if left not in symbols or right not in symbols:
        return tuple(symbols)
    out: list[str] = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == left and symbols[i + 1] == right:
            out.append(left + right)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def count_pairs(segmented: Mapping[tuple[str, ...], int]) -> Counter:
    """Frequency of every adjacent pair of symbols: ``sum over words of count(word) * occurrences``.

    ``segmented`` maps a word, as its current tuple of symbols, to its frequency.
    """
    counts: Counter = Counter()
    for symbols, freq in segmented.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] += freq
    return counts


def check_word_counts(word_counts: Mapping[str, int]) -> dict[str, int]:
    if isinstance(word_counts, str) or not isinstance(word_counts, Mapping):
        raise TypeError(
            f"word_counts: expected a mapping word -> count (use word_frequencies(text) "
            f"for a text), got {type(word_counts).__name__}"
        )
    if not word_counts:
        raise ValueError("word_counts: expected at least one word, got none")
    for w, c in word_counts.items():
        if not isinstance(w, str) or not w or any(ch.isspace() for ch in w):
            raise ValueError(
                f"word_counts: expected words without whitespace, got {w!r}"
            )
        if not is_int(c) or c < 1:
            raise ValueError(
                f"word_counts: expected a positive integer count for {w!r}, got {c!r}"
            )
    return {w: int(c) for w, c in word_counts.items()}


def initial_symbols(
    word_counts: Mapping[str, int], end_of_word: str = END_OF_WORD
) -> list[str]:
    """The vocabulary before any merge, in the trainer's tie-breaking order.

    Every character of the corpus, sorted by code point, then the end-of-word symbols
    (``"w</w>"``) that occur, sorted the same way.  (Hugging Face's ``BpeTrainer`` lists the
    characters in the same order; it numbers the end-of-word symbols in the order it meets them.)
    """
    word_counts = check_word_counts(word_counts)
    check_end_of_word(end_of_word)
    chars = sorted({c for w in word_counts for c in w})
    finals = sorted({w[-1] + end_of_word for w in word_counts}) if end_of_word else []
    return chars + [s for s in finals if s not in chars]


def check_symbol_order(symbol_order: Any) -> list[str]:
    """Distinct non-empty strings: a duplicate would give one symbol two ranks (the later one
    silently winning), so the tie-breaks would not follow the order given."""
    if isinstance(symbol_order, str) or not isinstance(symbol_order, Iterable):
        raise TypeError(
            f"symbol_order: expected a sequence of symbols (strings), got "
            f"{type(symbol_order).__name__}"
        )
    order = list(symbol_order)
    for s in order:
        if not isinstance(s, str) or not s:
            raise ValueError(f"symbol_order: expected non-empty strings, got {s!r}")
    dups = sorted(s for s, c in Counter(order).items() if c > 1)
    if dups:
        raise ValueError(
            f"symbol_order: expected distinct symbols, got duplicates {dups[:5]}"
        )
    return order


def greedy_bpe_states(
    word_counts: Mapping[str, int],
    *,
    end_of_word: str = END_OF_WORD,
    max_states: int = 100_000,
) -> set[tuple[tuple[str, ...], ...]]:
    """Every segmentation of the corpus that greedy BPE can reach, under *any* tie-breaking.

    A state is the tuple of the words' current symbols (words in the order of ``word_counts``).
    From a state, each pair with the highest count (if it occurs at all) may be merged next; the
    search follows all of them.  Meant for textbook-sized corpora: it raises if more than
    ``max_states`` states are reachable.
    """
    word_counts = check_word_counts(word_counts)
    check_end_of_word(end_of_word)
    max_states = check_positive_int(max_states, "max_states")
    freqs = list(word_counts.values())
    start = tuple(split_word(w, end_of_word) for w in word_counts)
    seen = {start}
    frontier = [start]
    while frontier:
        state = frontier.pop()
        counts = count_pairs(
            dict(zip(state, freqs))
        )  # distinct words never share a segmentation
        if not counts:
            continue
        top = max(counts.values())
        for pair, c in counts.items():
            if c != top:
                continue
            nxt = tuple(merge_pair(s, pair) for s in state)
            if nxt not in seen:
                seen.add(nxt)
                frontier.append(nxt)
                if len(seen) > max_states:
                    raise ValueError(
                        f"max_states: expected at most {max_states} reachable states, "
                        "got more; use a smaller corpus"
                    )
    return seen
