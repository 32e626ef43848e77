"""The quizzes of chapters 1-10: each number is computed here by the book's functions, each
wrong option or named mistake by the slip it is named after."""

from __future__ import annotations

import math

import numpy as np

from .model import Choice, Mistake, Numeric, Option, fmt

__all__ = ["QUIZZES_A"]


def _opt(text: str, feedback: str, correct: bool = False) -> Option:
    return Option(text, feedback, correct)


def ch01() -> list:
    from formulated.basics.regression import (
        learning_rate_regime,
        linear_regression_closed_form,
    )

    X = np.array([[0.0], [1.0], [2.0]])  # (3, 1)
    y = np.array([1.0, 3.0, 4.0])
    slope = float(linear_regression_closed_form(X, y)[1])
    no_bias = float((X[:, 0] @ y) / (X[:, 0] @ X[:, 0]))  # the line forced through 0
    hess = np.diag([4.0, 1.0])
    regimes = {lr: learning_rate_regime(lr, hess) for lr in (0.1, 0.6)}
    return [
        Choice(
            "GPT learns to predict the next token of a text from the text itself. "
            "Which kind of learning is that?",
            (
                _opt(
                    "Self-supervised learning",
                    "The labels are cut out of the data itself.",
                    True,
                ),
                _opt(
                    "Reinforcement learning", "There is no reward after an action here."
                ),
                _opt(
                    "Unsupervised learning without answers",
                    "Every position has a right answer: the next token.",
                ),
                _opt(
                    "Supervised learning with human labels",
                    "No person provides the labels.",
                ),
            ),
        ),
        Numeric(
            "Fit the line y = θ0 + θ1 x to the points (0, 1), (1, 3), (2, 4) by least "
            "squares. What is the slope θ1?",
            slope,
            0.005,
            2,
            "the normal equations with the column of ones for θ0.",
            "Solve the normal equations with the design matrix [1, x].",
            (
                Mistake(
                    no_bias,
                    "That is the slope of a line forced through 0: the column of ones for θ0 is missing.",
                ),
            ),
        ),
        Choice(
            "Gradient descent on a quadratic loss with Hessian diag(4, 1) and learning rate "
            "0.6: what happens?",
            (
                _opt(
                    f"It {regimes[0.6]}",
                    "The step is larger than 2 / 4 = 0.5 in the steep direction.",
                    True,
                ),
                _opt(
                    f"It {regimes[0.1]}",
                    "A rate of 0.1 would converge; 0.6 is larger than 2 / λmax.",
                ),
                _opt(
                    "It converges in one step",
                    "Only a rate of 1 / λ in each direction would do that.",
                ),
            ),
        ),
    ]


def ch02() -> list:
    from formulated import softmax
    from formulated.basics.information import entropy, kl_divergence

    z = np.array([3.0, 1.0, 0.0])
    p0 = float(softmax(z)[0])
    naive = float(z[0] / z.sum())  # scores divided by their sum, no exponential
    p = np.array([0.5, 0.25, 0.25])
    bits = float(entropy(p, base=2))
    nats = float(entropy(p))
    q = np.array([0.25, 0.5, 0.25])
    return [
        Numeric(
            "What probability does softmax give the first score of z = (3, 1, 0)?",
            p0,
            0.005,
            3,
            "e³ / (e³ + e¹ + e⁰).",
            "Exponentiate each score, then divide by the sum of the exponentials.",
            (
                Mistake(
                    naive,
                    "That divides the scores by their sum: the exponentials are missing.",
                ),
            ),
        ),
        Numeric(
            "What is the entropy, in bits, of the distribution (1/2, 1/4, 1/4)?",
            bits,
            0.005,
            2,
            "½·1 + ¼·2 + ¼·2 bits.",
            "Sum −p log₂ p over the three outcomes.",
            (
                Mistake(
                    nats, "That is the entropy in nats (natural logarithm), not bits."
                ),
            ),
        ),
        Choice(
            "For p = (1/2, 1/4, 1/4) and q = (1/4, 1/2, 1/4), cross-entropy H(p, q) minus "
            "entropy H(p) equals…",
            (
                _opt(
                    f"KL(p‖q) = {fmt(float(kl_divergence(p, q)), 3)} nats",
                    "H(p, q) = H(p) + KL(p‖q).",
                    True,
                ),
                _opt("0", "Only when q = p; here the two distributions differ."),
                _opt("H(q)", "Cross-entropy does not split into the entropy of q."),
            ),
        ),
    ]


