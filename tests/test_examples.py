"""The slides' (source 004) worked examples, recomputed.

The inputs come from :mod:`formulated.examples` (transcribed from the slides); the truth is
computed here with ``torch`` and with closed forms, and compared with the slides' printed
results (``SLIDE_*``), which are rounded and partly wrong.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from _helpers import as_torch64

import formulated as f
from formulated import examples as ex


def test_examples_all_lists_float_arrays():
    for name in ex.__all__:
        arr = getattr(ex, name)
        assert isinstance(arr, np.ndarray) and arr.dtype == np.float64, name


# -- the Q/K/V example ------------------------------------------------------------------------


def qkv():
    X = as_torch64(ex.QKV_INPUTS)
    return (
        X @ as_torch64(ex.QKV_W_QUERY),
        X @ as_torch64(ex.QKV_W_KEY),
        X @ as_torch64(ex.QKV_W_VALUE),
    )


def test_shapes_of_the_qkv_example():
    assert ex.QKV_INPUTS.shape == (3, 4)  # three inputs of size 4
    for W in (ex.QKV_W_KEY, ex.QKV_W_QUERY, ex.QKV_W_VALUE):
        assert W.shape == (4, 3)  # "each set of the weights must have a shape of 4x3"


def test_keys_values_queries_are_as_printed():
    Q, K, V = qkv()
    assert torch.equal(
        K, as_torch64([[0, 1, 1], [4, 4, 0], [2, 3, 1]])
    )  # computed, vs the numbers
    assert torch.equal(K, as_torch64(ex.SLIDE_KEYS))
    assert torch.equal(V, as_torch64(ex.SLIDE_VALUES))
    assert torch.equal(Q, as_torch64(ex.SLIDE_QUERIES))


def test_scores_of_query_1():
    Q, K, _ = qkv()
    scores = Q[0] @ K.T  # unscaled, as on the slide
    assert torch.equal(scores, as_torch64([2, 4, 4]))
    assert torch.equal(scores, as_torch64(ex.SLIDE_SCORES_1))


def test_softmax_of_query_1_and_the_slides_rounding():
    exact = torch.softmax(as_torch64([2.0, 4.0, 4.0]), -1).numpy()
    # closed form: softmax([2, 4, 4]) = [1, e^2, e^2] / (1 + 2 e^2)
    e2 = math.exp(2)
    closed = np.array([1, e2, e2]) / (1 + 2 * e2)
    assert np.max(np.abs(exact - closed)) < 1e-15
    assert np.max(np.abs(f.softmax([2.0, 4.0, 4.0]) - closed)) < 1e-15
    assert abs(closed[0] - 0.0634) < 1e-4  # about [0.0634, 0.4683, 0.4683]
    # The slide prints [0.0, 0.5, 0.5]: not even the one-decimal rounding, which is [0.1, 0.5, 0.5]
    # (and would not sum to 1); the first weight is off by 0.063.
    assert np.array_equal(np.round(closed, 1), [0.1, 0.5, 0.5])
    assert not np.array_equal(np.round(closed, 1), ex.SLIDE_SOFTMAX_1)
    assert 0.063 < np.max(np.abs(closed - ex.SLIDE_SOFTMAX_1)) < 0.064


def test_output_of_input_1_exact_vs_slide():
    Q, K, V = qkv()
    ref = F.scaled_dot_product_attention(Q[None], K[None], V[None], scale=1.0)[
        0
    ]  # no 1/sqrt(D)
    ours = f.attention(
        ex.QKV_INPUTS @ ex.QKV_W_QUERY,
        ex.QKV_INPUTS @ ex.QKV_W_KEY,
        ex.QKV_INPUTS @ ex.QKV_W_VALUE,
        scale=1.0,
    )
    assert np.max(np.abs(ours - ref.numpy())) < 1e-12
    e2 = math.exp(2)
    out1 = (
        np.array([1, 2, 3]) + e2 * np.array([2, 8, 0]) + e2 * np.array([2, 6, 3])
    ) / (1 + 2 * e2)
    assert np.max(np.abs(ours[0] - out1)) < 1e-12  # about [1.9366, 6.6831, 1.5951]
    # The slide's [2.0, 7.0, 1.5] is the output for the *rounded* weights [0.0, 0.5, 0.5] ...
    assert np.array_equal(
        ex.SLIDE_SOFTMAX_1[:, None] * V.numpy(), ex.SLIDE_WEIGHTED_VALUES_1
    )
    assert np.array_equal(ex.SLIDE_SOFTMAX_1 @ V.numpy(), ex.SLIDE_OUTPUT_1)
    # ... so it is off by up to 0.32 (third entry 1.5 vs 1.595 even rounds the wrong way).
    err = np.abs(ours[0] - ex.SLIDE_OUTPUT_1)
    assert 0.31 < err.max() < 0.32
    assert not np.array_equal(np.round(ours[0]), ex.SLIDE_OUTPUT_1)


# -- the masked-softmax example ---------------------------------------------------------------


def test_masked_scores_are_scores_plus_mask():
    assert np.array_equal(ex.MASK_LOOKAHEAD, f.mask_autoregressive(4))
    assert np.array_equal(
        ex.MASK_SCALED_SCORES + ex.MASK_LOOKAHEAD, ex.SLIDE_MASKED_SCORES
    )


def test_masked_softmax_example():
    causal = torch.ones(4, 4, dtype=torch.bool).tril()
    ref = torch.softmax(
        as_torch64(ex.MASK_SCALED_SCORES).masked_fill(~causal, -torch.inf), -1
    ).numpy()
    ours = f.masked_softmax(ex.MASK_SCALED_SCORES, ex.MASK_LOOKAHEAD)
    assert np.max(np.abs(ours - ref)) < 1e-15
    assert np.max(np.abs(ours.sum(axis=1) - 1)) < 1e-15  # rows sum to 1
    assert np.all(np.triu(ours, k=1) == 0)  # nothing above the diagonal
    # every scaled score is positive, so the sources' multiplicative 1/-inf mask works here
    mul = f.masked_softmax(
        ex.MASK_SCALED_SCORES,
        f.mask_autoregressive(4, "multiplicative"),
        kind="multiplicative",
    )
    assert np.max(np.abs(mul - ours)) < 1e-15


def test_printed_masked_softmax_is_within_0_01_but_not_correctly_rounded():
    e = np.exp
    row2 = np.array([e(0.1), e(0.6)]) / (e(0.1) + e(0.6))  # closed forms
    row3 = np.array([e(0.1), e(0.3), e(0.6)]) / (e(0.1) + e(0.3) + e(0.6))
    ours = f.masked_softmax(ex.MASK_SCALED_SCORES, ex.MASK_LOOKAHEAD)
    assert np.max(np.abs(ours[1, :2] - row2)) < 1e-15
    assert np.max(np.abs(ours[2, :3] - row3)) < 1e-15
    diff = np.abs(ours - ex.SLIDE_MASKED_SOFTMAX)
    assert diff.max() < 0.01
    wrong = np.argwhere(np.round(ours, 2) != ex.SLIDE_MASKED_SOFTMAX)
    # 0.3775 printed 0.37 (rounds to 0.38) and 0.3156 printed 0.31 (rounds to 0.32)
    assert [tuple(w) for w in wrong] == [(1, 0), (2, 1)]
    assert (
        abs(ex.SLIDE_MASKED_SOFTMAX[1].sum() - 0.99) < 1e-12
    )  # printed row 2 sums to 0.99


def test_masked_input_matrix_disagrees_with_scaled_scores():
    differ = np.argwhere(ex.SLIDE_MASKED_INPUT != ex.MASK_SCALED_SCORES)
    assert [tuple(d) for d in differ] == [(0, 1), (0, 2)]
    # both differing entries lie above the diagonal, so the masked result is the same anyway
    assert np.array_equal(
        f.masked_softmax(ex.SLIDE_MASKED_INPUT, ex.MASK_LOOKAHEAD),
        f.masked_softmax(ex.MASK_SCALED_SCORES, ex.MASK_LOOKAHEAD),
    )
