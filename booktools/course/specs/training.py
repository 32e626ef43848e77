"""The exercises of part Training (chapters 17-19): their specs, tests and fairness answers.

How a test function becomes an otter test, and what the fairness answers hold:
:mod:`booktools.course.specs.spec`.
"""

from __future__ import annotations

import math

import numpy as np

from booktools.course.specs.spec import (
    Spec,
    auto,
    calls_behind,
    cell_of,
    count_answers,
    open_ended,
    written,
)

SPECS: dict[str, Spec] = {}
ANSWERS: dict = {}
INPUTS: dict[str, set[str]] = {}
SHORTCUTS: dict[str, str] = {}
GUESSES: dict[str, list[str]] = {}

# --------------------------------------------------------------------------- chapter 17
SPECS["ex-17-1"] = written(
    "1 point: the Lagrangian, its derivative c_v/q_v = mu, and mu = N from "
    "the constraint. 1 point: the stationary point is the maximum "
    "(concavity, or the cross-entropy/KL argument). Half a point off "
    "without the maximum argued."
)


def perplexity_is_the_exponential_of_a_growing_loss(uniform_loss, uniform_perplexity):
    import math

    assert 0 < uniform_loss(3) < uniform_loss(7), (
        "uniform_loss: positive, and larger for a larger vocabulary"
    )
    for V in (3, 7):
        assert abs(
            uniform_perplexity(V) - math.exp(uniform_loss(V))
        ) <= 2e-3 * uniform_perplexity(V), (
            "uniform_perplexity: expected exp(uniform_loss)"
        )


def uniform_cross_entropy(V):
    """PyTorch's cross-entropy of the uniform prediction over ``V`` tokens, a tensor."""
    import torch

    logits = torch.zeros(5, V, dtype=torch.float64)
    return torch.nn.functional.cross_entropy(logits, torch.arange(5) % V)


def uniform_loss_is_the_cross_entropy(uniform_loss):
    for V in (3, 7, 50257):
        ref = uniform_cross_entropy(V).item()
        assert abs(float(uniform_loss(V)) - ref) < 6e-4 * ref


def uniform_perplexity_is_its_exponential(uniform_perplexity):
    for V in (3, 7, 50257):
        ref = uniform_cross_entropy(V).exp().item()
        assert abs(float(uniform_perplexity(V)) - ref) < 6e-4 * ref


SPECS["ex-17-2"] = auto(
    "uniform_loss uniform_perplexity",
    [perplexity_is_the_exponential_of_a_growing_loss],
    [uniform_loss_is_the_cross_entropy, uniform_perplexity_is_its_exponential],
    checks="that the loss grows with V and the perplexity is its exponential (not the "
    "loss itself)",
)


def _ex_17_2_answers():
    return {}, {
        "float64": {"uniform_loss": math.log, "uniform_perplexity": float},
        "float32": {
            "uniform_loss": lambda V: np.log(np.float32(V)),
            "uniform_perplexity": lambda V: np.exp(np.log(np.float32(V))),
        },
        "mistake 1": {"uniform_loss": math.log2, "uniform_perplexity": float},  # bits
        "mistake 2": {  # exp of bits
            "uniform_loss": math.log,
            "uniform_perplexity": lambda V: math.exp(math.log2(V)),
        },
    }


ANSWERS["ex-17-2"] = _ex_17_2_answers
GUESSES["ex-17-2"] = ["uniform_loss = uniform_perplexity = lambda V: 2.0"]

SPECS["ex-17-3"] = written(
    "1 point: the GPT objective log(1/2) + log 1 = -ln 2 = log P(a a). 1 "
    "point: BERT with the second token masked gives log P(x2 = a | x1 = a) "
    "= 0, which is exact: with one masked token there is no independence "
    "assumption."
)
SPECS["ex-17-4"] = open_ended()

