"""Every function of :mod:`formulated.formulas` against an independent reference.

References are ``torch`` (``torch.softmax``, ``F.one_hot``, ``nn.Embedding``,
``F.scaled_dot_product_attention``, ``nn.MultiheadAttention``, ``F.gelu``, ``nn.LayerNorm``,
``F.cross_entropy``, ...), closed-form values, and properties checked with hypothesis.  All
comparisons are in float64 with tolerance 1e-10 where the math is identical.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from _helpers import as_torch, rng
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from transformers.activations import ACT2FN

import formulated as f

TOL = 1e-10
SHAPES = [(1, 1), (3, 5), (7, 4), (16, 9)]


def maxerr(a, b) -> float:
    a = a.detach().numpy() if isinstance(a, torch.Tensor) else np.asarray(a)
    b = b.detach().numpy() if isinstance(b, torch.Tensor) else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    return float(np.max(np.abs(a - b))) if a.size else 0.0


# ---------------------------------------------------------------------------------------------
# diag, stack, one_hot, embed


@pytest.mark.parametrize("n", [1, 4, 9])
def test_diag_matches_torch(n):
    x = rng(n).normal(size=n)
    assert maxerr(f.diag(x), torch.diag(as_torch(x))) == 0


@pytest.mark.parametrize("n,H", [(1, 3), (5, 2), (4, 7)])
def test_stack_matches_torch_expand(n, H):
    x = rng(n).normal(size=H)
    out = f.stack(x, n)
    assert maxerr(out, as_torch(x).expand(n, H)) == 0
    out[0, 0] += 1  # a real array, not a view of x
    assert out[-1, 0] == x[0] if n > 1 else out[0, 0] == x[0] + 1


@pytest.mark.parametrize("n,V", [(1, 1), (6, 4), (20, 11)])
def test_one_hot_matches_torch(n, V):
    ids = rng(V).integers(0, V, size=n)
    out = f.one_hot(ids, V)
    assert out.dtype == np.float64
    assert maxerr(out, F.one_hot(as_torch(ids), V).double()) == 0


@pytest.mark.parametrize("n,V,H", [(1, 1, 3), (6, 10, 4), (12, 50, 8)])
def test_embed_matches_nn_embedding_and_one_hot(n, V, H):
    g = rng(n + V)
    W_e, ids = g.normal(size=(V, H)), g.integers(0, V, size=n)
    emb = torch.nn.Embedding(V, H).double()
    with torch.no_grad():
        emb.weight.copy_(as_torch(W_e))
    assert maxerr(f.embed(ids, W_e), emb(as_torch(ids))) == 0
    assert maxerr(f.embed(ids, W_e), f.one_hot(ids, V) @ W_e) == 0


def test_embed_batch_of_ids():
    g = rng(1)
    W_e, ids = g.normal(size=(7, 3)), g.integers(0, 7, size=(2, 5))
    assert f.embed(ids, W_e).shape == (2, 5, 3)
    assert (
        maxerr(
            f.embed(ids, W_e),
            torch.nn.functional.embedding(as_torch(ids), as_torch(W_e)),
        )
        == 0
    )


# ---------------------------------------------------------------------------------------------
# softmax


@pytest.mark.parametrize("shape", SHAPES + [(2, 3, 4)])
@pytest.mark.parametrize("axis", [-1, 0])
def test_softmax_matches_torch(shape, axis):
    X = rng(len(shape)).normal(scale=5, size=shape)
    assert maxerr(f.softmax(X, axis=axis), torch.softmax(as_torch(X), dim=axis)) < TOL


def test_softmax_is_stable_for_large_inputs():
    out = f.softmax([1000.0, 1001.0])
    assert np.all(np.isfinite(out))
    # closed form: softmax([a, a+1]) = [1/(1+e), e/(1+e)]
    assert maxerr(out, [1 / (1 + math.e), math.e / (1 + math.e)]) < 1e-15
    big = rng(2).normal(scale=1e4, size=(4, 6))
    assert maxerr(f.softmax(big), torch.softmax(as_torch(big), -1)) < TOL


def test_softmax_minus_inf_gets_zero():
    out = f.softmax([[0.0, -np.inf, 1.0]])
    assert out[0, 1] == 0
    assert (
        maxerr(out, torch.softmax(as_torch(np.array([[0.0, -np.inf, 1.0]])), -1)) < TOL
    )


def test_softmax_keeps_float32():
    X = rng(3).normal(size=(3, 4)).astype(np.float32)
    out = f.softmax(X)
    assert out.dtype == np.float32
    assert maxerr(out, torch.softmax(as_torch(X), -1)) < 1e-6


finite_rows = hnp.arrays(
    np.float64,
    hnp.array_shapes(min_dims=2, max_dims=2, max_side=8),
    elements=st.floats(-1e3, 1e3),
)


@given(finite_rows)
def test_softmax_rows_sum_to_one(X):
    P = f.softmax(X)
    assert np.all(P >= 0) and np.all(P <= 1)
    assert np.max(np.abs(P.sum(axis=-1) - 1)) < 1e-12


@given(finite_rows, st.floats(-1e3, 1e3))
def test_softmax_is_shift_invariant(X, c):
    assert maxerr(f.softmax(X + c), f.softmax(X)) < 1e-12


# ---------------------------------------------------------------------------------------------
# masks and masked softmax


@pytest.mark.parametrize("n", [1, 2, 5])
def test_masks_match_torch_constructions(n):
    causal = torch.ones(
        n, n, dtype=torch.bool
    ).tril()  # the boolean mask torch's is_causal uses
    ref_add = torch.zeros(n, n, dtype=torch.float64).masked_fill(~causal, float("-inf"))
    ref_mul = torch.ones(n, n, dtype=torch.float64).masked_fill(~causal, float("-inf"))
    assert torch.equal(as_torch(f.mask_autoregressive(n)), ref_add)
    assert torch.equal(
        as_torch(f.mask_autoregressive(n, kind="multiplicative")), ref_mul
    )
    assert np.array_equal(f.mask_bidirectional(n), np.zeros((n, n)))
    assert np.array_equal(
        f.mask_bidirectional(n, kind="multiplicative"), np.ones((n, n))
    )


def test_mask_autoregressive_is_the_source_example_for_n4():
    # 000/001, box "Autoregressive Attention Mask", example for n = 4 (1 on/below the diagonal)
    inf = np.inf
    source = np.array(
        [[1, -inf, -inf, -inf], [1, 1, -inf, -inf], [1, 1, 1, -inf], [1, 1, 1, 1]]
    )
    assert np.array_equal(f.mask_autoregressive(4, kind="multiplicative"), source)


@pytest.mark.parametrize("n", [1, 3, 6])
def test_masked_softmax_matches_torch(n):
    S = rng(n).normal(size=(2, n, n))
    mask = f.mask_autoregressive(n)
    ref = torch.softmax(
        as_torch(S).masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), -torch.inf),
        -1,
    )
    assert maxerr(f.masked_softmax(S, mask), ref) < TOL
    # a boolean mask (True = may attend, torch's convention) gives the same
    assert maxerr(f.masked_softmax(S, np.tril(np.ones((n, n), dtype=bool))), ref) < TOL


def test_multiplicative_mask_works_only_for_positive_scores():
    S = rng(4).uniform(
        0.1, 2.0, size=(4, 4)
    )  # every score > 0: mask * S is -inf where masked
    mul = f.masked_softmax(
        S, f.mask_autoregressive(4, "multiplicative"), kind="multiplicative"
    )
    assert maxerr(mul, f.masked_softmax(S, f.mask_autoregressive(4))) < TOL
    # the literal formula in torch gives NaN for a negative blocked score (-x * -inf = +inf)
    S[0, 1] = -0.5
    ref = torch.softmax(
        as_torch(f.mask_autoregressive(4, "multiplicative")) * as_torch(S), -1
    )
    assert torch.isnan(ref[0]).all()
    with pytest.raises(ValueError, match=r"^mask:.*score -0\.5.*additive"):
        f.masked_softmax(
            S, f.mask_autoregressive(4, "multiplicative"), kind="multiplicative"
        )
    S[0, 1] = 0.0  # 0 * -inf = NaN
    with pytest.raises(ValueError, match=r"^mask:.*nan"):
        f.masked_softmax(
            S, f.mask_autoregressive(4, "multiplicative"), kind="multiplicative"
        )


def test_additive_one_minus_inf_mask_is_harmless():
    # Adding the sources' 1/-inf mask instead of multiplying it shifts each row by 1: no change.
    S = rng(5).normal(size=(5, 5))
    assert (
        maxerr(
            f.masked_softmax(S, f.mask_autoregressive(5, "multiplicative")),
            f.masked_softmax(S, f.mask_autoregressive(5)),
        )
        < 1e-12
    )


# ---------------------------------------------------------------------------------------------
# attention


@pytest.mark.parametrize("batch", [(), (3,), (2, 4)])
@pytest.mark.parametrize("n,m,D,Dv", [(1, 1, 1, 1), (5, 5, 4, 3), (4, 7, 8, 8)])
def test_attention_matches_sdpa(batch, n, m, D, Dv):
    g = rng(n * m + D)
    Q, K, V = (
        g.normal(size=batch + (n, D)),
        g.normal(size=batch + (m, D)),
        g.normal(size=batch + (m, Dv)),
    )
    ref = F.scaled_dot_product_attention(as_torch(Q), as_torch(K), as_torch(V))
    assert maxerr(f.attention(Q, K, V), ref) < TOL
    mask = np.where(g.random((n, m)) < 0.3, -np.inf, 0.0)
    mask[:, 0] = 0.0  # keep one key per row
    ref = F.scaled_dot_product_attention(
        as_torch(Q), as_torch(K), as_torch(V), attn_mask=as_torch(mask)
    )
    assert maxerr(f.attention(Q, K, V, mask), ref) < TOL
    ref = F.scaled_dot_product_attention(
        as_torch(Q), as_torch(K), as_torch(V), scale=1.0
    )
    assert maxerr(f.attention(Q, K, V, scale=1.0), ref) < TOL


@pytest.mark.parametrize("n,D", [(1, 2), (6, 4), (9, 16)])
def test_causal_attention_matches_sdpa_is_causal(n, D):
    g = rng(n)
    Q, K, V = (g.normal(size=(2, n, D)) for _ in range(3))
    ref = F.scaled_dot_product_attention(
        as_torch(Q), as_torch(K), as_torch(V), is_causal=True
    )
    assert maxerr(f.attention(Q, K, V, f.mask_autoregressive(n)), ref) < TOL
    assert (
        maxerr(
            f.attention(Q, K, V, f.mask_bidirectional(n)),
            F.scaled_dot_product_attention(as_torch(Q), as_torch(K), as_torch(V)),
        )
        < TOL
    )


@settings(max_examples=30)
@given(st.integers(1, 7), st.integers(1, 5), st.integers(0, 10_000), st.data())
def test_causal_row_is_independent_of_future_tokens(n, D, seed, data):
    g = rng(seed)
    X = g.normal(size=(n, D))
    W_q, W_k, W_v = (g.normal(size=(D, D)) for _ in range(3))
    j = data.draw(st.integers(0, n - 1))  # perturb token j (0-based)

    def out(X):
        return f.attention(X @ W_q, X @ W_k, X @ W_v, f.mask_autoregressive(n))

    X2 = X.copy()
    X2[j] += g.normal(size=D) + 1.0
    before, after = out(X), out(X2)
    assert maxerr(before[:j], after[:j]) < 1e-12  # rows i < j never look at token j
    if j == 0 and n > 0:
        assert maxerr(before, after) > 0


# ---------------------------------------------------------------------------------------------
# concat, heads, multi-head self-attention


def test_concat_matches_torch_cat():
    g = rng(6)
    Xs = [g.normal(size=(4, d)) for d in (2, 3, 1)]
    assert maxerr(f.concat(*Xs), torch.cat([as_torch(X) for X in Xs], dim=-1)) == 0
    # the box: block k (1-based) holds X_k in columns (k-1)D+1 .. kD
    Xs = [g.normal(size=(5, 3)) for _ in range(4)]
    C = f.concat(*Xs)
    for k in range(1, 5):
        assert np.array_equal(C[:, (k - 1) * 3 : k * 3], Xs[k - 1])


def test_split_and_merge_heads_match_torch_view_transpose():
    X = rng(7).normal(size=(2, 5, 12))
    ref = as_torch(X).view(2, 5, 3, 4).transpose(1, 2)  # "Notations" Step 7.2
    assert maxerr(f.split_heads(X, 3), ref) == 0
    assert maxerr(f.merge_heads(f.split_heads(X, 3)), X) == 0
    ref = ref.transpose(1, 2).contiguous().view(2, 5, 12)  # Step 7.4
    assert maxerr(f.merge_heads(f.split_heads(X, 3)), ref) == 0


def mha_reference(H: int, A: int, seed: int):
    """A torch nn.MultiheadAttention and the same weights in the book's per-head layout."""
    torch.manual_seed(seed)
    mha = (
        torch.nn.MultiheadAttention(H, A, bias=False, batch_first=True).double().eval()
    )
    D = H // A
    Wq, Wk, Wv = mha.in_proj_weight.detach().numpy().reshape(3, H, H)  # each (out, in)
    # torch computes x @ W.T; rows i*D..(i+1)*D-1 of W are head i's outputs
    per_head = [
        W.T.reshape(H, A, D).transpose(1, 0, 2) for W in (Wq, Wk, Wv)
    ]  # (A, H, D)
    W_o = mha.out_proj.weight.detach().numpy().T  # (A*D, H)
    return mha, per_head, W_o


