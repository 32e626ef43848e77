"""The quizzes of part 5, Training (chapters 17-19): each number is computed here by the
book's functions, each wrong option or named mistake by the slip it is named after."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from .model import Choice, Mistake, Numeric, Option, Question

__all__ = ["QUIZZES"]


def ch17() -> list[Question]:
    from formulated.formulas import cross_entropy_from_logits

    p1, p2 = 0.5, 0.25
    nll = -math.log(p1 * p2)
    z = np.array([[2.0, 0.0, 0.0]])  # (1, V)
    ce = float(cross_entropy_from_logits(z, np.array([0])))
    return [
        Numeric(
            prompt=f"A model gives P(x₁) = {p1} and P(x₂ | x₁) = {p2}: what is the "
            "negative log-likelihood of x₁x₂, in nats?",
            answer=nll,
            tolerance=0.005,
            decimals=3,
            explain=f"−ln({p1} · {p2}).",
            hint="Multiply the conditional probabilities (chain rule), then take −ln.",
            mistakes=(
                Mistake(
                    value=-math.log2(p1 * p2),
                    feedback="That is in bits (log₂), not nats.",
                ),
                Mistake(
                    value=-math.log(p1 + p2),
                    feedback="That adds the probabilities: the chain rule multiplies "
                    "them.",
                ),
            ),
        ),
        Numeric(
            prompt="Cross-entropy of the logits (2, 0, 0) with target 0 (counted from 0), "
            "in nats?",
            answer=ce,
            tolerance=0.005,
            decimals=3,
            explain="−ln softmax(z)₀ = −ln(e² / (e² + 2)) = ln(1 + 2e⁻²).",
            hint="Take the softmax of the logits, then −ln of the target's probability.",
            mistakes=(
                Mistake(
                    value=0.0,
                    feedback="That treats the target as certain (as dividing the logits "
                    "by their sum, 2/2 = 1, would); the softmax gives it a probability "
                    "below 1, whose −ln is positive.",
                ),
                Mistake(
                    value=-math.log(2.0),
                    feedback="That takes the logit 2 as a probability, −ln 2; apply the "
                    "softmax first.",
                ),
            ),
        ),
        Choice(
            prompt="Which objective does GPT maximize?",
            options=(
                Option(
                    text="Σ log P(x_i | x_1…x_(i−1))",
                    feedback="The chain rule, left to right.",
                    correct=True,
                ),
                Option(
                    text="Σ log P(x_i | x_(i+1)…x_n)",
                    feedback="That conditions on the tokens after x_i: a right-to-left "
                    "model.",
                ),
                Option(
                    text="Σ log P(x_i | all other tokens), masked i only",
                    feedback="That is BERT's masked-language model.",
                ),
                Option(
                    text="The expected log-likelihood over orders",
                    feedback="That is XLNet's objective.",
                ),
            ),
        ),
    ]


def ch18() -> list[Question]:
    from formulated.basics import entropy
    from formulated.training import TrainConfig
    from formulated.training.optim import lr_lambda

    cfg = TrainConfig(lr=1e-3, min_lr=1e-4, warmup_steps=100, max_steps=1100)
    t = 350
    unit = 1e-4
    rate = cfg.lr * lr_lambda(cfg)(t)
    share = (t - cfg.warmup_steps) / (cfg.max_steps - cfg.warmup_steps)
    linear = cfg.min_lr + (cfg.lr - cfg.min_lr) * (1 - share)
    no_floor = cfg.lr * (1 + math.cos(math.pi * share)) / 2

    g1, g2, c = np.array([2.0, -1.0]), np.array([2.0, 4.0]), 1.2
    norm = float(np.sqrt((g1**2).sum() + (g2**2).sum()))  # one vector: all gradients
    clipped = float(g2[0] * min(1.0, c / norm))
    alone = float(g2[0] * min(1.0, c / np.linalg.norm(g2)))

    text = "abracadabra"
    freq = Counter(text)
    q = np.array([freq[ch] / len(text) for ch in sorted(freq)])
    unigram = float(entropy(q))
    return [
        Numeric(
            prompt=f"The schedule rises to η_max = {cfg.lr:g} over T_w = "
            f"{cfg.warmup_steps} steps, then decays along a cosine to η_min = "
            f"{cfg.min_lr:g} at step T = {cfg.max_steps:,}: what rate does step "
            f"t = {t} use, in units of 0.0001?",
            answer=rate / unit,
            tolerance=0.005,
            decimals=2,
            explain=f"a quarter of the decay is done, s = ({t} − {cfg.warmup_steps}) / "
            f"{cfg.max_steps - cfg.warmup_steps:,}: η_min + (η_max − η_min) · "
            "(1 + cos(π/4)) / 2.",
            hint="Find the share s of the decay done, then η_min + (η_max − η_min)(1 + "
            "cos πs)/2.",
            mistakes=(
                Mistake(
                    value=linear / unit,
                    feedback="That decays along a straight line; the schedule follows a "
                    "cosine, which stays high longer.",
                ),
                Mistake(
                    value=no_floor / unit,
                    feedback="That decays to 0; the cosine runs from η_max down to "
                    "η_min.",
                ),
                Mistake(
                    value=rate,
                    feedback="Right rate, wrong unit: divide it by 0.0001, the unit the "
                    "question asks for.",
                ),
            ),
        ),
        Numeric(
            prompt=f"A step's gradients are g₁ = ({g1[0]:g}, −{-g1[1]:g}) for one tensor "
            f"and g₂ = ({g2[0]:g}, {g2[1]:g}) for another. They are clipped by the "
            f"global norm with threshold c = {c:g}: what is the first entry of g₂ "
            "afterwards?",
            answer=clipped,
            tolerance=0.005,
            decimals=2,
            explain=f"the global norm is √(4 + 1 + 4 + 16) = {norm:g}, so every entry is "
            f"multiplied by {c:g} / {norm:g}.",
            hint="Concatenate all the gradients into one vector, take its norm, and "
            "scale every entry by min(1, c / norm).",
            mistakes=(
                Mistake(
                    value=alone,
                    feedback="That clips g₂ by its own norm; the step clips all the "
                    "gradients together, by their global norm.",
                ),
                Mistake(
                    value=c,
                    feedback="That clips the entry's value to c; clipping by the norm "
                    "scales the whole vector and keeps its direction.",
                ),
                Mistake(
                    value=float(g2[0]),
                    feedback="That leaves the gradient as it is, but its norm is above "
                    "the threshold.",
                ),
            ),
        ),
        Numeric(
            prompt=f"A model that ignores the context predicts every character of "
            f"“{text}” with the character frequencies of that same text (a unigram "
            "model). What is its loss, in nats per character?",
            answer=unigram,
            tolerance=0.005,
            decimals=3,
            explain="−Σ q ln q over the frequencies 5/11, 2/11, 2/11, 1/11, 1/11: the "
            "entropy of the frequencies.",
            hint="The mean of −ln q(character) over the text is −Σ q ln q, q the "
            "frequencies.",
            mistakes=(
                Mistake(
                    value=math.log(len(freq)),
                    feedback="That is ln 5, the uniform distribution over the five "
                    "letters; the unigram model weighs them by frequency.",
                ),
                Mistake(
                    value=float(entropy(q, base=2)),
                    feedback="That is in bits (log₂), not nats.",
                ),
            ),
        ),
    ]


def ch19() -> list[Question]:
    from formulated.sampling import sampling_distribution

    z = np.array([2.0, 1.0, 0.0])
    T, k = 0.5, 2
    both = float(sampling_distribution(z, temperature=T, top_k=k)[0])
    unfiltered = float(sampling_distribution(z, temperature=T)[0])
    times = float(sampling_distribution(z * T, top_k=k)[0])  # multiplied by T

    y = np.array([3.0, 2.0, 1.0, 0.0])
    p = 0.9
    nucleus = float(sampling_distribution(y, top_p=p)[0])
    probs = sampling_distribution(y)
    inside = np.cumsum(np.sort(probs)[::-1]) <= p  # stopping before the mass reaches p
    short = float(probs[0] / np.sort(probs)[::-1][inside].sum())
    return [
        Numeric(
            prompt=f"Logits (2, 1, 0) at temperature T = {T:g} with top-k = {k}: what "
            "probability does the first token get?",
            answer=both,
            tolerance=0.005,
            decimals=3,
            explain=f"z / {T:g} = (4, 2, 0); the third logit is removed, then softmax "
            "of (4, 2).",
            hint="Divide the logits by T, keep the k largest, then take the softmax "
            "over them.",
            mistakes=(
                Mistake(
                    value=unfiltered,
                    feedback="That is before the top-k filter: renormalize over the two "
                    "kept tokens.",
                ),
                Mistake(
                    value=times,
                    feedback="That multiplies the logits by T instead of dividing.",
                ),
            ),
        ),
        Numeric(
            prompt=f"Logits (3, 2, 1, 0) with top-p = {p:g} (nucleus sampling): what "
            "probability does the first token get?",
            answer=nucleus,
            tolerance=0.005,
            decimals=3,
            explain="softmax gives 0.644, 0.237, 0.087, 0.032; the first two hold 0.881 "
            "< 0.9, so the third is kept too, and the three are renormalized.",
            hint="Keep the most probable tokens until their mass reaches p (the token "
            "that crosses p is kept), then renormalize over them.",
            mistakes=(
                Mistake(
                    value=short,
                    feedback="That stops before the mass reaches p: the token that "
                    "crosses 0.9 is kept too.",
                ),
                Mistake(
                    value=float(probs[0]),
                    feedback="That is the probability before filtering: renormalize "
                    "over the kept tokens.",
                ),
            ),
        ),
        Choice(
            prompt="Generation with a key-value cache keeps the keys and values of the "
            "earlier positions from one step to the next. Why are they still exact after "
            "a new token is appended?",
            options=(
                Option(
                    text="The causal mask: no position sees a later one",
                    feedback="An earlier position never attended to the new token, in "
                    "any layer, so nothing it computed changes.",
                    correct=True,
                ),
                Option(
                    text="Each key depends on its own token and position only",
                    feedback="Only in the first layer. Above it a position's key depends "
                    "on every position it attended to; the mask keeps those earlier.",
                ),
                Option(
                    text="They are not exact: the cache is an approximation",
                    feedback="In exact arithmetic the cached and the uncached forward "
                    "are equal; only rounding differs, by about 10⁻¹² in float64.",
                ),
                Option(
                    text="LayerNorm makes every key independent of the context",
                    feedback="LayerNorm acts on each row alone; it does not remove what "
                    "the row took from other positions through attention.",
                ),
            ),
        ),
    ]


#: quiz id -> the function that builds that chapter's questions.
QUIZZES = {"ch17": ch17, "ch18": ch18, "ch19": ch19}
