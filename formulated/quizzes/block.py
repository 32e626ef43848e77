"""The quizzes of part 3, The transformer block (chapters 8-12): each number is computed here
by the book's functions, each wrong option or named mistake by the slip it is named after."""

from __future__ import annotations

import math

import numpy as np

from .model import Choice, Mistake, Numeric, Option, Question

__all__ = ["QUIZZES"]


def _vector(v: np.ndarray) -> str:
    return "(" + ", ".join(f"{x:g}" for x in v) + ")"


def ch08() -> list[Question]:
    from formulated.examples import SLIDE_KEYS
    from formulated.formulas import attention

    K = SLIDE_KEYS  # (m, D)
    D = K.shape[1]
    q = np.array([[0.0, 2.0, 1.0]])  # (1, D): a query the chapter never computes
    V = np.eye(len(K))  # one-hot values: the output row is the weights

    def weight(scale: float) -> float:
        return float(attention(q, K, V, scale=scale)[0, 1])

    keys = ", ".join(f"k{i + 1} = {_vector(k)}" for i, k in enumerate(K))
    D_big = 200
    return [
        Numeric(
            prompt=f"Keys of the slides' example: {keys}. A new query q = {_vector(q[0])} "
            f"attends to them with the Transformer's scaling by 1/√D (D = {D}). What "
            "weight does it give key 2?",
            answer=weight(1 / math.sqrt(D)),
            tolerance=0.005,
            decimals=3,
            explain=f"the scores q·k are {_vector(K @ q[0])}; softmax of "
            f"{_vector(K @ q[0])} / √{D}, second entry.",
            hint="Take the three dot products q·k_j, divide them by √D, then take the "
            "softmax of the row.",
            mistakes=(
                Mistake(value=weight(1.0), feedback="That forgets the 1/√D scaling."),
                Mistake(
                    value=weight(1 / D), feedback="That divides by D instead of √D."
                ),
            ),
        ),
        Choice(
            prompt="Q has shape (n, D), K has shape (m, D) and V has shape (m, D_v). What "
            "shape has attention(Q, K, V)?",
            options=(
                Option(
                    text="(n, D_v)",
                    feedback="One weighted mix of the values per query.",
                    correct=True,
                ),
                Option(
                    text="(n, m)",
                    feedback="That is the attention weights, before they weigh the "
                    "values.",
                ),
                Option(
                    text="(m, D_v)",
                    feedback="There is one output row per query, not per key.",
                ),
                Option(
                    text="(n, D)",
                    feedback="The output mixes rows of V, so its width is the values' "
                    "D_v, not the queries' D.",
                ),
            ),
        ),
        Numeric(
            prompt="The entries of a query and a key are independent, with mean 0 and "
            f"variance 1, and D = {D_big}. What is the standard deviation of q·k before "
            "the scaling?",
            answer=math.sqrt(D_big),
            tolerance=0.005,
            decimals=3,
            explain=f"q·k is a sum of D products of variance 1, so its variance is "
            f"D = {D_big} and its standard deviation √{D_big}.",
            hint="Add the variances of the D independent products q_j k_j, then take "
            "the square root.",
            mistakes=(
                Mistake(
                    value=D_big,
                    feedback=f"{D_big} is the variance; the standard deviation is its "
                    "square root.",
                ),
                Mistake(value=1.0, feedback="That is after dividing by √D."),
            ),
        ),
    ]


def ch09() -> list[Question]:
    from formulated.formulas import mask_autoregressive, masked_softmax, softmax

    n = 7
    allowed = int(np.isfinite(mask_autoregressive(n)).sum())
    scores = np.array([[2.0, 0.5, 1.0]])  # (1, 3): query 2 of 3, counted from 1
    mask = mask_autoregressive(3)[1:2]  # (1, 3)
    w = float(masked_softmax(scores, mask)[0, 0])
    multiplied = float(softmax(scores * (mask == 0))[0, 0])  # 0/1 mask multiplied
    unmasked = float(softmax(scores)[0, 0])
    return [
        Numeric(
            prompt=f"How many (query, key) pairs may attend under a causal mask with "
            f"n = {n}?",
            answer=allowed,
            tolerance=0,
            decimals=0,
            explain=f"each query sees itself and the tokens before it: 1 + 2 + … + {n}.",
            hint="Count the entries on and below the diagonal.",
            mistakes=(
                Mistake(value=n * n, feedback="That is every pair, with no mask."),
                Mistake(
                    value=allowed - n,
                    feedback="That leaves out the diagonal: a token sees itself.",
                ),
            ),
        ),
        Numeric(
            prompt="Scores (2, 0.5, 1) of query 2 (counted from 1) under a causal mask: "
            "what weight goes to key 1?",
            answer=w,
            tolerance=0.005,
            decimals=3,
            explain="key 3 is masked, so softmax of (2, 0.5).",
            hint="Add −∞ to the masked score, then take the softmax.",
            mistakes=(
                Mistake(
                    value=multiplied,
                    feedback="That multiplies the scores by a 0/1 mask: a score of 0 "
                    "still gets weight.",
                ),
                Mistake(
                    value=unmasked,
                    feedback="That is the softmax with no mask: for query 2, key 3 "
                    "lies in the future.",
                ),
            ),
        ),
        Choice(
            prompt="Padding and the causal mask together can mask every key of a query. "
            "What does the plain softmax formula give for such a row?",
            options=(
                Option(
                    text="NaN in every entry",
                    feedback="Every entry is e^(−∞) = 0 and so is their sum: 0/0. "
                    "PyTorch's attention returns zeros instead; formulated raises.",
                    correct=True,
                ),
                Option(
                    text="Equal weights 1/n",
                    feedback="That needs equal finite scores; here every exponential "
                    "is 0, and so is the sum.",
                ),
                Option(
                    text="Zeros in every entry",
                    feedback="The numerators are 0, but so is the denominator: 0/0 "
                    "is not a number. Zeros are a choice some libraries make.",
                ),
                Option(
                    text="The previous row's weights",
                    feedback="Each row is normalized on its own; nothing copies another "
                    "row.",
                ),
            ),
        ),
    ]


