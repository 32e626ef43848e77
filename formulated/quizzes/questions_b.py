"""The quizzes of chapters 11-19: each number is computed here by the book's functions, each
wrong option or named mistake by the slip it is named after."""

from __future__ import annotations

import math

import numpy as np

from .model import Choice, Mistake, Numeric, Option

__all__ = ["QUIZZES_B"]


def _opt(text: str, feedback: str, correct: bool = False) -> Option:
    return Option(text, feedback, correct)


def ch11() -> list:
    from formulated import gelu, sigmoid

    g1 = float(gelu(np.array(1.0)))
    H, F = 768, 3072
    count = H * F + F + F * H + H  # W1, b1, W2, b2
    return [
        Numeric(
            "What is GELU(1), with the exact (erf) GELU?",
            g1,
            0.005,
            3,
            "1 · Φ(1), Φ the standard normal distribution function.",
            "GELU(x) = x Φ(x).",
            (
                Mistake(1.0, "That is ReLU(1)."),
                Mistake(
                    float(sigmoid(np.array(1.0))),
                    "That is σ(1), without the factor x and with the wrong curve.",
                ),
            ),
        ),
        Numeric(
            f"How many parameters has GPT-2 small's feed-forward network, H = {H}, "
            f"F = {F}, with biases?",
            count,
            0,
            0,
            "H·F + F for the first layer, F·H + H for the second.",
            "Count both weight matrices and both bias vectors.",
            (Mistake(2 * H * F, "That leaves out the two bias vectors."),),
        ),
        Choice(
            "Changing the input at one position of a feed-forward layer changes…",
            (
                _opt(
                    "that position's output row only",
                    "The same network is applied to each row separately.",
                    True,
                ),
                _opt(
                    "every output row", "That is attention; the FFN is position-wise."
                ),
                _opt(
                    "the rows after it", "Nothing in the FFN looks at other positions."
                ),
            ),
        ),
    ]


def ch12() -> list:
    from formulated import layer_norm

    x = np.array([[1.0, 2.0, 3.0, 4.0]])  # (1, H)
    first = float(layer_norm(x, np.ones(4), np.zeros(4))[0, 0])
    sample = float((x[0, 0] - x.mean()) / x.std(ddof=1))
    H = 768
    return [
        Numeric(
            "LayerNorm of the row (1, 2, 3, 4) with γ = 1, β = 0: what is its first entry?",
            first,
            0.005,
            3,
            "(1 − 2.5) divided by the population standard deviation √1.25 (ε is tiny).",
            "Subtract the mean, divide by the standard deviation over the row (divide by H).",
            (
                Mistake(
                    sample,
                    "That uses the sample standard deviation (dividing by H − 1).",
                ),
            ),
        ),
        Numeric(
            f"How many parameters has one LayerNorm of width H = {H}?",
            2 * H,
            0,
            0,
            "γ and β, H each.",
            "LayerNorm has a scale γ and a shift β per feature.",
            (Mistake(H, "That counts γ only: β has H entries too."),),
        ),
        Choice(
            "Where does a pre-LN block (GPT-2) apply LayerNorm?",
            (
                _opt(
                    "Before each sub-layer, inside the residual branch",
                    "x + f(LN(x)): the residual path stays untouched.",
                    True,
                ),
                _opt(
                    "After adding the residual",
                    "That is the post-LN block of the original transformer and GPT-1.",
                ),
                _opt(
                    "Only once, after the last block",
                    "GPT-2 has that final LayerNorm too, besides the ones in every block.",
                ),
            ),
        ),
    ]


def ch13() -> list:
    from formulated.models.sizes import size

    gpt = size("GPT-1")
    n = 9
    return [
        Choice(
            "Row i of GPT's output is a distribution over which token?",
            (
                _opt(
                    "Token i + 1",
                    "The causal mask lets row i see tokens 1…i only, and it predicts the next.",
                    True,
                ),
                _opt("Token i", "Row i sees token i; predicting it would be copying."),
                _opt(
                    "The last token of the text",
                    "Every row predicts its own next token.",
                ),
            ),
        ),
        Numeric(
            f"A training text of {n} tokens gives how many next-token predictions that "
            "count in the loss?",
            n - 1,
            0,
            0,
            "the last token has no next token in the text.",
            "Each token except the last has a next token to predict.",
            (Mistake(n, "The last row has no target inside the text."),),
        ),
        Numeric(
            f"GPT-1 reuses the embedding W_e (V = {gpt.V:,}, H = {gpt.H}) as its output "
            "layer. How many parameters would a separate output matrix add?",
            gpt.V * gpt.H,
            0,
            0,
            "one V × H matrix.",
            "The output layer maps H to V.",
            (Mistake(gpt.V * gpt.H + gpt.V, "There is no output bias in GPT."),),
        ),
    ]


