"""Bad input to the NumPy formulas, the NumPy models and the Hugging Face loaders.

Each case asserts the exception type and a message that starts with the argument's name.  Cases
marked "silent" returned a wrong or NaN result before the checks existed, so they fail on that
code.  Where a check draws a boundary (``eps = 0``, a broadcasting mask, the RoBERTa context),
the valid side is compared with an independent reference: ``torch`` or ``transformers``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from _helpers import as_torch, rng

import formulated as f
from formulated import models as M
from formulated.models import Config, hf, hf_tiny
from formulated.sampling import sampling_distribution

TOL = 1e-12


def raises(exc: type[Exception], name: str, rest: str = ""):
    """``pytest.raises`` whose message must start with ``name:`` (regex-escaped), then ``rest``."""
    import re

    return pytest.raises(exc, match=rf"^{re.escape(name)}:{rest}")


# ---------------------------------------------------------------------------------------------
# formulas: softmax and its axis
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("X", [np.zeros(0), np.zeros((2, 0)), np.zeros((0, 3))])
def test_softmax_rejects_empty_input(X):
    # before: numpy's "zero-size array to reduction operation maximum"
    with raises(ValueError, "X", " expected a non-empty array"):
        f.softmax(X)


def test_softmax_rejects_a_scalar():
    with raises(ValueError, "X", ".*at least 1 dimension"):
        f.softmax(3.0)


@pytest.mark.parametrize("axis", [2, 5, -3])
def test_softmax_axis_out_of_range(axis):
    with raises(ValueError, "axis", r" expected an axis in -2\.\.1.*got " + str(axis)):
        f.softmax(np.zeros((3, 4)), axis=axis)


@pytest.mark.parametrize("axis", [1.5, True, "0", None])
def test_softmax_axis_of_wrong_type(axis):
    with raises(TypeError, "axis"):
        f.softmax(np.zeros((3, 4)), axis=axis)


def test_softmax_axis_in_range_matches_torch():
    X = rng(1).normal(size=(2, 3, 4))
    for axis in (-3, 0, 1, 2):
        ref = torch.softmax(as_torch(X), dim=axis).numpy()
        assert np.abs(f.softmax(X, axis=axis) - ref).max() < TOL


# ---------------------------------------------------------------------------------------------
# formulas: masks must broadcast to the scores without enlarging them (silent before)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "scores_shape,mask_shape",
    [((3, 1), (3, 3)), ((3, 3), (2, 3, 3)), ((2, 3, 3), (4, 2, 3, 3))],
)
def test_masked_softmax_mask_may_not_enlarge_the_scores(scores_shape, mask_shape):
    # before: masked_softmax(ones((3, 1)), zeros((3, 3))) returned a (3, 3) matrix
    with raises(ValueError, "mask", ".*without enlarging it"):
        f.masked_softmax(np.ones(scores_shape), np.zeros(mask_shape))


def test_masked_softmax_broadcasting_masks_still_match_torch():
    S = rng(2).normal(size=(2, 2, 3, 3))  # (B, A, n, n)
    per_batch = np.zeros((2, 1, 3, 3))
    per_batch[1, 0, 0, 2] = -np.inf  # only sequence 1 blocks key 2 for query 0
    for mask in (f.mask_autoregressive(3), per_batch):
        ref = torch.softmax(as_torch(S) + as_torch(mask), dim=-1).numpy()
        assert np.abs(f.masked_softmax(S, mask) - ref).max() < TOL


def test_masked_softmax_rejects_empty_scores():
    with raises(ValueError, "scores", " expected a non-empty array"):
        f.masked_softmax(np.zeros((2, 0)), np.zeros((2, 0)))


def test_attention_mask_with_a_batch_axis_the_inputs_lack():
    X = rng(3).normal(size=(3, 4))
    # before: returned a (2, 3, 4) "batch" from a single sequence
    with raises(ValueError, "mask", ".*without enlarging it"):
        f.attention(X, X, X, mask=np.zeros((2, 3, 3)))


def test_multi_head_functions_reject_enlarging_masks():
    r = rng(4)
    W = r.normal(size=(2, 4, 2))
    W_o = r.normal(size=(4, 4))
    with raises(ValueError, "mask"):
        f.multi_head_self_attention(
            r.normal(size=(3, 4)), np.zeros((2, 3, 3)), W, W, W, W_o
        )
    with raises(ValueError, "mask", ".*without enlarging it"):
        f.multi_head_self_attention_batched(
            r.normal(size=(2, 3, 4)), np.zeros((5, 3, 3)), W, W, W, W_o
        )
    with raises(
        ValueError, "mask", ".*without enlarging it"
    ):  # (B, A, ...) with B = 3 ≠ 2
        f.multi_head_self_attention_batched(
            r.normal(size=(2, 3, 4)), np.zeros((3, 1, 3, 3)), W, W, W, W_o
        )


# ---------------------------------------------------------------------------------------------
# formulas: attention's scale and kind, empty inputs
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [float("nan"), float("inf"), -float("inf")])
def test_attention_scale_must_be_finite(scale):
    X = rng(5).normal(size=(3, 4))
    # before: blamed "X" (NaN or +inf scores)
    with raises(ValueError, "scale", " expected a finite number"):
        f.attention(X, X, X, scale=scale)


@pytest.mark.parametrize("scale", ["abc", [1.0], True, False])
def test_attention_scale_must_be_a_number(scale):
    # scale has one meaning, the factor of the scores (None: the formula's 1/sqrt(D)); a
    # bool is refused rather than read as 1.0 or 0.0
    X = rng(5).normal(size=(3, 4))
    with raises(TypeError, "scale", " expected a real number"):
        f.attention(X, X, X, scale=scale)


def test_attention_scale_none_is_one_over_sqrt_d():
    r = rng(8)
    Q, K, V = r.normal(size=(3, 4)), r.normal(size=(5, 4)), r.normal(size=(5, 2))
    assert np.array_equal(f.attention(Q, K, V), f.attention(Q, K, V, scale=None))
    assert np.abs(f.attention(Q, K, V) - f.attention(Q, K, V, scale=0.5)).max() < 1e-15
    assert np.abs(f.attention(Q, K, V) - f.attention(Q, K, V, scale=1.0)).max() > 1e-3


def test_attention_scale_overflow_names_the_culprit():
    X = rng(6).normal(size=(3, 4))
    with raises(ValueError, "scale", ".*overflow"):
        f.attention(X, X, X, scale=1e308)
    big = X * 1e200  # Q K^T itself overflows; the scale is innocent
    with raises(ValueError, "Q, K", ".*overflow"):
        f.attention(big, big, X)
    # the bound max|q| max|k| overflows, the scores do not (q and k are orthogonal): the
    # checker computes them, finds them finite, and the formula runs
    Q, K = np.array([[1e200, 0.0]]), np.array([[0.0, 1e200]])
    assert f.attention(Q, K, np.ones((1, 2))).tolist() == [[1.0, 1.0]]


def test_attention_numeric_scales_match_torch():
    r = rng(7)
    Q, K, V = r.normal(size=(3, 4)), r.normal(size=(5, 4)), r.normal(size=(5, 2))
    for scale in (0.5, np.float32(0.25), 2, -1.0, 0.0):
        ref = F.scaled_dot_product_attention(
            as_torch(Q), as_torch(K), as_torch(V), scale=float(scale)
        ).numpy()
        assert np.abs(f.attention(Q, K, V, scale=scale) - ref).max() < TOL


@pytest.mark.parametrize("kind", ["bogus", None, 1])
def test_attention_rejects_unknown_kind_without_mask(kind):
    X = rng(8).normal(size=(3, 4))
    # before: kind was only read when a mask was given
    with raises(ValueError, "kind"):
        f.attention(X, X, X, kind=kind)
    W = rng(9).normal(size=(2, 4, 2))
    with raises(ValueError, "kind"):
        f.multi_head_self_attention(X, None, W, W, W, np.eye(4), kind=kind)
    with raises(ValueError, "kind"):
        f.multi_head_self_attention_batched(
            X[None], None, W, W, W, np.eye(4), kind=kind
        )


@pytest.mark.parametrize("which", ["Q", "K", "V"])
def test_attention_rejects_empty_inputs(which):
    arrs = {"Q": np.ones((3, 4)), "K": np.ones((5, 4)), "V": np.ones((5, 2))}
    arrs[which] = {"Q": np.zeros((0, 4)), "K": np.zeros((0, 4)), "V": np.zeros((5, 0))}[
        which
    ]
    if which == "K":
        arrs["V"] = np.zeros((0, 2))
    with raises(ValueError, which, " expected a non-empty array"):
        f.attention(arrs["Q"], arrs["K"], arrs["V"])


def test_multi_head_self_attention_rejects_no_tokens():
    W = rng(10).normal(size=(2, 4, 2))
    with raises(ValueError, "X", " expected a non-empty array"):
        f.multi_head_self_attention(np.zeros((0, 4)), None, W, W, W, np.eye(4))
    with raises(ValueError, "X", " expected a non-empty array"):
        f.multi_head_self_attention_batched(
            np.zeros((2, 0, 4)), None, W, W, W, np.eye(4)
        )


# ---------------------------------------------------------------------------------------------
# formulas: layer norm (eps, empty rows) and cross entropy (empty input)
# ---------------------------------------------------------------------------------------------

LN = [f.layer_norm, f.layer_norm_std_eps]


@pytest.mark.parametrize("fn", LN)
@pytest.mark.parametrize("X", [np.zeros((2, 0)), np.zeros((0, 4)), np.zeros(0)])
def test_layer_norm_rejects_empty_input(fn, X):
    H = X.shape[-1]
    # before: H = 0 gave NaN with only a RuntimeWarning
    with raises(ValueError, "X", " expected a non-empty array"):
        fn(X, np.ones(H), np.zeros(H))


@pytest.mark.parametrize("fn", LN)
@pytest.mark.parametrize("eps", [True, np.bool_(False), "1e-5", None])
def test_layer_norm_eps_of_wrong_type(fn, eps):
    with raises(
        TypeError, "eps", " expected a real number"
    ):  # before: True was read as 1.0
        fn(np.eye(4), np.ones(4), np.zeros(4), eps=eps)


@pytest.mark.parametrize("fn", LN)
@pytest.mark.parametrize("eps", [-1e-5, float("nan"), float("inf")])
def test_layer_norm_eps_of_wrong_value(fn, eps):
    with raises(ValueError, "eps"):
        fn(np.eye(4), np.ones(4), np.zeros(4), eps=eps)


@pytest.mark.parametrize("fn", LN)
def test_layer_norm_eps_zero_on_a_constant_row(fn):
    X = np.array([[1.0, 2.0, 4.0, 8.0], [3.0, 3.0, 3.0, 3.0]])
    # before: NaN row with a RuntimeWarning
    with raises(ValueError, "eps", r".*row 1 of X.* 0/0"):
        fn(X, np.ones(4), np.zeros(4), eps=0)
    with raises(ValueError, "eps", r".*got X with"):
        fn(X[1], np.ones(4), np.zeros(4), eps=0.0)


def test_layer_norm_eps_zero_on_varying_rows_matches_torch():
    """Chapter 12 uses eps = 0 to show scale invariance; it stays allowed where defined."""
    X = rng(11).normal(size=(3, 6))
    gamma, beta = rng(12).normal(size=6), rng(13).normal(size=6)
    ref = F.layer_norm(
        as_torch(X), (6,), as_torch(gamma), as_torch(beta), eps=0.0
    ).numpy()
    assert np.abs(f.layer_norm(X, gamma, beta, eps=0) - ref).max() < 1e-10
    # with eps = 0 both placements of eps are (x - mu) / sigma
    assert np.abs(f.layer_norm_std_eps(X, gamma, beta, eps=0.0) - ref).max() < 1e-10
    ref32 = F.layer_norm(
        as_torch(X), (6,), as_torch(gamma), as_torch(beta), eps=1e-5
    ).numpy()
    assert (
        np.abs(f.layer_norm(X, gamma, beta, eps=np.float32(1e-5)) - ref32).max() < 1e-10
    )


@pytest.mark.parametrize(
    "logits,targets,name",
    [
        (np.zeros((0, 5)), np.zeros(0, dtype=int), "logits"),
        (np.zeros((2, 0)), np.zeros(2, dtype=int), "logits"),
        (np.zeros((2, 0, 5)), np.zeros((2, 0), dtype=int), "logits"),
    ],
)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_from_logits_rejects_empty_input(
    logits, targets, name, reduction
):
    # before: mean of no losses = NaN (RuntimeWarning); V = 0 gave "ids in 0..-1"
    with raises(ValueError, name):
        f.cross_entropy_from_logits(logits, targets, reduction=reduction)


def test_cross_entropy_reduction_checked_first_and_empty_y():
    with raises(ValueError, "reduction"):
        f.cross_entropy_from_logits(
            np.zeros((0, 5)), np.zeros(0, dtype=int), reduction=None
        )
    with raises(ValueError, "y", " expected a non-empty array"):
        f.cross_entropy(np.zeros(0), np.zeros(0))


# ---------------------------------------------------------------------------------------------
# models: special ids, eps, options of the blocks, biases
# ---------------------------------------------------------------------------------------------

CFG = Config(V=7, n_ctx=6, H=8, A=2, L=2)


@pytest.mark.parametrize(
    "bad",
    [
        dict(bos_id=-1),
        dict(bos_id=1.7),
        dict(eos_id=np.int64(-2)),
        dict(mask_id=-5),
        dict(mask_id=None),
        dict(mask_id="x"),
        dict(mask_id=True),
    ],
)
def test_roberta_input_special_ids(bad):
    ids = {"bos_id": 0, "eos_id": 2, "mask_id": 3} | bad
    (name,) = bad
    # before: bos_id=-1 put -1 in the output, bos_id=1.7 became 1, mask_id=-5 was inserted
    with raises(ValueError, name, " expected a non-negative integer token id"):
        M.roberta_input([1], [4], 1, **ids)


@pytest.mark.parametrize("eps", [True, "1e-5"])
def test_model_eps_of_wrong_type(eps):
    with raises(TypeError, "eps"):  # before: eps=True ran as 1.0
        M.gpt([1, 2], M.init_gpt(CFG), eps=eps)


@pytest.mark.parametrize("eps", [-1e-5, float("nan"), float("inf")])
def test_model_eps_of_wrong_value(eps):
    with raises(ValueError, "eps"):
        M.gpt2([1, 2], M.init_gpt2(CFG), eps=eps)


@pytest.mark.parametrize("eps", [0, 0.0])
def test_model_eps_zero_on_constant_rows(eps):
    """One rule for eps (_checks.check_eps, applied by layer_norm): 0 is the formula without its
    safety term, an error only where a row is constant (0/0), as for formulas.layer_norm."""
    p = M.init_gpt2(CFG)
    flat = dataclasses.replace(p, W_e=np.zeros_like(p.W_e), W_p=np.zeros_like(p.W_p))
    with raises(ValueError, "eps", r".*0/0"):
        M.gpt2([1, 2], flat, eps=eps)
    # on rows that are not constant it is the limit of a small eps
    near = M.gpt2_probabilities([1, 2], p, eps=1e-30)
    assert np.abs(M.gpt2_probabilities([1, 2], p, eps=eps) - near).max() < 1e-12


def test_model_eps_numpy_scalar_is_accepted():
    """``np.float32(1e-5)`` was rejected as "not a positive number"; GPT-2 is checked against
    transformers in test_models, here the float32 eps must give the float eps's answer."""
    p = M.init_gpt2(CFG, seed=3)
    a = M.gpt2([1, 2, 3], p, eps=np.float32(1e-5))
    b = M.gpt2([1, 2, 3], p, eps=float(np.float32(1e-5)))
    assert np.abs(a - b).max() == 0.0


