"""Temperature, top-k and top-p (chapter 19) against transformers' logits processors, on the
same logits: the book's NumPy formulas, and chapter 18's torch sampler."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers import TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper

from formulated.models.trainable import shape_distribution
from formulated.sampling import (
    apply_temperature,
    filter_logits,
    sampling_distribution,
    top_k_mask,
    top_p_mask,
)


def logits(seed: int, shape=(4, 50), scale: float = 3.0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=torch.float64) * scale


def reference(z: torch.Tensor, T=None, k=None, p=None) -> torch.Tensor:
    """transformers' warpers, in generate's order: temperature, top-k, top-p."""
    ids = torch.zeros(z.shape[0], 1, dtype=torch.long)
    if T is not None:
        z = TemperatureLogitsWarper(T)(ids, z)
    if k is not None:
        z = TopKLogitsWarper(k)(ids, z)
    if p is not None:
        z = TopPLogitsWarper(p)(ids, z)
    return z


@pytest.mark.parametrize("T", [0.3, 0.7, 1.0, 1.5])
def test_temperature_matches_transformers(T):
    z = logits(0)
    assert np.array_equal(apply_temperature(z.numpy(), T), reference(z, T=T).numpy())


@pytest.mark.parametrize("k", [1, 2, 5, 17, 49, 50, 80])
def test_top_k_matches_transformers(k):
    z = logits(1)
    keep = top_k_mask(z.numpy(), k)
    assert np.array_equal(keep, torch.isfinite(reference(z, k=k)).numpy())
    assert int(keep.sum(-1).min()) == min(k, 50)


@pytest.mark.parametrize("p", [0.05, 0.3, 0.5, 0.9, 0.95, 0.999, 1.0])
@pytest.mark.parametrize("seed", [2, 3, 4])
def test_top_p_matches_transformers(p, seed):
    z = logits(seed, scale=1.0 + seed)
    keep = top_p_mask(z.numpy(), p)
    assert np.array_equal(keep, torch.isfinite(reference(z, p=p)).numpy())


def test_top_p_keeps_the_smallest_set_reaching_p():
    """A worked number: probabilities 0.5, 0.3, 0.15, 0.05; p = 0.8 keeps {0.5, 0.3} (mass
    exactly 0.8 reached), p = 0.81 also keeps 0.15."""
    z = np.log(np.array([0.15, 0.5, 0.05, 0.3]))
    assert top_p_mask(z, 0.79).tolist() == [False, True, False, True]
    assert top_p_mask(z, 0.81).tolist() == [True, True, False, True]
    assert top_p_mask(z, 0.01).tolist() == [
        False,
        True,
        False,
        False,
    ]  # the argmax always
    dist = sampling_distribution(z, top_p=0.79)
    np.testing.assert_allclose(dist, [0, 0.625, 0, 0.375], atol=1e-15)


@pytest.mark.parametrize(
    "T, k, p", [(0.8, 20, 0.9), (1.3, 5, 0.5), (0.5, None, 0.95), (1.0, 10, None)]
)
def test_chain_matches_transformers(T, k, p):
    z = logits(5)
    ours = filter_logits(z.numpy(), T, k, p)
    theirs = reference(z, T=T, k=k, p=p)
    fin = torch.isfinite(theirs).numpy()
    assert np.array_equal(np.isfinite(ours), fin)
    assert np.array_equal(ours[fin], theirs.numpy()[fin])
    np.testing.assert_allclose(
        sampling_distribution(z.numpy(), T, k, p),
        torch.softmax(theirs, -1).numpy(),
        rtol=0,
        atol=1e-15,
    )


@pytest.mark.parametrize(
    "T, k", [(0.8, 20), (1.3, None), (0.5, 1), (1.0, 50), (2.0, 7)]
)
def test_shape_distribution_matches_transformers(T, k):
    """Chapter 18's sampler (def-18-sampling): the softmax of transformers' temperature and top-k
    warpers on the same float32 logits; T = 0 puts all the mass on the argmax (greedy)."""
    z = logits(7, shape=(1, 50)).float()
    ours = shape_distribution(z[0], T, k)
    theirs = torch.softmax(reference(z, T=T, k=k), -1)[0]
    assert ours.dtype == torch.float32 and ours.shape == (50,)
    torch.testing.assert_close(ours, theirs, rtol=0, atol=1e-7)
    assert torch.equal(ours > 0, torch.isfinite(reference(z, T=T, k=k))[0])
    greedy = torch.zeros(50)
    greedy[z[0].argmax()] = 1.0
    assert torch.equal(shape_distribution(z[0], 0.0, k), greedy)


def test_distribution_is_normalized_and_zero_outside():
    z = logits(6).numpy()
    d = sampling_distribution(z, 0.9, 30, 0.8)
    np.testing.assert_allclose(d.sum(-1), np.ones(4), rtol=0, atol=1e-15)
    assert np.array_equal(d > 0, top_p_mask(filter_logits(z, 0.9, 30), 0.8))


def test_bad_input_names_the_argument():
    """Each message starts with the name of the parameter the caller passed: ``z``, ``k``,
    ``p`` in the masks (the book's notation), ``top_k``, ``top_p`` in the chain."""
    z = np.zeros(5)
    with pytest.raises(ValueError, match="^temperature: "):
        apply_temperature(z, 0.0)
    with pytest.raises(TypeError, match="^k: expected an integer >= 1"):
        top_k_mask(z, 2.0)
    with pytest.raises(ValueError, match="^k: expected an integer >= 1"):
        top_k_mask(z, 0)
    with pytest.raises(
        ValueError, match=r"^p: expected a probability mass in \(0, 1\]"
    ):
        top_p_mask(z, 1.5)
    with pytest.raises(ValueError, match="^p: "):
        top_p_mask(z, 0.0)
    with pytest.raises(ValueError, match="^top_k: expected an integer >= 1"):
        sampling_distribution(z, top_k=0)
    with pytest.raises(ValueError, match="^top_p: "):
        filter_logits(z, top_p=float("nan"))
    with pytest.raises(ValueError, match="^z: expected no NaN"):
        sampling_distribution(np.array([1.0, np.nan]))
    with pytest.raises(
        ValueError, match=r"^z: expected shape \(\.\.\., V\) with V >= 1"
    ):
        sampling_distribution(np.zeros(0))
    with pytest.raises(TypeError, match="^z: expected real numbers"):
        sampling_distribution(np.array(["a", "b"]))
