"""Tokenizers: CharTokenizer's errors, and byte-pair encoding checked by hand and against
Hugging Face ``tokenizers`` (models.BPE + trainers.BpeTrainer, trained here, nothing downloaded)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _chapters import ROOT
from hypothesis import given
from hypothesis import strategies as st

from formulated.tokenizers import (
    END_OF_WORD,
    BPETokenizer,
    CharTokenizer,
    Merge,
    bpe_vocab_size,
    count_pairs,
    greedy_bpe_states,
    initial_symbols,
    learn_bpe,
    learn_bpe_incremental,
    merge_pair,
    split_word,
    word_frequencies,
)

SHAKESPEARE = (ROOT / "data" / "tinyshakespeare.txt").read_text(encoding="utf-8")
LECTURE = {"low": 1, "lower": 1, "newest": 1, "widest": 1}  # source 003: each word once


# -- CharTokenizer ------------------------------------------------------------------------------


def test_char_tokenizer_stoi_itos_round_trip():
    tok = CharTokenizer.from_text("hello world")
    assert tok.itos == sorted(set("hello world"))
    assert tok.stoi["d"] == 1 and tok.itos[1] == "d"  # ' ' (32) sorts before 'd'
    assert tok.decode(tok.encode("droll")) == "droll"


def test_char_tokenizer_unknown_character_is_named():
    tok = CharTokenizer.from_text("abc")
    with pytest.raises(KeyError, match=r"unknown character\(s\) \['z'\].*position 2"):
        tok.encode("abz")


@pytest.mark.parametrize("bad", [[3], [-1], [0, 1, 7]])
def test_char_tokenizer_ids_outside_vocab(bad):
    tok = CharTokenizer.from_text("abc")
    with pytest.raises(ValueError, match=r"ids: expected token ids in 0\.\.2 \(V=3\)"):
        tok.decode(bad)


@pytest.mark.parametrize("bad", [[0.0, 1.0], np.array([1.5]), [True, False]])
def test_char_tokenizer_float_or_bool_ids(bad):
    tok = CharTokenizer.from_text("abc")
    with pytest.raises(TypeError, match="ids: expected integer token ids"):
        tok.decode(bad)


def test_char_tokenizer_bad_construction():
    with pytest.raises(ValueError, match="distinct"):
        CharTokenizer(["a", "a"])
    with pytest.raises(ValueError, match="single characters"):
        CharTokenizer(["ab"])
    with pytest.raises(ValueError, match="non-empty string"):
        CharTokenizer.from_text("")
    with pytest.raises(TypeError, match="text: expected a string"):
        CharTokenizer.from_text("ab").encode(["a"])


# -- BPE by hand -------------------------------------------------------------------------------


def test_split_and_merge_pair():
    assert split_word("low") == ("l", "o", "w</w>")
    assert split_word("low", end_of_word="") == ("l", "o", "w")
    assert merge_pair(("a", "a", "a"), ("a", "a")) == (
        "aa",
        "a",
    )  # left to right, no overlap
    assert merge_pair(("l", "o", "w", "l", "o"), ("l", "o")) == ("lo", "w", "lo")


def test_pair_counts_of_the_lecture_example_by_hand():
    # Without a marker: l-o and o-w occur in low and lower; w-e in lower and newest;
    # e-s and s-t in newest and widest; every other pair once.
    counts = count_pairs({split_word(w, ""): c for w, c in LECTURE.items()})
    twice = {p for p, c in counts.items() if c == 2}
    assert twice == {("l", "o"), ("o", "w"), ("w", "e"), ("e", "s"), ("s", "t")}
    assert set(counts.values()) == {1, 2}


def test_lecture_example_merges_by_hand():
    # With the end-of-word marker, w-e still occurs twice (lower, newest) and s-t</w> twice.
    # Ties go to the pair whose symbols come first in the vocabulary (characters sorted):
    # (e, s) before (l, o) before (s, t</w>) and (w, e).  After e+s, (s, t</w>) is gone and
    # (es, t</w>) occurs twice; (w, e) now occurs once (newest has w-es).
    merges = learn_bpe(LECTURE, 3)
    assert merges == [Merge("e", "s", 2), Merge("l", "o", 2), Merge("es", "t</w>", 2)]
    # The source's table merges (l, o) and then (o, w): after l+o, o-w no longer occurs.
    after = {merge_pair(split_word(w, ""), ("l", "o")): c for w, c in LECTURE.items()}
    assert count_pairs(after)[("o", "w")] == 0


def _brute_force_greedy_states(word_counts: dict[str, int], end_of_word: str) -> set:
    """Every state greedy BPE can reach, found by trying every tie choice (independent of
    formulated.tokenizers: own split, own pair count, and subword-nmt's regex merge)."""
    import re

    freqs = list(word_counts.values())
    start = tuple(tuple(w[:-1]) + (w[-1] + end_of_word,) for w in word_counts)
    seen: set = set()

    def visit(state: tuple) -> None:
        if state in seen:  # another order of the same merges got here already
            return
        seen.add(state)
        counts: dict = {}
        for symbols, f in zip(state, freqs):
            for k in range(len(symbols) - 1):
                counts[symbols[k : k + 2]] = counts.get(symbols[k : k + 2], 0) + f
        for (a, b), c in counts.items():
            if c == max(
                counts.values()
            ):  # every most frequent pair is a legal next merge
                pattern = re.compile(r"(?<!\S)" + re.escape(a + " " + b) + r"(?!\S)")
                visit(
                    tuple(tuple(pattern.sub(a + b, " ".join(s)).split()) for s in state)
                )

    visit(start)
    return seen


def test_greedy_bpe_states_by_hand():
    # a-b</w> and a-c</w> tie at 3: either goes first, then the other; 4 states in all.
    E = END_OF_WORD
    assert greedy_bpe_states({"ab": 3, "ac": 3}) == {
        (("a", "b" + E), ("a", "c" + E)),
        (("ab" + E,), ("a", "c" + E)),
        (("a", "b" + E), ("ac" + E,)),
        (("ab" + E,), ("ac" + E,)),
    }
    # a a a without a marker: (a, a) occurs twice (overlapping), merges once (left to right).
    assert greedy_bpe_states({"aaa": 1}, end_of_word="") == {
        (("a", "a", "a"),),
        (("aa", "a"),),
        (("aaa",),),
    }
    # a-b 3 beats b-c 2, so (b, c) is never merged first: no state has "bc".
    assert greedy_bpe_states({"abc": 2, "ab": 1}, end_of_word="") == {
        (("a", "b", "c"), ("a", "b")),
        (("ab", "c"), ("ab",)),
        (("abc",), ("ab",)),
    }


@pytest.mark.parametrize(
    "wc, eow",
    [
        ({"ab": 3, "ac": 3}, END_OF_WORD),
        ({"aaa": 1}, END_OF_WORD),  # (a, a) and (a, a</w>) tie
        ({"aaa": 1}, ""),
        ({"abc": 1, "bcd": 1}, ""),  # b-c first, then a 3-way tie of count 1
        ({"abab": 2, "ba": 3}, END_OF_WORD),
        ({"abc": 2, "cab": 2, "bca": 2}, ""),
        (LECTURE, ""),  # the cases the erratum 003-bpe-tables relies on
        ({"low": 5, "lower": 2, "newest": 6, "widest": 3}, ""),
    ],
)
def test_greedy_bpe_states_equals_brute_force(wc, eow):
    """Complete under every tie-breaking (the unreachability claim needs it), and nothing more."""
    expected = _brute_force_greedy_states(wc, eow)
    assert greedy_bpe_states(wc, end_of_word=eow) == expected
    assert len(expected) > 2  # every case has at least two merges to make


def test_source_result_is_unreachable_by_greedy_bpe():
    source_result = (
        ("lo", "w"),
        ("lo", "w", "er"),
        ("ne", "w", "est"),
        ("wi", "d", "est"),
    )
    states = greedy_bpe_states(LECTURE, end_of_word="")
    assert source_result not in states
    # ... while the run of learn_bpe (one tie-breaking order) passes through reachable states only
    merges = learn_bpe(LECTURE, 100, end_of_word="")
    state = tuple(split_word(w, "") for w in LECTURE)
    for m in merges:
        state = tuple(merge_pair(s, m.pair) for s in state)
        assert state in states
    assert state == (("low",), ("lower",), ("newest",), ("widest",))


def test_merge_counts_equal_a_full_recount():
    """The incremental count update agrees with recounting every pair from scratch (the slow,
    obviously-correct algorithm) at every step, and counts never increase."""
    wc = word_frequencies(SHAKESPEARE[:20_000])
    merges = learn_bpe_incremental(wc, 60)
    seg = {w: split_word(w) for w in wc}
    for m in merges:
        counts = count_pairs({seg[w]: c for w, c in wc.items()})
        top = max(counts.values())
        assert m.count == counts[m.pair] == top
        seg = {w: merge_pair(s, m.pair) for w, s in seg.items()}
    assert all(a.count >= b.count for a, b in zip(merges, merges[1:]))


@given(
    st.dictionaries(
        st.text(alphabet="abcde", min_size=1, max_size=6),
        st.integers(min_value=1, max_value=5),
        min_size=1,
        max_size=8,
    ),
    st.integers(min_value=0, max_value=12),
)
def test_merges_are_greedy_under_some_tie_breaking(wc, k):
    merges = learn_bpe(wc, k)
    states = greedy_bpe_states(wc)
    state = tuple(split_word(w) for w in wc)
    for m in merges:
        state = tuple(merge_pair(s, m.pair) for s in state)
        assert state in states


def _same(a: list[Merge], b: list[Merge]) -> bool:
    """Equal merges, counts and recorded ties (``tied_with`` is left out of ``==``)."""
    return a == b and [m.tied_with for m in a] == [m.tied_with for m in b]


@pytest.mark.parametrize(
    "wc, k, options",
    [
        (LECTURE, 1000, {}),
        (LECTURE, 1000, {"end_of_word": ""}),
        ({"ab": 3, "ac": 3, "ad": 3}, 5, {}),  # a three-way tie
        ({"ab": 3, "ac": 3, "ad": 3}, 5, {"end_of_word": ""}),
        ({"aaa": 2, "aaaa": 1, "ba": 2}, 6, {}),  # overlapping pairs
        ({"ab": 2, "ba": 2}, 3, {"end_of_word": "", "symbol_order": ("b", "a")}),
        ({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10, {}),  # Sennrich's
        (word_frequencies(SHAKESPEARE[:20_000]), 80, {}),
    ],
)
def test_incremental_bpe_equals_the_textbook_loop(wc, k, options):
    """The fast learner (counts updated for the touched words only) learns the merges of the
    book's loop (every pair recounted at every step), ties included."""
    assert _same(learn_bpe_incremental(wc, k, **options), learn_bpe(wc, k, **options))


@given(
    st.dictionaries(
        st.text(alphabet="abc", min_size=1, max_size=7),
        st.integers(min_value=1, max_value=3),
        min_size=1,
        max_size=10,
    ),
    st.integers(min_value=0, max_value=15),
    st.sampled_from(["", END_OF_WORD]),
)
def test_incremental_bpe_equals_the_textbook_loop_on_random_corpora(wc, k, eow):
    # small alphabets and counts: many ties
    assert _same(
        learn_bpe_incremental(wc, k, end_of_word=eow), learn_bpe(wc, k, end_of_word=eow)
    )


def test_both_bpe_learners_check_their_arguments_alike():
    for learner in (learn_bpe, learn_bpe_incremental):
        with pytest.raises(TypeError, match="num_merges"):
            learner({"ab": 1}, 1.0)
        with pytest.raises(
            ValueError, match="symbol_order: expected every initial symbol"
        ):
            learner({"ab": 1}, 1, end_of_word="", symbol_order=["a"])


# -- BPE against Hugging Face tokenizers --------------------------------------------------------


def _hf_bpe(text: str, vocab_size: int):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(end_of_word_suffix=END_OF_WORD))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=0,
        show_progress=False,
        end_of_word_suffix=END_OF_WORD,
    )
    tok.train_from_iterator([text], trainer)
    model = json.loads(tok.to_str())["model"]
    merges = [tuple(m) for m in model["merges"]]
    order = [s for s, _ in sorted(model["vocab"].items(), key=lambda kv: kv[1])]
    return tok, merges, order