def test_models_reject_empty_token_lists():
    with raises(
        ValueError, "x", " expected at least one token"
    ):  # before: "float64 ids"
        M.gpt([], M.init_gpt(CFG))


def _block(seed: int = 0, biases: bool = True) -> M.Block:
    return M.init_gpt(CFG, seed, attention_biases=biases).blocks[0]


@pytest.mark.parametrize(
    "field,value",
    [
        ("b_q", np.zeros((2, 1))),
        ("b_k", np.zeros((2, 5))),
        ("b_v", np.zeros(4)),
        ("b_o", np.zeros(1)),
        ("b_o", np.zeros((1, 8))),
    ],
)
def test_biased_attention_rejects_bias_shapes(field, value):
    blk = dataclasses.replace(_block(), **{field: value})
    X = rng(14).normal(size=(3, 8))
    # before: (A, 1) and (1,) broadcast silently, (A, 5) gave a raw broadcast error
    with raises(ValueError, f"blk.{field}", " expected shape"):
        M.multi_head_self_attention_biased(X, None, blk)
    for fn in (M.block_post_ln, M.block_pre_ln):
        with raises(ValueError, f"blk.{field}"):
            fn(X, blk, None)


@pytest.mark.parametrize("field", ["b_q", "b_o"])
def test_biased_attention_rejects_non_finite_biases(field):
    blk = _block()
    bad = getattr(blk, field).copy()
    bad.flat[0] = np.nan
    X = rng(15).normal(size=(3, 8))
    with raises(
        ValueError, f"blk.{field}", " expected finite values"
    ):  # before: NaN output
        M.multi_head_self_attention_biased(
            X, None, dataclasses.replace(blk, **{field: bad})
        )


