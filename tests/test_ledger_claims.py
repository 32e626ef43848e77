"""The ledger's ``holds`` rows that carry a number or a formula, each computed.

A ``holds`` verdict on a claim with a number or a formula rests on a test that computes
exactly that claim (CONTRIBUTING.md, "Judging a claim"); this module holds those tests for
the rows that no test of a formula module already computes.  Each test is named for its
claim and says which ledger row it confirms (``<source>:<lines>``).  The reference is never
the value the source prints: a count is counted (by perturbing one entry at a time, or by
enumerating cases), a tensor is built by ``torch`` or ``transformers``, a bound is found on
a grid.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import torch
import torch.nn.functional as F
from transformers import GPT2Config, GPT2Model

import formulated as f
from formulated.tokenizers import CharTokenizer


def _independent_groups(op, X: np.ndarray) -> set[frozenset]:
    """The groups of entries that ``op`` maps together: for each entry of ``X``, the set of
    output entries that change when only that entry changes.  One group is one application
    of the operation (an element-wise op has one group per entry, a vector-wise op one per
    vector)."""
    base = op(X)
    groups = set()
    for idx in np.ndindex(X.shape):
        Y = X.copy()
        Y[idx] += 0.5
        changed = np.argwhere(~np.isclose(op(Y), base, rtol=0, atol=1e-12))
        groups.add(frozenset(map(tuple, changed)))
    return groups


def _positive_batch(B: int, T: int, D: int) -> np.ndarray:
    # Positive entries, so ReLU passes every perturbation through (and all entries differ).
    return np.random.default_rng(0).uniform(0.5, 2.0, size=(B, T, D))


def test_conditional_chain_rule_sums_from_j_2():
    # 001:213-219: -log P(X_2..X_n | X_1) = -sum_{j=2}^n log P(X_j | X_1..X_{j-1}), for
    # every sequence of a joint distribution over n = 4 tokens from a vocabulary of 3.
    torch.manual_seed(0)
    n, K = 4, 3
    P = torch.softmax(torch.randn(K**n, dtype=torch.float64), 0).reshape((K,) * n)

    def marginal(prefix):  # P(X_1..X_m = prefix), summing out the later tokens
        return P[prefix].sum()

    first_j = 2
    for x in itertools.product(range(K), repeat=n):
        lhs = -torch.log(P[x] / marginal(x[:1]))
        rhs = -sum(
            torch.log(marginal(x[:j]) / marginal(x[: j - 1]))
            for j in range(first_j, n + 1)
        )
        assert torch.isclose(lhs, rhs, rtol=0, atol=1e-12), (x, lhs, rhs)


def test_elementwise_relu_is_applied_b_times_t_times_d_times():
    # 002:23-27: ReLU on X in R^{B x T x D} is B*T*D independent applications.
    B, T, D = 2, 3, 4
    X = _positive_batch(B, T, D)
    groups = _independent_groups(f.relu, X)
    assert all(len(g) == 1 for g in groups)  # each entry alone
    assert len(groups) == B * T * D
    assert np.array_equal(f.relu(X), torch.relu(torch.from_numpy(X)).numpy())


def test_vectorwise_layernorm_is_applied_b_times_t_times():
    # 002:29: LayerNorm over D on X in R^{B x T x D} is B*T applications, one per D-vector.
    B, T, D = 2, 3, 4
    X = _positive_batch(B, T, D)
    gamma, beta = np.ones(D), np.zeros(D)
    groups = _independent_groups(lambda Y: f.layer_norm(Y, gamma, beta), X)
    assert all(len(g) == D for g in groups)  # each group is one whole vector of size D
    assert len(groups) == B * T
    ref = F.layer_norm(torch.from_numpy(X), (D,)).numpy()
    assert np.allclose(f.layer_norm(X, gamma, beta), ref, rtol=0, atol=1e-10)


def test_three_sentence_vocabulary_has_six_words_in_first_seen_order():
    # 002:45-61: the three sentences give V = 6 words, w_1..w_6 in order of first appearance.
    sentences = ["cat eat mouse", "dog chase cat", "mouse eat cheese"]
    words = [w for s in sentences for w in s.split()]
    listed = ["cat", "eat", "mouse", "dog", "chase", "cheese"]  # the source's w_1..w_6
    assert len(set(words)) == 6
    assert set(listed) == set(words)
    first_seen = sorted(set(words), key=words.index)
    assert listed == first_seen


def test_one_hot_of_mouse_dog_over_cat_dog_mouse_is_001_010():
    # 002:161-173: x = (mouse, dog) over V = {cat, dog, mouse} gives rows 001 and 010,
    # a matrix in {0,1}^{2 x 3}: T = 2, V = 3.
    vocab = ["cat", "dog", "mouse"]
    ids = torch.tensor([vocab.index(w) for w in ("mouse", "dog")])
    X = F.one_hot(ids, len(vocab))
    rows = ["".join(str(int(v)) for v in row) for row in X]
    assert rows == ["001", "010"]
    assert tuple(X.shape) == (2, 3)  # (T, V)
    assert np.array_equal(f.one_hot(ids.numpy(), len(vocab)), X.numpy())


def test_batched_one_hot_is_b_by_t_by_v_one_slice_per_sequence():
    # 002:175-189: the batched one-hot tensor is B x T x V, slice b the one-hot of sequence b.
    B, T, V = 3, 5, 7
    ids = np.random.default_rng(1).integers(0, V, size=(B, T))
    X = f.one_hot(ids, V)
    assert X.shape == (B, T, V)
    ref = F.one_hot(torch.from_numpy(ids), V).numpy()
    assert np.array_equal(X, ref)
    for b in range(B):
        assert np.array_equal(X[b], F.one_hot(torch.from_numpy(ids[b]), V).numpy())


def _embedded_input(ids: np.ndarray, W_e: np.ndarray, W_p: np.ndarray) -> np.ndarray:
    """The book's X~: token embedding plus the learned positions, for ids of shape (..., T)."""
    return f.embed(ids, W_e) + W_p[: ids.shape[-1]]


