"""The exercises of part Models (chapters 13-16): their specs, tests and fairness answers.

How a test function becomes an otter test, and what the fairness answers hold:
:mod:`booktools.course.specs.spec`.
"""

from __future__ import annotations

import math

import numpy as np

from booktools.course.specs.spec import (
    Spec,
    auto,
    count_answers,
    float32,
    open_ended,
    written,
)

SPECS: dict[str, Spec] = {}
ANSWERS: dict = {}
INPUTS: dict[str, set[str]] = {}
SHORTCUTS: dict[str, str] = {}
GUESSES: dict[str, list[str]] = {}

# --------------------------------------------------------------------------- chapter 13
SPECS["ex-13-1"] = written("One point per two correct shapes out of seven.")
SPECS["ex-13-2"] = written(
    "1 point: the check over every prefix. 1 point: the count of passes "
    "saved. Half a point for a count off by one pass."
)
SPECS["ex-13-3"] = written(
    "1 point: the logit (X W_e^T)_{i,v} written as the sum over k, the dot "
    "product of the hidden row i with embedding row v. 1 point: equal "
    "embedding rows give equal logits, hence equal probabilities at every "
    "position (weight tying)."
)


def ids_start_with_the_prompt_and_its_most_probable_next_id(
    tok, gpt_probabilities, params, ids
):
    import numpy as np

    assert list(ids[:5]) == tok.encode("the c") and len(ids) == 10, (
        'ids: expected the 5 ids of "the c" followed by 5 new ones'
    )
    assert ids[5] == int(
        np.argmax(gpt_probabilities(np.array(tok.encode("the c")), params)[-1])
    ), "ids: the first new id should be the most probable one after the prompt"


def ids_are_greedy(gpt_probabilities, params, ids):
    import numpy as np

    for k in range(5, 10):
        assert ids[k] == int(
            np.argmax(gpt_probabilities(np.array(ids[:k]), params)[-1])
        )


SPECS["ex-13-4"] = auto(
    "ids",
    [ids_start_with_the_prompt_and_its_most_probable_next_id],
    [ids_are_greedy],
    checks="the prompt's ids, the length and the first new id only",
)


def _ex_13_4_answers():
    from formulated.models import Config, gpt_probabilities, init_gpt
    from formulated.tokenizers import CharTokenizer

    tok = CharTokenizer.from_text("the cat sat on the mat")
    params = init_gpt(
        Config(V=tok.vocab_size, n_ctx=16, H=8, A=2, L=2), seed=0, scale=0.5
    )
    ctx = {"tok": tok, "params": params, "gpt_probabilities": gpt_probabilities}

    def generate(row=-1, keep=True):
        ids = tok.encode("the c")
        for _ in range(5):
            p = gpt_probabilities(np.array(ids if keep else ids[-1:]), params)
            ids.append(int(np.argmax(p[row])))
        return ids

    good = generate()
    return ctx, {
        "float64": {"ids": good},
        "float32": {"ids": np.array(good)},
        "mistake 1": {"ids": generate(row=0)},  # first row, not last
        "mistake 2": {"ids": generate(keep=False)},  # forgets the context
    }


ANSWERS["ex-13-4"] = _ex_13_4_answers

# --------------------------------------------------------------------------- chapter 14
SPECS["ex-14-1"] = written(
    "1 point: X^(L) = X^(0) + sum over l of (a_l + f_l), and the identity "
    "path from the embedding to the output untouched by any LayerNorm. 1 "
    "point: nothing bounds the size of that sum, so GPT-2 normalizes once "
    "more before the de-embedding, while GPT's last operation is already a "
    "LayerNorm (post-LN)."
)


def earliest_reaches_further_back_with_every_layer(earliest):
    assert len(earliest) == 3 and all(0 <= int(e) < 20 for e in earliest), (
        "earliest: expected three positions between 0 and 19"
    )
    assert earliest[0] > earliest[1] > earliest[2], (
        "earliest: every layer should reach further back"
    )


def earliest_is_the_reach_of_banded_layers(earliest):
    import torch

    step = (
        torch.ones(20, 20).tril().triu(-2)
    )  # key j visible from query i: i - 3 < j <= i
    reach = torch.eye(20)
    for L, e in zip((1, 2, 3), earliest):
        reach = ((step @ reach) > 0).float()
        assert int(e) == int(torch.nonzero(reach[19])[0])


