"""Generation with a key-value cache for the PyTorch GPT of :mod:`formulated.models.trainable`
(chapter 19).

Without a cache, every new token re-runs the model on the whole prefix: step ``t`` costs a
forward pass over ``t`` positions, ``n`` tokens cost ``O(n^2)`` position-passes.  With a cache,
each layer keeps the keys and values of the positions already seen (they never change: the mask
keeps position ``i`` from looking at later ones), and a step runs only the new position, whose
query attends to the cached keys (Definition: def-19-kv-cache)::

    K^(l) <- [K^(l); x_t W_k^(l) + b_k^(l)]     (t, D) per head, appended
    V^(l) <- [V^(l); x_t W_v^(l) + b_v^(l)]
    y_t    = softmax(q_t K^(l)T / sqrt(D)) V^(l)

:func:`forward_cached` is that step (for one or several new positions), :func:`generate` the
loop, :func:`cache_drift` the comparison of cached and uncached probabilities along one
sequence, and :func:`tokens_per_second` the measurement of ``benchmarks/kv_cache.py``.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from .._checks import as_array, as_token_ids, check_int, checked
from ..sampling import sampling_distribution
from .trainable import GPT

__all__ = [
    "KVCache",
    "forward_cached",
    "generate",
    "Generation",
    "cache_drift",
    "tokens_per_second",
]


@dataclass
class KVCache:
    """The keys and values of every layer for the ``t`` positions seen so far.

    ``keys[l]`` and ``values[l]`` are ``(B, A, t, D)``: layer ``l``'s keys/values, one row per
    position, per head.  An empty cache has ``keys == []``.
    """

    keys: list[torch.Tensor] = field(default_factory=list)
    values: list[torch.Tensor] = field(default_factory=list)

    @property
    def length(self) -> int:
        """``t``, the number of positions cached."""
        return int(self.keys[0].shape[2]) if self.keys else 0

    @property
    def numel(self) -> int:
        """Numbers stored: ``2 L B A t D``."""
        return sum(k.numel() + v.numel() for k, v in zip(self.keys, self.values))

    @property
    def nbytes(self) -> int:
        return sum(
            k.numel() * k.element_size() + v.numel() * v.element_size()
            for k, v in zip(self.keys, self.values)
        )


def _check_model(model: Any) -> GPT:
    if not isinstance(model, GPT):
        raise TypeError(
            f"model: expected a formulated.models.trainable.GPT, got "
            f"{type(model).__name__}"
        )
    if model.training and model.cfg.dropout > 0:
        raise ValueError(
            "model: expected eval mode (model.eval()); dropout would make cached "
            "and uncached passes differ at random"
        )
    return model


def _check_cache(cache: KVCache, model: GPT) -> None:
    """Refuse a cache that this model did not write: ``L`` layers of keys and values, each
    ``(B, A, t, D)`` with one ``B`` and ``t``, in the model's dtype and on its device.  Without
    it, a deeper model's cache was silently cut to ``L`` layers, and any other one failed in
    ``torch.cat`` with a size mismatch that named neither the cache nor the model."""
    cfg, w = model.cfg, model.W_e.weight
    L, A, D = cfg.L, cfg.A, cfg.D
    n_k, n_v = len(cache.keys), len(cache.values)
    if n_k != n_v or n_k not in (0, L):
        raise ValueError(
            f"cache: expected keys and values for the model's L={L} layers, "
            f"each (B, A={A}, t, D={D}), got {n_k} keys and {n_v} values"
        )
    first = None
    for l in range(n_k):
        for name, u in (("keys", cache.keys[l]), ("values", cache.values[l])):
            if not isinstance(u, torch.Tensor):
                raise TypeError(
                    f"cache.{name}[{l}]: expected a torch.Tensor, got "
                    f"{type(u).__name__}"
                )
            shape = tuple(u.shape)
            first = shape if first is None else first
            if u.dim() != 4 or shape != (first[0], A, first[2], D) or shape[2] == 0:
                raise ValueError(
                    f"cache: expected a cache of this model, L={L} layers of keys and values "
                    f"(B, A={A}, t, D={D}) with one B and t >= 1, got cache.{name}[{l}] of "
                    f"shape {shape}"
                )
            if u.dtype != w.dtype or u.device != w.device:
                raise ValueError(
                    f"cache: expected tensors of the model's dtype {w.dtype} on "
                    f"{w.device}, got cache.{name}[{l}] {u.dtype} on {u.device}"
                )


def _token_ids(ids: Any, name: str, V: int) -> torch.Tensor:
    """``ids`` (a list, array or tensor) as a 1-D int64 CPU tensor of ids in ``0..V-1``.
    ``torch.as_tensor(ids, dtype=torch.long)`` alone truncated float ids (1.5 -> 1) and left
    an id >= V to fail later, named ``idx``."""
    arr = as_array(ids, name)  # a ragged list is named here, before its size is read
    if arr.size == 0:  # [] is a float array to NumPy: say "none", not "float ids"
        raise ValueError(f"{name}: expected at least one token id, got none")
    return torch.from_numpy(as_token_ids(arr, name, V).reshape(-1))


def _causal_mask(t: int, m: int, device: torch.device) -> torch.Tensor | None:
    """``(m, t + m)`` booleans: new position ``t + i`` sees keys ``0 .. t + i``; ``None`` for one
    new position (it sees everything cached)."""
    if m == 1:
        return None
    j = torch.arange(t + m, device=device)
    i = torch.arange(m, device=device)[:, None] + t
    return j[None, :] <= i


def _forward_cached_args(
    model: Any, idx: Any, cache: Any = None
) -> tuple[GPT, torch.Tensor, KVCache]:
    """The checks of :func:`forward_cached`; ``None`` becomes an empty cache."""
    _check_model(model)
    cache = KVCache() if cache is None else cache
    if not isinstance(cache, KVCache):
        raise TypeError(
            f"cache: expected a KVCache or None, got {type(cache).__name__}"
        )
    _check_cache(cache, model)
    if not isinstance(idx, torch.Tensor) or idx.dim() != 2 or idx.shape[1] == 0:
        raise ValueError(
            f"idx: expected a (B, m) tensor of token ids with m >= 1, got "
            f"{getattr(idx, 'shape', type(idx).__name__)}"
        )
    cfg = model.cfg
    B, m = idx.shape
    t = cache.length
    if cache.keys and cache.keys[0].shape[0] != B:
        raise ValueError(
            f"idx: expected the cache's batch size {cache.keys[0].shape[0]}, got {B}"
        )
    if t + m > cfg.n_ctx:
        raise ValueError(
            f"idx: {t} cached + {m} new positions exceed "
            f"n_ctx={cfg.n_ctx} (the model has no position "
            f"embedding beyond)"
        )
    if (
        idx.dtype not in (torch.int64, torch.int32)
        or int(idx.min()) < 0
        or int(idx.max()) >= cfg.V
    ):
        raise ValueError(
            f"idx: expected integer ids in 0..{cfg.V - 1}, got dtype "
            f"{idx.dtype}, range {idx.min().item()}..{idx.max().item()}"
        )
    return model, idx, cache


@torch.no_grad()
@checked(_forward_cached_args)
def forward_cached(model, idx, cache=None):
    """Run ``m`` new positions through the model, reusing and extending ``cache``.

    ``idx``: ``(B, m)`` ids of positions ``t .. t+m-1`` (``t = cache.length``); returns
    the logits ``(B, m, V)`` — the rows ``model(all ids)[:, t:]`` would give — and the
    cache of all ``t + m`` positions (a new object; ``cache`` is not modified).

    Definition: def-19-kv-cache.
    Checked by: tests/test_kv_cache.py::test_cached_equals_uncached_float64
    """
    cfg = model.cfg
    B, m = idx.shape
    t = cache.length  # positions already cached
    device = model.W_e.weight.device
    pos = torch.arange(t, t + m, device=device)
    X = model.W_e(idx) + model.W_p(pos)
    mask = _causal_mask(t, m, device)
    keys, values = [], []
    for l, blk in enumerate(model.blocks):
        A, D, H = blk.attn.A, blk.attn.D, cfg.H
        q, k, v = blk.attn.qkv(blk.ln_1(X)).split(H, dim=2)
        q, k, v = (
            u.view(B, m, A, D).transpose(1, 2) for u in (q, k, v)
        )  # (B, A, m, D)
        if t:
            k = torch.cat([cache.keys[l], k], dim=2)  # (B, A, t+m, D)
            v = torch.cat([cache.values[l], v], dim=2)
        keys.append(k)
        values.append(v)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        X = X + blk.attn.proj(y.transpose(1, 2).reshape(B, m, H))
        X = X + blk.ffn(blk.ln_2(X))
    logits = model.ln_f(X) @ model.W_e.weight.T
    return logits, KVCache(keys, values)


@dataclass
class Generation:
    """A generated continuation: the new ``ids``, the distribution each was drawn from
    (``probs``, ``(n_new, V)`` float64) and the cache sizes after each step (``cache_lengths``,
    empty without a cache)."""

    ids: list[int]
    probs: torch.Tensor
    cache_lengths: list[int]


@torch.no_grad()
def generate(
    model: GPT,
    prompt: list[int] | torch.Tensor,
    n_new: int,
    *,
    use_cache: bool = True,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    greedy: bool = False,
    seed: int = 0,
) -> Generation:
    """Continue ``prompt`` (token ids) by ``n_new`` tokens, with or without the cache.

    Each step draws from ``sampling_distribution(logits / T, top_k, top_p)`` (float64) with a
    generator seeded by ``seed`` (``greedy``: the argmax).  Without the cache each step runs the
    model on the whole sequence so far, as :meth:`GPT.sample` does; with it, the prompt is run
    once and each step runs one position.  ``len(prompt) + n_new - 1 <= n_ctx`` is required:
    the cache cannot slide (every cached key was computed at its absolute position).
    """
    _check_model(model)
    ids = _token_ids(prompt, "prompt", model.cfg.V)
    n_new = check_int(n_new, "n_new", 0, "an integer >= 0")
    if ids.numel() + n_new - 1 > model.cfg.n_ctx:
        raise ValueError(
            f"n_new: prompt ({ids.numel()}) + n_new ({n_new}) - 1 positions exceed "
            f"n_ctx={model.cfg.n_ctx}"
        )
    device = model.W_e.weight.device
    gen = torch.Generator().manual_seed(check_int(seed, "seed", 0, "an integer >= 0"))
    seq = ids.to(device)[None]
    out, probs, lengths = [], [], []
    cache, feed = None, seq
    for _ in range(n_new):
        if use_cache:
            logits, cache = forward_cached(model, feed, cache)
            lengths.append(cache.length)
        else:
            logits, _ = model(seq)
        z = logits[0, -1].double().cpu().numpy()  # the book's NumPy formulas
        p = torch.from_numpy(sampling_distribution(z, temperature, top_k, top_p))
        nxt = int(p.argmax()) if greedy else int(torch.multinomial(p, 1, generator=gen))
        out.append(nxt)
        probs.append(p)
        feed = torch.tensor([[nxt]], device=device)
        seq = torch.cat([seq, feed], dim=1)
    V = model.cfg.V
    return Generation(
        out,
        torch.stack(probs) if probs else torch.zeros(0, V, dtype=torch.float64),
        lengths,
    )


@torch.no_grad()
def cache_drift(
    model: GPT,
    ids: list[int] | torch.Tensor,
    dtype: torch.dtype,
    prompt_length: int = 1,
) -> np.ndarray:
    """``max_v |p_cached(v) - p_uncached(v)|`` at every step along the sequence ``ids``.

    The model is copied to ``dtype``; the first ``prompt_length`` ids are run through the cache at
    once, then one id per step.  At step ``s`` the uncached distribution is the model's own
    forward on ``ids[:prompt_length + s]`` (last row), the cached one comes from
    :func:`forward_cached`; both softmaxes are taken in float64 from that dtype's logits, so the
    difference is the model's arithmetic only.  Returns ``(len(ids) - prompt_length + 1,)``.
    """
    _check_model(model)
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype: expected a floating torch.dtype, got {dtype!r}")
    ids = _token_ids(ids, "ids", model.cfg.V).reshape(1, -1)
    n = ids.shape[1]
    prompt_length = check_int(prompt_length, "prompt_length")
    if prompt_length > n or n > model.cfg.n_ctx:
        raise ValueError(
            f"ids: expected prompt_length={prompt_length} <= len(ids)={n} <= "
            f"n_ctx={model.cfg.n_ctx}"
        )
    m = copy.deepcopy(model).to(dtype).eval()
    ids = ids.to(m.W_e.weight.device)
    drift, cache = [], None
    for end in range(prompt_length, n + 1):
        feed = ids[:, :end] if cache is None else ids[:, end - 1 : end]
        cached, cache = forward_cached(m, feed, cache)
        full, _ = m(ids[:, :end])
        pc = torch.softmax(cached[0, -1].double(), -1)
        pf = torch.softmax(full[0, -1].double(), -1)
        drift.append(float((pc - pf).abs().max()))
    return np.array(drift)


def tokens_per_second(
    model: GPT,
    n_new: int,
    use_cache: bool,
    repeats: int = 3,
    prompt: list[int] | None = None,
) -> float:
    """Greedy generation of ``n_new`` tokens after ``prompt`` (default: token 0), timed
    ``repeats`` times; returns ``n_new / (best time)`` (the best run is the least disturbed by
    other processes)."""
    repeats = check_int(repeats, "repeats")
    prompt = [0] if prompt is None else prompt
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        generate(model, prompt, n_new, use_cache=use_cache, greedy=True)
        best = min(best, time.perf_counter() - t0)
    return n_new / best
