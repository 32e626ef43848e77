"""The exercises of part Foundations (chapters 1-4): their specs, tests and fairness answers.

How a test function becomes an otter test, and what the fairness answers hold:
:mod:`booktools.course.specs.spec`.
"""

from __future__ import annotations

import numpy as np

from booktools.course.specs.spec import Spec, auto, float32, open_ended, written

SPECS: dict[str, Spec] = {}
ANSWERS: dict = {}
INPUTS: dict[str, set[str]] = {}
SHORTCUTS: dict[str, str] = {}
GUESSES: dict[str, list[str]] = {}

# --------------------------------------------------------------------------- chapter 1
SPECS["ex-01-1"] = written(
    "One point per two correct kinds (supervised, unsupervised, "
    "reinforcement, self-supervised), each with its reason."
)
SPECS["ex-01-2"] = written(
    "1 point: the update theta <- (1 - alpha*lambda) theta and theta_k by "
    "induction. 1 point: alpha = 1/lambda reaches the minimum in one step, "
    "and at alpha = 2/lambda theta flips between theta_0 and -theta_0 "
    "(neither converging nor diverging). Half a point off for the closed "
    "form stated without the induction."
)
SPECS["ex-01-3"] = open_ended()


def residuals_sum_to_zero(X, y, theta0, theta1):
    import numpy as np

    x = np.asarray(X, dtype=float)[5:, 0]
    r = np.asarray(y, dtype=float)[5:] - float(theta0) - float(theta1) * x
    assert (
        abs(r.mean())
        <= 6e-4 * (abs(float(theta0)) + abs(float(theta1) * x).mean()) + 1e-6
    ), (
        "theta0, theta1: the residuals of a least-squares line sum to 0 (the first "
        "normal equation)"
    )


def least_squares_line(X, y):
    """PyTorch's least-squares line through the data without its first five points: the
    intercept and the slope, a 2 x 1 tensor."""
    import torch

    A = torch.cat([torch.ones(len(y) - 5, 1), torch.as_tensor(X[5:, :1])], 1).double()
    b = torch.as_tensor(y[5:], dtype=torch.float64)[:, None]
    return torch.linalg.lstsq(A, b).solution


def theta0_is_the_least_squares_intercept(X, y, theta0):
    import numpy as np

    ref = least_squares_line(X, y)
    assert np.allclose(float(theta0), ref[0, 0].item(), rtol=6e-4, atol=1e-6)


def theta1_is_the_least_squares_slope(X, y, theta1):
    import numpy as np

    ref = least_squares_line(X, y)
    assert np.allclose(float(theta1), ref[1, 0].item(), rtol=6e-4, atol=1e-6)


SPECS["ex-01-4"] = auto(
    "theta0 theta1",
    [residuals_sum_to_zero],
    [theta0_is_the_least_squares_intercept, theta1_is_the_least_squares_slope],
    checks="that the residuals of your line sum to 0 (the first normal equation only)",
    written="1 point: both derivatives set to 0 (the residuals sum to 0, and so do the "
    "residuals times x) and solved: theta1 = cov(x, y)/var(x), theta0 = mean(y) - "
    "theta1 mean(x). Half a point for the two equations without the solution.",
)


def _ex_01_4_answers():
    import formulated.basics as fb

    g = np.random.default_rng(0)
    X = g.uniform(-2, 2, (20, 1))
    y = 1.5 - 0.8 * X[:, 0] + 0.3 * g.standard_normal(20)
    ctx = {"X": X, "y": y, "theta_star": fb.linear_regression_closed_form(X, y)}
    x, y = X[5:, 0], y[5:]  # the exercise fits the data without its first five points
    t1 = np.cov(x, y, bias=True)[0, 1] / np.var(x)
    t0 = y.mean() - t1 * x.mean()
    return ctx, {
        "float64": {"theta0": t0, "theta1": t1},
        "float32": {"theta0": float32(t0), "theta1": float32(t1)},
        # np.cov's default ddof=1 over np.var's ddof=0: theta1 too large by n/(n-1)
        "mistake 1": {
            "theta0": y.mean() - np.cov(x, y)[0, 1] / np.var(x) * x.mean(),
            "theta1": np.cov(x, y)[0, 1] / np.var(x),
        },
        # the chapter's fit of all twenty points, copied from the page: not the question asked
        "copied": {"theta0": ctx["theta_star"][0], "theta1": ctx["theta_star"][1]},
        "mistake 2": {"theta0": t1, "theta1": t0},  # swapped
    }


