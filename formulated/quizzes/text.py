"""The quizzes of part 2, From text to vectors (chapters 5-7): each number is computed here
by the book's functions, each wrong option or named mistake by the slip it is named after."""

from __future__ import annotations

import math

import numpy as np

from .model import Choice, Mistake, Numeric, Option, Question

__all__ = ["QUIZZES"]


def ch05() -> list[Question]:
    from formulated.formulas import (
        mask_autoregressive,
        multi_head_self_attention_batched,
    )

    B, n, H, A = 3, 10, 16, 2
    b, i = 2, 4  # math numbering: sequence 2, token 4
    rng = np.random.default_rng(5)
    X = rng.normal(size=(B, n, H))
    # small weights: no softmax saturates, so every reachable entry visibly moves
    W_q, W_k, W_v = (rng.normal(0, 0.3, size=(A, H, H // A)) for _ in range(3))
    W_o = rng.normal(0, 0.3, size=(H, H))
    mask = mask_autoregressive(n)

    def attend(X: np.ndarray) -> np.ndarray:
        return multi_head_self_attention_batched(X, mask, W_q, W_k, W_v, W_o)

    X2 = X.copy()
    X2[b - 1, i - 1, 0] += 0.5  # one entry of token i of sequence b
    moved = int((np.abs(attend(X2) - attend(X)) > 1e-12).sum())
    return [
        Numeric(
            prompt=f"A batch of B = {B} sequences of n = {n} tokens of width H = {H} goes "
            f"through masked (causal) self-attention. One entry of token {i} of sequence "
            f"{b} changes (counted from 1). How many output entries can change?",
            answer=moved,
            tolerance=0,
            decimals=0,
            explain=f"sequence-wise with a causal mask: the rows of tokens {i} to {n} "
            f"in sequence {b}: {n - i + 1} rows of H = {H} entries each.",
            hint=f"Which rows of the same sequence can see token {i} under the causal "
            "mask? "
            "Each such row has H entries; other sequences are never touched.",
            mistakes=(
                Mistake(
                    value=n * H,
                    feedback=f"That is every row of the sequence: under the causal mask "
                    f"token {i} stays hidden from the rows before it.",
                ),
                Mistake(
                    value=(n - i) * H,
                    feedback=f"That leaves out token {i}'s own row, which attends to "
                    "itself.",
                ),
                Mistake(
                    value=H,
                    feedback="That is one row, as for a vector-wise operation such as "
                    "LayerNorm; attention mixes rows of the sequence.",
                ),
                Mistake(
                    value=B * (n - i + 1) * H,
                    feedback="No operation of a GPT mixes the sequences of a batch: only "
                    f"sequence {b} changes.",
                ),
            ),
        ),
        Choice(
            prompt="Multiplying a B × n × H batch by the query matrix, X W^Q (W^Q of "
            "shape H × H), is which kind of operation?",
            options=(
                Option(
                    text="Vector-wise",
                    feedback="Each output row is its input row times W^Q: one function "
                    "of H numbers, applied B · n times.",
                    correct=True,
                ),
                Option(
                    text="Element-wise",
                    feedback="An output entry mixes all H entries of its row, not only "
                    "the entry at the same place.",
                ),
                Option(
                    text="Sequence-wise",
                    feedback="No row sees another row here; rows meet only later, in the "
                    "scores Q Kᵀ.",
                ),
                Option(
                    text="It mixes the batch",
                    feedback="No operation of a GPT mixes different sequences of a batch.",
                ),
            ),
        ),
        Choice(
            prompt="What is the shape of the attention scores of a batch, one matrix per "
            "head?",
            options=(
                Option(
                    text="(B, A, n, n)",
                    feedback="One n × n matrix per sequence and per head.",
                    correct=True,
                ),
                Option(
                    text="(B, n, A, D)",
                    feedback="That is the queries after the reshape, before the "
                    "transpose moves the head axis to the front.",
                ),
                Option(
                    text="(B, A, n, D)",
                    feedback="That is the queries split into heads, one (n, D) slice "
                    "per head; the scores compare every query with every key.",
                ),
                Option(
                    text="(B, n, n)",
                    feedback="That is one matrix per sequence; every head has its own "
                    "scores.",
                ),
            ),
        ),
    ]


def ch06() -> list[Question]:
    from formulated.tokenizers import (
        BPETokenizer,
        count_pairs,
        initial_symbols,
        learn_bpe,
        split_word,
        word_frequencies,
    )

    corpus = "low low low lower lowest newer newer wider"
    counts = word_frequencies(corpus)
    pairs = count_pairs({split_word(w): c for w, c in counts.items()})
    ranked = [p for p, _ in pairs.most_common(4)]
    merges = learn_bpe(counts, 4)
    tokenizer = BPETokenizer(merges, initial_symbols(counts))
    split = tokenizer.tokenize_word("lower")
    tokens = len(tokenizer.tokenize(corpus))
    characters = sum(len(w) for w in corpus.split())
    learned = ", ".join(f"{m.left} + {m.right}" for m in merges)

    def show(p: tuple[str, ...]) -> str:
        return " + ".join(p)

    return [
        Choice(
            prompt=f"Byte-pair encoding learns from the corpus “{corpus}”, with the "
            "end-of-word marker </w>. Which pair does it merge first?",
            options=tuple(
                Option(
                    text=show(p),
                    feedback=f"It is the most frequent pair ({pairs[p]} times)."
                    if p == ranked[0]
                    else f"{show(p)} occurs {pairs[p]} times; {show(ranked[0])} occurs "
                    f"{pairs[ranked[0]]} times.",
                    correct=p == ranked[0],
                )
                for p in ranked
            ),
        ),
        Choice(
            prompt=f"The first four merges learned from that corpus are, in order: "
            f"{learned}. How does the tokenizer split the word “lower”?",
            options=(
                Option(
                    text=show(split),
                    feedback="Merges apply in the order learned: l + o, then e + r</w>, "
                    "then w + er</w>; lo + w</w> needs a word-final w.",
                    correct=True,
                ),
                Option(
                    text="low + er</w>",
                    feedback="No merge makes “low” inside a word: lo + w</w> joins lo "
                    "with a word-final w only.",
                ),
                Option(
                    text="lo + w + er</w>",
                    feedback="The third merge, w + er</w>, still applies to this split.",
                ),
                Option(
                    text="lower</w>",
                    feedback="Four merges are not enough to make the whole word one "
                    "token; each merge joins two symbols only.",
                ),
            ),
        ),
        Numeric(
            prompt=f"With those four merges, into how many tokens does the whole corpus "
            f"(its {len(corpus.split())} words) split?",
            answer=tokens,
            tolerance=0,
            decimals=0,
            explain="low 1 token (three times), lower 2, lowest 5, newer 3 (twice) and "
            "wider 4 tokens.",
            hint="Split every word into characters, then apply each merge, in order, at "
            "every place it fits; count what is left.",
            mistakes=(
                Mistake(
                    value=characters,
                    feedback="That is the number of characters: the merges join "
                    "symbols, so fewer tokens remain.",
                ),
                Mistake(
                    value=characters - len(merges),
                    feedback="A merge applies at every occurrence of its pair, not once.",
                ),
            ),
        ),
        Choice(
            prompt="Compared with characters, sub-word tokens make a text's sequence…",
            options=(
                Option(
                    text="shorter, with a larger vocabulary",
                    feedback="Frequent pieces become one token each, and every merge "
                    "adds a symbol.",
                    correct=True,
                ),
                Option(
                    text="longer, with a smaller vocabulary",
                    feedback="That compares characters with sub-words, the other way "
                    "round.",
                ),
                Option(
                    text="shorter, with a smaller vocabulary",
                    feedback="Every merge adds one symbol: V = V0 + k grows.",
                ),
                Option(
                    text="equally long, with other ids",
                    feedback="Merges join symbols, so fewer tokens remain.",
                ),
            ),
        ),
    ]


def ch07() -> list[Question]:
    from formulated.formulas import positional_encoding_sinusoidal

    H, pos, entry = 8, 3, 1
    P = positional_encoding_sinusoidal(pos + 1, H)  # (n, H)
    p = 0.3
    return [
        Numeric(
            prompt=f"In the sinusoidal encoding with H = {H}, what is entry {entry} of "
            f"position {pos} (both counted from 0, as in the code)?",
            answer=float(P[pos, entry]),
            tolerance=0.005,
            decimals=3,
            explain=f"entry {entry} is odd, a cosine, with frequency 10000^0 = 1: "
            f"cos {pos}.",
            hint="Entries 2k and 2k + 1 (counted from 0) are sin and cos of "
            "p / 10000^(2k/H).",
            mistakes=(
                Mistake(
                    value=math.sin(pos),
                    feedback="That is the sine: entries with an odd index (counted from "
                    "0) are cosines.",
                ),
                Mistake(
                    value=float(P[pos - 1, entry]),
                    feedback=f"That is position {pos - 1}: positions count from 0 "
                    "here, as in the code.",
                ),
            ),
        ),
        Choice(
            prompt="ids is a vector of n token ids and W_e the (V, H) embedding matrix. "
            "one_hot(ids, V) @ W_e equals which array?",
            options=(
                Option(
                    text="W_e[ids]",
                    feedback="Row i of the one-hot matrix has its single 1 in column "
                    "ids[i], so the product copies row ids[i] of W_e.",
                    correct=True,
                ),
                Option(
                    text="W_e.T[ids]",
                    feedback="That picks columns of W_e; the one-hot rows pick rows.",
                ),
                Option(
                    text="ids @ W_e",
                    feedback="ids holds indices, not vectors: a product with it would "
                    "weigh rows by the id numbers.",
                ),
                Option(
                    text="W_e[ids].sum(0)",
                    feedback="The product keeps one row per token; summing them would "
                    "lose the order.",
                ),
            ),
        ),
        Numeric(
            prompt=f"Dropout with p = {p} as PyTorch computes it: by what factor is a "
            "kept entry multiplied in training?",
            answer=1 / (1 - p),
            tolerance=0.005,
            decimals=3,
            explain="1 / (1 − p), so the expected value is unchanged.",
            hint="The kept entries are divided by the probability of keeping them.",
            mistakes=(
                Mistake(
                    value=1 - p,
                    feedback="That multiplies by 1 − p; PyTorch divides by it.",
                ),
                Mistake(
                    value=1 + p,
                    feedback="That adds p; the factor is 1 / (1 − p), which keeps the "
                    "expected value unchanged.",
                ),
            ),
        ),
    ]


#: quiz id -> the function that builds that chapter's questions.
QUIZZES = {"ch05": ch05, "ch06": ch06, "ch07": ch07}