def test_biased_attention_matches_torch_with_biases():
    """The valid path: torch's MultiheadAttention with in/out biases gives the same output."""
    A, H, D, n = 2, 8, 4, 3
    r = rng(16)
    blk = dataclasses.replace(
        _block(),
        b_q=r.normal(size=(A, D)),
        b_k=r.normal(size=(A, D)),
        b_v=r.normal(size=(A, D)),
        b_o=r.normal(size=H),
    )
    X = r.normal(size=(n, H))
    mha = torch.nn.MultiheadAttention(
        H, A, bias=True, batch_first=True, dtype=torch.float64
    )
    with torch.no_grad():

        def rows(W: np.ndarray) -> torch.Tensor:  # (A, H, D) -> Linear weight (A*D, H)
            return as_torch(W.transpose(1, 0, 2).reshape(H, A * D).T)

        mha.in_proj_weight.copy_(
            torch.cat([rows(blk.W_q), rows(blk.W_k), rows(blk.W_v)])
        )
        mha.in_proj_bias.copy_(
            as_torch(
                np.concatenate([blk.b_q.ravel(), blk.b_k.ravel(), blk.b_v.ravel()])
            )
        )
        mha.out_proj.weight.copy_(as_torch(blk.W_o.T))
        mha.out_proj.bias.copy_(as_torch(blk.b_o))
        ref = mha(
            as_torch(X)[None], as_torch(X)[None], as_torch(X)[None], need_weights=False
        )[0][0].numpy()
    assert np.abs(M.multi_head_self_attention_biased(X, None, blk) - ref).max() < 1e-12


