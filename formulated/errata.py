"""Every error the book found in its sources, in one place.

Each chapter that corrects a source shows the computation next to an ``{admonition}`` with a MyST
label (``(erratum-<key>)=``).  The same case is registered here with a ``check`` that *recomputes*
the evidence and returns ``True`` when the source is indeed wrong.  The errata appendix renders
this list, and ``tests/test_errata.py`` runs every check and verifies that the label exists in the
chapter named, so the chapters and the appendix cannot disagree.

To add an erratum: append an :class:`Erratum` to ``ERRATA`` in the section of your chapter.
Sources are named by their number: ``"000"`` (The Formulated GPT-2, first version), ``"001"``
(its revision), ``"002"`` (Notations), ``"003"`` (lecture notes), ``"004"`` (slides).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

__all__ = ["Erratum", "ERRATA", "errata_by_chapter", "errata_table"]

SOURCES = {
    "000": "The Formulated GPT-2 (first version)",
    "001": "The Formulated GPT-2 (revision)",
    "002": "Notations",
    "003": "Lecture notes on GPT (Korean)",
    "004": "Slides: Generative Pretrained Transformer",
}


@dataclass(frozen=True)
class Erratum:
    """One source error.

    key:      short unique id; the chapter holds the MyST label ``erratum-<key>``.
    sources:  the source numbers that contain the error, e.g. ``("000", "001")``.
    section:  where in the source (box name, step, slide title).
    says:     what the source writes (paraphrased or the formula; MyST/LaTeX allowed).
    correct:  what is right.
    chapter:  the chapter file that proves it, e.g. ``"chapters/09_masks"``.
    check:    recomputes the evidence; returns True when the source is wrong as described.
    kind:     ``"error"`` (wrong as written) or ``"omission"`` (the real model has something the
              source leaves out).
    """

    key: str
    sources: tuple[str, ...]
    section: str
    says: str
    correct: str
    chapter: str
    check: Callable[[], bool]
    kind: str = "error"

    @property
    def label(self) -> str:
        return f"erratum-{self.key}"


ERRATA: list[Erratum] = []

# ---------------------------------------------------------------------------------------------
# Each chapter owner appends its errata in its own section below (keep the sections in order).
# Imports needed by a check go *inside* the check function, so that importing this module stays
# cheap and free of cycles.
# ---------------------------------------------------------------------------------------------

# == chapters 01-04 (ML basics, information, neural nets, sequences) ==========================


def _check_go_is_reinforcement() -> bool:
    """Games without their outcomes cannot say which move wins: learning Go needs the reward.

    One-move games: the same 200 recorded moves in two worlds that differ only in which move
    wins.  Anything computed from the moves alone (here the most frequent move) is the same in
    both worlds, so it is wrong in one of them; the average reward per move (the reinforcement
    signal) finds the winning move in each.
    """
    import numpy as np

    moves = np.random.default_rng(0).integers(0, 2, 200)
    rewards = {"move 0 wins": (moves == 0).astype(float), "move 1 wins": (moves == 1).astype(float)}
    unsupervised = {w: int(np.bincount(moves, minlength=2).argmax()) for w in rewards}
    reinforcement = {w: int(np.argmax([r[moves == a].mean() for a in (0, 1)]))
                     for w, r in rewards.items()}
    return (unsupervised["move 0 wins"] == unsupervised["move 1 wins"]
            and reinforcement == {"move 0 wins": 0, "move 1 wins": 1})


def _check_prediction_observation_swapped() -> bool:
    """With ŷ observed and y computed by the model (the slides' text), equation (3) has the wrong sign."""
    import torch

    g = torch.Generator().manual_seed(0)
    x = torch.randn(20, generator=g, dtype=torch.float64)
    observed = 1.0 + 2.0 * x + 0.1 * torch.randn(20, generator=g, dtype=torch.float64)
    theta = torch.tensor([0.3, -0.5], dtype=torch.float64, requires_grad=True)
    computed = theta[0] + theta[1] * x
    y_hat, y = observed, computed                       # the roles the slides' text gives
    (0.5 * ((y_hat - y) ** 2).sum()).backward()
    eq3 = torch.stack([(y_hat - y).sum(), ((y_hat - y) * x).sum()])
    return bool(torch.allclose(theta.grad, -eq3) and not torch.allclose(theta.grad, eq3))


def _check_convexity_definition() -> bool:
    """√|θ| has every property the slides list, yet it is not convex; the squared loss is convex."""
    import numpy as np

    f = lambda t: np.sqrt(np.abs(t))  # noqa: E731
    t = np.linspace(-4, 4, 801)
    left, right = f(t[t <= 0]), f(t[t >= 0])
    slides_properties = (np.all(f(t) >= 0) and f(0.0) == f(t).min()
                         and np.all(np.diff(left) < 0) and np.all(np.diff(right) > 0))
    chord_violated = f(0.5) > 0.5 * f(0.0) + 0.5 * f(1.0)    # 0.707 > 0.5
    X = np.c_[np.ones(10), np.random.default_rng(0).normal(size=10)]
    hessian_psd = np.linalg.eigvalsh(X.T @ X).min() >= 0      # squared loss: convex
    return bool(slides_properties and chord_violated and hessian_psd)


def _check_convex_needs_small_lr() -> bool:
    """Gradient descent on a convex quadratic diverges once α > 2/λ_max."""
    import numpy as np

    from .basics import gradient_descent

    A = np.array([[3.0, 1.0], [1.0, 2.0]])                # L(θ) = ½ θᵀAθ, convex
    lam = np.linalg.eigvalsh(A)[-1]
    grad = lambda th: A @ th  # noqa: E731
    small = gradient_descent(grad, np.array([1.0, 1.0]), 0.5 / lam, 100)
    large = gradient_descent(grad, np.array([1.0, 1.0]), 2.2 / lam, 100)
    return bool(np.linalg.norm(small[-1]) < 1e-6 and np.linalg.norm(large[-1]) > 1e3)


def _check_slides_update_rule() -> bool:
    """Δθ = αθ ignores the loss: θ grows by (1+α) every step, away from the least-squares θ*."""
    import numpy as np

    from .basics import gradient_descent, linear_regression_closed_form, linear_predict
    from .basics import squared_loss, squared_loss_grad

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 1))
    y = 2.0 - 1.5 * X[:, 0] + 0.1 * rng.normal(size=30)
    star = linear_regression_closed_form(X, y)
    theta0, alpha, steps = np.array([0.5, 0.5]), 0.01, 100
    slides = [theta0 * (1 + alpha) ** k for k in range(steps + 1)]       # θ' = θ + αθ
    correct = gradient_descent(lambda th: squared_loss_grad(X, y, th), theta0, alpha, steps)
    loss = lambda th: squared_loss(linear_predict(X, th), y)  # noqa: E731
    return bool(np.linalg.norm(slides[-1] - star) > np.linalg.norm(slides[0] - star)
                and loss(slides[-1]) > loss(slides[0])
                and np.linalg.norm(correct[-1] - star) < 1e-8)


def _check_loss_change_sign() -> bool:
    """L(θ+Δ) ≈ L(θ) + (∂L/∂θ)Δ to second order; the slides' L − (∂L/∂θ)Δ is off to first order."""
    L = lambda t: (t - 3.0) ** 2  # noqa: E731
    dL = lambda t: 2 * (t - 3.0)  # noqa: E731
    theta = 1.0
    errs_plus, errs_minus = [], []
    for delta in (1e-2, 1e-3):
        errs_plus.append(abs(L(theta + delta) - (L(theta) + dL(theta) * delta)))
        errs_minus.append(abs(L(theta + delta) - (L(theta) - dL(theta) * delta)))
    # shrinking Δ tenfold shrinks the right error ~100× (second order), the slides' only ~10×
    return bool(errs_plus[0] / errs_plus[1] > 90 and errs_minus[0] / errs_minus[1] < 11)


def _check_softmax_not_feature_scaler() -> bool:
    """Softmax over a sample's features maps very different samples to the same vector."""
    import numpy as np

    from .formulas import softmax

    samples = np.array([[3.0, 20_000.0], [7.0, 90_000.0], [-2.0, 55_000.0]])  # the slides' ranges
    s = softmax(samples, axis=-1)
    all_same = np.allclose(s, [0.0, 1.0], atol=0, rtol=0)
    standardized = (samples - samples.mean(0)) / samples.std(0)
    distinct = len({tuple(r) for r in standardized.round(6)}) == 3
    return bool(all_same and distinct)


def _check_bits_eliminate() -> bool:
    """Three bits take 8 equally likely possibilities to 1: 7 are eliminated, entropy falls by 3 bits."""
    import numpy as np

    from .basics import entropy

    candidates = list(range(8))
    secret = 5
    for bit in (4, 2, 1):                                # three yes/no answers
        candidates = [c for c in candidates if (c & bit) == (secret & bit)]
    h_before = entropy(np.full(8, 1 / 8), base=2)
    return bool(candidates == [secret] and 8 - len(candidates) == 7 and abs(h_before - 3) < 1e-12)


def _check_mixed_log_bases() -> bool:
    """H(p, q) in bits minus H(p) in nats is not the KL divergence in either unit."""
    import numpy as np

    from .basics import cross_entropy, entropy, kl_divergence

    p = np.array([0.5, 0.25, 0.25])
    mixed_self = cross_entropy(p, p, base=2) - entropy(p, base=np.e)    # should be KL(p‖p) = 0
    q = np.array([0.2, 0.5, 0.3])
    mixed = cross_entropy(p, q, base=2) - entropy(p, base=np.e)
    return bool(mixed_self > 0.3
                and abs(mixed - kl_divergence(p, q, base=2)) > 0.1
                and abs(mixed - kl_divergence(p, q, base=np.e)) > 0.1
                and abs(cross_entropy(p, q, 2) - entropy(p, 2) - kl_divergence(p, q, 2)) < 1e-12)


def _check_lstm_output_equation() -> bool:
    """nn.LSTM's h_t is o_t ⊙ tanh(C_t); none of the nearby guesses reproduces it."""
    import numpy as np
    import torch

    from .basics import LSTMParams, lstm_forward, sigmoid, tanh

    torch.manual_seed(0)
    d, H, n = 3, 4, 5
    lstm = torch.nn.LSTM(d, H, batch_first=True, dtype=torch.float64)
    X = np.random.default_rng(0).normal(size=(n, d))
    ref = lstm(torch.from_numpy(X)[None])[0][0].detach().numpy()
    Wi, Wh = lstm.weight_ih_l0.detach().numpy(), lstm.weight_hh_l0.detach().numpy()
    b = (lstm.bias_ih_l0 + lstm.bias_hh_l0).detach().numpy()
    Ws = [np.vstack([Wi[k * H:(k + 1) * H].T, Wh[k * H:(k + 1) * H].T]) for k in range(4)]
    bs = [b[k * H:(k + 1) * H] for k in range(4)]
    p = LSTMParams(*Ws, *bs)
    ours, _ = lstm_forward(X, np.zeros(H), np.zeros(H), p)

    def run(output):  # the slides' four equations, with a guessed h_t
        h, c, hs = np.zeros(H), np.zeros(H), []
        for x in X:
            z = np.concatenate([x, h])
            i, f, o = (sigmoid(z @ W + bb) for W, bb in ((Ws[0], bs[0]), (Ws[1], bs[1]), (Ws[3], bs[3])))
            c = f * c + i * tanh(z @ Ws[2] + bs[2])
            h = output(o, c)
            hs.append(h)
        return np.array(hs)

    guesses = [lambda o, c: tanh(c), lambda o, c: c, lambda o, c: o * c, lambda o, c: o]
    return bool(np.abs(ours - ref).max() < 1e-12
                and all(np.abs(run(g) - ref).max() > 1e-3 for g in guesses))