def ch14() -> list:
    from formulated.models.sizes import size

    small = size("GPT-2 small")
    gpt3 = size("GPT-3 175B")
    millions = small.parameter_count() / 1e6
    return [
        Numeric(
            "Computed from its sizes, how many parameters has GPT-2 small, in millions?",
            millions,
            0.5,
            1,
            "λ with the attention biases and the final LayerNorm.",
            "Use chapter 16's λ with GPT-2's sizes.",
            (
                Mistake(
                    small.published / 1e6,
                    "That is the count the GPT-2 paper published; the weights have more.",
                ),
                Mistake(
                    millions + small.V * small.H / 1e6,
                    "That counts the tied output matrix a second time.",
                ),
            ),
        ),
        Numeric(
            f"GPT-3 175B has H = {gpt3.H:,} and A = {gpt3.A}. What is its head width D?",
            gpt3.D,
            0,
            0,
            "D = H / A.",
            "Divide the width by the number of heads.",
            (
                Mistake(
                    gpt3.H // 64, "That divides by 64, GPT-2's head width, not by A."
                ),
            ),
        ),
        Choice(
            "How does GPT-3 use sparse attention?",
            (
                _opt(
                    "Dense and locally banded sparse layers alternate",
                    "As in the Sparse Transformer.",
                    True,
                ),
                _opt("Every layer is sparse", "Only every other layer is."),
                _opt("It does not; only GPT-2 does", "GPT-2's layers are all dense."),
            ),
        ),
    ]


def ch15() -> list:
    from formulated.models.sizes import size

    bert = size("BERT-base")
    emb = bert.V * bert.H + bert.n_ctx * bert.H + 2 * bert.H  # token, position, segment
    return [
        Choice(
            "Which positions may a token of BERT attend to?",
            (
                _opt(
                    "Every position, before and after it",
                    "BERT's mask is bidirectional.",
                    True,
                ),
                _opt("Only the positions before it", "That is GPT's causal mask."),
                _opt(
                    "Only masked positions",
                    "Masking hides input tokens, not attention.",
                ),
            ),
        ),
        Numeric(
            f"BERT-base has token (V = {bert.V:,}), position (n = {bert.n_ctx}) and segment "
            f"(2) embeddings of width H = {bert.H}. How many parameters do they have together?",
            emb,
            0,
            0,
            "(V + n + 2) · H.",
            "Add the three tables' rows, times H.",
            (Mistake(emb - 2 * bert.H, "The two segment embeddings are missing."),),
        ),
        Choice(
            "What does RoBERTa drop from BERT's input and training?",
            (
                _opt(
                    "The segment embeddings and next-sentence prediction",
                    "RoBERTa trains on full sentences without segments.",
                    True,
                ),
                _opt("The position embeddings", "RoBERTa keeps learned positions."),
                _opt(
                    "The masked-language-model objective",
                    "That is RoBERTa's only objective.",
                ),
            ),
        ),
    ]


def ch16() -> list:
    from formulated.models.params import parameter_count
    from formulated.models.sizes import size

    dims = dict(V=65, n=64, H=64, F=256, D=16, A=4, L=2)
    lam = parameter_count(**dims)
    gpt3 = size("GPT-3 175B")
    return [
        Numeric(
            "λ for V = 65, n = 64, H = 64, F = 256, D = 16, A = 4, L = 2 (no attention "
            "biases, no final LayerNorm)?",
            lam,
            0,
            0,
            "embeddings, then L blocks of attention, FFN and two LayerNorms.",
            "Sum W_e, W_p and L times one block's parameters.",
            (
                Mistake(
                    parameter_count(**dims, attention_biases=True),
                    "That adds attention biases, which λ omits.",
                ),
                Mistake(
                    lam - dims["n"] * dims["H"],
                    "The position embeddings W_p are missing.",
                ),
            ),
        ),
        Numeric(
            "GPT-3 175B: the rule 12 L H² counts the blocks' weights. In billions?",
            12 * gpt3.L * gpt3.H**2 / 1e9,
            0.5,
            1,
            "4H² for attention and 8H² for the FFN, L times.",
            "Attention has 4 H × H matrices, the FFN two H × 4H ones.",
            (
                Mistake(
                    4 * gpt3.L * gpt3.H**2 / 1e9,
                    "That counts the attention only: the FFN has 8H² more.",
                ),
            ),
        ),
        Choice(
            "Where are most of GPT-3 175B's parameters?",
            (
                _opt(
                    "In the blocks' weight matrices",
                    "The embeddings are well under 1 %.",
                    True,
                ),
                _opt("In the token embeddings", "V·H is about 0.6 billion of 175."),
                _opt("In the LayerNorms", "They have 2H each, a tiny share."),
            ),
        ),
    ]


