"""The quizzes of part 3, The transformer block (chapters 8-12): each number is computed here
by the book's functions, each wrong option or named mistake by the slip it is named after."""

from __future__ import annotations

import math

import numpy as np

from .model import Choice, Mistake, Numeric, Option, Question

__all__ = ["QUIZZES"]


def _vector(v: np.ndarray) -> str:
    return "(" + ", ".join(f"{x:g}".replace("-", "−") for x in v) + ")"


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
        Choice(
            prompt="Queries and keys have independent entries of mean 0 and variance 1: "
            "without the division by √D, what happens to the attention weights as the "
            "width D grows?",
            options=(
                Option(
                    text="Nearly all the weight goes to one key",
                    feedback="The scores spread wider as D grows, and the softmax of "
                    "widely spread scores is nearly one-hot; there its Jacobian "
                    "diag(w) − wᵀw tends to 0, and so does the gradient.",
                    correct=True,
                ),
                Option(
                    text="The weight spreads evenly over the keys",
                    feedback="That is what dividing by a large number does; without "
                    "the division the scores grow with D and the weights sharpen.",
                ),
                Option(
                    text="Nothing: only the order of the scores matters",
                    feedback="The order decides which key leads, not by how much: "
                    "larger gaps between the scores give sharper weights.",
                ),
                Option(
                    text="The weights no longer sum to 1",
                    feedback="The softmax normalizes each row to 1 whatever the size "
                    "of the scores.",
                ),
            ),
        ),
    ]


