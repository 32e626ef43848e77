"""The KV cache (chapter 19): exact in float64 along a 256-token generation, its drift in float32
and bfloat16 computed, greedy generation equal to the model's own ``GPT.sample``."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from formulated.models.kv_cache import (
    KVCache,
    cache_drift,
    forward_cached,
    generate,
    tokens_per_second,
)
from formulated.models.trainable import GPT, GPTConfig
from formulated.tokenizers import CharTokenizer


def make_model(dtype=torch.float64, n_ctx=256, seed=0) -> GPT:
    """A small GPT with every weight perturbed away from its initial value (no gain stays 1, no
    bias 0), so that each part of the block matters."""
    torch.manual_seed(seed)
    model = GPT(GPTConfig(V=20, n_ctx=n_ctx, L=2, A=4, H=32)).to(dtype).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.2 * torch.randn_like(p))
    return model


@pytest.fixture(scope="module")
def model64():
    return make_model()


def test_cached_equals_uncached_float64(model64):
    """Every step of a sampled 256-token generation: the same tokens, and next-token
    probabilities within 1e-12 (the cached run feeds one position per step)."""
    cached = generate(model64, [3], 256, use_cache=True, seed=1)
    full = generate(model64, [3], 256, use_cache=False, seed=1)
    assert cached.ids == full.ids
    per_step = (cached.probs - full.probs).abs().amax(dim=1)
    assert per_step.shape == (256,)
    assert float(per_step.max()) <= 1e-12, float(per_step.max())
    assert cached.cache_lengths == list(range(1, 257))
    assert len(set(cached.ids)) > 5  # sampled, not stuck on one token


def test_prefill_block_equals_model_rows(model64):
    """Several new positions at once, after a cache: the rows the full forward gives."""
    ids = torch.randint(0, 20, (2, 40), generator=torch.Generator().manual_seed(0))
    full, _ = model64(ids)
    first, cache = forward_cached(model64, ids[:, :25])
    rest, cache = forward_cached(model64, ids[:, 25:], cache)
    torch.testing.assert_close(torch.cat([first, rest], 1), full, rtol=0, atol=1e-12)
    assert isinstance(cache, KVCache) and cache.length == 40
    A, D = model64.cfg.A, model64.cfg.D
    assert all(k.shape == (2, A, 40, D) for k in cache.keys + cache.values)
    assert cache.numel == 2 * model64.cfg.L * 2 * A * 40 * D
    assert cache.nbytes == cache.numel * 8


def test_drift_is_measured_per_dtype(model64):
    """Drift along one sequence: zero to 1e-12 in float64, larger in float32, larger still in
    bfloat16 (the numbers themselves are measured, not fixed here)."""
    ids = generate(model64, [3], 120, seed=2).ids
    d64, d32, d16 = (
        cache_drift(model64, [3] + ids, dt)
        for dt in (torch.float64, torch.float32, torch.bfloat16)
    )
    assert d64.shape == d32.shape == d16.shape == (121,)
    assert d64.max() <= 1e-12
    assert d64.max() < d32.max() < 1e-4
    assert d32.max() < d16.max() < 0.5
    assert np.isfinite(d16).all()


def test_greedy_generation_equals_gpt_sample():
    """An independent reference: the model's own sampling loop at temperature 0."""
    tok = CharTokenizer.from_text("abcdefghijklmnopqrst")
    model = make_model(torch.float32, n_ctx=64, seed=3)
    prompt = "hello"
    ours = generate(model, tok.encode(prompt), 50, greedy=True)
    assert tok.decode(ours.ids) == model.sample(tok, prompt, 50, temperature=0.0)


def test_tokens_per_second_is_positive():
    model = make_model(torch.float32, n_ctx=32)
    assert tokens_per_second(model, 8, use_cache=True, repeats=1) > 0


def test_bad_input_names_the_argument(model64):
    with pytest.raises(ValueError, match="n_ctx"):
        forward_cached(model64, torch.zeros(1, 257, dtype=torch.long))
    _, cache = forward_cached(model64, torch.zeros(1, 250, dtype=torch.long))
    with pytest.raises(ValueError, match="n_ctx"):
        forward_cached(model64, torch.zeros(1, 7, dtype=torch.long), cache)
    with pytest.raises(ValueError, match="batch"):
        forward_cached(model64, torch.zeros(2, 1, dtype=torch.long), cache)
    with pytest.raises(ValueError, match="idx"):
        forward_cached(model64, torch.full((1, 2), 20))
    with pytest.raises(TypeError, match="model"):
        forward_cached(torch.nn.Linear(2, 2), torch.zeros(1, 1, dtype=torch.long))
    with pytest.raises(TypeError, match="cache"):
        forward_cached(model64, torch.zeros(1, 1, dtype=torch.long), cache={})
    with pytest.raises(ValueError, match="n_new"):
        generate(model64, [1, 2], 256)
    with pytest.raises(TypeError, match="dtype"):
        cache_drift(model64, [1, 2], torch.int64)


@pytest.mark.parametrize(
    "L, A, H",
    [
        (3, 4, 32),  # one layer too many
        (2, 2, 16),  # same depth, other heads and widths
        (2, 8, 32),
    ],
)  # same width H, other split into heads
def test_cache_from_another_model_names_the_cache(model64, L, A, H):
    """A cache written by another model is refused before any computation, with the layers
    and (B, A, t, D) shape this model needs and what came (torch said only 'Sizes of tensors
    must match')."""
    other = GPT(GPTConfig(V=20, n_ctx=32, L=L, A=A, H=H)).double().eval()
    _, foreign = forward_cached(other, torch.zeros(1, 3, dtype=torch.long))
    with pytest.raises(
        ValueError, match=r"cache: expected .* L=2 layers.*A=4.*D=8"
    ) as e:
        forward_cached(model64, torch.zeros(1, 1, dtype=torch.long), foreign)
    got = f"{L} keys" if L != 2 else str(tuple(foreign.keys[0].shape))
    assert got in str(e.value)


def test_cache_of_another_dtype_or_broken_lists_names_the_cache(model64):
    _, cache = forward_cached(model64, torch.zeros(1, 3, dtype=torch.long))
    as32 = KVCache([k.float() for k in cache.keys], [v.float() for v in cache.values])
    with pytest.raises(
        ValueError,
        match=r"cache: expected .*torch\.float64.*got "
        r"cache\.keys\[0\] .*torch\.float32",
    ):
        forward_cached(model64, torch.zeros(1, 1, dtype=torch.long), as32)
    ragged = KVCache(cache.keys, cache.values[:1])
    with pytest.raises(
        ValueError,
        match=r"cache: expected keys and values for the model's "
        r"L=2 layers, each \(B, A=4, t, D=8\), got 2 keys "
        r"and 1 values",
    ):
        forward_cached(model64, torch.zeros(1, 1, dtype=torch.long), ragged)
    uneven = KVCache(cache.keys, [cache.values[0], cache.values[1][:, :, :2]])
    with pytest.raises(
        ValueError,
        match=r"cache: .*got cache\.values\[1\] of shape "
        r"\(1, 4, 2, 8\)",
    ):
        forward_cached(model64, torch.zeros(1, 1, dtype=torch.long), uneven)
    with pytest.raises(TypeError, match=r"cache\.keys\[0\]: expected a torch\.Tensor"):
        forward_cached(
            model64,
            torch.zeros(1, 1, dtype=torch.long),
            KVCache([k.numpy() for k in cache.keys], cache.values),
        )
