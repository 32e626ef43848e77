"""formulated.basics against independent references: torch.autograd, nn.RNN / nn.LSTM with copied
weights, torch.distributions and torch.nn.functional, numpy.linalg.lstsq, brute-force enumeration.

Every comparison goes through ``close``, which records the largest difference per function so that
``pytest -s`` prints the worst error observed for each (the numbers quoted in the report).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from _helpers import as_torch64, rng
from hypothesis import given
from hypothesis import strategies as st

from formulated import basics as B

TOL = 1e-10
WORST: dict[str, float] = {}


def close(name: str, ours, ref, tol: float = TOL) -> None:
    ours = np.asarray(ours, dtype=np.float64)
    ref = (
        ref.detach().numpy()
        if isinstance(ref, torch.Tensor)
        else np.asarray(ref, np.float64)
    )
    assert ours.shape == ref.shape, (name, ours.shape, ref.shape)
    both_inf = np.isinf(ours) & np.isinf(ref) & (np.sign(ours) == np.sign(ref))
    diff = float(np.max(np.where(both_inf, 0.0, np.abs(ours - ref)), initial=0.0))
    WORST[name] = max(WORST.get(name, 0.0), diff)
    assert diff < tol, f"{name}: max abs difference {diff:.3e} ≥ {tol:g}"


@pytest.fixture(scope="module", autouse=True)
def _report_worst():
    yield
    print("\nworst max-abs difference per function:")
    for k in sorted(WORST):
        print(f"  {k:32s} {WORST[k]:.2e}")


# ---------------------------------------------------------------------------------------------
# Chapter 1
# ---------------------------------------------------------------------------------------------


def regression_data(r=30, p=3, seed=0):
    g = rng(seed)
    X = g.normal(size=(r, p))
    y = 1.5 + X @ g.normal(size=p) + 0.1 * g.normal(size=r)
    return X, y


def test_closed_form_matches_lstsq():
    for seed, (r, p) in enumerate([(30, 3), (5, 1), (100, 6)]):
        X, y = regression_data(r, p, seed)
        ref, *_ = np.linalg.lstsq(np.hstack([np.ones((r, 1)), X]), y, rcond=None)
        close(
            "linear_regression_closed_form", B.linear_regression_closed_form(X, y), ref
        )


def test_linear_predict_and_squared_loss_against_torch():
    X, y = regression_data()
    theta = rng(1).normal(size=4)
    lin = torch.nn.Linear(3, 1, dtype=torch.float64)
    with torch.no_grad():
        lin.weight.copy_(as_torch64(theta[1:])[None])
        lin.bias.copy_(as_torch64(theta[:1]))
    y_hat_ref = lin(as_torch64(X))[:, 0]
    close("linear_predict", B.linear_predict(X, theta), y_hat_ref)
    close(
        "squared_loss",
        B.squared_loss(B.linear_predict(X, theta), y),
        0.5 * F.mse_loss(y_hat_ref, as_torch64(y), reduction="sum"),
    )


def test_squared_loss_grad_against_autograd():
    X, y = regression_data()
    theta = rng(2).normal(size=4)
    th = as_torch64(theta).requires_grad_()
    loss = 0.5 * ((th[0] + as_torch64(X) @ th[1:] - as_torch64(y)) ** 2).sum()
    loss.backward()
    close("squared_loss_grad", B.squared_loss_grad(X, y, theta), th.grad)


def test_gradient_descent_matches_torch_sgd_and_converges():
    X, y = regression_data()
    lr, steps = 0.01, 300
    path = B.gradient_descent(
        lambda th: B.squared_loss_grad(X, y, th), np.zeros(4), lr, steps
    )
    th = torch.zeros(4, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.SGD([th], lr=lr)
    ref = [th.detach().clone()]
    for _ in range(steps):
        opt.zero_grad()
        (0.5 * ((th[0] + as_torch64(X) @ th[1:] - as_torch64(y)) ** 2).sum()).backward()
        opt.step()
        ref.append(th.detach().clone())
    close("gradient_descent", path, torch.stack(ref))
    lstsq, *_ = np.linalg.lstsq(B.add_bias(X), y, rcond=None)
    close("gradient_descent (limit)", path[-1], lstsq, tol=1e-8)


def test_gradient_descent_stops_when_it_diverges():
    path = B.gradient_descent(lambda th: 2 * th, np.array([1.0]), lr=5.0, steps=2000)
    assert len(path) < 2001 and np.all(np.isfinite(path))
    # |1 − 2·5| = 9: each step multiplies by −9 until overflow
    close("gradient_descent (divergence)", path[:5, 0], (-9.0) ** np.arange(5))


def simulated_regime(X, y, lr: float, steps: int = 50) -> str:
    """Run torch SGD on ½‖X̃θ − y‖² and name what the error θ_k − θ* does along each eigenvector
    of the Hessian: the worst direction decides (grows > constant bounce > shrinking bounce >
    smooth shrink)."""
    Xt = as_torch64(B.add_bias(X))
    lam, vecs = torch.linalg.eigh(Xt.T @ Xt)
    opt_theta = torch.linalg.lstsq(Xt, as_torch64(y)[:, None]).solution[:, 0]
    th = (opt_theta + vecs.sum(1)).requires_grad_()  # error 1 along every eigenvector
    sgd = torch.optim.SGD([th], lr=lr)
    errs = [vecs.T @ (th.detach() - opt_theta)]
    for _ in range(steps):
        sgd.zero_grad()
        (0.5 * ((Xt @ th - as_torch64(y)) ** 2).sum()).backward()
        sgd.step()
        errs.append(vecs.T @ (th.detach() - opt_theta))
    C = torch.stack(errs).numpy()  # (steps + 1, p + 1) eigen-coordinates
    kinds = set()
    for c in C.T:
        gone = np.flatnonzero(np.abs(c) < 1e-8 * abs(c[0]))
        live = c[: gone[0]] if len(gone) else c  # stop where it vanished into rounding
        ratio, flips = (
            np.abs(live[1:] / live[:-1]),
            np.sign(live[1:]) != np.sign(live[:-1]),
        )
        if len(ratio) == 0 or (np.all(ratio < 1 - 1e-9) and not flips.any()):
            kinds.add("converges")  # shrinks without overshooting (or at once)
        elif np.all(ratio < 1 - 1e-9) and flips.all():
            kinds.add("oscillates")
        elif np.all(np.abs(ratio - 1) < 1e-9) and flips.all():
            kinds.add("cycles")
        elif np.all(ratio > 1 + 1e-9):
            kinds.add("diverges")
        else:
            kinds.add("unclear")
    for k in ("unclear", "diverges", "cycles", "oscillates", "converges"):
        if k in kinds:
            return k
    raise AssertionError(kinds)


def test_learning_rate_regime_against_eigenvalues_and_simulation():
    X, y = regression_data(40, 1, 3)
    Hs = B.add_bias(X).T @ B.add_bias(X)  # Hessian of ½‖X̃θ − y‖²
    lam = torch.linalg.eigvalsh(as_torch64(Hs))[-1].item()
    for factor, want in [
        (0.5, "converges"),
        (1.5, "oscillates"),
        (2.0, "cycles"),
        (2.5, "diverges"),
    ]:
        assert B.learning_rate_regime(factor / lam, Hs) == want
    # the verdicts agree with what gradient descent on the quadratic actually does, on both sides
    # of each boundary (α λ_max = 1 and 2) and on them
    seen = set()
    for factor in (0.3, 0.5, 0.99, 1.0, 1.01, 1.5, 1.99, 2.0, 2.01, 2.5):
        verdict = B.learning_rate_regime(factor / lam, Hs)
        sim = simulated_regime(X, y, factor / lam)
        assert verdict == sim, (factor, verdict, sim)
        seen.add(sim)
    assert seen == {"converges", "oscillates", "cycles", "diverges"}


# ---------------------------------------------------------------------------------------------
# Chapter 2
# ---------------------------------------------------------------------------------------------


def random_probs(V=5, seed=0, zeros=0):
    p = rng(seed).dirichlet(np.ones(V))
    p[:zeros] = 0
    return p / p.sum()


def test_softmax_temperature_against_torch():
    z = rng(0).normal(size=(4, 7)) * 3
    for T in (0.1, 0.5, 1.0, 3.0, 100.0):
        close(
            "softmax_temperature",
            B.softmax_temperature(z, T),
            torch.softmax(as_torch64(z) / T, dim=-1),
        )


@pytest.mark.parametrize("base", [2, math.e, 10])
def test_information_quantities_against_torch(base):
    ln_b = math.log(base)
    for seed in range(5):
        p, q = random_probs(6, seed), random_probs(6, seed + 100)
        P, Q = (
            torch.distributions.Categorical(probs=as_torch64(p)),
            torch.distributions.Categorical(probs=as_torch64(q)),
        )
        close(
            "information_content",
            B.information_content(p, base),
            -P.log_prob(torch.arange(6)) / ln_b,
        )
        close("entropy", B.entropy(p, base), P.entropy() / ln_b)
        # soft-target cross-entropy: F.cross_entropy applies log_softmax, a no-op on log q
        close(
            "cross_entropy",
            B.cross_entropy(p, q, base),
            F.cross_entropy(torch.log(as_torch64(q))[None], as_torch64(p)[None]) / ln_b,
        )
        close(
            "kl_divergence",
            B.kl_divergence(p, q, base),
            torch.distributions.kl_divergence(P, Q) / ln_b,
        )
        close(
            "kl_divergence (F.kl_div)",
            B.kl_divergence(p, q, base),
            F.kl_div(torch.log(as_torch64(q)), as_torch64(p), reduction="sum") / ln_b,
        )


def test_information_quantities_with_zeros_and_rows():
    p = random_probs(5, 1, zeros=2)  # p has zeros, q does not
    q = random_probs(5, 2)
    P = torch.distributions.Categorical(probs=as_torch64(p))
    close("entropy", B.entropy(p), P.entropy())
    close(
        "kl_divergence",
        B.kl_divergence(p, q),
        F.kl_div(torch.log(as_torch64(q)), as_torch64(p), reduction="sum"),
    )
    assert B.cross_entropy(q, p) == np.inf and B.kl_divergence(q, p) == np.inf
    rows = np.stack([random_probs(4, s) for s in range(3)])
    close(
        "entropy",
        B.entropy(rows),
        torch.distributions.Categorical(probs=as_torch64(rows)).entropy(),
    )
    # agrees with formulated.formulas.cross_entropy (nats), written independently
    from formulated.formulas import cross_entropy as ce_formulas

    close(
        "cross_entropy",
        B.cross_entropy(rows, rows[::-1]),
        ce_formulas(rows, rows[::-1]),
    )


def test_worked_numbers():
    # a fair coin carries 1 bit = ln 2 nats; 8 equally likely outcomes carry 3 bits
    assert abs(B.entropy([0.5, 0.5], base=2) - 1) < 1e-15
    assert abs(B.entropy(np.full(8, 1 / 8), base=2) - 3) < 1e-15
    assert abs(B.entropy([0.5, 0.5]) - math.log(2)) < 1e-15


@given(
    st.lists(st.floats(0.01, 10), min_size=2, max_size=6),
    st.integers(0, 10_000),
    st.sampled_from([2, math.e]),
)
def test_cross_entropy_is_entropy_plus_kl(w, seed, base):
    p = np.array(w) / np.sum(w)
    q = rng(seed).dirichlet(np.ones(len(w)))
    lhs = B.cross_entropy(p, q, base)
    assert abs(lhs - (B.entropy(p, base) + B.kl_divergence(p, q, base))) < 1e-12
    assert B.kl_divergence(p, q, base) >= -1e-15 and B.kl_divergence(p, p, base) == 0


def test_information_bad_input():
    with pytest.raises(ValueError, match="p: expected probabilities summing to 1"):
        B.entropy([0.5, 0.6])
    with pytest.raises(ValueError, match="p: expected probabilities ≥ 0"):
        B.entropy([1.5, -0.5])
    with pytest.raises(ValueError, match="q: expected the shape of p"):
        B.kl_divergence([0.5, 0.5], [0.2, 0.3, 0.5])
    with pytest.raises(
        ValueError, match="base: expected a positive number other than 1"
    ):
        B.entropy([0.5, 0.5], base=1)
    with pytest.raises(TypeError, match="base: expected a number"):
        B.entropy([0.5, 0.5], base="bits")
    with pytest.raises(ValueError, match=r"p: expected probabilities in \[0, 1\]"):
        B.information_content(1.2)
    with pytest.raises(ValueError, match="temperature: expected a positive"):
        B.softmax_temperature([1.0, 2.0], 0.0)


# ---------------------------------------------------------------------------------------------
# Chapter 3
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,torch_fn",
    [("sigmoid", torch.sigmoid), ("tanh", torch.tanh), ("relu", torch.relu)],
)
def test_activations_and_derivatives_against_autograd(name, torch_fn):
    z = np.concatenate([np.linspace(-30, 30, 601), [0.0, -800.0, 800.0]])
    g, g_prime = B.ACTIVATIONS[name]
    zt = as_torch64(z).requires_grad_()
    y = torch_fn(zt)
    y.sum().backward()  # element-wise: grad = g'(z)
    close(name, g(z), y)
    close(f"{name}_grad", g_prime(z), zt.grad)


def mlp_params(d=3, Fh=5, k=2, seed=0):
    g = rng(seed)
    return (
        g.normal(size=(d, Fh)),
        g.normal(size=Fh),
        g.normal(size=(Fh, k)),
        g.normal(size=k),
    )


@pytest.mark.parametrize("activation", ["sigmoid", "tanh", "relu"])
def test_mlp2_backward_against_autograd(activation):
    X, Y = rng(5).normal(size=(7, 3)), rng(6).normal(size=(7, 2))
    W1, b1, W2, b2 = mlp_params()
    Y_hat, cache = B.mlp2_forward(X, W1, b1, W2, b2, activation)
    loss, grads = B.mlp2_backward(cache, Y)
    tp = {
        k: as_torch64(v).requires_grad_()
        for k, v in dict(X=X, W1=W1, b1=b1, W2=W2, b2=b2).items()
    }
    act = {"sigmoid": torch.sigmoid, "tanh": torch.tanh, "relu": torch.relu}[activation]
    Y_ref = act(tp["X"] @ tp["W1"] + tp["b1"]) @ tp["W2"] + tp["b2"]
    loss_ref = 0.5 * ((Y_ref - as_torch64(Y)) ** 2).sum()
    loss_ref.backward()
    close("mlp2_forward", Y_hat, Y_ref)
    close("mlp2_backward (loss)", loss, loss_ref)
    for k in ("W1", "b1", "W2", "b2", "X"):
        close("mlp2_backward", grads[k], tp[k].grad)


def test_mlp2_bad_input():
    W1, b1, W2, b2 = mlp_params()
    with pytest.raises(ValueError, match=r"W1: expected shape \(4, any\)"):
        B.mlp2_forward(np.ones((2, 4)), W1, b1, W2, b2)
    with pytest.raises(ValueError, match="activation: expected one of"):
        B.mlp2_forward(np.ones((2, 3)), W1, b1, W2, b2, activation="gelu")
    _, cache = B.mlp2_forward(np.ones((2, 3)), W1, b1, W2, b2)
    with pytest.raises(ValueError, match=r"Y: expected shape \(2, 2\)"):
        B.mlp2_backward(cache, np.ones((2, 3)))


# ---------------------------------------------------------------------------------------------
# Chapter 4
# ---------------------------------------------------------------------------------------------


def test_cosine_similarity_against_torch():
    a, b = rng(0).normal(size=(6, 4)), rng(1).normal(size=(6, 4))
    close(
        "cosine_similarity",
        B.cosine_similarity(a, b),
        F.cosine_similarity(as_torch64(a), as_torch64(b), dim=-1),
    )
    with pytest.raises(ValueError, match="expected non-zero vectors"):
        B.cosine_similarity(np.zeros(3), np.ones(3))


def rnn_setup(d=3, H=4, n=6, seed=0, scale=0.7):
    g = rng(seed)
    return (
        g.normal(size=(n, d)),
        g.normal(size=H),
        g.normal(0, scale, (d, H)),
        g.normal(0, scale, (H, H)),
        g.normal(size=H),
    )


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_rnn_forward_against_nn_rnn(activation):
    X, h0, W_xh, W_hh, b_h = rnn_setup()
    rnn = torch.nn.RNN(
        3, 4, nonlinearity=activation, batch_first=True, dtype=torch.float64
    )
    with torch.no_grad():  # PyTorch stores (H, d): transpose
        rnn.weight_ih_l0.copy_(as_torch64(W_xh.T))
        rnn.weight_hh_l0.copy_(as_torch64(W_hh.T))
        rnn.bias_ih_l0.copy_(as_torch64(b_h))
        rnn.bias_hh_l0.zero_()
    out, h_n = rnn(as_torch64(X)[None], as_torch64(h0)[None, None])
    states = B.rnn_forward(X, h0, W_xh, W_hh, b_h, activation)
    close("rnn_forward", states, out[0])
    close("rnn_forward", states[-1], h_n[0, 0])


@pytest.mark.parametrize("activation", ["tanh", "relu", "identity", "sigmoid"])
def test_rnn_backward_against_autograd(activation):
    X, h0, W_xh, W_hh, b_h = rnn_setup(seed=3)
    dstates = rng(4).normal(size=(6, 4))  # a loss L = Σ_t dstates_t · h_t
    states = B.rnn_forward(X, h0, W_xh, W_hh, b_h, activation)
    grads = B.rnn_backward(X, h0, W_xh, W_hh, b_h, states, dstates, activation)
    act = {
        "tanh": torch.tanh,
        "relu": torch.relu,
        "sigmoid": torch.sigmoid,
        "identity": lambda a: a,
    }[activation]
    tp = {
        k: as_torch64(v).requires_grad_()
        for k, v in dict(X=X, h0=h0, W_xh=W_xh, W_hh=W_hh, b_h=b_h).items()
    }
    h, hs = tp["h0"], []
    for i in range(len(X)):
        h = act(h @ tp["W_hh"] + tp["X"][i] @ tp["W_xh"] + tp["b_h"])
        h.retain_grad()
        hs.append(h)
    (torch.stack(hs) * as_torch64(dstates)).sum().backward()
    close("rnn_forward", states, torch.stack(hs))
    for k in ("W_xh", "W_hh", "b_h", "h0", "X"):
        close("rnn_backward", grads[k], tp[k].grad)
    close("rnn_backward (dh)", grads["dh"], torch.stack([x.grad for x in hs]))


def test_bptt_gradient_norms_are_powers_of_w_for_a_linear_scalar_rnn():
    n = 40
    for w in (0.5, 0.9, 1.1, 1.5):
        norms = B.bptt_gradient_norms(
            np.zeros((n, 1)),
            [1.0],
            np.zeros((1, 1)),
            [[w]],
            [0.0],
            activation="identity",
        )
        # ∂h_n/∂h_t = w^(n−t): computed in closed form, compared relatively (it spans 1e-12..1e7)
        ref = abs(w) ** (n - np.arange(n + 1))
        close("bptt_gradient_norms (relative)", norms / ref, np.ones(n + 1))


def test_bptt_gradient_norms_against_autograd():
    X, h0, W_xh, W_hh, b_h = rnn_setup(seed=7, scale=1.2)
    norms = B.bptt_gradient_norms(X, h0, W_xh, W_hh, b_h, "tanh")
    tp = {k: as_torch64(v) for k, v in dict(W_xh=W_xh, W_hh=W_hh, b_h=b_h).items()}
    h = as_torch64(h0).requires_grad_()
    hs = [h]
    for x in X:
        h = torch.tanh(h @ tp["W_hh"] + as_torch64(x) @ tp["W_xh"] + tp["b_h"])
        hs.append(h)
    L = hs[-1].sum() / 2.0  # unit direction 1/√H with H = 4
    grads = torch.autograd.grad(L, hs)
    close("bptt_gradient_norms", norms, torch.stack([g.norm() for g in grads]))


def test_rnn_bad_input():
    X, h0, W_xh, W_hh, b_h = rnn_setup()
    with pytest.raises(ValueError, match=r"W_hh: expected shape \(4, 4\)"):
        B.rnn_forward(X, h0, W_xh, W_hh[:3], b_h)
    with pytest.raises(ValueError, match=r"h0: expected shape \(4\), got"):
        B.rnn_forward(X, h0[:2], W_xh, W_hh, b_h)
    with pytest.raises(ValueError, match="activation: expected one of"):
        B.rnn_forward(X, h0, W_xh, W_hh, b_h, activation="gelu")


def lstm_from_torch(lstm: torch.nn.LSTM) -> B.LSTMParams:
    """nn.LSTM keeps the gates stacked (i, f, g, o) as (4H, d) and (4H, H) and two biases."""
    H = lstm.hidden_size
    Wi, Wh = lstm.weight_ih_l0.detach().numpy(), lstm.weight_hh_l0.detach().numpy()
    b = (lstm.bias_ih_l0 + lstm.bias_hh_l0).detach().numpy()
    W = [
        np.vstack([Wi[k * H : (k + 1) * H].T, Wh[k * H : (k + 1) * H].T])
        for k in range(4)
    ]
    bs = [b[k * H : (k + 1) * H] for k in range(4)]
    return B.LSTMParams(
        W_i=W[0],
        W_f=W[1],
        W_C=W[2],
        W_o=W[3],
        b_i=bs[0],
        b_f=bs[1],
        b_C=bs[2],
        b_o=bs[3],
    )


def test_lstm_against_nn_lstm():
    torch.manual_seed(0)
    d, H, n = 3, 5, 7
    lstm = torch.nn.LSTM(d, H, batch_first=True, dtype=torch.float64)
    X, h0, c0 = rng(0).normal(size=(n, d)), rng(1).normal(size=H), rng(2).normal(size=H)
    out, (h_n, c_n) = lstm(
        as_torch64(X)[None], (as_torch64(h0)[None, None], as_torch64(c0)[None, None])
    )
    hs, cs = B.lstm_forward(X, h0, c0, lstm_from_torch(lstm))
    close("lstm_forward (h)", hs, out[0])
    close("lstm_forward (C)", cs[-1], c_n[0, 0])
    cell = torch.nn.LSTMCell(d, H, dtype=torch.float64)
    cell.load_state_dict(
        {k.removesuffix("_l0"): v for k, v in lstm.state_dict().items()}
    )
    h1, c1 = cell(as_torch64(X[:1]), (as_torch64(h0)[None], as_torch64(c0)[None]))
    h, c, gates = B.lstm_cell(X[0], h0, c0, lstm_from_torch(lstm))
    close("lstm_cell", h, h1[0])
    close("lstm_cell", c, c1[0])
    assert set(gates) == {"i", "f", "o", "C_tilde"}


def test_lstm_bad_input():
    p = B.LSTMParams(*(np.zeros((5, 2)),) * 4, *(np.zeros(2),) * 4)
    with pytest.raises(ValueError, match=r"x: expected shape \(3\), got"):
        B.lstm_cell(np.zeros(2), np.zeros(2), np.zeros(2), p)
    with pytest.raises(ValueError, match=r"W_o: expected shape \(5, 2\)"):
        B.LSTMParams(*(np.zeros((5, 2)),) * 3, np.zeros((4, 2)), *(np.zeros(2),) * 4)
    with pytest.raises(TypeError, match="p: expected LSTMParams"):
        B.lstm_cell(np.zeros(3), np.zeros(2), np.zeros(2), {"W_i": 0})


# ---------------------------------------------------------------------------------------------
# Chapter 17
# ---------------------------------------------------------------------------------------------


def test_sequence_log_likelihood_against_torch():
    logits = rng(0).normal(size=(6, 5))
    ids = np.array([0, 4, 2, 2, 1, 3])
    probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    ll = B.sequence_log_likelihood(probs, ids)
    close(
        "sequence_log_likelihood",
        ll,
        torch.distributions.Categorical(logits=as_torch64(logits))
        .log_prob(torch.tensor(ids))
        .sum(),
    )
    close(
        "sequence_log_likelihood",
        -ll / 6,
        F.cross_entropy(as_torch64(logits), torch.tensor(ids)),
    )
    with pytest.raises(ValueError, match=r"ids: expected shape \(6\), got"):
        B.sequence_log_likelihood(probs, ids[:3])
    with pytest.raises(ValueError, match="ids: expected token ids in 0..4"):
        B.sequence_log_likelihood(probs, ids + 1)


def brute_cond(table: np.ndarray, ids, targets, visible) -> float:
    """P(X_T = x_T | X_S = x_S) by enumerating every sequence (independent of the table code)."""
    V, n = table.shape[0], table.ndim
    num = den = 0.0
    for seq in itertools.product(range(V), repeat=n):
        if all(seq[k] == ids[k] for k in visible):
            den += table[seq]
            if all(seq[k] == ids[k] for k in targets):
                num += table[seq]
    return math.log(num / den)


def test_joint_table_conditionals_against_enumeration():
    m = B.JointTableModel.random(3, 4, seed=1, concentration=1.0)
    ids = np.array([2, 0, 1, 1])
    for targets, visible in [
        ([0], []),
        ([3], [0, 1, 2]),
        ([1, 2], [0, 3]),
        ([2], [3]),
        ([0, 1, 2, 3], []),
    ]:
        close(
            "JointTableModel.cond_log_prob",
            m.cond_log_prob(ids, targets, visible),
            brute_cond(m.table, ids, targets, visible),
        )
    close(
        "JointTableModel.log_prob",
        m.log_prob(ids),
        torch.distributions.Categorical(probs=as_torch64(m.table.ravel())).log_prob(
            torch.tensor(int(np.ravel_multi_index(ids, m.table.shape)))
        ),
    )


def test_chain_rule_every_order_gives_the_joint():
    m = B.JointTableModel.random(3, 4, seed=2, concentration=1.0)
    ids = np.array([1, 1, 0, 2])
    ref = brute_cond(m.table, ids, range(4), [])
    close("gpt_log_likelihood (table)", B.gpt_log_likelihood(m, ids), ref)
    for z in itertools.permutations(range(4)):
        close("xlnet_log_likelihood (table)", B.xlnet_log_likelihood(m, ids, z), ref)
    close(
        "xlnet_expected_log_likelihood (table)",
        B.xlnet_expected_log_likelihood(m, ids),
        ref,
    )


def test_bert_objective_is_the_joint_only_under_independence():
    ids, M = np.array([0, 1, 1, 2]), [1, 2]
    m = B.JointTableModel.random(3, 4, seed=3, concentration=1.0)
    bert = B.bert_log_likelihood(m, ids, M)
    ref_sum = brute_cond(m.table, ids, [1], [0, 3]) + brute_cond(
        m.table, ids, [2], [0, 3]
    )
    close("bert_log_likelihood (table)", bert, ref_sum)
    assert (
        abs(bert - brute_cond(m.table, ids, M, [0, 3])) > 1e-3
    )  # dependent: not the joint
    # a product of independent per-position distributions: the two agree
    ps = [random_probs(3, s) for s in range(4)]
    indep = B.JointTableModel(np.einsum("a,b,c,d->abcd", *ps))
    close(
        "bert_log_likelihood (independent)",
        B.bert_log_likelihood(indep, ids, M),
        brute_cond(indep.table, ids, M, [0, 3]),
    )


def tiny_torch_logits(model: B.TinyAttentionModel, ids, visible) -> torch.Tensor:
    """The tiny model rebuilt from PyTorch pieces: embedding lookup, scaled_dot_product_attention
    with a boolean mask, a linear read-out."""
    p = {k: as_torch64(v) for k, v in model.params.items()}
    emb = torch.nn.Embedding.from_pretrained(p["E"])
    slots = torch.tensor([model.V, *ids])
    X = emb(slots) + p["P"]
    q = (p["P"][1:] @ p["W_q"])[None]
    k, v = (X @ p["W_k"])[None], (X @ p["W_v"])[None]
    h = F.scaled_dot_product_attention(q, k, v, attn_mask=torch.tensor(visible)[None])[
        0
    ]
    return (h + p["P"][1:]) @ p["W_out"]


def test_tiny_attention_model_against_torch():
    model = B.TinyAttentionModel(V=4, n=5, H=6, seed=0)
    ids = np.array([3, 0, 2, 2, 1])
    causal = np.tril(np.ones((5, 6), dtype=bool))  # column 0 = BOS, then x_1..x_5
    ref = tiny_torch_logits(model, ids, causal)
    close("TinyAttentionModel.logits", model.logits(ids, causal), ref)
    # GPT: each token from the ones before it, under F.cross_entropy
    close(
        "gpt_log_likelihood (tiny)",
        B.gpt_log_likelihood(model, ids),
        -F.cross_entropy(ref, torch.tensor(ids), reduction="sum"),
    )
    # one XLNet order, position by position
    z = [2, 4, 0, 3, 1]
    ref_x = 0.0
    for step, j in enumerate(z):
        vis = np.zeros((5, 6), dtype=bool)
        vis[:, 0] = True
        vis[:, [k + 1 for k in z[:step]]] = True
        ref_x += -F.cross_entropy(
            tiny_torch_logits(model, ids, vis)[j : j + 1], torch.tensor(ids[j : j + 1])
        ).item()
    close("xlnet_log_likelihood (tiny)", B.xlnet_log_likelihood(model, ids, z), ref_x)
    # BERT: masked positions 1 and 3 predicted from the other three
    vis = np.zeros((5, 6), dtype=bool)
    vis[:, [0, 1, 3, 5]] = True
    lg = tiny_torch_logits(model, ids, vis)
    close(
        "bert_log_likelihood (tiny)",
        B.bert_log_likelihood(model, ids, [1, 3]),
        -F.cross_entropy(lg[[1, 3]], torch.tensor(ids[[1, 3]]), reduction="sum"),
    )


def test_chapter17_bad_input():
    model = B.TinyAttentionModel(V=4, n=3)
    with pytest.raises(ValueError, match="order: expected a permutation"):
        B.xlnet_log_likelihood(model, [0, 1, 2], [0, 1])
    with pytest.raises(ValueError, match="order: expected distinct positions"):
        B.xlnet_log_likelihood(model, [0, 1, 2], [0, 0, 1])
    with pytest.raises(ValueError, match="masked: expected at least one"):
        B.bert_log_likelihood(model, [0, 1, 2], [])
    with pytest.raises(ValueError, match="ids: expected token ids in 0..3"):
        B.gpt_log_likelihood(model, [0, 4, 2])
    with pytest.raises(ValueError, match="visible: expected column 0"):
        model.logits(np.array([0, 1, 2]), np.zeros((3, 4), dtype=bool))
    with pytest.raises(ValueError, match="table: expected probabilities"):
        B.JointTableModel(np.full((2, 2), 0.3))
    with pytest.raises(ValueError, match="targets: expected positions not in visible"):
        B.JointTableModel.random(2, 3).cond_log_prob([0, 1, 1], [0], [0, 1])


# ---------------------------------------------------------------------------------------------
# Chapter 1 bad input
# ---------------------------------------------------------------------------------------------


def test_regression_bad_input():
    X, y = regression_data()
    with pytest.raises(ValueError, match=r"theta: expected shape \(4\), got"):
        B.linear_predict(X, np.zeros(3))
    with pytest.raises(ValueError, match=r"y: expected shape \(30\), got"):
        B.squared_loss_grad(X, y[:5], np.zeros(4))
    with pytest.raises(ValueError, match="X: expected linearly independent columns"):
        B.linear_regression_closed_form(np.hstack([X, X[:, :1]]), y)
    with pytest.raises(ValueError, match="lr: expected a positive learning rate"):
        B.gradient_descent(lambda th: th, np.zeros(2), -0.1, 10)
    with pytest.raises(ValueError, match="hessian: expected a symmetric"):
        B.learning_rate_regime(0.1, np.array([[1.0, 2.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="y: expected the shape of y_hat"):
        B.squared_loss(np.zeros(3), np.zeros(4))