ERRATA += [
    Erratum(
        key="004-go-unsupervised", sources=("004",),
        section='"Types of Machine Learning & Basic Definitions"',
        says="unsupervised learning: the machine groups unsorted information without training "
             "data; *e.g., playing GO*",
        correct="learning to play Go is reinforcement learning: the signal is the outcome "
                "(reward) of the games, which no grouping of unlabelled positions can recover "
                "(AlphaGo added self-play reinforcement learning to supervised learning from "
                "expert moves)",
        chapter="chapters/01_learning_from_data", check=_check_go_is_reinforcement),
    Erratum(
        key="004-prediction-observation-swapped", sources=("004",),
        section='"Linear Regression" and "Gradient Descent"',
        says="equation (1) calls $y_i$ the predicted value and the text says "
             "“$\\hat y$ and $x_{ij}$ are observed and $y_i$ is computed”",
        correct="$y_i$ is observed and $\\hat y_i$ is the model's prediction; with the roles "
                "as written, the gradient (3) $\\sum_i(\\hat y_i - y_i)x_{ij}$ has the wrong sign",
        chapter="chapters/01_learning_from_data", check=_check_prediction_observation_swapped),
    Erratum(
        key="004-convexity-definition", sources=("004",), section='"Linear Regression"',
        says="a function that is always positive, has a minimum and increases monotonically from "
             "it in both directions “is called a convex function”",
        correct="convex means every chord lies above the graph, "
                "$f(\\lambda a + (1-\\lambda) b) \\le \\lambda f(a) + (1-\\lambda) f(b)$; "
                "$\\sqrt{|\\theta|}$ has the listed properties and is not convex. (The squared "
                "loss is convex, and ≥ 0 rather than > 0.)",
        chapter="chapters/01_learning_from_data", check=_check_convexity_definition),
    Erratum(
        key="004-convex-always-converges", sources=("004",), section='"Gradient Descent"',
        says="for a convex function it does not matter what the initial weights are as it will "
             "always converge",
        correct="gradient descent converges on a convex quadratic only if the learning rate "
                "$\\alpha < 2/\\lambda_{\\max}$ (largest eigenvalue of the Hessian); above it, it "
                "diverges from every starting point but the minimum",
        chapter="chapters/01_learning_from_data", check=_check_convex_needs_small_lr),
    Erratum(
        key="004-gradient-step", sources=("004",), section='"Gradient Descent"',
        says="$\\Delta\\theta_j = \\alpha\\theta_j$, $\\theta'_j = \\theta_j + \\Delta\\theta_j$",
        correct="$\\theta_j \\leftarrow \\theta_j - \\alpha\\,\\partial L/\\partial\\theta_j$; the "
                "slides' rule multiplies θ by $1+\\alpha$ whatever the data, and walks away from "
                "the minimum",
        chapter="chapters/01_learning_from_data", check=_check_slides_update_rule),
    Erratum(
        key="004-loss-change-sign", sources=("004",), section='"Gradient Descent"',
        says="$L' = L - \\frac{\\partial L}{\\partial \\theta_j}(\\alpha\\theta_j)$ after the "
             "step $\\Delta\\theta_j = \\alpha\\theta_j$",
        correct="to first order $L' = L + \\frac{\\partial L}{\\partial\\theta_j}\\Delta\\theta_j$ "
                "(a plus sign); with the correct step $\\Delta\\theta_j = -\\alpha\\,\\partial L/"
                "\\partial\\theta_j$ this is $L - \\alpha(\\partial L/\\partial\\theta_j)^2 \\le L$",
        chapter="chapters/01_learning_from_data", check=_check_loss_change_sign),
    Erratum(
        key="004-softmax-feature-scaling", sources=("004",), section='"SoftMax"',
        says="features of different magnitudes “are normalized with the softmax function prior "
             "to inputting in a regression model”",
        correct="softmax turns a vector of scores (logits) into a probability distribution; "
                "applied to a sample's features it maps samples with features 0–10 and "
                "10,000–100,000 all to (0, 1), erasing them. Features are scaled per feature "
                "across samples (e.g. standardised)",
        chapter="chapters/02_probability_information", check=_check_softmax_not_feature_scaler),
    Erratum(
        key="004-bits-eliminate", sources=("004",), section='"Information & Uncertainty"',
        says="one bit “reduces the uncertainty by 2”; with 3 bits “8 possibilities are "
             "eliminated”",
        correct="one bit halves the number of equally likely possibilities; 3 bits take 8 "
                "possibilities to 1, eliminating 7, and the uncertainty (entropy) falls by 3 bits",
        chapter="chapters/02_probability_information", check=_check_bits_eliminate),
    Erratum(
        key="004-mixed-log-bases", sources=("004",),
        section='"Information & Uncertainty" and "Cross Entropy - KL divergence"',
        says="entropy (6) with an unspecified log, cross-entropy (7) with $\\log_2$, then "
             "KL = H(p, q) − H(p)",
        correct="the identity holds only with one base for all three (bits: log₂; nats: ln, "
                "PyTorch's unit); mixing them makes even KL(p‖p) non-zero",
        chapter="chapters/02_probability_information", check=_check_mixed_log_bases),
    Erratum(
        key="004-lstm-missing-output", sources=("004",), kind="omission",
        section='"Long Short Term Memory (LSTM)"',
        says="lists $i_t$, $f_t$, $C_t$, $o_t$ — the output gate $o_t$ is computed but never "
             "used, and $h_t$ (needed by the next step) is never defined",
        correct="$h_t = o_t \\odot \\tanh(C_t)$; with it the cell reproduces `torch.nn.LSTM` to "
                "$10^{-12}$, and no other nearby choice does",
        chapter="chapters/04_sequences", check=_check_lstm_output_equation),
]

# == chapters 05-06 (notation, tokenization) ===================================================

_ANIMALS = ["cat eat mouse", "dog chase cat", "mouse eat cheese"]  # 002's example sentences


def _check_002_vocab_index_range() -> bool:
    """002's range 0 <= j <= V has V + 1 values; every real V-word table takes exactly V of them.

    V comes from an independent tokenizer (Hugging Face's WordLevel trainer on 002's sentences),
    and each claimed j is offered to torch's ``nn.Embedding(V, d)``, ``F.one_hot`` and the book's
    ``embed``/``one_hot``: all must accept 0..V-1 and reject exactly j = V.  Read 1-based (the
    source's example, j = 1..V), the extra value is j = 0, which is row -1 in code.
    """
    import numpy as np
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    from .formulas import embed, one_hot

    hf = Tokenizer(models.WordLevel(unk_token=None))
    hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    hf.train_from_iterator(_ANIMALS, trainers.WordLevelTrainer(special_tokens=[]))
    V = hf.get_vocab_size()  # {cat, eat, mouse, dog, chase, cheese}
    claimed = list(range(0, V + 1))  # 0 <= j <= V, as 002 writes it

    def accepts(use, j: int) -> bool:
        try:
            use(j)
            return True
        except (IndexError, ValueError, RuntimeError):  # out of range, as each library says it
            return False

    def hf_word(j: int) -> str:
        word = hf.id_to_token(j)
        if word is None:  # Hugging Face answers None for an id no word has
            raise IndexError(j)
        return word

    torch.manual_seed(0)
    table = torch.nn.Embedding(V, 4)
    W_e = np.random.default_rng(0).normal(size=(V, 4))
    users = {
        "hf id_to_token": hf_word,
        "nn.Embedding": lambda j: table(torch.tensor([j])),
        "F.one_hot": lambda j: torch.nn.functional.one_hot(torch.tensor([j]), V),
        "formulas.embed": lambda j: embed(np.array([j]), W_e),
        "formulas.one_hot": lambda j: one_hot(np.array([j]), V),
    }
    rejected = {name: [j for j in claimed if not accepts(use, j)] for name, use in users.items()}
    rejected_1 = [j for j in claimed if not accepts(users["nn.Embedding"], j - 1)]  # 1-based read
    return (V == 6 and len(claimed) == V + 1
            and all(r == [V] for r in rejected.values()) and rejected_1 == [0])


def _check_002_index_base() -> bool:
    import torch

    itos = list(dict.fromkeys(w for s in _ANIMALS for w in s.split()))
    V = len(itos)
    stoi = {w: i for i, w in enumerate(itos)}  # f_stoi: V -> {0, ..., V-1}
    f = {w: i + 1 for i, w in enumerate(itos)}  # Step 2: f(w_j) = j, onto {1, ..., V}
    shifted = all(f[w] == stoi[w] + 1 for w in itos)
    emb = torch.nn.Embedding(V, 4)  # a V-row table indexed from 0, as W_e in code
    try:
        emb(torch.tensor([f[w] for w in itos]))  # Step 2's ids: the last one is V
        out_of_range = False
    except IndexError:
        out_of_range = True
    # 'mouse' under Step 2 (id 3) reads the row of 'dog' (0-based row 3)
    wrong_row = itos[f["mouse"]] == "dog"
    return shifted and out_of_range and wrong_row


def _check_002_table_z3_residual() -> bool:
    import numpy as np

    from formulated.shapes import gpt2_reference, random_block_params, trace_gpt_block

    params = random_block_params(V=13, n_max=6, H=8, A=2, seed=3)
    ids = np.random.default_rng(3).integers(0, 13, size=(2, 6))
    steps = {s.name: s.value for s in trace_gpt_block(ids, params)}
    ref = gpt2_reference(ids, params)
    residual = ref["block"] - ref["mlp"]  # GPT-2: block = Z3 + MLP(LN(Z3)), so Z3 = block - MLP
    from_input = steps["block input"] + ref["attn"]  # Z3 = X~ + Z2 (Step 8)
    from_table = ref["ln_1"] + ref["attn"]  # Z3 = Z1 + Z2 (the notation table, for l = 1)
    return bool(np.abs(residual - from_input).max() < 1e-12
                and np.abs(residual - from_table).max() > 0.1)


_LECTURE_WORDS = {"low": 1, "lower": 1, "newest": 1, "widest": 1}


