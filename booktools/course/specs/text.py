"""The exercises of part Text (chapters 5-7): their specs, tests and fairness answers.

How a test function becomes an otter test, and what the fairness answers hold:
:mod:`booktools.course.specs.spec`.
"""

from __future__ import annotations

import numpy as np

from booktools.course.specs.spec import (
    Spec,
    auto,
    bpe_merges_problem,
    float32,
    open_ended,
    written,
)

SPECS: dict[str, Spec] = {}
ANSWERS: dict = {}
INPUTS: dict[str, set[str]] = {}
SHORTCUTS: dict[str, str] = {}
GUESSES: dict[str, list[str]] = {}

# --------------------------------------------------------------------------- chapter 5
SPECS["ex-05-1"] = written(
    "1 point: the translation B, n, H, A, D and the three shapes B x n x H "
    "-> B x n x A x D -> B x A x n x D with the weight H x AD (= H x H). 1 "
    "point: the GPT-2 small numbers 8 x 1024 x 768 -> 8 x 1024 x 12 x 64 -> "
    "8 x 12 x 1024 x 64 and 768 x 768. Half a point off per swapped letter "
    "pair (for example H and A)."
)
SPECS["ex-05-2"] = written(
    "1 point: both sizes in MiB. 1 point: the n^2 (attention weights) "
    "against n (activations) growth explained. Half a point for a size off "
    "by a unit."
)
SPECS["ex-05-3"] = written(
    "1 point: 'vector-wise' and the prediction (the V entries of one row). "
    "1 point: the check run and agreeing. Half a point for the prediction "
    "without the check's agreement."
)
SPECS["ex-05-4"] = written(
    "1 point: the box only needs the concatenation (n x AD) to match W^O, "
    "so any D works; GPT-2 splits the columns of one H x H matrix into A "
    "blocks, forcing D = H/A (an implementation choice). 1 point: the run "
    "with H = 6, A = 4, D = 5 showing a (n, 20) concatenation and an (n, 6) "
    "output."
)


# --------------------------------------------------------------------------- chapter 6
def my_merges_leave_every_word_one_token(my_merges):
    assert len(my_merges) > 0 and all(
        len(m) == 2 and all(isinstance(s, str) for s in m) for m in my_merges
    ), "my_merges: expected a list of pairs of strings"
    words = [["a", "b</w>"], ["a", "b", "c</w>"], ["b", "c</w>"]]
    for left, right in my_merges:
        for w in words:
            i = 0
            while i < len(w) - 1:
                w[i : i + 2] = (
                    [left + right]
                    if (w[i], w[i + 1]) == (left, right)
                    else w[i : i + 2]
                )
                i += 1
    assert all(len(w) == 1 for w in words), (
        "my_merges: after your merges every word should be a single token"
    )


def my_merges_are_a_bpe_run(my_merges):
    assert bpe_merges_problem({"ab": 4, "abc": 2, "bc": 3}, list(my_merges)) == ""


SPECS["ex-06-1"] = auto(
    "my_merges",
    [my_merges_leave_every_word_one_token],
    [my_merges_are_a_bpe_run],
    checks="that it is a list of pairs of strings that leaves every word a single token "
    "(not the order nor the counts)",
)


def _ex_06_1_answers():
    right = [("b", "c</w>"), ("a", "b</w>"), ("a", "bc</w>")]
    return (
        {},
        {
            "float64": {"my_merges": right},
            "float32": {  # the same list, rebuilt
                "my_merges": [("a", "b</w>"), ("b", "c</w>"), ("a", "bc</w>")][1::-1]
                + [("a", "bc</w>")]
            },
            "mistake 1": {
                "my_merges": [("a", "b</w>"), ("b", "c</w>"), ("a", "bc</w>")]
            },
            "mistake 2": {
                "my_merges": [("a", "b"), ("b", "c"), ("ab", "c")]
            },  # no end mark
        },
    )


ANSWERS["ex-06-1"] = _ex_06_1_answers
GUESSES["ex-06-1"] = ["my_merges = [('a', 'b</w>')]"]

SPECS["ex-06-2"] = open_ended()
SPECS["ex-06-3"] = written(
    "(a) V = 256 + 32,000 + 3 = 32,259: half a point. (b) byte-level base "
    "symbols cover every UTF-8 text while a character-level BPE lacks "
    "characters unseen in training ('é'): 1 point. (c) V*H: 31,087,104 for "
    "GPT-1 and 38,597,376 for GPT-2: half a point."
)


def k_merges_are_enough(BPETokenizer, ours, init, wc, k_merges):
    def pieces(k):
        # one tokenizer for all the words (built per word, the corpus's 8,100 words took 11 s)
        tokenizer = BPETokenizer(ours[:k], init)
        return sum(c * len(tokenizer.tokenize_word(w)) for w, c in wc.items())

    assert 0 < int(k_merges) <= len(ours) and pieces(int(k_merges)) <= 2.5 * sum(
        wc.values()
    ), (
        "k_merges: a number of merges of ours after which a word takes at most 2.5 "
        "tokens on average"
    )


