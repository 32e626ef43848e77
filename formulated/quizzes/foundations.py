"""The quizzes of part 1, Foundations (chapters 1-4): each number is computed here by the
book's functions, each wrong option or named mistake by the slip it is named after."""

from __future__ import annotations

import math

import numpy as np

from .model import Choice, Mistake, Numeric, Option, Question

__all__ = ["QUIZZES"]


def ch01() -> list[Question]:
    from formulated.basics import (
        learning_rate_regime,
        linear_regression_closed_form,
        squared_loss_grad,
    )

    x, y = np.array([0.0, 1.0, 3.0]), np.array([1.0, 3.0, 4.0])
    slope = float(linear_regression_closed_form(x[:, None], y)[1])
    end_points = float((y[-1] - y[0]) / (x[-1] - x[0]))
    through_0 = float(x @ y / (x @ x))  # the line forced through 0

    hessian = np.diag([4.0, 1.0])
    rate = 0.4
    regime = learning_rate_regime(rate, hessian)

    xs, ys = np.array([[1.0], [2.0], [3.0]]), np.array([2.0, 3.0, 5.0])
    theta, alpha = np.array([0.0, 1.0]), 0.05
    grad = squared_loss_grad(xs, ys, theta)  # (θ0, θ1)
    step = float(theta[1] - alpha * grad[1])
    return [
        Numeric(
            prompt="Fit the line y = θ0 + θ1 x to the points (0, 1), (1, 3), (3, 4) by "
            "least squares. What is the slope θ1?",
            answer=slope,
            tolerance=0.005,
            decimals=3,
            explain="the normal equations with the column of ones for θ0 give "
            "θ = (1.429, 0.929).",
            hint="Solve the normal equations X̃ᵀX̃ θ = X̃ᵀy, with the design matrix "
            "X̃ = [1, x].",
            mistakes=(
                Mistake(
                    value=end_points,
                    feedback="That is the slope through the first and the last point: "
                    "least squares weighs all three.",
                ),
                Mistake(
                    value=through_0,
                    feedback="That is the slope of a line forced through 0: the column "
                    "of ones for θ0 is missing.",
                ),
            ),
        ),
        Choice(
            prompt="Gradient descent on a quadratic loss whose Hessian is diag(4, 1), "
            f"with learning rate {rate}: what happens?",
            options=(
                Option(
                    text="It converges smoothly",
                    feedback="That needs α ≤ 1/λmax = 1/4: the largest eigenvalue "
                    "sets the limit (4 here, not 1).",
                    correct=regime == "converges",
                ),
                Option(
                    text="It overshoots, oscillates and converges",
                    feedback="1/λmax = 0.25 < 0.4 < 2/λmax = 0.5: along the steep "
                    "direction the error is multiplied by 1 − 0.4 · 4 = −0.6 per step.",
                    correct=regime == "oscillates",
                ),
                Option(
                    text="It oscillates with growing amplitude",
                    feedback="That needs α > 2/λmax = 0.5; here the factor 1 − 0.4 · 4 "
                    "= −0.6 is smaller than 1 in size.",
                    correct=regime == "diverges",
                ),
                Option(
                    text="It stalls along the flat direction",
                    feedback="Along the flat direction (λ = 1) the error is multiplied "
                    "by 1 − 0.4 · 1 = 0.6 per step: it shrinks, slowly.",
                ),
            ),
        ),
        Numeric(
            prompt="The loss is L(θ) = ½ Σ (θ0 + θ1 x_i − y_i)² on the points (1, 2), "
            "(2, 3), (3, 5). Take one gradient-descent step with α = 0.05 from "
            "θ = (0, 1). What is the new θ1?",
            answer=step,
            tolerance=0.005,
            decimals=2,
            explain="∂L/∂θ1 = Σ (ŷ_i − y_i) x_i = −1 − 2 − 6 = −9, and θ1 − α · (−9) "
            "= 1 + 0.45.",
            hint="Compute the residuals ŷ_i − y_i, then ∂L/∂θ1 = Σ (ŷ_i − y_i) x_i, "
            "then θ1 ← θ1 − α ∂L/∂θ1.",
            mistakes=(
                Mistake(
                    value=float(theta[1] + alpha * grad[1]),
                    feedback="That steps along the gradient, uphill: gradient descent "
                    "subtracts α times the gradient.",
                ),
                Mistake(
                    value=float(theta[1] - alpha * grad[0]),
                    feedback="That uses Σ (ŷ_i − y_i) without the factor x_i: it is "
                    "the gradient for θ0, not θ1.",
                ),
                Mistake(
                    value=float(theta[1] - alpha * grad[1] / len(ys)),
                    feedback="That averages over the three points; this loss sums "
                    "them (with ½ in front).",
                ),
            ),
        ),
    ]