def test_lecture_example_equals_hugging_face():
    text = " ".join(LECTURE)
    _, hf, _ = _hf_bpe(text, 1000)  # large: HF stops when no pair is left
    ours = learn_bpe(LECTURE, 1000)
    assert [m.pair for m in ours] == hf
    assert len(hf) == 13


def _explained(
    ours: list[Merge], hf: list[tuple[str, str]], initial: list[str]
) -> None:
    """Equal, or the first difference is a tie that only the numbering of end-of-word symbols
    decides (Hugging Face numbers them in hash-map order, which changes from run to run): same
    count, same left symbol, and both right symbols initial end-of-word symbols."""
    pairs = [m.pair for m in ours]
    if pairs == hf:
        return
    k = next(i for i, (a, b) in enumerate(zip(pairs, hf)) if a != b)
    marker = {s for s in initial if s.endswith(END_OF_WORD)}
    assert hf[k] in ours[k].tied_with, (k, pairs[k], hf[k], ours[k].tied_with)
    assert pairs[k][1] in marker and hf[k][1] in marker, (k, pairs[k], hf[k])


def test_shakespeare_slice_equals_hugging_face():
    text = SHAKESPEARE[:200_000]
    wc = word_frequencies(text)
    n_merges = 400
    tok, hf, hf_order = _hf_bpe(text, len(initial_symbols(wc)) + n_merges)
    ours = learn_bpe_incremental(wc, n_merges)  # the textbook loop's merges, faster
    assert len(hf) == n_merges
    _explained(ours, hf, initial_symbols(wc))
    # With Hugging Face's own numbering of the initial symbols, every merge is the same.
    exact = learn_bpe_incremental(
        wc, n_merges, symbol_order=hf_order[: len(initial_symbols(wc))]
    )
    assert [m.pair for m in exact] == hf
    # Same vocabulary, and the encoder gives the same tokens on held-out text.
    bpe = BPETokenizer.train(text, n_merges)
    assert bpe.vocab_size == tok.get_vocab_size()
    assert set(bpe.itos) == set(tok.get_vocab())
    held = " ".join(
        w
        for w in SHAKESPEARE[-30_000:].split()
        if all(s in bpe.stoi for s in split_word(w))
    )
    assert bpe.tokenize(held) == tok.encode(held).tokens


