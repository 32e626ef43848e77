"""Errata of chapters 01–04 (learning from data, information, networks, sequences): source 004.

Each check takes a value (the slides' or the corrected one) and recomputes the truth by an
independent route -- a simulation, ``numpy.linalg``, ``torch`` -- to say whether it is wrong.
Imports of heavy libraries sit inside the checks so that importing the errata stays cheap.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .record import Erratum

__all__ = ["ERRATA"]

_CH01, _CH02, _CH04 = (
    "chapters/01_learning_from_data",
    "chapters/02_probability_information",
    "chapters/04_sequences",
)


def go_learner_is_wrong(kind: str) -> bool:
    """Can a learner of ``kind`` (``"unsupervised"``/``"reinforcement"``) find Go's winning move?

    One-move games: the same 200 recorded moves in two worlds that differ only in which move wins.
    What each kind of learner receives is computed for both worlds: an unsupervised learner gets
    the moves, a reinforcement learner the moves and each game's reward.  If a learner receives
    the same data in two worlds with different winners, *no* algorithm of that kind can be right
    in both (it is wrong); otherwise a learner that uses the data (the move with the best mean
    reward) must find the winner in every world.
    """
    moves = np.random.default_rng(0).integers(0, 2, 200)
    rewards = {winner: (moves == winner).astype(float) for winner in (0, 1)}
    if kind == "unsupervised":
        seen = {w: (moves,) for w in rewards}
    elif kind == "reinforcement":
        seen = {w: (moves, rewards[w]) for w in rewards}
    else:
        raise ValueError(
            f"kind: expected 'unsupervised' or 'reinforcement', got {kind!r}"
        )
    same_data = all(np.array_equal(x, y) for x, y in zip(seen[0], seen[1]))
    if same_data:
        return True  # one input, two right answers: some world is missed
    for winner, data in seen.items():
        m, r = data
        if int(np.argmax([r[m == a].mean() for a in (0, 1)])) != winner:
            return True
    return False


def gradient_sign_is_wrong(sign: float) -> bool:
    """Is ``sign * Σ(ŷ_i − y_i) x_ij`` the gradient of ½Σ(ŷ_i − y_i)² with ŷ observed, y = Xθ?

    torch's autograd gives the truth for a seeded regression problem.
    """
    import torch

    g = torch.Generator().manual_seed(0)
    x = torch.randn(20, generator=g, dtype=torch.float64)
    observed = 1.0 + 2.0 * x + 0.1 * torch.randn(20, generator=g, dtype=torch.float64)
    theta = torch.tensor([0.3, -0.5], dtype=torch.float64, requires_grad=True)
    computed = theta[0] + theta[1] * x  # y_i of equation (1)
    (0.5 * ((observed - computed) ** 2).sum()).backward()  # equation (2), ŷ observed
    eq3 = torch.stack(
        [(observed - computed).sum(), ((observed - computed) * x).sum()]
    ).detach()
    return not bool(torch.allclose(theta.grad, sign * eq3))


def slides_convex(f: Callable[[np.ndarray], np.ndarray], t: np.ndarray) -> bool:
    """The slides' definition: positive, has a minimum, and increases from it in both directions."""
    y = f(t)
    k = int(np.argmin(y))
    return bool(
        np.all(y >= 0)
        and 0 < k < len(t) - 1
        and np.all(np.diff(y[: k + 1]) < 0)
        and np.all(np.diff(y[k:]) > 0)
    )


def chord_convex(f: Callable[[np.ndarray], np.ndarray], t: np.ndarray) -> bool:
    """Convex: every chord lies on or above the graph (random pairs and weights in ``t``'s range)."""
    rng = np.random.default_rng(1)
    a, b = rng.uniform(t.min(), t.max(), (2, 2000))
    lam = rng.uniform(0, 1, 2000)
    return bool(
        np.all(f(lam * a + (1 - lam) * b) <= lam * f(a) + (1 - lam) * f(b) + 1e-12)
    )


