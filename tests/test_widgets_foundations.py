"""The widgets of chapters 1–4: set a control, check the result against an independent
computation (PyTorch, closed forms)."""

from __future__ import annotations

import math

import numpy as np
import torch

from formulated import widgets as Wd


def f64(x) -> torch.Tensor:
    return torch.tensor(np.asarray(x), dtype=torch.float64)


def torch_sgd_path(X, y, theta0, lr, steps):
    th = f64(theta0).requires_grad_()
    opt = torch.optim.SGD([th], lr=lr)
    out = [th.detach().clone()]
    for _ in range(steps):
        opt.zero_grad()
        (0.5 * ((th[0] + f64(X[:, 0]) * th[1] - f64(y)) ** 2).sum()).backward()
        opt.step()
        out.append(th.detach().clone())
    return torch.stack(out).numpy()


def test_gradient_descent_widget_regimes():
    w = Wd.gradient_descent_widget()
    X, y = Wd.regression_surface_data()
    Xt = torch.cat([torch.ones(20, 1, dtype=torch.float64), f64(X)], dim=1)
    lam = torch.linalg.eigvalsh(Xt.T @ Xt)[-1].item()
    assert abs(w.result["lam_max"] - lam) < 1e-10
    assert w.result["regime"] == "converges"
    before = w.result["losses"][-1]
    for factor, regime in [(0.8, "converges"), (1.6, "oscillates"), (2.3, "diverges")]:
        lr = round(factor / lam, 3)  # on the slider's 0.001 grid
        w.controls["lr"].value = lr
        assert w.result["regime"] == regime, (factor, lr, lam)
        ref = torch_sgd_path(X, y, w.result["path"][0], lr, w.controls["steps"].value)
        assert np.abs(w.result["path"] - ref).max() < 1e-8 * max(1.0, np.abs(ref).max())
    assert w.result["losses"][-1] > 1e3 * before  # divergence really shows
    # the slides' rule moves θ by (1 + α) per step whatever the loss says
    w.controls["rule"].value = "slides: Δθ = αθ"
    assert w.result["regime"] == "ignores the loss"
    steps = w.controls["steps"].value
    assert np.allclose(
        w.result["path"][-1],
        w.result["path"][0] * (1 + w.controls["lr"].value) ** steps,
        rtol=1e-12,
    )


def test_information_widget_against_torch_distributions():
    w = Wd.information_widget()
    w.controls["q2"].value = 0.9  # q weights (0.3, 0.9, 0.3)
    p, q = np.array([0.6, 0.3, 0.1]), np.array([0.3, 0.9, 0.3]) / 1.5
    P, Q = (
        torch.distributions.Categorical(probs=f64(p)),
        torch.distributions.Categorical(probs=f64(q)),
    )
    ln2 = math.log(2)
    assert abs(w.result["H_p"] - P.entropy().item() / ln2) < 1e-12
    assert (
        abs(w.result["KL"] - torch.distributions.kl_divergence(P, Q).item() / ln2)
        < 1e-12
    )
    assert abs(w.result["H_pq"] - (-(f64(p) * Q.logits).sum().item()) / ln2) < 1e-12
    w.controls["unit"].value = "nats"
    assert abs(w.result["KL"] - torch.distributions.kl_divergence(P, Q).item()) < 1e-12
    assert (
        abs(w.result["KL_qp"] - torch.distributions.kl_divergence(Q, P).item()) < 1e-12
    )
    w.controls["q3"].value = 0.0  # q rules out an outcome p allows
    assert w.result["KL"] == math.inf
    for k in ("p1", "p2", "p3"):
        w.controls[k].value = 0.0
    assert "error" in w.result


def test_local_minima_widget_finds_the_minimum_of_its_basin():
    minima = sorted(r.real for r in np.roots([4, 0, -6, 1]))  # f'(w) = 4w³ − 6w + 1
    w = Wd.local_minima_widget(steps=200)
    assert (
        w.result["minimum"] == "local" and abs(w.result["w_final"] - minima[2]) < 1e-6
    )
    w.controls["w0"].value = -1.0
    assert (
        w.result["minimum"] == "global" and abs(w.result["w_final"] - minima[0]) < 1e-6
    )
    # the global minimum is the lower one
    f = lambda x: x**4 - 3 * x**2 + x  # noqa: E731
    assert f(minima[0]) < f(minima[2])


def test_gradient_flow_widget_against_closed_form_and_autograd():
    w = Wd.gradient_flow_widget()
    n = w.controls["n"].value
    assert np.allclose(w.result["norms"], 0.9 ** np.arange(n, -1, -1), rtol=1e-12)
    w.controls["w"].value = 1.2
    assert np.allclose(w.result["norms"], 1.2 ** np.arange(n, -1, -1), rtol=1e-12)
    w.controls["activation"].value = "tanh"
    h = torch.tensor([0.5], dtype=torch.float64, requires_grad=True)
    hs = [h]
    for _ in range(n):
        h = torch.tanh(1.2 * h + 0.1)
        hs.append(h)
    grads = torch.autograd.grad(hs[-1].sum(), hs)
    ref = np.array([g.abs().item() for g in grads])
    assert np.abs(w.result["norms"] - ref).max() < 1e-12
    assert w.result["norms"][0] < 1e-3  # tanh saturates: it vanishes anyway