def ch03() -> list:
    from formulated.basics.networks import sigmoid_grad, tanh_grad

    s0 = float(sigmoid_grad(np.array(0.0)))
    t0 = float(tanh_grad(np.array(0.0)))
    d_in, d_hid, d_out = 3, 4, 2
    count = d_in * d_hid + d_hid + d_hid * d_out + d_out
    return [
        Numeric(
            "What is the derivative of the sigmoid σ at z = 0?",
            s0,
            0.005,
            2,
            "σ′(z) = σ(z)(1 − σ(z)) = ½ · ½.",
            "Use σ′(z) = σ(z)(1 − σ(z)).",
            (
                Mistake(0.5, "That is σ(0) itself, not its derivative."),
                Mistake(t0, "That is the derivative of tanh at 0, not of σ."),
            ),
        ),
        Numeric(
            "How many parameters has a network with 3 inputs, one hidden layer of 4 units "
            "and 2 outputs (weights and biases)?",
            count,
            0,
            0,
            "3·4 + 4 weights and biases, then 4·2 + 2.",
            "Count each layer's weight matrix and its bias vector.",
            (
                Mistake(
                    count - d_hid - d_out,
                    "That counts the weights only: each layer has a bias vector too.",
                ),
            ),
        ),
        Choice(
            "What is the derivative of ReLU at z = −2?",
            (
                _opt("0", "ReLU is flat for negative inputs.", True),
                _opt("1", "The slope is 1 only for positive inputs."),
                _opt("−2", "That is the input, not the slope."),
            ),
        ),
    ]


def ch04() -> list:
    from formulated.basics.sequences import cosine_similarity

    a, b = np.array([1.0, 0.0, 1.0]), np.array([1.0, 1.0, 0.0])
    cos = float(cosine_similarity(a, b))
    w, steps = 0.9, 20
    return [
        Numeric(
            "What is the cosine similarity of (1, 0, 1) and (1, 1, 0)?",
            cos,
            0.005,
            2,
            "the dot product 1 divided by √2 · √2.",
            "Divide the dot product by the product of the two lengths.",
            (
                Mistake(
                    float(a @ b), "That is the dot product, not divided by the lengths."
                ),
            ),
        ),
        Numeric(
            "In a linear recurrence h_t = 0.9 h_(t−1), by what factor does the gradient "
            "shrink 20 steps back?",
            w**steps,
            0.005,
            3,
            "0.9 multiplied 20 times.",
            "The same factor 0.9 multiplies the gradient at every step back.",
            (
                Mistake(
                    w * steps,
                    "That multiplies 0.9 by 20 instead of raising it to the 20th power.",
                ),
            ),
        ),
        Choice(
            "Why do gradients survive many steps in an LSTM better than in a plain RNN?",
            (
                _opt(
                    "The cell state is updated by adding",
                    "Addition passes the gradient on, scaled by the forget gate only.",
                    True,
                ),
                _opt(
                    "The LSTM has more layers",
                    "An LSTM cell is one layer; its gates make the difference.",
                ),
                _opt("The LSTM uses ReLU", "Its gates use sigmoid and tanh."),
            ),
        ),
    ]


def ch05() -> list:
    from formulated.models.sizes import size

    gpt2 = size("GPT-2 small")
    return [
        Numeric(
            "Token x₅ of the math (counted from 1) is at which index in the code (counted "
            "from 0)?",
            4,
            0,
            0,
            "the code counts from 0.",
            "Subtract one.",
            (Mistake(5, "That is the math's index: the code counts from 0."),),
        ),
        Numeric(
            f"GPT-2 small has H = {gpt2.H} and A = {gpt2.A} heads. What is the head width D?",
            gpt2.D,
            0,
            0,
            "D = H / A.",
            "Divide the model width by the number of heads.",
            (Mistake(gpt2.H * gpt2.A, "That multiplies H by A; the heads split H."),),
        ),
        Choice(
            "What is the shape of the attention scores of a batch, one matrix per head?",
            (
                _opt(
                    "(B, A, n, n)", "One n × n matrix per sequence and per head.", True
                ),
                _opt("(B, n, A, D)", "That is the queries split into heads."),
                _opt("(B, n, H)", "That is the input and the output of a block."),
            ),
        ),
    ]