def test_blocks_reject_an_unknown_ffn_and_gelu():
    X, blk = rng(17).normal(size=(3, 8)), _block(biases=False)
    # before: ffn="rleu" silently ran the GELU network
    with raises(ValueError, "ffn", r" expected one of \('gelu', 'relu'\), got 'rleu'"):
        M.block_post_ln(X, blk, None, ffn="rleu")
    for fn in (M.block_post_ln, M.block_pre_ln):
        with raises(ValueError, "gelu"):
            fn(X, blk, None, gelu="exact")
        with raises(TypeError, "eps"):
            fn(X, blk, None, eps=True)


def test_blocks_reject_a_missing_block_and_a_wrong_width():
    X = rng(18).normal(size=(3, 8))
    for fn in (M.block_post_ln, M.block_pre_ln):  # (X, blk, mask)
        with raises(TypeError, "blk", " expected a Block"):  # before: AttributeError
            fn(X, None, None)
        with raises(
            ValueError, "X", r" expected shape \(any, 8\)"
        ):  # not "W_q" or "gamma"
            fn(X[:, :5], _block(), None)
    for blk in (_block(), _block(biases=False)):  # (X, mask, blk), both paths
        with raises(ValueError, "X", r" expected shape \(any, 8\)"):
            M.multi_head_self_attention_biased(X[:, :5], None, blk)
    with raises(TypeError, "blk", " expected a Block"):
        M.multi_head_self_attention_biased(X, None, None)