def _check_003_bpe_tables() -> bool:
    from formulated.tokenizers import (count_pairs, greedy_bpe_states, learn_bpe, merge_pair,
                                       split_word)

    table = [("l", "o"), ("o", "w"), ("e", "s"), ("s", "t")]  # 003's "Merge Pairs", count 2 each
    result = (("lo", "w"), ("lo", "w", "er"), ("ne", "w", "est"), ("wi", "d", "est"))
    start = {split_word(w, ""): c for w, c in _LECTURE_WORDS.items()}
    counts_right = all(count_pairs(start)[p] == 2 for p in table)
    after_lo = count_pairs({merge_pair(s, ("l", "o")): c for s, c in start.items()})
    after_es = count_pairs({merge_pair(s, ("e", "s")): c for s, c in start.items()})
    not_a_sequence = after_lo[("o", "w")] == 0 and after_es[("s", "t")] == 0
    # No tie-breaking order of greedy BPE reaches the "Result" table -- neither with each word
    # once (the notes) nor with the frequencies of Sennrich et al.'s example (5, 2, 6, 3).
    classic = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    unreachable = (result not in greedy_bpe_states(_LECTURE_WORDS, end_of_word="")
                   and result not in greedy_bpe_states(classic, end_of_word=""))
    real = [m.pair for m in learn_bpe(_LECTURE_WORDS, 4, end_of_word="")]
    return (counts_right and not_a_sequence and unreachable
            and real == [("e", "s"), ("l", "o"), ("es", "t"), ("lo", "w")])


def _check_003_gpt1_vocab() -> bool:
    from transformers import GPT2Config, OpenAIGPTConfig

    from formulated.tokenizers import bpe_vocab_size

    gpt1 = OpenAIGPTConfig().vocab_size
    return (gpt1 == bpe_vocab_size(478, 40_000) == 40_478 and gpt1 != 40_000
            and GPT2Config().vocab_size == bpe_vocab_size(256, 50_000, 1) == 50_257)


ERRATA += [
    Erratum(
        key="002-vocab-index-range", sources=("002",), section="Vocabulary (the index $j$)",
        says=r"$j$ is \"the index of a word in $\mathcal{V}$, explicitly defined as "
             r"$0 \leq j \leq V$\"; the example then numbers its six words $j = 1, \ldots, 6$.",
        correct=r"$V$ words need $V$ indices: $1 \le j \le V$ (the math, and the source's own "
                r"example) or $0 \le j \le V - 1$ (code). The range $0 \le j \le V$ has $V + 1$ "
                "values, one of which names no word.",
        chapter="chapters/05_notation_shapes", check=_check_002_vocab_index_range),
    Erratum(
        key="002-index-base", sources=("002",),
        section="Dimensions and indexing; Input sequence; String-to-index mapping; Step 2",
        says=r"Positions are $0 \le t < T$ (Dimensions) and $1 \le t \le T$ (Input sequence); "
             r"ids are $0, \ldots, V-1$ ($f_\text{stoi}$, and $0 \le x_t < V$) but Step 2's "
             r"tokenizer maps $f(w_j) = j$ onto $\{1, \ldots, V\}$.",
        correct=r"One convention per context: the book's math counts from 1 and its code from 0, "
                r"and converts once, at the boundary. Used as 0-based row numbers, Step 2's ids "
                r"read every word's neighbour, and the last id $V$ is outside a $V$-row "
                r"embedding table.",
        chapter="chapters/05_notation_shapes", check=_check_002_index_base),
    Erratum(
        key="002-table-z3-residual", sources=("002",),
        section="Table of Notations, row \"Output After First Residual Connection\" ($\\mathbf{Z}_3$)",
        says=r"$\mathbf{Z}^{(\ell)}_3$ adds the attention output $\mathbf{Z}^{(\ell)}_2$ \"to the "
             r"layer normalized input $\mathbf{Z}^{(\ell)}_1$ (for $\ell = 1$)\".",
        correct=r"The residual adds the block's *input*, not its normalized input: "
                r"$\mathbf{Z}^{(1)}_3 = \tilde{\mathbf{X}} + \mathbf{Z}^{(1)}_2$, as the source's "
                r"own Step 8 and GPT-2 compute it.",
        chapter="chapters/05_notation_shapes", check=_check_002_table_z3_residual),
    Erratum(
        key="003-bpe-tables", sources=("003",),
        section="Tokenization Method: BPE (\"Merge Pairs\" and \"Result\" tables)",
        says=r"Merges (l, o), (o, w), (e, s), (s, t), each of count 2, and the result "
             r"low → [lo, w], lower → [lo, w, er], newest → [ne, w, est], widest → [wi, d, est].",
        correct=r"The counts are right *before any merge*, but the rows are not a merge sequence: "
                r"once (l, o) is merged, (o, w) no longer occurs, nor (s, t) once (e, s) is. "
                r"Greedy BPE merges (e, s), (l, o), (es, t), (lo, w), each with count 2, and only "
                r"then pairs seen once. The result table is reachable under no tie-breaking: it "
                r"keeps lo and w apart (count 2) while merging er, ne and wi (count 1).",
        chapter="chapters/06_tokenization", check=_check_003_bpe_tables),
    Erratum(
        key="003-gpt1-vocab", sources=("003",),
        section="Word Representation (\"Unique Tokens\" table)",
        says="GPT-1 has 40,000 unique tokens.",
        correct="40,000 is the number of BPE *merges*. GPT-1's vocabulary has 40,478 tokens "
                "(478 base symbols + 40,000 merges), as sources 000 and 001 state and "
                "`transformers`' `OpenAIGPTConfig` has. (GPT-2 and GPT-3: 50,257 = 256 bytes + "
                "50,000 merges + 1 end-of-text token, as the notes say.)",
        chapter="chapters/06_tokenization", check=_check_003_gpt1_vocab),
]

# == chapters 07-09 (embeddings, attention, masks) =============================================


def _check_onehot_lookup_last_row() -> bool:
    """A one-hot row with its 1 in column V selects row V of W_e, not row T (T != V)."""
    import numpy as np

    T, V = 3, 5
    W_e = np.arange(V * 2, dtype=float).reshape(V, 2)
    O = np.zeros((T, V))
    O[0, 1] = O[1, 0] = O[2, V - 1] = 1  # the illustration: e_2, e_1, ..., e_V
    last = (O @ W_e)[-1]
    return bool(np.array_equal(last, W_e[V - 1]) and not np.array_equal(last, W_e[T - 1]))


def _check_sinusoidal_index_range() -> bool:
    """002's PE formula with its stated 1-based ranges is not the paper's encoding; 0-based it is."""
    import numpy as np

    from .formulas import positional_encoding_sinusoidal

    T, D = 8, 8

    def pe_002(i0: int, j0: int) -> np.ndarray:  # i = i0..i0+T-1, j = j0..j0+D-1
        out = np.empty((T, D))
        for a, i in enumerate(range(i0, i0 + T)):
            for b, j in enumerate(range(j0, j0 + D)):
                out[a, b] = (np.sin(i / 10000 ** (j / D)) if j % 2 == 0
                             else np.cos(i / 10000 ** ((j - 1) / D)))
        return out

    paper = positional_encoding_sinusoidal(T + 1, D)
    literal = pe_002(1, 1)
    as_stated_differs = (np.abs(literal - paper[:T]).max() > 0.1
                         and np.abs(literal - paper[1:]).max() > 0.1)
    zero_based_agrees = np.abs(pe_002(0, 0) - paper[:T]).max() < 1e-12
    return bool(as_stated_differs and zero_based_agrees)


def _check_dropout_scaling() -> bool:
    """torch's training-mode dropout multiplies kept entries by 1/(1-p): it is not X ⊙ M."""
    import torch

    p, x = 0.25, torch.ones(1000, dtype=torch.float64)
    g = torch.Generator().manual_seed(0)
    keep = (torch.rand(1000, generator=g, dtype=torch.float64) >= p).double()
    torch.manual_seed(0)
    y = torch.nn.functional.dropout(x, p=p, training=True)
    kept = y[y != 0]
    return bool(torch.allclose(kept, torch.full_like(kept, 1 / (1 - p)))
                and not torch.allclose(kept, x[: kept.numel()])
                and abs((x * keep).mean().item() - (1 - p)) < 0.05)  # E[X ⊙ M] = (1-p) X


def _qkv_example():
    from . import examples as ex

    X = ex.QKV_INPUTS
    return X @ ex.QKV_W_QUERY, X @ ex.QKV_W_KEY, X @ ex.QKV_W_VALUE


def _check_slide_attention_rounding() -> bool:
    """Exact softmax([2,4,4]) and output 1 differ from the slide's rounded [0,.5,.5], [2,7,1.5]."""
    import torch

    from . import examples as ex

    Q, K, V = (torch.from_numpy(M) for M in _qkv_example())
    weights = torch.softmax(Q[0] @ K.T, dim=-1).numpy()
    out = torch.nn.functional.scaled_dot_product_attention(Q, K, V, scale=1.0)[0].numpy()
    # even to one decimal the first weight is 0.1, not the slide's 0.0
    return bool(abs(weights[0] - 0.0634) < 1e-4 and weights.round(1)[0] == 0.1
                and ex.SLIDE_SOFTMAX_1[0] == 0.0 and abs(out - ex.SLIDE_OUTPUT_1).max() > 0.3)


def _check_slide_attention_no_scaling() -> bool:
    """The slide's scores are unscaled; with the Transformer's 1/sqrt(D) output 1 changes."""
    import torch

    from . import examples as ex

    Q, K, V = (torch.from_numpy(M) for M in _qkv_example())
    unscaled_scores = (Q[0] @ K.T).numpy()
    scaled = torch.nn.functional.scaled_dot_product_attention(Q, K, V)[0].numpy()
    unscaled = torch.nn.functional.scaled_dot_product_attention(Q, K, V, scale=1.0)[0].numpy()
    return bool((unscaled_scores == ex.SLIDE_SCORES_1).all() and abs(scaled - unscaled).max() > 0.3)


def _check_mask_multiplicative() -> bool:
    """Mask ⊙ scores with a 1/-inf mask: a negative future score becomes +inf, a zero one NaN."""
    import numpy as np
    import torch

    scores = np.array([[0.5, -1.0, 0.0], [0.2, 0.4, 2.0], [1.0, -0.3, 0.7]])
    mask = np.where(np.triu(np.ones((3, 3), dtype=bool), 1), -np.inf, 1.0)
    with np.errstate(invalid="ignore"):
        product = mask * scores
        e = np.exp(product - product.max(axis=1, keepdims=True))
        weights = e / e.sum(axis=1, keepdims=True)
    reference = torch.softmax(torch.from_numpy(scores).masked_fill(
        torch.from_numpy(mask == -np.inf), float("-inf")), dim=-1).numpy()
    return bool(product[0, 1] == np.inf and np.isnan(product[0, 2])
                and np.isnan(weights[0]).all() and np.isfinite(reference).all())