def convexity_definition_is_wrong(definition: Callable[..., bool]) -> bool:
    """Does ``definition(f, grid)`` call convex exactly the convex ones of four test functions?

    The truth is computed another way: a function sampled on a uniform grid is convex when its
    second differences are nowhere negative (√|θ| has negative ones; θ², |θ|, (θ−1)² − 1 do not).
    """
    t = np.linspace(-4, 4, 801)
    tests = [
        np.square,
        np.abs,
        lambda u: np.sqrt(np.abs(u)),
        lambda u: (u - 1) ** 2 - 1,
    ]
    truth = [bool(np.all(np.diff(f(t), 2) >= -1e-12)) for f in tests]
    return [definition(f, t) for f in tests] != truth


def convergence_rule_is_wrong(converges: Callable[[float, np.ndarray], bool]) -> bool:
    """Does ``converges(alpha, A)`` predict when gradient descent on ½θᵀAθ reaches the minimum?

    The truth is measured: :func:`formulated.basics.gradient_descent` from five random starting
    points, 200 steps, at four learning rates on each side of 2/λ_max.
    """
    from ..basics import gradient_descent

    A = np.array([[3.0, 1.0], [1.0, 2.0]])  # L(θ) = ½ θᵀAθ, convex
    lam = np.linalg.eigvalsh(A)[-1]
    starts = np.random.default_rng(0).normal(size=(5, 2)) * 3
    for alpha in np.array([0.5, 1.5, 2.2, 3.0]) / lam:
        reached = [
            np.linalg.norm(gradient_descent(lambda th: A @ th, s, alpha, 200)[-1])
            < 1e-6
            for s in starts
        ]
        if any(r != converges(float(alpha), A) for r in reached):
            return True
    return False


def slides_search(
    loss: Callable[[np.ndarray], float],
    grad: Callable[[np.ndarray], np.ndarray],
    theta: np.ndarray,
    alpha: float,
    sweeps: int = 50,
) -> np.ndarray:
    """The slides' whole procedure (004, "Gradient Descent"), one parameter at a time.

    Step ``θ_j ← θ_j + αθ_j`` while the loss decreases; "if L' > L, we travel in the reverse
    direction", ``θ_j ← θ_j − αθ_j``, while it decreases.  Every step multiplies θ_j by 1 ± α, so
    θ_j keeps its sign and a θ_j of 0 stays 0.  The loss is computed exactly (kinder than the
    slides' first-order estimate); ``grad`` is not used, as on the slides.
    """
    theta = np.array(theta, dtype=float)
    for _ in range(sweeps):
        for j in range(len(theta)):
            for factor in (1 + alpha, 1 - alpha):  # forward, then the reverse direction
                for _ in range(2000):
                    trial = theta.copy()
                    trial[j] *= factor
                    if not loss(trial) < loss(theta):
                        break
                    theta = trial
    return theta


def _gradient_descent(
    loss: Callable[[np.ndarray], float],
    grad: Callable[[np.ndarray], np.ndarray],
    theta: np.ndarray,
    alpha: float,
) -> np.ndarray:
    """θ ← θ − α ∂L/∂θ, 2,000 steps."""
    theta = np.array(theta, dtype=float)
    for _ in range(2000):
        theta = theta - alpha * grad(theta)
    return theta


def update_rule_is_wrong(procedure: Callable[..., np.ndarray]) -> bool:
    """Does ``procedure(loss, grad, θ₀, α)`` reach the least-squares θ* (``numpy.linalg.lstsq``)?

    Two starts: one whose slope has the wrong sign (θ* = (2, −1.5) from (0.5, 0.5)) and one with
    a parameter at 0.  Wrong when some start ends farther than 1e-6 from θ*.
    """
    from ..basics import squared_loss_grad

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 1))
    y = 2.0 - 1.5 * X[:, 0] + 0.1 * rng.normal(size=30)
    Z = np.c_[np.ones(30), X]
    star = np.linalg.lstsq(Z, y, rcond=None)[0]
    loss = lambda th: 0.5 * float(np.sum((Z @ th - y) ** 2))  # noqa: E731
    grad = lambda th: squared_loss_grad(X, y, th)  # noqa: E731
    return any(
        not np.linalg.norm(procedure(loss, grad, np.array(start), 0.01) - star) < 1e-6
        for start in ((0.5, 0.5), (0.0, 0.5))
    )


