"""Errata of chapters 08–12, the part "The transformer block" (attention, masks, multi-head
attention, FFN and GELU, LayerNorm and residuals): sources 000–004.

Each check takes a value (the source's or the corrected one) and recomputes the truth
independently -- ``torch``'s softmax and ``scaled_dot_product_attention``,
``torch.nn.MultiheadAttention``, ``torch.nn.functional``, ``transformers``' GPT and GPT-2
layers.  The candidate formulas are the package's own (:mod:`formulated.formulas`).
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any, Callable

import numpy as np

from .. import examples as ex
from .. import formulas as fm
from .record import Erratum

__all__ = ["ERRATA", "SLIDE_SOFTMAX_ARGUMENT", "causal_mask_torch"]

_CH08, _CH09, _CH10, _CH11, _CH12 = (
    "chapters/08_attention",
    "chapters/09_masks",
    "chapters/10_multi_head",
    "chapters/11_ffn_gelu",
    "chapters/12_layernorm_residual",
)

#: The matrix inside "Softmax(...)" on the slide "Decoder, Masked Attention", as printed: ``inf``
#: (not ``-inf``) above the diagonal.  Shape (4, 4).
SLIDE_SOFTMAX_ARGUMENT = np.array(
    [
        [0.7, np.inf, np.inf, np.inf],
        [0.1, 0.6, np.inf, np.inf],
        [0.1, 0.3, 0.6, np.inf],
        [0.1, 0.3, 0.3, 0.3],
    ]
)


def _example_qkv():
    import torch

    X = ex.QKV_INPUTS
    return (
        torch.from_numpy(X @ W) for W in (ex.QKV_W_QUERY, ex.QKV_W_KEY, ex.QKV_W_VALUE)
    )


def attention_numbers_are_wrong(numbers: tuple[np.ndarray, np.ndarray]) -> bool:
    """Are ``(weights, output)`` of query 1 in the slides' example right to four decimals?

    torch recomputes them (the slides' unscaled scores: ``scale=1``).
    """
    import torch

    Q, K, V = _example_qkv()
    weights = torch.softmax(Q[0] @ K.T, dim=-1).numpy()
    out = torch.nn.functional.scaled_dot_product_attention(Q, K, V, scale=1.0)[
        0
    ].numpy()
    return not all(
        np.abs(np.asarray(v) - t).max() <= 5e-5 for v, t in zip(numbers, (weights, out))
    )


def attention_scale_is_wrong(scale: float) -> bool:
    """Is ``scale`` the factor the Transformer's attention puts on the slides' example's scores?

    The reference is ``torch``'s ``scaled_dot_product_attention`` with its default scale."""
    import torch

    Q, K, V = _example_qkv()
    sdpa = torch.nn.functional.scaled_dot_product_attention
    return not bool(torch.allclose(sdpa(Q, K, V), sdpa(Q, K, V, scale=float(scale))))


def _scores_and_blocked():
    scores = np.array([[0.5, -1.0, 0.0], [0.2, 0.4, 2.0], [1.0, -0.3, 0.7]])
    return scores, np.triu(np.ones((3, 3), dtype=bool), 1)


def apply_mask_is_wrong(apply: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> bool:
    """Does ``softmax(apply(scores, blocked))`` give torch's causal attention weights?

    The scores include a negative and a zero blocked entry.  Reference: ``torch.softmax`` of the
    scores with ``masked_fill(blocked, -inf)``.
    """
    import torch

    scores, blocked = _scores_and_blocked()
    ref = torch.softmax(
        torch.from_numpy(scores).masked_fill(torch.from_numpy(blocked), float("-inf")),
        dim=-1,
    )
    with np.errstate(invalid="ignore"):
        got = torch.softmax(
            torch.from_numpy(np.asarray(apply(scores, blocked), float)), dim=-1
        )
    return not bool(torch.allclose(got, ref))


def _multiply(scores: np.ndarray, blocked: np.ndarray) -> np.ndarray:
    return np.where(blocked, -np.inf, 1.0) * scores


def _add(scores: np.ndarray, blocked: np.ndarray) -> np.ndarray:
    from ..formulas import mask_autoregressive

    return scores + mask_autoregressive(len(scores))


def mask_from_m_is_wrong(make_mask: Callable[[np.ndarray], np.ndarray]) -> bool:
    """Added to the scores, does ``make_mask(M)`` (M: the 0/1 lower-triangular matrix) give causal
    attention?  Reference: ``torch``'s ``scaled_dot_product_attention(is_causal=True)``."""
    import torch

    n, D = 4, 3
    g = torch.Generator().manual_seed(0)
    Q, K, V = (torch.randn(n, D, generator=g, dtype=torch.float64) for _ in range(3))
    M = np.tril(np.ones((n, n)))  # 1 = may attend, as in 002
    with np.errstate(invalid="ignore"):
        mask = torch.from_numpy(np.asarray(make_mask(M), dtype=float))
    sdpa = torch.nn.functional.scaled_dot_product_attention
    return not bool(
        torch.allclose(sdpa(Q, K, V, attn_mask=mask), sdpa(Q, K, V, is_causal=True))
    )


def _m_inf(M: np.ndarray) -> np.ndarray:
    return np.where(M == 1, 0.0, -np.inf)


def softmax_argument_is_wrong(matrix: np.ndarray) -> bool:
    """Is the row softmax of ``matrix`` the masked softmax of the slide's scaled scores?

    Reference: ``torch.softmax`` of the scaled scores with the look-ahead pattern filled by -inf.
    """
    import torch

    blocked = torch.from_numpy(np.triu(np.ones((4, 4), dtype=bool), 1))
    ref = torch.softmax(
        torch.from_numpy(ex.MASK_SCALED_SCORES).masked_fill(blocked, -math.inf), -1
    )
    got = torch.softmax(torch.from_numpy(np.asarray(matrix, dtype=float)), -1)
    return not bool(torch.allclose(got, ref))


def _exact_masked_softmax() -> np.ndarray:
    import torch

    return torch.softmax(
        torch.from_numpy(ex.MASK_SCALED_SCORES + ex.MASK_LOOKAHEAD), -1
    ).numpy()


def two_decimals_are_wrong(printed: np.ndarray) -> bool:
    """Is ``printed`` the masked softmax (torch) rounded to two decimals, entry by entry?"""
    return not bool(
        np.all(np.abs(np.asarray(printed) - _exact_masked_softmax().round(2)) < 1e-9)
    )


def _attention_weight_bytes(n: int, H: int = 8, A: int = 2) -> int:
    """Bytes of the attention weights (A heads, n × n, float64) that one
    ``torch.nn.MultiheadAttention`` layer computes for ``n`` tokens carrying the Transformer's
    sinusoidal positions (defined for every ``n``: no position table limits the input)."""
    import torch

    from ..formulas import positional_encoding_sinusoidal

    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(H, A, batch_first=True, dtype=torch.float64)
    X = torch.from_numpy(positional_encoding_sinusoidal(n, H))[None]
    with torch.no_grad():
        _, weights = mha(X, X, X, need_weights=True, average_attn_weights=False)
    return weights.element_size() * weights.nelement()


def reference_window_is_wrong(window: Callable[[int], float]) -> bool:
    """Is ``window(budget)`` the longest input the sinusoidal Transformer attends over when its
    attention weights may use ``budget`` bytes (one layer, 2 heads, float64)?

    Measured: a claimed finite window must fit and one more token must not.  An infinite claim
    is tested on every length doubling from 1 up to 2**12: it is refuted only if the weights of
    some such length are measured to exceed the budget (so it would stand were attention's memory
    not to grow with the input).
    """
    for budget in (2**12, 2**15):
        n = window(budget)
        if not math.isfinite(n):
            lengths = (2**k for k in range(13))
            if any(_attention_weight_bytes(m) > budget for m in lengths):
                return True
            continue
        n = int(n)
        if (
            n < 1
            or _attention_weight_bytes(n) > budget
            or _attention_weight_bytes(n + 1) <= budget
        ):
            return True
    return False


def causal_mask_torch(n: int):
    """The additive causal mask (0 on and below the diagonal, -inf above) as a float64 tensor
    ``(n, n)``, the form ``torch`` and ``transformers`` attention layers accept."""
    import torch

    return torch.full((n, n), float("-inf"), dtype=torch.float64).triu(1)


def _torch_mha(H: int = 8, A: int = 2, n: int = 5, bias: bool = False):
    """A seeded ``torch.nn.MultiheadAttention``, an input ``X (n, H)``, causal output, weights."""
    import torch

    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(
        H, A, bias=bias, batch_first=True, dtype=torch.float64
    )
    X = torch.from_numpy(np.random.default_rng(0).normal(size=(1, n, H)))
    causal = causal_mask_torch(n)
    out, weights = mha(X, X, X, attn_mask=causal, average_attn_weights=False)
    return mha, X[0].numpy(), out[0].detach().numpy(), weights[0].detach().numpy()


def head_count_is_wrong(count: Callable[[dict[str, int]], int]) -> bool:
    """Does Concat of ``count(hyperparameters)`` heads, times W^O, give torch's multi-head
    attention?

    ``count`` receives the hyperparameters of the book's model code by letter
    (:func:`formulated.errata.models.hyperparameters`); a letter no model has (``h``) raises
    ``KeyError``, which is the error.  ``torch.nn.MultiheadAttention`` is built with that
    configuration's H and A.
    """
    from .models import hyperparameters

    hp = hyperparameters(V=11, n_ctx=5, H=8, A=2, L=1)
    H, A = hp["H"], hp["A"]
    mha, X, ref, _ = _torch_mha(H, A)
    try:
        k = count(hp)
    except KeyError:
        return True
    W = mha.in_proj_weight.detach().numpy().T  # (H, 3H): [W^Q | W^K | W^V]
    W_q, W_k, W_v = (
        W[:, p * H : (p + 1) * H].reshape(H, A, H // A).transpose(1, 0, 2)
        for p in range(3)
    )
    M = fm.mask_autoregressive(len(X))
    heads = [
        fm.attention(X @ W_q[i % A], X @ W_k[i % A], X @ W_v[i % A], M)
        for i in range(k)
    ]
    try:
        got = fm.concat(*heads) @ mha.out_proj.weight.detach().numpy().T
    except ValueError:  # Concat's width does not fit W^O
        return True
    return not bool(np.abs(got - ref).max() < 1e-12)


def bias_claim_is_wrong(with_biases: bool) -> bool:
    """Does the box, with (True) or without (False) biases, reproduce ``GPT2Attention``?"""
    import torch
    from transformers import GPT2Config
    from transformers.models.gpt2.modeling_gpt2 import GPT2Attention

    H, A, n = 8, 2, 5
    D = H // A
    torch.manual_seed(0)
    cfg = GPT2Config(
        n_embd=H,
        n_head=A,
        n_positions=16,
        attn_pdrop=0.0,
        resid_pdrop=0.0,
        attn_implementation="eager",
    )
    attn = GPT2Attention(cfg, layer_idx=0).double().eval()
    with torch.no_grad():
        for p in attn.parameters():
            p.normal_(0.0, 0.5)  # non-zero biases, as in the trained GPT-2
    X = np.random.default_rng(0).normal(size=(n, H))
    causal = causal_mask_torch(n)[None, None]
    ref = attn(torch.tensor(X)[None], attention_mask=causal)[0][0].detach().numpy()
    W, b = (
        attn.c_attn.weight.detach().numpy(),
        attn.c_attn.bias.detach().numpy(),
    )  # (H, 3H)
    W_o, b_o = attn.c_proj.weight.detach().numpy(), attn.c_proj.bias.detach().numpy()
    M = fm.mask_autoregressive(n)
    heads = []
    for i in range(A):
        cols = [slice(part * H + i * D, part * H + (i + 1) * D) for part in range(3)]
        q, k, v = (X @ W[:, c] + (b[c] if with_biases else 0.0) for c in cols)
        heads.append(fm.attention(q, k, v, M))
    box = fm.concat(*heads) @ W_o + (b_o if with_biases else 0.0)
    return not bool(np.abs(box - ref).max() < 1e-10)


def head_sharing_is_wrong(claim: str) -> bool:
    """Do the heads share weights (``claim == "shared"``) or own separate columns (``"separate"``)?

    Measured on ``torch.nn.MultiheadAttention``: its query matrix is split into heads by 002's
    own Step 7.2 rule, column ``d = h·(D//H) + d_q`` (002's letters) to head ``h`` -- first
    checked to give torch's per-head weights -- then the columns of one head are edited.  Shared
    weights would move every head; separate ones move that head alone.
    """
    if claim not in ("shared", "separate"):
        raise ValueError(f"claim: expected 'shared' or 'separate', got {claim!r}")
    H, A = 8, 2
    D = H // A
    mha, X, _, ref = _torch_mha(H, A)
    W = mha.in_proj_weight.detach().numpy().T  # (H, 3H): [W^Q | W^K | W^V]
    M = fm.mask_autoregressive(len(X))

    W_k = W[:, H : 2 * H]

    def heads(W_q: np.ndarray) -> np.ndarray:
        cols = lambda h: [h * D + d for d in range(D)]  # noqa: E731  (Step 7.2's d)
        return np.array(
            [
                fm.masked_softmax(
                    (X @ W_q[:, cols(h)]) @ (X @ W_k[:, cols(h)]).T / np.sqrt(D), M
                )
                for h in range(A)
            ]
        )

    before = heads(W[:, :H])
    if not np.abs(before - ref).max() < 1e-12:
        raise AssertionError("Step 7.2's split does not give torch's heads")
    edited = W[:, :H].copy()
    edited[:, D : 2 * D] += 1.0  # head 2's columns only
    moved = int((np.abs(heads(edited) - before).max(axis=(1, 2)) > 1e-9).sum())
    return (claim == "shared") != (moved > 1)


def causality_source_is_wrong(component: str) -> bool:
    """Is ``component`` (``"weights"`` or ``"mask"``) what keeps the future out of attention?

    Test: replace that component by a generic one (fresh random weights; no mask) and change
    the last token.  If the earlier outputs stay put, the component was not what ensured
    causality.  The outputs come from ``torch.nn.MultiheadAttention``.
    """
    import torch

    H, A, n = 8, 2, 5
    X = torch.from_numpy(np.random.default_rng(0).normal(size=(1, n, H)))
    X2 = X.clone()
    X2[0, -1] += 3.0
    causal = causal_mask_torch(n)
    torch.manual_seed(5)  # generic (unmasked) weights
    mha = torch.nn.MultiheadAttention(H, A, batch_first=True, dtype=torch.float64)
    if component == "weights":
        mask = causal  # weights replaced, mask kept
    elif component == "mask":
        mask = None  # mask removed, weights kept
    else:
        raise ValueError(f"component: expected 'weights' or 'mask', got {component!r}")
    with torch.no_grad():
        leak = (mha(X2, X2, X2, attn_mask=mask)[0] - mha(X, X, X, attn_mask=mask)[0])[
            0, :-1
        ]
    return not bool(leak.abs().max().item() > 1e-6)  # no leak: it was not the component


def gelu_is_wrong(gelu: Callable[[np.ndarray], np.ndarray]) -> bool:
    """Is ``gelu`` a GELU that the models compute, to 1e-9 on [-8, 8]: the exact ``x Φ(x)``
    (``torch.nn.functional.gelu``, BERT's) or the tanh form of GPT and GPT-2 (``transformers``'
    ``gelu_new``)?"""
    import torch
    from transformers.activations import ACT2FN

    x = torch.linspace(-8, 8, 16001, dtype=torch.float64)
    got = gelu(x.numpy())
    return not any(
        np.abs(got - ref.numpy()).max() < 1e-9
        for ref in (torch.nn.functional.gelu(x), ACT2FN["gelu_new"](x))
    )


def _gpt_mlp_example(kind: str):
    """A ``transformers`` GPT (``"openai"``) or GPT-2 MLP with non-small random weights, an input
    and its output, and the weights as ``W1, b1, W2, b2`` arrays."""
    import torch
    from transformers import GPT2Config, OpenAIGPTConfig
    from transformers.models.gpt2.modeling_gpt2 import GPT2MLP
    from transformers.models.openai.modeling_openai import MLP

    H = 8
    torch.manual_seed(0)
    if kind == "openai":
        mlp = MLP(4 * H, OpenAIGPTConfig(n_embd=H, n_head=2, resid_pdrop=0.0))
    else:
        mlp = GPT2MLP(4 * H, GPT2Config(n_embd=H, n_head=2, resid_pdrop=0.0))
    mlp = mlp.double().eval()
    with torch.no_grad():
        for p in mlp.parameters():
            p.normal_(0.0, 0.5)
    X = np.random.default_rng(0).normal(size=(5, H))
    ref = mlp(torch.tensor(X)).detach().numpy()
    params = [
        t.detach().numpy()
        for t in (mlp.c_fc.weight, mlp.c_fc.bias, mlp.c_proj.weight, mlp.c_proj.bias)
    ]
    return X, params, ref


def gpt_ffn_is_wrong(ffn: Callable[..., np.ndarray]) -> bool:
    """Does ``ffn(X, W1, b1, W2, b2)`` reproduce ``transformers``' GPT-1 MLP?"""
    X, params, ref = _gpt_mlp_example("openai")
    return not bool(np.abs(ffn(X, *params) - ref).max() < 1e-12)


def ffn_shapes_are_wrong(
    shapes: Callable[[int, int], tuple[tuple[int, int], tuple[int, int]]],
) -> bool:
    """Do ``shapes(d, M)`` (of W₁, W₂ in ``W₂·act(W₁·h + b₁) + b₂``, column vectors) hold the
    weights of ``torch.nn.Linear(d, 4d)`` and ``Linear(4d, d)`` and reproduce the network, for
    every M the notes might mean (1, d, 4d)?"""
    import torch

    d = 8
    torch.manual_seed(0)
    up, down = torch.nn.Linear(d, 4 * d).double(), torch.nn.Linear(4 * d, d).double()
    h = torch.randn(d, 1, dtype=torch.float64)
    ref = down(torch.relu(up(h.T))).T
    for M in (1, d, 4 * d):
        s1, s2 = shapes(d, M)
        try:
            W1 = (
                up.weight.reshape(s1)
                if tuple(up.weight.shape) == s1
                else torch.ones(s1)
            )
            W2 = (
                down.weight.reshape(s2)
                if tuple(down.weight.shape) == s2
                else torch.ones(s2)
            )
            got = (
                W2.double() @ torch.relu(W1.double() @ h + up.bias[:, None])
                + down.bias[:, None]
            )
        except RuntimeError:  # a product of incompatible shapes
            return True
        if not torch.allclose(got, ref):
            return True
    return False


def gelu_count_is_wrong(times: int) -> bool:
    """Applying GELU ``times`` times between the two layers, is the result GPT-2's MLP?"""
    X, (W1, b1, W2, b2), ref = _gpt_mlp_example("gpt2")
    hidden = X @ W1 + b1
    for _ in range(times):
        hidden = fm.gelu(hidden, "tanh")
    return not bool(np.abs(hidden @ W2 + b2 - ref).max() < 1e-12)


def layer_norm_is_wrong(layer_norm: Callable[..., np.ndarray]) -> bool:
    """Does ``layer_norm(X, γ, β, eps)`` match ``torch.nn.functional.layer_norm``, also on nearly
    constant rows (std ≈ 1e-3) where the place of ε shows?"""
    import torch

    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 768, generator=g, dtype=torch.float64)
    gamma, beta = np.ones(768), np.zeros(768)
    for rows in (x, x * 1e-3):
        ref = torch.nn.functional.layer_norm(rows, (768,), eps=1e-5).numpy()
        if not np.allclose(
            layer_norm(rows.numpy(), gamma, beta, eps=1e-5), ref, rtol=1e-9, atol=1e-12
        ):
            return True
    return False


def epsilon_is_wrong(eps: float | None) -> bool:
    """Is ``eps`` GPT's and GPT-2's LayerNorm ε (``transformers``' configurations)?

    ``None`` (the boxes list ε without a value) is wrong when the values in use (GPT's, BERT's)
    give different outputs on a nearly constant row: the box then does not fix its output.
    """
    import torch
    from transformers import BertConfig, GPT2Config, OpenAIGPTConfig

    used = {OpenAIGPTConfig().layer_norm_epsilon, GPT2Config().layer_norm_epsilon}
    if eps is None:
        x = torch.tensor([[1.0, 1.002, 0.998, 1.0]], dtype=torch.float64)
        outs = [
            torch.nn.functional.layer_norm(x, (4,), eps=e)
            for e in (*used, BertConfig().layer_norm_eps)
        ]
        return any((o - outs[0]).abs().max().item() > 0.1 for o in outs)
    return used != {eps}


def block_input_step_is_wrong(step: int) -> bool:
    """Is the output of 002's Step ``step`` the first block's input X̃?

    Steps 4 (token embedding) and 5 (positional embedding) are computed with the package's
    ``embed`` from a ``transformers`` GPT-2's own tables; its ``hidden_states[0]`` is X̃.
    """
    import torch
    from transformers import GPT2Config, GPT2Model

    torch.manual_seed(0)
    model = (
        GPT2Model(
            GPT2Config(
                vocab_size=7,
                n_positions=8,
                n_embd=8,
                n_layer=1,
                n_head=2,
                embd_pdrop=0.0,
                bos_token_id=0,
                eos_token_id=0,
            )
        )
        .double()
        .eval()
    )
    ids = np.array([3, 1, 3])  # a repeated token
    with torch.no_grad():
        ref = model(torch.tensor(ids)[None], output_hidden_states=True).hidden_states[
            0
        ][0]
    W_e, W_p = model.wte.weight.detach().numpy(), model.wpe.weight.detach().numpy()
    outputs = {4: fm.embed(ids, W_e), 5: fm.embed(ids, W_e) + W_p[: len(ids)]}
    if step not in outputs:
        raise ValueError(f"step: expected 4 or 5, got {step!r}")
    return not bool(np.abs(outputs[step] - ref.numpy()).max() < 1e-12)


def ffn_input_is_wrong(z4: Callable[[Any, Any], Any]) -> bool:
    """Is ``z4(Z₃, ln_2)`` what ``transformers``' GPT-2 block feeds its MLP (seen by a hook)?"""
    import torch
    from transformers import GPT2Config
    from transformers.models.gpt2.modeling_gpt2 import GPT2Block

    H, n = 8, 5
    torch.manual_seed(0)
    cfg = GPT2Config(
        n_embd=H,
        n_head=2,
        n_positions=16,
        resid_pdrop=0.0,
        attn_pdrop=0.0,
        attn_implementation="eager",
    )
    blk = GPT2Block(cfg, layer_idx=0).double().eval()
    seen: dict = {}
    hooks = [
        blk.mlp.register_forward_hook(lambda m, i, o: seen.update(z4=i[0])),
        blk.attn.register_forward_hook(lambda m, i, o: seen.update(z2=o[0])),
    ]
    X = torch.tensor(np.random.default_rng(0).normal(size=(1, n, H)) * 3.0)
    causal = causal_mask_torch(n)[None, None]
    with torch.no_grad():
        blk(X, attention_mask=causal)
        got = z4(X + seen["z2"], blk.ln_2)
    for hk in hooks:
        hk.remove()
    return not bool(torch.allclose(seen["z4"], got, atol=1e-12))


def _sigmoid_gelu(x: np.ndarray) -> np.ndarray:
    return fm.gelu(x, "sigmoid")


def _erf_gelu(x: np.ndarray) -> np.ndarray:
    return fm.gelu(x, "erf")


# Found by the audit ledger (appendix B) of source 002.


#: ``(X, W_Q, W_K, W_V) -> (Q, K, V)``: what the head formula receives as its Q, K, V.
HeadInputs = Callable[
    [np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    tuple[np.ndarray, np.ndarray, np.ndarray],
]


def _projected(X: np.ndarray, W_Q: np.ndarray, W_K: np.ndarray, W_V: np.ndarray):
    """002's reading: Q, K, V are the matrices of its table (lines 487-509), already projected
    by the all-heads matrices, ``Q = X W^Q`` and so on."""
    return X @ W_Q, X @ W_K, X @ W_V


def _block_input(X: np.ndarray, W_Q: np.ndarray, W_K: np.ndarray, W_V: np.ndarray):
    """The Transformer's reading: in self-attention Q = K = V = X, the block's input."""
    return X, X, X


#: The two readings of ``MultiHead(Q, K, V)`` with ``head_h = Attention(Q W_h^Q, ...)``.
PROJECTED_INPUTS: HeadInputs = _projected
BLOCK_INPUTS: HeadInputs = _block_input


def head_inputs_are_wrong(inputs: HeadInputs) -> bool:
    """Does ``Concat(head_1..head_H) W^O`` with ``head_h = Attention(Q W_h^Q, K W_h^K, V W_h^V)``,
    fed the ``(Q, K, V)`` that ``inputs`` builds, miss the output of multi-head self-attention?

    Reference: ``torch.nn.MultiheadAttention`` (no biases, causal mask) on ``X``.  The heads'
    matrices ``W_h^Q`` are the column blocks of its query matrix ``W^Q`` (``D x D``), so 002's
    all-heads matrix and its per-head matrices are the same numbers, as in its Step 7.1.
    """
    import torch

    D, H, T = 8, 2, 5
    d = D // H
    X = np.random.default_rng(3).normal(size=(T, D))
    torch.manual_seed(7)
    mha = torch.nn.MultiheadAttention(
        D, H, bias=False, batch_first=True, dtype=torch.float64
    )
    causal = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
    with torch.no_grad():
        ref = mha(*(torch.from_numpy(X)[None],) * 3, attn_mask=causal)[0][0].numpy()
    # torch computes x @ W.T: the math's W^Q (D x D) is the transpose of its block
    W_Q, W_K, W_V = (w.detach().numpy().T for w in mha.in_proj_weight.chunk(3))
    W_O = mha.out_proj.weight.detach().numpy().T
    Q, K, V = inputs(X, W_Q, W_K, W_V)
    mask = fm.mask_autoregressive(T)
    heads = [
        fm.attention(
            Q @ W_Q[:, h * d : (h + 1) * d],
            K @ W_K[:, h * d : (h + 1) * d],
            V @ W_V[:, h * d : (h + 1) * d],
            mask,
        )
        for h in range(H)
    ]
    return not np.allclose(fm.concat(*heads) @ W_O, ref, atol=1e-10)


def query_input_is_wrong(name: str) -> bool:
    """Is ``name`` the tensor that the query matrix of GPT-2's *second* block multiplies?

    ``"embeddings"`` is ``X~ = X W_e + W_p`` (the model's first hidden state);
    ``"normalized block input"`` is ``ln_1`` of that block's input (the first block's output);
    ``"block input"`` is the same without ``ln_1``.  Reference: the output of the block's
    ``c_attn`` (its Q, K, V projection), captured by a hook while ``transformers``' ``GPT2Model``
    (small random configuration) runs.
    """
    import torch
    from transformers import GPT2Config, GPT2Model

    torch.manual_seed(0)
    cfg = GPT2Config(
        vocab_size=50,
        n_positions=16,
        n_embd=16,
        n_layer=2,
        n_head=2,
        bos_token_id=0,
        eos_token_id=0,
    )
    model = GPT2Model(cfg).double().eval()
    block = model.h[1]
    seen: list[torch.Tensor] = []
    handle = block.attn.c_attn.register_forward_hook(lambda m, i, o: seen.append(o))
    ids = torch.tensor([[3, 14, 15, 9, 2, 6]])
    with torch.no_grad():
        hidden = model(ids, output_hidden_states=True).hidden_states
        handle.remove()
        candidates = {
            "embeddings": hidden[0],
            "block input": hidden[1],
            "normalized block input": block.ln_1(hidden[1]),
        }
        if name not in candidates:
            raise ValueError(
                f"name: expected one of {sorted(candidates)}, got {name!r}"
            )
        D = cfg.n_embd
        query = block.attn.c_attn(candidates[name])[..., :D]
    return not bool(torch.allclose(query, seen[0][..., :D], atol=1e-10))


def mask_entries_are_wrong(entries: tuple[float, float]) -> bool:
    """Does a mask with the value ``entries[0]`` where a query may attend (on and below the
    diagonal) and ``entries[1]`` where it may not, fed to 002's own code line
    ``scores.masked_fill(mask == 0, -inf)`` (Step 7.3), fail to give causal attention?

    The reference is ``torch``'s ``scaled_dot_product_attention(..., is_causal=True)``; a NaN
    (a row with every score at ``-inf``) counts as a failure.
    """
    import torch

    allowed, blocked = entries
    n, d = 5, 4
    g = torch.Generator().manual_seed(0)
    q, k, v = (
        torch.randn(1, 2, n, d, generator=g, dtype=torch.float64) for _ in range(3)
    )
    keep = torch.ones(n, n, dtype=torch.bool).tril()
    mask = torch.where(
        keep,
        torch.tensor(float(allowed), dtype=torch.float64),
        torch.tensor(float(blocked), dtype=torch.float64),
    )
    scores = q @ k.transpose(-2, -1) / d**0.5
    # 002's line [3]: the positions where the mask is 0 are the ones it blocks
    weights = scores.masked_fill(mask == 0, float("-inf")).softmax(dim=-1)
    ours = weights @ v
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    return bool(torch.isnan(ours).any()) or not torch.allclose(ours, ref, atol=1e-12)


def weight_shapes_are_wrong(allowed: Callable[[tuple[int, int]], bool]) -> bool:
    """Is ``allowed(shape)`` true exactly for the weight shapes the slides' inputs permit?

    The inputs are the example's three rows of width 4 (:data:`formulated.examples.QKV_INPUTS`);
    a shape (r, c), r and c from 1 to 8, is permitted when ``torch.matmul`` of the inputs with
    an r x c matrix is defined (the keys, queries and values are such products).  Wrong when
    ``allowed`` and the measured set differ on some shape.
    """
    import torch

    X = torch.from_numpy(ex.QKV_INPUTS)

    def defined(r: int, c: int) -> bool:
        try:
            torch.matmul(X, torch.zeros(r, c, dtype=X.dtype))
        except RuntimeError:
            return False
        return True

    return any(
        bool(allowed((r, c))) != defined(r, c) for r in range(1, 9) for c in range(1, 9)
    )


ERRATA: list[Erratum] = [
    Erratum(
        key="004-infinite-reference-window",
        severity="error",
        sources=("004",),
        section='"Attention" (reference window)',
        says="“Attention mechanism has an infinite reference window” (RNNs a short one, LSTMs "
        "a longer one), on a slide about the Transformer of Vaswani et al.",
        correct="nothing in that Transformer's formulas bounds the window: its sinusoidal "
        "positions are defined for every position (there is no position table) and "
        "attention reaches any earlier token in one step. What bounds it is the cost: "
        "each head of each layer computes an $n \\times n$ matrix of weights, so memory "
        "and time grow as $n^2$ and a given memory fits a finite $n$ (the check measures "
        "it); and the model is trained on sequences of bounded length, with no guarantee "
        "beyond them. GPT's models add a hard limit, a learned position table of "
        "$n_\\text{ctx}$ rows (512, 1,024, 2,048)",
        chapter=_CH08,
        stated=lambda budget: math.inf,
        true=lambda budget: math.isqrt(budget // (2 * 8)),
        check=reference_window_is_wrong,
    ),
    Erratum(
        key="004-qkv-width-forced",
        severity="error",
        sources=("004",),
        section="Attention: Q, K, V and weights (the example's weights)",
        says="\u201cBecause every input has a dimension of 4, each set of the weights must "
        "have a shape of 4x3.\u201d",
        correct=r"The inputs' width forces only the 4 rows: a product $\bm{X}\bm{W}$ is defined "
        r"for every $4 \times k$ matrix $\bm{W}$. The 3 columns are the width chosen for "
        r"the example's keys, queries and values (the Transformer takes "
        r"$d_k = d_\text{model}/h$); the example's numbers are right for $k = 3$.",
        chapter=_CH08,
        stated=lambda shape: shape == (4, 3),
        true=lambda shape: shape[0] == 4,
        check=weight_shapes_are_wrong,
    ),
    Erratum(
        key="slide-attention-rounding",
        severity="error",
        sources=("004",),
        section='Q/K/V example, "Sum weighted values to get Output 1"',
        says=r"$\operatorname{softmax}([2, 4, 4]) = [0.0, 0.5, 0.5]$ and Output 1 $= [2.0, 7.0, 1.5]$",
        correct=r"$[0.0634, 0.4683, 0.4683]$ (to one decimal $[0.1, 0.5, 0.5]$) and Output 1 "
        r"$= [1.9366, 6.6831, 1.5951]$",
        chapter=_CH08,
        stated=(ex.SLIDE_SOFTMAX_1, ex.SLIDE_OUTPUT_1),
        true=(np.array([0.0634, 0.4683, 0.4683]), np.array([1.9366, 6.6831, 1.5951])),
        check=attention_numbers_are_wrong,
    ),
    Erratum(
        key="slide-attention-no-scaling",
        severity="omission",
        sources=("004",),
        kind="omission",
        section="Q/K/V example, attention scores",
        says=r"scores are the plain dot products $\bm{q}_1 \cdot \bm{k}_j = [2, 4, 4]$",
        correct=r"the Transformer divides by $\sqrt{D} = \sqrt{3}$: weights "
        r"$[0.1361, 0.4319, 0.4319]$, Output 1 $= [1.8639, 6.3194, 1.7042]$",
        chapter=_CH08,
        stated=1.0,
        true=1 / math.sqrt(3),
        check=attention_scale_is_wrong,
    ),
    Erratum(
        key="mask-multiplicative",
        severity="error",
        sources=("000", "001"),
        section="Autoregressive Attention Mask; Masked Scaled Dot-Product Attention",
        says=r"$\operatorname{Softmax}(\text{Mask} \odot \bm{Q}\bm{K}^\top / \sqrt{D})$ with mask "
        r"entries $1$ (allowed) and $-\infty$ (blocked), $\text{Mask}_\text{BD} = 1$",
        correct=r"add the mask: $\operatorname{Softmax}(\bm{Q}\bm{K}^\top/\sqrt{D} + \text{Mask})$ "
        r"with entries $0$ and $-\infty$ ($\text{Mask}_\text{BD} = 0$); multiplying turns "
        r"a negative blocked score into $+\infty$ and a zero one into NaN",
        chapter=_CH09,
        stated=_multiply,
        true=_add,
        check=apply_mask_is_wrong,
    ),
    Erratum(
        key="mask-one-minus-m",
        severity="error",
        sources=("002",),
        section="Step 7.3, scaled dot-product attention and masking",
        says=r"$\bm{M}^{-\infty} \in \{0, -\infty\}^{T \times T} = 1 - \bm{M}$ for the 0/1 "
        r"lower-triangular $\bm{M}$",
        correct=r"$1 - \bm{M}$ has entries $0$ and $1$ and blocks nothing; the mask is "
        r"$\bm{M}^{-\infty}_{ij} = 0$ if $M_{ij} = 1$ and $-\infty$ if $M_{ij} = 0$ "
        r"(`masked_fill`), not $(1-\bm{M})\cdot(-\infty)$ either, since $0 \cdot \infty$ is NaN",
        chapter=_CH09,
        stated=lambda M: 1 - M,
        true=_m_inf,
        check=mask_from_m_is_wrong,
    ),
    Erratum(
        key="slide-masked-softmax-inf",
        severity="slip",
        sources=("004",),
        section='"Decoder, Masked Attention", softmax of the masked scores',
        says=r"the matrix inside $\operatorname{Softmax}(\cdot)$ holds $\text{inf}$ above the diagonal",
        correct=r"$-\infty$ (as in the slide's own look-ahead mask); with $+\infty$ the softmax is "
        r"NaN ($\infty/\infty$)",
        chapter=_CH09,
        stated=SLIDE_SOFTMAX_ARGUMENT,
        true=ex.SLIDE_MASKED_SCORES,
        check=softmax_argument_is_wrong,
    ),
    Erratum(
        key="slide-masked-softmax-digits",
        severity="error",
        sources=("004",),
        section='"Decoder, Masked Attention", softmax result',
        says=r"rows $[0.37, 0.62]$ and $[0.26, 0.31, 0.43]$",
        correct=r"$[0.3775, 0.6225]$ and $[0.2584, 0.3156, 0.4260]$: to two decimals "
        r"$[0.38, 0.62]$ and $[0.26, 0.32, 0.43]$; two entries were cut, not rounded. "
        r"(That rows 2 and 4 sum to 0.99 proves nothing: row 4, "
        r"$[0.2144, 0.2619, 0.2619, 0.2619]$, is rounded correctly and sums to 0.99, "
        r"while row 3 has a cut entry and sums to 1.00.)",
        chapter=_CH09,
        stated=ex.SLIDE_MASKED_SOFTMAX,
        true=np.array(
            [
                [1, 0, 0, 0],
                [0.38, 0.62, 0, 0],
                [0.26, 0.32, 0.43, 0],
                [0.21, 0.26, 0.26, 0.26],
            ]
        ),
        check=two_decimals_are_wrong,
    ),
    Erratum(
        key="concat-h-undefined",
        severity="slip",
        sources=("000", "001"),
        section="Concatenation and Masked Multi-Head Self-Attention boxes",
        says=r"$\text{Concat}(\bm{X}_1, \ldots, \bm{X}_h)$ with $k = 1, \ldots, A$, and "
        r"$\text{Concat}(\text{head}_1, \ldots, \text{head}_h)\bm{W}^O$; the letter $h$ "
        "is never defined.",
        correct=r"The number of heads is $A$: $\text{Concat}(\text{head}_1, \ldots, "
        r"\text{head}_A)$, of shape $n \times AD$, the only width that "
        r"$\bm{W}^O \in \R^{AD \times H}$ accepts.",
        chapter=_CH10,
        stated=lambda hp: hp["h"],
        true=lambda hp: hp["A"],
        check=head_count_is_wrong,
    ),
    Erratum(
        key="mhsa-no-biases",
        severity="omission",
        sources=("000", "001"),
        kind="omission",
        section="Masked Multi-Head Self-Attention box (parameters)",
        says=r"The parameters are $\bm{W}_i^Q, \bm{W}_i^K, \bm{W}_i^V, \bm{W}^O$ only.",
        correct=r"GPT and GPT-2 also add biases: $\bm{X}\bm{W}_i^Q + \bm{b}_i^Q$ (likewise "
        r"for $K$, $V$) and $\ldots\bm{W}^O + \bm{b}^O$, that is $3AD + H$ more "
        "parameters per layer; with them the box reproduces transformers' "
        "`GPT2Attention`, without them it does not.",
        chapter=_CH10,
        stated=False,
        true=True,
        check=bias_claim_is_wrong,
    ),
    Erratum(
        key="heads-share-weights",
        severity="error",
        sources=("002",),
        section="Step 7.1 (linear projections)",
        says='"we are using the same weight matrices for all heads, weight/parameters '
        'sharing" (of the $D \\times D$ matrices $\\bm{W}^{Q}, \\bm{W}^{K}, \\bm{W}^{V}$).',
        correct=r"Only the word is wrong: Step 7.2 splits the heads correctly (column "
        r"$d = h \cdot (D/\!/H) + d_q$ of the big matrix goes to head $h$, in 002's "
        r"letters), so one matrix computes all heads, but no parameter is shared between "
        r"them: it is $[\bm{W}_1^Q \,|\, \cdots \,|\, \bm{W}_A^Q]$ and head $i$ uses "
        r"only its own $D$ columns; editing them changes head $i$ alone. (What is "
        r"shared is the use of the same matrices at every position.)",
        chapter=_CH10,
        stated="shared",
        true="separate",
        check=head_sharing_is_wrong,
    ),
    Erratum(
        key="masked-weights",
        severity="error",
        sources=("002",),
        section="Masked Multi-Head Attention for Decoder Layer ℓ",
        says=r"$\bm{W}_h^{Q,M}, \bm{W}_h^{K,M}, \bm{W}_h^{V,M}$ are \"masked weight matrices\" "
        r"and $\bm{W}^{O,M}$ is \"the masked output transformation matrix ... ensuring that "
        'future tokens do not influence the predictions".',
        correct=r"The weights are ordinary matrices (the same ones serve masked and unmasked "
        r"attention). Causality comes from the mask added to the scores alone; "
        r"$\bm{W}^O$ acts on each row separately and can neither cause nor prevent "
        "a leak from the future.",
        chapter=_CH10,
        stated="weights",
        true="mask",
        check=causality_source_is_wrong,
    ),
    Erratum(
        key="gelu-sigmoid-as-exact",
        severity="error",
        sources=("000", "001"),
        section="Feed-Forward GELU Network box (and $\\text{FFN}_\\text{GELU}$ in the GPT and "
        "GPT-2 boxes; in 001 also GPT-3, BERT and RoBERTa)",
        says=r"$\text{GELU}(\bm{X}) = \bm{X} \odot \text{sigmoid}(1.702\bm{X})$, as the "
        "definition of GELU.",
        correct=r"$\text{GELU}(x) = x\,\Phi(x)$; $x\,\sigma(1.702x)$ is an approximation, off by "
        r"up to $0.0203$ (at $|x| \approx 2.27$), and no model of the boxes computes it: "
        r"GPT and GPT-2 use the tanh approximation (off by at most $4.7 \times 10^{-4}$, "
        r"and right for them: OpenAI's released code), BERT and RoBERTa the exact form "
        r"(the check compares with `transformers`' two forms, `gelu_new` and `gelu`). (000's BERT box uses "
        r"$\text{FFN}_\text{ReLU}$, a separate erratum.) With the sigmoid form a small "
        r"random model's probabilities move by about $10^{-3}$ (chapter 13).",
        chapter=_CH11,
        stated=_sigmoid_gelu,
        true=_erf_gelu,
        check=gelu_is_wrong,
    ),
    Erratum(
        key="ffn-relu-003",
        severity="error",
        sources=("003",),
        section="Single Layer: FFN",
        says=r"$\text{FFN}(\mathcal{H}) = \bm{W}_2 \cdot \text{ReLU}[\bm{W}_1 \cdot \mathcal{H} "
        r"+ \bm{b}_1] + \bm{b}_2$ for GPT.",
        correct="GPT's feed-forward network uses GELU (GPT-1 paper; transformers' OpenAI GPT "
        'configuration `afn="gelu"`, its tanh form).',
        chapter=_CH11,
        stated=fm.ffn_relu,
        true=partial(fm.ffn_gelu, approximation="tanh"),
        check=gpt_ffn_is_wrong,
    ),
    Erratum(
        key="ffn-shapes-003",
        severity="error",
        sources=("003",),
        section="Single Layer: FFN parameter shapes",
        says=r"$\bm{W}_1 \in \R^{M \times 4d}$, $\bm{W}_2 \in \R^{M \times d}$.",
        correct=r"In the column-vector form $\bm{W}_2 \cdot \text{act}[\bm{W}_1 \cdot \bm{h} + "
        r"\bm{b}_1] + \bm{b}_2$: $\bm{W}_1 \in \R^{4d \times d}$, "
        r"$\bm{W}_2 \in \R^{d \times 4d}$ (the shapes of `torch.nn.Linear` weights); the "
        r"book's row form uses the transposes $H \times F$ and $F \times H$. With the "
        r"shapes as written neither product is defined, whatever $M$ is.",
        chapter=_CH11,
        stated=lambda d, M: ((M, 4 * d), (M, d)),
        true=lambda d, M: ((4 * d, d), (d, 4 * d)),
        check=ffn_shapes_are_wrong,
    ),
    Erratum(
        key="ffn-table-z1",
        severity="error",
        sources=("002",),
        section="Step 10 (position-wise FFN) and its matrix description table",
        says=r"$\bm{Z}^{FF}_1 = \text{GELU}(\bm{Z}_4\bm{W}_1 + \bm{b}_1)$, yet the note and the "
        r"table call $\bm{Z}^{FF}_1$ the output of the first linear transformation and "
        r"apply the activation again as $\sigma(\bm{Z}^{FF}_1)$.",
        correct=r"GELU is applied exactly once: $\bm{Z}_5 = \text{GELU}(\bm{Z}_4\bm{W}_1 + "
        r"\bm{b}_1)\bm{W}_2 + \bm{b}_2$. Applying it twice (or not at all) no longer "
        "matches GPT-2's MLP.",
        chapter=_CH11,
        stated=2,
        true=1,
        check=gelu_count_is_wrong,
    ),
    Erratum(
        key="layernorm-std-eps",
        severity="error",
        sources=("002",),
        section="Step 6 (layer normalization code)",
        says=r"Code `gamma * (x - mean) / (std + eps) + beta`, under the formula "
        r"$(\bm{x}_t - \mu_t)/\sqrt{\sigma_t^2 + \epsilon}$.",
        correct=r"The formula (and `torch.nn.LayerNorm`) put $\epsilon$ inside the root: "
        r"$(\bm{x} - \mu)/\sqrt{\sigma^2 + \epsilon}$. The code's version differs by about "
        r"$\epsilon/2$ relatively when $\sigma \approx 1$, and by a factor of more "
        r"than 3 when $\sigma \approx 10^{-3}$.",
        chapter=_CH12,
        stated=fm.layer_norm_std_eps,
        true=fm.layer_norm,
        check=layer_norm_is_wrong,
    ),
    Erratum(
        key="layernorm-eps-unspecified",
        severity="omission",
        sources=("000", "001"),
        kind="omission",
        section="Hyperparameters: Epsilon in Layer Normalization",
        says=r"Lists $\epsilon$ without a value.",
        correct=r"GPT and GPT-2 use $\epsilon = 10^{-5}$ (BERT uses $10^{-12}$), as their "
        r"released configurations set it and `transformers`' configuration classes, which "
        r"the check reads, hold it; the value changes the output of LayerNorm for rows "
        r"whose variance is small.",
        chapter=_CH12,
        stated=None,
        true=1e-5,
        check=epsilon_is_wrong,
    ),
    Erratum(
        key="step6-input-step4",
        severity="slip",
        sources=("002",),
        section='Step 6 and "Layer Normalization Before Projection" (step numbers)',
        says=r"For $\ell = 1$, $\tilde{\bm{X}}$ is \"the output from Step 4 (Positional "
        'Embedding)"; the final LayerNorm is titled "Step 10".',
        correct=r"A numbering slip: the words in brackets name the right step, Step 5 "
        r"(positional embedding); Step 4's output, the token embedding alone, is not "
        r"the block's input. Likewise the final LayerNorm follows Step 11 (Step 10 is "
        "the FFN), so it is Step 12.",
        chapter=_CH12,
        stated=4,
        true=5,
        check=block_input_step_is_wrong,
    ),
    Erratum(
        key="ffn-input-z4",
        severity="error",
        sources=("002",),
        section='Step 10 matrix description table, row "Input to FFN in Layer ℓ"',
        says=r"$\bm{Z}_4$ is the \"output from the residual connection that adds the normalized "
        'self-attention outputs to the initial input embeddings".',
        correct=r"$\bm{Z}_4 = \text{LayerNorm}(\bm{Z}_3)$, and the residual sum is "
        r"$\bm{Z}_3 = \tilde{\bm{X}} + \text{MaskedMultiHead}(\text{LayerNorm}"
        r"(\tilde{\bm{X}}))$: in a pre-LN block the attention's input is normalized, "
        "not its output.",
        chapter=_CH12,
        stated=lambda z3, ln: z3,
        true=lambda z3, ln: ln(z3),
        check=ffn_input_is_wrong,
    ),
    Erratum(
        key="002-multihead-double-projection",
        severity="error",
        sources=("002",),
        section="Attention Notations: the Q, K, V table and Multi-Head Attention for Layer ℓ "
        "(also the masked version)",
        says=r"The table defines $\mathbf{Q}, \mathbf{K}, \mathbf{V}$ ($T \times D$) as the "
        r"query, key and value representations of all tokens \"using combined weights of all "
        r"heads\" (already projected); the multi-head formula then takes them as its input, "
        r"$\operatorname{head}_{\ell,h} = \operatorname{Attention}(\mathbf{Q}\mathbf{W}_h^"
        r"{Q,(\ell)}, \mathbf{K}\mathbf{W}_h^{K,(\ell)}, "
        r"\mathbf{V}\mathbf{W}_h^{V,(\ell)})$.",
        correct=r"The head projections act on the block's input $\mathbf{X}$ (in self-attention "
        r"$\mathbf{Q} = \mathbf{K} = \mathbf{V} = \mathbf{X}$, the normalized input): "
        r"$\operatorname{head}_h = \operatorname{Attention}(\mathbf{X}\mathbf{W}_h^Q, "
        r"\mathbf{X}\mathbf{W}_h^K, \mathbf{X}\mathbf{W}_h^V)$. Fed the projected "
        r"$\mathbf{Q} = \mathbf{X}\mathbf{W}^Q$, the formula computes "
        r"$\mathbf{X}\mathbf{W}^Q\mathbf{W}_h^Q$, a second projection, and its output "
        r"is not the model's.",
        chapter=_CH10,
        stated=PROJECTED_INPUTS,
        true=BLOCK_INPUTS,
        check=head_inputs_are_wrong,
    ),
    Erratum(
        key="002-wq-reads-embeddings",
        severity="error",
        sources=("002",),
        section=r"Attention Notations, Query/Key/Value Weight Matrix for All Heads in Layer ℓ",
        says=r"$\mathbf{W}^{Q,(\ell)}$ (likewise $\mathbf{W}^{K,(\ell)}$, "
        r"$\mathbf{W}^{V,(\ell)}$) is the matrix of layer $\ell$ that \"transforms the "
        r"embeddings $\tilde{\mathbf{X}}$ into query representations\".",
        correct=r"Layer $\ell$ projects its own input, after that block's LayerNorm in GPT-2: "
        r"for $\ell \ge 2$ the output of block $\ell - 1$, not $\tilde{\mathbf{X}}$ "
        r"(only in GPT-1's post-LN block 1 is it $\tilde{\mathbf{X}}$ itself). 002's own "
        r"Step 7.1 projects the normalized input $\mathbf{Z}_1^{(\ell)}$.",
        chapter=_CH12,
        stated="embeddings",
        true="normalized block input",
        check=query_input_is_wrong,
    ),
    Erratum(
        key="002-mask-declared-neg-inf",
        severity="slip",
        sources=("002",),
        section="Step 7.3 (the attention mask, first sentence and displayed matrix)",
        says=r"\"The attention mask matrix $\mathbf{M} \in \{0, -\infty\}^{T \times T}$ is "
        r"initially constructed as a lower triangular matrix of ones and zeros\": 1 where "
        r"a query may attend, 0 where it may not; the code then blocks where `mask == 0`.",
        correct=r"The matrix displayed, and the one the code line `masked_fill(mask == 0, "
        r"-inf)` needs, is the 0/1 matrix $\mathbf{M} \in \{0, 1\}^{T \times T}$; the "
        r"set $\{0, -\infty\}$ belongs to the additive mask $\mathbf{M}^{-\infty}$ "
        r"derived from it. Fed to that code line, a 0/$-\infty$ mask blocks exactly the "
        r"allowed positions (0 on and below the diagonal), so each query attends only to "
        r"the future, and the last row, with nothing left, becomes NaN.",
        chapter=_CH09,
        stated=(0.0, float("-inf")),
        true=(1.0, 0.0),
        check=mask_entries_are_wrong,
    ),
    Erratum(
        key="002-attention-biases",
        severity="omission",
        sources=("002",),
        kind="omission",
        section="Step 7.1 (linear projections) and Step 7.4 (output projection); the attention "
        "rows of the Table of Notations",
        says=r"$\mathbf{Q} = \mathbf{Z}_1 \mathbf{W}^{Q}$, $\mathbf{K} = \mathbf{Z}_1 "
        r"\mathbf{W}^{K}$, $\mathbf{V} = \mathbf{Z}_1 \mathbf{W}^{V}$ and $\mathbf{Z}_2 = "
        r"\mathbf{C}_\text{concat} \mathbf{W}^{O}$: weights only, although the FFN of "
        r"Step 10 has its biases written out.",
        correct=r"GPT-2 adds a bias after each of the four projections ($\ldots\mathbf{W}^{Q} "
        r"+ \mathbf{b}^{Q}$, likewise $K$, $V$, and $\ldots\mathbf{W}^{O} + "
        r"\mathbf{b}^{O}$, $4D$ numbers per layer in 002's letters); 002's own code "
        r"uses `torch.nn.Linear`, which has them by default. Without them the formulas "
        r"do not reproduce `transformers`' `GPT2Attention`.",
        chapter=_CH10,
        stated=False,
        true=True,
        check=bias_claim_is_wrong,
    ),
]