@pytest.mark.parametrize("n,H,A", [(1, 4, 1), (5, 8, 2), (7, 12, 4), (3, 6, 6)])
@pytest.mark.parametrize("causal", [False, True])
def test_mhsa_matches_nn_multihead_attention(n, H, A, causal):
    mha, (W_q, W_k, W_v), W_o = mha_reference(H, A, seed=n + H)
    X = rng(n * H).normal(size=(3, n, H))
    mask = f.mask_autoregressive(n) if causal else f.mask_bidirectional(n)
    with torch.no_grad():
        ref, _ = mha(
            as_torch(X),
            as_torch(X),
            as_torch(X),
            attn_mask=as_torch(mask),
            need_weights=False,
        )
    loop = np.stack(
        [f.multi_head_self_attention(x, mask, W_q, W_k, W_v, W_o) for x in X]
    )
    assert maxerr(loop, ref) < TOL
    assert (
        maxerr(f.multi_head_self_attention_batched(X, mask, W_q, W_k, W_v, W_o), ref)
        < TOL
    )
    assert (
        maxerr(
            f.multi_head_self_attention(X[0], None, W_q, W_k, W_v, W_o),
            f.multi_head_self_attention(
                X[0], f.mask_bidirectional(n), W_q, W_k, W_v, W_o
            ),
        )
        == 0
    )