def test_block_relu_ffn_matches_torch():
    """The ffn="relu" path (000's BERT box) of a post-LN block, rebuilt from torch ops."""
    X, blk = rng(19).normal(size=(3, 8)), _block(biases=False)
    Xt = as_torch(X)
    heads = [
        F.scaled_dot_product_attention(
            Xt @ as_torch(blk.W_q[i]),
            Xt @ as_torch(blk.W_k[i]),
            Xt @ as_torch(blk.W_v[i]),
        )
        for i in range(2)
    ]
    Xp = F.layer_norm(
        torch.cat(heads, -1) @ as_torch(blk.W_o) + Xt,
        (8,),
        as_torch(blk.gamma_1),
        as_torch(blk.beta_1),
        eps=1e-5,
    )
    ffn = torch.relu(Xp @ as_torch(blk.W_1) + as_torch(blk.b_1)) @ as_torch(
        blk.W_2
    ) + as_torch(blk.b_2)
    ref = F.layer_norm(
        ffn + Xp, (8,), as_torch(blk.gamma_2), as_torch(blk.beta_2), eps=1e-5
    ).numpy()
    assert np.abs(M.block_post_ln(X, blk, None, ffn="relu") - ref).max() < 1e-12


# ---------------------------------------------------------------------------------------------
# models: check_params
# ---------------------------------------------------------------------------------------------


def _poison(params, path: str, value=np.nan):
    """A deep enough copy of ``params`` with one entry of the array at ``path`` set to ``value``."""
    p = dataclasses.replace(
        params, blocks=[dataclasses.replace(b) for b in params.blocks]
    )
    if path.startswith("blocks"):
        l, name = int(path[7]), path.split(".")[1]
        arr = getattr(p.blocks[l], name).copy()
        arr.flat[-1] = value
        setattr(p.blocks[l], name, arr)
    else:
        arr = getattr(p, path).copy()
        arr.flat[-1] = value
        setattr(p, path, arr)
    return p