ANSWERS["ex-01-4"] = _ex_01_4_answers

# --------------------------------------------------------------------------- chapter 2
SPECS["ex-02-1"] = written(
    "1 point: H = -sum (1/V) log_b(1/V) = log_b V shown. 1 point: about "
    "15.6 bits for V = 50,257 and ln 50,257 = 10.8 nats as the uniform "
    "model's cross-entropy on any text (half for only one of the two "
    "numbers, or a number in the wrong unit)."
)
SPECS["ex-02-2"] = written(
    "1 point: e^c factored out of numerator and denominator and canceled. "
    "1 point: a counterexample or the argument that softmax(2z)_i is "
    "proportional to (e^{z_i})^2, and 'multiplying by 2 = temperature 1/2, "
    "a sharper distribution' (half without the temperature reading)."
)


def divergences_are_positive_and_asymmetric(P, Q, kl_pq, kl_qp):
    import numpy as np

    p, q = np.asarray(P, dtype=float), np.asarray(Q, dtype=float)
    assert p.shape == q.shape == (10000, 5) and np.shape(kl_pq) == np.shape(kl_qp) == (
        10000,
    ), "expected P, Q of shape (10000, 5) and one divergence per row"
    assert (
        (p > 0).all()
        and (q > 0).all()
        and np.allclose(p.sum(1), 1)
        and np.allclose(q.sum(1), 1)
    ), "P, Q: expected one distribution per row"
    assert (
        (np.asarray(kl_pq) > 0).all()
        and (np.asarray(kl_qp) > 0).all()
        and not np.allclose(kl_pq, kl_qp)
    ), "kl_pq, kl_qp: positive for distinct distributions (Gibbs), and not symmetric"


def kl_divergence_by_row(A, B):
    """PyTorch's KL(a || b) for each row a of ``A`` and b of ``B``, a NumPy array."""
    import numpy as np
    import torch

    a, b = (torch.as_tensor(np.asarray(M, dtype=float)) for M in (A, B))
    return torch.nn.functional.kl_div(b.log(), a, reduction="none").sum(-1).numpy()


def kl_pq_is_kl_of_p_from_q(P, Q, kl_pq):
    import numpy as np

    ref = kl_divergence_by_row(P, Q)
    assert np.allclose(np.asarray(kl_pq, dtype=float), ref, rtol=6e-4, atol=1e-6)


def kl_qp_is_kl_of_q_from_p(P, Q, kl_qp):
    import numpy as np

    ref = kl_divergence_by_row(Q, P)
    assert np.allclose(np.asarray(kl_qp, dtype=float), ref, rtol=6e-4, atol=1e-6)


SPECS["ex-02-3"] = auto(
    "P Q kl_pq kl_qp",
    [divergences_are_positive_and_asymmetric],
    [kl_pq_is_kl_of_p_from_q, kl_qp_is_kl_of_q_from_p],
    checks="the shapes, that P and Q hold distributions and that both divergences are "
    "positive and differ (not their values)",
    written="1 point: the fraction of pairs with KL(p||q) > KL(q||p), about one half, and "
    "why: p and q are drawn alike, so swapping them is as likely as not. Half a point "
    "for the fraction without the reason.",
)


def _ex_02_3_answers():
    g = np.random.default_rng(1)
    P, Q = g.dirichlet(np.ones(5), 10_000), g.dirichlet(np.ones(5), 10_000)

    def kl(a, b):
        return (a * np.log(a / b)).sum(1)

    return {}, {
        "float64": {"P": P, "Q": Q, "kl_pq": kl(P, Q), "kl_qp": kl(Q, P)},
        "float32": {
            "P": float32(P),
            "Q": float32(Q),
            "kl_pq": kl(float32(P), float32(Q)),
            "kl_qp": kl(float32(Q), float32(P)),
        },
        "mistake 1": {
            "P": P,
            "Q": Q,
            "kl_pq": kl(P, Q) / np.log(2),  # bits
            "kl_qp": kl(Q, P) / np.log(2),
        },
        "mistake 2": {
            "P": P,
            "Q": Q,
            "kl_pq": kl(P, Q),
            "kl_qp": kl(P, Q),
        },  # same direction
    }