@settings(max_examples=25)
@given(
    st.integers(1, 3),
    st.integers(1, 6),
    st.integers(1, 4),
    st.integers(1, 4),
    st.integers(1, 5),
    st.booleans(),
    st.integers(0, 10_000),
)
def test_mhsa_batched_equals_per_head_loop(B, n, A, D, H, causal, seed):
    g = rng(seed)
    X = g.normal(size=(B, n, H))
    W_q, W_k, W_v = (g.normal(size=(A, H, D)) for _ in range(3))
    W_o = g.normal(size=(A * D, H))
    mask = f.mask_autoregressive(n) if causal else None
    # the loop written out here, head by head, with torch's softmax
    ref = []
    for x in X:
        heads = []
        for i in range(A):
            q, k, v = x @ W_q[i], x @ W_k[i], x @ W_v[i]
            s = q @ k.T / math.sqrt(D) + (0 if mask is None else mask)
            heads.append(torch.softmax(as_torch(s), -1).numpy() @ v)
        ref.append(np.concatenate(heads, axis=1) @ W_o)
    assert (
        maxerr(
            f.multi_head_self_attention_batched(X, mask, W_q, W_k, W_v, W_o),
            np.stack(ref),
        )
        < 1e-10
    )


# ---------------------------------------------------------------------------------------------
# activations and feed-forward networks


