"""The pretrained-checkpoint loader (chapter 19) on a tiny GPT-2 and BPE tokenizer written with
``save_pretrained`` to a temporary directory: nothing is downloaded."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from formulated.models.hf import hf_probabilities
from formulated.models.pretrained import (load_pretrained, parity, pretrained_available,
                                          save_tiny_gpt2, to_gpt2_lm_head)
from formulated.models.trainable import GPT, GPTConfig


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    return save_tiny_gpt2(tmp_path_factory.mktemp("tiny_gpt2"))


def test_loader_gives_transformers_probabilities(tiny_dir):
    pre = load_pretrained(tiny_dir)
    assert pre.model.dtype == torch.float64 and not pre.model.training
    text = "First Citizen:\nSpeak, speak. You are all resolved?"
    ids = pre.encode(text)
    assert pre.tokenizer.decode(ids.tolist()) == text       # the BPE round-trips
    assert len(ids) < len(text)                              # and merges characters
    ours = pre.probabilities(text)
    theirs = hf_probabilities(pre.model, ids)
    assert ours.shape == (len(ids), pre.model.config.vocab_size)
    assert np.abs(ours - theirs).max() <= 1e-12
    assert parity(pre, text) <= 1e-12
    top = pre.next_tokens(text, k=3)
    assert len(top) == 3 and top[0][1] >= top[1][1] >= top[2][1]


def test_availability_without_download(tiny_dir, tmp_path):
    assert pretrained_available(tiny_dir)
    assert not pretrained_available(tmp_path)                # an empty directory
    with pytest.raises(FileNotFoundError, match="source"):
        load_pretrained(tmp_path / "nothing here")
    with pytest.raises(TypeError, match="source"):
        load_pretrained(3)


def test_our_gpt_as_transformers_gpt2():
    torch.manual_seed(0)
    model = GPT(GPTConfig(V=30, n_ctx=16, L=2, A=2, H=16)).double().eval()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.2 * torch.randn_like(p))
    hf = to_gpt2_lm_head(model)
    x = torch.randint(0, 30, (3, 16), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        ours = torch.softmax(model(x)[0], -1)
        theirs = torch.softmax(hf(input_ids=x).logits, -1)
    assert float((ours - theirs).abs().max()) <= 1e-12
