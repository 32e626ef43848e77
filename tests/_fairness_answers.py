"""Answers to every autograded exercise, for tests/test_grading_fairness.py.

For each exercise, :data:`ANSWERS` builds the chapter's names the tests read (small, seeded,
from the package) and its variants: a correct answer in float64 and computed in float32 (or, for
counts, as other number types), and its two most common mistakes.  :data:`SHORTCUTS` is the code
of a forbidden shortcut where the prompt forbids one, :data:`GUESSES` the placeholders a student
might leave besides ``...``, zeros and ones, :data:`INPUTS` the names a student chooses (kept,
not rounded, when the answer is rounded as stated).
"""

from __future__ import annotations

import math

import numpy as np


def f32(x):
    return np.asarray(x, dtype=np.float32)


def _ch01():
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
        "float32": {"theta0": f32(t0), "theta1": f32(t1)},
        # np.cov's default ddof=1 over np.var's ddof=0: theta1 too large by n/(n-1)
        "mistake 1": {
            "theta0": y.mean() - np.cov(x, y)[0, 1] / np.var(x) * x.mean(),
            "theta1": np.cov(x, y)[0, 1] / np.var(x),
        },
        # the chapter's fit of all twenty points, copied from the page: not the question asked
        "copied": {"theta0": ctx["theta_star"][0], "theta1": ctx["theta_star"][1]},
        "mistake 2": {"theta0": t1, "theta1": t0},
    }  # swapped


def _ch02():
    g = np.random.default_rng(1)
    P, Q = g.dirichlet(np.ones(5), 10_000), g.dirichlet(np.ones(5), 10_000)

    def kl(a, b):
        return (a * np.log(a / b)).sum(1)

    return {}, {
        "float64": {"P": P, "Q": Q, "kl_pq": kl(P, Q), "kl_qp": kl(Q, P)},
        "float32": {
            "P": f32(P),
            "Q": f32(Q),
            "kl_pq": kl(f32(P), f32(Q)),
            "kl_qp": kl(f32(Q), f32(P)),
        },
        "mistake 1": {
            "P": P,
            "Q": Q,
            "kl_pq": kl(P, Q) / np.log(2),  # bits
            "kl_qp": kl(Q, P) / np.log(2),
        },
        "mistake 2": {"P": P, "Q": Q, "kl_pq": kl(P, Q), "kl_qp": kl(P, Q)},
    }  # same direction


def _ch03_net():
    import formulated.basics as fb

    g = np.random.default_rng(2)
    ctx = {
        "fb": fb,
        "X": g.standard_normal((6, 3)),
        "W1": g.standard_normal((3, 4)),
        "b1": g.standard_normal(4),
        "W2": g.standard_normal((4, 2)),
        "b2": g.standard_normal(2),
        "Y": g.standard_normal((6, 2)),
    }
    return ctx


def _ch03_3():
    ctx = _ch03_net()
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
        "float32": {"numeric": f32(good)},
        "mistake 1": {"numeric": numeric(1e-6, lambda h: h)},  # h, not 2h
        "mistake 2": {"numeric": -good},
    }  # difference reversed


def _ch03_4():
    ctx = _ch03_net()
    W, b = ctx["W1"] @ ctx["W2"], ctx["b1"] @ ctx["W2"] + ctx["b2"]
    return ctx, {
        "float64": {"W_one": W, "b_one": b},
        "float32": {"W_one": f32(W), "b_one": f32(b)},
        "mistake 1": {
            "W_one": W,
            "b_one": ctx["b1"].sum() + ctx["b2"],
        },  # b1 not through W2
        "mistake 2": {"W_one": W, "b_one": ctx["b2"]},
    }  # b1 forgotten


def _ch04_2():
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


def _ch04_3():
    g = np.random.default_rng(3)
    words = ["cat", "dog", "king", "queen", "the"]
    ctx = {"E": g.standard_normal((5, 5)), "idx": {w: i for i, w in enumerate(words)}}
    v = ctx["E"][:4]
    norm = np.linalg.norm(v, axis=1)
    sim = v @ v.T / np.outer(norm, norm)
    return ctx, {
        "float64": {"sim": sim},
        "float32": {"sim": f32(v) @ f32(v).T / np.outer(norm, norm)},
        "mistake 1": {"sim": v @ v.T},  # not normalized
        "mistake 2": {"sim": v @ v.T / norm[:, None] ** 2},
    }  # one norm twice