def ch10() -> list[Question]:
    from formulated.formulas import split_heads

    H, A = 512, 8
    D = H // A
    count = 4 * H * (A * D)  # W^Q, W^K, W^V and W^O, no biases
    shape = split_heads(np.zeros((1, 5, 24)), 4).shape  # (B, A, n, D)
    return [
        Numeric(
            prompt=f"How many weights has one multi-head attention layer with H = {H} and "
            f"A = {A} heads of D = H/A (W^Q, W^K, W^V and W^O, no biases)?",
            answer=count,
            tolerance=0,
            decimals=0,
            explain="4 · H · (A·D) = 4H².",
            hint="Each of the four matrices is H × H once the heads are put side by "
            "side.",
            mistakes=(
                Mistake(
                    value=4 * H * D,
                    feedback="That counts one head only: there are A heads of width D.",
                ),
                Mistake(
                    value=count + 4 * H,
                    feedback="That adds the four bias vectors, which the question leaves "
                    "out.",
                ),
                Mistake(
                    value=3 * H * H,
                    feedback="That leaves out W^O, which maps the concatenated heads "
                    "back to H.",
                ),
            ),
        ),
        Choice(
            prompt="split_heads turns a (B, n, H) array with B = 1, n = 5, H = 24 and "
            "A = 4 into which shape?",
            options=(
                Option(
                    text=str(shape),
                    feedback="One (n, D) slice per head, D = H / A.",
                    correct=True,
                ),
                Option(
                    text=str((1, 5, 4, 6)),
                    feedback="That is before moving the head axis to the front.",
                ),
                Option(
                    text=str((1, 4, 5, 24)),
                    feedback="Each head gets D = 6 columns, not all H.",
                ),
                Option(
                    text=str((4, 5, 6)),
                    feedback="Even with B = 1 the batch axis stays.",
                ),
            ),
        ),
        Choice(
            prompt="What does concatenating the heads and multiplying by W^O do?",
            options=(
                Option(
                    text="It mixes the heads into one row of width H",
                    feedback="W^O maps the A·D concatenated columns back to H, so every "
                    "head contributes to every output column.",
                    correct=True,
                ),
                Option(
                    text="It averages the heads' attention weights",
                    feedback="The heads' outputs are concatenated; their weights are "
                    "never averaged.",
                ),
                Option(
                    text="It keeps the output of the best head",
                    feedback="Every head contributes through its own rows of W^O.",
                ),
                Option(
                    text="It makes the layer causal across positions",
                    feedback="The mask added to every head's scores does that; W^O acts "
                    "on each row alone.",
                ),
            ),
        ),
    ]