def test_embedded_input_is_t_by_d_row_1_by_d_batched_b_by_t_by_d():
    # 002:365-387: X~ is T x D, its row t is 1 x D, the batch B x T x D, each slice T x D.
    B, T, D, V = 2, 5, 6, 11
    g = np.random.default_rng(2)
    W_e, W_p = g.normal(size=(V, D)), g.normal(size=(T, D))
    ids = g.integers(0, V, size=(B, T))
    tok, pos = torch.nn.Embedding(V, D), torch.nn.Embedding(T, D)
    tok.weight.data, pos.weight.data = torch.from_numpy(W_e), torch.from_numpy(W_p)
    ref = (tok(torch.from_numpy(ids)) + pos(torch.arange(T))).detach().numpy()
    Xb = _embedded_input(ids, W_e, W_p)
    assert np.allclose(Xb, ref, rtol=0, atol=1e-12)
    assert Xb.shape == (B, T, D)
    X = _embedded_input(ids[0], W_e, W_p)
    assert X.shape == (T, D) and np.array_equal(X, Xb[0])
    assert X[2:3].shape == (1, D)


def test_gelu_is_bounded_below_by_about_minus_0_17_and_unbounded_above():
    # 002:748: min GELU = -0.17 (to two decimals), and GELU(x) grows without bound.
    x = torch.linspace(-4, 0, 400_001, dtype=torch.float64)
    lowest = F.gelu(x).min().item()
    assert round(lowest, 2) == -0.17
    assert np.isclose(f.gelu(x.numpy()).min(), lowest, rtol=0, atol=1e-12)
    big = torch.tensor([1e1, 1e2, 1e3, 1e6], dtype=torch.float64)
    assert torch.all(F.gelu(big) >= big - 1e-6)  # GELU(x) -> x: no upper bound


def test_sequences_of_length_1_to_t_are_the_union_of_v_to_the_tau():
    # 002:902-906: X = union over tau = 1..T of V^tau is the set of the sequences of
    # length 1 to T: counted against all strings up to T + 1 tokens, filtered by length.
    vocab, T = ("a", "b", "c"), 3
    union = {s for tau in range(1, T + 1) for s in itertools.product(vocab, repeat=tau)}
    universe = {()}
    for _ in range(T + 1):  # grow every string by one token, T + 1 times
        universe |= {s + (w,) for s in universe for w in vocab}
    assert union == {s for s in universe if 1 <= len(s) <= T}
    V = len(vocab)
    assert len(union) == (V ** (T + 1) - V) // (V - 1)  # the geometric sum
    assert max(map(len, union)) == T


def test_dropout_mask_is_0_1_t_by_d_independent_zero_with_probability_p():
    # 002:980: M in {0,1}^{T x D}, its entries independent, each 0 with probability p.
    torch.manual_seed(0)
    T, D, p = 400, 500, 0.3
    X = torch.ones(T, D, dtype=torch.float64)
    out = F.dropout(X, p, training=True)
    M = (out != 0).to(torch.int64)
    assert tuple(M.shape) == (T, D)
    assert set(M.unique().tolist()) <= {0, 1}
    # X ⊙ M (torch rescales the kept entries by 1 / (1 - p))
    assert torch.allclose(out, X * M / (1 - p))
    zero = (M == 0).double()
    n = T * D
    tol = 5 * math.sqrt(p * (1 - p) / n)  # five standard errors
    assert abs(zero.mean().item() - p) < tol
    # independence: two neighbors (along D and along T) are both zero with probability p^2
    both_d = (zero[:, 1:] * zero[:, :-1]).mean().item()
    both_t = (zero[1:] * zero[:-1]).mean().item()
    tol2 = 5 * math.sqrt(p**2 * (1 - p**2) / (T * (D - 1)))
    assert abs(both_d - p**2) < tol2 and abs(both_t - p**2) < tol2