def _ch06_1():
    right = [("b", "c</w>"), ("a", "b</w>"), ("a", "bc</w>")]
    return {}, {
        "float64": {"my_merges": right},
        "float32": {
            "my_merges": [("a", "b</w>"), ("b", "c</w>"), ("a", "bc</w>")][1::-1]
            + [("a", "bc</w>")]
        },  # same list, rebuilt
        "mistake 1": {"my_merges": [("a", "b</w>"), ("b", "c</w>"), ("a", "bc</w>")]},
        "mistake 2": {"my_merges": [("a", "b"), ("b", "c"), ("ab", "c")]},
    }  # no end marker


def _ch06_4():
    from formulated.tokenizers import (
        BPETokenizer,
        initial_symbols,
        learn_bpe,
        word_frequencies,
    )

    text = (
        "the cat sat on the mat and the dog sat on the log while the cat ran " * 3
        + "a rat and a bat sat flat on a hat that the cat had"
    )
    wc = word_frequencies(text)
    init = initial_symbols(wc)
    ours = learn_bpe(wc, 40)
    ctx = {"wc": wc, "init": init, "ours": ours, "BPETokenizer": BPETokenizer}
    n_words = sum(wc.values())

    def count(k):
        return sum(
            len(BPETokenizer(ours[:k], init).tokenize_word(w)) * c
            for w, c in wc.items()
        )

    k = next(k for k in range(len(ours) + 1) if count(k) <= 2.5 * n_words)
    return ctx, {
        "float64": {"k_merges": k},
        "float32": {"k_merges": np.int64(k)},
        "mistake 1": {"k_merges": k - 1},  # last one above 2.5 tokens per word
        "mistake 2": {"k_merges": k + 1},
    }  # one past the smallest


