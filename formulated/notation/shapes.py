"""Shapes (chapter 5): a shape tracer through one GPT-2 block, in the letters of the
book's notation table (:mod:`formulated.notation.symbols`).

* :func:`trace_gpt_block` -- runs a batch of token ids through the embeddings, one GPT-2 block
  and the output layer with the NumPy formulas of :mod:`formulated.formulas`, recording every
  intermediate tensor with its shape written in letters (``B x n x H``) and in numbers.
* :func:`gpt2_reference` -- the same computation by Hugging Face ``transformers``' ``GPT2`` with
  the same weights (an independent implementation), for the check.

Shapes are written in the book's letters: ``B`` batch, ``n`` sequence length, ``V`` vocabulary,
``H`` model width, ``A`` heads, ``D = H / A`` width per head, ``F`` feed-forward width, ``L`` layers.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from .. import formulas as f
from .._checks import (
    as_float_array,
    as_token_ids,
    check_positive_int,
    check_shape,
    checked,
)

__all__ = [
    "symbolic_shape",
    "GPTBlockParams",
    "random_block_params",
    "TraceStep",
    "trace_gpt_block",
    "format_trace",
    "gpt2_reference",
]


# ---------------------------------------------------------------------------------------------
# The shape tracer


def symbolic_shape(letters: tuple[str, ...], dims: dict[str, int]) -> tuple[int, ...]:
    """Substitute sizes for letters: ``(("B", "n", "H"), {"B": 2, "n": 5, "H": 8}) -> (2, 5, 8)``.

    A letter may be a product such as ``"3H"`` or ``"A*D"``: a factor of digits, then a name.
    Every size used must be a positive integer.
    """
    if not isinstance(dims, dict):
        raise TypeError(
            f"dims: expected a dict letter -> size, got {type(dims).__name__}"
        )
    out = []
    for letter in letters:
        if not isinstance(letter, str):
            raise TypeError(
                f"letters: expected strings such as 'n' or 'A*D', got {letter!r}"
            )
        size = 1
        for part in letter.split("*"):
            digits = part[: len(part) - len(part.lstrip("0123456789"))]
            name = part[len(digits) :]
            if not name:
                raise ValueError(
                    f"letters: expected a product of names such as '3H' or 'A*D', "
                    f"got {letter!r} (in {letters})"
                )
            if name not in dims:
                raise KeyError(
                    f"dims: expected a size for {name!r} (in {letters}), "
                    f"got sizes for {sorted(dims)}"
                )
            size *= (int(digits) if digits else 1) * check_positive_int(
                dims[name], f"dims[{name!r}]"
            )
        out.append(size)
    return tuple(out)


@dataclass
class GPTBlockParams:
    """The weights of a one-block GPT-2: embeddings, one pre-LN block, the final LayerNorm.

    Shapes: ``W_e (V, H)``, ``W_p (n_max, H)``, ``W_q, W_k, W_v (A, H, D)``, ``W_o (A*D, H)``,
    ``W1 (H, F)``, ``b1 (F,)``, ``W2 (F, H)``, ``b2 (H,)``, every ``gamma``/``beta`` ``(H,)``.
    The output layer reuses ``W_e`` (``logits = X W_e^T``), as GPT and GPT-2 do.
    """

    W_e: np.ndarray
    W_p: np.ndarray
    ln1_gamma: np.ndarray
    ln1_beta: np.ndarray
    W_q: np.ndarray
    W_k: np.ndarray
    W_v: np.ndarray
    W_o: np.ndarray
    ln2_gamma: np.ndarray
    ln2_beta: np.ndarray
    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray
    lnf_gamma: np.ndarray
    lnf_beta: np.ndarray

    def __post_init__(self) -> None:
        self.check("")

    def check(self, prefix: str = "") -> None:
        """Check every field's rank, shape and finiteness, converting it to a float array.

        The sizes come from ``W_e`` (V, H), ``W_p`` (n_max), ``W_q`` (A, D) and ``W1`` (F); every
        other field must agree.  ``prefix`` (``"params."``) names the argument when a function
        re-checks a ``GPTBlockParams`` that may have been modified after it was built.
        """
        ranks = {
            "W_e": 2,
            "W_p": 2,
            "W_q": 3,
            "W_k": 3,
            "W_v": 3,
            "W_o": 2,
            "W1": 2,
            "b1": 1,
            "W2": 2,
            "b2": 1,
        }
        arrs: dict[str, np.ndarray] = {}
        for fld in fields(self):
            name = fld.name
            arr = as_float_array(
                getattr(self, name), prefix + name, ndim=ranks.get(name, 1)
            )
            arrs[name] = arr
        for name in (
            "W_e",
            "W_p",
            "W_q",
            "W1",
        ):  # the arrays that define V, n_max, H, A, D, F
            if 0 in arrs[name].shape:
                raise ValueError(
                    f"{prefix}{name}: expected no dimension of size 0, got shape "
                    f"{arrs[name].shape}"
                )
        H = arrs["W_e"].shape[1]
        A, _, D = arrs["W_q"].shape
        F = arrs["W1"].shape[1]
        size = {"H": H, "A": A, "D": D, "F": F, "A*D": A * D}
        expected = {
            "W_q": ("A", "H", "D"),
            "W_k": ("A", "H", "D"),
            "W_v": ("A", "H", "D"),
            "W_o": ("A*D", "H"),
            "W1": ("H", "F"),
            "b1": ("F",),
            "W2": ("F", "H"),
            "b2": ("H",),
        }
        for name in (
            "ln1_gamma",
            "ln1_beta",
            "ln2_gamma",
            "ln2_beta",
            "lnf_gamma",
            "lnf_beta",
        ):
            expected[name] = ("H",)
        check_shape(arrs["W_p"], prefix + "W_p", (None, H))
        for name, letters in expected.items():
            want = tuple(size[k] for k in letters)
            if arrs[name].shape != want:  # the letters say which size disagrees
                raise ValueError(
                    f"{prefix}{name}: expected shape ({', '.join(letters)}) = {want} "
                    f"(H from W_e, A and D from W_q, F from W1), "
                    f"got {arrs[name].shape}"
                )
        for name, arr in arrs.items():
            object.__setattr__(self, name, arr)

    @property
    def dims(self) -> dict[str, int]:
        """The sizes ``V, H, A, D, F`` read off the weights (``n_max``: rows of ``W_p``)."""
        A, H, D = self.W_q.shape
        return {
            "V": self.W_e.shape[0],
            "H": H,
            "A": A,
            "D": D,
            "F": self.W1.shape[1],
            "n_max": self.W_p.shape[0],
        }


def _check_trace_args(ids: Any, params: Any) -> np.ndarray:
    """The checks common to :func:`trace_gpt_block` and :func:`gpt2_reference`: the params
    (again: the dataclass is mutable) and ids ``(B, n)`` with ``1 <= n <= n_max``."""
    if not isinstance(params, GPTBlockParams):
        raise TypeError(f"params: expected GPTBlockParams, got {type(params).__name__}")
    params.check("params.")
    dims = params.dims
    ids = as_token_ids(ids, "ids", dims["V"], ndim=2)
    B, n = ids.shape
    if B == 0 or n == 0:
        raise ValueError(
            f"ids: expected at least one sequence of at least one token, "
            f"got shape {ids.shape}"
        )
    if n > dims["n_max"]:
        raise ValueError(
            f"ids: expected sequences of at most n_max={dims['n_max']} tokens "
            f"(rows of W_p), got n={n}"
        )
    return ids


def random_block_params(
    V: int, n_max: int, H: int, A: int, F: int | None = None, *, seed: int = 0
) -> GPTBlockParams:
    """Random weights (``N(0, 0.02^2)`` like GPT-2's initialization; LayerNorms perturbed around
    ``gamma = 1, beta = 0`` so that they matter in a check).  ``F`` defaults to ``4 H``; ``A``
    must divide ``H`` (``D = H / A``)."""
    V, n_max, H, A = (
        check_positive_int(v, k)
        for v, k in ((V, "V"), (n_max, "n_max"), (H, "H"), (A, "A"))
    )
    F = 4 * H if F is None else check_positive_int(F, "F")
    if H % A:
        raise ValueError(f"A: expected a number of heads that divides H={H}, got {A}")
    D = H // A
    rng = np.random.default_rng(seed)

    def w(*shape: int, scale: float = 0.02) -> np.ndarray:
        return rng.normal(0.0, scale, size=shape)

    return GPTBlockParams(
        W_e=w(V, H),
        W_p=w(n_max, H, scale=0.01),
        ln1_gamma=1 + w(H, scale=0.1),
        ln1_beta=w(H, scale=0.1),
        W_q=w(A, H, D, scale=0.3),
        W_k=w(A, H, D, scale=0.3),
        W_v=w(A, H, D),
        W_o=w(A * D, H),
        ln2_gamma=1 + w(H, scale=0.1),
        ln2_beta=w(H, scale=0.1),
        W1=w(H, F),
        b1=w(F),
        W2=w(F, H),
        b2=w(H),
        lnf_gamma=1 + w(H, scale=0.1),
        lnf_beta=w(H, scale=0.1),
    )


@dataclass(frozen=True)
class TraceStep:
    """One tensor of the trace: its name, its shape in letters (``("B", "n", "H")``) and the
    array itself."""

    name: str
    letters: tuple[str, ...]
    value: np.ndarray

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.value.shape)


def _trace_gpt_block_args(
    ids: Any, params: Any, gelu_approximation: Any
) -> tuple[np.ndarray, GPTBlockParams, str]:
    """The arguments of :func:`trace_gpt_block`: ids ``(B, n)`` and the block's params
    (:func:`_check_trace_args`), and a GELU of ``formulas.GELU_APPROXIMATIONS``."""
    ids = _check_trace_args(ids, params)
    if gelu_approximation not in f.GELU_APPROXIMATIONS:
        raise ValueError(
            f"gelu_approximation: expected one of "
            f"{f.GELU_APPROXIMATIONS}, got {gelu_approximation!r}"
        )
    return ids, params, gelu_approximation


@checked(_trace_gpt_block_args)
def trace_gpt_block(ids, params, gelu_approximation="tanh"):
    """Ids ``(B, n)`` through one GPT-2 block, every tensor traced with its shape.

    Run token ids through embeddings, one GPT-2 block (pre-LN) and the output layer,
    recording every intermediate tensor with its shape in letters.

    The block, in the book's notation (``X`` is ``B x n x H``; every formula acts on
    each sequence of the batch alike):

    ``X' = X + MultiHeadSA(LayerNorm(X), Mask_AR)``,
    ``X1 = X' + FFN_GELU(LayerNorm(X'))``, ``Y = Softmax(LayerNorm(X1) W_e^T)``.

    One line per step: its name, its shape in letters, the formula that computes it.
    Multi-head attention is written out as in "Notations" Steps 7.1-7.4 (project, split
    heads, scores, mask, softmax, weighted sum, merge heads, project), using
    :func:`~formulated.formulas.concat`, :func:`~formulated.formulas.split_heads`,
    :func:`~formulated.formulas.masked_softmax` and
    :func:`~formulated.formulas.merge_heads`.  ``gelu_approximation="tanh"`` is GPT-2's
    GELU.

    Returns the steps in order; ``steps[-1].value`` holds the probabilities
    ``(B, n, V)``.

    Definition: def-05-block.
    Checked by: tests/test_shapes.py::test_trace_equals_gpt2_block
    """
    p, n, steps = params, ids.shape[1], []
    A, H, D = p.W_q.shape

    def rec(name, letters, value):  # record one step, pass its value on
        steps.append(TraceStep(name, tuple(letters.split()), value))
        return value

    rec("ids", "B n", ids)
    onehot = rec("one-hot", "B n V", f.one_hot(ids, len(p.W_e)))
    tok = rec("token embeddings", "B n H", onehot @ p.W_e)
    pos = rec("position embeddings", "n H", p.W_p[:n])
    X = rec("block input", "B n H", tok + pos)  # pos broadcasts over the batch
    Z = rec("LayerNorm 1", "B n H", f.layer_norm(X, p.ln1_gamma, p.ln1_beta))
    # MultiHeadSA(Z, Mask_AR), Steps 7.1-7.4; Concat(W_1 .. W_A): heads side by side
    Q = rec("queries, all heads", "B n A*D", Z @ f.concat(*p.W_q))
    K = rec("keys, all heads", "B n A*D", Z @ f.concat(*p.W_k))
    V = rec("values, all heads", "B n A*D", Z @ f.concat(*p.W_v))
    Qh = rec("queries, split", "B A n D", f.split_heads(Q, A))
    Kh = rec("keys, split", "B A n D", f.split_heads(K, A))
    Vh = rec("values, split", "B A n D", f.split_heads(V, A))
    S = rec("scores", "B A n n", Qh @ np.swapaxes(Kh, -1, -2) / np.sqrt(D))
    M = rec("mask", "n n", f.mask_autoregressive(n))
    P = rec("attention weights", "B A n n", f.masked_softmax(S, M))
    heads = rec("heads", "B A n D", P @ Vh)
    C = rec("heads, concatenated", "B n A*D", f.merge_heads(heads))
    att = rec("attention output", "B n H", C @ p.W_o)
    X1 = rec("after attention + residual", "B n H", X + att)  # X'
    Z2 = rec("LayerNorm 2", "B n H", f.layer_norm(X1, p.ln2_gamma, p.ln2_beta))
    h = rec("FFN hidden (pre-activation)", "B n F", Z2 @ p.W1 + p.b1)
    g = rec("FFN hidden (GELU)", "B n F", f.gelu(h, gelu_approximation))
    ffn = rec("FFN output", "B n H", g @ p.W2 + p.b2)
    X2 = rec("block output", "B n H", X1 + ffn)  # X^(1)
    Zf = rec("final LayerNorm", "B n H", f.layer_norm(X2, p.lnf_gamma, p.lnf_beta))
    logits = rec("logits", "B n V", Zf @ p.W_e.T)
    rec("probabilities", "B n V", f.softmax(logits))  # Y
    return steps


def format_trace(steps: list[TraceStep], dims: dict[str, int] | None = None) -> str:
    """A plain-text table of a trace: name, shape in letters, shape in numbers (checked)."""
    lines = [f"{'tensor':30s} {'shape in letters':22s} shape"]
    for s in steps:
        letters = " × ".join(s.letters)
        if dims is not None and symbolic_shape(s.letters, dims) != s.shape:
            raise ValueError(
                f"steps: {s.name!r} has shape {s.shape}, expected "
                f"{symbolic_shape(s.letters, dims)} = ({letters})"
            )
        lines.append(f"{s.name:30s} {letters:22s} {s.shape}")
    return "\n".join(lines)


def gpt2_reference(ids: Any, params: GPTBlockParams) -> dict[str, np.ndarray]:
    """The same forward pass computed by ``transformers``' GPT-2 (one layer, our weights copied).

    GPT-2's attention and projection layers have biases, which the book's boxes do not; they are
    set to zero.  Dropout is off (eval mode).  Returns the intermediate tensors that forward
    hooks capture -- ``"ln_1"``, ``"c_attn"`` (queries, keys, values side by side,
    ``B x n x 3H``), ``"attn_weights"``, ``"attn"``, ``"ln_2"``, ``"c_fc"``, ``"act"``,
    ``"mlp"``, ``"block"``, ``"ln_f"``, ``"logits"`` -- as float64 NumPy arrays.
    """
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    ids = _check_trace_args(ids, params)
    dims = params.dims
    A, H, D = params.W_q.shape
    if A * D != H:
        raise ValueError(f"params: GPT-2 needs A*D == H, got A={A}, D={D}, H={H}")
    cfg = GPT2Config(
        vocab_size=dims["V"],
        n_positions=dims["n_max"],
        n_embd=H,
        n_layer=1,
        n_head=A,
        n_inner=dims["F"],
        activation_function="gelu_new",
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        layer_norm_epsilon=1e-5,
        bos_token_id=None,
        eos_token_id=None,
    )
    cfg._attn_implementation = "eager"  # returns the attention weights
    torch.manual_seed(0)
    model = GPT2LMHeadModel(cfg).double().eval()
    blk = model.transformer.h[0]

    def t(a: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(np.ascontiguousarray(a, dtype=np.float64))

    def side(W: np.ndarray) -> np.ndarray:
        return W.transpose(1, 0, 2).reshape(H, A * D)

    with torch.no_grad():
        model.transformer.wte.weight.copy_(t(params.W_e))
        model.transformer.wpe.weight.copy_(t(params.W_p))
        blk.ln_1.weight.copy_(t(params.ln1_gamma))
        blk.ln_1.bias.copy_(t(params.ln1_beta))
        # Conv1D computes x @ weight + bias with weight (in, out): q | k | v side by side.
        blk.attn.c_attn.weight.copy_(
            t(
                np.concatenate(
                    [side(params.W_q), side(params.W_k), side(params.W_v)], axis=1
                )
            )
        )
        blk.attn.c_attn.bias.zero_()
        blk.attn.c_proj.weight.copy_(t(params.W_o))
        blk.attn.c_proj.bias.zero_()
        blk.ln_2.weight.copy_(t(params.ln2_gamma))
        blk.ln_2.bias.copy_(t(params.ln2_beta))
        blk.mlp.c_fc.weight.copy_(t(params.W1))
        blk.mlp.c_fc.bias.copy_(t(params.b1))
        blk.mlp.c_proj.weight.copy_(t(params.W2))
        blk.mlp.c_proj.bias.copy_(t(params.b2))
        model.transformer.ln_f.weight.copy_(t(params.lnf_gamma))
        model.transformer.ln_f.bias.copy_(t(params.lnf_beta))

    captured: dict[str, np.ndarray] = {}

    def hook(name: str):
        def fn(_module, _inputs, output):
            out = output[0] if isinstance(output, tuple) else output
            captured[name] = out.detach().numpy().copy()

        return fn

    modules = {
        "ln_1": blk.ln_1,
        "c_attn": blk.attn.c_attn,
        "attn": blk.attn,
        "ln_2": blk.ln_2,
        "c_fc": blk.mlp.c_fc,
        "act": blk.mlp.act,
        "mlp": blk.mlp,
        "block": blk,
        "ln_f": model.transformer.ln_f,
    }
    handles = [m.register_forward_hook(hook(k)) for k, m in modules.items()]
    try:
        with torch.no_grad():
            out = model(torch.from_numpy(ids), output_attentions=True)
    finally:
        for hnd in handles:
            hnd.remove()
    captured["attn_weights"] = out.attentions[0].numpy().copy()
    captured["logits"] = out.logits.numpy().copy()
    return captured
