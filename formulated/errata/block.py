"""Errata of chapters 08–12, the part "The transformer block" (attention, masks, multi-head
attention, FFN and GELU, LayerNorm): sources 000–004.  This module holds those of chapters
08–10; those of chapters 11–12 live in :mod:`.ffn_layernorm`, and :data:`ERRATA` is the part's
list, both together.

Each check takes a value (the source's or the corrected one) and recomputes the truth
independently -- ``torch``'s softmax and ``scaled_dot_product_attention``,
``torch.nn.MultiheadAttention``, ``torch.nn.functional``, ``transformers``' GPT and GPT-2 layers.  The candidate formulas are the package's own (:mod:`formulated.formulas`).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from .. import examples as ex
from .. import formulas as fm
from . import ffn_layernorm
from .record import Erratum

__all__ = ["ERRATA", "SLIDE_SOFTMAX_ARGUMENT", "causal_mask_torch"]

_CH08, _CH09, _CH10 = (
    "chapters/08_attention",
    "chapters/09_masks",
    "chapters/10_multi_head",
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


ERRATA: list[Erratum] = [
    Erratum(
        key="004-infinite-reference-window",
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
        key="slide-attention-rounding",
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
    *ffn_layernorm.ERRATA,  # chapters 11–12
]
