"""Bad input to formulated.basics, formulated.notation.shapes and formulated.tokenizers.

Each test asserts the exception type and that the message names the argument.  The tests marked
"silent" covered inputs that the old code accepted and answered wrongly (a truncated position, a
broadcast bias, a log-likelihood of 0.0 for no tokens): on that code they fail, since nothing was
raised.  The valid-input tests next to them compare with a value computed independently (a closed
form, a marginal of the joint table, torch.nn.LSTM's shapes), so the checks did not change what a
correct call returns.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from formulated import basics as B
from formulated import tokenizers as T
from formulated.notation import shapes as S

# ---------------------------------------------------------------------------------------------
# basics, chapter 1: learning rates, gradients, Hessians
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lr", ["0.1", None, [0.1], True])
def test_lr_of_wrong_type_names_lr(lr):
    with pytest.raises(TypeError, match="lr: expected a positive learning rate"):
        B.gradient_descent(lambda th: th, np.zeros(3), lr, 3)
    with pytest.raises(TypeError, match="lr: expected a positive learning rate"):
        B.learning_rate_regime(lr, np.eye(2))


@pytest.mark.parametrize("lr", [0.0, -0.1, float("nan"), float("inf")])
def test_lr_out_of_range_names_lr(lr):
    with pytest.raises(ValueError, match="lr: expected a positive learning rate"):
        B.gradient_descent(lambda th: th, np.zeros(3), lr, 3)
    with pytest.raises(ValueError, match="lr: expected a positive learning rate"):
        B.learning_rate_regime(lr, np.eye(2))


def test_numpy_scalar_lr_still_accepted():
    # L(θ) = θ², grad 2θ: each step multiplies θ by 1 − 2α = 0.5 (closed form).
    path = B.gradient_descent(lambda th: 2 * th, np.array([1.0]), np.float32(0.25), 4)
    np.testing.assert_allclose(path[:, 0], 0.5 ** np.arange(5), rtol=0, atol=1e-15)
    assert (
        B.learning_rate_regime(np.float64(0.5), np.diag([1.0, 3.0])) == "oscillates"
    )  # αλ=1.5


@pytest.mark.parametrize(
    "g, got",
    [
        (lambda th: 1.0, r"\(\)"),  # silent before
        (lambda th: np.ones(2), r"\(2,\)"),
        (lambda th: np.ones((3, 3)), r"\(3, 3\)"),
    ],
)
def test_gradient_of_wrong_shape_names_grad(g, got):
    with pytest.raises(
        ValueError, match=rf"grad\(theta\): expected shape \(3\), got {got}"
    ):
        B.gradient_descent(g, np.zeros(3), 0.1, 2)


def test_gradient_not_finite_at_theta0_is_an_error_not_a_divergence():
    # silent before: a 1-point trajectory, as if the run had diverged at once
    with pytest.raises(
        ValueError, match=r"grad\(theta\) at theta0: expected finite values"
    ):
        B.gradient_descent(lambda th: np.full(3, np.nan), np.zeros(3), 0.1, 5)
    with pytest.raises(TypeError, match=r"grad\(theta\): expected a real array"):
        B.gradient_descent(lambda th: "1", np.zeros(3), 0.1, 5)
    with pytest.raises(TypeError, match="grad: expected a function"):
        B.gradient_descent(np.zeros(3), np.zeros(3), 0.1, 5)


def test_divergence_still_ends_the_trajectory():
    # θ_k = (1 − 2·5)^k = (−9)^k overflows after ~322 steps; no error, the path just ends.
    path = B.gradient_descent(lambda th: 2 * th, np.array([1.0]), 5.0, 2000)
    assert 300 < len(path) < 400 and np.all(np.isfinite(path))
    np.testing.assert_allclose(path[:4, 0], [1.0, -9.0, 81.0, -729.0])


def test_learning_rate_regime_empty_hessian():
    with pytest.raises(
        ValueError, match=r"hessian: expected a non-empty square matrix.*\(0, 0\)"
    ):
        B.learning_rate_regime(0.1, np.zeros((0, 0)))


# ---------------------------------------------------------------------------------------------
# basics, chapters 2 and 4: temperature, cosine similarity, RNN, LSTM
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "T_, exc",
    [
        ("2", TypeError),
        (None, TypeError),
        (0.0, ValueError),
        (float("inf"), ValueError),
    ],
)
def test_temperature_names_temperature(T_, exc):
    with pytest.raises(exc, match="temperature: expected a positive finite number"):
        B.softmax_temperature([1.0, 2.0], T_)


def test_cosine_similarity_bad_shapes():
    with pytest.raises(
        ValueError,
        match=r"b: expected leading dimensions that broadcast with "
        r"a's \(3,\), got shape \(4, 2\)",
    ):
        B.cosine_similarity(np.ones((3, 2)), np.ones((4, 2)))
    with pytest.raises(
        ValueError, match=r"a: expected vectors along the last axis.*got shape \(\)"
    ):
        B.cosine_similarity(1.0, 2.0)
    with pytest.raises(
        ValueError, match=r"b: expected vectors along the last axis.*\(2, 0\)"
    ):
        B.cosine_similarity(np.ones(2), np.ones((2, 0)))
    # broadcasting that is valid still works: (3, 2) against (1, 2), checked by hand
    a = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    np.testing.assert_allclose(
        B.cosine_similarity(a, [[1.0, 0.0]]), [1.0, 0.0, 1 / np.sqrt(2)]
    )


def _rnn(d=2, H=3, seed=0):
    r = np.random.default_rng(seed)
    return r.normal(size=(d, H)), r.normal(size=(H, H)), np.zeros(H), np.zeros(H)


def test_bptt_gradient_norms_empty_sequence():
    W_xh, W_hh, b_h, h0 = _rnn()
    with pytest.raises(
        ValueError, match=r"X: expected at least one time step.*\(0, 2\)"
    ):
        B.bptt_gradient_norms(np.zeros((0, 2)), h0, W_xh, W_hh, b_h)


def _lstm_params(d=2, H=3, seed=0) -> B.LSTMParams:
    r = np.random.default_rng(seed)
    return B.LSTMParams(
        *[r.normal(size=(d + H, H)) for _ in range(4)],
        *[r.normal(size=H) for _ in range(4)],
    )


def test_lstm_forward_names_X_h0_c0():
    p = _lstm_params()
    with pytest.raises(ValueError, match=r"X: expected shape \(any, 2\), got \(4, 3\)"):
        B.lstm_forward(np.ones((4, 3)), np.zeros(3), np.zeros(3), p)
    with pytest.raises(ValueError, match=r"h0: expected shape \(3\), got \(4,\)"):
        B.lstm_forward(np.ones((4, 2)), np.zeros(4), np.zeros(3), p)
    with pytest.raises(ValueError, match=r"c0: expected shape \(3\), got \(2,\)"):
        B.lstm_forward(np.ones((4, 2)), np.zeros(3), np.zeros(2), p)
    with pytest.raises(TypeError, match="p: expected LSTMParams"):
        B.lstm_forward(np.ones((4, 2)), np.zeros(3), np.zeros(3), None)


def test_lstm_forward_empty_sequence_checks_the_state_and_returns_no_steps():
    # Chosen behavior: n = 0 is a valid (empty) sequence, as in rnn_forward, but h0, c0 and p
    # are checked all the same (silent before: any h0/c0, even a string, was accepted).
    p = _lstm_params()
    with pytest.raises(ValueError, match=r"h0: expected shape \(3\), got \(4,\)"):
        B.lstm_forward(np.zeros((0, 2)), np.zeros(4), np.zeros(3), p)
    with pytest.raises(TypeError, match="c0: expected a numeric array"):
        B.lstm_forward(np.zeros((0, 2)), np.zeros(3), "x", p)
    with pytest.raises(ValueError, match=r"X: expected shape \(any, 2\), got \(0, 5\)"):
        B.lstm_forward(np.zeros((0, 5)), np.zeros(3), np.zeros(3), p)
    hs, cs = B.lstm_forward(np.zeros((0, 2)), np.zeros(3), np.zeros(3), p)
    assert hs.shape == cs.shape == (0, 3)  # (n, H), like rnn_forward's (0, H)
    W_xh, W_hh, b_h, h0 = _rnn()
    assert B.rnn_forward(np.zeros((0, 2)), h0, W_xh, W_hh, b_h).shape == (0, 3)


# ---------------------------------------------------------------------------------------------
# basics, chapter 17: positions, ids, models
# ---------------------------------------------------------------------------------------------

TABLE = B.JointTableModel.random(V=3, n=3, seed=1)
IDS = np.array([0, 2, 1])


@pytest.mark.parametrize(
    "targets, visible, bad",
    [
        ([0.9], [1], "targets"),  # silent: read 0
        ([1.5], [0], "targets"),  # silent: read 1
        ([0], "1", "visible"),  # silent: read 1
        ([0], [True], "visible"),
        ([0], 1, "visible"),
    ],
)
def test_cond_log_prob_rejects_non_integer_positions(targets, visible, bad):
    for model in (TABLE, B.TinyAttentionModel(V=3, n=3)):
        with pytest.raises(
            TypeError,
            match=f"{bad}: expected a sequence of distinct integer "
            r"positions in 0\.\.2",
        ):
            model.cond_log_prob(IDS, targets, visible)


def test_integer_positions_of_any_integer_type_still_work():
    # log P(x_1 | x_0) from the table by hand: P(x_0, x_1) / P(x_0)
    t = TABLE.table
    want = np.log(t[0, 2, :].sum() / t[0].sum())
    for targets, visible in (
        ([1], [0]),
        (np.array([1]), np.array([0], np.int32)),
        ((1,), range(1)),
        ([np.int64(1)], {0}),
    ):
        assert abs(TABLE.cond_log_prob(IDS, targets, visible) - want) < 1e-12


def test_xlnet_and_bert_reject_float_positions():
    with pytest.raises(
        TypeError, match="order: expected a sequence of distinct integer positions"
    ):
        B.xlnet_log_likelihood(TABLE, IDS, [0.2, 1.7, 2.9])  # silent: order [0, 1, 2]
    with pytest.raises(
        TypeError, match="masked: expected a sequence of distinct integer positions"
    ):
        B.bert_log_likelihood(TABLE, IDS, [1.9])  # silent: masked [1]


@pytest.mark.parametrize(
    "fn",
    [
        B.gpt_log_likelihood,
        B.xlnet_expected_log_likelihood,
        lambda m, ids: B.xlnet_log_likelihood(m, ids, []),
        lambda m, ids: B.bert_log_likelihood(m, ids, []),
    ],
)
def test_objectives_reject_empty_ids(fn):
    # silent before for GPT and XLNet: no position to predict, so a log-likelihood of 0.0
    with pytest.raises(ValueError, match="ids: expected at least one token, got"):
        fn(TABLE, [])


def test_objectives_bad_ids_and_model():
    with pytest.raises(
        TypeError, match="ids: expected integer token ids, got dtype <U3"
    ):
        B.gpt_log_likelihood(TABLE, "012")
    with pytest.raises(
        TypeError, match="ids: expected integer token ids, got dtype float64"
    ):
        B.gpt_log_likelihood(TABLE, [0.0, 1.0, 2.0])
    with pytest.raises(
        ValueError, match=r"ids: expected 1 dimension\(s\) of token ids"
    ):
        B.xlnet_expected_log_likelihood(TABLE, 3)
    with pytest.raises(ValueError, match=r"ids: expected shape \(3\), got \(2,\)"):
        B.bert_log_likelihood(TABLE, [0, 1], [0])
    with pytest.raises(TypeError, match="model: expected a model with a cond_log_prob"):
        B.gpt_log_likelihood(None, [0, 1, 2])
    # a valid call: the GPT objective equals log P(x) of the joint table (chain rule)
    assert abs(B.gpt_log_likelihood(TABLE, IDS) - np.log(TABLE.table[0, 2, 1])) < 1e-12


def test_model_constructor_arguments():
    with pytest.raises(
        TypeError, match="scale: expected a finite number >= 0, got '1'"
    ):
        B.TinyAttentionModel(3, 3, scale="1")
    with pytest.raises(
        ValueError, match="scale: expected a finite number >= 0, got nan"
    ):
        B.TinyAttentionModel(3, 3, scale=float("nan"))
    with pytest.raises(ValueError, match="seed: expected an integer >= 0, got -1"):
        B.TinyAttentionModel(3, 3, seed=-1)
    with pytest.raises(
        ValueError, match="concentration: expected a positive finite number"
    ):
        B.JointTableModel.random(2, 2, concentration=-1)
    # scale 0: every projection is zero, so every prediction is uniform, log P = −log V
    flat = B.TinyAttentionModel(V=4, n=2, scale=0)
    assert abs(flat.cond_log_prob([1, 3], [1], [0]) + np.log(4)) < 1e-12


# ---------------------------------------------------------------------------------------------
# shapes: GPTBlockParams, the tracer, the GPT-2 reference, symbolic_shape
# ---------------------------------------------------------------------------------------------

P = S.random_block_params(V=7, n_max=5, H=8, A=2)  # H=8, A=2, D=4, F=32
IDS2 = np.array([[1, 2, 3]])


@pytest.mark.parametrize(
    "field, value, match",
    [
        (
            "b1",
            np.zeros(1),
            r"b1: expected shape \(F\) = \(32,\).*got \(1,\)",
        ),  # silent
        ("b2", np.zeros(1), r"b2: expected shape \(H\) = \(8,\).*got \(1,\)"),  # silent
        (
            "W_o",
            np.zeros((8, 5)),
            r"W_o: expected shape \(A\*D, H\) = \(8, 8\).*got \(8, 5\)",
        ),
        ("W_k", np.zeros((2, 8, 3)), r"W_k: expected shape \(A, H, D\) = \(2, 8, 4\)"),
        (
            "W1",
            np.zeros((5, 32)),
            r"W1: expected shape \(H, F\) = \(8, 32\).*got \(5, 32\)",
        ),
        ("W_p", np.zeros((5, 3)), r"W_p: expected shape \(any, 8\), got \(5, 3\)"),
        ("ln2_gamma", np.ones(7), r"ln2_gamma: expected shape \(H\) = \(8,\)"),
        ("W_q", np.zeros((2, 8)), r"W_q: expected an array with 3 dimension"),
        ("W_e", np.zeros((0, 8)), r"W_e: expected no dimension of size 0"),
        ("b1", np.full(32, np.nan), "b1: expected finite values"),
    ],
)
def test_block_params_are_checked_field_by_field(field, value, match):
    with pytest.raises(ValueError, match=match):
        dataclasses.replace(P, **{field: value})
    # a field changed after construction is caught when the params are used, named params.<field>
    q = dataclasses.replace(P)
    setattr(q, field, value)
    with pytest.raises(ValueError, match="params." + match):
        S.trace_gpt_block(IDS2, q)
    with pytest.raises(ValueError, match="params." + match):
        S.gpt2_reference(IDS2, q)


def test_nan_bias_blames_the_bias_not_the_activations():
    q = dataclasses.replace(P)
    q.b1 = np.full(32, np.nan)
    with pytest.raises(ValueError, match=r"^params\.b1: expected finite values"):
        S.trace_gpt_block(IDS2, q)


def test_block_params_given_as_lists_still_trace_like_gpt2():
    q = dataclasses.replace(P, W_e=P.W_e.tolist(), b1=P.b1.tolist())
    ours = S.trace_gpt_block(IDS2, q)[-2].value  # logits
    ref = S.gpt2_reference(IDS2, P)["logits"]
    assert np.abs(ours - ref).max() < 1e-12


def test_sequence_length_checked_by_the_reference_too():
    with pytest.raises(
        ValueError, match="ids: expected sequences of at most n_max=5 tokens"
    ):
        S.gpt2_reference(np.ones((1, 6), dtype=int), P)  # was an IndexError from torch
    for f in (S.trace_gpt_block, S.gpt2_reference):
        with pytest.raises(
            ValueError, match=r"ids: expected at least one sequence.*\(1, 0\)"
        ):
            f(np.ones((1, 0), dtype=int), P)
    with pytest.raises(ValueError, match="gelu_approximation: expected one of"):
        S.trace_gpt_block(IDS2, P, "exact")


@pytest.mark.parametrize(
    "dims, exc, match",
    [
        (
            {"B": 1.5},
            TypeError,
            r"dims\['B'\]: expected a "
            "positive integer, got 1.5",
        ),
        (
            {"B": -2},
            ValueError,
            r"dims\['B'\]: expected a "
            "positive integer, got -2",
        ),
        ({"B": True}, TypeError, r"dims\['B'\]"),
    ],
)
def test_symbolic_shape_sizes_are_positive_integers(dims, exc, match):
    with pytest.raises(exc, match=match):  # silent before: (1.5,), (-2,)
        S.symbolic_shape(("B", "2B"), dims)


def test_symbolic_shape_letters():
    for letters in (("3",), ("A*",)):
        with pytest.raises(ValueError, match="letters: expected a product of names"):
            S.symbolic_shape(letters, {"A": 2})
    with pytest.raises(TypeError, match="letters: expected strings"):
        S.symbolic_shape((2,), {"A": 2})
    with pytest.raises(TypeError, match="dims: expected a dict"):
        S.symbolic_shape(("A",), [2])
    assert S.symbolic_shape(("12A", "A*D"), {"A": 2, "D": np.int64(3)}) == (
        24,
        6,
    )  # by hand


# ---------------------------------------------------------------------------------------------
# tokenizers
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda e: T.split_word("low", e),
        lambda e: T.initial_symbols({"low": 1}, e),
        lambda e: T.learn_bpe({"low": 1}, 1, end_of_word=e),
        lambda e: T.greedy_bpe_states({"abc": 1}, end_of_word=e),
    ],
)
@pytest.mark.parametrize("eow", [5, None])
def test_end_of_word_must_be_a_string(call, eow):
    with pytest.raises(TypeError, match="end_of_word: expected a string"):
        call(eow)


@pytest.mark.parametrize("pair", [("a", "b", "c"), "ab", ("a",), ("a", 1), ("a", "")])
def test_merge_pair_needs_a_pair_of_symbols(pair):
    with pytest.raises(
        ValueError, match="pair: expected a pair of two non-empty symbols"
    ):
        T.merge_pair(("a", "b"), pair)


def test_greedy_bpe_states_max_states():
    with pytest.raises(
        ValueError, match="max_states: expected a positive integer, got -1"
    ):
        T.greedy_bpe_states({"abc": 1}, max_states=-1)
    with pytest.raises(
        TypeError, match="max_states: expected a positive integer, got '3'"
    ):
        T.greedy_bpe_states({"abc": 1}, max_states="3")
    # "abc" without a marker: a b c -> {ab c, a bc} -> abc, 4 states (enumerated by hand)
    assert len(T.greedy_bpe_states({"abc": 1}, end_of_word="", max_states=4)) == 4
    with pytest.raises(
        ValueError, match="max_states: expected at most 3 reachable states"
    ):
        T.greedy_bpe_states({"abc": 1}, end_of_word="", max_states=3)


def test_symbol_order_must_list_distinct_symbols():
    # silent before: "a" got rank 2, so the tie ab/ba (1 each) went to ("b", "a")
    with pytest.raises(
        ValueError,
        match=r"symbol_order: expected distinct symbols, got "
        r"duplicates \['a'\]",
    ):
        T.learn_bpe({"ab": 1, "ba": 1}, 1, end_of_word="", symbol_order=["a", "b", "a"])
    with pytest.raises(TypeError, match="symbol_order: expected a sequence of symbols"):
        T.learn_bpe({"ab": 1}, 1, end_of_word="", symbol_order="ab")
    with pytest.raises(
        ValueError, match="symbol_order: expected non-empty strings, got 3"
    ):
        T.learn_bpe({"ab": 1}, 1, end_of_word="", symbol_order=["a", "b", 3])
    # the order given decides the tie: b before a -> ("b", "a") is merged first
    merges = T.learn_bpe({"ab": 1, "ba": 1}, 1, end_of_word="", symbol_order=("b", "a"))
    assert [m.pair for m in merges] == [("b", "a")]
