"""Errata found by the audit ledger (appendix B) of source(s) 002b: records not registered before.

Source 002 ("Notations"), lines 871 to the end (the training-phase Steps 1–11, the final
LayerNorm, softmax and loss, and the Table of Notations).  Each check recomputes the truth with
``torch`` or ``transformers`` (a small random model, nothing downloaded).
"""

from __future__ import annotations

from .block import bias_claim_is_wrong
from .record import Erratum

__all__ = ["ERRATA", "mask_entries_are_wrong", "target_shift_is_wrong"]

_CH09, _CH10, _CH17 = (
    "chapters/09_masks",
    "chapters/10_multi_head",
    "chapters/17_training_objective",
)


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


def target_shift_is_wrong(shift: int) -> bool:
    """Does pairing the logits at position ``t`` with the token at position ``t + shift`` differ
    from the loss ``transformers``' ``GPT2LMHeadModel`` computes from ``labels=input_ids``?

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


ERRATA: list[Erratum] = [
    Erratum(
        key="002-mask-declared-neg-inf",
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
    Erratum(
        key="002-loss-target-shift",
        sources=("002",),
        kind="omission",
        section="Cross-Entropy Loss Function",
        says=r"$\mathcal{L} = -\frac{1}{\mathcal{B} T}\sum_b \sum_{t=1}^{T} \sum_v "
        r"\mathbf{Y}_{b,t,v} \log \mathbf{P}_{b,t,v}$ with $\mathbf{Y}_{b,t}$ the one-hot "
        r"of \"the true token at position $t$\" and $\mathbf{P}_{b,t}$ the softmax of the "
        r"logits at position $t$; no shift between inputs and targets is mentioned.",
        correct=r"The logits at position $t$ have seen $x_1, \ldots, x_t$ (the causal mask keeps "
        r"the diagonal), so their target is the *next* token: $\mathbf{Y}_{b,t}$ is the "
        r"one-hot of $x_{b,t+1}$, and the sum runs over $t = 1, \ldots, T - 1$ (or the "
        r"window holds $T + 1$ tokens), as `GPT2LMHeadModel` shifts its labels. Paired "
        r"with $x_{b,t}$ itself, the model could copy its input and learn nothing.",
        chapter=_CH17,
        stated=0,
        true=1,
        check=target_shift_is_wrong,
    ),
]