ANSWERS["ex-02-3"] = _ex_02_3_answers
INPUTS["ex-02-3"] = {"P", "Q"}

SPECS["ex-02-4"] = written(
    "1 point: softmax gives every class a positive probability, so q_y < 1 "
    "and the loss is > 0; the loss is small when the right logit exceeds "
    "the others by a wide margin. 1 point: -ln 1e-9 = 20.7 nats (about 30 "
    "bits accepted with the unit stated) and the remark that a confident "
    "mistake is punished hard."
)

# --------------------------------------------------------------------------- chapter 3
SPECS["ex-03-1"] = written(
    "1 point: the derivative e^{-z}(1+e^{-z})^{-2} rewritten as sigma(1 - "
    "sigma). 1 point: s(1 - s) maximal at s = 1/2 (z = 0), giving 1/4. Half "
    "a point for the bound checked numerically only."
)
SPECS["ex-03-2"] = written(
    "Full marks (2 points) for the identity and the derivative derived, "
    "with a numerical check on a grid; half (1 point) without the check."
)


def numeric_gives_the_slope_along_a_random_direction(X, W1, b1, W2, b2, Y, numeric):
    import numpy as np

    def loss(W):
        return 0.5 * ((np.tanh(X @ W + b1) @ W2 + b2 - Y) ** 2).sum()

    E = np.random.default_rng(0).standard_normal(np.shape(W1))
    slope = (loss(W1 + 1e-5 * E) - loss(W1 - 1e-5 * E)) / 2e-5
    num = np.asarray(numeric, dtype=float)
    assert (
        num.shape == np.shape(W1)
        and abs((num * E).sum() - slope) <= 6e-4 * np.abs(num * E).sum() + 1e-6
    ), (
        "numeric: an array shaped like W1 whose product with a random direction E "
        "should be the slope of the loss along E"
    )


def numeric_is_the_gradient(X, W1, b1, W2, b2, Y, numeric):
    import numpy as np
    import torch

    def t(a):
        return torch.as_tensor(np.asarray(a, dtype=float))

    w1 = t(W1).requires_grad_()
    out = torch.tanh(t(X) @ w1 + t(b1)) @ t(W2) + t(b2)
    (0.5 * ((out - t(Y)) ** 2).sum()).backward()
    assert np.allclose(
        np.asarray(numeric, dtype=float), w1.grad.numpy(), rtol=6e-4, atol=1e-7
    )


SPECS["ex-03-3"] = auto(
    "numeric",
    [numeric_gives_the_slope_along_a_random_direction],
    [numeric_is_the_gradient],
    checks="the shape, and the slope of the loss along one random direction (not each "
    "entry)",
)


def _ex_03_net():
    import formulated.basics as fb

    g = np.random.default_rng(2)
    return {
        "fb": fb,
        "X": g.standard_normal((6, 3)),
        "W1": g.standard_normal((3, 4)),
        "b1": g.standard_normal(4),
        "W2": g.standard_normal((4, 2)),
        "b2": g.standard_normal(2),
        "Y": g.standard_normal((6, 2)),
    }


def _ex_03_3_answers():
    ctx = _ex_03_net()
    fb = ctx["fb"]

    def numeric(h, denominator, dtype=float):
        W1 = ctx["W1"].astype(dtype)
        out = np.zeros_like(W1)

        def loss(W):
            return fb.mlp2_backward(
                fb.mlp2_forward(
                    ctx["X"].astype(dtype),
                    W,
                    ctx["b1"],
                    ctx["W2"],
                    ctx["b2"],
                    activation="tanh",
                )[1],
                ctx["Y"],
            )[0]

        for i in np.ndindex(W1.shape):
            E = np.zeros_like(W1)
            E[i] = h
            out[i] = (loss(W1 + E) - loss(W1 - E)) / denominator(h)
        return out

    good = numeric(1e-6, lambda h: 2 * h)
    return ctx, {
        "float64": {"numeric": good},
        "float32": {"numeric": float32(good)},
        "mistake 1": {"numeric": numeric(1e-6, lambda h: h)},  # h, not 2h
        "mistake 2": {"numeric": -good},  # difference reversed
    }


ANSWERS["ex-03-3"] = _ex_03_3_answers


