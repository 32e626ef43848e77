"""Errata of chapters 17–19, the part "Training" (training objective, training a tiny GPT,
inside the model): sources 000–002.

Each check takes a value (the source's or the corrected one) and recomputes the truth
independently -- a maximum-likelihood estimate by counting, ``torch``'s cross-entropy, a joint
probability table, ``transformers``' GPT-2.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable

import numpy as np

from .record import Erratum

__all__ = ["ERRATA", "SAMPLE_TEXT"]

_CH17 = "chapters/17_training_objective"  # 18 and 19: none

#: A short English text for the i.i.d. check ('q' is always followed by 'u').
SAMPLE_TEXT = (
    "the quick brown fox jumps over the lazy dog. quiet queens quote quaint quilts. "
    "the three thin thieves thought that they thrilled the throne."
)


def objective_is_wrong(term: Callable[[np.ndarray], np.ndarray]) -> bool:
    """Does maximizing ``Σ_j term(q_{x_j})`` over unigram models q give the maximum-likelihood
    model?  Data: token 1 three times, token 2 once; the MLE is the frequencies (3/4, 1/4),
    found by counting; the objective is maximized on a grid of q = (a, 1 − a)."""
    data = np.array([0, 0, 0, 1])
    mle = np.bincount(data, minlength=2) / len(data)
    grid = np.linspace(0, 1, 10_001)
    Q = np.stack([grid, 1 - grid], axis=1)
    with np.errstate(divide="ignore"):
        best = grid[np.argmax(term(Q[:, data]).sum(axis=1))]
    return not abs(best - mle[0]) < 1e-9


def loss_term_is_wrong(term: Callable[[np.ndarray, int], Any]) -> bool:
    """Is ``−Σ_j term(softmax row j−1, x_j)`` the sequence's cross-entropy (``torch``, sum)?"""
    import torch

    from ..formulas import softmax

    rng = np.random.default_rng(0)
    n, V = 5, 7
    logits = rng.normal(size=(n, V))  # row j−1 predicts token j
    x = rng.integers(0, V, n)
    loss = -sum(term(softmax(logits[j - 1]), int(x[j])) for j in range(1, n))
    nll = torch.nn.functional.cross_entropy(
        torch.from_numpy(logits[:-1]), torch.from_numpy(x[1:]), reduction="sum"
    ).item()
    return not (np.shape(loss) == () and abs(float(loss) - nll) < 1e-12)


def masked_loglik_is_wrong(
    loglik: Callable[[Any, np.ndarray, list[int]], float],
) -> bool:
    """Is ``loglik(model, ids, masked)`` the log-probability of the masked tokens given x'?

    Two equally likely sentences, "a a" and "b b", both tokens masked: the truth, read from the
    joint table, is log P("a a") = log ½.
    """
    from ..basics import JointTableModel

    table = np.array([[0.5, 0.0], [0.0, 0.5]])  # P(x1, x2) over {a, b}²
    ids = np.array([0, 0])
    return (
        not abs(loglik(JointTableModel(table), ids, [0, 1]) - np.log(table[0, 0]))
        < 1e-12
    )


def _joint(model: Any, ids: np.ndarray, masked: list[int]) -> float:
    return float(model.cond_log_prob(ids, masked, []))


def _product_of_conditionals(model: Any, ids: np.ndarray, masked: list[int]) -> float:
    from ..basics import bert_log_likelihood

    return float(bert_log_likelihood(model, ids, masked))


def token_model_is_wrong(model: str) -> bool:
    """Does a ``"unigram"`` (i.i.d. tokens) or ``"bigram"`` model, fitted to an English text,
    give P(next = 'u' | previous = 'q') as observed in the text (counted directly)?"""
    ids = np.frombuffer(SAMPLE_TEXT.encode(), dtype=np.uint8)
    follows_q = ids[1:][ids[:-1] == ord("q")]
    observed = float(
        np.mean(follows_q == ord("u"))
    )  # 1.0: 'q' is always followed by 'u'
    if model == "unigram":
        predicted = float(np.mean(ids == ord("u")))
    elif model == "bigram":
        pairs = np.zeros((256, 256))
        np.add.at(pairs, (ids[:-1], ids[1:]), 1)
        predicted = pairs[ord("q"), ord("u")] / pairs[ord("q")].sum()
    else:
        raise ValueError(f"model: expected 'unigram' or 'bigram', got {model!r}")
    return not abs(predicted - observed) < 1e-12


