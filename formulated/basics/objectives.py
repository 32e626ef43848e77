"""Chapter 17, the training objective: log-likelihood of a sequence, a model given by an explicit
joint table, a tiny attention model, and the GPT, BERT and XLNet objectives.

Definitions: def-17-likelihood, def-17-chain-rule, def-17-loss, def-17-objectives
(chapters/17_training_objective.md).  Part of :mod:`formulated.basics`.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any, Iterable, Sequence

import numpy as np

from .._checks import (
    as_array,
    as_float_array,
    as_token_ids,
    check_positive_int,
    check_positive_number,
    check_probabilities,
    check_shape,
    checked,
    is_int,
)
from ..formulas import cross_entropy_from_logits, softmax

__all__ = [
    "sequence_log_likelihood",
    "JointTableModel",
    "TinyAttentionModel",
    "gpt_log_likelihood",
    "xlnet_log_likelihood",
    "xlnet_expected_log_likelihood",
    "bert_log_likelihood",
]


def _seed(seed: Any) -> int | None:
    """A seed for ``np.random.default_rng``: an integer ≥ 0 (``None``: fresh entropy)."""
    if seed is None:
        return None
    if not is_int(seed) or seed < 0:
        raise ValueError(f"seed: expected an integer >= 0, got {seed!r}")
    return int(seed)


def _sequence_args(cond_probs: Any, ids: Any) -> tuple[np.ndarray, np.ndarray]:
    cond_probs = check_probabilities(cond_probs, "cond_probs")
    if cond_probs.ndim != 2:
        raise ValueError(f"cond_probs: expected shape (n, V), got {cond_probs.shape}")
    n, V = cond_probs.shape
    ids = as_token_ids(ids, "ids", V, ndim=1)
    check_shape(ids, "ids", (n,))
    return cond_probs, ids


@checked(_sequence_args)
def sequence_log_likelihood(cond_probs, ids):
    """``log P(x) = Σ_j log P(x_j | context_j)``: ``(n, V), (n,) -> ()``.

    ``cond_probs (n, V)``: row j is the model's distribution for position j given its
    context (for GPT, the tokens before it); ``ids (n,)`` the tokens that occurred
    (0-based ids).  The negative of this, divided by n, is the cross-entropy loss of the
    sequence.

    Definition: def-17-chain-rule.
    Checked by: tests/test_basics.py::test_sequence_log_likelihood_against_torch
    """
    n = len(ids)
    with np.errstate(divide="ignore"):  # log 0 = -inf: a token the model ruled out
        # Σ_j log P(x_j | context_j)
        return float(np.sum(np.log(cond_probs[np.arange(n), ids])))


class JointTableModel:
    """A model that stores the whole joint distribution of sequences of length n over V tokens.

    ``P(x_1, …, x_n) = table[x_1, …, x_n]`` (an array of shape ``(V,) * n`` summing to 1).  Every
    conditional probability is then exact, by marginalizing and dividing, so the identities of
    chapter 17 (chain rule, every XLNet order) hold to rounding error.  Only feasible for tiny
    ``V ** n``.
    """

    def __init__(self, table: np.ndarray):
        table = as_float_array(table, "table")
        if table.ndim < 1 or len(set(table.shape)) != 1:
            raise ValueError(f"table: expected shape (V,)*n, got {table.shape}")
        if np.any(table < 0) or not np.isclose(table.sum(), 1.0, rtol=0, atol=1e-9):
            raise ValueError(
                f"table: expected probabilities ≥ 0 summing to 1, got sum "
                f"{table.sum()} and minimum {table.min()}"
            )
        self.table = table
        self.n = table.ndim
        self.V = table.shape[0]

    @classmethod
    def random(
        cls, V: int, n: int, seed: int = 0, concentration: float = 0.3
    ) -> "JointTableModel":
        """A random joint table (Dirichlet): small concentration → a few likely sequences."""
        V, n = check_positive_int(V, "V"), check_positive_int(n, "n")
        concentration = check_positive_number(concentration, "concentration")
        rng = np.random.default_rng(_seed(seed))
        return cls(rng.dirichlet(np.full(V**n, concentration)).reshape((V,) * n))

    def _ids(self, ids) -> np.ndarray:
        ids = as_token_ids(ids, "ids", self.V, ndim=1)
        check_shape(ids, "ids", (self.n,))
        return ids

    def _marginal(self, ids: np.ndarray, keep: Iterable[int]) -> float:
        """P(X_k = x_k for every k in keep), summing the table over the other positions."""
        keep = set(keep)
        index = tuple(int(ids[k]) if k in keep else slice(None) for k in range(self.n))
        return float(np.sum(self.table[index]))

    def log_prob(self, ids: np.ndarray) -> float:
        """``log P(x_1, …, x_n)``."""
        ids = self._ids(ids)
        with np.errstate(divide="ignore"):
            return float(np.log(self.table[tuple(ids)]))

    def cond_log_prob(
        self, ids: np.ndarray, targets: Sequence[int], visible: Iterable[int]
    ) -> float:
        """``log P(X_T = x_T | X_S = x_S)`` for target positions T and visible positions S."""
        ids = self._ids(ids)
        targets, visible = (
            _positions(targets, self.n, "targets"),
            _positions(visible, self.n, "visible"),
        )
        if set(targets) & set(visible):
            raise ValueError(
                f"targets: expected positions not in visible, got {targets} "
                f"and {visible}"
            )
        den = self._marginal(ids, visible)
        if den == 0:
            raise ValueError(
                f"visible: the context {[int(ids[k]) for k in visible]} at "
                f"positions {visible} has probability 0"
            )
        with np.errstate(divide="ignore"):
            return float(np.log(self._marginal(ids, set(targets) | set(visible)) / den))


def _positions(pos: Iterable[int], n: int, name: str) -> list[int]:
    """A list of distinct 0-based positions ``0 .. n-1``, given as integers.

    ``int()`` would truncate ``0.9`` to 0 and read ``"1"`` as 1, so any non-integer entry (float,
    string, bool) is rejected instead.
    """
    what = f"a sequence of distinct integer positions in 0..{n - 1}"
    if isinstance(pos, (str, bytes)):
        raise TypeError(f"{name}: expected {what}, got the string {pos!r}")
    try:
        items = list(pos)
    except TypeError:
        raise TypeError(
            f"{name}: expected {what}, got {pos!r} ({type(pos).__name__})"
        ) from None
    arr = np.asarray(items) if items else np.zeros(0, dtype=np.int64)
    if arr.ndim != 1 or arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name}: expected {what}, got {items!r} (dtype {arr.dtype})")
    out = [int(k) for k in arr]
    if any(k < 0 or k >= n for k in out) or len(set(out)) != len(out):
        raise ValueError(
            f"{name}: expected distinct positions in 0..{n - 1}, got {out}"
        )
    return out


class TinyAttentionModel:
    """A one-layer attention model that predicts the token at a target position from any set of
    visible positions — so the same parameters serve GPT, BERT and XLNet.

    Slot 0 is a beginning-of-sequence token (``BOS``, id V) at position 0, always visible, so a
    prediction from an empty context is defined; token k of the sequence sits at position k + 1.
    For a target position j the *query* is built from j's position embedding alone (the model
    knows *where* it predicts, not *what* is there — XLNet's query stream), the keys and values
    from token + position embeddings of the visible slots:

    ``q = P_{j+1} W_q``, ``K = (E_s + P_s) W_k``, ``Vv = (E_s + P_s) W_v`` over visible slots s,
    ``h = softmax(q Kᵀ / √H) Vv``, logits ``= (h + P_{j+1}) W_out`` ``(V,)``.

    Parameters: ``E (V+1, H)``, ``P (n+1, H)``, ``W_q, W_k, W_v (H, H)``, ``W_out (H, V)``.
    """

    def __init__(self, V: int, n: int, H: int = 8, seed: int = 0, scale: float = 1.0):
        self.V, self.n, self.H = (
            check_positive_int(V, "V"),
            check_positive_int(n, "n"),
            check_positive_int(H, "H"),
        )
        # scale 0 is allowed: all projections zero, a model that predicts uniformly
        scale = check_positive_number(
            scale, "scale", "a finite number >= 0", allow_zero=True
        )
        rng = np.random.default_rng(_seed(seed))
        s = scale / np.sqrt(H)
        self.params = {
            "E": rng.normal(0, 1, (V + 1, H)),
            "P": rng.normal(0, 1, (n + 1, H)),
            "W_q": rng.normal(0, s, (H, H)),
            "W_k": rng.normal(0, s, (H, H)),
            "W_v": rng.normal(0, s, (H, H)),
            "W_out": rng.normal(0, s, (H, V)),
        }

    def logits(self, ids: np.ndarray, visible: np.ndarray) -> np.ndarray:
        """Logits for every target position at once: ``ids (n,)``, ``visible (n, n+1)`` boolean
        (row j: which slots the prediction of position j may see; column 0 is BOS) ``-> (n, V)``.
        """
        ids = as_token_ids(ids, "ids", self.V, ndim=1)
        check_shape(ids, "ids", (self.n,))
        visible = np.asarray(visible)
        if visible.dtype != bool:
            raise TypeError(
                f"visible: expected a boolean array, got dtype {visible.dtype}"
            )
        check_shape(visible, "visible", (self.n, self.n + 1))
        if not visible[:, 0].all():
            raise ValueError(
                "visible: expected column 0 (BOS) to be visible in every row"
            )
        p = self.params
        slots = np.concatenate([[self.V], ids])  # BOS, then the tokens
        X = p["E"][slots] + p["P"]  # (n+1, H)
        Q = p["P"][1:] @ p["W_q"]  # (n, H): position only
        K, Vv = X @ p["W_k"], X @ p["W_v"]  # (n+1, H)
        scores = np.where(visible, Q @ K.T / np.sqrt(self.H), -np.inf)
        h = softmax(scores, axis=-1) @ Vv  # (n, H)
        return (h + p["P"][1:]) @ p["W_out"]  # (n, V)

    def cond_log_prob(
        self, ids: np.ndarray, targets: Sequence[int], visible: Iterable[int]
    ) -> float:
        """``Σ_{j ∈ targets} log P(X_j = x_j | X_S = x_S)``: each target predicted separately
        from the same visible set S (the model has no joint distribution over several targets).
        """
        ids = as_token_ids(ids, "ids", self.V, ndim=1)
        check_shape(ids, "ids", (self.n,))
        targets, visible = (
            _positions(targets, self.n, "targets"),
            _positions(visible, self.n, "visible"),
        )
        if set(targets) & set(visible):
            raise ValueError(
                f"targets: expected positions not in visible, got {targets} "
                f"and {visible}"
            )
        vis = np.zeros((self.n, self.n + 1), dtype=bool)
        vis[:, 0] = True
        vis[:, [k + 1 for k in visible]] = True
        logits = self.logits(ids, vis)
        # log P(x_j | ...) = −(cross-entropy of the one token x_j under softmax(logits_j))
        return -cross_entropy_from_logits(
            logits[targets], ids[targets], reduction="sum"
        )


def _objective_args(model: Any, ids: Any) -> np.ndarray:
    """Check the model and the ids of the chapter-17 objectives (before any loop over
    positions: with no position to predict, a wrong input would otherwise give 0.0)."""
    if not callable(getattr(model, "cond_log_prob", None)):
        raise TypeError(
            f"model: expected a model with a cond_log_prob(ids, targets, visible) "
            f"method (JointTableModel, TinyAttentionModel), got {type(model).__name__}"
        )
    # [] would read as float64; as_array names a ragged list before its size is read
    if not isinstance(ids, (str, bytes)) and as_array(ids, "ids").size == 0:
        raise ValueError(f"ids: expected at least one token, got {ids!r}")
    ids = as_token_ids(ids, "ids", getattr(model, "V", None), ndim=1)
    n = getattr(model, "n", None)
    if n is not None:
        check_shape(ids, "ids", (n,))
    return ids


def _model_ids_args(model: Any, ids: Any) -> tuple[Any, np.ndarray]:
    return model, _objective_args(model, ids)


@checked(_model_ids_args)
def gpt_log_likelihood(model, ids):
    """GPT's ``Σ_j log P(x_j | x_1, …, x_{j−1})``: ids ``(n,)`` -> a float.

    Each token is predicted from the tokens before it.

    Definition: def-17-objectives.
    Checked by: tests/test_basics.py::test_tiny_attention_model_against_torch
    Checked by: tests/test_basics.py::test_chain_rule_every_order_gives_the_joint
    """
    return xlnet_log_likelihood(model, ids, order=range(len(ids)))  # z = 1, 2, …, n


def _xlnet_args(model: Any, ids: Any, order: Any) -> tuple[Any, np.ndarray, list[int]]:
    ids = _objective_args(model, ids)
    order = _positions(order, len(ids), "order")
    if len(order) != len(ids):
        raise ValueError(
            f"order: expected a permutation of 0..{len(ids) - 1}, got {order}"
        )
    return model, ids, order


@checked(_xlnet_args)
def xlnet_log_likelihood(model, ids, order):
    """XLNet's ``Σ_t log P(x_{z_t} | x_{z_<t})``, order z: ids ``(n,)`` -> a float.

    For one factorization order z (a permutation of 0..n−1, 0-based):
    ``Σ_t log P(x_{z_t} | x_{z_1}, …, x_{z_{t−1}})``.  The tokens stay where they are;
    only the order in which they are predicted changes.

    Definition: def-17-objectives.
    Checked by: tests/test_basics.py::test_tiny_attention_model_against_torch
    Checked by: tests/test_basics.py::test_chain_rule_every_order_gives_the_joint
    """
    return float(
        sum(model.cond_log_prob(ids, [z], order[:t]) for t, z in enumerate(order))
    )


def xlnet_expected_log_likelihood(model, ids: np.ndarray) -> float:
    """XLNet's objective: the average of :func:`xlnet_log_likelihood` over all n! orders
    (exhaustive, so only for small n; XLNet itself samples one order per sequence)."""
    ids = _objective_args(model, ids)
    n = len(ids)
    if n > 7:
        raise ValueError(
            f"ids: expected at most 7 tokens for an exhaustive average over orders, "
            f"got {n} ({n}! orders)"
        )
    vals = [xlnet_log_likelihood(model, ids, z) for z in permutations(range(n))]
    return float(np.mean(vals))


def _bert_args(model: Any, ids: Any, masked: Any) -> tuple[Any, np.ndarray, list[int]]:
    ids = _objective_args(model, ids)
    masked = _positions(masked, len(ids), "masked")
    if not masked:
        raise ValueError("masked: expected at least one masked position, got none")
    return model, ids, masked


@checked(_bert_args)
def bert_log_likelihood(model, ids, masked):
    """BERT's objective ``Σ_{j ∈ M} log P(x_j | x')``: ids ``(n,)`` -> a float.

    M is the set of masked positions.  Each masked token is predicted separately from
    the corrupted sequence x' (every position not in M).  It equals ``log P(x_M | x')``
    only if the masked tokens are independent given x' (chapter 17).

    Definition: def-17-objectives.
    Checked by: tests/test_basics.py::test_tiny_attention_model_against_torch
    Checked by:
    tests/test_basics.py::test_bert_objective_is_the_joint_only_under_independence
    """
    visible = [k for k in range(len(ids)) if k not in masked]
    return float(sum(model.cond_log_prob(ids, [j], visible) for j in masked))
