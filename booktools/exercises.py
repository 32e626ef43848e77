"""How every exercise of the book is graded: its kind, the names it defines, its tests.

One entry of :data:`SPECS` per ``{exercise}`` label in the chapters (``tests/test_teaching.py``
checks both directions).  :mod:`booktools.assign` turns them into otter-grader questions:

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
SPECS["ex-09-1"] = written("1 point: numerators e^{s_j - inf} = 0 outside A and e^{s_j} on A. 1 "
                           "point: the denominator reduces to the sum over A, positive because A "
                           "is nonempty, so the weights are softmax over A. Half a point off "
                           "without using that A is nonempty (the fully masked row).")
# --------------------------------------------------------------------------- chapter 11: FFN
SPECS["ex-11-1"] = written("1 point: both identities derived from Phi(-x) = 1 - Phi(x), the second "
                           "in the cases x >= 0 and x < 0. 1 point: the gap |x| Phi(-|x|) is "
                           "bounded by max t Phi(-t) (about 0.17) and tends to 0 because Phi(-t) "
                           "decays like e^{-t^2/2}. Half a point off for one case of the second "
                           "identity missing.")
SPECS["ex-11-5"] = written("1 point: 2HF + F + H = 8,393,728 for the FFN. 1 point: the layer has "
                           "12,596,224 parameters and the FFN is 66.6 %, two thirds (8H^2 of "
                           "12H^2). Half a point for the fraction right from a slipped count.")

# --------------------------------------------------------------------------- chapter 12: LayerNorm
SPECS["ex-12-1"] = written("1 point: the mean of (x - mu)/s is 0 and its variance sigma^2/(sigma^2 "
                           "+ eps), hence the norm sqrt(H) sigma/sqrt(sigma^2 + eps) < sqrt(H). 1 "
                           "point: 'unit variance' is accurate only when sigma^2 >> eps (and with "
                           "gamma = 1, beta = 0); far off for nearly constant rows.")
SPECS["ex-12-4"] = written("1 point: X_l = X_{l-1} + a_l + f_l and the telescoping sum. 1 point: "
                           "in post-LN the LayerNorm rescales the whole stream after every "
                           "sublayer, so X_0 reaches the output only through 2L normalisations, "
                           "while pre-LN keeps an identity path from X_0 to X_L. Half a point for "
                           "the sum without the post-LN contrast.")
SPECS["ex-12-5"] = written("1 point: 25 LayerNorms x 2H = 38,400 for GPT-2 small. 1 point: 24 x "
                           "1,536 = 36,864 for GPT-1, which equals source 000's L * 4H, and that "
                           "count misses GPT-2's final LayerNorm. Half a point for counting one "
                           "LayerNorm per block.")

# --------------------------------------------------------------------------- chapters 1-4
SPECS["ex-01-1"] = written("One point per two correct kinds (supervised, unsupervised, "
                           "reinforcement, self-supervised), each with its reason.")
SPECS["ex-01-2"] = written("1 point: the update theta <- (1 - alpha*lambda) theta and theta_k by "
                           "induction. 1 point: alpha = 1/lambda reaches the minimum in one step, "
                           "and at alpha = 2/lambda theta flips between theta_0 and -theta_0 "
                           "(neither converging nor diverging). Half a point off for the closed "
                           "form stated without the induction.")
SPECS["ex-01-3"] = open_ended()
SPECS["ex-02-1"] = written("1 point: H = -sum (1/V) log_b(1/V) = log_b V shown. 1 point: about "
                           "15.6 bits for V = 50,257 and ln 50,257 = 10.8 nats as the uniform "
                           "model's cross-entropy on any text (half for only one of the two "
                           "numbers, or a number in the wrong unit).")
SPECS["ex-02-2"] = written("1 point: e^c factored out of numerator and denominator and cancelled. "
                           "1 point: a counterexample or the argument that softmax(2z)_i is "
                           "proportional to (e^{z_i})^2, and 'multiplying by 2 = temperature 1/2, "
                           "a sharper distribution' (half without the temperature reading).")
SPECS["ex-02-4"] = written("1 point: softmax gives every class a positive probability, so q_y < 1 "
                           "and the loss is > 0; the loss is small when the right logit exceeds "
                           "the others by a wide margin. 1 point: -ln 1e-9 = 20.7 nats (about 30 "
                           "bits accepted with the unit stated) and the remark that a confident "
                           "mistake is punished hard.")
SPECS["ex-03-1"] = written("1 point: the derivative e^{-z}(1+e^{-z})^{-2} rewritten as sigma(1 - "
                           "sigma). 1 point: s(1 - s) maximal at s = 1/2 (z = 0), giving 1/4. Half "
                           "a point for the bound checked numerically only.")
SPECS["ex-03-2"] = written("Full marks (2 points) for the identity and the derivative derived, "
                           "with a numerical check on a grid; half (1 point) without the check.")
SPECS["ex-03-5"] = open_ended()
SPECS["ex-04-1"] = written("1 point each: the gradient factor w^k with k = 132 for w = 0.9 (131.1 "
                           "computed) and k = 1375 for w = 0.99 (1374.6). An off-by-one (131, "
                           "1374) loses half a point once; a correct method with an arithmetic "
                           "slip keeps half.")
SPECS["ex-04-4"] = written("1 point: 0.95^60 = 0.046, about 5 % survives. 1 point: 0.5^60 = "
                           "8.7e-19, no better than the plain RNN, hence a positive forget-gate "
                           "bias (half without that conclusion).")

# --------------------------------------------------------------------------- chapters 5-8, 10
SPECS["ex-05-1"] = written("1 point: the translation B, n, H, A, D and the three shapes B x n x H "
                           "-> B x n x A x D -> B x A x n x D with the weight H x AD (= H x H). 1 "
                           "point: the GPT-2 small numbers 8 x 1024 x 768 -> 8 x 1024 x 12 x 64 -> "
                           "8 x 12 x 1024 x 64 and 768 x 768. Half a point off per swapped letter "
                           "pair (for example H and A).")
SPECS["ex-05-2"] = written("1 point: both sizes in MiB. 1 point: the n^2 (attention weights) "
                           "against n (activations) growth explained. Half a point for a size off "
                           "by a unit.")
SPECS["ex-05-3"] = written("1 point: 'vector-wise' and the prediction (the V entries of one row). "
                           "1 point: the check run and agreeing. Half a point for the prediction "
                           "without the check's agreement.")
SPECS["ex-05-4"] = written("1 point: the box only needs the concatenation (n x AD) to match W^O, "
                           "so any D works; GPT-2 splits the columns of one H x H matrix into A "
                           "blocks, forcing D = H/A (an implementation choice). 1 point: the run "
                           "with H = 6, A = 4, D = 5 showing a (n, 20) concatenation and an (n, 6) "
                           "output.")
SPECS["ex-06-2"] = open_ended()
SPECS["ex-06-3"] = written("(a) V = 256 + 32,000 + 3 = 32,259: half a point. (b) byte-level base "
                           "symbols cover every UTF-8 text while a character-level BPE lacks "
                           "characters unseen in training ('é'): 1 point. (c) V*H: 31,087,104 for "
                           "GPT-1 and 38,597,376 for GPT-2: half a point.")
SPECS["ex-07-1"] = written("Each of three parts: the dense cost n V H = 3.95e10 multiply-adds, the "
                           "n H = 786,432 with a nonzero factor, and n V = 51,463,168 entries x 4 "
                           "bytes = 206 MB. 2 points for all three, 1 point for two; a wrong unit "
                           "(MiB/MB mixed up with the unit stated) is not penalised.")
SPECS["ex-07-2"] = written("1 point: each sin/cos column pair gives cos(omega_k (p - q)) by the "
                           "subtraction formula, summed over H/2 pairs. 1 point: every cosine <= "
                           "1, so the sum <= H/2 with equality at p = q. The remark on p != q is "
                           "not required.")
SPECS["ex-07-4"] = written("1 point: rows 2, 5, 7 and the gradient of row 2 (all 2). 1 point: the "
                           "explanation through O^T (each occurrence adds its row). Half a point "
                           "for the rows without the gradient.")
SPECS["ex-08-1"] = written("1 point: E[q.k] = 0 by independence. 1 point: each term has variance "
                           "E[q^2]E[k^2] = 1, the D independent terms add to D, and c = 1/sqrt(D) "
                           "gives variance 1. Half a point off when the independence of the terms "
                           "is used without being stated.")
SPECS["ex-08-2"] = written("(a) uniform weights, every output row the mean of the values, and (b) "
                           "every output row is v: 1 point together (half for one). (c) the "
                           "weights tend to uniform over the largest scores, [0, 0.5, 0.5] for "
                           "input 1, so the slides' numbers are temperature 0: 1 point (half "
                           "without the temperature remark).")
SPECS["ex-10-1"] = written("1 point: 3AHD + ADH = 4AHD without biases and 4AHD + 3AD + H with "
                           "them. 1 point: with AD = H the count is 4H^2 (+ 4H), independent of A, "
                           "and 4,198,400 for GPT-2 medium. Half a point for a correct formula "
                           "with a wrong final number.")
SPECS["ex-10-3"] = written("1 point: the comparison run, showing a difference. 1 point: the "
                           "positions (not the columns) end up in 'head 1', explained. Half a "
                           "point for the difference shown but not explained.")
SPECS["ex-10-4"] = written("1 point: head_i = P_i X W_i^V and associativity give P_i X (W_i^V "
                           "W^O_[i]). 1 point: the product is H x H of rank at most D, and a "
                           "reason to keep the factors (2HD numbers instead of H^2, computing in "
                           "width D). Half a point for shape and rank without a reason.")

# --------------------------------------------------------------------------- chapters 13-18
SPECS["ex-13-1"] = written("One point per two correct shapes out of seven.")
SPECS["ex-13-2"] = written("1 point: the check over every prefix. 1 point: the count of passes "
                           "saved. Half a point for a count off by one pass.")
SPECS["ex-13-3"] = written("1 point: the logit (X W_e^T)_{i,v} written as the sum over k, the dot "
                           "product of the hidden row i with embedding row v. 1 point: equal "
                           "embedding rows give equal logits, hence equal probabilities at every "
                           "position (weight tying).")
SPECS["ex-14-1"] = written("1 point: X^(L) = X^(0) + sum over l of (a_l + f_l), and the identity "
                           "path from the embedding to the output untouched by any LayerNorm. 1 "
                           "point: nothing bounds the size of that sum, so GPT-2 normalises once "
                           "more before the de-embedding, while GPT's last operation is already a "
                           "LayerNorm (post-LN).")
SPECS["ex-14-3"] = written("1 point: dense causal n(n+1)/2 = 2,098,176 scores (n^2 = 4,194,304 "
                           "accepted when said to be the plain masked implementation). 1 point: "
                           "banded wn - w(w-1)/2 = 93,173 and the fraction about 4.4 %. Half a "
                           "point for a band count off by the w(w-1)/2 correction.")
SPECS["ex-14-4"] = open_ended()
SPECS["ex-15-1"] = written("1 point: the sequence [CLS] a1 a2 a3 [SEP] b1 b2 [SEP] with t = "
                           "(0,0,0,0,0,1,1,1). 1 point: sentence positions 2, 3, 4, 6, 7 (1-based) "
                           "as the allowed masked positions. Half a point off for including [CLS] "
                           "or [SEP] positions.")
SPECS["ex-15-2"] = written("1 point: row i of the left side is (1 - t_i) w^A + t_i w^B, which is "
                           "row t_i of W_type, the right side's row. 1 point: a numerical check "
                           "with a difference of about 0 (any sizes).")
SPECS["ex-15-3"] = written("1 point: no row can use the words after j: with the autoregressive "
                           "mask row j sees x'_1..x'_j only, and x'_j is the mask token. 1 point: "
                           "so it ignores the right context BERT may use, while GPT models "
                           "P(X_{j+1} | X_1..X_j), where looking right would be cheating.")
SPECS["ex-16-1"] = written("1 point: attention 4H^2, FFN 8H^2 + 5H, LayerNorms 4H, total 12H^2 + "
                           "9H, and the biases 4H more. 1 point: 7,084,800 (and 7,087,872 with the "
                           "attention biases) for H = 768. Half a point for a correct formula with "
                           "an arithmetic slip.")
SPECS["ex-16-2"] = written("1 point: L(3AHD + ADH) = 4LH AD depends on the product AD only, so "
                           "4LH^2 whatever A with AD = H. 1 point: with D fixed the term grows "
                           "linearly in A.")
SPECS["ex-17-1"] = written("1 point: the Lagrangian, its derivative c_v/q_v = mu, and mu = N from "
                           "the constraint. 1 point: the stationary point is the maximum "
                           "(concavity, or the cross-entropy/KL argument). Half a point off "
                           "without the maximum argued.")
SPECS["ex-17-3"] = written("1 point: the GPT objective log(1/2) + log 1 = -ln 2 = log P(a a). 1 "
                           "point: BERT with the second token masked gives log P(x2 = a | x1 = a) "
                           "= 0, which is exact: with one masked token there is no independence "
                           "assumption.")
SPECS["ex-17-4"] = open_ended()
SPECS["ex-18-1"] = written("1 point: ln 50,257 = 10.825 nats per token and ln 256 = 5.545 nats per "
                           "byte. 1 point: the units differ (a GPT-2 token is about four "
                           "characters), so compare per character (or per byte) after converting.")
SPECS["ex-18-2"] = written("Half a point for each of the four distributions; the two limits (T to "
                           "0: one-hot on the argmax, T to infinity: uniform) are required for "
                           "full marks (2 points).")
SPECS["ex-18-4"] = written("1 point: 1500 x 32 x 64 = 3,072,000 predictions, about 3.1 passes over "
                           "1,003,854 training characters. 1 point: about 1e5 parameters cannot "
                           "memorise a million characters, while nanoGPT's ~1e7-parameter model "
                           "sees the data many times and can, so it needs dropout. Half a point "
                           "for the numbers without the capacity argument.")
SPECS["ex-19-1"] = written("1 point: both counts. 1 point: the bytes (4 per float32 number). Half "
                           "a point for a count off by the biases or the tied matrix.")
SPECS["ex-19-2"] = written("1 point: p = 0.79 keeps the first two tokens (0.625, 0.375) and p = "
                           "0.81 the first three, renormalised by 0.95. 1 point: p = 0.8 argued "
                           "(the first two; the floating-point sum 0.5 + 0.3 makes an exact "
                           "threshold fragile) and the check with sampling_distribution.")
SPECS["ex-19-3"] = written("1 point: every cached key and value includes the position embedding of "
                           "its absolute position, so sliding shifts every position. 1 point: "
                           "every key and value of every layer changes, the whole window must be "
                           "recomputed (one uncached pass). A mention of relative positions "
                           "(rotary) is welcome, not required.")

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