@pytest.mark.parametrize(
    "init,path",
    [
        (M.init_gpt, "W_e"),
        (M.init_gpt, "W_p"),
        (M.init_gpt2, "gamma_f"),
        (M.init_gpt, "blocks[1].b_2"),
        (M.init_gpt, "blocks[0].W_q"),
        (M.init_bert, "w_B"),
    ],
)
@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_check_params_names_non_finite_parameters(init, path, value):
    params = _poison(init(CFG), path, value)
    # before: gpt() failed later as "X: expected finite values" (or not at all for gamma_f)
    with raises(ValueError, f"params.{path}", " expected finite values"):
        M.check_params(params)


def test_forwards_name_the_non_finite_parameter():
    with raises(ValueError, "params.blocks[1].b_2"):
        M.gpt([1, 2], _poison(M.init_gpt(CFG), "blocks[1].b_2"))
    with raises(ValueError, "params.w_B"):
        M.bert_probabilities([1, 2], [0, 1], _poison(M.init_bert(CFG), "w_B"))


def test_check_params_structure():
    p = M.init_gpt(CFG)
    with raises(TypeError, "params.blocks", " expected a list of L=2 Block"):
        M.check_params(dataclasses.replace(p, blocks=None))
    with raises(TypeError, "params.blocks[0]", " expected a Block, got NoneType"):
        M.check_params(dataclasses.replace(p, blocks=[None, None]))
    listed = dataclasses.replace(
        p,
        blocks=[
            dataclasses.replace(p.blocks[0], W_q=p.blocks[0].W_q.tolist()),
            p.blocks[1],
        ],
    )
    with raises(TypeError, "params.blocks[0].W_q", " expected a NumPy array, got list"):
        M.check_params(listed)
    missing = dataclasses.replace(
        p, blocks=[p.blocks[0], dataclasses.replace(p.blocks[1], b_1=None)]
    )
    with raises(
        TypeError, "params.blocks[1].b_1", " expected a NumPy array, got NoneType"
    ):
        M.check_params(missing)
    with raises(TypeError, "params.gamma_f"):
        M.check_params(dataclasses.replace(M.init_gpt2(CFG), gamma_f=[1.0] * 8))


def test_check_params_bias_shapes():
    p = M.init_gpt(CFG, attention_biases=True)
    bad = dataclasses.replace(
        p, blocks=[dataclasses.replace(p.blocks[0], b_q=np.zeros((2, 1))), p.blocks[1]]
    )
    with pytest.raises(
        ValueError,
        match=r"^params\.blocks\[0\]\.b_q .*: expected shape "
        r"\(2, 4\), got \(2, 1\)",
    ):
        M.check_params(bad)


@pytest.mark.parametrize(
    "pad_id,exc",
    [
        ("1", TypeError),
        (1.0, TypeError),
        (True, TypeError),
        (-1, ValueError),
        (7, ValueError),
    ],
)
def test_check_params_roberta_pad_id(pad_id, exc):
    # before: pad_id="1" or -1 were accepted and never matched any id
    with raises(exc, "params.pad_id"):
        M.roberta_probabilities(
            [2, 3], dataclasses.replace(M.init_roberta(CFG), pad_id=pad_id)
        )


# ---------------------------------------------------------------------------------------------
# hf: hf_probabilities, tiny_model, randomize_, box_variant, omission_effects
# ---------------------------------------------------------------------------------------------

HF_CFG = Config(V=20, n_ctx=8, H=8, A=2, L=2)


@pytest.fixture(scope="module")
def models():
    return {
        kind: hf_tiny.tiny_model(kind, HF_CFG, seed=1)
        for kind in ("gpt2", "bert", "roberta")
    }


@pytest.mark.parametrize(
    "x,exc,rest",
    [
        (
            [1.7, 2.9],
            TypeError,
            " expected integer token ids",
        ),  # silent: read as [1, 2]
        ([1, -1], ValueError, r" expected token ids in 0\.\.19"),
        ([1, 20], ValueError, r" expected token ids in 0\.\.19"),
        (np.ones(9, dtype=int), ValueError, r" expected a sequence of at most n_ctx=8"),
        ([], ValueError, " expected at least one token"),
        (
            np.ones((1, 1, 2), dtype=int),
            ValueError,
            " expected 1 or 2 dimension",
        ),  # silent
        ("12", TypeError, " expected integer token ids"),
    ],
)
def test_hf_probabilities_checks_ids(models, x, exc, rest):
    with raises(exc, "x", rest):
        hf_tiny.hf_probabilities(models["gpt2"], x)