def test_tie_on_end_of_word_symbols_is_the_only_difference():
    # a-b</w> and a-c</w> both occur 3 times: the tie is decided by how the end-of-word symbols
    # b</w> and c</w> are numbered -- sorted here, in hash-map order in Hugging Face.
    wc = {"ab": 3, "ac": 3}
    ours = learn_bpe(wc, 2)
    assert ours == [Merge("a", "b</w>", 3), Merge("a", "c</w>", 3)]
    assert ours[0].tied_with == (("a", "c</w>"),) and ours[1].tied_with == ()
    _, hf, hf_order = _hf_bpe("ab ab ab ac ac ac", 100)
    assert sorted(hf) == sorted(m.pair for m in ours)
    exact = learn_bpe(wc, 2, symbol_order=hf_order[: len(initial_symbols(wc))])
    assert [m.pair for m in exact] == hf


# -- BPETokenizer: round trips and errors -------------------------------------------------------

_BPE = BPETokenizer.train(
    " ".join(
        ["a", "b", "c", "d", "ab", "abc", "bcd", "dab", "cab", "abab", "dd", "cc"] * 3
    ),
    10,
)


@given(
    st.lists(st.text(alphabet="abcd", min_size=1, max_size=8), max_size=12),
    st.sampled_from([" ", "  ", "\n", " \t "]),
)
def test_bpe_round_trip(words, sep):
    text = sep.join(words)
    ids = _BPE.encode(text)
    assert all(isinstance(i, int) and 0 <= i < _BPE.vocab_size for i in ids)
    assert _BPE.decode(ids) == " ".join(text.split())
    assert len(ids) <= sum(len(w) for w in words)  # merging never lengthens a word