def W_one_moves_the_output_by_a_step_of_the_input(W1, b1, W2, b2, W_one):
    import numpy as np

    x, u = np.random.default_rng(0).standard_normal((2, np.shape(W1)[0]))

    def net(x):
        return (x @ W1 + b1) @ W2 + b2

    Wn = np.asarray(W_one, dtype=float)
    assert (
        Wn.shape == (np.shape(W1)[0], np.shape(W2)[1])
        and (
            np.abs(u @ Wn - (net(x + u) - net(x)))
            <= 6e-4 * (np.abs(u) @ np.abs(Wn)) + 1e-6
        ).all()
    ), (
        "W_one: one matrix from the input width to the output width; a step u of the "
        "input should move the output by u @ W_one"
    )


def two_linear_layers_as_one(W1, b1, W2, b2):
    """The weight and the bias of W1, b1 then W2, b2 as two ``torch.nn.Linear`` layers (the
    image of the identity less that of zero, and the image of zero), NumPy arrays."""
    import numpy as np
    import torch

    lin1, lin2 = (torch.nn.Linear(*np.shape(W)).double() for W in (W1, W2))
    with torch.no_grad():
        for lin, W, b in ((lin1, W1, b1), (lin2, W2, b2)):
            lin.weight.copy_(torch.as_tensor(W).T)
            lin.bias.copy_(torch.as_tensor(b))
        b_ref = lin2(lin1(torch.zeros(1, np.shape(W1)[0], dtype=torch.float64)))[0]
        W_ref = lin2(lin1(torch.eye(np.shape(W1)[0], dtype=torch.float64))) - b_ref
    return W_ref.numpy(), b_ref.numpy()


def W_one_is_the_weight_of_the_two_layers(W1, b1, W2, b2, W_one):
    import numpy as np

    W_ref, _ = two_linear_layers_as_one(W1, b1, W2, b2)
    assert np.allclose(np.asarray(W_one, dtype=float), W_ref, rtol=6e-4, atol=1e-6)


def b_one_is_the_bias_of_the_two_layers(W1, b1, W2, b2, b_one):
    import numpy as np

    _, b_ref = two_linear_layers_as_one(W1, b1, W2, b2)
    assert np.allclose(
        np.asarray(b_one, dtype=float).ravel(), b_ref, rtol=6e-4, atol=1e-6
    )


SPECS["ex-03-4"] = auto(
    "W_one b_one",
    [W_one_moves_the_output_by_a_step_of_the_input],
    [W_one_is_the_weight_of_the_two_layers, b_one_is_the_bias_of_the_two_layers],
    checks="the shape of W_one, and the output's change along one random input step "
    "(not b_one, not every entry)",
)


def _ex_03_4_answers():
    ctx = _ex_03_net()
    W, b = ctx["W1"] @ ctx["W2"], ctx["b1"] @ ctx["W2"] + ctx["b2"]
    return ctx, {
        "float64": {"W_one": W, "b_one": b},
        "float32": {"W_one": float32(W), "b_one": float32(b)},
        "mistake 1": {"W_one": W, "b_one": ctx["b1"].sum() + ctx["b2"]},  # not via W2
        "mistake 2": {"W_one": W, "b_one": ctx["b2"]},  # b1 forgotten
    }


ANSWERS["ex-03-4"] = _ex_03_4_answers

SPECS["ex-03-5"] = open_ended()

# --------------------------------------------------------------------------- chapter 4
SPECS["ex-04-1"] = written(
    "1 point each: the gradient factor w^k with k = 132 for w = 0.9 (131.1 "
    "computed) and k = 1375 for w = 0.99 (1374.6). An off-by-one (131, "
    "1374) loses half a point once; a correct method with an arithmetic "
    "slip keeps half."
)


def counts_grow_with_the_sizes(rnn_count, lstm_count):
    sizes = ((10, 20), (11, 20), (10, 21))
    r, l = ([int(f(d, H)) for d, H in sizes] for f in (rnn_count, lstm_count))
    assert (
        all(v > 0 for v in r + l)
        and r[0] == rnn_count(10, 20)
        and l[0] == lstm_count(10, 20)
    ), "expected positive whole numbers"
    assert (
        r[1] > r[0] and r[2] > r[0] and l[1] > l[0] and l[2] > l[0] and l[0] > r[0]
    ), "expected counts that grow with d and with H, larger for the LSTM"