def ch02() -> list[Question]:
    from formulated.basics import entropy, softmax_temperature

    z = np.array([3.0, 1.0, 0.0])
    p0 = float(softmax_temperature(z, 1.0)[0])
    naive = float(z[0] / z.sum())  # scores divided by their sum, no exponential
    T = 2.0
    warm = float(softmax_temperature(z, T)[0])
    times_T = float(softmax_temperature(z * T, 1.0)[0])
    p = np.array([0.5, 0.25, 0.125, 0.0625, 0.0625])
    bits = float(entropy(p, base=2))
    nats = float(entropy(p))
    return [
        Numeric(
            prompt="What probability does softmax give the first score of z = (3, 1, 0)?",
            answer=p0,
            tolerance=0.005,
            decimals=3,
            explain="e³ / (e³ + e¹ + e⁰).",
            hint="Exponentiate each score, then divide by the sum of the exponentials.",
            mistakes=(
                Mistake(
                    value=naive,
                    feedback="That divides the scores by their sum: the exponentials "
                    "are missing.",
                ),
            ),
        ),
        Numeric(
            prompt="The same scores z = (3, 1, 0) at temperature T = 2: what probability "
            "does the first one get now?",
            answer=warm,
            tolerance=0.005,
            decimals=3,
            explain="softmax(z / 2) = softmax(1.5, 0.5, 0): a higher temperature "
            "flattens the distribution.",
            hint="Divide the scores by T first, then take the softmax.",
            mistakes=(
                Mistake(
                    value=times_T,
                    feedback="That multiplies the scores by T; the temperature "
                    "divides them.",
                ),
                Mistake(
                    value=p0,
                    feedback="That is the probability at T = 1: the scores are divided "
                    "by T = 2 first.",
                ),
            ),
        ),
        Numeric(
            prompt="What is the entropy, in bits, of the distribution "
            "(1/2, 1/4, 1/8, 1/16, 1/16)?",
            answer=bits,
            tolerance=0.005,
            decimals=3,
            explain="½ · 1 + ¼ · 2 + ⅛ · 3 + 2 · (1/16) · 4 bits.",
            hint="Sum −p log₂ p over the five outcomes.",
            mistakes=(
                Mistake(
                    value=nats,
                    feedback="That is the entropy in nats (natural logarithm), not bits.",
                ),
                Mistake(
                    value=math.log2(len(p)),
                    feedback="That is log₂ 5, the entropy of the uniform distribution "
                    "over five outcomes; this one is not uniform.",
                ),
            ),
        ),
        Choice(
            prompt="For p = (1/2, 1/4, 1/4) and q = (1/3, 1/3, 1/3), the cross-entropy "
            "H(p, q) minus the entropy H(p) equals…",
            options=(
                Option(
                    text="KL(p‖q)",
                    feedback="H(p, q) = H(p) + KL(p‖q): the extra cost of coding p with "
                    "a code made for q.",
                    correct=True,
                ),
                Option(
                    text="KL(q‖p)",
                    feedback="The divergence is not symmetric: H(p, q) − H(p) puts p "
                    "first, as the distribution the expectation is taken over.",
                ),
                Option(
                    text="H(q)",
                    feedback="The cross-entropy does not split into the entropy of q; "
                    "the expectation is over p.",
                ),
                Option(
                    text="0",
                    feedback="Only when q = p; here the two distributions differ.",
                ),
            ),
        ),
    ]