@given(st.text(alphabet="abcd", min_size=1, max_size=10))
def test_bpe_tokens_spell_the_word(word):
    tokens = _BPE.tokenize_word(word)
    assert "".join(tokens) == word + END_OF_WORD
    assert all(t in _BPE.stoi for t in tokens)


def test_bpe_tokenizer_errors():
    with pytest.raises(KeyError, match=r"unknown symbol 'z</w>' in the word 'az'"):
        _BPE.encode("ab az")
    tok = BPETokenizer.train("low lower", 2)
    with pytest.raises(KeyError, match="'o' is known, but never ended a word"):
        tok.encode("lo")
    with pytest.raises(ValueError, match=r"ids: expected token ids in 0\.\."):
        _BPE.decode([_BPE.vocab_size])
    with pytest.raises(TypeError, match="ids: expected integer token ids"):
        _BPE.decode([1.0])
    with pytest.raises(TypeError, match="text: expected a string"):
        _BPE.encode(b"ab")
    with pytest.raises(
        ValueError, match="merges\\[0\\]: expected symbols already in the vocabulary"
    ):
        BPETokenizer([("x", "y")], ["a", "b"])
    with pytest.raises(ValueError, match="end_of_word: expected a non-empty marker"):
        BPETokenizer([], ["a"], end_of_word="")