def k_merges_are_the_fewest(BPETokenizer, ours, init, wc, k_merges):
    n_words = sum(wc.values())

    def count(k):
        # one tokenizer for all the words (built per word, the two counts took 25 s)
        tokenizer = BPETokenizer(ours[:k], init)
        return sum(len(tokenizer.tokenize_word(w)) * c for w, c in wc.items())

    assert count(int(k_merges)) <= 2.5 * n_words < count(int(k_merges) - 1)


SPECS["ex-06-4"] = auto(
    "k_merges",
    [k_merges_are_enough],
    [k_merges_are_the_fewest],
    checks="the range and that k_merges merges are enough (not that they are the fewest)",
)


def _ex_06_4_answers():
    from formulated.tokenizers import (
        BPETokenizer,
        initial_symbols,
        learn_bpe,
        word_frequencies,
    )

    text = (
        "the cat sat on the mat and the dog sat on the log while the cat ran " * 3
        + "a rat and a bat sat flat on a hat that the cat had"
    )
    wc = word_frequencies(text)
    init = initial_symbols(wc)
    ours = learn_bpe(wc, 40)
    ctx = {"wc": wc, "init": init, "ours": ours, "BPETokenizer": BPETokenizer}
    n_words = sum(wc.values())

    def count(k):
        return sum(
            len(BPETokenizer(ours[:k], init).tokenize_word(w)) * c
            for w, c in wc.items()
        )

    k = next(k for k in range(len(ours) + 1) if count(k) <= 2.5 * n_words)
    return ctx, {
        "float64": {"k_merges": k},
        "float32": {"k_merges": np.int64(k)},
        "mistake 1": {"k_merges": k - 1},  # last one above 2.5 tokens per word
        "mistake 2": {"k_merges": k + 1},  # one past the smallest
    }


ANSWERS["ex-06-4"] = _ex_06_4_answers
GUESSES["ex-06-4"] = ["k_merges = 1"]

# --------------------------------------------------------------------------- chapter 7
SPECS["ex-07-1"] = written(
    "Each of three parts: the dense cost n V H = 3.95e10 multiply-adds, the "
    "n H = 786,432 with a nonzero factor, and n V = 51,463,168 entries x 4 "
    "bytes = 206 MB. 2 points for all three, 1 point for two; a wrong unit "
    "(MiB/MB mixed up with the unit stated) is not penalized."
)
SPECS["ex-07-2"] = written(
    "1 point: each sin/cos column pair gives cos(omega_k (p - q)) by the "
    "subtraction formula, summed over H/2 pairs. 1 point: every cosine <= "
    "1, so the sum <= H/2 with equality at p = q. The remark on p != q is "
    "not required."
)


def R3_is_a_rotation(R3):
    import numpy as np

    R = np.asarray(R3, dtype=float)
    assert R.shape == (8, 8) and np.allclose(R @ R.T, np.eye(8), rtol=0, atol=2e-3), (
        "R3: expected an 8 x 8 rotation (orthonormal rows)"
    )


def R3_shifts_the_positions_by_three(R3):
    import numpy as np
    import torch

    p = torch.arange(60, dtype=torch.float64)[:, None]
    w = 10000.0 ** (-torch.arange(0, 8, 2, dtype=torch.float64) / 8)
    pe = torch.stack([torch.sin(p * w), torch.cos(p * w)], -1).reshape(60, 8).numpy()
    assert np.allclose(pe[3:], pe[:57] @ np.asarray(R3, dtype=float), rtol=0, atol=5e-4)


SPECS["ex-07-3"] = auto(
    "R3",
    [R3_is_a_rotation],
    [R3_shifts_the_positions_by_three],
    checks="the shape and that R3 is orthogonal (any rotation passes it)",
    written="1 point: the addition formulas turn the pair (sin, cos)(omega_k (p + s)) "
    "into the pair at p rotated by the angle omega_k s, a 2 x 2 block that does not "
    "depend on p; R_s is block-diagonal with these blocks. Half a point for the blocks "
    "without the argument that they do not depend on p.",
)


def _ex_07_3_answers():
    def R(s, H, i_scale=2):
        out = np.zeros((H, H))
        for k in range(H // 2):
            b = s / 10000 ** (i_scale * k / H)
            out[2 * k : 2 * k + 2, 2 * k : 2 * k + 2] = [
                [np.cos(b), -np.sin(b)],
                [np.sin(b), np.cos(b)],
            ]
        return out

    good = R(3, 8)
    return {}, {
        "float64": {"R3": good},
        "float32": {"R3": float32(good)},
        "mistake 1": {"R3": good.T},  # rotation reversed
        "mistake 2": {"R3": R(3, 8, i_scale=1)},  # wrong frequencies
    }


ANSWERS["ex-07-3"] = _ex_07_3_answers

SPECS["ex-07-4"] = written(
    "1 point: rows 2, 5, 7 and the gradient of row 2 (all 2). 1 point: the "
    "explanation through O^T (each occurrence adds its row). Half a point "
    "for the rows without the gradient."
)