def ch11() -> list[Question]:
    from formulated.formulas import gelu

    x = 2.0
    exact = float(gelu(np.array(x)))
    sigmoid_form = float(gelu(np.array(x), approximation="sigmoid"))
    H, F = 512, 2048
    count = H * F + F + F * H + H  # W1, b1, W2, b2
    return [
        Numeric(
            prompt=f"What is GELU({x:g}), with the exact (erf) GELU?",
            answer=exact,
            tolerance=0.002,
            decimals=4,
            explain=f"{x:g} · Φ({x:g}), Φ the standard normal distribution function. "
            "The tanh approximation differs only in the fourth decimal.",
            hint="GELU(x) = x Φ(x).",
            mistakes=(
                Mistake(value=x, feedback=f"That is ReLU({x:g})."),
                Mistake(
                    value=sigmoid_form,
                    feedback="That is the sigmoid approximation x σ(1.702 x), about 0.02 "
                    "off at this x.",
                ),
                Mistake(
                    value=exact / x,
                    feedback=f"That is Φ({x:g}) alone, without the factor x.",
                ),
            ),
        ),
        Numeric(
            prompt=f"How many parameters has a feed-forward network with H = {H} and "
            f"F = {F}, biases included?",
            answer=count,
            tolerance=0,
            decimals=0,
            explain="H·F + F for the first layer, F·H + H for the second.",
            hint="Count both weight matrices and both bias vectors.",
            mistakes=(
                Mistake(
                    value=2 * H * F, feedback="That leaves out the two bias vectors."
                ),
                Mistake(
                    value=2 * H * F + F,
                    feedback="That counts the first bias only; the second layer has a "
                    "bias of width H.",
                ),
            ),
        ),
        Choice(
            prompt="Changing the input at one position of a feed-forward layer changes…",
            options=(
                Option(
                    text="that position's output row only",
                    feedback="The same network is applied to each row separately.",
                    correct=True,
                ),
                Option(
                    text="every output row",
                    feedback="That is attention without a mask; the FFN is "
                    "position-wise.",
                ),
                Option(
                    text="the rows at and after it",
                    feedback="That is causal attention; nothing in the FFN looks at "
                    "other positions.",
                ),
                Option(
                    text="the same entry of that row only",
                    feedback="That would be element-wise; the FFN's matrices mix all H "
                    "entries of the row.",
                ),
            ),
        ),
    ]


def ch12() -> list[Question]:
    from formulated.formulas import layer_norm, layer_norm_std_eps

    x = np.array([[1.0, 2.0, 3.0, 4.0]])  # (1, H)
    first = float(layer_norm(x, np.ones(4), np.zeros(4))[0, 0])
    sample = float((x[0, 0] - x.mean()) / x.std(ddof=1))

    sigma, eps = 1e-3, 1e-5  # the prompt writes ε as 10⁻⁵
    row = np.array([[-sigma, sigma]])  # mean 0, standard deviation σ
    ones, zeros = np.ones(2), np.zeros(2)
    inside = float(layer_norm(row, ones, zeros, eps=eps)[0, 1]) / sigma
    outside = float(layer_norm_std_eps(row, ones, zeros, eps=eps)[0, 1]) / sigma
    return [
        Numeric(
            prompt="LayerNorm of the row (1, 2, 3, 4) with γ = 1, β = 0: what is its first "
            "entry?",
            answer=first,
            tolerance=0.005,
            decimals=3,
            explain="(1 − 2.5) divided by the standard deviation √1.25, dividing by H "
            "(ε is tiny).",
            hint="Subtract the mean, divide by the standard deviation over the row "
            "(divide by H).",
            mistakes=(
                Mistake(
                    value=sample,
                    feedback="That uses the sample standard deviation (dividing by "
                    "H − 1).",
                ),
            ),
        ),
        Numeric(
            prompt=f"A row has standard deviation σ = {sigma:g}; ε = 10⁻⁵. LayerNorm "
            "multiplies x − μ by a factor. What is that factor, with ε inside the "
            "square root as the formula has it?",
            answer=inside,
            tolerance=0.05,
            decimals=1,
            explain="1/√(σ² + ε) = 1/√(0.000011): ε dominates σ² = 0.000001 here.",
            hint="The factor is 1/√(σ² + ε); square σ before adding ε.",
            mistakes=(
                Mistake(
                    value=outside,
                    feedback="That is 1/(σ + ε), ε outside the root, as source 002's "
                    "code has it.",
                ),
                Mistake(
                    value=1 / sigma,
                    feedback="That is 1/σ, without ε: the formula adds ε to the "
                    "variance.",
                ),
            ),
        ),
        Choice(
            prompt="Where does a pre-LN block (GPT-2) apply LayerNorm?",
            options=(
                Option(
                    text="Before each sub-layer, inside the branch",
                    feedback="x + f(LN(x)): the residual path stays untouched.",
                    correct=True,
                ),
                Option(
                    text="After adding the residual",
                    feedback="That is the post-LN block of GPT-1 and of the original "
                    "transformer.",
                ),
                Option(
                    text="Only once, after the last block",
                    feedback="GPT-2 has that final LayerNorm too, besides the ones in "
                    "every block.",
                ),
                Option(
                    text="On the stream itself, before a sub-layer reads it",
                    feedback="The stream is never normalized in place; the sub-layer "
                    "reads a normalized copy, x + f(LN(x)).",
                ),
            ),
        ),
    ]


#: quiz id -> the function that builds that chapter's questions.
QUIZZES = {"ch08": ch08, "ch09": ch09, "ch10": ch10, "ch11": ch11, "ch12": ch12}