def loss_change_sign_is_wrong(sign: float) -> bool:
    """Is L(θ+Δ) ≈ L(θ) + sign·(∂L/∂θ)Δ to first order?  Shrinking Δ tenfold must shrink the
    error about a hundredfold (second order); a wrong sign leaves a first-order error (tenfold)."""
    L = lambda t: (t - 3.0) ** 2  # noqa: E731
    dL = lambda t: 2 * (t - 3.0)  # noqa: E731
    errs = [abs(L(1.0 + d) - (L(1.0) + sign * dL(1.0) * d)) for d in (1e-2, 1e-3)]
    return not errs[0] / errs[1] > 90


def feature_scaler_is_wrong(scale: Callable[[np.ndarray], np.ndarray]) -> bool:
    """Does a linear regression on ``scale(features)`` still fit a target made from the features?

    Samples with features in the slides' ranges (0–10 and 10,000–100,000); the target is linear
    in them, so a good scaling keeps R² ≈ 1 (least squares by ``numpy.linalg.lstsq``).
    """
    rng = np.random.default_rng(0)
    F = np.c_[rng.uniform(0, 10, 50), rng.uniform(10_000, 100_000, 50)]
    y = 3.0 * F[:, 0] - 2e-4 * F[:, 1] + rng.normal(0, 0.1, 50)
    Z = np.c_[np.ones(50), scale(F)]
    resid = y - Z @ np.linalg.lstsq(Z, y, rcond=None)[0]
    r2 = 1 - resid @ resid / ((y - y.mean()) @ (y - y.mean()))
    return not bool(r2 > 0.9)


def eliminated_count_is_wrong(n_eliminated: int) -> bool:
    """Three yes/no answers about a secret among 8 equally likely values: how many are eliminated?

    Played out for every secret; wrong when some game eliminates another number.
    """
    for secret in range(8):
        candidates = list(range(8))
        for bit in (4, 2, 1):
            candidates = [c for c in candidates if (c & bit) == (secret & bit)]
        if 8 - len(candidates) != n_eliminated:
            return True
    return False


def lstm_output_is_wrong(
    output: Callable[[np.ndarray, np.ndarray], np.ndarray] | None,
) -> bool:
    """Does the slides' cell with ``h_t = output(o_t, C_t)`` reproduce ``torch.nn.LSTM``?

    ``None`` is the slides as written: ``h_t`` is never defined, so ``h`` keeps its initial value.
    """
    import torch

    from ..basics import tanh
    from ..formulas import sigmoid

    torch.manual_seed(0)
    d, H, n = 3, 4, 5
    lstm = torch.nn.LSTM(d, H, batch_first=True, dtype=torch.float64)
    X = np.random.default_rng(0).normal(size=(n, d))
    ref = lstm(torch.from_numpy(X)[None])[0][0].detach().numpy()
    Wi, Wh = lstm.weight_ih_l0.detach().numpy(), lstm.weight_hh_l0.detach().numpy()
    b = (lstm.bias_ih_l0 + lstm.bias_hh_l0).detach().numpy()
    Ws = [
        np.vstack([Wi[k * H : (k + 1) * H].T, Wh[k * H : (k + 1) * H].T])
        for k in range(4)
    ]
    bs = [b[k * H : (k + 1) * H] for k in range(4)]  # torch's gate order: i, f, g, o
    h, c, hs = np.zeros(H), np.zeros(H), []
    for x in X:
        z = np.concatenate([x, h])
        i, f, o = (sigmoid(z @ Ws[k] + bs[k]) for k in (0, 1, 3))
        c = f * c + i * tanh(z @ Ws[2] + bs[2])
        h = h if output is None else output(o, c)
        hs.append(h)
    return not bool(np.abs(np.array(hs) - ref).max() < 1e-12)


def _standardize(F: np.ndarray) -> np.ndarray:
    return (F - F.mean(0)) / F.std(0)


def _softmax_rows(F: np.ndarray) -> np.ndarray:
    from ..formulas import softmax

    return softmax(F, axis=-1)


def _h_t(o: np.ndarray, c: np.ndarray) -> np.ndarray:
    from ..basics import tanh

    return o * tanh(c)


def _always(alpha: float, A: Any) -> bool:
    return True


