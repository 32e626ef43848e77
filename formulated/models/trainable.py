"""The trainable GPT of chapter 18, in PyTorch: the same boxes as the NumPy model, one module each.

Data flow for one sequence of token ids ``x`` (length ``n <= n_ctx``), in the book's notation::

    X   = W_e[x] + W_p[:n]                         token embedding + learned positions   (n, H)
    for l = 1..L (pre-LN block):
        X = X + MHA(LayerNorm(X))                  masked multi-head self-attention      (n, H)
        X = X + FFN(LayerNorm(X))                  GELU feed-forward network             (n, H)
    Z   = LayerNorm_f(X)                           final LayerNorm                       (n, H)
    logits = Z W_e^T                               tied de-embedding                     (n, V)

A batch adds a leading ``B`` axis everywhere: ``(B, n) -> (B, n, V)``.  Attention runs through
:func:`torch.nn.functional.scaled_dot_product_attention` with ``is_causal=True`` (the
autoregressive mask of chapter 9, applied inside a fused kernel), so the same module trains fast on
CPU and GPU.  :func:`to_numpy_params` hands the trained weights to the NumPy ``gpt2`` of
:mod:`formulated.models`, and ``tests/test_train.py`` checks that both compute the same
probabilities: the model we train *is* the formula we read.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from .._checks import (
    IGNORE_INDEX,
    check_int,
    check_real_type,
    check_token_tensor,
    checked,
)

__all__ = [
    "GPTConfig",
    "GPT",
    "to_numpy_params",
    "count_parameters",
    "flops_per_token",
    "shape_distribution",
    "run_eagerly",
]


@dataclass
class GPTConfig:
    """Shape of the model, in the book's notation.

    V: vocabulary size; n_ctx: longest context (rows of ``W_p``); L: layers; A: heads;
    H: model width; F: FFN hidden width (``None`` = ``4 H``); dropout: probability used while
    training (0 = none); eps: LayerNorm epsilon; gelu: ``"erf"`` (the exact ``x Φ(x)``, also the
    faster one on CPUs) or ``"tanh"`` (GPT-2's approximation).
    """

    V: int = 65
    n_ctx: int = 256
    L: int = 4
    A: int = 4
    H: int = 128
    F: int | None = None
    dropout: float = 0.0
    eps: float = 1e-5
    gelu: str = "erf"

    def __post_init__(self) -> None:
        # Values are stored as plain Python numbers: a NumPy scalar would not survive a
        # weights-only checkpoint load.
        for name in ("V", "n_ctx", "L", "A", "H"):
            setattr(self, name, check_int(getattr(self, name), name))
        if self.F is None:
            self.F = 4 * self.H
        self.F = check_int(self.F, "F", what="a positive integer or None")
        if self.H % self.A:
            raise ValueError(
                f"H: expected a multiple of A={self.A} (D = H/A per head), "
                f"got H={self.H}"
            )
        self.dropout = check_real_type(
            self.dropout, "dropout", "a probability in [0, 1)"
        )
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(
                f"dropout: expected a probability in [0, 1), got {self.dropout!r}"
            )
        # eps > 0: with eps = 0 a constant row of X gives 0/0 in LayerNorm; eps < 0 or NaN makes
        # every logit NaN.
        self.eps = check_real_type(self.eps, "eps", "a finite number > 0")
        if not (self.eps > 0 and math.isfinite(self.eps)):
            raise ValueError(
                f"eps: expected a finite number > 0 (LayerNorm's epsilon), "
                f"got {self.eps!r}"
            )
        if not isinstance(self.gelu, str) or self.gelu not in ("erf", "tanh"):
            raise ValueError(f"gelu: expected 'erf' or 'tanh', got {self.gelu!r}")

    @property
    def D(self) -> int:
        """Width per head, ``D = H / A``."""
        return self.H // self.A

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "GPTConfig":
        if not isinstance(d, dict):
            raise TypeError(
                f"config: expected a dict of GPTConfig fields, got {type(d).__name__}"
            )
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(
                f"config: unknown field(s) {sorted(unknown)}; expected {sorted(known)}"
            )
        return cls(**d)


class CausalSelfAttention(nn.Module):
    """Masked multi-head self-attention with biases, ``(B, n, H) -> (B, n, H)``.

    Head ``i``: ``softmax(Q_i K_i^T / sqrt(D) + M) V_i`` with ``Q_i = X W_i^Q + b_i^Q``
    (``K_i``, ``V_i`` alike) and the autoregressive mask ``M``; then
    ``Concat(head_1..head_A) W^O + b^O``.  The ``3A`` projections are one fused
    ``H -> 3H`` linear map (GPT-2's layout); ``scaled_dot_product_attention`` with
    ``is_causal=True`` applies the mask and the softmax in one kernel, without storing
    the ``n x n`` matrix.  It mirrors NumPy's ``multi_head_self_attention_biased``.

    Definition: def-18-trainable.
    Checked by:
    tests/test_train.py::test_attention_module_matches_torch_multihead_attention
    """

    def __init__(self, cfg):
        super().__init__()
        self.A, self.D, self.dropout = cfg.A, cfg.D, cfg.dropout
        self.qkv = nn.Linear(cfg.H, 3 * cfg.H)  # [W^Q | W^K | W^V] of all A heads
        self.proj = nn.Linear(cfg.H, cfg.H)  # W^O, b^O
        self.resid_drop = nn.Dropout(cfg.dropout)

    def forward(self, X):
        B, n, H = X.shape
        Q, K, V = self.qkv(X).split(H, dim=2)  # 3 x (B, n, H)
        Q, K, V = (
            T.view(B, n, self.A, self.D).transpose(1, 2)  # 3 x (B, A, n, D)
            for T in (Q, K, V)
        )
        p_drop = self.dropout if self.training else 0.0
        heads = F.scaled_dot_product_attention(
            Q, K, V, is_causal=True, dropout_p=p_drop
        )  # (B, A, n, D)
        Y = heads.transpose(1, 2).contiguous().view(B, n, H)  # Concat, (B, n, H)
        return self.resid_drop(self.proj(Y))  # Y W^O + b^O


class FFN(nn.Module):
    """Feed-forward ``GELU(X W_1 + b_1) W_2 + b_2``: ``(B, n, H) -> (B, n, H)``.

    A position-wise network, through ``(B, n, F)``.

    Definition: def-18-trainable.
    Checked by: tests/test_train.py::test_torch_gpt_equals_numpy_gpt2
    """

    def __init__(self, cfg):
        super().__init__()
        self.fc = nn.Linear(cfg.H, cfg.F)  # W_1, b_1
        self.proj = nn.Linear(cfg.F, cfg.H)  # W_2, b_2
        self.approximate = "tanh" if cfg.gelu == "tanh" else "none"  # PyTorch's names
        self.drop = nn.Dropout(cfg.dropout)

    def forward(self, X):
        return self.drop(self.proj(F.gelu(self.fc(X), approximate=self.approximate)))


class Block(nn.Module):
    """One pre-LN transformer layer, ``(B, n, H) -> (B, n, H)``.

    ``X' = X + MHA(LayerNorm_1(X))``, then ``X' + FFN(LayerNorm_2(X'))``.

    Definition: def-18-trainable.
    Checked by: tests/test_train.py::test_torch_gpt_equals_numpy_gpt2
    """

    def __init__(self, cfg):
        super().__init__()
        self.ln_1 = nn.LayerNorm(cfg.H, eps=cfg.eps)
        self.attn = CausalSelfAttention(cfg)
        self.ln_2 = nn.LayerNorm(cfg.H, eps=cfg.eps)
        self.ffn = FFN(cfg)

    def forward(self, X):
        X = X + self.attn(self.ln_1(X))
        return X + self.ffn(self.ln_2(X))


class GPT(nn.Module):
    """GPT-2-style decoder: ``(B, n)`` token ids ``-> (B, n, V)`` logits.

    Parameters follow GPT-2's initialization: every weight ``N(0, 0.02^2)``, biases 0, and the two
    projections that write into the residual stream scaled by ``1/sqrt(2L)`` so that the
    variance of ``X`` does not grow with depth.
    """

    def __init__(self, cfg: GPTConfig):
        if not isinstance(cfg, GPTConfig):
            raise TypeError(f"cfg: expected a GPTConfig, got {type(cfg).__name__}")
        super().__init__()
        self.cfg = cfg
        self.W_e = nn.Embedding(cfg.V, cfg.H)  # token embedding, also the de-embedding
        self.W_p = nn.Embedding(cfg.n_ctx, cfg.H)  # learned positions
        self.drop = nn.Dropout(cfg.dropout)
        self.blocks = nn.ModuleList([Block(cfg) for _ in range(cfg.L)])
        self.ln_f = nn.LayerNorm(cfg.H, eps=cfg.eps)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        for name, p in self.named_parameters():
            if name.endswith("bias"):
                nn.init.zeros_(p)
            elif ".ln_" in name or name.startswith("ln_"):
                nn.init.ones_(p)
            elif name.endswith("proj.weight"):
                nn.init.normal_(p, 0.0, 0.02 / math.sqrt(2 * self.cfg.L))
            else:
                nn.init.normal_(p, 0.0, 0.02)

    def forward(self, idx, targets=None):
        """``idx``: (B, n) ids in ``0 .. V-1``; returns ``(logits (B, n, V), loss)``.

        ``loss``: ``None`` without ``targets``; with them (the shape of ``idx``,
        ``-100`` = no target), the mean cross-entropy of def-18-batch-loss,
        ``-(1/Bn) sum log p(target)``.  ``_checked_ids`` checks the arguments.

        Definition: def-18-trainable.
        Checked by: tests/test_train.py::test_torch_gpt_equals_numpy_gpt2
        """
        idx = self._checked_ids(idx, targets)
        n = idx.shape[1]
        X = self.drop(self.W_e(idx) + self.W_p(torch.arange(n, device=idx.device)))
        for block in self.blocks:  # L pre-LN layers, (B, n, H)
            X = block(X)
        logits = self.ln_f(X) @ self.W_e.weight.T  # tied de-embedding, (B, n, V)
        loss = None
        if targets is not None:
            loss = F.cross_entropy(
                logits.float().view(-1, logits.size(-1)),
                targets.reshape(-1).long(),
                ignore_index=IGNORE_INDEX,
            )
        return logits, loss

    def _checked_ids(self, idx: Any, targets: Any) -> torch.Tensor:
        """The checks of :meth:`forward`: ``idx`` a ``(B, n)`` integer tensor with
        ``n <= n_ctx``, ``targets`` ``None`` or of the same shape; ids in ``0 .. V-1``
        (targets also ``-100``).  Returns ``idx`` as int64 or int32 (what ``nn.Embedding``
        takes).

        The ranges of the ids are checked with one min/max reduction per tensor, on CPU tensors
        and in eval mode; a training step on a GPU skips it, since reading the result back would
        stall the device every step (the loop's batches come from the tokenizer, in range by
        construction), and so does a compiled forward.
        """
        V = self.cfg.V
        on_cpu = not isinstance(idx, torch.Tensor) or idx.device.type == "cpu"
        values = (on_cpu or not self.training) and not torch.compiler.is_compiling()
        check_token_tensor(idx, "idx", V, values=values)
        if idx.dim() != 2:
            raise ValueError(
                f"idx: expected a (B, n) tensor of token ids, got shape "
                f"{tuple(idx.shape)}"
            )
        B, n = idx.shape
        if n > self.cfg.n_ctx:
            raise ValueError(
                f"idx: expected at most n_ctx={self.cfg.n_ctx} positions, got {n}"
            )
        if idx.dtype not in (
            torch.int64,
            torch.int32,
        ):  # nn.Embedding takes only these two
            idx = idx.long()
        if targets is not None:
            check_token_tensor(targets, "targets", V, values=False)
            if targets.shape != idx.shape:
                raise ValueError(
                    f"targets: expected the shape of idx, (B, n) = {(B, n)}, got "
                    f"{tuple(targets.shape)}"
                )
            if targets.numel() == 0:
                raise ValueError(
                    f"targets: expected at least one target (the mean loss of "
                    f"none is 0/0), got shape {tuple(targets.shape)}"
                )
            check_token_tensor(targets, "targets", V, values=values, ignore_index=True)
        return idx

    # -- sampling (chapter 18): the model continues a text -------------------------------------

    @torch.no_grad()
    def next_token_probs(
        self,
        tokenizer: Any,
        prompt: str,
        temperature: float = 1.0,
        top_k: int | None = None,
    ) -> torch.Tensor:
        """The distribution of the character after ``prompt`` (its last ``n_ctx`` characters),
        shaped by temperature and top-k (:func:`shape_distribution`): ``(V,)`` on the CPU."""
        _check_sampling_args(self, tokenizer, prompt, temperature, top_k)
        ids = tokenizer.encode(prompt)[-self.cfg.n_ctx :]
        device = next(self.parameters()).device
        was_training = self.training
        self.eval()
        with run_eagerly(self):
            logits, _ = self(torch.tensor([ids], dtype=torch.long, device=device))
        self.train(was_training)
        return shape_distribution(logits[0, -1], temperature, top_k)

    @torch.no_grad()
    def sample(
        self,
        tokenizer: Any,
        prompt: str = "\n",
        max_new_tokens: int = 200,
        temperature: float = 1.0,
        top_k: int | None = None,
        generator: torch.Generator | None = None,
        seed: int | None = 0,
    ) -> str:
        """Continue ``prompt`` by ``max_new_tokens`` characters, one at a time.

        Each step takes the last ``n_ctx`` characters, computes ``p = softmax(logits / T)`` for
        the next one, keeps only the ``top_k`` largest probabilities (renormalized) if asked, and
        draws from ``p``.  ``temperature == 0`` means greedy decoding (argmax).  Sampling uses
        ``generator`` if given, else a fresh one seeded with ``seed``, so the same call gives the
        same text.
        """
        _check_sampling_args(self, tokenizer, prompt, temperature, top_k)
        max_new_tokens = check_int(
            max_new_tokens, "max_new_tokens", 0, "an integer >= 0"
        )
        if generator is not None and not isinstance(generator, torch.Generator):
            raise TypeError(
                f"generator: expected None or a torch.Generator, got "
                f"{type(generator).__name__}"
            )
        if seed is not None:
            seed = check_int(seed, "seed", -(2**63), "None or an integer")
        device = next(self.parameters()).device
        if generator is None:
            generator = torch.Generator(device="cpu")
            generator.manual_seed(0 if seed is None else seed)
        was_training = self.training
        self.eval()
        idx = torch.tensor([tokenizer.encode(prompt)], dtype=torch.long, device=device)
        out: list[int] = []
        with run_eagerly(self):
            for _ in range(max_new_tokens):
                logits, _ = self(idx[:, -self.cfg.n_ctx :])
                p = shape_distribution(logits[0, -1], temperature, top_k)
                if temperature == 0:
                    nxt = int(torch.argmax(p))
                else:
                    nxt = int(torch.multinomial(p, 1, generator=generator))
                out.append(nxt)
                idx = torch.cat([idx, torch.tensor([[nxt]], device=device)], dim=1)
        self.train(was_training)
        return tokenizer.decode(out)


def count_parameters(model: nn.Module) -> int:
    """Number of distinct trainable numbers (the tied ``W_e`` counts once)."""
    if not isinstance(model, nn.Module):
        raise TypeError(
            f"model: expected a torch.nn.Module, got {type(model).__name__}"
        )
    return sum(p.numel() for p in model.parameters())


def flops_per_token(cfg: GPTConfig, n_params: int, n: int | None = None) -> float:
    """Training FLOPs per token, ``6 N + 12 L H n`` (forward + backward; PaLM's appendix B).

    ``6N``: each parameter takes a multiply and an add forward, twice that backward; the second
    term is the attention products ``Q K^T`` and ``P V``, which have no parameters.  This counts
    the full (unmasked) square, as the usual MFU figures do.
    """
    if not isinstance(cfg, GPTConfig):
        raise TypeError(f"cfg: expected a GPTConfig, got {type(cfg).__name__}")
    n_params = check_int(n_params, "n_params")
    n = cfg.n_ctx if n is None else check_int(n, "n")
    return 6.0 * n_params + 12.0 * cfg.L * cfg.H * n


def to_numpy_params(model: GPT) -> Any:
    """Copy a :class:`GPT` into the NumPy GPT-2 container of :mod:`formulated.models` (float64).

    ``models.gpt2_probabilities(x, to_numpy_params(model), gelu=model.cfg.gelu,
    eps=model.cfg.eps)`` then computes the probabilities of ``softmax(model(x))``.  PyTorch's
    ``nn.Linear`` stores ``weight`` as ``(out, in)`` and computes ``x @ weight.T``; the boxes
    multiply row vectors by ``(in, out)`` matrices, hence the transposes.  The fused ``(3H, H)``
    query/key/value weight splits into three ``(H, H)`` blocks, and each of those into ``A``
    heads of ``D`` columns: ``(H, A*D) -> (A, H, D)``.
    """
    from . import params

    if not isinstance(model, GPT):
        raise TypeError(
            f"model: expected a formulated.models.trainable.GPT, got {type(model).__name__}"
        )
    cfg = model.cfg
    A, H, D = cfg.A, cfg.H, cfg.D

    def arr(t: torch.Tensor) -> np.ndarray:
        return t.detach().to("cpu", torch.float64).numpy().copy()

    def heads(W: torch.Tensor) -> np.ndarray:  # (H_out=A*D, H_in) -> (A, H_in, D)
        return arr(W).T.reshape(H, A, D).transpose(1, 0, 2).copy()

    blocks = []
    for b in model.blocks:
        Wq, Wk, Wv = b.attn.qkv.weight.split(H, dim=0)
        bq, bk, bv = b.attn.qkv.bias.split(H, dim=0)
        blocks.append(
            params.Block(
                W_q=heads(Wq),
                W_k=heads(Wk),
                W_v=heads(Wv),
                W_o=arr(b.attn.proj.weight).T.copy(),
                W_1=arr(b.ffn.fc.weight).T.copy(),
                b_1=arr(b.ffn.fc.bias),
                W_2=arr(b.ffn.proj.weight).T.copy(),
                b_2=arr(b.ffn.proj.bias),
                gamma_1=arr(b.ln_1.weight),
                beta_1=arr(b.ln_1.bias),
                gamma_2=arr(b.ln_2.weight),
                beta_2=arr(b.ln_2.bias),
                b_q=arr(bq).reshape(A, D),
                b_k=arr(bk).reshape(A, D),
                b_v=arr(bv).reshape(A, D),
                b_o=arr(b.attn.proj.bias),
            )
        )
    config = params.Config(V=cfg.V, n_ctx=cfg.n_ctx, H=H, A=A, L=cfg.L, F=cfg.F, D=D)
    return params.GPTParams(
        config=config,
        W_e=arr(model.W_e.weight),
        W_p=arr(model.W_p.weight),
        blocks=blocks,
        gamma_f=arr(model.ln_f.weight),
        beta_f=arr(model.ln_f.bias),
    )


# -- sampling helpers (used by GPT.sample / GPT.next_token_probs and the training loop) ---------


def _shape_distribution_args(
    logits: Any, temperature: Any, top_k: Any
) -> tuple[torch.Tensor, float, int | None]:
    """The checks of :func:`shape_distribution`: real logits, at least one, no NaN;
    ``T >= 0`` finite; ``top_k`` ``None`` or an integer >= 1."""
    if (
        not isinstance(logits, torch.Tensor)
        or logits.is_complex()
        or logits.dtype == torch.bool
    ):
        raise TypeError(
            f"logits: expected a real tensor, got "
            f"{getattr(logits, 'dtype', type(logits).__name__)}"
        )
    z = logits.detach().float().cpu().reshape(-1)
    V = z.numel()
    if V == 0:
        raise ValueError("logits: expected at least one logit, got an empty tensor")
    if bool(torch.isnan(z).any()):
        raise ValueError(
            f"logits: expected no NaN, got {int(torch.isnan(z).sum())} "
            f"NaN of {V} (a model with NaN weights?)"
        )
    temperature = check_real_type(temperature, "temperature", "a number >= 0")
    if not temperature >= 0 or not math.isfinite(temperature):
        raise ValueError(f"temperature: expected a number >= 0, got {temperature!r}")
    if top_k is not None:
        top_k = check_int(top_k, "top_k", 1, "None or an integer >= 1")
    return logits, temperature, top_k


@checked(_shape_distribution_args)
def shape_distribution(logits, temperature=1.0, top_k=None):
    """``p = softmax(z / T)`` on the ``top_k`` largest logits: ``(V,) -> (V,)``.

    ``T < 1`` sharpens the distribution, ``T > 1`` flattens it, ``T = 0`` puts all the
    mass on the argmax (greedy decoding); top-k sets every logit below the ``k``-th
    largest to ``-inf``, so the softmax gives it probability 0 and renormalizes the rest
    (nanoGPT's sampler).  The torch twin of the book's NumPy formulas
    :func:`formulated.sampling.sampling_distribution` (chapter 19, which adds top-p):
    computed in float64 on the CPU from the largest logit down (so ``z / T`` stays
    defined as ``T -> 0``), returned as float32.

    Definition: def-18-sampling.
    Checked by: tests/test_sampling.py::test_shape_distribution_matches_transformers
    """
    z = logits.detach().double().cpu().reshape(-1)  # (V,), float64 on the CPU
    if temperature == 0:  # greedy: all on the argmax
        return F.one_hot(torch.argmax(z), z.numel()).float()
    z = (z - z.max()) / temperature  # the same softmax, the largest logit at 0
    if top_k is not None:  # below the k-th largest logit: probability 0
        z[z < torch.topk(z, min(top_k, z.numel())).values[-1]] = -float("inf")
    return torch.softmax(z, dim=-1).float()


def run_eagerly(model: nn.Module) -> Any:
    """A context in which compiled modules run eagerly: evaluation and sampling have other
    shapes than training, and recompiling for them would cost more than it saves."""
    compiled = any(
        getattr(m, "_compiled_call_impl", None) is not None for m in model.modules()
    )
    stance = getattr(getattr(torch, "compiler", None), "set_stance", None)
    if compiled and stance is not None:
        return stance("force_eager")
    return contextlib.nullcontext()


def _check_sampling_args(
    model: GPT, tokenizer: Any, prompt: Any, temperature: Any, top_k: Any
) -> None:
    """The tokenizer fits the model, the prompt is a non-empty string, T and k are valid."""
    if not isinstance(model, GPT):  # GPT.sample(x, ...) called on something else
        raise TypeError(
            f"model: expected a formulated.models.trainable.GPT, got "
            f"{type(model).__name__}"
        )
    V = getattr(tokenizer, "vocab_size", None)
    if not (
        hasattr(tokenizer, "encode") and hasattr(tokenizer, "decode")
    ) or not isinstance(V, int):
        raise TypeError(
            f"tokenizer: expected a CharTokenizer, got {type(tokenizer).__name__}"
        )
    if V != model.cfg.V:
        raise ValueError(
            f"tokenizer: its vocabulary has V={V} tokens but the model's has "
            f"V={model.cfg.V}; expected the tokenizer the model was trained with"
        )
    if not isinstance(prompt, str) or not prompt:
        raise ValueError(f"prompt: expected a non-empty string, got {prompt!r}")
    shape_distribution(
        torch.zeros(2), temperature, top_k
    )  # validates both, before any work