def ch03() -> list[Question]:
    from formulated.basics import mlp2_backward, mlp2_forward, sigmoid_grad
    from formulated.formulas import sigmoid

    x, y, th1, th2 = 2.0, 0.2, 0.0, 3.0
    z1 = float(sigmoid(np.array(th1 * x)))
    residual = th2 * z1 - y  # ∂J/∂ŷ
    local = float(sigmoid_grad(np.array(th1 * x)))  # σ′(θ1 x)
    chain = residual * th2 * local * x

    X = np.array([[1.0, 2.0]])  # (B, d) = (1, 2)
    W1, b1 = np.array([[1.0, 3.0], [0.5, -2.0]]), np.zeros(2)  # (d, F), (F,)
    W2, b2 = np.array([[1.0], [2.0]]), np.zeros(1)  # (F, k), (k,)
    Y = np.array([[0.5]])
    _, cache = mlp2_forward(X, W1, b1, W2, b2, activation="relu")
    grads = mlp2_backward(cache, Y)[1]
    # the same forward pass, backpropagated as if ReLU′ were 1 everywhere
    ungated = mlp2_backward({**cache, "activation": "identity"}, Y)[1]["X"]
    return [
        Numeric(
            prompt="What is ∂J/∂θ1 on the path x → z1 = σ(θ1 x) → ŷ = θ2 z1 → "
            "J = ½(ŷ − y)², at x = 2, y = 0.2, θ1 = 0 and θ2 = 3?",
            answer=chain,
            tolerance=0.005,
            decimals=3,
            explain="(ŷ − y) · θ2 · σ′(θ1 x) · x = 1.3 · 3 · ¼ · 2.",
            hint="Multiply the three links: ∂J/∂ŷ = ŷ − y, ∂ŷ/∂z1 = θ2 and "
            "∂z1/∂θ1 = σ′(θ1 x) · x.",
            mistakes=(
                Mistake(
                    value=chain / x,
                    feedback="The last link, ∂z1/∂θ1 = σ′(θ1 x) · x, has the factor x "
                    "too.",
                ),
                Mistake(
                    value=chain / local,
                    feedback="That leaves out σ′(θ1 x) = ¼: the sigmoid sits on the "
                    "path, so its derivative is a link of the chain.",
                ),
                Mistake(
                    value=residual * z1,
                    feedback="That is ∂J/∂θ2 = (ŷ − y) · z1, the other weight.",
                ),
            ),
        ),
        Numeric(
            prompt="A two-layer network with ReLU: input x = (1, 2), W1 = [[1, 3], "
            "[0.5, −2]] (rows: inputs, columns: hidden units), no biases, "
            "W2 = [[1], [2]], target y = 0.5, J = ½(ŷ − y)². Backpropagate: what is "
            "∂J/∂x₂, the gradient for the second input?",
            answer=float(grads["X"][0, 1]),
            tolerance=0.005,
            decimals=2,
            explain="Z1 = (2, −1), so ReLU passes unit 1 only: ∂J/∂Z1 = (1.5 · 1, 0), "
            "and ∂J/∂x = ∂J/∂Z1 · W1ᵀ = (1.5, 0.75).",
            hint="Go backwards: ∂J/∂ŷ, then ∂J/∂A1 = ∂J/∂ŷ · W2ᵀ, then multiply by "
            "ReLU′(Z1) entry by entry, then ∂J/∂x = ∂J/∂Z1 · W1ᵀ.",
            mistakes=(
                Mistake(
                    value=float(ungated[0, 1]),
                    feedback="Hidden unit 2 has Z = −1, where ReLU′ = 0: no gradient "
                    "flows back through it.",
                ),
                Mistake(
                    value=float((grads["b1"] @ W1)[1]),
                    feedback="That multiplies ∂J/∂Z1 by W1, not by its transpose: x₂ "
                    "reaches the hidden units through row 2 of W1, (0.5, −2).",
                ),
                Mistake(
                    value=float(grads["X"][0, 0]),
                    feedback="That is ∂J/∂x₁, the gradient for the first input; the "
                    "question asks for x₂, the second.",
                ),
            ),
        ),
        Choice(
            prompt="Backpropagation gives the gradient of the loss for every weight of a "
            "network. Compared with one forward pass, what does that cost?",
            options=(
                Option(
                    text="A couple of forward passes, whatever the size",
                    feedback="One backward sweep, whatever the number of weights: each "
                    "layer's gradient is reused for the layer before it.",
                    correct=True,
                ),
                Option(
                    text="Two forward passes for every weight",
                    feedback="That is the price of central finite differences, which "
                    "perturb one weight at a time.",
                ),
                Option(
                    text="One forward pass for every layer",
                    feedback="Each layer's backward step costs about what its own "
                    "forward step costs, a few matrix products, not a whole pass.",
                ),
                Option(
                    text="It grows with the square of the number of weights",
                    feedback="That is the size of the Hessian, one entry per pair of "
                    "weights; the gradient has one entry per weight, all from one "
                    "backward sweep.",
                ),
            ),
        ),
    ]