def test_hf_probabilities_checks_segment_ids(models):
    with raises(ValueError, "t", " segment ids are for BERT"):  # silent: t was ignored
        hf_tiny.hf_probabilities(models["gpt2"], [1, 2], [0, 1])
    with raises(ValueError, "t", r" expected segment ids in \{0, 1\}, got 2"):
        hf_tiny.hf_probabilities(models["bert"], [1, 2], [0, 2])
    with raises(ValueError, "t", " expected the shape of x"):
        hf_tiny.hf_probabilities(models["bert"], [1, 2, 3], [0, 1])
    with raises(TypeError, "t", " expected integer segment ids"):
        hf_tiny.hf_probabilities(models["bert"], [1, 2], [0.0, 1.0])
    with raises(ValueError, "t", r" expected segment ids in 0\.\.0"):  # one token type
        hf_tiny.hf_probabilities(models["roberta"], [2, 3], [0, 1])


def test_hf_probabilities_context_boundary_matches_the_model(models):
    """n = n_ctx is accepted (RoBERTa's table has pad_id + 1 more rows) and equals the model's
    own softmax; n_ctx + 1 is the first length rejected."""
    for kind in ("gpt2", "roberta"):
        m = models[kind]
        x = rng(20).integers(2, HF_CFG.V, size=HF_CFG.n_ctx)
        with torch.no_grad():
            ref = torch.softmax(
                m(input_ids=torch.as_tensor(x)[None]).logits[0], -1
            ).numpy()
        assert np.abs(hf_tiny.hf_probabilities(m, x) - ref).max() < TOL
        with raises(ValueError, "x", ".*n_ctx=8"):
            hf_tiny.hf_probabilities(m, np.append(x, 2))


def test_hf_probabilities_rejects_a_non_model():
    with raises(TypeError, "model"):
        hf_tiny.hf_probabilities(None, [1, 2])


@pytest.mark.parametrize(
    "window,exc",
    [(0, ValueError), (-1, ValueError), ("x", TypeError), (2.0, TypeError)],
)
def test_tiny_model_window(window, exc):
    # before: gpt-neo built with window 0 or -1
    with raises(exc, "window"):
        hf_tiny.tiny_model("gpt-neo", HF_CFG, window=window)


@pytest.mark.parametrize(
    "scale,exc",
    [
        (float("nan"), ValueError),
        (float("inf"), ValueError),
        (-0.1, ValueError),
        ("0.3", TypeError),
        (None, TypeError),
    ],
)
def test_randomize_scale(models, scale, exc):
    # before: scale=nan made every weight NaN
    with raises(exc, "scale"):
        hf_tiny.randomize_(models["gpt2"], scale=scale)


def test_randomize_seed_and_model():
    with raises(TypeError, "seed"):
        hf_tiny.randomize_(torch.nn.Linear(2, 2), seed="a")
    with raises(TypeError, "model"):
        hf_tiny.randomize_(None)


@pytest.mark.parametrize(
    "omission",
    [
        "token_type",
        "mlm_head",
        "segment_labels",
        "position_offset",
        "relu",
        "output_bias",
    ],
)
def test_box_variant_rejects_omissions_of_another_model(models, omission):
    params, opts = hf.from_gpt2(models["gpt2"])
    # before: TypeError/AttributeError from dataclasses, or "relu" added an option gpt2 rejects
    with raises(ValueError, "omission", r" expected one of OMISSIONS\['gpt2'\]"):
        hf.box_variant(models["gpt2"], params, opts, omission)


def test_box_variant_rejects_segment_labels_on_roberta(models):
    params, opts = hf.from_roberta(models["roberta"])
    with raises(ValueError, "omission", r" expected one of OMISSIONS\['roberta'\]"):
        hf.box_variant(models["roberta"], params, opts, "segment_labels")
    with raises(ValueError, "omission", " expected one of"):
        hf.box_variant(models["roberta"], params, opts, "bias")


@pytest.mark.parametrize(
    "kwargs,exc,name",
    [
        (dict(n=9), ValueError, "n"),
        (dict(n=0), ValueError, "n"),
        (dict(n=-1), ValueError, "n"),
        (dict(n=1.5), TypeError, "n"),
        (dict(seed=-1), ValueError, "seed"),
        (dict(config=Config(V=2, n_ctx=8, H=8, A=2, L=2)), ValueError, "config.V"),
        (dict(config={"V": 5}), TypeError, "config"),
    ],
)
def test_omission_effects_arguments(kwargs, exc, name):
    args = dict(config=HF_CFG) | kwargs
    with raises(exc, name):
        hf.omission_effects("gpt2", **args)
    with raises(ValueError, "window"):
        hf.omission_effects("gpt-neo", HF_CFG, window=0)


