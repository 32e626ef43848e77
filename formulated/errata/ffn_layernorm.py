"""Errata of chapters 11–12, the second half of the part "The transformer block" (FFN and GELU,
LayerNorm and residuals): sources 000–004.  Their :data:`ERRATA` join those of chapters 08–10 in
:data:`formulated.errata.block.ERRATA`, the part's list.

Each check takes a value (the source's or the corrected one) and recomputes the truth
independently -- ``torch.nn.functional``, ``transformers``' GPT and GPT-2 layers.  The candidate
formulas are the package's own (:mod:`formulated.formulas`).
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable

import numpy as np

from .. import formulas as fm
from .record import Erratum

__all__ = ["ERRATA"]

_CH11, _CH12 = "chapters/11_ffn_gelu", "chapters/12_layernorm_residual"


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

    from .block import causal_mask_torch  # here: block imports this module's ERRATA

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


ERRATA: list[Erratum] = [
    Erratum(
        key="gelu-sigmoid-as-exact",
        sources=("000", "001"),
        section="Feed-Forward GELU Network box (and $\\text{FFN}_\\text{GELU}$ in the GPT and "
        "GPT-2 boxes; in 001 also GPT-3, BERT and RoBERTa)",
        says=r"$\text{GELU}(\bm{X}) = \bm{X} \odot \text{sigmoid}(1.702\bm{X})$, as the "
        "definition of GELU.",
        correct=r"$\text{GELU}(x) = x\,\Phi(x)$; $x\,\sigma(1.702x)$ is an approximation, off by "
        r"up to $0.0203$ (at $|x| \approx 2.27$), and no model of the boxes computes it: "
        r"GPT and GPT-2 use the tanh approximation (off by at most $4.7 \times 10^{-4}$, "
        r"and right for them), BERT and RoBERTa the exact form. (000's BERT box uses "
        r"$\text{FFN}_\text{ReLU}$, a separate erratum.) With the sigmoid form a small "
        r"random model's probabilities move by about $10^{-3}$ (chapter 13).",
        chapter=_CH11,
        stated=_sigmoid_gelu,
        true=_erf_gelu,
        check=gelu_is_wrong,
    ),
    Erratum(
        key="ffn-relu-003",
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
        sources=("000", "001"),
        kind="omission",
        section="Hyperparameters: Epsilon in Layer Normalization",
        says=r"Lists $\epsilon$ without a value.",
        correct=r"GPT and GPT-2 use $\epsilon = 10^{-5}$ (BERT uses $10^{-12}$); the value "
        "changes the output of LayerNorm for rows whose variance is small.",
        chapter=_CH12,
        stated=None,
        true=1e-5,
        check=epsilon_is_wrong,
    ),
    Erratum(
        key="step6-input-step4",
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
]