def test_three_bits_take_2_cubed_8_values():
    # 004:81: with 3 bits there are 2^3 = 8 possible values.
    values = set(itertools.product((0, 1), repeat=3))
    assert len(values) == 2**3 == 8
    assert math.log2(len(values)) == 3


def test_ffn_applies_t_times_per_sequence_t_times_b_per_batch():
    # 002:692-698: the same FFN (same parameters) at every position: T applications per
    # sequence, T x B per batch.
    B, T, D, Fw = 2, 3, 4, 5
    g = np.random.default_rng(3)
    W1, b1, W2, b2 = (g.normal(size=s) for s in [(D, Fw), (Fw,), (Fw, D), (D,)])

    def ffn(Y):
        return f.ffn_relu(Y, W1, b1, W2, b2)

    X = g.normal(size=(B, T, D))
    assert len(_independent_groups(ffn, X)) == T * B
    assert len(_independent_groups(ffn, X[0])) == T
    rows = np.stack([[ffn(X[b, t]) for t in range(T)] for b in range(B)])
    assert np.allclose(rows, ffn(X), rtol=0, atol=1e-12)  # one FFN, row by row


def test_token_ids_lie_in_0_to_v_minus_1():
    # 002:67-77: the input is T integer ids, each 0 <= x_t < V.
    text = "the cat sat on the mat"
    tok = CharTokenizer.from_text(text)
    ids = tok.encode(text)
    assert len(ids) == len(text)  # T ids
    assert all(isinstance(i, int) and 0 <= i < tok.vocab_size for i in ids)
    # the range is used to both ends
    assert max(ids) == tok.vocab_size - 1 and min(ids) == 0
    F.one_hot(torch.tensor(ids), tok.vocab_size)  # torch accepts exactly 0..V-1


def test_matrix_product_entry_is_sum_over_k_of_a_ik_b_kj():
    # 002:191-219: c_ij = sum_{k=1}^n a_ik b_kj, worked for one entry and then all of C.
    g = np.random.default_rng(4)
    m, n, p = 3, 4, 5
    A, B = g.normal(size=(m, n)), g.normal(size=(n, p))
    C = torch.from_numpy(A) @ torch.from_numpy(B)
    i, j = 1, 3
    assert math.isclose(
        sum(A[i, k] * B[k, j] for k in range(n)), C[i, j], abs_tol=1e-12
    )
    loops = [
        [sum(A[i, k] * B[k, j] for k in range(n)) for j in range(p)] for i in range(m)
    ]
    assert np.allclose(loops, C.numpy(), rtol=0, atol=1e-12)
    assert C.shape == (m, p)


def test_positions_added_to_token_embeddings_give_t_by_d():
    # 002:962-966: step 5 adds the positional embeddings to the token embeddings: T x D.
    T, D, V = 6, 4, 9
    config = GPT2Config(vocab_size=V, n_positions=T, n_embd=D, n_layer=1, n_head=1)
    model = GPT2Model(config).eval()
    ids = torch.arange(T) % V
    with torch.no_grad():
        summed = model.wte(ids) + model.wpe(torch.arange(T))
        first = model(ids[None], output_hidden_states=True).hidden_states[0][0]
    assert tuple(summed.shape) == (T, D)
    assert torch.allclose(summed, first)


def test_dog_is_at_position_2_and_5():
    # 004:317-321: counting words from 1, dog is 2nd in "AJ's dog is a cutie" and 5th in
    # "AJ looks like a dog".
    first, second = "AJ's dog is a cutie", "AJ looks like a dog"
    assert first.split().index("dog") + 1 == 2
    assert second.split().index("dog") + 1 == 5


def test_iid_corpus_likelihood_is_the_product_of_its_sequences():
    # 002:864-866: for sequences drawn i.i.d., P(S) = prod_n P(x_n): the frequency of each
    # pair of draws matches the product of the two probabilities.
    torch.manual_seed(0)
    p = torch.tensor([0.5, 0.3, 0.2], dtype=torch.float64)  # three possible sequences
    draws = torch.multinomial(p, 2 * 400_000, replacement=True).reshape(-1, 2)
    joint = torch.zeros(3, 3, dtype=torch.float64)
    joint.index_put_((draws[:, 0], draws[:, 1]), torch.ones(len(draws)).double(), True)
    joint /= len(draws)
    assert torch.allclose(joint, torch.outer(p, p), rtol=0, atol=3e-3)