# --------------------------------------------------------------------------- chapter 18
SPECS["ex-18-1"] = written(
    "1 point: ln 50,257 = 10.825 nats per token and ln 256 = 5.545 nats per "
    "byte. 1 point: the units differ (a GPT-2 token is about four "
    "characters), so compare per character (or per byte) after converting."
)
SPECS["ex-18-2"] = written(
    "Half a point for each of the four distributions; the two limits (T to "
    "0: one-hot on the argmax, T to infinity: uniform) are required for "
    "full marks (2 points)."
)


def by_hand_is_a_multiple_of_H(by_hand):
    assert int(by_hand) == by_hand > 0, "by_hand: expected a whole number"
    assert by_hand % 128 == 0, (
        "by_hand: every tensor of this model has a side H = 128, so the count is a "
        "multiple of H"
    )


def by_hand_is_the_transformers_count_counted_by_hand(by_hand, notebook):
    import torch
    import transformers

    cfg = transformers.GPT2Config(
        vocab_size=65, n_positions=128, n_embd=128, n_layer=4, n_head=4
    )
    with torch.device("meta"):
        m = transformers.GPT2LMHeadModel(cfg)
    assert by_hand == sum(p.numel() for p in m.parameters())
    # the prompt: "count by hand" (and check with count_parameters, which the count must
    # not come from)
    bad = [
        c
        for c, module in calls_behind(["by_hand"], notebook)
        if module.split(".")[0] in ("formulated", "torch", "transformers")
        or c.split(".")[-1]
        in ("count_parameters", "numel", "parameters", "num_parameters")
    ]
    assert not bad, (
        f"by_hand: computed with {bad}; the exercise asks for a count by hand"
    )


SPECS["ex-18-3"] = auto(
    "by_hand",
    [by_hand_is_a_multiple_of_H],
    [by_hand_is_the_transformers_count_counted_by_hand],
    checks="that it is a positive whole number and a multiple of H only",
)


def _ex_18_3_answers():
    H = 128
    right = 65 * H + 128 * H + 4 * (12 * H**2 + 13 * H) + 2 * H
    # no final LayerNorm; untied
    return count_answers(right, right - 2 * H, right + 65 * H, "by_hand")


ANSWERS["ex-18-3"] = _ex_18_3_answers


# "count by hand ... check with count_parameters"
def _ex_18_3_shortcut():
    from formulated.models.trainable import GPT, GPTConfig, count_parameters
    from formulated.training import PRESETS

    by_hand = count_parameters(
        GPT(GPTConfig(V=65, **dict(PRESETS["cpu"]["model"], n_ctx=128)))
    )
    return by_hand


SHORTCUTS["ex-18-3"] = cell_of(_ex_18_3_shortcut)
GUESSES["ex-18-3"] = ["by_hand = 1", "by_hand = 1_000_000"]

SPECS["ex-18-4"] = written(
    "1 point: 1500 x 32 x 64 = 3,072,000 predictions, about 3.1 passes over "
    "1,003,854 training characters. 1 point: about 1e5 parameters cannot "
    "memorize a million characters, while nanoGPT's ~1e7-parameter model "
    "sees the data many times and can, so it needs dropout. Half a point "
    "for the numbers without the capacity argument."
)

# --------------------------------------------------------------------------- chapter 19
SPECS["ex-19-1"] = written(
    "1 point: both counts. 1 point: the bytes (4 per float32 number). Half "
    "a point for a count off by the biases or the tied matrix."
)
SPECS["ex-19-2"] = written(
    "1 point: p = 0.79 keeps the first two tokens (0.625, 0.375) and p = "
    "0.81 the first three, renormalized by 0.95. 1 point: p = 0.8 argued "
    "(the first two; the floating-point sum 0.5 + 0.3 makes an exact "
    "threshold fragile) and the check with sampling_distribution."
)
SPECS["ex-19-3"] = written(
    "1 point: every cached key and value includes the position embedding of "
    "its absolute position, so sliding shifts every position. 1 point: "
    "every key and value of every layer changes, the whole window must be "
    "recomputed (one uncached pass). A mention of relative positions "
    "(rotary) is welcome, not required."
)
