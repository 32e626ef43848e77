"""Errata found by the audit ledger (appendix B) of source(s) 002a: records not registered before.

Source 002 ("Notations"), lines 1-870: the attention notation (which matrices the head
projections act on) and the training phase (the chain rule).  Each check recomputes the truth:
``torch.nn.MultiheadAttention``, ``transformers``' GPT-2 from a small random configuration, an
exhaustive sum over a random joint distribution.
"""

from __future__ import annotations

import itertools
from typing import Callable

import numpy as np

from .. import formulas as fm
from .record import Erratum

__all__ = [
    "ERRATA",
    "head_inputs_are_wrong",
    "query_input_is_wrong",
    "chain_rule_orders_are_wrong",
    "PROJECTED_INPUTS",
    "BLOCK_INPUTS",
]

_CH10, _CH12, _CH17 = (
    "chapters/10_multi_head",
    "chapters/12_layernorm_residual",
    "chapters/17_training_objective",
)

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


def chain_rule_orders_are_wrong(orders: tuple[tuple[int, ...], ...]) -> bool:
    """Are ``orders`` exactly the orders of 3 tokens in which the chain rule
    ``P(x) = prod_k P(x_{o_k} | x_{o_1}, ..., x_{o_{k-1}})`` reproduces a joint distribution?

    The joint is random (a Dirichlet draw over all ``4^3`` sequences, no structure); every
    conditional is a ratio of marginals, summed exhaustively from the table.
    """
    V, n = 4, 3
    joint = np.random.default_rng(11).dirichlet(np.ones(V**n)).reshape((V,) * n)

    def marginal(x: tuple[int, ...], kept: tuple[int, ...]) -> float:
        other = tuple(a for a in range(n) if a not in kept)
        return float(joint.sum(axis=other)[tuple(x[a] for a in sorted(kept))])

    def factorizes(order: tuple[int, ...]) -> bool:
        for x in itertools.product(range(V), repeat=n):
            prod = 1.0
            for k in range(n):
                prod *= (
                    marginal(x, order[: k + 1]) / marginal(x, order[:k])
                    if k
                    else marginal(x, order[:1])
                )
            if not np.isclose(prod, joint[x], rtol=1e-12, atol=0.0):
                return False
        return True

    working = {o for o in itertools.permutations(range(n)) if factorizes(o)}
    return {tuple(o) for o in orders} != working


ERRATA: list[Erratum] = [
    Erratum(
        key="002-multihead-double-projection",
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
        key="002-chain-rule-order",
        sources=("002",),
        section="The Training Phase, autoregressive self-supervised learning paradigm",
        says=r"The joint probability factorizes as $\prod_{t=1}^T \mathbb{P}(x_t \mid x_1, "
        r"\ldots, x_{t-1})$, and \"we can do this because natural language\" is "
        r"inherently ordered.",
        correct="The chain rule holds for every joint distribution and in every order of the "
        "variables (right to left, or any permutation); it needs no property of "
        "language. The left-to-right order is a modeling choice, convenient for "
        "generating text, not the condition that makes the factorization valid.",
        chapter=_CH17,
        stated=((0, 1, 2),),
        true=tuple(itertools.permutations(range(3))),
        check=chain_rule_orders_are_wrong,
    ),
]