def _toy_model(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A two-token model over {a, b} whose first token depends on θ: P_θ(x₁ = a) = θ and
    P_θ(x₂ = a | x₁ = a) = 1 − θ.  Returns both, for x = (a, a), on a grid of θ."""
    return theta, 1 - theta


def argmax_identity_is_wrong(
    objective: Callable[[np.ndarray, np.ndarray], np.ndarray],
) -> bool:
    """Is ``argmax_θ objective(P_θ(x₁), P_θ(x₂ | x₁))`` the set ``argmax_θ P_θ(x)``?

    P_θ(x) is read from the toy model's joint table, built over all four sequences and checked
    to sum to 1; the argmax sets are taken on a grid of θ in [0, 1].
    """
    theta = np.linspace(0, 1, 1001)
    p1, p21 = _toy_model(theta)
    joint = {
        ("a", "a"): p1 * p21,
        ("a", "b"): p1 * (1 - p21),
        ("b", "a"): (1 - p1) * 0.5,
        ("b", "b"): (1 - p1) * 0.5,
    }
    if not np.allclose(sum(joint.values()), 1):
        raise AssertionError("the toy model's joint table does not sum to 1")
    with np.errstate(divide="ignore"):
        value = objective(p1, p21)
    # Both maxima are strict on the grid: each argmax set is one θ.
    return bool(theta[np.argmax(value)] != theta[np.argmax(joint["a", "a"])])


def corruption_is_wrong(shares: tuple[float, float, float]) -> bool:
    """Are ``shares`` = (to [MASK], to a random token, unchanged) the fractions of the chosen
    tokens that BERT's corruption produces?  Measured (to 0.01) with ``transformers``'
    ``DataCollatorForLanguageModeling``, which implements the rule of BERT's paper (Devlin et
    al. 2019, section 3.1); the library stands in for BERT's own data script."""
    import torch
    from tokenizers import Tokenizer, models
    from transformers import DataCollatorForLanguageModeling, PreTrainedTokenizerFast

    vocab = {
        "[PAD]": 0,
        "[UNK]": 1,
        "[MASK]": 2,
        **{f"w{i}": 3 + i for i in range(997)},
    }
    tok = PreTrainedTokenizerFast(
        tokenizer_object=Tokenizer(models.WordLevel(vocab, "[UNK]")),
        pad_token="[PAD]",
        unk_token="[UNK]",
        mask_token="[MASK]",
    )
    torch.manual_seed(0)
    ids = torch.randint(3, 1000, (200, 500))
    batch = DataCollatorForLanguageModeling(tok, mlm_probability=0.15)(
        [{"input_ids": r} for r in ids]
    )
    chosen = batch["labels"] != -100
    got, orig = batch["input_ids"][chosen], ids[chosen]
    masked = float((got == 2).float().mean())
    same = float((got == orig).float().mean())
    measured = (masked, 1 - masked - same, same)
    return not all(abs(a - b) < 0.01 for a, b in zip(shares, measured))


# Found by the audit ledger (appendix B) of source 002.


def chain_rule_orders_are_wrong(orders: tuple[tuple[int, ...], ...]) -> bool:
    """Are ``orders`` exactly the orders of 3 tokens in which the chain rule
    ``P(x) = prod_k P(x_{o_k} | x_{o_1}, ..., x_{o_{k-1}})`` reproduces a joint distribution?

    The joint is random (a Dirichlet draw over all ``4^3`` sequences, no structure); every
    conditional is a ratio of marginals, summed exhaustively from the table.
    """
    V, n = 4, 3
    joint = np.random.default_rng(11).dirichlet(np.ones(V**n)).reshape((V,) * n)

    def marginal(x: tuple[int, ...], kept: tuple[int, ...]) -> float:
        other = tuple(a for a in range(n) if a not in kept)
        return float(joint.sum(axis=other)[tuple(x[a] for a in sorted(kept))])

    def factorizes(order: tuple[int, ...]) -> bool:
        for x in itertools.product(range(V), repeat=n):
            prod = 1.0
            for k in range(n):
                prod *= (
                    marginal(x, order[: k + 1]) / marginal(x, order[:k])
                    if k
                    else marginal(x, order[:1])
                )
            if not np.isclose(prod, joint[x], rtol=1e-12, atol=0.0):
                return False
        return True

    working = {o for o in itertools.permutations(range(n)) if factorizes(o)}
    return {tuple(o) for o in orders} != working