def test_relu_and_sigmoid_match_torch():
    x = rng(8).normal(scale=10, size=(5, 7))
    assert maxerr(f.relu(x), F.relu(as_torch(x))) == 0
    assert maxerr(f.sigmoid(x), torch.sigmoid(as_torch(x))) < 1e-15
    x = np.array(
        [-1000.0, -50.0, 0.0, 50.0, 1000.0]
    )  # no overflow warnings, exact limits
    with np.errstate(over="raise"):
        assert maxerr(f.sigmoid(x), torch.sigmoid(as_torch(x))) < 1e-15


@pytest.mark.parametrize("shape", [(), (7,), (4, 6), (2, 3, 5)])
def test_gelu_matches_torch(shape):
    x = rng(9).normal(scale=3, size=shape)
    assert maxerr(f.gelu(x), F.gelu(as_torch(x), approximate="none")) < TOL
    assert maxerr(f.gelu(x, "erf"), F.gelu(as_torch(x))) < TOL
    assert maxerr(f.gelu(x, "tanh"), F.gelu(as_torch(x), approximate="tanh")) < TOL
    assert (
        maxerr(f.gelu(x, "sigmoid"), ACT2FN["quick_gelu"](as_torch(x))) < TOL
    )  # transformers' QuickGELU


def test_gelu_keeps_float32():
    x = rng(10).normal(size=(4, 4)).astype(np.float32)
    for a in ("erf", "tanh", "sigmoid"):
        assert f.gelu(x, a).dtype == np.float32
    assert maxerr(f.gelu(x), F.gelu(as_torch(x))) < 1e-6


GRID = np.linspace(-8, 8, 160_001)