def ch09() -> list[Question]:
    from formulated.formulas import mask_autoregressive, masked_softmax, softmax

    scores = np.array([[2.0, 0.5, 1.0]])  # (1, 3): query 2 of 3, counted from 1
    mask = mask_autoregressive(3)[1:2]  # (1, 3)
    w = float(masked_softmax(scores, mask)[0, 0])
    multiplied = float(softmax(scores * (mask == 0))[0, 0])  # 0/1 mask multiplied
    unmasked = float(softmax(scores)[0, 0])
    return [
        Choice(
            prompt="Sources 000 and 001 multiply the scores by a mask of 1 (allowed) and "
            "−∞ (blocked) instead of adding a mask of 0 and −∞. Which blocked score "
            "does their product still block?",
            options=(
                Option(
                    text="Only a positive score",
                    feedback="s · (−∞) = −∞ for s > 0, so its weight is e^(−∞) = 0; "
                    "a negative or a zero score breaks the row.",
                    correct=True,
                ),
                Option(
                    text="Only a negative score",
                    feedback="A negative score times −∞ is +∞, and a row with +∞ has "
                    "no softmax: NaN.",
                ),
                Option(
                    text="Only a score of exactly 0",
                    feedback="0 · (−∞) is NaN, not −∞: the whole row becomes NaN.",
                ),
                Option(
                    text="Every blocked score",
                    feedback="Only the positive ones; about half of all scores are "
                    "negative, so in practice every row with a future key breaks.",
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

    H, A, dot = 1600, 25, 22.0  # GPT-2 XL's width and heads; a query-key dot product
    D = H // A
    shape = split_heads(np.zeros((1, 5, 24)), 4).shape  # (B, A, n, D)
    return [
        Numeric(
            prompt=f"In one head of a multi-head attention layer of width H = {H:,} with "
            f"A = {A} heads of D = H/A, a query and a key have the dot product {dot:g}: "
            "what score does that head's softmax get for this pair (no mask)?",
            answer=dot / math.sqrt(D),
            tolerance=0.005,
            decimals=2,
            explain=f"each head is scaled dot-product attention of width D = {D}: "
            f"{dot:g} / √{D}.",
            hint="Each head divides its scores by the square root of its own width.",
            mistakes=(
                Mistake(
                    value=dot / math.sqrt(H),
                    feedback="That divides by √H, the layer's width; a head's dot "
                    "products have D = H/A terms, and it divides by √D.",
                ),
                Mistake(value=dot / D, feedback="That divides by D instead of √D."),
                Mistake(
                    value=dot / math.sqrt(A),
                    feedback="That divides by √A, the number of heads; the scale is "
                    "the head's width D.",
                ),
                Mistake(value=dot, feedback="That forgets the scaling by 1/√D."),
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
    from formulated.formulas import ffn_relu, gelu, relu

    x = 2.0
    exact = float(gelu(np.array(x)))
    sigmoid_form = float(gelu(np.array(x), approximation="sigmoid"))
    row = np.array([[2.0, -1.0]])  # (1, H), H = 2
    W1, b1 = np.array([[1.0, 0.0, -1.0], [1.0, 2.0, 1.0]]), np.array([0.0, 1.0, 4.0])
    W2, b2 = np.array([[1.0, 0.0], [3.0, 1.0], [2.0, -1.0]]), np.array([0.5, -0.5])

    def first(activation, b1=b1, b2=b2) -> float:  # (H, F) = (2, 3)
        return float((activation(row @ W1 + b1) @ W2 + b2)[0, 0])

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
            prompt="An FFN_ReLU with H = 2 and F = 3 has W1 with the rows (1, 0, −1) and "
            "(1, 2, 1), b1 = (0, 1, 4), W2 with the rows (1, 0), (3, 1) and (2, −1), and "
            "b2 = (0.5, −0.5). What is the first entry of its output for the row "
            "x = (2, −1)?",
            answer=float(ffn_relu(row, W1, b1, W2, b2)[0, 0]),
            tolerance=0.005,
            decimals=2,
            explain="x W1 + b1 = (1, −1, 1), ReLU gives (1, 0, 1), and "
            "1 · 1 + 0 · 3 + 1 · 2 + 0.5.",
            hint="Widen: x W1 + b1 (3 numbers); apply ReLU to each; narrow: times W2, "
            "plus b2.",
            mistakes=(
                Mistake(
                    value=first(lambda z: z),
                    feedback="That leaves out the ReLU, which sets the negative hidden "
                    "entry to 0 before W2.",
                ),
                Mistake(
                    value=first(relu, b1=0.0),
                    feedback="That leaves out b1, which is added before the ReLU.",
                ),
                Mistake(
                    value=first(relu, b2=0.0),
                    feedback="That leaves out b2, added to the output.",
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

    L, slope = 10, 0.1  # scalar layers x -> x + f(x), f' = slope where evaluated
    residual = (1 + slope) ** L  # the chain rule: one factor 1 + f' per layer
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
        Numeric(
            prompt=f"A stack of {L} scalar layers, each with a residual connection "
            f"x ↦ x + f(x), where every f has the derivative f′ = {slope:g} at the point "
            "it is evaluated. By what factor is a small change of the input multiplied "
            "at the output?",
            answer=residual,
            tolerance=0.005,
            decimals=3,
            explain=f"each layer's derivative is 1 + f′ = {1 + slope:g}, and the chain "
            f"rule multiplies the {L} of them: {1 + slope:g}^{L}.",
            hint="The derivative of x ↦ x + f(x) is 1 + f′(x); through a stack, the "
            "chain rule multiplies the layers' derivatives.",
            mistakes=(
                Mistake(
                    value=slope**L,
                    feedback="That is the plain stack x ↦ f(x): without the skips "
                    f"only the factors f′ = {slope:g} multiply, and the change fades.",
                ),
                Mistake(
                    value=1 + L * slope,
                    feedback="That adds the derivatives; the chain rule multiplies "
                    "the layers' factors 1 + f′.",
                ),
                Mistake(
                    value=1.0,
                    feedback="That is the identity path alone; each layer's "
                    "derivative is 1 + f′.",
                ),
            ),
        ),
    ]


#: quiz id -> the function that builds that chapter's questions.
QUIZZES = {"ch08": ch08, "ch09": ch09, "ch10": ch10, "ch11": ch11, "ch12": ch12}