def rnn_count_is_torch_rnn_count(rnn_count):
    import torch

    for d, H in ((10, 20), (3, 7), (1, 1)):
        assert rnn_count(d, H) == sum(
            p.numel() for p in torch.nn.RNN(d, H).parameters()
        )


def lstm_count_is_torch_lstm_count(lstm_count):
    import torch

    for d, H in ((10, 20), (3, 7), (1, 1)):
        assert lstm_count(d, H) == sum(
            p.numel() for p in torch.nn.LSTM(d, H).parameters()
        )


SPECS["ex-04-2"] = auto(
    "rnn_count lstm_count",
    [counts_grow_with_the_sizes],
    [rnn_count_is_torch_rnn_count, lstm_count_is_torch_lstm_count],
    checks="that the counts are positive whole numbers, grow with d and H and are larger "
    "for the LSTM (not the formulas)",
)


def _ex_04_2_answers():
    return {}, {
        "float64": {
            "rnn_count": lambda d, H: H * d + H * H + 2 * H,
            "lstm_count": lambda d, H: 4 * H * (d + H + 2),
        },
        "float32": {
            "rnn_count": lambda d, H: np.int64(H * (d + H + 2)),
            "lstm_count": lambda d, H: np.int64(4 * H * (d + H + 2)),
        },
        "mistake 1": {
            "rnn_count": lambda d, H: H * (d + H) + H,  # one bias vector
            "lstm_count": lambda d, H: 4 * (H * (d + H) + H),
        },
        "mistake 2": {
            "rnn_count": lambda d, H: H * (d + H + 2),  # LSTM: 3 gates, not 4
            "lstm_count": lambda d, H: 3 * H * (d + H + 2),
        },
    }


ANSWERS["ex-04-2"] = _ex_04_2_answers


def sim_entries_add_up_to_the_squared_norm(E, idx, sim):
    import numpy as np

    v = np.asarray(E[[idx[w] for w in ("cat", "dog", "king", "queen")]], dtype=float)
    u = (v / np.linalg.norm(v, axis=1, keepdims=True)).sum(0)
    assert np.shape(sim) == (4, 4) and abs(np.sum(sim) - u @ u) < 2e-3, (
        "sim: a 4 x 4 matrix whose entries add up to |u_1 + ... + u_4|^2, the u_i the "
        "unit vectors of the four words"
    )


def sim_is_the_cosine_similarity(E, idx, sim):
    import numpy as np
    import torch

    v = torch.as_tensor(
        E[[idx[w] for w in ("cat", "dog", "king", "queen")]], dtype=torch.float64
    )
    ref = torch.nn.functional.cosine_similarity(v[:, None, :], v[None, :, :], dim=-1)
    assert np.allclose(np.asarray(sim, dtype=float), ref.numpy(), rtol=0, atol=1e-4)


SPECS["ex-04-3"] = auto(
    "sim",
    [sim_entries_add_up_to_the_squared_norm],
    [sim_is_the_cosine_similarity],
    checks="the shape and the sum of the entries (not each entry)",
    written="1 point: two distinct one-hot vectors have disjoint supports, so their dot "
    "product, hence their cosine, is 0; and the close pairs read off sim (those with "
    "the largest off-diagonal cosines), with a reason. Half a point for one of the "
    "two.",
)


def _ex_04_3_answers():
    g = np.random.default_rng(3)
    words = ["cat", "dog", "king", "queen", "the"]
    ctx = {"E": g.standard_normal((5, 5)), "idx": {w: i for i, w in enumerate(words)}}
    v = ctx["E"][:4]
    norm = np.linalg.norm(v, axis=1)
    sim = v @ v.T / np.outer(norm, norm)
    return ctx, {
        "float64": {"sim": sim},
        "float32": {"sim": float32(v) @ float32(v).T / np.outer(norm, norm)},
        "mistake 1": {"sim": v @ v.T},  # not normalized
        "mistake 2": {"sim": v @ v.T / norm[:, None] ** 2},  # one norm twice
    }


ANSWERS["ex-04-3"] = _ex_04_3_answers

SPECS["ex-04-4"] = written(
    "1 point: 0.95^60 = 0.046, about 5 % survives. 1 point: 0.5^60 = "
    "8.7e-19, no better than the plain RNN, hence a positive forget-gate "
    "bias (half without that conclusion)."
)