def ch06() -> list:
    from formulated.tokenizers import (
        bpe_vocab_size,
        count_pairs,
        split_word,
        word_frequencies,
    )

    corpus = "low low low lower lowest newer newer wider"
    pairs = count_pairs({split_word(w): c for w, c in word_frequencies(corpus).items()})
    ranked = [p for p, _ in pairs.most_common(4)]

    def show(p: tuple[str, str]) -> str:
        return f"{p[0]} + {p[1]}"

    return [
        Choice(
            f"Byte-pair encoding learns from the corpus “{corpus}”. Which pair does it merge "
            "first?",
            (
                _opt(
                    show(ranked[0]),
                    f"It is the most frequent pair ({pairs[ranked[0]]} times).",
                    True,
                ),
                *[
                    _opt(
                        show(p),
                        f"It occurs {pairs[p]} times; another pair occurs more often.",
                    )
                    for p in ranked[1:]
                ],
            ),
        ),
        Numeric(
            "GPT-2 starts from 256 byte symbols, learns 50,000 merges and adds one special "
            "token. How large is its vocabulary?",
            bpe_vocab_size(256, 50_000, 1),
            0,
            0,
            "one new symbol per merge, plus the bytes and the special token.",
            "Each merge adds exactly one symbol.",
            (
                Mistake(
                    bpe_vocab_size(256, 50_000),
                    "The special token <|endoftext|> is missing.",
                ),
            ),
        ),
        Choice(
            "Compared with characters, sub-word tokens make a text's sequence…",
            (
                _opt(
                    "shorter, with a larger vocabulary",
                    "Frequent pieces become one token each.",
                    True,
                ),
                _opt("longer, with a smaller vocabulary", "That describes characters."),
                _opt("equally long", "Merges join symbols, so fewer tokens remain."),
            ),
        ),
    ]


def ch07() -> list:
    from formulated import one_hot, positional_encoding_sinusoidal

    P = positional_encoding_sinusoidal(4, 4)  # (n, H)
    ids = np.array([2, 0])
    W = np.arange(12.0).reshape(4, 3)  # (V, H)
    row = one_hot(ids, 4) @ W
    p = 0.1
    return [
        Numeric(
            "In the sinusoidal encoding with H = 4, what is entry 1 of position 1 (both "
            "counted from 0 as in the code)?",
            float(P[1, 1]),
            0.005,
            3,
            "cos(1 / 10000^0) = cos 1.",
            "Odd entries are cosines, even entries sines.",
            (Mistake(math.sin(1.0), "That is the sine: odd entries use the cosine."),),
        ),
        Choice(
            "one_hot(ids, V) @ W_e equals which array?",
            (
                _opt(
                    "W_e[ids]",
                    f"The product picks rows; here {row[0].tolist()} is row 2.",
                    True,
                ),
                _opt("W_e.T[ids]", "The one-hot rows pick rows of W_e, not columns."),
                _opt("ids @ W_e", "The ids are indices, not vectors."),
            ),
        ),
        Numeric(
            "Dropout with p = 0.1 as PyTorch computes it: by what factor is a kept entry "
            "scaled in training?",
            1 / (1 - p),
            0.005,
            3,
            "1 / (1 − p), so the expected value is unchanged.",
            "The kept entries are divided by the probability of keeping them.",
            (Mistake(1 - p, "That multiplies by 1 − p; PyTorch divides by it."),),
        ),
    ]


def ch08() -> list:
    from formulated import softmax
    from formulated.examples import SLIDE_KEYS, SLIDE_QUERIES

    D = SLIDE_KEYS.shape[1]
    s = SLIDE_QUERIES[0] @ SLIDE_KEYS.T  # (n,)
    w = float(softmax(s / math.sqrt(D))[1])
    return [
        Numeric(
            "In the slides' example (D = 3), what attention weight does query 1 give key 2 "
            "(both counted from 1)?",
            w,
            0.005,
            3,
            "softmax of q₁Kᵀ / √3, second entry.",
            "Scale the dot products by 1 / √D, then take the softmax of the row.",
            (
                Mistake(float(softmax(s)[1]), "That forgets the 1 / √D scaling."),
                Mistake(float(softmax(s / D)[1]), "That divides by D instead of √D."),
            ),
        ),
        Choice(
            "Q has shape (n, D), K has shape (m, D) and V has shape (m, D_v). What shape "
            "has attention(Q, K, V)?",
            (
                _opt("(n, D_v)", "One weighted mix of the values per query.", True),
                _opt(
                    "(n, m)",
                    "That is the attention weights, before they weigh the values.",
                ),
                _opt("(m, D_v)", "There is one output row per query, not per key."),
            ),
        ),
        Choice(
            "Query and key entries are independent with mean 0 and variance 1, D = 64. What "
            "is the standard deviation of q·k, before the scaling?",
            (
                _opt(
                    "8",
                    "The variance is D = 64; the scaling by 1 / √D brings it back to 1.",
                    True,
                ),
                _opt("64", "64 is the variance; the standard deviation is its root."),
                _opt("1", "That is after dividing by √D."),
            ),
        ),
    ]


