"""How every exercise of the book is graded: its kind, the names it defines, its tests.

One entry of :data:`SPECS` per ``{exercise}`` label in the chapters (``tests/test_teaching.py``
checks both directions).  :mod:`booktools.teaching` turns them into otter-grader questions:

* ``auto``: the exercise text names every variable in :attr:`Spec.names` (in backticks); the
  chapter's solution code defines them.  :attr:`Spec.public` tests run when a student calls
  ``grader.check``; they check form and consistency and never reveal the answer.
  :attr:`Spec.hidden` tests run only in the autograder; they compare with an independent
  reference (PyTorch, ``transformers``, a count done another way), accept every correct answer
  (tolerances, any seed, any valid tie-break) and reject the common wrong ones.
* ``written``: a Markdown answer graded by hand; the chapter's solution is the reference answer
  and :attr:`Spec.rubric` says how to award the points.
* ``open``: an answer cell, not graded.

A test is a few ``assert`` statements run in the student's notebook (its names are those of the
chapter and of the answer); it prints nothing (otter compares printed output).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

__all__ = ["Spec", "SPECS", "auto", "written", "open_ended", "bpe_merges_problem",
           "public_message", "NO_SHORTCUT"]


@dataclass(frozen=True)
class Spec:
    """Grading of one exercise (see the module docstring)."""

    kind: str
    points: int = 2
    names: tuple[str, ...] = ()
    public: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()
    rubric: str = ""
    #: What a passing ``grader.check`` has verified, shown to the student (otter's success
    #: message): the public tests check form, never the graded value.
    checks: str = "shape and form only"

    def __post_init__(self):
        if self.kind not in ("auto", "written", "open"):
            raise ValueError(f"kind: expected 'auto', 'written' or 'open', got {self.kind!r}")
        if self.kind == "auto" and not (self.names and self.public and self.hidden):
            raise ValueError("an 'auto' exercise needs names, public tests and hidden tests")
        for test in self.public + self.hidden:
            # otter runs a test as a doctest that expects no output: a bare expression would
            # print its value and fail the test whatever the answer
            shown = _printed(ast.parse(test))
            if shown:
                raise ValueError(f"test: expected statements that print nothing, got the "
                                 f"expression {ast.unparse(shown[0])!r} in {test!r}")


def _printed(node: ast.AST) -> list[ast.Expr]:
    """The expression statements that an interactive run (a doctest) would print: those
    outside function bodies, where a bare value is only returned."""
    if isinstance(node, ast.Expr):
        return [node]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return []
    return [e for child in ast.iter_child_nodes(node) for e in _printed(child)]


def auto(names: str, public: list[str], hidden: list[str], points: int = 2,
         checks: str = "shape and form only") -> Spec:
    """An autograded exercise defining the space-separated ``names``; ``checks`` says what its
    public tests verify (shown to the student when they pass)."""
    return Spec("auto", points, tuple(names.split()), tuple(public), tuple(hidden),
                checks=checks)


def public_message(spec: Spec) -> str:
    """What ``grader.check`` says when the public tests pass: what they checked, and that the
    graded tests are hidden (a pass is not a grade)."""
    return f"Checked: {spec.checks}. The graded tests are hidden."


def written(rubric: str = "Full marks for a complete, correct argument; half for the right idea "
                          "with a gap or a slip.", points: int = 2) -> Spec:
    """A written answer graded by hand."""
    return Spec("written", points, rubric=rubric)


def open_ended() -> Spec:
    """An exercise for exploration: an answer cell, no grade."""
    return Spec("open", 0)


def bpe_merges_problem(word_counts: dict[str, int], merges: list[tuple[str, str]],
                       end_of_word: str = "</w>") -> str:
    """Why ``merges`` is not a valid BPE run on ``word_counts``, or ``""`` if it is.

    Valid: every merge is, at its step, a most frequent adjacent pair (any tie-break is
    accepted), and after the last one every word is a single token.  Counted here from scratch,
    independently of :func:`formulated.tokenizers.learn_bpe`.
    """
    words = {tuple(w[:-1]) + (w[-1] + end_of_word,): c for w, c in word_counts.items()}
    for step, pair in enumerate(merges, 1):
        counts = {}  # (a, b) -> count; no annotation: otter assign cannot parse one in a test
        for symbols, c in words.items():
            for a, b in zip(symbols, symbols[1:]):
                counts[(a, b)] = counts.get((a, b), 0) + c
        pair = tuple(pair)
        if not counts or counts.get(pair, 0) < max(counts.values()):
            return (f"merge {step} {pair}: occurs {counts.get(pair, 0)} times, but the most "
                    f"frequent pair occurs {max(counts.values(), default=0)} times")
        merged = {}
        for symbols, c in words.items():
            out, i = [], 0
            while i < len(symbols):
                if tuple(symbols[i:i + 2]) == pair:
                    out.append(pair[0] + pair[1])
                    i += 2
                else:
                    out.append(symbols[i])
                    i += 1
            merged[tuple(out)] = c
        words = merged
    left = [" ".join(w) for w in words if len(w) > 1]
    return f"after the merges, words still in pieces: {left}" if left else ""


def _source_without_docstring(func) -> str:
    """``func``'s source without its docstring (an otter test must print nothing, and a bare
    string is an expression) nor comments, to be pasted into a test."""
    import inspect

    tree = ast.parse(inspect.getsource(func))
    body = tree.body[0].body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        tree.body[0].body = body[1:]
    return ast.unparse(tree)


SPECS: dict[str, Spec] = {}

# --------------------------------------------------------------------------- chapter 9: masks
SPECS["ex-09-1"] = written()
# --------------------------------------------------------------------------- chapter 11: FFN
SPECS["ex-11-1"] = written()
SPECS["ex-11-5"] = written()

# --------------------------------------------------------------------------- chapter 12: LayerNorm
SPECS["ex-12-1"] = written()
SPECS["ex-12-4"] = written()
SPECS["ex-12-5"] = written()

# --------------------------------------------------------------------------- chapters 1-4
SPECS["ex-01-1"] = written("One point per two correct kinds (supervised, unsupervised, "
                           "reinforcement, self-supervised), each with its reason.")
SPECS["ex-01-2"] = written()
SPECS["ex-01-3"] = open_ended()
SPECS["ex-02-1"] = written()
SPECS["ex-02-2"] = written()
SPECS["ex-02-4"] = written()
SPECS["ex-03-1"] = written()
SPECS["ex-03-2"] = written("Full marks for the identity and the derivative derived, with a "
                           "numerical check on a grid; half without the check.")
SPECS["ex-03-5"] = open_ended()
SPECS["ex-04-1"] = written()
SPECS["ex-04-4"] = written()

# --------------------------------------------------------------------------- chapters 5-8, 10
SPECS["ex-05-1"] = written()
SPECS["ex-05-2"] = written("Full marks for both sizes in MiB and the n^2 against n growth.")
SPECS["ex-05-3"] = written("Full marks for 'vector-wise', the prediction (the V entries of one "
                           "row) and the check.")
SPECS["ex-05-4"] = written()
SPECS["ex-06-2"] = open_ended()
SPECS["ex-06-3"] = written()
SPECS["ex-07-1"] = written()
SPECS["ex-07-2"] = written()
SPECS["ex-07-4"] = written("Full marks for rows 2, 5, 7, the gradient of row 2 (all 2) and the "
                           "explanation through O^T.")
SPECS["ex-08-1"] = written()
SPECS["ex-08-2"] = written()
SPECS["ex-10-1"] = written()
SPECS["ex-10-3"] = written("Full marks for the comparison showing a difference and the "
                           "positions (not columns) that end up in 'head 1'.")
SPECS["ex-10-4"] = written()

# --------------------------------------------------------------------------- chapters 13-18
SPECS["ex-13-1"] = written("One point per two correct shapes out of seven.")
SPECS["ex-13-2"] = written("Full marks for the check over every prefix and the count of passes "
                           "saved.")
SPECS["ex-13-3"] = written()
SPECS["ex-14-1"] = written()
SPECS["ex-14-3"] = written()
SPECS["ex-14-4"] = open_ended()
SPECS["ex-15-1"] = written()
SPECS["ex-15-2"] = written()
SPECS["ex-15-3"] = written()
SPECS["ex-16-1"] = written()
SPECS["ex-16-2"] = written()
SPECS["ex-17-1"] = written()
SPECS["ex-17-3"] = written()
SPECS["ex-17-4"] = open_ended()
SPECS["ex-18-1"] = written()
SPECS["ex-18-2"] = written("Full marks for the four distributions and both limits.")
SPECS["ex-18-4"] = written()
SPECS["ex-19-1"] = written("Full marks for both counts and the bytes.")
SPECS["ex-19-2"] = written()
SPECS["ex-19-3"] = written()

# --------------------------------------------------------------------------- autograded exercises
# Tolerances follow the precision each prompt asks for (a number rounded as asked passes) and
# float32 (PyTorch's default: relative error about 1e-7, well inside every tolerance); hidden
# tests compute their reference in float64 from the student's own inputs where there are any.
SPECS["ex-01-4"] = auto(
    "theta0 theta1",
    ["import numpy as np\n"
     "assert np.ndim(theta0) == 0 and np.ndim(theta1) == 0, 'theta0, theta1: expected numbers'"],
    ["import numpy as np, torch\n"
     "A = torch.cat([torch.ones(len(y), 1), torch.as_tensor(X[:, :1])], 1).double()\n"
     "ref = torch.linalg.lstsq(A, torch.as_tensor(y, dtype=torch.float64)[:, None]).solution\n"
     "assert np.allclose(float(theta0), ref[0, 0].item(), rtol=6e-4, atol=1e-6)",
     "import numpy as np, torch\n"
     "A = torch.cat([torch.ones(len(y), 1), torch.as_tensor(X[:, :1])], 1).double()\n"
     "ref = torch.linalg.lstsq(A, torch.as_tensor(y, dtype=torch.float64)[:, None]).solution\n"
     "assert np.allclose(float(theta1), ref[1, 0].item(), rtol=6e-4, atol=1e-6)"],
    checks="that both are numbers only")
SPECS["ex-02-3"] = auto(
    "P Q kl_pq kl_qp",
    ["import numpy as np\n"
     "assert np.shape(P) == np.shape(Q) == (10000, 5) and np.shape(kl_pq) == np.shape(kl_qp) == "
     "(10000,), 'expected P, Q of shape (10000, 5) and one divergence per row'"],
    ["import numpy as np, torch\n"
     "p, q = (torch.as_tensor(np.asarray(M, dtype=float)) for M in (P, Q))\n"
     "ref = torch.nn.functional.kl_div(q.log(), p, reduction='none').sum(-1)\n"
     "assert np.allclose(np.asarray(kl_pq, dtype=float), ref.numpy(), rtol=6e-4, atol=1e-6)",
     "import numpy as np, torch\n"
     "p, q = (torch.as_tensor(np.asarray(M, dtype=float)) for M in (P, Q))\n"
     "ref = torch.nn.functional.kl_div(p.log(), q, reduction='none').sum(-1)\n"
     "assert np.allclose(np.asarray(kl_qp, dtype=float), ref.numpy(), rtol=6e-4, atol=1e-6)"],
    checks="shapes only")
SPECS["ex-03-3"] = auto(
    "numeric",
    ["import numpy as np\n"
     "assert np.shape(numeric) == np.shape(W1), 'numeric: expected an array shaped like W1'"],
    ["import numpy as np, torch\n"
     "t = lambda a: torch.as_tensor(np.asarray(a, dtype=float))\n"
     "w1 = t(W1).requires_grad_()\n"
     "out = torch.tanh(t(X) @ w1 + t(b1)) @ t(W2) + t(b2)\n"
     "_ = (0.5 * ((out - t(Y)) ** 2).sum()).backward()\n"
     "assert np.allclose(np.asarray(numeric, dtype=float), w1.grad.numpy(), rtol=6e-4, "
     "atol=1e-7)"],
    checks="the shape only")
SPECS["ex-03-4"] = auto(
    "W_one b_one",
    ["import numpy as np\n"
     "assert np.shape(W_one) == (np.shape(W1)[0], np.shape(W2)[1]), "
     "'W_one: expected one matrix from the input width to the output width'"],
    ["import numpy as np, torch\n"
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
     "atol=1e-6)"],
    checks="the shape of W_one only")
SPECS["ex-04-2"] = auto(
    "rnn_count lstm_count",
    ["assert rnn_count(10, 20) > 0 and lstm_count(10, 20) > rnn_count(10, 20), "
     "'expected positive counts, more for the LSTM'"],
    ["import torch\n"
     "for d, H in ((10, 20), (3, 7), (1, 1)):\n"
     "    assert rnn_count(d, H) == sum(p.numel() for p in torch.nn.RNN(d, H).parameters())",
     "import torch\n"
     "for d, H in ((10, 20), (3, 7), (1, 1)):\n"
     "    assert lstm_count(d, H) == sum(p.numel() for p in torch.nn.LSTM(d, H).parameters())"],
    checks="that the counts are positive and larger for the LSTM only")
SPECS["ex-04-3"] = auto(
    "sim",
    ["import numpy as np\n"
     "assert np.shape(sim) == (4, 4), 'sim: expected a 4 x 4 matrix'"],
    ["import numpy as np, torch\n"
     "v = torch.as_tensor(E[[idx[w] for w in ('cat', 'dog', 'king', 'queen')]], "
     "dtype=torch.float64)\n"
     "ref = torch.nn.functional.cosine_similarity(v[:, None, :], v[None, :, :], dim=-1)\n"
     "assert np.allclose(np.asarray(sim, dtype=float), ref.numpy(), rtol=0, atol=1e-4)"],
    checks="the shape only")
SPECS["ex-06-1"] = auto(
    "my_merges",
    ["assert all(len(m) == 2 and all(isinstance(s, str) for s in m) for m in my_merges), "
     "'my_merges: expected a list of pairs of strings'"],
    # the checker's source goes into the test: the autograder has the package, not booktools
    [_source_without_docstring(bpe_merges_problem)
     + "\nassert bpe_merges_problem({'ab': 4, 'abc': 2, 'bc': 3}, list(my_merges)) == ''"],
    checks="that it is a list of pairs of strings only")
SPECS["ex-06-4"] = auto(
    "k_merges",
    ["assert 0 < int(k_merges) <= len(ours), 'k_merges: expected a number of merges of ours'"],
    ["n_words = sum(wc.values())\n"
     "count = lambda k: sum(len(BPETokenizer(ours[:k], init).tokenize_word(w)) * c "
     "for w, c in wc.items())\n"
     "assert count(int(k_merges)) <= 2.5 * n_words < count(int(k_merges) - 1)"],
    checks="the range only")
SPECS["ex-07-3"] = auto(
    "R3",
    ["import numpy as np\n"
     "assert np.shape(R3) == (8, 8), 'R3: expected an 8 x 8 matrix'"],
    ["import numpy as np, torch\n"
     "p = torch.arange(60, dtype=torch.float64)[:, None]\n"
     "w = 10000.0 ** (-torch.arange(0, 8, 2, dtype=torch.float64) / 8)\n"
     "pe = torch.stack([torch.sin(p * w), torch.cos(p * w)], -1).reshape(60, 8).numpy()\n"
     "assert np.allclose(pe[3:], pe[:57] @ np.asarray(R3, dtype=float), rtol=0, atol=5e-4)"],
    checks="the shape only")
SPECS["ex-08-3"] = auto(
    "self_attention",
    ["import numpy as np\n"
     "X3 = np.random.default_rng(3).standard_normal((3, 4))\n"
     "P3 = np.eye(3)[[2, 1, 0]]\n"
     "assert np.allclose(self_attention(P3 @ X3), P3 @ self_attention(X3), atol=1e-5), "
     "'self_attention(P X) should be P self_attention(X)'"],
    ["import numpy as np, torch\n"
     "from formulated import examples as ex\n"
     "for X3 in (ex.QKV_INPUTS, np.random.default_rng(7).standard_normal((5, 4))):\n"
     "    q, k, v = (torch.as_tensor(X3 @ W, dtype=torch.float64) for W in "
     "(ex.QKV_W_QUERY, ex.QKV_W_KEY, ex.QKV_W_VALUE))\n"
     "    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v).numpy()\n"
     "    assert np.allclose(np.asarray(self_attention(X3), dtype=float), ref, rtol=1e-4, "
     "atol=1e-6)"],
    checks="permutation equivariance (any attention without positions passes it)")
SPECS["ex-08-4"] = auto(
    "scores w2 out2",
    ["import numpy as np\n"
     "assert np.shape(scores) == np.shape(w2) == np.shape(out2) == (3,), "
     "'scores, w2, out2: expected three numbers each'",
     "import numpy as np\nassert abs(np.sum(w2) - 1) < 2e-4, 'w2: the weights should sum to 1'"],
    ["import numpy as np, torch\n"
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
     "rtol=0, atol=1e-4)"],
    checks="the shapes and that the weights sum to 1")
SPECS["ex-09-2"] = auto(
    "Qb Kb Vb mask_b ours_b",
    ["import numpy as np\n"
     "assert np.shape(mask_b) == (2, 5, 5) and np.asarray(mask_b).dtype == bool, "
     "'mask_b: expected a boolean array of shape (2, 5, 5)'",
     "import numpy as np\n"
     "assert np.shape(ours_b) == np.shape(Vb) and np.shape(Qb)[:2] == (2, 5), "
     "'ours_b: expected one output row per query, shape (2, 5, D)'"],
    ["import numpy as np, torch\n"
     "causal = torch.ones(5, 5, dtype=torch.bool).tril()\n"
     "keys = torch.arange(5)[None, :] < torch.tensor([5, 3])[:, None]\n"
     "assert np.array_equal(np.asarray(mask_b), (causal[None] & keys[:, None, :]).numpy())",
     "import numpy as np, torch\n"
     "causal = torch.ones(5, 5, dtype=torch.bool).tril()\n"
     "keys = torch.arange(5)[None, :] < torch.tensor([5, 3])[:, None]\n"
     "ref = torch.nn.functional.scaled_dot_product_attention(*(torch.as_tensor(np.asarray(M, "
     "dtype=float)) for M in (Qb, Kb, Vb)), attn_mask=causal[None] & keys[:, None, :])\n"
     "assert np.allclose(np.asarray(ours_b, dtype=float), ref.numpy(), rtol=1e-4, atol=1e-6)"],
    checks="the shapes and the dtype of the mask only")
SPECS["ex-09-3"] = auto(
    "product_w renormalized",
    ["import numpy as np\n"
     "assert np.shape(product_w) == (4, 4) and np.shape(renormalized) == (4, 4), "
     "'expected two 4 x 4 matrices of weights'",
     "import numpy as np\n"
     "assert np.allclose(np.asarray(renormalized).sum(1), 1, atol=1e-5), "
     "'renormalized: each row should sum to 1'"],
    ["import numpy as np, torch\n"
     "from formulated import examples as ex\n"
     "S = torch.as_tensor(ex.MASK_SCALED_SCORES, dtype=torch.float64)\n"
     "ref = torch.softmax(S, -1) * torch.ones(4, 4, dtype=torch.float64).tril()\n"
     "assert np.allclose(np.asarray(product_w, dtype=float), ref.numpy(), rtol=1e-4, atol=1e-6)",
     "import numpy as np, torch\n"
     "from formulated import examples as ex\n"
     "S = torch.as_tensor(ex.MASK_SCALED_SCORES, dtype=torch.float64)\n"
     "keep = torch.ones(4, 4, dtype=torch.bool).tril()\n"
     "ref = torch.softmax(S.masked_fill(~keep, float('-inf')), -1)\n"
     "assert np.allclose(np.asarray(renormalized, dtype=float), ref.numpy(), rtol=1e-4, "
     "atol=1e-6)"],
    checks="the shapes and that renormalized's rows sum to 1")
SPECS["ex-09-4"] = auto(
    "causal_pairs wasted_fraction band_pairs",
    ["assert all(float(v) == int(v) for v in (causal_pairs, band_pairs)), "
     "'causal_pairs and band_pairs: expected whole numbers'",
     "assert 0 < wasted_fraction < 1, 'wasted_fraction: expected a fraction between 0 and 1'"],
    ["import torch\n"
     "assert causal_pairs == int(torch.ones(1024, 1024).tril().sum())",
     "import torch\n"
     "ref = 1 - torch.ones(1024, 1024, dtype=torch.float64).tril().mean().item()\n"
     "assert abs(float(wasted_fraction) - ref) < 6e-5",
     "import torch\n"
     "assert band_pairs == int(torch.ones(2048, 2048).tril().triu(-255).sum())"],
    checks="that the counts are whole numbers and the fraction is between 0 and 1")
# The shortcut: a head_sum that calls the library's multi-head attention adds no head itself.
# The hidden test replaces every multi-head function of the package and of PyTorch (in their
# modules and in the notebook's names) by one that fails, then calls head_sum.
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
    "Xh, Wh = g.standard_normal((4, 6)), g.standard_normal((3, 2, 6, 3))\n"
    "try:\n"
    "    for m, k, _ in _saved:\n"
    "        _ = setattr(m, k, _refuse) if m is not None else globals().__setitem__(k, _refuse)\n"
    "    out = head_sum(Xh, np.triu(np.full((4, 4), -np.inf), 1), *Wh, g.standard_normal((6, 6)))\n"
    "finally:\n"
    "    for m, k, f in _saved:\n"
    "        _ = setattr(m, k, f) if m is not None else globals().__setitem__(k, f)\n"
    "assert np.shape(out) == (4, 6)")
SPECS["ex-10-2"] = auto(
    "head_sum",
    ["import numpy as np\n"
     "g = np.random.default_rng(9)\n"
     "Xh, Wh = g.standard_normal((4, 6)), g.standard_normal((2, 6, 3))\n"
     "out = head_sum(Xh, fg.mask_autoregressive(4), Wh, Wh, Wh, g.standard_normal((6, 6)))\n"
     "assert np.shape(out) == (4, 6), 'head_sum: expected an n x H result'"],
    ["import numpy as np, torch\n"
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
     "assert np.allclose(np.asarray(ours, dtype=float), ref, rtol=1e-4, atol=1e-6)",
     NO_SHORTCUT],
    checks="the shape of the result only")
SPECS["ex-11-2"] = auto(
    "x_min gelu_min",
    ["assert -3 < float(x_min) < 0, 'x_min: expected a number between -3 and 0'",
     "import torch\n"
     "assert abs(float(gelu_min) - torch.nn.functional.gelu(torch.tensor(float(x_min), "
     "dtype=torch.float64)).item()) < 1e-6, 'gelu_min: expected GELU(x_min), the exact GELU'"],
    ["import math, torch\n"
     "t = torch.tensor(float(x_min), dtype=torch.float64)\n"
     "slope = torch.special.ndtr(t) + t * torch.exp(-t * t / 2) / math.sqrt(2 * math.pi)\n"
     "assert abs(slope.item()) < 1e-5",
     "import torch\n"
     "grid = torch.linspace(-3, 0, 300001, dtype=torch.float64)\n"
     "assert abs(float(gelu_min) - torch.nn.functional.gelu(grid).min().item()) < 1e-6"],
    checks="the range of x_min and that gelu_min is the exact GELU at x_min (not that x_min is "
           "the minimiser)")
SPECS["ex-11-3"] = auto(
    "a1 a2",
    ["assert 1.6 <= float(a1) <= 1.9 and 1.6 <= float(a2) <= 1.9, "
     "'a1, a2: expected constants from the search interval [1.6, 1.9]'"],
    ["import torch\n"
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
     " + 2e-4"],
    checks="that both lie in the search interval only")
SPECS["ex-11-4"] = auto(
    "Xb ffn_params direct flat",
    ["import numpy as np\n"
     "assert np.ndim(Xb) == 3 and np.shape(direct) == np.shape(flat) == np.shape(Xb), "
     "'Xb, direct, flat: expected three arrays of the same shape (B, n, H)'",
     "import numpy as np\n"
     "assert np.allclose(direct, flat, rtol=1e-4, atol=1e-6), 'direct and flat should agree'"],
    ["import numpy as np, torch\n"
     "W1, b1, W2, b2 = (torch.as_tensor(np.asarray(p, dtype=float)) for p in ffn_params)\n"
     "X = torch.as_tensor(np.asarray(Xb, dtype=float))\n"
     "ref = torch.nn.functional.gelu(X @ W1 + b1) @ W2 + b2\n"
     "assert np.shape(Xb)[0] > 1 and np.allclose(np.asarray(direct, dtype=float), ref.numpy(), "
     "rtol=1e-4, atol=1e-6)"],
    checks="the shapes and that direct and flat agree (not that they are the FFN)")
SPECS["ex-12-2"] = auto(
    "x_row a_limit",
    ["assert a_limit in (1.0, 0.1, 0.03, 0.01, 0.003), "
     "'a_limit: expected one of 1, 0.1, 0.03, 0.01, 0.003'"],
    ["import numpy as np, torch\n"
     "xt = torch.as_tensor(np.asarray(x_row, dtype=float)).reshape(-1, np.shape(x_row)[-1])\n"
     "ln = lambda t: torch.nn.functional.layer_norm(t, (t.shape[-1],), eps=1e-5)\n"
     "change = lambda a: (ln(a * xt) - ln(xt)).abs().max().item()\n"
     "larger = [a for a in (1.0, 0.1, 0.03, 0.01, 0.003) if a > a_limit]\n"
     "assert change(a_limit) > 1e-3 and all(change(a) <= 1e-3 for a in larger)"],
    checks="that a_limit is one of the five values only")
SPECS["ex-12-3"] = auto(
    "ratio_4 ratio_768",
    ["assert 0 < ratio_4 < 2 and 0 < ratio_768 < 2, "
     "'ratio_4, ratio_768: expected the ratio (your LayerNorm) / F.layer_norm'"],
    ["import torch\n"
     "x = torch.randn(64, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(1))\n"
     "expected = (x.std(-1, correction=0) / x.std(-1)).mean().item()\n"
     "assert abs(float(ratio_4) - expected) < 1e-4",
     "import torch\n"
     "x = torch.randn(64, 768, dtype=torch.float64, generator=torch.Generator().manual_seed(1))\n"
     "expected = (x.std(-1, correction=0) / x.std(-1)).mean().item()\n"
     "assert abs(float(ratio_768) - expected) < 1e-4"],
    checks="that both ratios lie between 0 and 2 only")
SPECS["ex-13-4"] = auto(
    "ids",
    ["assert list(ids[:5]) == tok.encode('the c') and len(ids) == 10, "
     "'ids: expected the 5 ids of \"the c\" followed by 5 new ones'"],
    ["import numpy as np\n"
     "for k in range(5, 10):\n"
     "    assert ids[k] == int(np.argmax(gpt_probabilities(np.array(ids[:k]), params)[-1]))"],
    checks="the prompt's ids and the length only")
SPECS["ex-14-2"] = auto(
    "earliest",
    ["assert len(earliest) == 3 and all(0 <= int(e) < 20 for e in earliest), "
     "'earliest: expected three positions between 0 and 19'"],
    ["import torch\n"
     "step = torch.ones(20, 20).tril().triu(-2)  # key j visible from query i: i - 3 < j <= i\n"
     "reach = torch.eye(20)\n"
     "for L, e in zip((1, 2, 3), earliest):\n"
     "    reach = ((step @ reach) > 0).float()\n"
     "    assert int(e) == int(torch.nonzero(reach[19])[0])"],
    checks="the length and range only")
SPECS["ex-15-4"] = auto(
    "bert_count",
    ["assert 100_000_000 < bert_count < 120_000_000, "
     "'bert_count: BERT-base has a bit over a hundred million parameters'"],
    ["import torch, transformers\n"
     "with torch.device('meta'):\n"
     "    model = transformers.BertForMaskedLM(transformers.BertConfig())\n"
     "assert bert_count == sum(p.numel() for p in model.parameters())"],
    checks="the order of magnitude only")
SPECS["ex-16-3"] = auto(
    "L_needed",
    ["assert int(L_needed) == L_needed > 12, 'L_needed: expected a whole number of layers'"],
    ["import torch, transformers\n"
     "def count(L):\n"
     "    with torch.device('meta'):\n"
     "        m = transformers.GPT2Model(transformers.GPT2Config(n_layer=L))\n"
     "    return sum(p.numel() for p in m.parameters())\n"
     "assert count(int(L_needed)) > 1e9 >= count(int(L_needed) - 1)"],
    checks="that it is a whole number above 12 only")
SPECS["ex-16-4"] = auto(
    "untied share",
    ["assert 0 < share < 1 and untied > 124_000_000, "
     "'share: expected a fraction; untied: more than the tied model'"],
    ["import torch, transformers\n"
     "with torch.device('meta'):\n"
     "    m = transformers.GPT2LMHeadModel(transformers.GPT2Config(tie_word_embeddings=False))\n"
     "assert untied == sum(p.numel() for p in m.parameters())",
     "import torch, transformers\n"
     "with torch.device('meta'):\n"
     "    m = transformers.GPT2LMHeadModel(transformers.GPT2Config(tie_word_embeddings=False))\n"
     "n = sum(p.numel() for p in m.parameters())\n"
     "assert abs(float(share) - m.lm_head.weight.numel() / n) < 6e-4"],
    checks="the ranges only")
SPECS["ex-17-2"] = auto(
    "uniform_loss uniform_perplexity",
    ["assert uniform_loss(3) > 0 and uniform_perplexity(3) > 1, "
     "'expected a positive loss and a perplexity above 1'"],
    ["import torch\n"
     "for V in (3, 7, 50257):\n"
     "    ref = torch.nn.functional.cross_entropy(torch.zeros(5, V, dtype=torch.float64), "
     "torch.arange(5) % V).item()\n"
     "    assert abs(float(uniform_loss(V)) - ref) < 6e-4 * ref",
     "import torch\n"
     "for V in (3, 7, 50257):\n"
     "    ref = torch.nn.functional.cross_entropy(torch.zeros(5, V, dtype=torch.float64), "
     "torch.arange(5) % V).exp().item()\n"
     "    assert abs(float(uniform_perplexity(V)) - ref) < 6e-4 * ref"],
    checks="the signs only")
SPECS["ex-18-3"] = auto(
    "by_hand",
    ["assert int(by_hand) == by_hand > 0, 'by_hand: expected a whole number'"],
    ["import torch, transformers\n"
     "cfg = transformers.GPT2Config(vocab_size=65, n_positions=128, n_embd=128, n_layer=4, "
     "n_head=4)\n"
     "with torch.device('meta'):\n"
     "    m = transformers.GPT2LMHeadModel(cfg)\n"
     "assert by_hand == sum(p.numel() for p in m.parameters())"],
    checks="that it is a positive whole number only")