def test_gelu_approximation_errors_measured_on_grid():
    # The reference errors come from torch's tanh GELU and transformers' QuickGELU, not from us.
    x = as_torch(GRID)  # float64
    exact = F.gelu(x, approximate="none").numpy()
    ref_tanh = np.max(np.abs(F.gelu(x, approximate="tanh").numpy() - exact))
    ref_sigmoid = np.max(np.abs(ACT2FN["quick_gelu"](x).numpy() - exact))
    err_tanh = np.max(np.abs(f.gelu(GRID, "tanh") - exact))
    err_sigmoid = np.max(np.abs(f.gelu(GRID, "sigmoid") - exact))
    assert err_tanh == pytest.approx(ref_tanh, rel=1e-9, abs=1e-14)
    assert err_sigmoid == pytest.approx(ref_sigmoid, rel=1e-9, abs=1e-14)
    # sanity: the sizes quoted in gelu's docstring (about 4.7e-4 and 2.0e-2)
    assert 4e-4 < ref_tanh < 5e-4
    assert 1.9e-2 < ref_sigmoid < 2.1e-2


@given(st.floats(-8, 8))
def test_gelu_approximation_bounds(x):
    exact = F.gelu(torch.tensor(x, dtype=torch.float64)).item()
    assert abs(f.gelu(x, "tanh") - exact) <= 4.8e-4
    assert abs(f.gelu(x, "sigmoid") - exact) <= 2.1e-2


def ffn_reference(W1, b1, W2, b2, act: torch.nn.Module) -> torch.nn.Sequential:
    H, Fw = W1.shape
    net = torch.nn.Sequential(
        torch.nn.Linear(H, Fw), act, torch.nn.Linear(Fw, H)
    ).double()
    with torch.no_grad():  # nn.Linear stores (out, in) and computes x @ W.T + b
        net[0].weight.copy_(as_torch(W1.T)), net[0].bias.copy_(as_torch(b1))
        net[2].weight.copy_(as_torch(W2.T)), net[2].bias.copy_(as_torch(b2))
    return net


@pytest.mark.parametrize("n,H,Fw", [(1, 2, 3), (5, 4, 16), (3, 8, 32)])
def test_ffns_match_torch(n, H, Fw):
    g = rng(n + H + Fw)
    X = g.normal(size=(2, n, H))
    W1, b1, W2, b2 = (
        g.normal(size=(H, Fw)),
        g.normal(size=Fw),
        g.normal(size=(Fw, H)),
        g.normal(size=H),
    )
    with torch.no_grad():
        assert (
            maxerr(
                f.ffn_relu(X, W1, b1, W2, b2),
                ffn_reference(W1, b1, W2, b2, torch.nn.ReLU())(as_torch(X)),
            )
            < TOL
        )
        assert (
            maxerr(
                f.ffn_gelu(X, W1, b1, W2, b2),
                ffn_reference(W1, b1, W2, b2, torch.nn.GELU())(as_torch(X)),
            )
            < TOL
        )
        assert (
            maxerr(
                f.ffn_gelu(X, W1, b1, W2, b2, approximation="tanh"),
                ffn_reference(W1, b1, W2, b2, torch.nn.GELU("tanh"))(as_torch(X)),
            )
            < TOL
        )


# ---------------------------------------------------------------------------------------------
# layer normalization


@pytest.mark.parametrize("shape", [(1, 1), (4, 8), (2, 5, 16)])
@pytest.mark.parametrize("eps", [1e-5, 1e-12, 0.1])
def test_layer_norm_matches_torch(shape, eps):
    g = rng(shape[-1])
    X, gamma, beta = (
        g.normal(loc=3, scale=2, size=shape),
        g.normal(size=shape[-1]),
        g.normal(size=shape[-1]),
    )
    ref = F.layer_norm(
        as_torch(X), (shape[-1],), as_torch(gamma), as_torch(beta), eps=eps
    )
    assert maxerr(f.layer_norm(X, gamma, beta, eps), ref) < TOL
    ln = torch.nn.LayerNorm(shape[-1], eps=eps).double()
    with torch.no_grad():
        ln.weight.copy_(as_torch(gamma)), ln.bias.copy_(as_torch(beta))
        assert maxerr(f.layer_norm(X, gamma, beta, eps), ln(as_torch(X))) < TOL


def test_layer_norm_std_eps_matches_the_notations_code():
    g = rng(11)
    X, gamma, beta = g.normal(size=(6, 10)), g.normal(size=10), g.normal(size=10)
    x = as_torch(
        X
    )  # source 002's code line, written in torch: eps added to the (biased) std
    ref = as_torch(gamma) * (x - x.mean(-1, keepdim=True)) / (
        x.std(-1, keepdim=True, unbiased=False) + 1e-5
    ) + as_torch(beta)
    assert maxerr(f.layer_norm_std_eps(X, gamma, beta), ref) < TOL
    # the two variants agree when sigma >> sqrt(eps) and differ when sigma is small
    one, zero = np.ones(10), np.zeros(10)
    assert maxerr(f.layer_norm_std_eps(X, one, zero), f.layer_norm(X, one, zero)) < 1e-4
    tiny = 1e-3 * X
    assert (
        maxerr(f.layer_norm_std_eps(tiny, one, zero), f.layer_norm(tiny, one, zero))
        > 1e-3
    )


