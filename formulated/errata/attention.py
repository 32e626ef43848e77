"""Errata of chapters 07–09 (embeddings and positions, attention, masks): sources 000–002, 004.

Each check takes a value (the source's or the corrected one) and recomputes the truth
independently -- ``torch``'s softmax, dropout and ``scaled_dot_product_attention``,
``transformers``' GPT-2.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from .. import examples as ex
from .record import Erratum

__all__ = ["ERRATA", "SLIDE_SOFTMAX_ARGUMENT"]

_CH07, _CH08, _CH09 = ("chapters/07_embeddings_positions", "chapters/08_attention",
                       "chapters/09_masks")

#: The matrix inside "Softmax(...)" on the slide "Decoder, Masked Attention", as printed: ``inf``
#: (not ``-inf``) above the diagonal.  Shape (4, 4).
SLIDE_SOFTMAX_ARGUMENT = np.array([[0.7, np.inf, np.inf, np.inf],
                                   [0.1, 0.6, np.inf, np.inf],
                                   [0.1, 0.3, 0.6, np.inf],
                                   [0.1, 0.3, 0.3, 0.3]])


def onehot_row_is_wrong(row_of: Callable[[int, int], int]) -> bool:
    """Does the one-hot row ``(0, ..., 0, 1)`` (length V) times ``W_e`` give row ``row_of(T, V)``
    (1-based) of ``W_e``?  The product is computed by ``torch.nn.functional.one_hot``; T ≠ V."""
    import torch

    T, V = 3, 5
    W_e = torch.arange(V * 2, dtype=torch.float64).reshape(V, 2)
    ids = torch.tensor([1, 0, V - 1])                      # e_2, e_1, ..., e_V
    last = (torch.nn.functional.one_hot(ids, V).double() @ W_e)[-1]
    return not bool(torch.equal(last, W_e[row_of(T, V) - 1]))


def sinusoidal_start_is_wrong(start: int) -> bool:
    """Is 002's formula, with ``i`` and ``j`` counted from ``start``, the Transformer's encoding?

    The reference is written in the paper's own indexing, ``PE[pos, 2k] = sin(pos/10000^{2k/D})``,
    ``PE[pos, 2k+1] = cos(pos/10000^{2k/D})`` for ``pos = 0, 1, ...``, with torch.
    """
    import torch

    T, D = 8, 8
    pos = torch.arange(T, dtype=torch.float64)[:, None]
    freq = 10000.0 ** (torch.arange(0, D, 2, dtype=torch.float64) / D)
    paper = torch.stack([torch.sin(pos / freq), torch.cos(pos / freq)], dim=-1).reshape(T, D)
    source = np.empty((T, D))
    for a, i in enumerate(range(start, start + T)):
        for b, j in enumerate(range(start, start + D)):
            source[a, b] = (np.sin(i / 10000 ** (j / D)) if j % 2 == 0
                            else np.cos(i / 10000 ** ((j - 1) / D)))
    return not bool(np.abs(source - paper.numpy()).max() < 1e-12)


def dropout_is_wrong(dropout: Callable[[np.ndarray, np.ndarray, float], np.ndarray]) -> bool:
    """Does ``dropout(X, M, p)`` give ``torch.nn.functional.dropout``'s training-mode output for the
    keep-mask ``M`` torch drew?"""
    import torch

    p = 0.25
    x = torch.randn(1000, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    torch.manual_seed(0)
    y = torch.nn.functional.dropout(x, p=p, training=True).numpy()
    keep = (y != 0).astype(float)
    return not bool(np.allclose(dropout(x.numpy(), keep, p), y, rtol=1e-12, atol=0))


def _example_qkv():
    import torch

    X = ex.QKV_INPUTS
    return (torch.from_numpy(X @ W) for W in (ex.QKV_W_QUERY, ex.QKV_W_KEY, ex.QKV_W_VALUE))


def attention_numbers_are_wrong(numbers: tuple[np.ndarray, np.ndarray]) -> bool:
    """Are ``(weights, output)`` of query 1 in the slides' example right to four decimals?

    torch recomputes them (the slides' unscaled scores: ``scale=1``).
    """
    import torch

    Q, K, V = _example_qkv()
    weights = torch.softmax(Q[0] @ K.T, dim=-1).numpy()
    out = torch.nn.functional.scaled_dot_product_attention(Q, K, V, scale=1.0)[0].numpy()
    return not all(np.abs(np.asarray(v) - t).max() <= 5e-5 for v, t in zip(numbers, (weights, out)))


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
    ref = torch.softmax(torch.from_numpy(scores).masked_fill(torch.from_numpy(blocked),
                                                             float("-inf")), dim=-1)
    with np.errstate(invalid="ignore"):
        got = torch.softmax(torch.from_numpy(np.asarray(apply(scores, blocked), float)), dim=-1)
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
    M = np.tril(np.ones((n, n)))                          # 1 = may attend, as in 002
    with np.errstate(invalid="ignore"):
        mask = torch.from_numpy(np.asarray(make_mask(M), dtype=float))
    sdpa = torch.nn.functional.scaled_dot_product_attention
    return not bool(torch.allclose(sdpa(Q, K, V, attn_mask=mask), sdpa(Q, K, V, is_causal=True)))


def _m_inf(M: np.ndarray) -> np.ndarray:
    return np.where(M == 1, 0.0, -np.inf)


def softmax_argument_is_wrong(matrix: np.ndarray) -> bool:
    """Is the row softmax of ``matrix`` the masked softmax of the slide's scaled scores?

    Reference: ``torch.softmax`` of the scaled scores with the look-ahead pattern filled by -inf.
    """
    import torch

    blocked = torch.from_numpy(np.triu(np.ones((4, 4), dtype=bool), 1))
    ref = torch.softmax(torch.from_numpy(ex.MASK_SCALED_SCORES).masked_fill(blocked, -math.inf), -1)
    got = torch.softmax(torch.from_numpy(np.asarray(matrix, dtype=float)), -1)
    return not bool(torch.allclose(got, ref))


def _exact_masked_softmax() -> np.ndarray:
    import torch

    return torch.softmax(torch.from_numpy(ex.MASK_SCALED_SCORES + ex.MASK_LOOKAHEAD), -1).numpy()


def two_decimals_are_wrong(printed: np.ndarray) -> bool:
    """Is ``printed`` the masked softmax (torch) rounded to two decimals, entry by entry?"""
    return not bool(np.all(np.abs(np.asarray(printed) - _exact_masked_softmax().round(2)) < 1e-9))


def reference_window_is_wrong(window: Callable[[int], float]) -> bool:
    """Is ``window(n_positions)`` the longest sequence a GPT attends over?

    A small random ``transformers`` GPT-2 with 8 positions is run on 8 and on 9 tokens: the
    longest input it accepts is the true window.
    """
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    n_positions = 8
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=11, n_positions=n_positions, n_embd=8,
                                       n_layer=1, n_head=2,
                                       bos_token_id=0, eos_token_id=0)).eval()
    longest = 0
    for n in (n_positions, n_positions + 1):
        try:
            with torch.no_grad():
                model(torch.zeros(1, n, dtype=torch.long))
        except (IndexError, RuntimeError):  # no position embedding for position n
            break
        longest = n
    return window(n_positions) != longest


ERRATA: list[Erratum] = [
    Erratum(
        key="onehot-lookup-last-row", sources=("002",),
        section="Weights and embeddings, lookup illustration",
        says=r"the one-hot row $(0, \dots, 0, 1)$ times $\bm{W}_e$ gives row "
             r"$(w_{T,1}, \dots, w_{T,D})$",
        correct=r"a 1 in column $V$ selects row $V$: $(w_{V,1}, \dots, w_{V,D})$",
        chapter=_CH07, stated=lambda T, V: T, true=lambda T, V: V, check=onehot_row_is_wrong),
    Erratum(
        key="sinusoidal-index-range", sources=("002",),
        section="PE: Positional Encoding Layer",
        says=r"$x'_{i,j} = \sin(i/10000^{j/D})$ ($j$ even), $\cos(i/10000^{(j-1)/D})$ (odd), "
             r"for $i = 1..T$, $j = 1..D$",
        correct=r"the formula holds with positions and columns counted from 0 "
                r"($p = 0..n-1$, $j = 0..D-1$); with 1-based $j$ the sine/cosine pairs are "
                r"shifted by one column",
        chapter=_CH07, stated=1, true=0, check=sinusoidal_start_is_wrong),
    Erratum(
        key="dropout-scaling", sources=("002",), kind="omission",
        section="Step 5, dropout",
        says=r"$\bm{X}^\text{dropout} = \bm{X} \odot \bm{M}$, with no rescaling anywhere",
        correct=r"$\bm{X} \odot \bm{M} / (1-p)$ during training, identity at inference "
                r"(inverted dropout, as `torch.nn.Dropout`)",
        chapter=_CH07, stated=lambda X, M, p: X * M, true=lambda X, M, p: X * M / (1 - p),
        check=dropout_is_wrong),
    Erratum(
        key="004-infinite-reference-window", sources=("004",),
        section='"Attention" (reference window)',
        says="“Attention mechanism has an infinite reference window” (RNNs a short one, LSTMs "
             "a longer one)",
        correct="a Transformer attends over its whole context, but the context is finite: "
                "$n_\\text{ctx}$ positions (512 for GPT, 1,024 for GPT-2, 2,048 for GPT-3). The "
                "position table has $n_\\text{ctx}$ rows, and a longer input is not read at all",
        chapter=_CH08, stated=lambda n_ctx: math.inf, true=lambda n_ctx: n_ctx,
        check=reference_window_is_wrong),
    Erratum(
        key="slide-attention-rounding", sources=("004",),
        section='Q/K/V example, "Sum weighted values to get Output 1"',
        says=r"$\operatorname{softmax}([2, 4, 4]) = [0.0, 0.5, 0.5]$ and Output 1 $= [2.0, 7.0, 1.5]$",
        correct=r"$[0.0634, 0.4683, 0.4683]$ (to one decimal $[0.1, 0.5, 0.5]$) and Output 1 "
                r"$= [1.9366, 6.6831, 1.5951]$",
        chapter=_CH08, stated=(ex.SLIDE_SOFTMAX_1, ex.SLIDE_OUTPUT_1),
        true=(np.array([0.0634, 0.4683, 0.4683]), np.array([1.9366, 6.6831, 1.5951])),
        check=attention_numbers_are_wrong),
    Erratum(
        key="slide-attention-no-scaling", sources=("004",), kind="omission",
        section="Q/K/V example, attention scores",
        says=r"scores are the plain dot products $\bm{q}_1 \cdot \bm{k}_j = [2, 4, 4]$",
        correct=r"the Transformer divides by $\sqrt{D} = \sqrt{3}$: weights "
                r"$[0.1361, 0.4319, 0.4319]$, Output 1 $= [1.8639, 6.3194, 1.7042]$",
        chapter=_CH08, stated=1.0, true=1 / math.sqrt(3), check=attention_scale_is_wrong),
    Erratum(
        key="mask-multiplicative", sources=("000", "001"),
        section="Autoregressive Attention Mask; Masked Scaled Dot-Product Attention",
        says=r"$\operatorname{Softmax}(\text{Mask} \odot \bm{Q}\bm{K}^\top / \sqrt{D})$ with mask "
             r"entries $1$ (allowed) and $-\infty$ (blocked), $\text{Mask}_\text{BD} = 1$",
        correct=r"add the mask: $\operatorname{Softmax}(\bm{Q}\bm{K}^\top/\sqrt{D} + \text{Mask})$ "
                r"with entries $0$ and $-\infty$ ($\text{Mask}_\text{BD} = 0$); multiplying turns "
                r"a negative blocked score into $+\infty$ and a zero one into NaN",
        chapter=_CH09, stated=_multiply, true=_add, check=apply_mask_is_wrong),
    Erratum(
        key="mask-one-minus-m", sources=("002",),
        section="Step 7.3, scaled dot-product attention and masking",
        says=r"$\bm{M}^{-\infty} \in \{0, -\infty\}^{T \times T} = 1 - \bm{M}$ for the 0/1 "
             r"lower-triangular $\bm{M}$",
        correct=r"$1 - \bm{M}$ has entries $0$ and $1$ and blocks nothing; the mask is "
                r"$\bm{M}^{-\infty}_{ij} = 0$ if $M_{ij} = 1$ and $-\infty$ if $M_{ij} = 0$ "
                r"(`masked_fill`), not $(1-\bm{M})\cdot(-\infty)$ either, since $0 \cdot \infty$ is NaN",
        chapter=_CH09, stated=lambda M: 1 - M, true=_m_inf, check=mask_from_m_is_wrong),
    Erratum(
        key="slide-masked-softmax-inf", sources=("004",),
        section='"Decoder, Masked Attention", softmax of the masked scores',
        says=r"the matrix inside $\operatorname{Softmax}(\cdot)$ holds $\text{inf}$ above the diagonal",
        correct=r"$-\infty$ (as in the slide's own look-ahead mask); with $+\infty$ the softmax is "
                r"NaN ($\infty/\infty$)",
        chapter=_CH09, stated=SLIDE_SOFTMAX_ARGUMENT, true=ex.SLIDE_MASKED_SCORES,
        check=softmax_argument_is_wrong),
    Erratum(
        key="slide-masked-softmax-digits", sources=("004",),
        section='"Decoder, Masked Attention", softmax result',
        says=r"rows $[0.37, 0.62]$ and $[0.26, 0.31, 0.43]$",
        correct=r"$[0.3775, 0.6225]$ and $[0.2584, 0.3156, 0.4260]$: to two decimals "
                r"$[0.38, 0.62]$ and $[0.26, 0.32, 0.43]$; two entries were cut, not rounded. "
                r"(That rows 2 and 4 sum to 0.99 proves nothing: row 4, "
                r"$[0.2144, 0.2619, 0.2619, 0.2619]$, is rounded correctly and sums to 0.99, "
                r"while row 3 has a cut entry and sums to 1.00.)",
        chapter=_CH09, stated=ex.SLIDE_MASKED_SOFTMAX,
        true=np.array([[1, 0, 0, 0], [0.38, 0.62, 0, 0], [0.26, 0.32, 0.43, 0],
                       [0.21, 0.26, 0.26, 0.26]]),
        check=two_decimals_are_wrong),
]
