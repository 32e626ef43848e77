"""The autograded exercises' specs, chapters 10-18 (see :mod:`booktools.exercises`).

Tolerances accept exactly the precision each prompt states, computed in float32: "to N
significant digits" is a relative tolerance of 6e-4 for N = 4 (rounding leaves at most 5e-4,
float32 adds about 1e-7), "to N decimal places" an absolute one of 0.5 * 10**-N plus a margin;
a property checked between two separately rounded values allows twice that.  Public tests check
a property that a placeholder (``...``, zeros, ones, a guess) fails and that does not give the
graded value away; hidden tests compare with an independent reference.
"""

from __future__ import annotations

from booktools.exercise_spec import Spec, auto, calls_behind, source_of

SPECS: dict[str, Spec] = {}

# A test that reads the student's cells (calls_behind) to catch a forbidden shortcut
CALLS_BEHIND = source_of(calls_behind) + "\n"

# The shortcut: a head_sum that calls the library's multi-head attention adds no head itself.
# The hidden test replaces every multi-head function of the package and of PyTorch (in their
# modules and in the notebook's names) by one that fails, then calls head_sum and compares its
# result with the sum of the heads.
NO_SHORTCUT = (
    "import sys, types, numpy as np\n"
    "def _refuse(*args, **kwargs):\n"
    "    raise AssertionError('head_sum should add the heads itself, not call a library '\n"
    "                         'multi-head attention')\n"
    "_names = ('multi_head_self_attention', 'multi_head_self_attention_batched',\n"
    "          'multi_head_attention_forward')\n"
    "_found = [(m, k) for n, m in list(sys.modules.items()) if m is not None\n"
    "          and n.split('.')[0] in ('formulated', 'torch') for k in list(vars(m))\n"
    "          if isinstance(vars(m)[k], types.FunctionType) and vars(m)[k].__name__ in _names]\n"
    "_mine = [k for k, v in globals().items() if isinstance(v, types.FunctionType)\n"
    "         and v.__name__ in _names]\n"
    "_saved = [(m, k, getattr(m, k)) for m, k in _found] + [(None, k, globals()[k]) for k in _mine]\n"
    "_mha = sys.modules['torch.nn'].MultiheadAttention if 'torch.nn' in sys.modules else None\n"
    "_saved += [(_mha, 'forward', _mha.forward)] if _mha is not None else []\n"
    "g = np.random.default_rng(11)\n"
    "Xh, Wh, Wo = g.standard_normal((4, 6)), g.standard_normal((3, 2, 6, 3)), "
    "g.standard_normal((6, 6))\n"
    "try:\n"
    "    for m, k, _ in _saved:\n"
    "        _ = setattr(m, k, _refuse) if m is not None else globals().__setitem__(k, _refuse)\n"
    "    out = head_sum(Xh, np.triu(np.full((4, 4), -np.inf), 1), *Wh, Wo)\n"
    "finally:\n"
    "    for m, k, f in _saved:\n"
    "        _ = setattr(m, k, f) if m is not None else globals().__setitem__(k, f)\n"
    "import torch\n"
    "t = lambda M: torch.as_tensor(np.asarray(M, dtype=float))\n"
    "ref = sum(torch.nn.functional.scaled_dot_product_attention(t(Xh @ Wh[0][i]), "
    "t(Xh @ Wh[1][i]), t(Xh @ Wh[2][i]), is_causal=True) @ t(Wo[3 * i:3 * (i + 1)]) "
    "for i in range(2))\n"
    "assert np.allclose(np.asarray(out, dtype=float), ref.numpy(), rtol=6e-4, atol=1e-6)"
)
SPECS["ex-10-2"] = auto(
    "head_sum",
    [
        "import numpy as np\n"
        "g = np.random.default_rng(9)\n"
        "Xh, Wh, Wo = g.standard_normal((4, 6)), g.standard_normal((3, 2, 6, 3)), "
        "g.standard_normal((6, 6))\n"
        "own = np.where(np.eye(4, dtype=bool), 0.0, -np.inf)\n"
        "out = head_sum(Xh, own, *Wh, Wo)\n"
        "alone = sum(Xh @ Wh[2][i] @ Wo[3 * i:3 * (i + 1)] for i in range(2))\n"
        "assert np.shape(out) == (4, 6), 'head_sum: expected an n x H result'\n"
        "assert np.allclose(out, alone, rtol=2e-3, atol=1e-5), 'head_sum: when each token sees "
        "only itself, head i passes on X W_i^V, so the result should be the sum of X W_i^V "
        "W^O_[i]'"
    ],
    [
        "import numpy as np, torch\n"
        "g = np.random.default_rng(10)\n"
        "n, H, A = 5, 8, 2\n"
        "Xh = g.standard_normal((n, H))\n"
        "Wq, Wk, Wv = (g.standard_normal((A, H, H // A)) for _ in range(3))\n"
        "Wo = g.standard_normal((H, H))\n"
        "mha = torch.nn.MultiheadAttention(H, A, bias=False, batch_first=True).double()\n"
        "side = lambda W: torch.as_tensor(np.concatenate(list(W), 1)).T\n"
        "with torch.no_grad():\n"
        "    _ = mha.in_proj_weight.copy_(torch.cat([side(Wq), side(Wk), side(Wv)]))\n"
        "    _ = mha.out_proj.weight.copy_(torch.as_tensor(Wo).T)\n"
        "    causal = torch.ones(n, n, dtype=torch.bool).triu(1)\n"
        "    x = torch.as_tensor(Xh)[None]\n"
        "    ref = mha(x, x, x, attn_mask=causal, need_weights=False)[0][0].numpy()\n"
        "ours = head_sum(Xh, fg.mask_autoregressive(n), Wq, Wk, Wv, Wo)\n"
        "assert np.allclose(np.asarray(ours, dtype=float), ref, rtol=6e-4, atol=1e-6)",
        NO_SHORTCUT,
    ],
    checks="the shape, and the result when each token sees only itself (not the attention "
    "weights)",
    written="1 point: the concatenation [head_1 ... head_A] times W^O written as a block "
    "product: the column block i of the concatenation meets the row block W^O_[i], "
    "so the product is the sum of head_i W^O_[i]. Half a point for the identity "
    "stated without the block argument.",
)
SPECS["ex-11-2"] = auto(
    "x_min gelu_min",
    [
        "import torch\n"
        "assert -3 < float(x_min) < 0 and abs(float(gelu_min) - torch.nn.functional.gelu("
        "torch.tensor(float(x_min), dtype=torch.float64)).item()) < 1e-6, 'gelu_min: expected "
        "GELU(x_min), the exact GELU'"
    ],
    [
        "import math, torch\n"
        "t = torch.tensor(float(x_min), dtype=torch.float64)\n"
        "slope = torch.special.ndtr(t) + t * torch.exp(-t * t / 2) / math.sqrt(2 * math.pi)\n"
        "assert abs(slope.item()) < 1e-5",
        "import torch\n"
        "grid = torch.linspace(-3, 0, 300001, dtype=torch.float64)\n"
        "assert abs(float(gelu_min) - torch.nn.functional.gelu(grid).min().item()) < 1e-6",
    ],
    checks="the range of x_min and that gelu_min is the exact GELU at x_min (not that x_min is "
    "the minimizer)",
    written="1 point: the minimum, about -0.169971 at x = -0.751792, compared with source "
    "002: the bound -0.17 holds and is tight to two decimals. Half a point for the "
    "numbers without the comparison.",
)
SPECS["ex-11-3"] = auto(
    "a1 a2",
    [
        "assert 1.6 <= float(a1) <= 1.9 and 1.6 <= float(a2) <= 1.9, "
        "'a1, a2: expected constants from the search interval [1.6, 1.9]'"
    ],
    [
        "import torch\n"
        "xs = torch.linspace(-8, 8, 16001, dtype=torch.float64)\n"
        "al = torch.linspace(1.6, 1.9, 3001, dtype=torch.float64)[:, None]\n"
        "err = lambda a: (xs * torch.sigmoid(a * xs) - torch.nn.functional.gelu(xs)).abs()"
        ".amax(-1)\n"
        "assert err(torch.tensor(float(a1), dtype=torch.float64)).item() <= err(al).min().item()"
        " + 2e-4",
        "import torch\n"
        "xs = torch.linspace(-8, 8, 16001, dtype=torch.float64)\n"
        "al = torch.linspace(1.6, 1.9, 3001, dtype=torch.float64)[:, None]\n"
        "err = lambda a: (torch.sigmoid(a * xs) - torch.special.ndtr(xs)).abs().amax(-1)\n"
        "assert err(torch.tensor(float(a2), dtype=torch.float64)).item() <= err(al).min().item()"
        " + 2e-4",
    ],
    checks="that both lie in the search interval only",
    written="1 point: 1.702 is not the best constant for x sigma(a x) against GELU (about "
    "1.773) but is the best for sigma(a x) against Phi (about 1.702): the constant "
    "comes from fitting the CDF Phi, and GELU inherits it. Half a point for the two "
    "searches without the conclusion.",
)
SPECS["ex-11-4"] = auto(
    "Xb ffn_params direct flat",
    [
        "import numpy as np\n"
        "W1, b1, W2, b2 = (np.asarray(p, dtype=float) for p in ffn_params)\n"
        "B, n, H = np.shape(Xb)\n"
        "assert B > 1 and np.shape(W1) == (H, len(b1)) and np.shape(W2) == (len(b1), H) and "
        "np.shape(b2) == (H,), 'Xb, ffn_params: a batch with B > 1, W1 (H, F), b1 (F,), W2 (F, H), "
        "b2 (H,)'\n"
        "assert min(np.std(Xb), np.std(W1), np.std(W2)) > 0.1, 'Xb, ffn_params: random values "
        "(zeros or constants hide mistakes)'",
        "import numpy as np\n"
        "assert np.shape(direct) == np.shape(flat) == np.shape(Xb), 'direct, flat: expected "
        "arrays shaped like Xb'\n"
        "assert np.std(direct) > 0 and np.allclose(direct, flat, rtol=2e-3, atol=1e-5), 'direct "
        "and flat should agree (and not be constant)'",
    ],
    [
        "import numpy as np, torch\n"
        "W1, b1, W2, b2 = (torch.as_tensor(np.asarray(p, dtype=float)) for p in ffn_params)\n"
        "X = torch.as_tensor(np.asarray(Xb, dtype=float))\n"
        "ref = torch.nn.functional.gelu(X @ W1 + b1) @ W2 + b2\n"
        "assert np.shape(Xb)[0] > 1 and min(X.std().item(), W1.std().item()) > 0.1 and "
        "np.allclose(np.asarray(direct, dtype=float), ref.numpy(), rtol=6e-4, atol=1e-6)"
    ],
    checks="the shapes, that the inputs are random and that direct and flat agree (not that "
    "they are the FFN)",
    written="1 point: the FFN acts on each row by itself (a row times W1 and W2, the bias "
    "added to every row, GELU entry by entry), so stacking the B n rows into one "
    "matrix and back changes no row. Half a point for 'broadcasting' without the "
    "row-wise argument.",
)
SPECS["ex-12-2"] = auto(
    "x_row a_limit",
    [
        "import numpy as np, torch\n"
        "xt = torch.as_tensor(np.asarray(x_row, dtype=float))\n"
        "assert xt.shape[0] == 1 and 0.5 < xt.std().item() < 2, 'x_row: a row of shape (1, H) "
        "with a standard deviation about 1'\n"
        "assert a_limit in (1.0, 0.1, 0.03, 0.01, 0.003), "
        "'a_limit: expected one of 1, 0.1, 0.03, 0.01, 0.003'\n"
        "norm = lambda t: torch.nn.functional.layer_norm(t, (t.shape[-1],), eps=1e-5)\n"
        "assert (norm(a_limit * xt) - norm(xt)).abs().max().item() > 1e-3, 'a_limit: the change "
        "at a_limit should exceed 1e-3'"
    ],
    [
        "import numpy as np, torch\n"
        "xt = torch.as_tensor(np.asarray(x_row, dtype=float)).reshape(-1, np.shape(x_row)[-1])\n"
        "ln = lambda t: torch.nn.functional.layer_norm(t, (t.shape[-1],), eps=1e-5)\n"
        "change = lambda a: (ln(a * xt) - ln(xt)).abs().max().item()\n"
        "larger = [a for a in (1.0, 0.1, 0.03, 0.01, 0.003) if a > a_limit]\n"
        "assert change(a_limit) > 1e-3 and all(change(a) <= 1e-3 for a in larger)"
    ],
    checks="x_row's shape and spread, and that the change at a_limit exceeds 1e-3 (not that "
    "a_limit is the largest such value)",
)
SPECS["ex-12-3"] = auto(
    "ratio_4 ratio_768",
    # the prompt: "write LayerNorm with the default x.std and compare it with F.layer_norm"
    [
        CALLS_BEHIND
        + "used = [c.split('.')[-1] for c, m in calls_behind(['ratio_4', 'ratio_768'], globals())]\n"
        "assert 0 < ratio_4 < 2 and 0 < ratio_768 < 2, "
        "'ratio_4, ratio_768: expected the ratio (your LayerNorm) / F.layer_norm'\n"
        "assert 'In' not in globals() or 'std' in used and 'layer_norm' in used, 'ratio_4, "
        "ratio_768: expected your LayerNorm, written with x.std, divided by F.layer_norm'"
    ],
    [
        "import torch\n"
        "x = torch.randn(64, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(1))\n"
        "expected = (x.std(-1, correction=0) / x.std(-1)).mean().item()\n"
        "assert abs(float(ratio_4) - expected) < 1e-4",
        "import torch\n"
        "x = torch.randn(64, 768, dtype=torch.float64, generator=torch.Generator().manual_seed(1))\n"
        "expected = (x.std(-1, correction=0) / x.std(-1)).mean().item()\n"
        "assert abs(float(ratio_768) - expected) < 1e-4",
    ],
    checks="that both ratios lie between 0 and 2 and come from x.std and F.layer_norm (not "
    "their values)",
    written="1 point: the prediction, made before the run: x.std divides by H - 1, so your "
    "output is sqrt((H - 1)/H) times F.layer_norm's, 0.8660 for H = 4 and 0.9993 for "
    "H = 768. Half a point for 'smaller than 1' without the factor.",
)
SPECS["ex-13-4"] = auto(
    "ids",
    [
        "import numpy as np\n"
        "assert list(ids[:5]) == tok.encode('the c') and len(ids) == 10, "
        "'ids: expected the 5 ids of \"the c\" followed by 5 new ones'\n"
        "assert ids[5] == int(np.argmax(gpt_probabilities(np.array(tok.encode('the c')), "
        "params)[-1])), 'ids: the first new id should be the most probable one after the prompt'"
    ],
    [
        "import numpy as np\n"
        "for k in range(5, 10):\n"
        "    assert ids[k] == int(np.argmax(gpt_probabilities(np.array(ids[:k]), params)[-1]))"
    ],
    checks="the prompt's ids, the length and the first new id only",
)
SPECS["ex-14-2"] = auto(
    "earliest",
    [
        "assert len(earliest) == 3 and all(0 <= int(e) < 20 for e in earliest), "
        "'earliest: expected three positions between 0 and 19'\n"
        "assert earliest[0] > earliest[1] > earliest[2], 'earliest: every layer should reach "
        "further back'"
    ],
    [
        "import torch\n"
        "step = torch.ones(20, 20).tril().triu(-2)  # key j visible from query i: i - 3 < j <= i\n"
        "reach = torch.eye(20)\n"
        "for L, e in zip((1, 2, 3), earliest):\n"
        "    reach = ((step @ reach) > 0).float()\n"
        "    assert int(e) == int(torch.nonzero(reach[19])[0])"
    ],
    checks="the length, the range and that the reach grows with L only",
    written="1 point: after L layers row i can be influenced by the inputs i - L(w - 1), ..., "
    "i: each banded layer adds w - 1 positions back. 1 point: GPT-3 alternates with "
    "dense (causal) layers, and one dense layer already lets row i see every earlier "
    "position, so the whole prefix reaches it. Half a point off per part with a slip.",
    written_points=2,
)
SPECS["ex-15-4"] = auto(
    "bert_count",
    [
        "assert 100_000_000 < bert_count < 120_000_000, "
        "'bert_count: BERT-base has a bit over a hundred million parameters'\n"
        "assert bert_count % 768 == 30522 % 768, 'bert_count: every tensor but the output bias "
        "(V numbers) has a side H = 768 or F = 4H, so the count minus V is a multiple of H'"
    ],
    [
        "import torch, transformers\n"
        "with torch.device('meta'):\n"
        "    model = transformers.BertForMaskedLM(transformers.BertConfig())\n"
        "assert bert_count == sum(p.numel() for p in model.parameters())"
    ],
    checks="the order of magnitude and the count modulo H only",
)
SPECS["ex-16-3"] = auto(
    "L_needed",
    [
        "assert int(L_needed) == L_needed > 12, 'L_needed: expected a whole number of layers'\n"
        "assert 0.5e9 < 12 * L_needed * 768 ** 2 < 2e9, 'L_needed: the 12 L H^2 weights of the "
        "layers alone should be of the order of a billion'"
    ],
    [
        "import torch, transformers\n"
        "def count(L):\n"
        "    with torch.device('meta'):\n"
        "        m = transformers.GPT2Model(transformers.GPT2Config(n_layer=L))\n"
        "    return sum(p.numel() for p in m.parameters())\n"
        "assert count(int(L_needed)) > 1e9 >= count(int(L_needed) - 1)"
    ],
    checks="that it is a whole number and the order of magnitude of 12 L H^2 only",
)
SPECS["ex-16-4"] = auto(
    "untied share",
    [
        "assert 0 < share < 1 and untied > 124_000_000, "
        "'share: expected a fraction; untied: more than the tied model'\n"
        "assert untied % 768 == 0, 'untied: every tensor of GPT-2 small has a side H = 768, so "
        "the count is a multiple of H'"
    ],
    [
        "import torch, transformers\n"
        "with torch.device('meta'):\n"
        "    m = transformers.GPT2LMHeadModel(transformers.GPT2Config(tie_word_embeddings=False))\n"
        "assert untied == sum(p.numel() for p in m.parameters())",
        "import torch, transformers\n"
        "with torch.device('meta'):\n"
        "    m = transformers.GPT2LMHeadModel(transformers.GPT2Config(tie_word_embeddings=False))\n"
        "n = sum(p.numel() for p in m.parameters())\n"
        "assert abs(float(share) - m.lm_head.weight.numel() / n) < 6e-4",
    ],
    checks="the ranges and that the count is a multiple of H only",
)
SPECS["ex-17-2"] = auto(
    "uniform_loss uniform_perplexity",
    [
        "import math\n"
        "assert 0 < uniform_loss(3) < uniform_loss(7), 'uniform_loss: positive, and larger for "
        "a larger vocabulary'\n"
        "for V in (3, 7):\n"
        "    assert abs(uniform_perplexity(V) - math.exp(uniform_loss(V))) <= 2e-3 * "
        "uniform_perplexity(V), 'uniform_perplexity: expected exp(uniform_loss)'"
    ],
    [
        "import torch\n"
        "for V in (3, 7, 50257):\n"
        "    ref = torch.nn.functional.cross_entropy(torch.zeros(5, V, dtype=torch.float64), "
        "torch.arange(5) % V).item()\n"
        "    assert abs(float(uniform_loss(V)) - ref) < 6e-4 * ref",
        "import torch\n"
        "for V in (3, 7, 50257):\n"
        "    ref = torch.nn.functional.cross_entropy(torch.zeros(5, V, dtype=torch.float64), "
        "torch.arange(5) % V).exp().item()\n"
        "    assert abs(float(uniform_perplexity(V)) - ref) < 6e-4 * ref",
    ],
    checks="that the loss grows with V and the perplexity is its exponential (not the loss "
    "itself)",
)
SPECS["ex-18-3"] = auto(
    "by_hand",
    [
        "assert int(by_hand) == by_hand > 0, 'by_hand: expected a whole number'\n"
        "assert by_hand % 128 == 0, 'by_hand: every tensor of this model has a side H = 128, so "
        "the count is a multiple of H'"
    ],
    [
        "import torch, transformers\n"
        "cfg = transformers.GPT2Config(vocab_size=65, n_positions=128, n_embd=128, n_layer=4, "
        "n_head=4)\n"
        "with torch.device('meta'):\n"
        "    m = transformers.GPT2LMHeadModel(cfg)\n"
        "assert by_hand == sum(p.numel() for p in m.parameters())\n"
        # the prompt: "count by hand" (and check with count_parameters, which the count must
        # not come from)
        + CALLS_BEHIND
        + "bad = [c for c, m in calls_behind(['by_hand'], globals()) if m.split('.')[0] in "
        "('formulated', 'torch', 'transformers') or c.split('.')[-1] in ('count_parameters', "
        "'numel', 'parameters', 'num_parameters')]\n"
        "assert not bad, f'by_hand: computed with {bad}; the exercise asks for a count by hand'"
    ],
    checks="that it is a positive whole number and a multiple of H only",
)