def test_learn_bpe_bad_input():
    with pytest.raises(TypeError, match="word_counts: expected a mapping"):
        learn_bpe("low lower", 3)
    with pytest.raises(ValueError, match="word_counts: expected at least one word"):
        learn_bpe({}, 3)
    with pytest.raises(ValueError, match="positive integer count for 'low'"):
        learn_bpe({"low": 0}, 3)
    with pytest.raises(ValueError, match="without whitespace"):
        learn_bpe({"lo w": 2}, 3)
    with pytest.raises(
        ValueError, match="num_merges: expected a non-negative integer, got -1"
    ):
        learn_bpe(LECTURE, -1)
    with pytest.raises(TypeError, match="num_merges: expected a non-negative integer"):
        learn_bpe(LECTURE, 2.0)
    with pytest.raises(ValueError, match="symbol_order: expected every initial symbol"):
        learn_bpe(LECTURE, 2, symbol_order=["l", "o"])
    with pytest.raises(ValueError, match="word: expected a non-empty string"):
        split_word("")
    assert learn_bpe(LECTURE, 0) == []
    # the loop stops when every word is one token, before num_merges: a + b</w>, no more
    assert learn_bpe({"ab": 1, "b": 4}, 10) == [Merge("a", "b</w>", 1)]


# -- Vocabulary sizes of GPT-1/2/3 -----------------------------------------------------------


def test_gpt_vocabulary_sizes_against_transformers_configs():
    from tokenizers import pre_tokenizers
    from transformers import GPT2Config, OpenAIGPTConfig

    assert bpe_vocab_size(478, 40_000) == OpenAIGPTConfig().vocab_size == 40_478
    assert (
        len(pre_tokenizers.ByteLevel.alphabet()) == 256
    )  # byte-level BPE's base symbols
    assert bpe_vocab_size(256, 50_000, 1) == GPT2Config().vocab_size == 50_257
    with pytest.raises(ValueError, match="merges: expected a non-negative integer"):
        bpe_vocab_size(256, -5)