SPECS["ex-14-2"] = auto(
    "earliest",
    [earliest_reaches_further_back_with_every_layer],
    [earliest_is_the_reach_of_banded_layers],
    checks="the length, the range and that the reach grows with L only",
    written="1 point: after L layers row i can be influenced by the inputs i - L(w - 1), "
    "..., i: each banded layer adds w - 1 positions back. 1 point: GPT-3 alternates "
    "with dense (causal) layers, and one dense layer already lets row i see every "
    "earlier position, so the whole prefix reaches it. Half a point off per part with "
    "a slip.",
    written_points=2,
)


def _ex_14_2_answers():
    return {}, {
        "float64": {"earliest": [19 - 2 * L for L in (1, 2, 3)]},
        "float32": {"earliest": np.array([17, 15, 13])},
        "mistake 1": {"earliest": [19 - 3 * L for L in (1, 2, 3)]},  # w, not w - 1
        "mistake 2": {"earliest": [17, 17, 17]},  # layers do not compound
    }


ANSWERS["ex-14-2"] = _ex_14_2_answers
GUESSES["ex-14-2"] = ["earliest = [19, 19, 19]", "earliest = [0, 0, 0]"]

SPECS["ex-14-3"] = written(
    "1 point: dense causal n(n+1)/2 = 2,098,176 scores (n^2 = 4,194,304 "
    "accepted when said to be the plain masked implementation). 1 point: "
    "banded wn - w(w-1)/2 = 93,173 and the fraction about 4.4 %. Half a "
    "point for a band count off by the w(w-1)/2 correction."
)
SPECS["ex-14-4"] = open_ended()

# --------------------------------------------------------------------------- chapter 15
SPECS["ex-15-1"] = written(
    "1 point: the sequence [CLS] a1 a2 a3 [SEP] b1 b2 [SEP] with t = "
    "(0,0,0,0,0,1,1,1). 1 point: sentence positions 2, 3, 4, 6, 7 (1-based) "
    "as the allowed masked positions. Half a point off for including [CLS] "
    "or [SEP] positions."
)
SPECS["ex-15-2"] = written(
    "1 point: row i of the left side is (1 - t_i) w^A + t_i w^B, which is "
    "row t_i of W_type, the right side's row. 1 point: a numerical check "
    "with a difference of about 0 (any sizes)."
)
SPECS["ex-15-3"] = written(
    "1 point: no row can use the words after j: with the autoregressive "
    "mask row j sees x'_1..x'_j only, and x'_j is the mask token. 1 point: "
    "so it ignores the right context BERT may use, while GPT models "
    "P(X_{j+1} | X_1..X_j), where looking right would be cheating."
)


def bert_count_is_a_hundred_million_odd(bert_count):
    assert 100_000_000 < bert_count < 120_000_000, (
        "bert_count: BERT-base has a bit over a hundred million parameters"
    )
    assert bert_count % 768 == 30522 % 768, (
        "bert_count: every tensor but the output bias (V numbers) has a side H = 768 or "
        "F = 4H, so the count minus V is a multiple of H"
    )


def bert_count_is_the_transformers_count(bert_count):
    import torch
    import transformers

    with torch.device("meta"):
        model = transformers.BertForMaskedLM(transformers.BertConfig())
    assert bert_count == sum(p.numel() for p in model.parameters())


SPECS["ex-15-4"] = auto(
    "bert_count",
    [bert_count_is_a_hundred_million_odd],
    [bert_count_is_the_transformers_count],
    checks="the order of magnitude and the count modulo H only",
)
BERT = 109_514_298
# BERT-base: the output bias V forgotten; the segment table forgotten
ANSWERS["ex-15-4"] = lambda: count_answers(
    BERT, BERT - 30522, BERT - 2 * 768, "bert_count"
)
GUESSES["ex-15-4"] = ["bert_count = 110_000_000"]