def _ch07_3():
    def R(s, H, i_scale=2):
        out = np.zeros((H, H))
        for k in range(H // 2):
            b = s / 10000 ** (i_scale * k / H)
            out[2 * k : 2 * k + 2, 2 * k : 2 * k + 2] = [
                [np.cos(b), -np.sin(b)],
                [np.sin(b), np.cos(b)],
            ]
        return out

    good = R(3, 8)
    return {}, {
        "float64": {"R3": good},
        "float32": {"R3": f32(good)},
        "mistake 1": {"R3": good.T},  # rotation reversed
        "mistake 2": {"R3": R(3, 8, i_scale=1)},
    }  # wrong frequencies


def _ch08_3():
    from formulated import examples as ex

    def attention(scale=True, axis=1, dtype=float):
        def self_attention(X):
            X = np.asarray(X, dtype=dtype)
            Q, K, V = (
                X @ np.asarray(W, dtype=dtype)
                for W in (ex.QKV_W_QUERY, ex.QKV_W_KEY, ex.QKV_W_VALUE)
            )
            S = Q @ K.T / (np.sqrt(K.shape[1]) if scale else 1)
            W = np.exp(S - S.max(axis, keepdims=True))
            return W / W.sum(axis, keepdims=True) @ V

        return self_attention

    return {}, {
        "float64": {"self_attention": attention()},
        "float32": {"self_attention": attention(dtype=np.float32)},
        "mistake 1": {"self_attention": attention(scale=False)},  # no 1/sqrt(D)
        "mistake 2": {"self_attention": attention(axis=0)},
    }  # softmax over queries


def _ch08_4():
    q, K = np.array([2.0, 2, 2]), np.array([[0.0, 1, 1], [4, 4, 0], [2, 3, 1]])
    V = np.array([[1.0, 2, 3], [2, 8, 0], [2, 6, 3]])
    s = K @ q
    w = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
    return {}, {
        "float64": {"scores": s, "w2": w, "out2": w @ V},
        "float32": {"scores": f32(s), "w2": f32(w), "out2": f32(w) @ f32(V)},
        "mistake 1": {
            "scores": s / np.sqrt(3),
            "w2": np.exp(s / np.sqrt(3))  # scaled
            / np.exp(s / np.sqrt(3)).sum(),
            "out2": np.exp(s / np.sqrt(3)) / np.exp(s / np.sqrt(3)).sum() @ V,
        },
        "mistake 2": {"scores": s, "w2": w, "out2": w @ K},
    }  # keys, not values


def _ch09_2():
    g = np.random.default_rng(4)
    Qb, Kb, Vb = (g.standard_normal((2, 5, 4)) for _ in range(3))
    real = np.arange(5)[None, :] < np.array([5, 3])[:, None]
    mask = np.tril(np.ones((5, 5), bool))[None] & real[:, None, :]

    def attend(Q, K, V, m, multiply=False):
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        if multiply:
            W = np.exp(S - S.max(-1, keepdims=True))
            return (W / W.sum(-1, keepdims=True) * m) @ V
        S = np.where(m, S, -np.inf)
        W = np.exp(S - S.max(-1, keepdims=True))
        return W / W.sum(-1, keepdims=True) @ V

    good = attend(Qb, Kb, Vb, mask)
    queries_mask = np.tril(np.ones((5, 5), bool))[None] & real[:, :, None]
    return {}, {
        "float64": {"Qb": Qb, "Kb": Kb, "Vb": Vb, "mask_b": mask, "ours_b": good},
        "float32": {
            "Qb": f32(Qb),
            "Kb": f32(Kb),
            "Vb": f32(Vb),
            "mask_b": mask,
            "ours_b": attend(f32(Qb), f32(Kb), f32(Vb), mask),
        },
        "mistake 1": {
            "Qb": Qb,
            "Kb": Kb,
            "Vb": Vb,
            "mask_b": mask,  # multiplicative mask
            "ours_b": attend(Qb, Kb, Vb, mask, multiply=True),
        },
        "mistake 2": {
            "Qb": Qb,
            "Kb": Kb,
            "Vb": Vb,
            "mask_b": queries_mask,  # pads the queries
            "ours_b": attend(Qb, Kb, Vb, queries_mask | np.eye(5, dtype=bool)),
        },
    }


def _ch09_3():
    from formulated import examples as ex

    S = np.asarray(ex.MASK_SCALED_SCORES, dtype=float)
    W = np.exp(S - S.max(1, keepdims=True))
    W /= W.sum(1, keepdims=True)
    prod = W * np.tril(np.ones((4, 4)))
    ren = prod / prod.sum(1, keepdims=True)
    return {}, {
        "float64": {"product_w": prod, "renormalized": ren},
        "float32": {"product_w": f32(prod), "renormalized": f32(ren)},
        "mistake 1": {"product_w": prod, "renormalized": prod},  # not renormalized
        "mistake 2": {
            "product_w": prod,  # softmax again
            "renormalized": np.exp(prod) / np.exp(prod).sum(1, keepdims=True),
        },
    }


def _ch09_4():
    n = 1024
    c = n * (n + 1) // 2
    band = 256 * 257 // 2 + (2048 - 256) * 256
    return {}, {
        "float64": {
            "causal_pairs": c,
            "wasted_fraction": 1 - c / n**2,
            "band_pairs": band,
        },
        "float32": {
            "causal_pairs": np.int64(c),
            "wasted_fraction": f32(1 - c / n**2),
            "band_pairs": np.int64(band),
        },
        "mistake 1": {
            "causal_pairs": n * (n - 1) // 2,
            "wasted_fraction": 0.5,  # no diagonal
            "band_pairs": band,
        },
        "mistake 2": {
            "causal_pairs": c,
            "wasted_fraction": 1 - c / n**2,  # w per query
            "band_pairs": 2048 * 256,
        },
    }


def _ch10_2():
    import formulated as fg

    def head_sum_of(dtype=float, scale=True, whole_wo=False):
        def head_sum(X, Mask, Wq, Wk, Wv, Wo):
            X, Wo = np.asarray(X, dtype), np.asarray(Wo, dtype)
            D = np.shape(Wq)[-1]
            total = 0
            for i in range(len(Wq)):
                S = (X @ Wq[i]) @ (X @ Wk[i]).T / (np.sqrt(D) if scale else 1) + Mask
                W = np.exp(S - S.max(1, keepdims=True))
                head = W / W.sum(1, keepdims=True) @ (X @ Wv[i])
                total = total + (
                    head @ Wo[:D] if whole_wo else head @ Wo[i * D : (i + 1) * D]
                )
            return total

        return head_sum

    return {"fg": fg}, {
        "float64": {"head_sum": head_sum_of()},
        "float32": {"head_sum": head_sum_of(np.float32)},
        "mistake 1": {"head_sum": head_sum_of(scale=False)},  # no 1/sqrt(D)
        "mistake 2": {"head_sum": head_sum_of(whole_wo=True)},
    }  # one block for all


def _gelu(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(np.asarray(x) / math.sqrt(2)))


def _ch11_2_answers():
    # Newton on the derivative Phi(x) + x phi(x), from -0.75
    x = -0.75
    for _ in range(30):
        phi = math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
        d1 = 0.5 * (1 + math.erf(x / math.sqrt(2))) + x * phi
        x -= d1 / (phi * (2 - x * x))
    m = float(_gelu(x))

    def tanh(t):
        return 0.5 * t * (1 + np.tanh(math.sqrt(2 / math.pi) * (t + 0.044715 * t**3)))

    grid = np.linspace(-3, 0, 300001)
    xt = grid[np.argmin(tanh(grid))]
    return {}, {
        "float64": {"x_min": x, "gelu_min": m},
        "float32": {"x_min": f32(x), "gelu_min": f32(m)},
        "mistake 1": {"x_min": xt, "gelu_min": tanh(xt)},  # the tanh form
        "mistake 2": {"x_min": x, "gelu_min": -m},
    }  # sign dropped


def _ch11_3():
    xs = np.linspace(-8, 8, 16001)
    exact = _gelu(xs)
    Phi = 0.5 * (1 + np.vectorize(math.erf)(xs / math.sqrt(2)))
    al = np.linspace(1.6, 1.9, 3001)

    def sig(a):
        return 1 / (1 + np.exp(-a * xs))

    a1 = al[np.argmin([np.abs(xs * sig(a) - exact).max() for a in al])]
    a2 = al[np.argmin([np.abs(sig(a) - Phi).max() for a in al])]
    return {}, {
        "float64": {"a1": a1, "a2": a2},
        "float32": {"a1": f32(a1), "a2": f32(a2)},
        "mistake 1": {"a1": 1.702, "a2": 1.702},  # the folklore constant
        "mistake 2": {"a1": a2, "a2": a1},
    }  # swapped


def _ch11_4():
    g = np.random.default_rng(5)
    Xb = g.standard_normal((3, 5, 4))
    params = tuple(g.standard_normal(s) for s in ((4, 16), (16,), (16, 4), (4,)))

    def ffn(X, W1, b1, W2, b2, f=_gelu):
        return f(X @ W1 + b1) @ W2 + b2

    good = ffn(Xb, *params)
    p32 = tuple(map(f32, params))

    def tanh(t):
        return 0.5 * t * (1 + np.tanh(math.sqrt(2 / math.pi) * (t + 0.044715 * t**3)))

    return (
        {},
        {
            "float64": {"Xb": Xb, "ffn_params": params, "direct": good, "flat": good},
            "float32": {
                "Xb": f32(Xb),
                "ffn_params": p32,
                "direct": ffn(f32(Xb), *p32),
                "flat": ffn(f32(Xb).reshape(15, 4), *p32).reshape(3, 5, 4),
            },
            "mistake 1": {
                "Xb": Xb,
                "ffn_params": params,
                "direct": ffn(Xb, *params, f=tanh),
                "flat": ffn(Xb, *params, f=tanh),
            },  # tanh GELU
            "mistake 2": {
                "Xb": Xb[:1],
                "ffn_params": params,
                "direct": good[:1],  # B = 1
                "flat": good[:1],
            },
        },
    )


def _ch12_2():
    x = np.random.default_rng(6).standard_normal((1, 16))

    def ln(t, eps):
        return (t - t.mean()) / np.sqrt(t.var() + eps)

    change = {
        a: np.abs(ln(a * x, 1e-5) - ln(x, 1e-5)).max()
        for a in (1, 0.1, 0.03, 0.01, 0.003)
    }
    limit = max(a for a, c in change.items() if c > 1e-3)
    others = sorted(a for a in change if a != limit)
    return {}, {
        "float64": {"x_row": x, "a_limit": limit},
        "float32": {"x_row": f32(x), "a_limit": limit},
        "mistake 1": {"x_row": x, "a_limit": min(a for a in change if a > limit)},
        "mistake 2": {"x_row": x, "a_limit": min(others)},
    }  # the smallest tried


def _ch12_3():
    r4, r768 = math.sqrt(3 / 4), math.sqrt(767 / 768)
    return {}, {
        "float64": {"ratio_4": r4, "ratio_768": r768},
        "float32": {"ratio_4": f32(r4), "ratio_768": f32(r768)},
        "mistake 1": {"ratio_4": 1.0, "ratio_768": 1.0},  # "the same"
        "mistake 2": {"ratio_4": 1 / r4, "ratio_768": 1 / r768},
    }  # upside down


def _ch13_4():
    from formulated.models import Config, gpt_probabilities, init_gpt
    from formulated.tokenizers import CharTokenizer

    tok = CharTokenizer.from_text("the cat sat on the mat")
    params = init_gpt(
        Config(V=tok.vocab_size, n_ctx=16, H=8, A=2, L=2), seed=0, scale=0.5
    )
    ctx = {"tok": tok, "params": params, "gpt_probabilities": gpt_probabilities}

    def generate(row=-1, keep=True):
        ids = tok.encode("the c")
        for _ in range(5):
            p = gpt_probabilities(np.array(ids if keep else ids[-1:]), params)
            ids.append(int(np.argmax(p[row])))
        return ids

    good = generate()
    return ctx, {
        "float64": {"ids": good},
        "float32": {"ids": np.array(good)},
        "mistake 1": {"ids": generate(row=0)},  # first row, not last
        "mistake 2": {"ids": generate(keep=False)},
    }  # forgets the context


def _ch14_2():
    return {}, {
        "float64": {"earliest": [19 - 2 * L for L in (1, 2, 3)]},
        "float32": {"earliest": np.array([17, 15, 13])},
        "mistake 1": {"earliest": [19 - 3 * L for L in (1, 2, 3)]},  # w, not w - 1
        "mistake 2": {"earliest": [17, 17, 17]},
    }  # layers do not compound


BERT = 109_514_298


def _counts(right: int, wrong1: int, wrong2: int, name: str):
    return {}, {
        "float64": {name: right},
        "float32": {name: np.int64(right)},
        "mistake 1": {name: wrong1},
        "mistake 2": {name: wrong2},
    }


def _layers(biases: bool = True) -> int:
    """GPT-2 small's layers needed to pass 1e9 parameters, counted by formula."""
    V, n, H = 50257, 1024, 768
    per_layer = 12 * H * H + (13 * H if biases else 4 * H)
    return next(
        L for L in range(1, 1000) if V * H + n * H + L * per_layer + 2 * H > 1e9
    )


def _ch16_4():
    untied, tied, VH = 163_037_184, 124_439_808, 50257 * 768
    return {}, {
        "float64": {"untied": untied, "share": VH / untied},
        "float32": {"untied": untied, "share": f32(VH / untied)},
        "mistake 1": {"untied": untied, "share": VH / tied},  # share of the tied model
        "mistake 2": {"untied": tied + 768 * 1024, "share": VH / untied},
    }  # position table added


def _ch17_2():
    return {}, {
        "float64": {"uniform_loss": math.log, "uniform_perplexity": float},
        "float32": {
            "uniform_loss": lambda V: np.log(np.float32(V)),
            "uniform_perplexity": lambda V: np.exp(np.log(np.float32(V))),
        },
        "mistake 1": {"uniform_loss": math.log2, "uniform_perplexity": float},  # bits
        "mistake 2": {
            "uniform_loss": math.log,  # exp of bits
            "uniform_perplexity": lambda V: math.exp(math.log2(V)),
        },
    }


def _ch18_3():
    H = 128
    right = 65 * H + 128 * H + 4 * (12 * H**2 + 13 * H) + 2 * H
    return _counts(
        right, right - 2 * H, right + 65 * H, "by_hand"
    )  # no final LN; untied


ANSWERS = {
    "ex-01-4": _ch01,
    "ex-02-3": _ch02,
    "ex-03-3": _ch03_3,
    "ex-03-4": _ch03_4,
    "ex-04-2": _ch04_2,
    "ex-04-3": _ch04_3,
    "ex-06-1": _ch06_1,
    "ex-06-4": _ch06_4,
    "ex-07-3": _ch07_3,
    "ex-08-3": _ch08_3,
    "ex-08-4": _ch08_4,
    "ex-09-2": _ch09_2,
    "ex-09-3": _ch09_3,
    "ex-09-4": _ch09_4,
    "ex-10-2": _ch10_2,
    "ex-11-2": _ch11_2_answers,
    "ex-11-3": _ch11_3,
    "ex-11-4": _ch11_4,
    "ex-12-2": _ch12_2,
    "ex-12-3": _ch12_3,
    "ex-13-4": _ch13_4,
    "ex-14-2": _ch14_2,
    # BERT-base: the output bias V forgotten; the segment table forgotten
    "ex-15-4": lambda: _counts(BERT, BERT - 30522, BERT - 2 * 768, "bert_count"),
    # one layer short of a billion; the rough 12 L H^2 (no embeddings, no biases)
    "ex-16-3": lambda: _counts(
        _layers(), _layers() - 1, math.ceil(1e9 / (12 * 768**2)), "L_needed"
    ),
    "ex-16-4": _ch16_4,
    "ex-17-2": _ch17_2,
    "ex-18-3": _ch18_3,
}

#: The names a student picks (random inputs): rounding as stated applies to the results only.
INPUTS = {
    "ex-02-3": {"P", "Q"},
    "ex-09-2": {"Qb", "Kb", "Vb", "mask_b"},
    "ex-11-4": {"Xb", "ffn_params"},
    "ex-12-2": {"x_row"},
}

#: The forbidden shortcut of each exercise whose prompt forbids one: the code of the student's
#: cell (run here to get the values; the grader's tests see it in ``In``).
SHORTCUTS = {
    # "check your numbers in code with nothing but math.exp and loops"
    "ex-08-4": "import formulated as fg\n"
    "from formulated import examples as ex\n"
    "scores = ex.SLIDE_KEYS @ ex.SLIDE_QUERIES[1]\n"
    "w2 = fg.softmax(scores)\n"
    "out2 = fg.attention(ex.SLIDE_QUERIES, ex.SLIDE_KEYS, ex.SLIDE_VALUES, "
    "scale=False)[1]\n",
    # "each head writes its own contribution, and the layer adds them"
    "ex-10-2": "import formulated as fg\n"
    "def head_sum(X, Mask, Wq, Wk, Wv, Wo):\n"
    "    return fg.multi_head_self_attention(X, Mask, Wq, Wk, Wv, Wo)\n",
    # "write LayerNorm with the default x.std(dim=-1) and compare it with F.layer_norm"
    "ex-12-3": "import torch\n"
    "ratios = []\n"
    "for H in (4, 768):\n"
    "    x = torch.randn(3, H, dtype=torch.float64)\n"
    "    ratios.append((x.std(-1, correction=0) / x.std(-1)).mean().item())\n"
    "ratio_4, ratio_768 = ratios\n",
    # "count by hand ... check with count_parameters"
    "ex-18-3": "from formulated.models.trainable import GPT, GPTConfig, count_parameters\n"
    "from formulated.training import PRESETS\n"
    "by_hand = count_parameters(GPT(GPTConfig(V=65, **dict(PRESETS['cpu']['model'], "
    "n_ctx=128))))\n",
}

#: Placeholders besides ``...``, zeros and ones: guesses of the right form (issue 34's among
#: them), as the code of the student's cell.
GUESSES = {
    "ex-06-1": ["my_merges = [('a', 'b</w>')]"],
    "ex-06-4": ["k_merges = 1"],
    "ex-08-3": ["self_attention = lambda X: X[:, :3]"],
    "ex-08-4": [
        "scores = w2 = out2 = np.zeros(3)",
        "scores, w2 = [0, 0, 0], [1 / 3] * 3\nout2 = [0, 0, 0]",
    ],
    "ex-11-2": ["x_min, gelu_min = -0.75, -0.17"],
    "ex-12-2": [
        "x_row = np.random.default_rng(5).standard_normal((1, 16))\na_limit = 1.0"
    ],
    "ex-12-3": ["ratio_4 = ratio_768 = 1.0"],
    "ex-14-2": ["earliest = [19, 19, 19]", "earliest = [0, 0, 0]"],
    "ex-15-4": ["bert_count = 110_000_000"],
    "ex-16-3": ["L_needed = 13", "L_needed = 24"],
    "ex-16-4": ["untied, share = 163_000_000, 0.25"],
    "ex-17-2": ["uniform_loss = uniform_perplexity = lambda V: 2.0"],
    "ex-18-3": ["by_hand = 1", "by_hand = 1_000_000"],
}