def target_shift_is_wrong(shift: int) -> bool:
    """Does pairing the logits at position ``t`` with the token at position ``t + shift`` differ
    from the loss ``transformers``' ``GPT2LMHeadModel`` computes from ``labels=input_ids``?
    (The library stands in for GPT's objective, Radford et al. 2018, eq. 1.)

    A small random GPT-2 (no download); the loss is the mean cross-entropy over the pairs.
    """
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    if not 0 <= shift < 8:
        return True
    torch.manual_seed(0)
    cfg = GPT2Config(
        vocab_size=17,
        n_positions=16,
        n_embd=8,
        n_layer=1,
        n_head=2,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        resid_pdrop=0.0,
        bos_token_id=0,
        eos_token_id=0,
    )
    model = GPT2LMHeadModel(cfg).double().eval()
    model.loss_type = (
        "ForCausalLM"  # the default it would pick anyway, named to keep it quiet
    )
    ids = torch.randint(0, cfg.vocab_size, (3, 8))
    with torch.no_grad():
        out = model(ids, labels=ids)
    T = ids.shape[1]
    logits = out.logits[:, : T - shift]  # position t predicts the token at t + shift
    targets = ids[:, shift:]
    ours = torch.nn.functional.cross_entropy(
        logits.reshape(-1, cfg.vocab_size), targets.reshape(-1)
    )
    # transformers returns the loss in float32 whatever the model's dtype
    return not torch.allclose(ours, out.loss.double(), atol=1e-6)


# Found by the second reading of the ledger (appendix B) of sources 001 and 002.


def order_relation_is_wrong(relation: Callable[[tuple[int, ...], set], bool]) -> bool:
    """Does ``relation(z, S)`` hold exactly for the orders of XLNet's conditional?

    For n = 4 and t = 2, ``S`` is the set ``{1, ..., n}^(t+1)`` (every (t+1)-tuple of
    positions, listed by ``itertools.product``) and an order z is a tuple of t + 1 distinct
    positions.  Wrong when the relation fails for some order, or holds for a tuple of the
    wrong length (it would then say nothing about z).
    """
    n, t = 4, 2
    S = set(itertools.product(range(1, n + 1), repeat=t + 1))
    orders = list(itertools.permutations(range(1, n + 1), t + 1))
    if not all(relation(z, S) for z in orders):
        return True
    return relation((3, 1), S)


def xlnet_objective_is_wrong(
    objective: Callable[[Any, np.ndarray, tuple], float],
) -> bool:
    """Is ``objective(model, ids, z)`` the quantity XLNet maximizes for the sequence ``ids``?

    XLNet (Yang et al. 2019, eq. 3) maximizes the expectation over factorization orders z of
    ``sum_t log p(x_{z_t} | x_{z_<t})``.  The model is a network, chapter 17's
    ``TinyAttentionModel`` (one set of weights for every order), whose order sums are computed
    here prediction by prediction and averaged over all 24 orders of a 4-token sequence.
    Wrong when the value differs from that expectation for some order z.
    """
    from ..basics import TinyAttentionModel

    model = TinyAttentionModel(V=4, n=4, seed=0)
    ids = np.array([2, 0, 3, 1])
    orders = list(itertools.permutations(range(4)))
    sums = [
        sum(model.cond_log_prob(ids, [j], list(z[:k])) for k, j in enumerate(z))
        for z in orders
    ]
    expected = float(np.mean(sums))
    return any(abs(objective(model, ids, z) - expected) > 1e-9 for z in orders)


def _xlnet_one_order(model: Any, ids: np.ndarray, z: tuple) -> float:
    from ..basics import xlnet_log_likelihood

    return xlnet_log_likelihood(model, ids, z)


def _xlnet_expectation(model: Any, ids: np.ndarray, z: tuple) -> float:
    from ..basics import xlnet_expected_log_likelihood

    return xlnet_expected_log_likelihood(model, ids)


def _bernoulli_likelihood(sample: np.ndarray, p: float) -> float:
    """The likelihood of 0/1 draws ``sample`` under Bernoulli(p)."""
    k = int(sample.sum())
    return float(p**k * (1 - p) ** (len(sample) - k))