def ch04() -> list[Question]:
    from formulated.basics import cosine_similarity, rnn_backward, rnn_forward

    a, b = np.array([1.0, 2.0, 0.0]), np.array([2.0, 1.0, 1.0])
    cos = float(cosine_similarity(a, b))
    w, back = 0.8, 10

    X, h0 = np.ones((3, 1)), np.zeros(1)  # x_1 = x_2 = x_3 = 1, h_0 = 0
    W_xh, W_hh, b_h = np.ones((1, 1)), np.array([[w]]), np.zeros(1)
    states = rnn_forward(X, h0, W_xh, W_hh, b_h, activation="identity")
    last = np.array([[0.0], [0.0], [1.0]])  # L = h_3
    dw = float(
        rnn_backward(X, h0, W_xh, W_hh, b_h, states, last, activation="identity")[
            "W_hh"
        ][0, 0]
    )
    return [
        Numeric(
            prompt="What is the cosine similarity of (1, 2, 0) and (2, 1, 1)?",
            answer=cos,
            tolerance=0.005,
            decimals=3,
            explain="4 / (√5 · √6), the dot product over the product of the lengths.",
            hint="Divide the dot product by the product of the two lengths.",
            mistakes=(
                Mistake(
                    value=float(a @ b),
                    feedback="That is the dot product, not divided by the lengths.",
                ),
            ),
        ),
        Numeric(
            prompt=f"In a linear recurrence h_t = {w} h_(t−1), by what factor is the "
            f"gradient multiplied when it travels {back} steps back?",
            answer=w**back,
            tolerance=0.005,
            decimals=3,
            explain=f"{w} multiplied {back} times: ∂h_t/∂h_(t−{back}) = {w}^{back}.",
            hint=f"Every step back multiplies the gradient by {w}, the same factor each "
            "time.",
            mistakes=(
                Mistake(
                    value=w * back,
                    feedback=f"That multiplies {w} by {back}; the factor is {w} to the "
                    f"power {back}, one {w} per step.",
                ),
                Mistake(
                    value=w**-back,
                    feedback="That divides by the factor at every step; the gradient is "
                    "multiplied by it, so it shrinks.",
                ),
            ),
        ),
        Numeric(
            prompt="Backpropagation through time in a one-unit linear RNN "
            f"h_t = w h_(t−1) + x_t: with w = {w}, h_0 = 0 and the inputs "
            "x_1 = x_2 = x_3 = 1, what is ∂h_3/∂w, the gradient of the last state for the "
            "recurrent weight?",
            answer=dw,
            tolerance=0.005,
            decimals=2,
            explain=f"one term per step: h_2 + w · h_1 + w² · h_0 = "
            f"{states[1, 0]:g} + {w} · {states[0, 0]:g} + 0.",
            hint="The weight is used at every step: sum, over t = 1, 2, 3, h_(t−1) times "
            "the gradient that reaches step t, ∂h_3/∂h_t = w^(3−t).",
            mistakes=(
                Mistake(
                    value=float(states[1, 0]),
                    feedback="That is the last step's term h_2 only; the same w acts at "
                    "every step, and BPTT adds one term per step.",
                ),
            ),
        ),
        Choice(
            prompt="Why do gradients survive many steps in an LSTM better than in a plain "
            "RNN?",
            options=(
                Option(
                    text="Its cell state is updated by adding",
                    feedback="Along the additive cell state each step back multiplies "
                    "the gradient by the forget gate only, which can stay near 1 for "
                    "many steps.",
                    correct=True,
                ),
                Option(
                    text="An LSTM stacks more layers than an RNN",
                    feedback="An LSTM cell is one layer; more layers would make the path "
                    "longer, not easier.",
                ),
                Option(
                    text="Its gates use ReLU, whose slope is 1",
                    feedback="Its three gates are sigmoids; tanh squashes the candidate "
                    "and the output. There is no ReLU.",
                ),
                Option(
                    text="Its hidden state is normalized at every step",
                    feedback="Nothing normalizes the state; the additive update of the "
                    "cell state is what carries the gradient.",
                ),
            ),
        ),
    ]


#: quiz id -> the function that builds that chapter's questions.
QUIZZES = {"ch01": ch01, "ch02": ch02, "ch03": ch03, "ch04": ch04}