def _check_mask_one_minus_m() -> bool:
    """002's M^{-inf} = 1 - M has entries 0/1, which do not block the future."""
    import numpy as np

    n = 4
    M = np.tril(np.ones((n, n)))  # 1 = may attend, as in the source
    one_minus = 1 - M
    scores = np.zeros((n, n))
    e = np.exp(scores + one_minus)
    weights = e / e.sum(axis=1, keepdims=True)
    return bool(set(np.unique(one_minus)) == {0.0, 1.0} and weights[0, 1:].min() > 0.2)


def _check_slide_masked_softmax_inf() -> bool:
    """softmax with +inf where -inf is meant is NaN; with -inf it is the slide's result."""
    import torch

    from . import examples as ex

    plus = torch.from_numpy(ex.MASK_SCALED_SCORES).masked_fill(
        torch.from_numpy(ex.MASK_LOOKAHEAD == float("-inf")), float("inf"))
    minus = torch.from_numpy(ex.MASK_SCALED_SCORES + ex.MASK_LOOKAHEAD)
    return bool(torch.isnan(torch.softmax(plus, -1)[:3]).all()
                and torch.allclose(torch.softmax(minus, -1).sum(-1), torch.ones(4, dtype=minus.dtype)))


def _check_slide_masked_softmax_digits() -> bool:
    """Exact masked softmax: 0.3775 and 0.3156 print as 0.38 and 0.32, not the slide's 0.37, 0.31."""
    import torch

    from . import examples as ex

    exact = torch.softmax(torch.from_numpy(ex.MASK_SCALED_SCORES + ex.MASK_LOOKAHEAD), -1).numpy()
    wrong = abs(exact.round(2) - ex.SLIDE_MASKED_SOFTMAX) > 1e-9
    return bool(wrong[1, 0] and wrong[2, 1] and wrong.sum() == 2
                and abs(ex.SLIDE_MASKED_SOFTMAX.sum(1)[[1, 3]] - 0.99).max() < 1e-9)


ERRATA += [
    Erratum(
        key="onehot-lookup-last-row", sources=("002",),
        section="Weights and embeddings, lookup illustration",
        says=r"the one-hot row $(0, \dots, 0, 1)$ times $\bm{W}_e$ gives row "
             r"$(w_{T,1}, \dots, w_{T,D})$",
        correct=r"a 1 in column $V$ selects row $V$: $(w_{V,1}, \dots, w_{V,D})$",
        chapter="chapters/07_embeddings_positions", check=_check_onehot_lookup_last_row),
    Erratum(
        key="sinusoidal-index-range", sources=("002",),
        section="PE: Positional Encoding Layer",
        says=r"$x'_{i,j} = \sin(i/10000^{j/D})$ ($j$ even), $\cos(i/10000^{(j-1)/D})$ (odd), "
             r"for $i = 1..T$, $j = 1..D$",
        correct=r"the formula holds with positions and columns counted from 0 "
                r"($p = 0..n-1$, $j = 0..D-1$); with 1-based $j$ the sine/cosine pairs are "
                r"shifted by one column",
        chapter="chapters/07_embeddings_positions", check=_check_sinusoidal_index_range),
    Erratum(
        key="dropout-scaling", sources=("002",), kind="omission",
        section="Step 5, dropout",
        says=r"$\bm{X}^\text{dropout} = \bm{X} \odot \bm{M}$, with no rescaling anywhere",
        correct=r"$\bm{X} \odot \bm{M} / (1-p)$ during training, identity at inference "
                r"(inverted dropout, as `torch.nn.Dropout`)",
        chapter="chapters/07_embeddings_positions", check=_check_dropout_scaling),
    Erratum(
        key="slide-attention-rounding", sources=("004",),
        section='Q/K/V example, "Sum weighted values to get Output 1"',
        says=r"$\operatorname{softmax}([2, 4, 4]) = [0.0, 0.5, 0.5]$ and Output 1 $= [2.0, 7.0, 1.5]$",
        correct=r"$[0.0634, 0.4683, 0.4683]$ (to one decimal $[0.1, 0.5, 0.5]$) and Output 1 "
                r"$= [1.9366, 6.6831, 1.5951]$",
        chapter="chapters/08_attention", check=_check_slide_attention_rounding),
    Erratum(
        key="slide-attention-no-scaling", sources=("004",), kind="omission",
        section="Q/K/V example, attention scores",
        says=r"scores are the plain dot products $\bm{q}_1 \cdot \bm{k}_j = [2, 4, 4]$",
        correct=r"the Transformer divides by $\sqrt{D} = \sqrt{3}$: weights "
                r"$[0.1361, 0.4319, 0.4319]$, Output 1 $= [1.8639, 6.3194, 1.7042]$",
        chapter="chapters/08_attention", check=_check_slide_attention_no_scaling),
    Erratum(
        key="mask-multiplicative", sources=("000", "001"),
        section="Autoregressive Attention Mask; Masked Scaled Dot-Product Attention",
        says=r"$\operatorname{Softmax}(\text{Mask} \odot \bm{Q}\bm{K}^\top / \sqrt{D})$ with mask "
             r"entries $1$ (allowed) and $-\infty$ (blocked), $\text{Mask}_\text{BD} = 1$",
        correct=r"add the mask: $\operatorname{Softmax}(\bm{Q}\bm{K}^\top/\sqrt{D} + \text{Mask})$ "
                r"with entries $0$ and $-\infty$ ($\text{Mask}_\text{BD} = 0$); multiplying turns "
                r"a negative blocked score into $+\infty$ and a zero one into NaN",
        chapter="chapters/09_masks", check=_check_mask_multiplicative),
    Erratum(
        key="mask-one-minus-m", sources=("002",),
        section="Step 7.3, scaled dot-product attention and masking",
        says=r"$\bm{M}^{-\infty} \in \{0, -\infty\}^{T \times T} = 1 - \bm{M}$ for the 0/1 "
             r"lower-triangular $\bm{M}$",
        correct=r"$1 - \bm{M}$ has entries $0$ and $1$; the mask is "
                r"$\bm{M}^{-\infty}_{ij} = 0$ if $M_{ij} = 1$ and $-\infty$ if $M_{ij} = 0$ "
                r"(`masked_fill`), not $(1-\bm{M})\cdot(-\infty)$ either, since $0 \cdot \infty$ is NaN",
        chapter="chapters/09_masks", check=_check_mask_one_minus_m),
    Erratum(
        key="slide-masked-softmax-inf", sources=("004",),
        section='"Decoder, Masked Attention", softmax of the masked scores',
        says=r"the matrix inside $\operatorname{Softmax}(\cdot)$ holds $\text{inf}$ above the diagonal",
        correct=r"$-\infty$ (as in the slide's own look-ahead mask); with $+\infty$ the softmax is "
                r"NaN ($\infty/\infty$)",
        chapter="chapters/09_masks", check=_check_slide_masked_softmax_inf),
    Erratum(
        key="slide-masked-softmax-digits", sources=("004",),
        section='"Decoder, Masked Attention", softmax result',
        says=r"rows $[0.37, 0.62]$ and $[0.26, 0.31, 0.43]$ (rows 2 and 4 sum to 0.99)",
        correct=r"$[0.3775, 0.6225]$ and $[0.2584, 0.3156, 0.4260]$: to two decimals "
                r"$[0.38, 0.62]$ and $[0.26, 0.32, 0.43]$",
        chapter="chapters/09_masks", check=_check_slide_masked_softmax_digits),
]

# == chapters 10-12 (multi-head, FFN/GELU, LayerNorm) ==========================================


def _mhsa_example_10(seed: int = 0, n: int = 5, H: int = 8, A: int = 2):
    """Seeded ``X (n, H)``, ``W_q, W_k, W_v (A, H, D)`` and ``W_o (A*D, H)`` for the checks below."""
    import numpy as np

    rng = np.random.default_rng(seed)
    D = H // A
    X = rng.normal(size=(n, H))
    W_q, W_k, W_v = (rng.normal(size=(A, H, D)) / np.sqrt(H) for _ in range(3))
    W_o = rng.normal(size=(A * D, H)) / np.sqrt(H)
    return X, W_q, W_k, W_v, W_o


def _causal_additive_torch(n: int):
    """The (1, 1, n, n) additive causal mask (0 / -inf) that transformers' blocks accept."""
    import torch

    return torch.full((n, n), float("-inf"), dtype=torch.float64).triu(1)[None, None]


def _check_concat_h_undefined() -> bool:
    # Concat of the A heads is (n, A*D), what W^O in R^{AD x H} accepts; any other count fails.
    from .formulas import attention, concat

    X, W_q, W_k, W_v, W_o = _mhsa_example_10(A=2)
    heads = [attention(X @ W_q[i], X @ W_k[i], X @ W_v[i]) for i in range(2)]
    if (concat(*heads) @ W_o).shape != X.shape:
        return False
    for h in (1, 3):
        try:
            concat(*[heads[0]] * h) @ W_o
        except ValueError:
            continue
        return False
    return True


def _check_mhsa_no_biases() -> bool:
    # transformers' GPT-2 attention has biases on Q, K, V and on the output projection: with them
    # the box reproduces it to rounding; without them (the box as written) it does not.
    import numpy as np
    import torch
    from transformers import GPT2Config
    from transformers.models.gpt2.modeling_gpt2 import GPT2Attention

    from .formulas import attention, concat, mask_autoregressive

    H, A, n = 8, 2, 5
    D = H // A
    torch.manual_seed(0)
    cfg = GPT2Config(n_embd=H, n_head=A, n_positions=16, attn_pdrop=0.0, resid_pdrop=0.0,
                     attn_implementation="eager")
    attn = GPT2Attention(cfg, layer_idx=0).double().eval()
    with torch.no_grad():
        for p in attn.parameters():
            p.normal_(0.0, 0.5)  # non-zero biases, as in the trained GPT-2
    X = np.random.default_rng(0).normal(size=(n, H))
    ref = attn(torch.tensor(X)[None], attention_mask=_causal_additive_torch(n))[0][0]
    ref = ref.detach().numpy()
    W, b = attn.c_attn.weight.detach().numpy(), attn.c_attn.bias.detach().numpy()  # (H, 3H)
    W_o, b_o = attn.c_proj.weight.detach().numpy(), attn.c_proj.bias.detach().numpy()
    M = mask_autoregressive(n)

    def box(with_bias: bool) -> np.ndarray:
        heads = []
        for i in range(A):
            cols = [slice(part * H + i * D, part * H + (i + 1) * D) for part in range(3)]
            q, k, v = (X @ W[:, c] + (b[c] if with_bias else 0.0) for c in cols)
            heads.append(attention(q, k, v, M))
        return concat(*heads) @ W_o + (b_o if with_bias else 0.0)

    return bool(np.abs(box(True) - ref).max() < 1e-10 and np.abs(box(False) - ref).max() > 1e-2)