# ---------------------------------------------------------------------------------------------
# Bad input: a tiny temperature, a y_hat that is not a distribution, a ragged batch, a tensor
# that requires grad (each failed on the code before: NaN, a number, NumPy's "inhomogeneous
# shape", torch's "Can't call numpy()")
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("as_tensor", [False, True])
def test_sampling_distribution_at_a_tiny_temperature_is_the_one_hot_limit(as_tensor):
    from formulated.sampling import sampling_distribution

    z = torch.tensor([1.0, 2.0, 0.5]) if as_tensor else [1.0, 2.0, 0.5]
    p = np.asarray(sampling_distribution(z, temperature=1e-310))
    assert np.array_equal(p, [0.0, 1.0, 0.0])  # the limit of softmax(z / T) as T -> 0+
    # and an ordinary temperature still matches softmax(z / T) computed by torch
    ref = torch.softmax(torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64) / 0.3, -1)
    got = np.asarray(sampling_distribution(z, temperature=0.3), dtype=np.float64)
    assert np.abs(got - ref.numpy()).max() < (1e-7 if as_tensor else TOL)


def test_cross_entropy_refuses_a_y_hat_that_is_not_a_distribution():
    y = np.array([[0.0, 1.0, 0.0]])
    with raises(
        ValueError,
        "y_hat",
        r" expected a probability distribution in every row "
        r"\(summing to 1 along the last axis\), got a row "
        r"summing to 2\.7",
    ):
        f.cross_entropy(y, np.array([[0.9, 0.9, 0.9]]))
    # a float32 softmax (rows summing to 1 within float32 rounding) is a distribution
    y_hat = torch.softmax(
        torch.randn(4, 7, generator=torch.Generator().manual_seed(0)), -1
    )
    y4 = np.eye(7)[[1, 3, 0, 6]]
    ref = F.cross_entropy(
        torch.log(y_hat.double()), torch.tensor([1, 3, 0, 6]), reduction="none"
    )
    assert np.abs(f.cross_entropy(y4, y_hat.numpy()) - ref.numpy()).max() < 1e-6


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: f.softmax([[1.0, 2.0], [3.0]]), "X"),
        (
            lambda: f.cross_entropy([[0.0, 1.0], [1.0, 0.0]], [[0.5, 0.5], [1.0]]),
            "y_hat",
        ),
        (lambda: f.embed([[0, 1], [1]], np.eye(3)), "ids"),
        (lambda: f.attention([[1.0, 0.0], [0.0]], np.eye(2), np.eye(2)), "Q"),
        # these read the argument (np.size, np.asarray) before the shared converter
        (lambda: M.gpt2_probabilities([[1, 2], [3]], M.init_gpt2(CFG)), "x"),
        (lambda: M.gpt3_probabilities([[1, 2], [3]], M.init_gpt3(CFG)), "x"),
        (lambda: f.masked_softmax(np.zeros((2, 2)), [[0.0, 0.0], [0.0]]), "mask"),
        (lambda: sampling_distribution([[1.0, 2.0], [3.0]]), "z"),
    ],
)
def test_a_ragged_batch_names_the_argument(call, name):
    with raises(
        ValueError,
        name,
        r" expected a rectangular array \(every row of the same "
        r"length\), got a ragged nested sequence with rows of "
        r"lengths \[1, 2\]",
    ):
        call()


def test_a_tensor_that_requires_grad_is_refused_and_a_detached_one_read():
    """The NumPy formulas used to detach a tensor that requires grad, so a reader who
    expected gradients got none, silently; now it is refused, naming the argument.  A tensor
    without gradient (detached, or an integer one) is still read as its values."""
    X = torch.randn(
        3, 5, requires_grad=True, generator=torch.Generator().manual_seed(1)
    )
    grad = (
        r" expected a NumPy array or a tensor without gradient; got a tensor that requires "
        r"grad .* call \.detach\(\) first"
    )
    with raises(TypeError, "X", grad):
        f.softmax(X)
    with raises(TypeError, "gamma", grad):
        f.layer_norm(X.detach(), torch.ones(5, requires_grad=True), np.zeros(5))
    with raises(TypeError, "W_e", grad):
        f.embed([0, 2], torch.ones(3, 4, requires_grad=True))
    ref = torch.softmax(X.detach().double(), -1).numpy()
    assert np.abs(f.softmax(X.detach()) - ref).max() < 1e-7  # float32 in, float32 out
    assert (
        np.abs(
            f.layer_norm(X.detach(), torch.ones(5), np.zeros(5))
            - F.layer_norm(X.detach(), (5,)).numpy()
        ).max()
        < 1e-6
    )
    # sampling is a NumPy formula like the others: a tensor that requires grad is refused
    z = torch.tensor([1.0, 2.0, 0.5], requires_grad=True)
    with raises(TypeError, "z", " expected a NumPy array or a tensor without gradient"):
        sampling_distribution(z, temperature=0.5)
