"""The pretrained-checkpoint loader (chapter 19) on a tiny GPT-2 and BPE tokenizer written with
``save_pretrained`` to a temporary directory: nothing is downloaded."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from formulated.models.hf_tiny import hf_probabilities
from formulated.models.pretrained import (
    load_pretrained,
    parity,
    pretrained_available,
    save_tiny_gpt2,
    to_gpt2_lm_head,
)
from formulated.models.trainable import GPT, GPTConfig


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    return save_tiny_gpt2(tmp_path_factory.mktemp("tiny_gpt2"))


def test_loader_gives_transformers_probabilities(tiny_dir):
    pre = load_pretrained(tiny_dir)
    assert pre.model.dtype == torch.float64 and not pre.model.training
    text = "First Citizen:\nSpeak, speak. You are all resolved?"
    ids = pre.encode(text)
    assert pre.tokenizer.decode(ids.tolist()) == text  # the BPE round-trips
    assert len(ids) < len(text)  # and merges characters
    ours = pre.probabilities(text)
    theirs = hf_probabilities(pre.model, ids)
    assert ours.shape == (len(ids), pre.model.config.vocab_size)
    assert np.abs(ours - theirs).max() <= 1e-12
    assert parity(pre, text) <= 1e-12
    top = pre.next_tokens(text, k=3)
    assert len(top) == 3 and top[0][1] >= top[1][1] >= top[2][1]


def test_availability_without_download(tiny_dir, tmp_path):
    assert pretrained_available(tiny_dir)
    assert not pretrained_available(tmp_path)  # an empty directory
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


@pytest.mark.parametrize("k", [-1, 0, 301, 2.0, "3"])
def test_next_tokens_k_outside_1_to_V_names_k(tiny_dir, k):
    """k = -1 returned 299 tokens (a slice [:-1]); k = 0 an empty list."""
    pre = load_pretrained(tiny_dir)
    V = pre.model.config.vocab_size
    assert V == 300
    kind = TypeError if not isinstance(k, int) else ValueError
    with pytest.raises(kind, match=rf"k: expected an integer in 1\.\.V={V}, got"):
        pre.next_tokens("First Citizen", k=k)
    assert len(pre.next_tokens("First Citizen", k=V)) == V


def test_file_where_a_directory_is_expected_is_called_a_file(tmp_path):
    f = tmp_path / "config.json"
    f.write_text("{}")
    with pytest.raises(
        NotADirectoryError,
        match=r"source: expected a directory written by "
        r"save_pretrained, got .*config\.json', "
        r"which is a file",
    ):
        load_pretrained(f)


def test_corrupt_or_foreign_config_is_named(tiny_dir, tmp_path):
    """A corrupt config.json was reported as 'not available on this machine'."""
    import shutil

    bad = tmp_path / "corrupt"
    shutil.copytree(tiny_dir, bad)
    (bad / "config.json").write_text('{"model_type": "gpt2",')
    with pytest.raises(
        ValueError,
        match=r"source: .*corrupt.*config\.json.* is not valid JSON "
        r"\(.*line 1",
    ):
        load_pretrained(bad)
    (bad / "config.json").write_text('{"model_type": "bert", "vocab_size": 300}')
    with pytest.raises(
        ValueError,
        match=r"source: expected a GPT-2 checkpoint "
        r"\(model_type 'gpt2' in .*config\.json'\), got 'bert'",
    ):
        load_pretrained(bad)
    (bad / "config.json").unlink()
    with pytest.raises(FileNotFoundError, match=r"source: .* has no config\.json"):
        load_pretrained(bad)


def test_save_tiny_gpt2_never_overwrites_a_checkpoint(tiny_dir, tmp_path):
    """Writing into a directory that holds a checkpoint replaced its files silently; now it is
    refused and the files stay as they were, unless overwrite=True."""
    before = {p.name: p.read_bytes() for p in tiny_dir.iterdir()}
    with pytest.raises(
        FileExistsError,
        match=r"directory: expected an empty or new "
        r"directory, .* holds files",
    ):
        save_tiny_gpt2(tiny_dir, seed=7)
    assert {p.name: p.read_bytes() for p in tiny_dir.iterdir()} == before
    f = tmp_path / "a_file"
    f.write_text("keep me")
    with pytest.raises(
        NotADirectoryError, match=r"directory: .*a_file', which is a file"
    ):
        save_tiny_gpt2(f)
    assert f.read_text() == "keep me"
    copy = tmp_path / "copy"
    save_tiny_gpt2(copy)
    save_tiny_gpt2(copy, seed=7, overwrite=True)
    assert load_pretrained(copy).model.config.vocab_size == 300