def _check_heads_share_weights() -> bool:
    # The (H, A*D) matrix of Step 7.1 is [W_1^Q | ... | W_A^Q]: head i reads only its own D columns.
    import numpy as np

    from .formulas import mask_autoregressive, masked_softmax, split_heads

    X, W_q, W_k, W_v, _ = _mhsa_example_10(A=2)
    D = W_q.shape[2]
    M = mask_autoregressive(X.shape[0])

    def fused(W: np.ndarray) -> np.ndarray:  # (A, H, D) -> (H, A*D)
        return np.concatenate(list(W), axis=1)

    def patterns(Wq: np.ndarray) -> np.ndarray:  # (A, n, n): each head's attention weights
        Q, K = (split_heads((X @ Wm)[None], 2)[0] for Wm in (Wq, fused(W_k)))
        return masked_softmax(Q @ K.transpose(0, 2, 1) / np.sqrt(D), M)

    base = patterns(fused(W_q))
    changed = fused(W_q).copy()
    changed[:, D:] += 1.0  # edit only the columns of head 2
    new = patterns(changed)
    return bool(not np.allclose(base[0], base[1])  # the heads attend differently
                and np.array_equal(new[0], base[0])  # head 1 does not see the edit
                and np.abs(new[1] - base[1]).max() > 1e-3)  # head 2 does


def _check_masked_weights() -> bool:
    # Causality comes from the mask on the scores, whatever W^O is: W^O acts on each row alone.
    import numpy as np

    from .formulas import mask_autoregressive, mask_bidirectional, multi_head_self_attention

    X, W_q, W_k, W_v, _ = _mhsa_example_10(A=2)
    n, H = X.shape
    X2 = X.copy()
    X2[-1] += 3.0  # change the last token only
    ok = True
    for seed in range(3):
        W_o = np.random.default_rng(seed + 10).normal(size=(H, H))
        for mask, leaks in ((mask_autoregressive(n), False), (mask_bidirectional(n), True)):
            d = np.abs(multi_head_self_attention(X2, mask, W_q, W_k, W_v, W_o)
                       - multi_head_self_attention(X, mask, W_q, W_k, W_v, W_o))[:-1].max()
            ok = ok and bool(d > 1e-6) == leaks
    return ok


def _check_gelu_sigmoid_as_exact() -> bool:
    # x*sigmoid(1.702x) is 40x farther from GELU than the tanh form that GPT and GPT-2 use.
    import torch
    import torch.nn.functional as F
    from transformers.activations import ACT2FN
    from transformers.models.openai.modeling_openai import ACT_FNS

    x = torch.linspace(-8, 8, 16001, dtype=torch.float64)
    exact = F.gelu(x)
    err_sigmoid = (x * torch.sigmoid(1.702 * x) - exact).abs().max().item()
    err_tanh = (F.gelu(x, approximate="tanh") - exact).abs().max().item()
    tanh = F.gelu(x, approximate="tanh")
    gpt1 = (ACT_FNS["gelu"](x) - tanh).abs().max().item()  # OpenAI GPT's "gelu"
    gpt2 = (ACT2FN["gelu_new"](x) - tanh).abs().max().item()  # GPT-2's "gelu_new"
    return err_sigmoid > 0.02 and err_tanh < 5e-4 and gpt1 < 1e-12 and gpt2 < 1e-12


def _check_ffn_relu_003() -> bool:
    # GPT-1's feed-forward network (transformers' OpenAI GPT MLP) is GELU, not ReLU.
    import numpy as np
    import torch
    from transformers import OpenAIGPTConfig
    from transformers.models.openai.modeling_openai import MLP

    from .formulas import ffn_gelu, ffn_relu

    H = 8
    cfg = OpenAIGPTConfig(n_embd=H, n_head=2, resid_pdrop=0.0)
    torch.manual_seed(0)
    mlp = MLP(4 * H, cfg).double().eval()
    with torch.no_grad():
        for p in mlp.parameters():
            p.normal_(0.0, 0.5)
    X = np.random.default_rng(0).normal(size=(5, H))
    ref = mlp(torch.tensor(X)).detach().numpy()
    params = [t.detach().numpy() for t in (mlp.c_fc.weight, mlp.c_fc.bias,
                                          mlp.c_proj.weight, mlp.c_proj.bias)]
    return bool(cfg.afn == "gelu"
                and np.abs(ffn_gelu(X, *params, approximation="tanh") - ref).max() < 1e-12
                and np.abs(ffn_relu(X, *params) - ref).max() > 1e-2)


def _check_ffn_shapes_003() -> bool:
    # Column-vector form W2 . act(W1 . h + b1) + b2 needs W1 (4d x d), W2 (d x 4d), as nn.Linear.
    import numpy as np
    import torch

    d = 8
    h, hidden = np.ones((d, 1)), np.ones((4 * d, 1))  # one position; its 4d hidden units
    for M in (1, d, 4 * d):  # whatever M stands for
        for W, v in ((np.ones((M, d)), hidden), (np.ones((M, 4 * d)), h)):  # W2 . hidden, W1 . h
            try:
                W @ v
            except ValueError:
                continue
            return False
    up, down = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)
    return tuple(up.weight.shape) == (4 * d, d) and tuple(down.weight.shape) == (d, 4 * d)


def _gpt2_mlp_example():
    """A GPT-2 MLP (transformers) with random non-small weights, its input and its output."""
    import numpy as np
    import torch
    from transformers import GPT2Config
    from transformers.models.gpt2.modeling_gpt2 import GPT2MLP

    H = 8
    torch.manual_seed(0)
    mlp = GPT2MLP(4 * H, GPT2Config(n_embd=H, n_head=2, resid_pdrop=0.0)).double().eval()
    with torch.no_grad():
        for p in mlp.parameters():
            p.normal_(0.0, 0.5)
    Z4 = np.random.default_rng(0).normal(size=(5, H))
    ref = mlp(torch.tensor(Z4)).detach().numpy()
    params = [t.detach().numpy() for t in (mlp.c_fc.weight, mlp.c_fc.bias,
                                          mlp.c_proj.weight, mlp.c_proj.bias)]
    return Z4, params, ref


def _check_ffn_table_z1() -> bool:
    # GELU once matches GPT-2's MLP; GELU twice, or not at all, does not.
    import numpy as np

    from .formulas import gelu

    Z4, (W1, b1, W2, b2), ref = _gpt2_mlp_example()
    pre = Z4 @ W1 + b1
    once = gelu(pre, "tanh") @ W2 + b2
    twice = gelu(gelu(pre, "tanh"), "tanh") @ W2 + b2
    never = pre @ W2 + b2
    err = [float(np.abs(y - ref).max()) for y in (once, twice, never)]
    return err[0] < 1e-12 and err[1] > 1e-2 and err[2] > 1e-2