def test_max_log_likelihood_is_max_likelihood_and_products_underflow():
    # 002:876: log is increasing, so the log-likelihood peaks where the likelihood does;
    # a product of many probabilities underflows while the sum of their logs does not.
    heads, n = 7, 10
    q = torch.linspace(0.01, 0.99, 99, dtype=torch.float64)
    likelihood = q**heads * (1 - q) ** (n - heads)
    assert torch.argmax(likelihood) == torch.argmax(torch.log(likelihood))
    probs = torch.full((2000,), 0.5, dtype=torch.float64)
    assert torch.prod(probs).item() == 0.0  # 2^-2000 is below float64's least value
    assert math.isclose(torch.log(probs).sum().item(), 2000 * math.log(0.5))


def test_tokenized_corpus_is_a_set_of_natural_number_sequences_up_to_t():
    # 002:930-936: the tokenized corpus is a set of sequences of non-negative integers, each
    # of length at most T: a subset of N^(<=T).
    corpus = ["cat eat mouse", "dog chase cat", "mouse eat cheese"]
    T = max(map(len, corpus))
    tok = CharTokenizer.from_text("".join(corpus))
    tokenized = {tuple(tok.encode(x)) for x in corpus}
    assert len(tokenized) == len(corpus)
    assert all(1 <= len(s) <= T for s in tokenized)
    assert all(isinstance(i, int) and i >= 0 for s in tokenized for i in s)


def test_scaling_by_sqrt_d_keeps_scores_at_unit_variance_and_softmax_unsaturated():
    # 002:1234: q.k of unit-variance entries has variance d; dividing by sqrt(d) brings it
    # back to 1, and the softmax over the scaled scores stays away from one-hot.
    torch.manual_seed(0)
    n_keys = 8
    for d in (16, 256):
        q = torch.randn(4000, 1, d, dtype=torch.float64)
        k = torch.randn(4000, n_keys, d, dtype=torch.float64)
        scores = (q * k).sum(-1)  # (4000, n_keys)
        assert abs(scores.var().item() / d - 1) < 0.1
        assert abs((scores / math.sqrt(d)).var().item() - 1) < 0.1
    raw = torch.softmax(scores, -1).max(-1).values.mean().item()
    scaled = torch.softmax(scores / math.sqrt(d), -1).max(-1).values.mean().item()
    assert raw > 0.9 and scaled < 0.6  # d = 256: unscaled, one key takes nearly all


def _tiny_gpt2(n_layer: int = 3) -> GPT2Model:
    config = GPT2Config(
        vocab_size=9,
        n_positions=6,
        n_embd=8,
        n_layer=n_layer,
        n_head=2,
        bos_token_id=None,
        eos_token_id=None,
    )
    torch.manual_seed(0)
    return GPT2Model(config).eval()


def test_embedding_x_i_is_token_embedding_plus_position_embedding():
    # 003:98-103: x_i = token embedding of x_i + position embedding of position i (GPT-2).
    model = _tiny_gpt2()
    ids = torch.tensor([[3, 1, 4, 1, 5, 8]])
    with torch.no_grad():
        X0 = model(ids, output_hidden_states=True).hidden_states[0][0]
        for i in range(ids.shape[1]):
            x_i = model.wte.weight[ids[0, i]] + model.wpe.weight[i]
            assert torch.allclose(X0[i], x_i)


def test_layer_k_plus_1_reads_layer_k_output_and_x0_is_the_embedding():
    # 003:123-125: X^(k+1) = Y^(k), X^(0) = token + position embeddings.
    model = _tiny_gpt2()
    ids = torch.tensor([[2, 7, 1, 8, 2, 8]])
    with torch.no_grad():
        hs = model(ids, output_hidden_states=True).hidden_states
        assert torch.allclose(hs[0], model.wte(ids) + model.wpe(torch.arange(6)))
        for k in range(len(model.h) - 1):
            Y_k = model.h[k](hs[k])
            Y_k = Y_k[0] if isinstance(Y_k, tuple) else Y_k
            assert torch.allclose(Y_k, hs[k + 1], atol=1e-6), k


def test_layers_numbered_from_0_and_z_is_the_last_layer_output():
    # 003:114-126: with layers k = 0, 1, ..., the final layer is K = L - 1 and Z = Y^(K)
    # (GPT-2 then applies its final LayerNorm).
    L = 3
    model = _tiny_gpt2(L)
    ids = torch.tensor([[1, 4, 1, 4, 2, 1]])
    with torch.no_grad():
        X = model.wte(ids) + model.wpe(torch.arange(6))
        for k in range(L):  # k = 0 .. L - 1
            X = model.h[k](X)
            X = X[0] if isinstance(X, tuple) else X
        K = k
        out = model(ids).last_hidden_state
    assert K == L - 1 == len(model.h) - 1
    assert torch.allclose(model.ln_f(X), out, atol=1e-6)
