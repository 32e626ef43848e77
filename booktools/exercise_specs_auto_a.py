"""The autograded exercises' specs, chapters 1-9 (see :mod:`booktools.exercises`).

Tolerances accept exactly the precision each prompt states, computed in float32: "to N
significant digits" is a relative tolerance of 6e-4 for N = 4 (rounding leaves at most 5e-4,
float32 adds about 1e-7), "to N decimal places" an absolute one of 0.5 * 10**-N plus a margin;
a property checked between two separately rounded values allows twice that.  Public tests check
a property that a placeholder (``...``, zeros, ones, a guess) fails and that does not give the
graded value away; hidden tests compare with an independent reference.
"""

from __future__ import annotations

from booktools.exercise_spec import (
    Spec,
    auto,
    bpe_merges_problem,
    calls_behind,
    source_of,
)

SPECS: dict[str, Spec] = {}

# A test that reads the student's cells (calls_behind) to catch a forbidden shortcut
CALLS_BEHIND = source_of(calls_behind) + "\n"

SPECS["ex-01-4"] = auto(
    "theta0 theta1",
    [
        "import numpy as np\n"
        "x = np.asarray(X, dtype=float)[5:, 0]\n"
        "r = np.asarray(y, dtype=float)[5:] - float(theta0) - float(theta1) * x\n"
        "assert abs(r.mean()) <= 6e-4 * (abs(float(theta0)) + abs(float(theta1) * x).mean()) "
        "+ 1e-6, 'theta0, theta1: the residuals of a least-squares line sum to 0 (the first "
        "normal equation)'"
    ],
    [
        "import numpy as np, torch\n"
        "A = torch.cat([torch.ones(len(y) - 5, 1), torch.as_tensor(X[5:, :1])], 1).double()\n"
        "ref = torch.linalg.lstsq(A, torch.as_tensor(y[5:], dtype=torch.float64)[:, None]).solution\n"
        "assert np.allclose(float(theta0), ref[0, 0].item(), rtol=6e-4, atol=1e-6)",
        "import numpy as np, torch\n"
        "A = torch.cat([torch.ones(len(y) - 5, 1), torch.as_tensor(X[5:, :1])], 1).double()\n"
        "ref = torch.linalg.lstsq(A, torch.as_tensor(y[5:], dtype=torch.float64)[:, None]).solution\n"
        "assert np.allclose(float(theta1), ref[1, 0].item(), rtol=6e-4, atol=1e-6)",
    ],
    checks="that the residuals of your line sum to 0 (the first normal equation only)",
    written="1 point: both derivatives set to 0 (the residuals sum to 0, and so do the "
    "residuals times x) and solved: theta1 = cov(x, y)/var(x), theta0 = mean(y) - "
    "theta1 mean(x). Half a point for the two equations without the solution.",
)
SPECS["ex-02-3"] = auto(
    "P Q kl_pq kl_qp",
    [
        "import numpy as np\n"
        "p, q = np.asarray(P, dtype=float), np.asarray(Q, dtype=float)\n"
        "assert p.shape == q.shape == (10000, 5) and np.shape(kl_pq) == np.shape(kl_qp) == "
        "(10000,), 'expected P, Q of shape (10000, 5) and one divergence per row'\n"
        "assert (p > 0).all() and (q > 0).all() and np.allclose(p.sum(1), 1) and "
        "np.allclose(q.sum(1), 1), 'P, Q: expected one distribution per row'\n"
        "assert (np.asarray(kl_pq) > 0).all() and (np.asarray(kl_qp) > 0).all() and not "
        "np.allclose(kl_pq, kl_qp), 'kl_pq, kl_qp: positive for distinct distributions "
        "(Gibbs), and not symmetric'"
    ],
    [
        "import numpy as np, torch\n"
        "p, q = (torch.as_tensor(np.asarray(M, dtype=float)) for M in (P, Q))\n"
        "ref = torch.nn.functional.kl_div(q.log(), p, reduction='none').sum(-1)\n"
        "assert np.allclose(np.asarray(kl_pq, dtype=float), ref.numpy(), rtol=6e-4, atol=1e-6)",
        "import numpy as np, torch\n"
        "p, q = (torch.as_tensor(np.asarray(M, dtype=float)) for M in (P, Q))\n"
        "ref = torch.nn.functional.kl_div(p.log(), q, reduction='none').sum(-1)\n"
        "assert np.allclose(np.asarray(kl_qp, dtype=float), ref.numpy(), rtol=6e-4, atol=1e-6)",
    ],
    checks="the shapes, that P and Q hold distributions and that both divergences are "
    "positive and differ (not their values)",
    written="1 point: the fraction of pairs with KL(p||q) > KL(q||p), about one half, and "
    "why: p and q are drawn alike, so swapping them is as likely as not. Half a point "
    "for the fraction without the reason.",
)
SPECS["ex-03-3"] = auto(
    "numeric",
    [
        "import numpy as np\n"
        "loss = lambda W: 0.5 * ((np.tanh(X @ W + b1) @ W2 + b2 - Y) ** 2).sum()\n"
        "E = np.random.default_rng(0).standard_normal(np.shape(W1))\n"
        "slope = (loss(W1 + 1e-5 * E) - loss(W1 - 1e-5 * E)) / 2e-5\n"
        "num = np.asarray(numeric, dtype=float)\n"
        "assert num.shape == np.shape(W1) and abs((num * E).sum() - slope) <= 6e-4 * "
        "np.abs(num * E).sum() + 1e-6, 'numeric: an array shaped like W1 whose product with a "
        "random direction E should be the slope of the loss along E'"
    ],
    [
        "import numpy as np, torch\n"
        "t = lambda a: torch.as_tensor(np.asarray(a, dtype=float))\n"
        "w1 = t(W1).requires_grad_()\n"
        "out = torch.tanh(t(X) @ w1 + t(b1)) @ t(W2) + t(b2)\n"
        "_ = (0.5 * ((out - t(Y)) ** 2).sum()).backward()\n"
        "assert np.allclose(np.asarray(numeric, dtype=float), w1.grad.numpy(), rtol=6e-4, "
        "atol=1e-7)"
    ],
    checks="the shape, and the slope of the loss along one random direction (not each entry)",
)
SPECS["ex-03-4"] = auto(
    "W_one b_one",
    [
        "import numpy as np\n"
        "x, u = np.random.default_rng(0).standard_normal((2, np.shape(W1)[0]))\n"
        "net = lambda x: (x @ W1 + b1) @ W2 + b2\n"
        "Wn = np.asarray(W_one, dtype=float)\n"
        "assert Wn.shape == (np.shape(W1)[0], np.shape(W2)[1]) and (np.abs(u @ Wn - (net(x + u) "
        "- net(x))) <= 6e-4 * (np.abs(u) @ np.abs(Wn)) + 1e-6).all(), 'W_one: one matrix from "
        "the input width to the output width; a step u of the input should move the output by "
        "u @ W_one'"
    ],
    [
        "import numpy as np, torch\n"
        "lin1, lin2 = (torch.nn.Linear(*np.shape(W)).double() for W in (W1, W2))\n"
        "with torch.no_grad():\n"
        "    for lin, W, b in ((lin1, W1, b1), (lin2, W2, b2)):\n"
        "        _ = lin.weight.copy_(torch.as_tensor(W).T), lin.bias.copy_(torch.as_tensor(b))\n"
        "    b_ref = lin2(lin1(torch.zeros(1, np.shape(W1)[0], dtype=torch.float64)))[0]\n"
        "    W_ref = lin2(lin1(torch.eye(np.shape(W1)[0], dtype=torch.float64))) - b_ref\n"
        "assert np.allclose(np.asarray(W_one, dtype=float), W_ref.numpy(), rtol=6e-4, atol=1e-6)",
        "import numpy as np, torch\n"
        "lin1, lin2 = (torch.nn.Linear(*np.shape(W)).double() for W in (W1, W2))\n"
        "with torch.no_grad():\n"
        "    for lin, W, b in ((lin1, W1, b1), (lin2, W2, b2)):\n"
        "        _ = lin.weight.copy_(torch.as_tensor(W).T), lin.bias.copy_(torch.as_tensor(b))\n"
        "    b_ref = lin2(lin1(torch.zeros(1, np.shape(W1)[0], dtype=torch.float64)))[0]\n"
        "assert np.allclose(np.asarray(b_one, dtype=float).ravel(), b_ref.numpy(), rtol=6e-4, "
        "atol=1e-6)",
    ],
    checks="the shape of W_one, and the output's change along one random input step (not "
    "b_one, not every entry)",
)
SPECS["ex-04-2"] = auto(
    "rnn_count lstm_count",
    [
        "sizes = ((10, 20), (11, 20), (10, 21))\n"
        "r, l = ([int(f(d, H)) for d, H in sizes] for f in (rnn_count, lstm_count))\n"
        "assert all(v > 0 for v in r + l) and r[0] == rnn_count(10, 20) and l[0] == "
        "lstm_count(10, 20), 'expected positive whole numbers'\n"
        "assert r[1] > r[0] and r[2] > r[0] and l[1] > l[0] and l[2] > l[0] and l[0] > r[0], "
        "'expected counts that grow with d and with H, larger for the LSTM'"
    ],
    [
        "import torch\n"
        "for d, H in ((10, 20), (3, 7), (1, 1)):\n"
        "    assert rnn_count(d, H) == sum(p.numel() for p in torch.nn.RNN(d, H).parameters())",
        "import torch\n"
        "for d, H in ((10, 20), (3, 7), (1, 1)):\n"
        "    assert lstm_count(d, H) == sum(p.numel() for p in torch.nn.LSTM(d, H).parameters())",
    ],
    checks="that the counts are positive whole numbers, grow with d and H and are larger for "
    "the LSTM (not the formulas)",
)
SPECS["ex-04-3"] = auto(
    "sim",
    [
        "import numpy as np\n"
        "v = np.asarray(E[[idx[w] for w in ('cat', 'dog', 'king', 'queen')]], dtype=float)\n"
        "u = (v / np.linalg.norm(v, axis=1, keepdims=True)).sum(0)\n"
        "assert np.shape(sim) == (4, 4) and abs(np.sum(sim) - u @ u) < 2e-3, 'sim: a 4 x 4 "
        "matrix whose entries add up to |u_1 + ... + u_4|^2, the u_i the unit vectors of the "
        "four words'"
    ],
    [
        "import numpy as np, torch\n"
        "v = torch.as_tensor(E[[idx[w] for w in ('cat', 'dog', 'king', 'queen')]], "
        "dtype=torch.float64)\n"
        "ref = torch.nn.functional.cosine_similarity(v[:, None, :], v[None, :, :], dim=-1)\n"
        "assert np.allclose(np.asarray(sim, dtype=float), ref.numpy(), rtol=0, atol=1e-4)"
    ],
    checks="the shape and the sum of the entries (not each entry)",
    written="1 point: two distinct one-hot vectors have disjoint supports, so their dot "
    "product, hence their cosine, is 0; and the close pairs read off sim (those with "
    "the largest off-diagonal cosines), with a reason. Half a point for one of the "
    "two.",
)
SPECS["ex-06-1"] = auto(
    "my_merges",
    [
        "assert len(my_merges) > 0 and all(len(m) == 2 and all(isinstance(s, str) for s in m) "
        "for m in my_merges), 'my_merges: expected a list of pairs of strings'\n"
        "words = [['a', 'b</w>'], ['a', 'b', 'c</w>'], ['b', 'c</w>']]\n"
        "for left, right in my_merges:\n"
        "    for w in words:\n"
        "        i = 0\n"
        "        while i < len(w) - 1:\n"
        "            w[i:i + 2] = [left + right] if (w[i], w[i + 1]) == (left, right) else "
        "w[i:i + 2]\n"
        "            i += 1\n"
        "assert all(len(w) == 1 for w in words), 'my_merges: after your merges every word "
        "should be a single token'"
    ],
    [
        source_of(bpe_merges_problem)
        + "\nassert bpe_merges_problem({'ab': 4, 'abc': 2, 'bc': 3}, list(my_merges)) == ''"
    ],
    checks="that it is a list of pairs of strings that leaves every word a single token (not "
    "the order nor the counts)",
)
SPECS["ex-06-4"] = auto(
    "k_merges",
    [
        "pieces = lambda k: sum(c * len(BPETokenizer(ours[:k], init).tokenize_word(w)) "
        "for w, c in wc.items())\n"
        "assert 0 < int(k_merges) <= len(ours) and pieces(int(k_merges)) <= 2.5 * "
        "sum(wc.values()), 'k_merges: a number of merges of ours after which a word takes at "
        "most 2.5 tokens on average'"
    ],
    [
        "n_words = sum(wc.values())\n"
        "count = lambda k: sum(len(BPETokenizer(ours[:k], init).tokenize_word(w)) * c "
        "for w, c in wc.items())\n"
        "assert count(int(k_merges)) <= 2.5 * n_words < count(int(k_merges) - 1)"
    ],
    checks="the range and that k_merges merges are enough (not that they are the fewest)",
)
SPECS["ex-07-3"] = auto(
    "R3",
    [
        "import numpy as np\n"
        "R = np.asarray(R3, dtype=float)\n"
        "assert R.shape == (8, 8) and np.allclose(R @ R.T, np.eye(8), rtol=0, atol=2e-3), "
        "'R3: expected an 8 x 8 rotation (orthonormal rows)'"
    ],
    [
        "import numpy as np, torch\n"
        "p = torch.arange(60, dtype=torch.float64)[:, None]\n"
        "w = 10000.0 ** (-torch.arange(0, 8, 2, dtype=torch.float64) / 8)\n"
        "pe = torch.stack([torch.sin(p * w), torch.cos(p * w)], -1).reshape(60, 8).numpy()\n"
        "assert np.allclose(pe[3:], pe[:57] @ np.asarray(R3, dtype=float), rtol=0, atol=5e-4)"
    ],
    checks="the shape and that R3 is orthogonal (any rotation passes it)",
    written="1 point: the addition formulas turn the pair (sin, cos)(omega_k (p + s)) into "
    "the pair at p rotated by the angle omega_k s, a 2 x 2 block that does not depend "
    "on p; R_s is block-diagonal with these blocks. Half a point for the blocks "
    "without the argument that they do not depend on p.",
)
SPECS["ex-08-3"] = auto(
    "self_attention",
    [
        "import numpy as np\n"
        "from formulated import examples as ex\n"
        "X3 = np.random.default_rng(3).standard_normal((3, 4))\n"
        "P3 = np.eye(3)[[2, 1, 0]]\n"
        "assert np.allclose(self_attention(P3 @ X3), P3 @ self_attention(X3), rtol=2e-3, "
        "atol=1e-5), 'self_attention(P X) should be P self_attention(X)'\n"
        "x1 = np.random.default_rng(4).standard_normal(4)\n"
        "assert np.allclose(self_attention(np.tile(x1, (3, 1))), np.tile(x1 @ ex.QKV_W_VALUE, "
        "(3, 1)), rtol=2e-3, atol=1e-5), 'self_attention: three equal tokens attend to equal "
        "values, so every output row should be x1 @ W_V'"
    ],
    [
        "import numpy as np, torch\n"
        "from formulated import examples as ex\n"
        "for X3 in (ex.QKV_INPUTS, np.random.default_rng(7).standard_normal((5, 4))):\n"
        "    q, k, v = (torch.as_tensor(X3 @ W, dtype=torch.float64) for W in "
        "(ex.QKV_W_QUERY, ex.QKV_W_KEY, ex.QKV_W_VALUE))\n"
        "    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v).numpy()\n"
        "    assert np.allclose(np.asarray(self_attention(X3), dtype=float), ref, rtol=6e-4, "
        "atol=1e-6)"
    ],
    checks="permutation equivariance and the output for equal tokens (any attention without "
    "positions passes them, scaled or not)",
    written="1 point: PX gives PQ, PK, PV, the scores P S P^T, the row softmax commutes with "
    "the permutation, and P^T P = I leaves P W V. 1 point: each output depends on the "
    "set of tokens, not their order ('dog bites man', 'man bites dog'), so a position "
    "must be added to each input row. Half a point off per part with a gap.",
    written_points=2,
)
SPECS["ex-08-4"] = auto(
    "scores w2 out2",
    [
        "import numpy as np\n"
        "s, w = np.asarray(scores, dtype=float), np.asarray(w2, dtype=float)\n"
        "assert s.shape == w.shape == np.shape(out2) == (3,), 'scores, w2, out2: expected three "
        "numbers each'\n"
        "assert np.allclose(w, np.exp(s - s.max()) / np.exp(s - s.max()).sum(), rtol=0, "
        "atol=2e-4), 'w2: expected the softmax of your scores'\n"
        "from formulated import examples as ex\n"
        "assert (ex.SLIDE_VALUES.min(0) - 1e-4 <= out2).all() and (out2 <= ex.SLIDE_VALUES.max(0) "
        "+ 1e-4).all(), 'out2: a weighted average of the value rows, so each entry lies between "
        "the smallest and the largest value in its column'"
    ],
    [
        "import numpy as np, torch\n"
        "from formulated import examples as ex\n"
        "q, K = (torch.as_tensor(M, dtype=torch.float64) for M in (ex.SLIDE_QUERIES[1], "
        "ex.SLIDE_KEYS))\n"
        "assert np.allclose(np.asarray(scores, dtype=float), (K @ q).numpy(), rtol=0, atol=1e-4)\n"
        "assert np.allclose(np.asarray(w2, dtype=float), torch.softmax(K @ q, 0).numpy(), rtol=0, "
        "atol=1e-4)",
        "import numpy as np, torch\n"
        "from formulated import examples as ex\n"
        "q, K, V = (torch.as_tensor(M, dtype=torch.float64) for M in (ex.SLIDE_QUERIES[1], "
        "ex.SLIDE_KEYS, ex.SLIDE_VALUES))\n"
        "assert np.allclose(np.asarray(out2, dtype=float), (torch.softmax(K @ q, 0) @ V).numpy(), "
        "rtol=0, atol=1e-4)\n"
        # the prompt: "nothing but math.exp and loops": no array library, no matrix product
        + CALLS_BEHIND
        + "bad = [c for c, m in calls_behind(['scores', 'w2', 'out2'], globals()) if c == '@' or "
        "m.split('.')[0] in ('numpy', 'torch', 'formulated', 'scipy') and c.split('.')[-1] not "
        "in ('array', 'asarray')]\n"
        "assert not bad, f'scores, w2, out2: computed with {bad}; the exercise asks for nothing "
        "but math.exp and loops'",
    ],
    checks="the shapes, that w2 is the softmax of your scores and that out2 lies within the "
    "values' range (not the scores, not out2 itself)",
)
SPECS["ex-09-2"] = auto(
    "Qb Kb Vb mask_b ours_b",
    [
        "import numpy as np\n"
        "m = np.asarray(mask_b)\n"
        "assert m.shape == (2, 5, 5) and m.dtype == bool, 'mask_b: expected a boolean array of "
        "shape (2, 5, 5)'\n"
        "assert m[0].diagonal().all() and m[1].diagonal()[:3].all() and not np.triu(m, 1).any(), "
        "'mask_b: causal (no key after its query), and every real token sees itself'",
        "import numpy as np\n"
        "assert np.shape(ours_b) == np.shape(Vb) and np.shape(Qb)[:2] == (2, 5) and "
        "min(np.std(Qb), np.std(Kb), np.std(Vb)) > 0.1, 'Qb, Kb, Vb: random arrays of shape "
        "(2, 5, D) (constants hide mistakes); ours_b: one output row per query'\n"
        "assert np.allclose(np.asarray(ours_b)[:, 0], np.asarray(Vb)[:, 0], rtol=2e-3, "
        "atol=1e-5), 'ours_b: the first query sees only the first key, so its output is the "
        "first value'",
    ],
    [
        "import numpy as np, torch\n"
        "causal = torch.ones(5, 5, dtype=torch.bool).tril()\n"
        "keys = torch.arange(5)[None, :] < torch.tensor([5, 3])[:, None]\n"
        "assert np.array_equal(np.asarray(mask_b), (causal[None] & keys[:, None, :]).numpy())",
        "import numpy as np, torch\n"
        "causal = torch.ones(5, 5, dtype=torch.bool).tril()\n"
        "keys = torch.arange(5)[None, :] < torch.tensor([5, 3])[:, None]\n"
        "ref = torch.nn.functional.scaled_dot_product_attention(*(torch.as_tensor(np.asarray(M, "
        "dtype=float)) for M in (Qb, Kb, Vb)), attn_mask=causal[None] & keys[:, None, :])\n"
        "assert min(np.std(Qb), np.std(Kb), np.std(Vb)) > 0.1 and np.allclose(np.asarray(ours_b, "
        "dtype=float), ref.numpy(), rtol=6e-4, atol=1e-6)",
    ],
    checks="the shapes, that the mask is causal with the real tokens' diagonal, and the first "
    "output row (not the padding, not the other rows)",
)
SPECS["ex-09-3"] = auto(
    "product_w renormalized",
    [
        "import numpy as np\n"
        "p, r = np.asarray(product_w, dtype=float), np.asarray(renormalized, dtype=float)\n"
        "assert p.shape == r.shape == (4, 4), 'expected two 4 x 4 matrices of weights'\n"
        "assert not np.triu(p, 1).any() and np.allclose(r.sum(1), 1, rtol=0, atol=6e-4) and "
        "np.allclose(r, p / p.sum(1, keepdims=True), rtol=2e-3, atol=1e-5), 'product_w: zero "
        "above the diagonal; renormalized: product_w with each row divided by its sum'"
    ],
    [
        "import numpy as np, torch\n"
        "from formulated import examples as ex\n"
        "S = torch.as_tensor(ex.MASK_SCALED_SCORES, dtype=torch.float64)\n"
        "ref = torch.softmax(S, -1) * torch.ones(4, 4, dtype=torch.float64).tril()\n"
        "assert np.allclose(np.asarray(product_w, dtype=float), ref.numpy(), rtol=6e-4, atol=1e-6)",
        "import numpy as np, torch\n"
        "from formulated import examples as ex\n"
        "S = torch.as_tensor(ex.MASK_SCALED_SCORES, dtype=torch.float64)\n"
        "keep = torch.ones(4, 4, dtype=torch.bool).tril()\n"
        "ref = torch.softmax(S.masked_fill(~keep, float('-inf')), -1)\n"
        "assert np.allclose(np.asarray(renormalized, dtype=float), ref.numpy(), rtol=6e-4, "
        "atol=1e-6)",
    ],
    checks="the shapes, the zeros above the diagonal and that renormalized is product_w "
    "divided by its row sums (not the weights themselves)",
    written="1 point: (a) after the product a row no longer sums to 1 (the weight of the "
    "masked keys is lost), so it is not a distribution. 1 point: (b) the row is e^{s_j} "
    "M_ij / Z; dividing by its sum, the softmax's Z cancels and what is left is the "
    "softmax over the allowed keys, the additive mask's weights. Half a point for (b) "
    "checked numerically only.",
    written_points=2,
)
SPECS["ex-09-4"] = auto(
    "causal_pairs wasted_fraction band_pairs",
    [
        "assert all(int(v) == v > 0 for v in (causal_pairs, band_pairs)), "
        "'causal_pairs and band_pairs: expected positive whole numbers'\n"
        "assert 0 < wasted_fraction < 1, 'wasted_fraction: expected a fraction between 0 and 1'",
        "assert abs(float(wasted_fraction) - (1 - causal_pairs / 1024 ** 2)) <= 6e-4 * "
        "float(wasted_fraction), 'wasted_fraction: expected 1 - causal_pairs / n^2'\n"
        "assert 2048 <= band_pairs <= 2048 * 2049 // 2, 'band_pairs: at least the 2048 diagonal "
        "pairs, at most all causal pairs'",
    ],
    [
        "import torch\nassert causal_pairs == int(torch.ones(1024, 1024).tril().sum())",
        "import torch\n"
        "ref = 1 - torch.ones(1024, 1024, dtype=torch.float64).tril().mean().item()\n"
        "assert abs(float(wasted_fraction) - ref) < 6e-5",
        "import torch\n"
        "assert band_pairs == int(torch.ones(2048, 2048).tril().triu(-255).sum())",
    ],
    checks="whole numbers, a fraction that agrees with causal_pairs, and the bounds of "
    "band_pairs (not the counts)",
)