def _check_layernorm_std_eps() -> bool:
    # (x - mu) / (std + eps) is not torch's LayerNorm: tiny gap for std ~ 1, 3x for std ~ 1e-3.
    import torch
    import torch.nn.functional as F

    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 768, generator=g, dtype=torch.float64)

    def variant(x: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
        mu = x.mean(-1, keepdim=True)
        sd = x.std(-1, keepdim=True, unbiased=False)
        return (x - mu) / (sd + eps)

    typical = (variant(x) - F.layer_norm(x, (768,), eps=1e-5)).abs().max().item()
    flat = x * 1e-3  # a nearly constant row: std about 1e-3
    ratio = (variant(flat) / F.layer_norm(flat, (768,), eps=1e-5)).mean().item()
    return 0 < typical < 1e-4 and ratio > 3


def _check_layernorm_eps_unspecified() -> bool:
    # GPT and GPT-2 use eps = 1e-5; the value matters for a nearly flat row (BERT uses 1e-12).
    import torch
    import torch.nn.functional as F
    from transformers import BertConfig, GPT2Config, OpenAIGPTConfig

    eps = {OpenAIGPTConfig().layer_norm_epsilon, GPT2Config().layer_norm_epsilon}
    x = torch.tensor([[1.0, 1.002, 0.998, 1.0]], dtype=torch.float64)
    a = F.layer_norm(x, (4,), eps=1e-5)
    b = F.layer_norm(x, (4,), eps=BertConfig().layer_norm_eps)
    return eps == {1e-5} and (a - b).abs().max().item() > 0.1


def _check_step6_input() -> bool:
    # Step 4's output has no positions: a repeated token gives identical rows, Step 5's does not.
    import numpy as np

    from .formulas import embed, layer_norm, positional_encoding_sinusoidal

    rng = np.random.default_rng(0)
    H = 8
    W_e = rng.normal(size=(5, H))
    ids = np.array([3, 1, 3])  # the same token at positions 1 and 3
    step4 = embed(ids, W_e)
    step5 = step4 + positional_encoding_sinusoidal(3, H)
    g, b = np.ones(H), np.zeros(H)
    z4, z5 = layer_norm(step4, g, b), layer_norm(step5, g, b)
    return bool(np.array_equal(z4[0], z4[2]) and not np.allclose(z5[0], z5[2]))


def _check_ffn_input_z4() -> bool:
    # In transformers' GPT-2 block the MLP receives ln_2(Z_3), not the residual sum Z_3.
    import numpy as np
    import torch
    from transformers import GPT2Config
    from transformers.models.gpt2.modeling_gpt2 import GPT2Block

    H, n = 8, 5
    torch.manual_seed(0)
    cfg = GPT2Config(n_embd=H, n_head=2, n_positions=16, resid_pdrop=0.0, attn_pdrop=0.0,
                     attn_implementation="eager")
    blk = GPT2Block(cfg, layer_idx=0).double().eval()
    seen: dict = {}
    hooks = [blk.mlp.register_forward_hook(lambda m, i, o: seen.update(z4=i[0])),
             blk.attn.register_forward_hook(lambda m, i, o: seen.update(z2=o[0]))]
    X = torch.tensor(np.random.default_rng(0).normal(size=(1, n, H)) * 3.0)
    with torch.no_grad():
        blk(X, attention_mask=_causal_additive_torch(n))
        z3 = X + seen["z2"]
        ln_z3 = blk.ln_2(z3)
    for h in hooks:
        h.remove()
    return bool(torch.allclose(seen["z4"], ln_z3, atol=1e-12)
                and (seen["z4"] - z3).abs().max().item() > 0.1)


ERRATA += [
    Erratum(
        key="concat-h-undefined", sources=("000", "001"),
        section="Concatenation and Masked Multi-Head Self-Attention boxes",
        says=r"$\text{Concat}(\bm{X}_1, \ldots, \bm{X}_h)$ with $k = 1, \ldots, A$, and "
             r"$\text{Concat}(\text{head}_1, \ldots, \text{head}_h)\bm{W}^O$; the letter $h$ "
             "is never defined.",
        correct=r"The number of heads is $A$: $\text{Concat}(\text{head}_1, \ldots, "
                r"\text{head}_A)$, of shape $n \times AD$, the only width that "
                r"$\bm{W}^O \in \R^{AD \times H}$ accepts.",
        chapter="chapters/10_multi_head", check=_check_concat_h_undefined),
    Erratum(
        key="mhsa-no-biases", sources=("000", "001"),
        section="Masked Multi-Head Self-Attention box (parameters)",
        says=r"The parameters are $\bm{W}_i^Q, \bm{W}_i^K, \bm{W}_i^V, \bm{W}^O$ only.",
        correct=r"GPT and GPT-2 also add biases: $\bm{X}\bm{W}_i^Q + \bm{b}_i^Q$ (likewise "
                r"for $K$, $V$) and $\ldots\bm{W}^O + \bm{b}^O$, that is $3AD + H$ more "
                "parameters per layer; with them the box reproduces transformers' "
                "`GPT2Attention`, without them it does not.",
        chapter="chapters/10_multi_head", check=_check_mhsa_no_biases, kind="omission"),
    Erratum(
        key="heads-share-weights", sources=("002",),
        section="Step 7.1 (linear projections)",
        says="\"we are using the same weight matrices for all heads, weight/parameters "
             "sharing\" (of the $D \\times D$ matrices $\\bm{W}^{Q}, \\bm{W}^{K}, \\bm{W}^{V}$).",
        correct=r"Nothing is shared between heads: the big matrix is "
                r"$[\bm{W}_1^Q \,|\, \cdots \,|\, \bm{W}_A^Q] \in \R^{H \times AD}$ and head "
                r"$i$ uses only its own $D$ columns; editing them changes head $i$ alone.",
        chapter="chapters/10_multi_head", check=_check_heads_share_weights),
    Erratum(
        key="masked-weights", sources=("002",),
        section="Masked Multi-Head Attention for Decoder Layer ℓ",
        says=r"$\bm{W}_h^{Q,M}, \bm{W}_h^{K,M}, \bm{W}_h^{V,M}$ are \"masked weight matrices\" "
             r"and $\bm{W}^{O,M}$ is \"the masked output transformation matrix ... ensuring that "
             "future tokens do not influence the predictions\".",
        correct=r"The weights are ordinary matrices (the same ones serve masked and unmasked "
                r"attention). Causality comes from the mask added to the scores alone; "
                r"$\bm{W}^O$ acts on each row separately and can neither cause nor prevent "
                "a leak from the future.",
        chapter="chapters/10_multi_head", check=_check_masked_weights),
    Erratum(
        key="gelu-sigmoid-as-exact", sources=("000", "001"),
        section="Feed-Forward GELU Network box",
        says=r"$\text{GELU}(\bm{X}) = \bm{X} \odot \text{sigmoid}(1.702\bm{X})$, as the "
             "definition of GELU.",
        correct=r"$\text{GELU}(x) = x\,\Phi(x)$; $x\,\sigma(1.702x)$ is an approximation, off by "
                r"up to $0.0203$ (at $|x| \approx 2.27$). GPT and GPT-2 use the tanh "
                r"approximation, off by at most $4.7 \times 10^{-4}$.",
        chapter="chapters/11_ffn_gelu", check=_check_gelu_sigmoid_as_exact),
    Erratum(
        key="ffn-relu-003", sources=("003",),
        section="Single Layer: FFN",
        says=r"$\text{FFN}(\mathcal{H}) = \bm{W}_2 \cdot \text{ReLU}[\bm{W}_1 \cdot \mathcal{H} "
             r"+ \bm{b}_1] + \bm{b}_2$ for GPT.",
        correct="GPT's feed-forward network uses GELU (GPT-1 paper; transformers' OpenAI GPT "
                "configuration `afn=\"gelu\"`, its tanh form).",
        chapter="chapters/11_ffn_gelu", check=_check_ffn_relu_003),
    Erratum(
        key="ffn-shapes-003", sources=("003",),
        section="Single Layer: FFN parameter shapes",
        says=r"$\bm{W}_1 \in \R^{M \times 4d}$, $\bm{W}_2 \in \R^{M \times d}$.",
        correct=r"In the column-vector form $\bm{W}_2 \cdot \text{act}[\bm{W}_1 \cdot \bm{h} + "
                r"\bm{b}_1] + \bm{b}_2$: $\bm{W}_1 \in \R^{4d \times d}$, "
                r"$\bm{W}_2 \in \R^{d \times 4d}$ (the shapes of `torch.nn.Linear` weights); the "
                r"book's row form uses the transposes $H \times F$ and $F \times H$. With the "
                r"shapes as written neither product is defined, whatever $M$ is.",
        chapter="chapters/11_ffn_gelu", check=_check_ffn_shapes_003),
    Erratum(
        key="ffn-table-z1", sources=("002",),
        section="Step 10 (position-wise FFN) and its matrix description table",
        says=r"$\bm{Z}^{FF}_1 = \text{GELU}(\bm{Z}_4\bm{W}_1 + \bm{b}_1)$, yet the note and the "
             r"table call $\bm{Z}^{FF}_1$ the output of the first linear transformation and "
             r"apply the activation again as $\sigma(\bm{Z}^{FF}_1)$.",
        correct=r"GELU is applied exactly once: $\bm{Z}_5 = \text{GELU}(\bm{Z}_4\bm{W}_1 + "
                r"\bm{b}_1)\bm{W}_2 + \bm{b}_2$. Applying it twice (or not at all) no longer "
                "matches GPT-2's MLP.",
        chapter="chapters/11_ffn_gelu", check=_check_ffn_table_z1),
    Erratum(
        key="layernorm-std-eps", sources=("002",),
        section="Step 6 (layer normalization code)",
        says=r"Code `gamma * (x - mean) / (std + eps) + beta`, under the formula "
             r"$(\bm{x}_t - \mu_t)/\sqrt{\sigma_t^2 + \epsilon}$.",
        correct=r"The formula (and `torch.nn.LayerNorm`) put $\epsilon$ inside the root: "
                r"$(\bm{x} - \mu)/\sqrt{\sigma^2 + \epsilon}$. The code's version differs by about "
                r"$\epsilon/2$ relatively when $\sigma \approx 1$, and by a factor of more "
                r"than 3 when $\sigma \approx 10^{-3}$.",
        chapter="chapters/12_layernorm_residual", check=_check_layernorm_std_eps),
    Erratum(
        key="layernorm-eps-unspecified", sources=("000", "001"),
        section="Hyperparameters: Epsilon in Layer Normalization",
        says=r"Lists $\epsilon$ without a value.",
        correct=r"GPT and GPT-2 use $\epsilon = 10^{-5}$ (BERT uses $10^{-12}$); the value "
                "changes the output of LayerNorm for rows whose variance is small.",
        chapter="chapters/12_layernorm_residual", check=_check_layernorm_eps_unspecified,
        kind="omission"),
    Erratum(
        key="step6-input-step4", sources=("002",),
        section="Step 6 and \"Layer Normalization Before Projection\" (step numbers)",
        says=r"For $\ell = 1$, $\tilde{\bm{X}}$ is \"the output from Step 4 (Positional "
             "Embedding)\"; the final LayerNorm is titled \"Step 10\".",
        correct=r"$\tilde{\bm{X}}$ is the output of Step 5 (positional embedding); Step 4's "
                "output has no positions. The final LayerNorm follows Step 11 (Step 10 is the "
                "FFN), so it is Step 12.",
        chapter="chapters/12_layernorm_residual", check=_check_step6_input),
    Erratum(
        key="ffn-input-z4", sources=("002",),
        section="Step 10 matrix description table, row \"Input to FFN in Layer ℓ\"",
        says=r"$\bm{Z}_4$ is the \"output from the residual connection that adds the normalized "
             "self-attention outputs to the initial input embeddings\".",
        correct=r"$\bm{Z}_4 = \text{LayerNorm}(\bm{Z}_3)$, and the residual sum is "
                r"$\bm{Z}_3 = \tilde{\bm{X}} + \text{MaskedMultiHead}(\text{LayerNorm}"
                r"(\tilde{\bm{X}}))$: in a pre-LN block the attention's input is normalized, "
                "not its output.",
        chapter="chapters/12_layernorm_residual", check=_check_ffn_input_z4),
]

# == chapters 13-16 (models, parameters) =======================================================


def _effects_13(kind: str) -> dict:
    """Max |Δ| of our probabilities from transformers', per omission (see hf.omission_effects)."""
    from formulated.models import hf

    return hf.omission_effects(kind)


def _check_models_gelu_form() -> bool:
    """With every other piece in place, the box's x·σ(1.702x) alone moves the probabilities of
    GPT, GPT-2, BERT and RoBERTa visibly; their own GELU (tanh or erf) matches to 1e-12."""
    effects = {k: _effects_13(k) for k in ("openai-gpt", "gpt2", "bert", "roberta")}
    return all(e["none"] < 1e-12 and e["gelu"] > 1e-4 for e in effects.values())


def _check_gpt3_sparse_undefined() -> bool:
    """Mask^ST is needed (GPT-3 ≠ GPT-2 once n exceeds the band) and the banded pattern we define
    is exactly GPT-Neo's local attention, the public model with GPT-3's alternation."""
    import numpy as np

    from formulated.models import hf
    from formulated.models import Config, gpt2_probabilities, gpt3_masks, gpt3_probabilities

    cfg = Config(V=40, n_ctx=12, H=16, A=4, L=2)
    model = hf.tiny_model("gpt-neo", cfg, window=3)
    params, opts = hf.from_gpt_neo(model)
    x = np.arange(2, 12)
    Y3 = gpt3_probabilities(x, params, **opts)
    Y2 = gpt2_probabilities(x, params, gelu=opts["gelu"], eps=opts["eps"])
    local = model.transformer.h[0].attn.attention.bias[0, 0].numpy()
    return (np.abs(Y3 - hf.hf_probabilities(model, x)).max() < 1e-6
            and np.abs(Y2 - Y3).max() > 1e-3
            and bool(np.array_equal(gpt3_masks(12, 2, 3)[0] == 0, local)))


def _check_gpt3_mask_shape() -> bool:
    """A mask compares every query with every key: (n, n), not the (n, H) the box writes."""
    import numpy as np

    from formulated.models import gpt3_masks, init_gpt2, Config
    from formulated.formulas import multi_head_self_attention

    n, H = 5, 8
    p = init_gpt2(Config(V=10, n_ctx=n, H=H, A=2, L=1))
    b = p.blocks[0]
    mask = gpt3_masks(n, 1, 2)[0]
    try:  # a mask of the box's shape (n, H) is rejected by attention
        multi_head_self_attention(np.ones((n, H)), np.zeros((n, H)), b.W_q, b.W_k, b.W_v, b.W_o)
        wrong_fits = True
    except ValueError:
        wrong_fits = False
    return mask.shape == (n, n) and not wrong_fits


def _check_versions_gpt2_mixed() -> bool:
    """003's GPT-2 column (48 layers, width 1,024, 16 heads, '1.5B~15B') matches no GPT-2: those
    sizes give 0.6B parameters; 1,024/16 heads is Medium (24 layers, 355M); 48 layers is XL
    (width 1,600, 25 heads, 1.56B)."""
    import torch
    import transformers as T

    from formulated.models import parameter_count

    def real(**kw) -> int:
        with torch.device("meta"):
            m = T.GPT2Model(T.GPT2Config(**kw))
        return sum(p.numel() for p in m.parameters())

    table = parameter_count(50257, 1024, 1024, 4096, 64, 16, 48, attention_biases=True,
                            final_layer_norm=True)
    medium = real(n_embd=1024, n_layer=24, n_head=16)
    xl = real(n_embd=1600, n_layer=48, n_head=25)
    return (0.5e9 < table < 0.7e9 and abs(medium - 355e6) < 1e6 and abs(xl - 1.558e9) < 1e6)


def _check_bert_ffn_relu() -> bool:
    """BERT's feed-forward network is a GELU network (hidden_act='gelu'); with ReLU, as 000's
    box writes, the probabilities move visibly."""
    import transformers as T

    return T.BertConfig().hidden_act == "gelu" and _effects_13("bert")["relu"] > 1e-3


def _check_bert_segment_labels() -> bool:
    """With 001's own t (0 for [CLS], sentence A and the first [SEP]) the box's diag(t)·Stack(w_A)
    gives w_A to sentence B; the real model (token-type row 0 for sentence A) is reproduced only
    with the labels the other way round."""
    import numpy as np

    from formulated.formulas import diag, stack
    from formulated.models import bert_input

    x_masked, t, x = bert_input([5, 6], [7, 8, 9], None, cls_id=2, sep_id=3, mask_id=4)
    w_A, w_B = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    n = len(x)
    literal = diag(t) @ stack(w_A, n) + diag(1 - t) @ stack(w_B, n)
    sentence_A = slice(1, 3)  # positions of x_A (0-based)
    return (bool(np.all(literal[sentence_A] == w_B))
            and _effects_13("bert")["segment_labels"] > 1e-3)


def _check_bert_jmasked_range() -> bool:
    """In x' = ([CLS], x^A, [SEP], x^B, [SEP]) the sentence tokens sit at (1-based) positions
    2..n_A+1 and n_A+3..n_A+n_B+2; the box's range {1..n_A+n_B} includes [CLS] (and the first
    [SEP] once n_B ≥ 2) and misses the last tokens of x^B."""
    from formulated.models import bert_input

    n_A, n_B = 2, 3
    _, _, x = bert_input([5] * n_A, [7] * n_B, None, cls_id=2, sep_id=3, mask_id=4)
    real = {i + 1 for i, v in enumerate(x) if v not in (2, 3)}  # 1-based sentence positions
    box = set(range(1, n_A + n_B + 1))
    return real == set(range(2, n_A + 2)) | set(range(n_A + 3, n_A + n_B + 3)) and box != real


def _check_bert_embedding_layernorm() -> bool:
    e = _effects_13("bert")
    r = _effects_13("roberta")
    return e["none"] < 1e-12 and e["embedding_layernorm"] > 1e-3 and r["embedding_layernorm"] > 1e-3


def _check_bert_mlm_head() -> bool:
    e = _effects_13("bert")
    r = _effects_13("roberta")
    return min(e["mlm_head"], e["output_bias"], r["mlm_head"], r["output_bias"]) > 1e-3


def _check_roberta_positions() -> bool:
    """transformers' RoBERTa gives the first token position pad_id + 1 = 2; reading W_p from row 0
    (as the box's W_p would) or leaving out the token-type vector moves the probabilities."""
    import torch

    from formulated.models import hf
    from formulated.models import Config

    model = hf.tiny_model("roberta", Config(V=40, n_ctx=12, H=16, A=4, L=2))
    ids = torch.tensor([[5, 6, 7]])
    pos = model.roberta.embeddings.create_position_ids_from_input_ids(ids, 1)
    r = _effects_13("roberta")
    return pos.tolist() == [[2, 3, 4]] and r["position_offset"] > 1e-3 and r["token_type"] > 1e-3


def _check_lambda_omits_biases() -> bool:
    """λ = 116,497,920 for GPT-1; transformers' OpenAIGPTModel has 116,534,784 parameters: the
    difference, 36,864 = 12·(3·768 + 768), is exactly the attention biases."""
    import torch
    import transformers as T

    from formulated.models import parameter_count

    with torch.device("meta"):
        numel = sum(p.numel() for p in T.OpenAIGPTModel(T.OpenAIGPTConfig()).parameters())
    lam = parameter_count(40478, 512, 768, 3072, 64, 12, 12)
    return lam == 116_497_920 and numel == 116_534_784 and numel - lam == 12 * (3 * 768 + 768)


ERRATA += [
    Erratum(
        key="models-gelu-form", sources=("000", "001"),
        section="GPT, GPT-2, BERT and RoBERTa boxes (FFN_GELU inside each layer)",
        says=r"Every layer uses $\text{FFN}_\text{GELU}$ with "
             r"$\text{GELU}(\bm{X}) = \bm{X} \odot \text{sigmoid}(1.702\bm{X})$.",
        correct="The real models use other GELU forms: GPT and GPT-2 the tanh approximation, "
                "BERT and RoBERTa the exact erf form. With the box's sigmoid form, and everything "
                "else equal, the next-token probabilities of a small random model move by "
                "about $10^{-3}$ instead of matching to $10^{-16}$.",
        chapter="chapters/13_gpt", check=_check_models_gelu_form, kind="omission"),
    Erratum(
        key="gpt3-sparse-mask-undefined", sources=("001",),
        section="GPT-3 box",
        says=r"$\text{Mask}^{(l)} = \text{Mask}^\text{ST}$ for odd $l$; "
             r"$\text{Mask}^\text{ST}$ is never defined.",
        correct=r"GPT-3 alternates dense layers with *locally banded* sparse attention (after "
                r"the Sparse Transformer): query $i$ attends to keys $j$ with "
                r"$0 \le i - j < w$. The band width $w$ is not published; GPT-Neo, which copies "
                "the alternation, uses the same pattern, and our banded mask equals its local mask.",
        chapter="chapters/14_gpt2_gpt3", check=_check_gpt3_sparse_undefined, kind="omission"),
    Erratum(
        key="gpt3-mask-shape", sources=("001",),
        section="GPT-3 box (shape column)",
        says=r"$\text{Mask}^{(l)}$ is annotated $(n \times H)$.",
        correct=r"A mask has one entry per (query, key) pair: $n \times n$.",
        chapter="chapters/14_gpt2_gpt3", check=_check_gpt3_mask_shape),
    Erratum(
        key="versions-gpt2-mixed", sources=("003",),
        section="Version table (GPT-2 column)",
        says="GPT-2: embedding dimension 1,024, 48 decoder layers, 16 heads, 1.5B~15B parameters.",
        correct="Width 1,024 with 16 heads is GPT-2 Medium (24 layers, 355M parameters); 48 layers "
                "is GPT-2 XL (width 1,600, 25 heads, 1.56B). The mixed column would have about "
                "0.6B parameters, and no GPT-2 has 15B.",
        chapter="chapters/14_gpt2_gpt3", check=_check_versions_gpt2_mixed),
    Erratum(
        key="bert-ffn-relu", sources=("000",),
        section="BERT box",
        says=r"$\bm{X}_l = \text{LayerNorm}(\text{FFN}_\text{RELU}(\bm{X}_l') + \bm{X}_l')$.",
        correct=r"BERT's feed-forward network uses GELU (`hidden_act=\"gelu\"`, the erf form); "
                "the revision 001 corrects the box to $\\text{FFN}_\\text{GELU}$.",
        chapter="chapters/15_bert_roberta", check=_check_bert_ffn_relu),
    Erratum(
        key="bert-segment-labels", sources=("001",),
        section="BERT: input construction and box",
        says=r"$t_i = 0$ for $[\text{CLS}]$, $\bm{x}^A$ and the first $[\text{SEP}]$, and "
             r"$\bm{X}^{(0)} = \bm{X}'^{(0)} + \text{diag}(\bm{t})\,\text{Stack}_n(\bm{w}^A) + "
             r"\text{diag}(1-\bm{t})\,\text{Stack}_n(\bm{w}^B)$.",
        correct=r"With that $\bm{t}$ the box gives $\bm{w}^A$ to sentence B. The segment vector "
                r"of sentence A goes with $t_i = 0$: "
                r"$\text{diag}(1-\bm{t})\,\text{Stack}_n(\bm{w}^A) + "
                r"\text{diag}(\bm{t})\,\text{Stack}_n(\bm{w}^B)$ (BERT's token-type row 0).",
        chapter="chapters/15_bert_roberta", check=_check_bert_segment_labels),
    Erratum(
        key="bert-jmasked-range", sources=("001",),
        section="BERT box (input $j^\\text{masked}$)",
        says=r"$j^\text{masked} \in \{1, 2, \ldots, n_A + n_B\}$.",
        correct=r"$\bm{x}'$ has $n = n_A + n_B + 3$ positions; the sentence tokens are at "
                r"$2, \ldots, n_A + 1$ and $n_A + 3, \ldots, n_A + n_B + 2$. The box's range "
                r"contains $[\text{CLS}]$ and misses the end of $\bm{x}^B$.",
        chapter="chapters/15_bert_roberta", check=_check_bert_jmasked_range),
    Erratum(
        key="bert-embedding-layernorm", sources=("000", "001"),
        section="BERT and RoBERTa boxes (embedding)",
        says=r"$\bm{X}^{(0)}$ is the sum of token, position (and segment) embeddings.",
        correct=r"BERT and RoBERTa normalise that sum: "
                r"$\bm{X}^{(0)} = \text{LayerNorm}_e(\ldots)$, with its own "
                r"$\bm{\gamma}_e, \bm{\beta}_e$.",
        chapter="chapters/15_bert_roberta", check=_check_bert_embedding_layernorm,
        kind="omission"),
    Erratum(
        key="bert-mlm-head", sources=("000", "001"),
        section="BERT and RoBERTa boxes (output)",
        says=r"$\text{Softmax}(\bm{X}^{(L)}_{j,:} \bm{W}_e^\top)$.",
        correct=r"The masked-LM head first transforms the row, "
                r"$\text{LayerNorm}_t(\text{GELU}(\bm{x}\bm{W}_t + \bm{b}_t))$, and adds an output "
                r"bias: $\text{Softmax}(\ldots\bm{W}_e^\top + \bm{b}_\text{out})$; "
                r"$H^2 + 4H + V$ more parameters.",
        chapter="chapters/15_bert_roberta", check=_check_bert_mlm_head, kind="omission"),
    Erratum(
        key="roberta-positions", sources=("001",),
        section="RoBERTa box (embedding)",
        says=r"$\bm{X}^{(0)} = \text{OneHot}(\bm{x}')\bm{W}_e + \bm{W}_p$, no token types.",
        correct=r"The implementation counts positions from $\text{pad} + 1 = 2$ (rows 0 and 1 of "
                r"its position table are never used for unpadded text) and still adds one "
                r"token-type vector to every position.",
        chapter="chapters/15_bert_roberta", check=_check_roberta_positions, kind="omission"),
    Erratum(
        key="lambda-omits-biases", sources=("000", "001"),
        section="Parameters (λ) and Hyperparameters",
        says=r"$\lambda = 116\,497\,920$ for GPT-1.",
        correct=r"That is what the formula gives, but the real GPT-1 has 116,534,784 "
                r"parameters: $\lambda$ leaves out the attention biases, "
                r"$L(3AD + H) = 36\,864$. GPT-2 small has 124,439,808 (biases and the "
                "final LayerNorm included, output matrix tied to $\\bm{W}_e$).",
        chapter="chapters/16_parameters", check=_check_lambda_omits_biases, kind="omission"),
]

# == chapter 17 (training objective) ===========================================================


def _check_loss_without_log() -> bool:
    """000's loss −Σ_j Y_{j−1,x_j} is not the NLL, and its minimiser is not the likelihood's.

    Unigram model q over two tokens, data: token 1 three times, token 2 once.  The likelihood
    is maximised at the frequencies q = (3/4, 1/4); the log-less objective Σ_j q_{x_j} at
    q = (1, 0), a model that calls an observed token impossible.
    """
    import numpy as np

    data = np.array([0, 0, 0, 1])
    grid = np.linspace(0, 1, 10_001)                      # q = (a, 1 − a)
    Q = np.stack([grid, 1 - grid], axis=1)
    with np.errstate(divide="ignore"):
        loglik = np.log(Q[:, data]).sum(axis=1)
    no_log = Q[:, data].sum(axis=1)
    a_mle, a_no_log = grid[np.argmax(loglik)], grid[np.argmax(no_log)]
    q = np.array([0.6, 0.4])
    values_differ = abs(-np.log(q[data]).sum() - (-q[data].sum())) > 1
    return bool(abs(a_mle - 0.75) < 1e-9 and a_no_log == 1.0 and values_differ)


def _check_loss_missing_index() -> bool:
    """001's last line takes log of a whole softmax row (a vector); the loss needs entry x_j."""
    import numpy as np
    import torch

    from .formulas import softmax

    rng = np.random.default_rng(0)
    n, V = 5, 7
    logits = rng.normal(size=(n, V))                      # row j−1 predicts token j
    x = rng.integers(0, V, n)
    literal = -sum(np.log(softmax(logits[j - 1])) for j in range(1, n))   # shape (V,)
    nll = torch.nn.functional.cross_entropy(torch.from_numpy(logits[:-1]), torch.from_numpy(x[1:]),
                                            reduction="sum").item()
    picked = -sum(np.log(softmax(logits[j - 1])[x[j]]) for j in range(1, n))
    return bool(np.shape(literal) == (V,) and abs(picked - nll) < 1e-12
                and np.all(np.abs(literal - nll) > 1e-3) and abs(literal.sum() - nll) > 1e-3)


def _check_bert_independence() -> bool:
    """log P(x_M | x') = Σ_{j∈M} log P(x_j | x') fails when the masked tokens depend on each other.

    Two equally likely sentences, "a a" and "b b"; mask both tokens.  Each masked token alone is
    a coin flip (1/2), but the pair is determined once one is known: P(a a | [M][M]) = 1/2, while
    the product of the two conditionals is 1/4.
    """
    import numpy as np

    from .basics import JointTableModel, bert_log_likelihood

    table = np.array([[0.5, 0.0], [0.0, 0.5]])            # P(x1, x2) over {a, b}²
    model = JointTableModel(table)
    ids = np.array([0, 0])                                # "a a"
    joint = model.cond_log_prob(ids, [0, 1], [])          # log P(x_M | x'), x' = [M][M]
    bert = bert_log_likelihood(model, ids, [0, 1])        # Σ_j log P(x_j | x')
    return bool(abs(np.exp(joint) - 0.5) < 1e-12 and abs(np.exp(bert) - 0.25) < 1e-12)


def _check_tokens_not_iid() -> bool:
    """Tokens within a text depend on their neighbours: P(next | previous) ≠ P(next)."""
    import numpy as np

    text = ("the quick brown fox jumps over the lazy dog. quiet queens quote quaint quilts. "
            "the three thin thieves thought that they thrilled the throne.")
    chars = sorted(set(text))
    idx = {c: i for i, c in enumerate(chars)}
    ids = np.array([idx[c] for c in text])
    V = len(chars)
    unigram = np.bincount(ids, minlength=V) / len(ids)
    pairs = np.zeros((V, V))
    np.add.at(pairs, (ids[:-1], ids[1:]), 1)
    p_u_after_q = pairs[idx["q"], idx["u"]] / pairs[idx["q"]].sum()
    # i.i.d. tokens would make every conditional equal to the marginal
    bigram = pairs / pairs.sum(axis=1, keepdims=True)
    ll_iid = np.log(unigram[ids[1:]]).sum()
    ll_bigram = np.log(bigram[ids[:-1], ids[1:]]).sum()
    return bool(p_u_after_q == 1.0 and unigram[idx["u"]] < 0.1 and ll_bigram > ll_iid + 50)


ERRATA += [
    Erratum(
        key="000-loss-missing-log", sources=("000",), section="Definition (GPT training objective)",
        says="$\\text{loss} = -\\log P(x_2, \\dots, x_n \\mid x_1) = -\\sum_{j=2}^n P(x_j \\mid "
             "x_1, \\dots, x_{j-1}) = -\\sum_{j=2}^n Y_{j-1, x_j}$ (and the same sums without log "
             "in $\\theta^*$)",
        correct="$-\\sum_{j=2}^n \\log P(x_j \\mid x_1, \\dots, x_{j-1}) = -\\sum_{j=2}^n "
                "\\log Y_{j-1, x_j}$: the log of a product is the sum of the logs. Without the "
                "log, the objective prefers a model that gives observed tokens probability 0",
        chapter="chapters/17_training_objective", check=_check_loss_without_log),
    Erratum(
        key="001-loss-missing-index", sources=("001",), section="GPT (training objective)",
        says="$\\text{loss} = -\\sum_{j=2}^n \\log\\left(\\text{Softmax}\\left(\\bm{X}^{(L)}_{j-1,:}"
             "\\bm{W}_e^\\top\\right)\\right)$",
        correct="the log of the softmax row is a vector of $V$ numbers; the loss takes its "
                "entry $x_j$: $-\\sum_{j=2}^n \\log \\text{Softmax}(\\bm{X}^{(L)}_{j-1,:}"
                "\\bm{W}_e^\\top)_{x_j}$",
        chapter="chapters/17_training_objective", check=_check_loss_missing_index),
    Erratum(
        key="001-bert-independence", sources=("001",), section="Statistical interpretation (BERT)",
        says="$\\log P(\\bm{X}_M = \\bm{x}_M; \\bm{\\theta}) = \\sum_{j \\in M} \\log P(X_j = x_j "
             "\\mid X'_1 = x'_1, \\dots, X'_n = x'_n; \\bm{\\theta})$",
        correct="the left side is conditional on $\\bm{X}'$, and the equality holds only if the "
                "masked tokens are independent given $\\bm{X}'$ (the assumption 001 states in its "
                "BERT section); in general BERT's objective is an approximation (≈)",
        chapter="chapters/17_training_objective", check=_check_bert_independence),
    Erratum(
        key="002-tokens-iid", sources=("002",),
        section="The Training Phase: Autoregressive Self-Supervised Learning Paradigm",
        says="each sequence $\\mathbf{x}_n$ “is a sequence of tokens that are sampled i.i.d. "
             "from the distribution $\\mathcal{D}$”",
        correct="the *sequences* of the corpus are modelled as i.i.d.; the tokens within a "
                "sequence are not independent — if they were, every conditional "
                "$P(x_t \\mid x_{<t})$ would equal $P(x_t)$ and there would be nothing for GPT "
                "to learn",
        chapter="chapters/17_training_objective", check=_check_tokens_not_iid),
]

# == chapter 18 (training) =====================================================================


def _check_untied_head() -> bool:
    """GPT-2's output matrix is its token embedding (one tensor); a separate W_s would add V*H."""
    import torch
    import transformers as T

    with torch.device("meta"):  # shapes only
        m = T.GPT2LMHeadModel(T.GPT2Config())
    n_params = sum(p.numel() for p in m.parameters())  # a shared tensor counts once
    return (m.lm_head.weight is m.transformer.wte.weight and n_params == 124_439_808
            and tuple(m.lm_head.weight.shape) == (50257, 768))


ERRATA += [
    Erratum(
        key="002-untied-head", sources=("002",), kind="omission",
        section=r'Table of notations, "Projection Layer Weight Matrix $\bm{W}_s$"',
        says=r"The logits are $\bm{Z}_\text{pre-head}\bm{W}_s$ with a learned matrix "
             r"$\bm{W}_s$ ($D \times V$) of its own; the training Steps never write this "
             r"projection.",
        correct=r"GPT-2 ties the de-embedding to the token embedding, $\bm{W}_s = \bm{W}_e^\top$ "
                r"(one tensor in `transformers`' `GPT2LMHeadModel`); a separate matrix would add "
                r"$50257 \times 768 = 38{,}597{,}376$ parameters to GPT-2 small's 124,439,808.",
        chapter="chapters/18_train_tiny_gpt", check=_check_untied_head),
]


def errata_by_chapter() -> dict[str, list[Erratum]]:
    """Group :data:`ERRATA` by chapter, keeping the order of registration."""
    out: dict[str, list[Erratum]] = {}
    for e in ERRATA:
        out.setdefault(e.chapter, []).append(e)
    return out


def errata_table() -> str:
    """Render every erratum as MyST Markdown for the errata appendix (``{glue}``-free, plain text).

    Each entry links to the label in the chapter that proves it.
    """
    keys = [e.key for e in ERRATA]
    dupes = {k for k in keys if keys.count(k) > 1}
    if dupes:
        raise ValueError(f"ERRATA: expected unique keys, got duplicates {sorted(dupes)}")
    lines: list[str] = []
    for i, e in enumerate(ERRATA, start=1):
        srcs = ", ".join(f"`{s}` ({SOURCES.get(s, '?')})" for s in e.sources)
        tag = "Omission" if e.kind == "omission" else "Error"
        lines += [
            f"**E{i}. {tag} — {e.section}** · source {srcs}  ",
            f"*The source says:* {e.says}  ",
            f"*Correct:* {e.correct}  ",
            # Explicit link text: the label sits before an admonition, which has no title
            # Sphinx could use for a bare {ref}.
            f"*Proof:* {{ref}}`the computation <{e.label}>` in chapter "
            f"{{doc}}`{e.chapter.split('/')[-1]}`",
            "",
        ]
    return "\n".join(lines)