def _below_two_over_lambda(alpha: float, A: np.ndarray) -> bool:
    return alpha < 2 / np.linalg.eigvalsh(A)[-1]


# Found by the audit ledger (appendix B) of source 004.


#: The paper that founded information theory; its by-line is "C. E. Shannon".
_SHANNON_1948 = (
    'C. E. Shannon, "A Mathematical Theory of Communication", Bell System '
    "Technical Journal 27 (1948), pp. 379-423 and 623-656; by-line C. E. Shannon, "
    "Claude Elwood Shannon"
)


def shannon_name_is_wrong(name: str) -> bool:
    """Is ``name`` not the author of the cited 1948 paper, Claude Elwood Shannon?

    The paper is signed "C. E. Shannon": given name Claude, middle name Elwood, family name
    Shannon.  A name is right when its first word is the given name or its initial (as in the
    by-line), its last word the family name, and anything between is the middle name or its
    initial; case and full stops are ignored, every other spelling is wrong.
    """
    given, middle, family = "claude", "elwood", "shannon"
    words = name.replace(".", " ").lower().split()
    if len(words) < 2 or words[0] not in (given, given[0]) or words[-1] != family:
        return True
    return not all(w in (middle, middle[0]) for w in words[1:-1])


ERRATA: list[Erratum] = [
    Erratum(
        key="004-go-unsupervised",
        severity="error",
        sources=("004",),
        section='"Types of Machine Learning & Basic Definitions"',
        says="unsupervised learning: the machine groups unsorted information without training "
        "data; *e.g., playing GO*",
        correct="learning to play Go is reinforcement learning: the signal is the outcome "
        "(reward) of the games, which no grouping of unlabeled positions can recover "
        "(AlphaGo added self-play reinforcement learning to supervised learning from "
        "expert moves)",
        chapter=_CH01,
        stated="unsupervised",
        true="reinforcement",
        check=go_learner_is_wrong,
    ),
    Erratum(
        key="004-prediction-observation-swapped",
        severity="error",
        sources=("004",),
        section='"Gradient Descent", equation (3)',
        says="with $y_i$ computed by the model (1) and $\\hat y_i$ observed (as the slides say), "
        "$\\partial L/\\partial\\theta_j = \\sum_i(\\hat y_i - y_i)x_{ij}$",
        correct="the derivative of $L = \\tfrac12\\sum_i(\\hat y_i - y_i)^2$ is "
        "$-\\sum_i(\\hat y_i - y_i)x_{ij}$: only the sign is wrong, which does not matter "
        "when the equation is set to $0$ but reverses a gradient step",
        chapter=_CH01,
        stated=+1.0,
        true=-1.0,
        check=gradient_sign_is_wrong,
    ),
    Erratum(
        key="004-convexity-definition",
        severity="error",
        sources=("004",),
        section='"Linear Regression"',
        says="a function that is always positive, has a minimum and increases monotonically from "
        "it in both directions “is called a convex function”",
        correct="convex means every chord lies above the graph, "
        "$f(\\lambda a + (1-\\lambda) b) \\le \\lambda f(a) + (1-\\lambda) f(b)$; "
        "$\\sqrt{|\\theta|}$ has the listed properties and is not convex, and "
        "$(\\theta - 1)^2 - 1$ is convex without being positive. (The squared loss is "
        "convex, and ≥ 0 rather than > 0.)",
        chapter=_CH01,
        stated=slides_convex,
        true=chord_convex,
        check=convexity_definition_is_wrong,
    ),
    Erratum(
        key="004-convex-always-converges",
        severity="omission",
        sources=("004",),
        kind="omission",
        section='"Gradient Descent"',
        says="for a convex function it does not matter what the initial weights are as it will "
        "always converge",
        correct="the starting point indeed does not matter, but only if the learning rate is "
        "small enough: on a convex quadratic gradient descent converges from every "
        "start when $\\alpha < 2/\\lambda_{\\max}$ (largest eigenvalue of the Hessian) "
        "and diverges from every start but the minimum above it",
        chapter=_CH01,
        stated=_always,
        true=_below_two_over_lambda,
        check=convergence_rule_is_wrong,
    ),
    Erratum(
        key="004-gradient-step",
        severity="error",
        sources=("004",),
        section='"Gradient Descent"',
        says="$\\Delta\\theta_j = \\alpha\\theta_j$, $\\theta'_j = \\theta_j + \\Delta\\theta_j$, "
        "continued while the loss decreases; “if $L' > L$, we travel in the reverse "
        "direction and follow the same process”, one $\\theta_j$ at a time",
        correct="$\\theta_j \\leftarrow \\theta_j - \\alpha\\,\\partial L/\\partial\\theta_j$. "
        "Every step of the slides' search multiplies $\\theta_j$ by $1 \\pm \\alpha$: "
        "$\\theta_j$ never changes sign and a $\\theta_j$ of $0$ stays $0$, so the search "
        "cannot reach a minimum whose sign differs from the start's (the check starts "
        "once with a wrong sign, once at $0$; the exact loss stands in for the slides' "
        "estimate)",
        chapter=_CH01,
        stated=slides_search,
        true=_gradient_descent,
        check=update_rule_is_wrong,
    ),
    Erratum(
        key="004-loss-change-sign",
        severity="error",
        sources=("004",),
        section='"Gradient Descent"',
        says="$L' = L - \\frac{\\partial L}{\\partial \\theta_j}(\\alpha\\theta_j)$ after the "
        "step $\\Delta\\theta_j = \\alpha\\theta_j$",
        correct="to first order $L' = L + \\frac{\\partial L}{\\partial\\theta_j}\\Delta\\theta_j$ "
        "(a plus sign); with the correct step $\\Delta\\theta_j = -\\alpha\\,\\partial L/"
        "\\partial\\theta_j$ this is $L - \\alpha(\\partial L/\\partial\\theta_j)^2 \\le L$",
        chapter=_CH01,
        stated=-1.0,
        true=+1.0,
        check=loss_change_sign_is_wrong,
    ),
    Erratum(
        key="004-softmax-feature-scaling",
        severity="error",
        sources=("004",),
        section='"SoftMax"',
        says="features of different magnitudes “are normalized with the softmax function prior "
        "to inputting in a regression model”",
        correct="softmax turns a vector of scores (logits) into a probability distribution; "
        "applied to a sample's features it maps samples with features 0–10 and "
        "10,000–100,000 all to (0, 1), erasing them, and a regression on the result fits "
        "nothing. Features are scaled per feature across samples (e.g. standardized)",
        chapter=_CH02,
        stated=_softmax_rows,
        true=_standardize,
        check=feature_scaler_is_wrong,
    ),
    Erratum(
        key="004-bits-eliminate",
        severity="error",
        sources=("004",),
        section='"Information & Uncertainty"',
        says="one bit “reduces the uncertainty by 2”; with 3 bits “8 possibilities are "
        "eliminated”",
        correct="one bit halves the number of equally likely possibilities; 3 bits take 8 "
        "possibilities to 1, eliminating 7, and the uncertainty (entropy) falls by 3 bits",
        chapter=_CH02,
        stated=8,
        true=7,
        check=eliminated_count_is_wrong,
    ),
    Erratum(
        key="004-lstm-missing-output",
        severity="omission",
        sources=("004",),
        kind="omission",
        section='"Long Short Term Memory (LSTM)"',
        says="lists $i_t$, $f_t$, $C_t$, $o_t$ — the output gate $o_t$ is computed but never "
        "used, and $h_t$ (needed by the next step) is never defined",
        correct="$h_t = o_t \\odot \\tanh(C_t)$; with it the cell reproduces `torch.nn.LSTM` to "
        "$10^{-12}$, without it ($h$ never updated) it does not",
        chapter=_CH04,
        stated=None,
        true=_h_t,
        check=lstm_output_is_wrong,
    ),
    Erratum(
        key="004-shannon-name",
        severity="slip",
        sources=("004",),
        section='"Information & Uncertainty", point 1',
        says="the theory of information is attributed to “Clause Shannon”",
        correct="its founder is **Claude** Shannon (Claude Elwood Shannon, 1916–2001), author "
        "of “A Mathematical Theory of Communication” (1948)",
        chapter=_CH02,
        stated="Clause Shannon",
        true="Claude Shannon",
        check=shannon_name_is_wrong,
        basis="citation",
        cites=_SHANNON_1948,
    ),
]