def ch17() -> list:
    from formulated.formulas.losses import cross_entropy_from_logits

    nll = -math.log(0.5 * 0.25)
    z = np.array([[2.0, 0.0, 0.0]])  # (1, V)
    ce = float(cross_entropy_from_logits(z, np.array([0])))
    return [
        Numeric(
            "A model gives P(x₁) = 0.5 and P(x₂ | x₁) = 0.25. What is the negative "
            "log-likelihood of x₁x₂, in nats?",
            nll,
            0.005,
            3,
            "−ln(0.5 · 0.25).",
            "Multiply the conditional probabilities (chain rule), then take −ln.",
            (
                Mistake(-math.log2(0.125), "That is in bits (log₂), not nats."),
                Mistake(
                    -math.log(0.5 + 0.25),
                    "That adds the probabilities: the chain rule multiplies them.",
                ),
            ),
        ),
        Numeric(
            "Cross-entropy of the logits (2, 0, 0) with target 0, in nats?",
            ce,
            0.005,
            3,
            "−ln softmax(z)₀ = ln(1 + 2e⁻²).",
            "Take the softmax of the logits, then −ln of the target's probability.",
            (
                Mistake(
                    -math.log(2 / 2),
                    "That takes the logit as a probability (no softmax).",
                ),
            ),
        ),
        Choice(
            "Which objective does GPT maximize?",
            (
                _opt(
                    "Σ log P(x_i | x_1…x_(i−1))", "The chain rule, left to right.", True
                ),
                _opt(
                    "Σ log P(x_i | all other tokens), masked ones only",
                    "That is BERT's masked-language model.",
                ),
                _opt("The expected log-likelihood over orders", "That is XLNet's."),
            ),
        ),
    ]


def ch18() -> list:
    from formulated.training.config import TrainConfig
    from formulated.training.optim import lr_lambda

    V = 65
    cfg = TrainConfig(lr=1e-3, min_lr=1e-4, warmup_steps=100, max_steps=1000)
    step = 49
    lr = cfg.lr * lr_lambda(cfg)(step)
    return [
        Numeric(
            f"Before training, a model that spreads its probability evenly over V = {V} "
            "characters has which loss, in nats?",
            math.log(V),
            0.005,
            3,
            "−ln(1 / V) = ln V.",
            "Cross-entropy of the uniform distribution is ln V.",
            (
                Mistake(
                    math.log2(V), "That is log₂ V: the loss uses the natural logarithm."
                ),
                Mistake(1 / V, "That is the probability, not its negative logarithm."),
            ),
        ),
        Numeric(
            "Warm-up of 100 steps to lr = 0.001: what learning rate (in units of 0.0001) "
            f"does step {step} use (steps counted from 0)?",
            lr / 1e-4,
            0.05,
            1,
            "(s + 1) / 100 of 0.001.",
            "During warm-up the rate grows linearly: (s + 1) / T_w times the peak.",
            (
                Mistake(
                    step / 100 * cfg.lr / 1e-4,
                    "That uses s / T_w; the schedule counts s + 1.",
                ),
            ),
        ),
        Choice(
            "What must a checkpoint hold to resume training exactly?",
            (
                _opt(
                    "Weights, optimizer state, step and random state",
                    "Adam's moments and the data order matter too.",
                    True,
                ),
                _opt(
                    "The weights only",
                    "The optimizer's moments and the schedule's step would restart.",
                ),
                _opt("The generated samples", "Samples are outputs, not state."),
            ),
        ),
    ]


def ch19() -> list:
    from formulated.sampling import sampling_distribution

    z = np.array([2.0, 1.0, 0.0])
    hot = float(sampling_distribution(z, temperature=0.5)[0])
    times = float(
        sampling_distribution(z * 0.5)[0]
    )  # multiplied by T instead of divided
    top2 = float(sampling_distribution(z, top_k=2)[0])
    unnorm = float(sampling_distribution(z)[0])
    return [
        Numeric(
            "Logits (2, 1, 0) at temperature T = 0.5: what probability does the first token "
            "get?",
            hot,
            0.005,
            3,
            "softmax(z / 0.5).",
            "Divide the logits by T, then take the softmax.",
            (Mistake(times, "That multiplies the logits by T instead of dividing."),),
        ),
        Numeric(
            "Logits (2, 1, 0) with top-k = 2: what probability does the first token get?",
            top2,
            0.005,
            3,
            "the third logit is removed, then softmax of (2, 1).",
            "Keep the k largest logits and renormalize over them.",
            (
                Mistake(
                    unnorm,
                    "That is the probability before filtering: renormalize over the two kept.",
                ),
            ),
        ),
        Choice(
            "What does a key-value cache store between generation steps?",
            (
                _opt(
                    "The keys and values of the tokens so far",
                    "A new token only needs its own query against them.",
                    True,
                ),
                _opt(
                    "The queries of the tokens so far",
                    "Past queries are never needed again.",
                ),
                _opt("The attention weights", "They change with every new query."),
            ),
        ),
    ]


QUIZZES_B = {
    f"ch{i}": f
    for i, f in zip(
        range(11, 20), [ch11, ch12, ch13, ch14, ch15, ch16, ch17, ch18, ch19]
    )
}