def estimate_objective_is_wrong(
    objective: Callable[[np.ndarray, float, float], float],
) -> bool:
    """Is ``argmax_theta objective(S, theta, estimate)`` the maximum-likelihood estimate?

    A Bernoulli model, a corpus ``S`` of 20 draws, the parameter space a grid on (0, 1);
    ``estimate`` is a point fixed before the argmax (what 002's objective is written in).
    The truth is computed in closed form: the estimate is the mean of S (the grid point
    nearest it).  Wrong when the argmax set is not that one point.
    """
    S = (np.random.default_rng(3).random(20) < 0.3).astype(int)
    grid = np.round(np.linspace(0.01, 0.99, 99), 2)
    values = np.array([objective(S, theta, 0.5) for theta in grid])
    best = set(grid[np.isclose(values, values.max(), rtol=1e-12, atol=0.0)])
    return best != {grid[np.argmin(np.abs(grid - S.mean()))]}


ERRATA: list[Erratum] = [
    Erratum(
        key="000-loss-missing-log",
        severity="error",
        sources=("000",),
        section="Definition (GPT training objective)",
        says="$\\text{loss} = -\\log P(x_2, \\dots, x_n \\mid x_1) = -\\sum_{j=2}^n P(x_j \\mid "
        "x_1, \\dots, x_{j-1}) = -\\sum_{j=2}^n Y_{j-1, x_j}$ (and the same sums without log "
        "in $\\theta^*$)",
        correct="$-\\sum_{j=2}^n \\log P(x_j \\mid x_1, \\dots, x_{j-1}) = -\\sum_{j=2}^n "
        "\\log Y_{j-1, x_j}$: the log of a product is the sum of the logs. Without the "
        "log, the objective prefers a model that gives observed tokens probability 0",
        chapter=_CH17,
        stated=lambda q: q,
        true=np.log,
        check=objective_is_wrong,
    ),
    Erratum(
        key="001-loss-missing-index",
        severity="slip",
        sources=("001",),
        section="GPT (training objective); the masked-LM loss after RoBERTa repeats it",
        says="$\\text{loss} = -\\sum_{j=2}^n \\log\\left(\\text{Softmax}\\left(\\bm{X}^{(L)}_{j-1,:}"
        "\\bm{W}_e^\\top\\right)\\right)$",
        correct="the log of the softmax row is a vector of $V$ numbers; the loss takes its "
        "entry $x_j$: $-\\sum_{j=2}^n \\log \\text{Softmax}(\\bm{X}^{(L)}_{j-1,:}"
        "\\bm{W}_e^\\top)_{x_j}$",
        chapter=_CH17,
        stated=lambda row, x: np.log(row),
        true=lambda row, x: np.log(row[x]),
        check=loss_term_is_wrong,
    ),
    Erratum(
        key="000-argmax-identity",
        severity="error",
        sources=("000",),
        section="Definition (GPT training objective)",
        says=r"$\theta^* = \operatorname{argmax}_\theta P_\theta(\bm{x}) = "
        r"\operatorname{argmax}_\theta \log P_\theta(x_2, \ldots, x_n \mid x_1)$",
        correct=r"$P_\theta(\bm{x}) = P_\theta(x_1)\,P_\theta(x_2, \ldots, x_n \mid x_1)$: the "
        r"two argmax sets agree only when $P_\theta(x_1)$ does not depend on $\theta$. "
        r"GPT models the conditional alone, so its objective is "
        r"$\operatorname{argmax}_\theta \log P_\theta(x_2, \ldots, x_n \mid x_1)$; for a "
        r"toy model in which $x_1$'s probability depends on $\theta$ the two sets differ "
        r"($\{1/2\}$ and $\{0\}$).",
        chapter=_CH17,
        stated=lambda p1, cond: np.log(cond),
        true=lambda p1, cond: np.log(p1) + np.log(cond),
        check=argmax_identity_is_wrong,
    ),
    Erratum(
        key="001-bert-corruption",
        severity="omission",
        sources=("001",),
        kind="omission",
        section="BERT: input construction ($\\bm{x}'$) and statistical interpretation "
        "(the corrupted sequence)",
        says=r"$x'_i = i^\text{mask}$ if $i = j^\text{masked}$, else $x_i$; and "
        r"$X'_j = I\, i^\text{mask} + (1 - I) X_j$ with $I \sim \text{Bern}(p)$: every "
        r"chosen token becomes [MASK].",
        correct=r"BERT (Devlin et al. 2019, section 3.1) chooses 15 % of the positions and, of "
        r"those, replaces 80 % by [MASK], 10 % by a random token and leaves 10 % unchanged, "
        r"so that the model cannot rely on [MASK] marking the positions it is asked about. "
        r"The check measures the shares in `transformers`' `DataCollatorForLanguageModeling`, "
        r"which implements the paper's rule.",
        chapter=_CH17,
        stated=(1.0, 0.0, 0.0),
        true=(0.8, 0.1, 0.1),
        check=corruption_is_wrong,
    ),
    Erratum(
        key="001-bert-independence",
        severity="error",
        sources=("001",),
        section="Statistical interpretation (BERT)",
        says="$\\log P(\\bm{X}_M = \\bm{x}_M; \\bm{\\theta}) = \\sum_{j \\in M} \\log P(X_j = x_j "
        "\\mid X'_1 = x'_1, \\dots, X'_n = x'_n; \\bm{\\theta})$",
        correct="the left side is conditional on $\\bm{X}'$, and the equality holds only if the "
        "masked tokens are independent given $\\bm{X}'$ (the assumption 001 states in its "
        "BERT section); in general BERT's objective is an approximation (≈)",
        chapter=_CH17,
        stated=_product_of_conditionals,
        true=_joint,
        check=masked_loglik_is_wrong,
    ),
    Erratum(
        key="002-tokens-iid",
        severity="error",
        sources=("002",),
        section="Step 1 (Corpus); also the Training Phase section",
        says="Step 1: each sequence is “a sequence of $T$ tokens. These tokens are sampled "
        "i.i.d. from a true, unknown distribution $\\mathcal{D}$”",
        correct="the *sequences* of the corpus are modeled as i.i.d.; the tokens within a "
        "sequence are not independent — if they were, every conditional "
        "$P(x_t \\mid x_{<t})$ would equal $P(x_t)$ and there would be nothing for GPT "
        "to learn (in English, 'q' is followed by 'u' far more often than 'u' occurs)",
        chapter=_CH17,
        stated="unigram",
        true="bigram",
        check=token_model_is_wrong,
    ),
    Erratum(
        key="002-chain-rule-order",
        severity="error",
        sources=("002",),
        section="The Training Phase, autoregressive self-supervised learning paradigm",
        says=r"The joint probability factorizes as $\prod_{t=1}^T \mathbb{P}(x_t \mid x_1, "
        r"\ldots, x_{t-1})$, and \"we can do this because natural language\" is "
        r"inherently ordered.",
        correct="The chain rule holds for every joint distribution and in every order of the "
        "variables (right to left, or any permutation); it needs no property of "
        "language. The left-to-right order is a modeling choice, convenient for "
        "generating text, not the condition that makes the factorization valid.",
        chapter=_CH17,
        stated=((0, 1, 2),),
        true=tuple(itertools.permutations(range(3))),
        check=chain_rule_orders_are_wrong,
    ),
    Erratum(
        key="002-loss-target-shift",
        severity="omission",
        sources=("002",),
        kind="omission",
        section="Cross-Entropy Loss Function",
        says=r"$\mathcal{L} = -\frac{1}{\mathcal{B} T}\sum_b \sum_{t=1}^{T} \sum_v "
        r"\mathbf{Y}_{b,t,v} \log \mathbf{P}_{b,t,v}$ with $\mathbf{Y}_{b,t}$ the one-hot "
        r"of \"the true token at position $t$\" and $\mathbf{P}_{b,t}$ the softmax of the "
        r"logits at position $t$. The training phase says that the labels are \"a shifted "
        r"version\" of the inputs; the loss section, which defines the pairs, leaves the "
        r"shift out.",
        correct=r"The logits at position $t$ have seen $x_1, \ldots, x_t$ (the causal mask keeps "
        r"the diagonal), so their target is the *next* token: $\mathbf{Y}_{b,t}$ is the "
        r"one-hot of $x_{b,t+1}$, and the sum runs over $t = 1, \ldots, T - 1$ (or the "
        r"window holds $T + 1$ tokens), as in GPT's objective (Radford et al. 2018, eq. 1: "
        r"each token given the ones before it). Paired with $x_{b,t}$ itself, the model "
        r"could copy its input and learn nothing. The check compares with the loss of "
        r"`transformers`' `GPT2LMHeadModel`, which shifts its labels by one.",
        chapter=_CH17,
        stated=0,
        true=1,
        check=target_shift_is_wrong,
    ),
    Erratum(
        key="002-parameter-space",
        severity="slip",
        sources=("002",),
        section="The Training Phase (the parameter and its estimate)",
        says=r"$\boldsymbol{\Theta}$ \"is the parameter space that defines the distribution\" "
        r"$\mathbb{P}(\mathcal{X} ; \boldsymbol{\Theta})$; $\hat{\boldsymbol{\Theta}}$ \"is "
        r"the estimated parameter space that approximates the true parameter space\"; and "
        r"$\hat{\boldsymbol{\theta}}^{*} = \underset{\hat{\boldsymbol{\theta}} \in "
        r"\boldsymbol{\Theta}}{\text{argmax}} \hat{\mathcal{L}}\left(\mathcal{S} ; "
        r"\hat{\boldsymbol{\Theta}}\right)$.",
        correct=r"A distribution of the family is fixed by a parameter, a point "
        r"$\boldsymbol{\theta}$ of the parameter space $\boldsymbol{\Theta}$, and an "
        r"estimate is such a point, not a space: $\hat{\boldsymbol{\theta}}^{*} = "
        r"\operatorname{argmax}_{\boldsymbol{\theta} \in \boldsymbol{\Theta}} "
        r"\hat{\mathcal{L}}(\mathcal{S} ; \boldsymbol{\theta})$. As written, the objective "
        r"does not depend on the variable of the argmax, and every point of "
        r"$\boldsymbol{\Theta}$ would maximize it.",
        chapter=_CH17,
        stated=lambda S, theta, estimate: _bernoulli_likelihood(S, estimate),
        true=lambda S, theta, estimate: _bernoulli_likelihood(S, theta),
        check=estimate_objective_is_wrong,
    ),
    Erratum(
        key="001-xlnet-subset",
        severity="slip",
        sources=("001",),
        section="Statistical interpretation (XLNet's order)",
        says=r"\"a permutation $(z_1, \ldots, z_{t+1}) \subseteq \{ 1, \ldots, n \}^{t+1}$ of "
        r"token positions (with $t < n$)\".",
        correct=r"A tuple of $t + 1$ distinct positions is an *element* of "
        r"$\{1, \ldots, n\}^{t+1}$: $(z_1, \ldots, z_{t+1}) \in \{1, \ldots, n\}^{t+1}$. "
        r"Its entries are positions, not $(t+1)$-tuples, so it is no subset of that set.",
        chapter=_CH17,
        stated=lambda z, S: set(z) <= S,
        true=lambda z, S: tuple(z) in S,
        check=order_relation_is_wrong,
    ),
    Erratum(
        key="001-xlnet-objective",
        severity="error",
        sources=("001",),
        section="Statistical interpretation (XLNet's objective)",
        says=r"XLNet maximizes $\log P(\bm{X} = \bm{x}; \bm{\theta}) = \sum_{j=1}^n "
        r"\log P(X_{z_j} = x_{z_j} \mid X_{z_1} = x_{z_1}, \ldots, X_{z_{j-1}} = "
        r"x_{z_{j-1}}; \bm{\theta})$ for \"some permutation\" $(z_1, \ldots, z_n)$.",
        correct=r"The chain rule gives that equality for one joint distribution, in every "
        r"order. XLNet's conditionals come from one network for all orders, and nothing "
        r"makes them those of one joint distribution; where they are not, as in the check's "
        r"model, the sum depends on $\bm{z}$ and is no $\log P(\bm{x}; \bm{\theta})$. "
        r"XLNet maximizes its expectation over the orders, "
        r"$\mathbb{E}_{\bm{z}}\big[\sum_{t} \log P_{\bm{\theta}}(x_{z_t} \mid "
        r"x_{z_1}, \ldots, x_{z_{t-1}})\big]$ (Yang et al. 2019, eq. 3). The check "
        r"measures the sums of chapter 17's one-layer attention model over all 24 orders "
        r"of a 4-token sequence.",
        chapter=_CH17,
        stated=_xlnet_one_order,
        true=_xlnet_expectation,
        check=xlnet_objective_is_wrong,
    ),
]