# --------------------------------------------------------------------------- chapter 16
SPECS["ex-16-1"] = written(
    "1 point: attention 4H^2, FFN 8H^2 + 5H, LayerNorms 4H, total 12H^2 + "
    "9H, and the biases 4H more. 1 point: 7,084,800 (and 7,087,872 with the "
    "attention biases) for H = 768. Half a point for a correct formula with "
    "an arithmetic slip."
)
SPECS["ex-16-2"] = written(
    "1 point: L(3AHD + ADH) = 4LH AD depends on the product AD only, so "
    "4LH^2 whatever A with AD = H. 1 point: with D fixed the term grows "
    "linearly in A."
)


def L_needed_is_of_the_order_of_a_billion_weights(L_needed):
    assert int(L_needed) == L_needed > 12, "L_needed: expected a whole number of layers"
    assert 0.5e9 < 12 * L_needed * 768**2 < 2e9, (
        "L_needed: the 12 L H^2 weights of the layers alone should be of the order of a "
        "billion"
    )


def L_needed_is_the_fewest_layers_past_a_billion(L_needed):
    import torch
    import transformers

    def count(L):
        with torch.device("meta"):
            m = transformers.GPT2Model(transformers.GPT2Config(n_layer=L))
        return sum(p.numel() for p in m.parameters())

    assert count(int(L_needed)) > 1e9 >= count(int(L_needed) - 1)


SPECS["ex-16-3"] = auto(
    "L_needed",
    [L_needed_is_of_the_order_of_a_billion_weights],
    [L_needed_is_the_fewest_layers_past_a_billion],
    checks="that it is a whole number and the order of magnitude of 12 L H^2 only",
)


def _layers(biases: bool = True) -> int:
    """GPT-2 small's layers needed to pass 1e9 parameters, counted by formula."""
    V, n, H = 50257, 1024, 768
    per_layer = 12 * H * H + (13 * H if biases else 4 * H)
    return next(
        L for L in range(1, 1000) if V * H + n * H + L * per_layer + 2 * H > 1e9
    )


# one layer short of a billion; the rough 12 L H^2 (no embeddings, no biases)
ANSWERS["ex-16-3"] = lambda: count_answers(
    _layers(), _layers() - 1, math.ceil(1e9 / (12 * 768**2)), "L_needed"
)
GUESSES["ex-16-3"] = ["L_needed = 13", "L_needed = 24"]


def untied_is_a_multiple_of_H_and_share_a_fraction(untied, share):
    assert 0 < share < 1 and untied > 124_000_000, (
        "share: expected a fraction; untied: more than the tied model"
    )
    assert untied % 768 == 0, (
        "untied: every tensor of GPT-2 small has a side H = 768, so the count is a "
        "multiple of H"
    )


def untied_gpt2():
    """GPT-2 small with its own output matrix (not tied to the embedding), on the meta
    device (no memory)."""
    import torch
    import transformers

    with torch.device("meta"):
        return transformers.GPT2LMHeadModel(
            transformers.GPT2Config(tie_word_embeddings=False)
        )


def untied_is_the_transformers_count(untied):
    m = untied_gpt2()
    assert untied == sum(p.numel() for p in m.parameters())


def share_is_the_output_matrixs_share(share):
    m = untied_gpt2()
    n = sum(p.numel() for p in m.parameters())
    assert abs(float(share) - m.lm_head.weight.numel() / n) < 6e-4


SPECS["ex-16-4"] = auto(
    "untied share",
    [untied_is_a_multiple_of_H_and_share_a_fraction],
    [untied_is_the_transformers_count, share_is_the_output_matrixs_share],
    checks="the ranges and that the count is a multiple of H only",
)


def _ex_16_4_answers():
    untied, tied, VH = 163_037_184, 124_439_808, 50257 * 768
    return {}, {
        "float64": {"untied": untied, "share": VH / untied},
        "float32": {"untied": untied, "share": float32(VH / untied)},
        "mistake 1": {"untied": untied, "share": VH / tied},  # share of the tied model
        "mistake 2": {
            "untied": tied + 768 * 1024,
            "share": VH / untied,
        },  # position table added
    }


ANSWERS["ex-16-4"] = _ex_16_4_answers
GUESSES["ex-16-4"] = ["untied, share = 163_000_000, 0.25"]