def ch09() -> list:
    from formulated import mask_autoregressive, masked_softmax, softmax

    n = 5
    allowed = int(np.isfinite(mask_autoregressive(n)).sum())
    scores = np.array(
        [[1.0, 2.0, 3.0]]
    )  # (1, 3): row 2 of a causal 3 x 3 mask, counted from 1
    mask = mask_autoregressive(3)[1:2]  # (1, 3)
    w = float(masked_softmax(scores, mask)[0, 0])
    multiplied = float(softmax(scores * (mask == 0))[0, 0])  # 0/1 mask multiplied
    return [
        Numeric(
            "How many (query, key) pairs may attend under a causal mask with n = 5?",
            allowed,
            0,
            0,
            "each query sees itself and the tokens before it: 1 + 2 + … + 5.",
            "Count the entries on and below the diagonal.",
            (
                Mistake(n * n, "That is every pair, with no mask."),
                Mistake(
                    allowed - n, "That leaves out the diagonal: a token sees itself."
                ),
            ),
        ),
        Numeric(
            "Scores (1, 2, 3) of query 2 (counted from 1) under a causal mask: what weight "
            "goes to key 1?",
            w,
            0.005,
            3,
            "key 3 is masked, so softmax of (1, 2).",
            "Add −∞ to the masked score, then take the softmax.",
            (
                Mistake(
                    multiplied,
                    "That multiplies the scores by a 0/1 mask: a 0 score still gets weight.",
                ),
            ),
        ),
        Choice(
            "Why is the mask added to the scores and not multiplied?",
            (
                _opt(
                    "e^(−∞) = 0, while a score of 0 still gets weight",
                    "Only −∞ removes a key after the softmax.",
                    True,
                ),
                _opt(
                    "Adding is faster",
                    "Speed is not the reason; multiplying gives wrong weights.",
                ),
                _opt(
                    "Multiplying changes the shape",
                    "Both keep the shape; only adding −∞ gives weight 0.",
                ),
            ),
        ),
    ]


def ch10() -> list:
    from formulated import split_heads

    H, A = 768, 12
    D = H // A
    count = 4 * H * (A * D)  # W^Q, W^K, W^V and W^O, no biases
    shape = split_heads(np.zeros((1, 5, 24)), 4).shape  # (B, A, n, D)
    return [
        Numeric(
            f"How many weights has one multi-head attention layer with H = {H} and A = {A} "
            "(W^Q, W^K, W^V and W^O, no biases)?",
            count,
            0,
            0,
            "4 · H · (A·D) = 4H².",
            "Each of the four matrices is H × H once the heads are put side by side.",
            (
                Mistake(
                    4 * H * D,
                    "That counts one head only: there are A heads of width D.",
                ),
            ),
        ),
        Choice(
            "split_heads turns a (B, n, H) array with B = 1, n = 5, H = 24 and A = 4 "
            "into which shape?",
            (
                _opt(str(shape), "One (n, D) slice per head, D = H / A.", True),
                _opt(
                    str((1, 5, 4, 6)),
                    "That is before moving the head axis to the front.",
                ),
                _opt(str((1, 4, 5, 24)), "Each head gets D = 6 columns, not all H."),
            ),
        ),
        Choice(
            "What does concatenating the heads and multiplying by W^O do?",
            (
                _opt(
                    "Mixes the heads' outputs into one H-wide row per token",
                    "W^O maps A·D back to H, mixing the heads.",
                    True,
                ),
                _opt(
                    "Averages the heads' attention weights",
                    "The outputs are concatenated, not the weights averaged.",
                ),
                _opt("Chooses the best head", "Every head contributes through W^O."),
            ),
        ),
    ]


QUIZZES_A = {
    f"ch{i:02d}": f
    for i, f in enumerate(
        [ch01, ch02, ch03, ch04, ch05, ch06, ch07, ch08, ch09, ch10], 1
    )
}