@given(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=2, max_dims=2, min_side=2, max_side=12),
        elements=st.floats(-100, 100),
    )
)
def test_layer_norm_rows_have_mean_zero_and_unit_variance(X):
    H = X.shape[1]
    Y = f.layer_norm(X, np.ones(H), np.zeros(H))
    var = X.var(axis=1)
    assert np.max(np.abs(Y.mean(axis=1))) < 1e-9
    # exactly sigma^2 / (sigma^2 + eps): close to 1 when the row is not nearly constant
    assert np.max(np.abs(Y.var(axis=1) - var / (var + 1e-5))) < 1e-9
    big = var > 0.1
    assert np.all(np.abs(Y.var(axis=1)[big] - 1) < 1e-3)


# ---------------------------------------------------------------------------------------------
# positional encoding


@pytest.mark.parametrize("n,H", [(1, 2), (10, 16), (50, 64), (7, 5)])
def test_positional_encoding_matches_vaswani_reference(n, H):
    # the PyTorch-tutorial construction of the same formula: exp(-log(10000) * 2k / H)
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    div = torch.exp(
        torch.arange(0, H, 2, dtype=torch.float64) * (-math.log(10000.0) / H)
    )
    ref = torch.zeros(n, H, dtype=torch.float64)
    ref[:, 0::2] = torch.sin(pos * div)
    ref[:, 1::2] = torch.cos(pos * div)[:, : H // 2]
    assert maxerr(f.positional_encoding_sinusoidal(n, H), ref) < TOL


def test_positional_encoding_known_values():
    PE = f.positional_encoding_sinusoidal(3, 4)
    assert np.array_equal(PE[0], [0, 1, 0, 1])  # position 0: sin 0 = 0, cos 0 = 1
    expected = [
        math.sin(2),
        math.cos(2),
        math.sin(2 / 100),
        math.cos(2 / 100),
    ]  # 10000^(2/4) = 100
    assert maxerr(PE[2], expected) < 1e-15


# ---------------------------------------------------------------------------------------------
# cross entropy


@pytest.mark.parametrize("n,V", [(1, 2), (6, 5), (10, 40)])
def test_cross_entropy_matches_torch(n, V):
    g = rng(n + V)
    logits = g.normal(scale=3, size=(n, V))
    y_hat = f.softmax(logits)
    ids = g.integers(0, V, size=n)
    ref = F.cross_entropy(as_torch(logits), as_torch(ids), reduction="none")
    assert maxerr(f.cross_entropy(f.one_hot(ids, V), y_hat), ref) < TOL
    soft = g.dirichlet(np.ones(V), size=n)  # probability targets
    ref = F.cross_entropy(as_torch(logits), as_torch(soft), reduction="none")
    assert maxerr(f.cross_entropy(soft, y_hat), ref) < TOL
    single = f.cross_entropy(soft[0], y_hat[0])
    assert isinstance(single, float) and abs(single - ref[0].item()) < TOL


def test_cross_entropy_zero_conventions():
    assert f.cross_entropy([0, 1, 0], [0.0, 1.0, 0.0]) == 0  # 0 log 0 = 0 and log 1 = 0
    assert f.cross_entropy([0, 1, 0], [0.5, 0.0, 0.5]) == np.inf  # true value, not NaN
    assert abs(f.cross_entropy([0, 1], [0.5, 0.5]) - math.log(2)) < 1e-15


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("scale", [1.0, 1e4])
def test_cross_entropy_from_logits_matches_torch(reduction, scale):
    g = rng(12)
    logits, ids = g.normal(scale=scale, size=(2, 7, 11)), g.integers(0, 11, size=(2, 7))
    ours = f.cross_entropy_from_logits(logits, ids, reduction=reduction)
    ref = F.cross_entropy(
        as_torch(logits).reshape(-1, 11), as_torch(ids).reshape(-1), reduction=reduction
    )
    assert np.all(np.isfinite(ours))
    assert maxerr(np.reshape(ours, -1), ref.reshape(-1)) < TOL * scale


# ---------------------------------------------------------------------------------------------
# bad input: an error naming the argument, with what was expected and what came


def raises(exc, name: str):
    return pytest.raises(exc, match=rf"^{name}:")


def test_bad_one_hot_and_embed():
    with raises(ValueError, "ids") as e:
        f.one_hot([0, 3], 3)
    assert "0..2" in str(e.value) and "got 3" in str(e.value)
    with raises(ValueError, "ids"):
        f.one_hot([-1, 0], 3)
    with raises(TypeError, "ids"):
        f.one_hot([0.0, 2.0], 3)
    with raises(ValueError, "V"):
        f.one_hot([0], 0)
    with raises(ValueError, "ids"):
        f.embed([5], np.zeros((5, 2)))
    with raises(ValueError, "W_e"):
        f.embed([0], np.zeros(5))


def test_bad_small_matrices():
    with raises(ValueError, "x"):
        f.diag(np.zeros((2, 2)))
    with raises(ValueError, "n"):
        f.stack([1.0], 0)
    with raises(TypeError, "n"):
        f.stack([1.0], 2.0)


def test_bad_softmax():
    with raises(ValueError, "X") as e:
        f.softmax([1.0, np.nan])
    assert "NaN" in str(e.value)
    with raises(ValueError, "X") as e:
        f.softmax([[0.0, 1.0], [-np.inf, -np.inf]])
    assert "-inf" in str(e.value)
    with raises(ValueError, "X"):
        f.softmax([0.0, np.inf])
    with raises(TypeError, "X"):
        f.softmax(["a", "b"])


def test_bad_masks_and_masked_softmax():
    with raises(ValueError, "n"):
        f.mask_autoregressive(0)
    with raises(ValueError, "kind"):
        f.mask_autoregressive(3, kind="boolean")
    with raises(ValueError, "kind"):
        f.masked_softmax(np.zeros((2, 2)), np.zeros((2, 2)), kind="mult")
    with raises(ValueError, "mask") as e:
        f.masked_softmax(np.zeros((2, 2)), np.array([[0, -np.inf], [-np.inf, -np.inf]]))
    assert "every position masked" in str(e.value)
    with raises(ValueError, "mask"):
        f.masked_softmax(np.zeros((3, 3)), np.zeros((2, 2)))
    with raises(ValueError, "mask"):
        f.masked_softmax(np.zeros((2, 2)), np.array([[0, np.nan], [0, 0]]))
    with raises(ValueError, "scores"):
        f.masked_softmax(np.array([[0, np.nan], [0, 0]]), np.zeros((2, 2)))


def test_bad_attention():
    Q, K, V = np.zeros((3, 4)), np.zeros((5, 4)), np.zeros((5, 2))
    with raises(ValueError, "K") as e:
        f.attention(Q, np.zeros((5, 3)), V)  # d_k of Q != d_k of K
    assert "D=4" in str(e.value) and "(5, 3)" in str(e.value)
    with raises(ValueError, "V"):
        f.attention(Q, K, np.zeros((4, 2)))
    with raises(ValueError, "mask"):
        f.attention(Q, K, V, np.zeros((3, 3)))
    with raises(ValueError, "Q"):
        f.attention(np.full((3, 4), np.nan), K, V)
    with raises(ValueError, "V"):
        f.attention(Q, K, np.full((5, 2), np.inf))
    with raises(ValueError, "Q"):
        f.attention(np.zeros(4), K, V)
    with raises(ValueError, "K, V"):
        f.attention(np.zeros((2, 3, 4)), np.zeros((1, 5, 4)), np.zeros((1, 5, 2)))


def test_bad_concat_and_heads():
    with raises(ValueError, r"Xs\[1\]") as e:
        f.concat(np.zeros((3, 2)), np.zeros((4, 2)))
    assert "(3, any)" in str(e.value) and "(4, 2)" in str(e.value)
    with raises(ValueError, "Xs"):
        f.concat()
    with raises(ValueError, "A") as e:
        f.split_heads(np.zeros((1, 2, 10)), 3)  # 3 heads do not divide a width of 10
    assert "10" in str(e.value)
    with raises(ValueError, "X"):
        f.merge_heads(np.zeros((2, 3, 4)))


def test_bad_multi_head_self_attention():
    n, H, A, D = 4, 6, 2, 3
    X, W, W_o = np.zeros((n, H)), np.zeros((A, H, D)), np.zeros((A * D, H))
    mask = f.mask_autoregressive(n)
    with raises(ValueError, "W_q"):
        f.multi_head_self_attention(
            np.zeros((n, H + 1)), mask, W, W, W, W_o
        )  # X width != H of W_q
    with raises(ValueError, "W_k"):
        f.multi_head_self_attention(X, mask, W, np.zeros((A, H, D + 1)), W, W_o)
    with raises(ValueError, "W_o") as e:
        f.multi_head_self_attention(
            X, mask, W, W, W, np.zeros((H + 1, H))
        )  # rows != A*D
    assert "(6, 6)" in str(e.value)
    with raises(ValueError, "W_q"):
        f.multi_head_self_attention(
            X, mask, np.zeros((H, D)), W, W, W_o
        )  # not per head
    with raises(ValueError, "mask"):
        f.multi_head_self_attention(X, f.mask_autoregressive(n + 1), W, W, W, W_o)
    with raises(ValueError, "X"):
        f.multi_head_self_attention_batched(X, mask, W, W, W, W_o)  # needs (B, n, H)
    with raises(ValueError, "X"):
        f.multi_head_self_attention(np.full((n, H), np.nan), mask, W, W, W, W_o)


def test_bad_activations_and_ffn():
    with raises(ValueError, "approximation") as e:
        f.gelu([1.0], "cubic")
    assert "'cubic'" in str(e.value) and "tanh" in str(e.value)
    with raises(ValueError, "x"):
        f.gelu([np.inf])
    with raises(ValueError, "x"):
        f.relu([np.nan])
    X, W1, b1, W2, b2 = (
        np.zeros((3, 4)),
        np.zeros((4, 8)),
        np.zeros(8),
        np.zeros((8, 4)),
        np.zeros(4),
    )
    with raises(ValueError, "W1"):
        f.ffn_relu(X, np.zeros((5, 8)), b1, W2, b2)
    with raises(ValueError, "b1"):
        f.ffn_relu(X, W1, np.zeros(7), W2, b2)
    with raises(ValueError, "W2"):
        f.ffn_gelu(X, W1, b1, np.zeros((7, 4)), b2)
    with raises(ValueError, "b2"):
        f.ffn_gelu(X, W1, b1, W2, np.zeros(5))
    with raises(ValueError, "approximation"):
        f.ffn_gelu(X, W1, b1, W2, b2, approximation="relu")


def test_bad_layer_norm():
    X = np.zeros((3, 4))
    for fn in (f.layer_norm, f.layer_norm_std_eps):
        with raises(ValueError, "gamma") as e:
            fn(X, np.ones(5), np.zeros(4))
        assert "(4)" in str(e.value) and "(5,)" in str(e.value)
        with raises(ValueError, "beta"):
            fn(X, np.ones(4), np.zeros(3))
        with raises(ValueError, "X"):
            fn(np.full((3, 4), np.nan), np.ones(4), np.zeros(4))
        with raises(ValueError, "eps"):
            fn(X, np.ones(4), np.zeros(4), eps=-1.0)


def test_bad_positional_encoding_and_cross_entropy():
    with raises(ValueError, "n"):
        f.positional_encoding_sinusoidal(0, 4)
    with raises(TypeError, "H"):
        f.positional_encoding_sinusoidal(3, 4.0)
    with raises(ValueError, "y_hat"):
        f.cross_entropy([0, 1], [0.2, 0.3, 0.5])
    with raises(ValueError, "y_hat") as e:
        f.cross_entropy([0, 1, 0], [2.0, -1.0, 0.5])  # logits passed as probabilities
    assert "logits" in str(e.value)
    with raises(ValueError, "y"):
        f.cross_entropy([np.nan, 1.0], [0.5, 0.5])
    with raises(ValueError, "targets"):
        f.cross_entropy_from_logits(np.zeros((2, 3)), [0, 3])
    with raises(ValueError, "targets"):
        f.cross_entropy_from_logits(np.zeros((2, 3)), [0, 1, 2])
    with raises(TypeError, "targets"):
        f.cross_entropy_from_logits(np.zeros((2, 3)), [0.0, 1.0])
    with raises(ValueError, "logits"):
        f.cross_entropy_from_logits(np.array([[0.0, np.inf]]), [0])
    with raises(ValueError, "reduction"):
        f.cross_entropy_from_logits(np.zeros((2, 3)), [0, 1], reduction="avg")


def test_public_api_is_complete():
    expected = {
        "diag",
        "stack",
        "one_hot",
        "embed",
        "softmax",
        "mask_bidirectional",
        "mask_autoregressive",
        "masked_softmax",
        "attention",
        "concat",
        "multi_head_self_attention",
        "multi_head_self_attention_batched",
        "relu",
        "gelu",
        "ffn_relu",
        "ffn_gelu",
        "layer_norm",
        "layer_norm_std_eps",
        "positional_encoding_sinusoidal",
        "cross_entropy",
        "cross_entropy_from_logits",
    }
    assert expected <= set(f.__all__)
    for name in f.formulas.__all__:
        doc = getattr(f, name).__doc__
        assert doc and "->" in doc, f"{name}: the docstring must state the shapes"
