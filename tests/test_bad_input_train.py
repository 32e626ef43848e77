"""Bad input to chapter 18's PyTorch GPT and training loop: a clear error naming the argument,
never a silent wrong answer, and a damaged checkpoint is never written over.

Every run is tiny (one layer of width 8 on a 1.4 kB corpus, a few steps), so the file takes
seconds.  Valid inputs that the checks must keep accepting (int32 ids, ``-100`` targets, NumPy
numbers) are compared with references computed here: ``log_softmax`` and a hand mean for the
loss, the closed form ``6 N + 12 L H n`` worked by hand for the FLOPs.
"""

from __future__ import annotations

import dataclasses
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
from _helpers import tiny_run

from formulated.models.trainable import (
    GPT,
    GPTConfig,
    flops_per_token,
    shape_distribution,
)
from formulated.tokenizers import CharTokenizer
from formulated.training import (
    CheckpointError,
    evaluate,
    load_checkpoint,
    make_config,
    train,
)

CORPUS = "hello world, this is a tiny corpus for the bad-input tests. " * 24


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> dict:
    d = tmp_path_factory.mktemp("bad_input_train")
    (d / "data.txt").write_text(CORPUS, encoding="utf-8")
    return tiny_run(d / "data.txt", max_steps=3)


@pytest.fixture(scope="module")
def run(base, tmp_path_factory):
    """A finished 3-step run: ``(result, run directory)``."""
    out = tmp_path_factory.mktemp("run") / "out"
    return train(None, out, progress=False, **base), out


@pytest.fixture()
def model_tok(run):
    res, _ = run
    return res.model.eval(), res.tokenizer


def _tiny_gpt(V: int = 11) -> GPT:
    torch.manual_seed(0)
    return GPT(GPTConfig(V=V, n_ctx=8, L=1, A=2, H=8)).eval()


# -- GPT.forward -------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(5, 2), (10,), (2, 6), (1, 5)])
def test_forward_targets_must_have_the_shape_of_idx(shape):
    """Old code: (5, 2) and (10,) gave a finite loss (flattened against the wrong positions)."""
    m = _tiny_gpt()
    idx = torch.randint(0, 11, (2, 5), generator=torch.Generator().manual_seed(0))
    targets = torch.zeros(shape, dtype=torch.long)
    with pytest.raises(
        ValueError,
        match=r"targets: expected the shape of idx, \(B, n\) = "
        rf"\(2, 5\), got \({shape[0]},",
    ):
        m(idx, targets)


def test_forward_token_ids_dtype_kind_and_range():
    m = _tiny_gpt()
    with pytest.raises(
        ValueError,
        match=r"idx: expected token ids in 0\.\.10 \(vocabulary size "
        r"V=11\), got -1 at index \(0, 1\)",
    ):
        m(torch.tensor([[1, -1]]))
    with pytest.raises(
        ValueError,
        match=r"idx: expected token ids in 0\.\.10 .* got 11 at index "
        r"\(1, 0\)",
    ):
        m(torch.tensor([[1, 2], [11, 3]]))
    for bad in (torch.tensor([[1.0, 2.0]]), torch.tensor([[True, False]])):
        with pytest.raises(
            TypeError, match=f"idx: expected integer token ids, got dtype {bad.dtype}"
        ):
            m(bad)
    for bad in ([[1, 2]], np.array([[1, 2]])):
        with pytest.raises(
            TypeError, match="idx: expected a torch.Tensor of integer token ids"
        ):
            m(bad)
    # the range is checked in training mode too (on the CPU)
    m.train()
    with pytest.raises(ValueError, match="idx: expected token ids in 0..10"):
        m(torch.tensor([[0, 12]]))


def test_forward_target_values_and_empty_losses():
    m = _tiny_gpt()
    idx = torch.randint(0, 11, (2, 5), generator=torch.Generator().manual_seed(0))
    with pytest.raises(
        ValueError,
        match=r"targets: expected token ids in 0\.\.10 or -100 "
        r"\(ignored\) .* got 11 at index \(0, 0\)",
    ):
        m(idx, torch.full((2, 5), 11))
    bad = idx.clone()
    bad[1, 3] = -1
    with pytest.raises(
        ValueError,
        match=r"targets: expected token ids .* got -1 at index "
        r"\(1, 3\)",
    ):
        m(idx, bad)
    with pytest.raises(ValueError, match=r"targets: expected token ids .* got -101"):
        m(idx, torch.full((2, 5), -101))
    with pytest.raises(
        TypeError, match="targets: expected integer token ids, got dtype torch.float32"
    ):
        m(idx, idx.float())
    with pytest.raises(TypeError, match="targets: expected a torch.Tensor"):
        m(idx, idx.numpy())
    # old code: both gave a NaN loss (the mean of no term)
    with pytest.raises(ValueError, match="targets: every target is -100"):
        m(idx, torch.full((2, 5), -100))
    empty = torch.zeros((2, 0), dtype=torch.long)
    with pytest.raises(
        ValueError,
        match=r"targets: expected at least one target .* got shape "
        r"\(2, 0\)",
    ):
        m(empty, empty)
    assert m(empty)[0].shape == (
        2,
        0,
        11,
    )  # logits of no position are still well defined


def test_forward_accepts_int32_and_ignores_minus_100_targets():
    """The checks keep what the loss is: the mean of -log p(target) over the kept targets,
    computed here with log_softmax and a hand mean (no F.cross_entropy)."""
    m = _tiny_gpt()
    g = torch.Generator().manual_seed(1)
    idx = torch.randint(0, 11, (2, 5), generator=g)
    tgt = torch.randint(0, 11, (2, 5), generator=g)
    tgt[0, 1] = tgt[1, 4] = -100
    with torch.no_grad():
        logits, loss = m(idx, tgt)
        logits32, loss32 = m(idx.int(), tgt.int())
    logp = torch.log_softmax(logits.double(), dim=-1)
    kept = [(b, i) for b in range(2) for i in range(5) if tgt[b, i] != -100]
    want = -sum(float(logp[b, i, tgt[b, i]]) for b, i in kept) / len(kept)
    assert len(kept) == 8
    assert float(loss) == pytest.approx(want, abs=1e-6)
    assert torch.equal(logits32, logits) and float(loss32) == float(loss)


# -- GPTConfig and flops_per_token -------------------------------------------------------------


@pytest.mark.parametrize("eps", [-1.0, 0.0, float("nan"), float("inf")])
def test_gpt_config_eps_must_be_positive_and_finite(eps):
    """Old code: eps=-1 or NaN built a model whose every logit is NaN."""
    with pytest.raises(
        ValueError,
        match=r"eps: expected a finite number > 0 \(LayerNorm's "
        r"epsilon\), got",
    ):
        GPTConfig(V=11, n_ctx=8, L=1, A=2, H=8, eps=eps)


def test_gpt_config_types_and_numpy_numbers():
    with pytest.raises(
        TypeError, match=r"eps: expected a finite number > 0, got 'x' \(str\)"
    ):
        GPTConfig(eps="x")
    with pytest.raises(
        TypeError,
        match=r"dropout: expected a probability in \[0, 1\), got "
        r"'0\.1' \(str\)",
    ):
        GPTConfig(dropout="0.1")
    with pytest.raises(
        ValueError, match=r"dropout: expected a probability in \[0, 1\), got 1\.0"
    ):
        GPTConfig(dropout=1.0)
    with pytest.raises(TypeError, match="V: expected a positive integer, got 1.5"):
        GPTConfig(V=1.5)
    with pytest.raises(
        TypeError, match="config: expected a dict of GPTConfig fields, got NoneType"
    ):
        GPTConfig.from_dict(None)
    with pytest.raises(TypeError, match="cfg: expected a GPTConfig, got NoneType"):
        GPT(None)
    c = GPTConfig(V=np.int64(5), dropout=np.float32(0.25), eps=np.float64(1e-6))
    assert (c.V, c.dropout, c.eps) == (5, 0.25, 1e-6)
    assert type(c.V) is int and type(c.dropout) is float and type(c.eps) is float


def test_flops_per_token_arguments():
    cfg = GPTConfig(V=11, n_ctx=8, L=1, A=2, H=8)
    # worked by hand: 6 * 100 + 12 * L * H * n = 600 + 12 * 1 * 8 * 8 = 1368 (and n = 2: 792)
    assert (
        flops_per_token(cfg, 100) == 1368.0 and flops_per_token(cfg, 100, n=2) == 792.0
    )
    with pytest.raises(
        ValueError, match="n_params: expected a positive integer, got -5"
    ):
        flops_per_token(cfg, -5)
    with pytest.raises(ValueError, match="n: expected a positive integer, got -3"):
        flops_per_token(cfg, 100, n=-3)
    with pytest.raises(
        TypeError, match=r"n_params: expected a positive integer, got nan"
    ):
        flops_per_token(cfg, float("nan"))
    with pytest.raises(TypeError, match="cfg: expected a GPTConfig, got NoneType"):
        flops_per_token(None, 100)


# -- evaluate, sample, next_token_probs --------------------------------------------------------


def test_evaluate_argument_checks(model_tok):
    model, tok = model_tok
    ids = torch.tensor(tok.encode("hello world"))
    # old code: float ids were truncated to ints and gave the loss of other ids
    with pytest.raises(
        TypeError, match="ids: expected integer token ids, got dtype torch.float32"
    ):
        evaluate(model, ids.float() + 0.7, 8)
    # old code: NaN for these two
    for short in (ids[:1], ids[:0]):
        with pytest.raises(
            ValueError,
            match=rf"ids: expected at least 2 token ids .* got "
            rf"{len(short)}",
        ):
            evaluate(model, short, 8)
    with pytest.raises(
        ValueError,
        match=r"ids: expected 1 dimension of token ids, got shape "
        r"\(1, 11\)",
    ):
        evaluate(model, ids[None], 8)
    with pytest.raises(
        ValueError,
        match=r"ids: expected token ids in 0\.\.\d+ .* got 99 at "
        r"index \(2,\)",
    ):
        evaluate(model, torch.tensor([1, 2, 99]), 8)
    with pytest.raises(ValueError, match="n_ctx: expected a positive integer, got 0"):
        evaluate(model, ids, 0)
    with pytest.raises(
        ValueError, match="n_ctx: expected at most the model's n_ctx=8, got 64"
    ):
        evaluate(model, ids, 64)
    for b in (0, -1):
        with pytest.raises(
            ValueError, match=f"batch: expected a positive integer, got {b}"
        ):
            evaluate(model, ids, 8, batch=b)
    with pytest.raises(TypeError, match="batch: expected a positive integer, got 2.0"):
        evaluate(model, ids, 8, batch=2.0)
    with pytest.raises(ValueError, match="rank: expected 0 <= rank < world=1, got 3"):
        evaluate(model, ids, 8, rank=3, world=1)
    with pytest.raises(
        TypeError, match="model: expected a formulated.models.trainable.GPT"
    ):
        evaluate(torch.nn.Linear(2, 2), ids, 8)
    # valid: a list of ids is the same split as the tensor, NumPy integers for the sizes
    want = evaluate(model, ids, 8, batch=2)
    assert math.isfinite(want)
    assert (
        evaluate(model, tok.encode("hello world"), np.int64(8), batch=np.int64(2))
        == want
    )


def test_sample_and_next_token_probs_argument_checks(model_tok):
    model, tok = model_tok
    big = CharTokenizer.from_text("".join(chr(i) for i in range(32, 127)))
    small = CharTokenizer.from_text(" h")
    V = model.cfg.V
    for t in (big, small):
        msg = rf"tokenizer: its vocabulary has V={t.vocab_size} tokens but the model's has V={V}"
        with pytest.raises(ValueError, match=msg):
            model.sample(t, "h", 5)
        # old code: IndexError for the larger one, a silent (V,) distribution for the smaller
        with pytest.raises(ValueError, match=msg):
            model.next_token_probs(t, "h")
    with pytest.raises(
        TypeError, match=r"seed: expected None or an integer, got 1\.5 \(float\)"
    ):
        model.sample(tok, "h", 5, seed=1.5)
    with pytest.raises(
        TypeError, match="generator: expected None or a torch.Generator, got str"
    ):
        model.sample(tok, "h", 5, generator="g")
    with pytest.raises(
        TypeError,
        match="model: expected a formulated.models.trainable.GPT, got NoneType",
    ):
        GPT.next_token_probs(None, tok, "h")
    with pytest.raises(
        TypeError, match=r"temperature: expected a number >= 0, got 'a' \(str\)"
    ):
        model.next_token_probs(tok, "h", temperature="a")
    with pytest.raises(ValueError, match="logits: expected no NaN, got 1 NaN of 3"):
        shape_distribution(torch.tensor([0.0, float("nan"), 1.0]))
    # NumPy numbers are numbers: the same result as the Python ones
    p = model.next_token_probs(
        tok, "hel", temperature=np.float32(0.5), top_k=np.int64(3)
    )
    assert torch.equal(p, model.next_token_probs(tok, "hel", temperature=0.5, top_k=3))
    assert int((p > 0).sum()) == 3 and float(p.sum()) == pytest.approx(1.0, abs=1e-6)
    assert model.sample(
        tok, "h", 6, temperature=np.float32(0.8), seed=np.int64(2)
    ) == model.sample(tok, "h", 6, temperature=0.8, seed=2)


# -- make_config and train arguments -----------------------------------------------------------


@pytest.mark.parametrize(
    "field, value, what",
    [
        ("beta1", "0.9", r"a value in \[0, 1\)"),
        ("val_fraction", "0.1", r"a value in \(0, 1\)"),
        ("dropout", "0.1", r"a probability in \[0, 1\)"),
        ("lr", "1e-3", "a finite number >= 0"),
        ("max_steps", "5", "a positive integer"),
        ("max_steps", 1.5, "a positive integer"),
        ("F", 512.0, "a positive integer or None"),
        ("device", 0, "a string"),
    ],
)
def test_make_config_names_the_field_of_a_wrong_type(field, value, what):
    with pytest.raises(TypeError, match=rf"{field}: expected {what}, got {value!r}"):
        make_config(None, **{field: value})


def test_make_config_accepts_numpy_numbers_as_plain_python_values(base):
    c = make_config(
        None,
        lr=np.float32(0.5),
        beta1=np.float64(0.8),
        max_steps=np.int64(7),
        dropout=np.float32(0.25),
        data=Path(base["data"]),
    )
    assert (c.lr, c.beta1, c.max_steps, c.model.dropout) == (0.5, 0.8, 7, 0.25)
    assert [type(v) for v in (c.lr, c.beta1, c.max_steps, c.model.dropout, c.data)] == [
        float,
        float,
        int,
        float,
        str,
    ]
    assert c.data == base["data"]
    with pytest.raises(
        TypeError, match=r"data: expected a path to a text file .* got 5 \(int\)"
    ):
        make_config(None, data=5)


def test_train_with_numpy_lr_writes_a_loadable_checkpoint(base, tmp_path):
    """NumPy scalars in the configuration would make the weights-only checkpoint unreadable."""
    res = train(
        None,
        tmp_path / "np",
        progress=False,
        **dict(base, max_steps=2, lr=np.float32(0.5)),
    )
    _, _, ck = load_checkpoint(tmp_path / "np")
    assert ck["config"]["lr"] == 0.5 and res.step == 2


def test_train_refuses_config_together_with_preset_or_overrides(base):
    c = make_config(None, **base)
    # old code ran c's 3 steps and ignored max_steps=1 (and the preset)
    with pytest.raises(
        TypeError,
        match=r"config: expected no overrides next to a whole config, "
        r"got \['max_steps'\]",
    ):
        train(config=c, progress=False, max_steps=1)
    with pytest.raises(
        TypeError,
        match="config: expected either a preset or a config, got both "
        r"\(preset='gpu'\)",
    ):
        train("gpu", config=c, progress=False)
    with pytest.raises(TypeError, match="config: expected a TrainConfig .* got str"):
        train(config="x", progress=False)
    assert train(config=dataclasses.replace(c, max_steps=1), progress=False).step == 1


@pytest.mark.parametrize(
    "value, exc, what",
    [
        ("2", TypeError, r"got '2' \(str\)"),
        (1.5, TypeError, r"got 1\.5 \(float\)"),
        (-1, ValueError, "got -1"),
    ],
)
def test_train_stop_at_step_must_be_an_integer(base, value, exc, what):
    with pytest.raises(
        exc, match=f"stop_at_step: expected None or an integer >= 0, {what}"
    ):
        train(None, None, progress=False, stop_at_step=value, **base)


# -- resuming: the checkpoint's step, and damaged checkpoints ----------------------------------


def _copy_run(run, tmp_path: Path, mutate=None) -> tuple[Path, bytes]:
    _, out = run
    dst = tmp_path / "r"
    dst.mkdir()
    if mutate is None:
        shutil.copy(out / "ckpt.pt", dst / "ckpt.pt")
    else:
        ck = torch.load(out / "ckpt.pt", weights_only=True)
        mutate(ck)
        torch.save(ck, dst / "ckpt.pt")
    return dst, (dst / "ckpt.pt").read_bytes()


def test_resume_needs_max_steps_beyond_the_checkpoint(run, tmp_path):
    """Old code: resuming the 3-step run with max_steps=2 'returned' step 3 and rewrote it."""
    dst, before = _copy_run(run, tmp_path)
    for m in (2, 3):
        with pytest.raises(
            ValueError,
            match=rf"max_steps: expected more than the checkpoint's "
            rf"step 3 to continue the run, got {m}",
        ):
            train(None, dst, resume=True, progress=False, max_steps=m)
    with pytest.raises(
        ValueError,
        match="stop_at_step: expected more than the checkpoint's step 3, got 3",
    ):
        train(None, dst, resume=True, progress=False, max_steps=5, stop_at_step=3)
    with pytest.raises(TypeError, match=r"overrides: unknown field\(s\) \['foo'\]"):
        train(None, dst, resume=True, progress=False, foo=1)
    assert (dst / "ckpt.pt").read_bytes() == before
    assert (
        train(None, dst, resume=True, progress=False, max_steps=4).step == 4
    )  # still valid


def _set(key, value):
    return lambda ck: ck.__setitem__(key, value)


def _nan_weight(ck):
    ck["model"]["W_e.weight"].view(-1)[3] = float("nan")


def _nan_optimizer(ck):
    next(iter(ck["optimizer"]["state"].values()))["exp_avg"].view(-1)[0] = float("inf")


def _config(**kw):
    return lambda ck: ck["config"].update(kw)


CORRUPT = [
    ("step str", _set("step", "abc"), r"has step='abc'; expected an integer >= 0"),
    ("step negative", _set("step", -3), r"has step=-3; expected an integer >= 0"),
    ("step float", _set("step", 1.5), r"has step=1\.5; expected an integer >= 0"),
    ("rng junk", _set("rng", {"batch": "x", "ranks": []}), r"invalid rng: expected"),
    (
        "rng bytes",
        lambda ck: ck["rng"].__setitem__("batch", torch.zeros(7, dtype=torch.uint8)),
        r"invalid rng\['batch'\]: not a random-number generator state",
    ),
    ("history int", _set("history", 5), r"invalid history: expected a dict of lists"),
    ("history key", lambda ck: ck["history"].pop("val_seconds"), r"invalid history"),
    ("config key", _config(foo=1), r"invalid config: unknown field\(s\) \['foo'\]"),
    (
        "config value",
        _config(lr=-1.0),
        r"invalid config: lr: expected a finite number >= 0",
    ),
    (
        "NaN weight",
        _nan_weight,
        r"1 NaN or infinite value\(s\) in model\['W_e\.weight'\]",
    ),
    (
        "inf optimizer",
        _nan_optimizer,
        r"NaN or infinite value\(s\) in optimizer\['state'\]",
    ),
    (
        "tokenizer V",
        _set("tokenizer", {"kind": "char", "itos": "abc"}),
        r"tokenizer of V=3 tokens but model_config V=\d+",
    ),
    (
        "model_config eps",
        lambda ck: ck["model_config"].update(eps=-1.0),
        r"invalid model_config: eps: expected a finite number > 0",
    ),
]


@pytest.mark.parametrize("name, mutate, match", CORRUPT, ids=[c[0] for c in CORRUPT])
def test_damaged_checkpoint_is_a_checkpoint_error_and_is_never_rewritten(
    run, tmp_path, name, mutate, match
):
    dst, before = _copy_run(run, tmp_path, mutate)
    with pytest.raises(CheckpointError, match=match):
        train(None, dst, resume=True, progress=False, max_steps=5)
    assert (dst / "ckpt.pt").read_bytes() == before
    assert sorted(p.name for p in dst.iterdir()) == ["ckpt.pt"]


@pytest.mark.parametrize(
    "name, mutate, match",
    [
        c
        for c in CORRUPT
        if c[0] in ("step negative", "NaN weight", "tokenizer V", "model_config eps")
    ],
    ids=["step negative", "NaN weight", "tokenizer V", "model_config eps"],
)
def test_load_checkpoint_rejects_what_would_give_nan_or_wrong_ids(
    run, tmp_path, name, mutate, match
):
    """Old code: the NaN weights and eps=-1 loaded and every probability was NaN; a 3-character
    tokenizer loaded next to a 19-token model."""
    dst, _ = _copy_run(run, tmp_path, mutate)
    with pytest.raises(CheckpointError, match=match):
        load_checkpoint(dst)


# -- train: what can fail before training fails before the first step ---------------------------


@pytest.fixture()
def no_step():
    """A step for ``train(step=...)`` that fails if called: ``train`` may not take a single
    step (the loop calls its step once per training step)."""

    def step(*args, **kwargs):
        raise AssertionError("a training step ran before the bad input was reported")

    return step


def test_no_step_fixture_does_stop_a_valid_run(base, no_step):
    # the guard of the tests below is live: a valid run reaches the step and fails there
    with pytest.raises(AssertionError, match="a training step ran"):
        train(None, None, progress=False, step=no_step, **base)


def test_train_out_dir_a_file_fails_before_any_step(base, tmp_path, no_step):
    """Old code: trained the whole run and failed at the first save, losing it."""
    f = tmp_path / "not_a_dir"
    f.write_text("keep me", encoding="utf-8")
    with pytest.raises(
        NotADirectoryError,
        match=rf"out_dir: expected a directory for ckpt\.pt, "
        rf"got '{f}', which is a file",
    ):
        train(None, f, progress=False, step=no_step, **base)
    with pytest.raises(
        NotADirectoryError,
        match=rf"out_dir: expected a directory path, got "
        rf"'{f / 'run'}', inside '{f}', which is a file",
    ):
        train(None, f / "run", progress=False, step=no_step, **base)
    with pytest.raises(
        NotADirectoryError, match="out_dir: "
    ):  # resuming: the same check
        train(None, f, resume=True, progress=False, step=no_step, **base)
    assert f.read_text(encoding="utf-8") == "keep me"


def test_train_out_dir_not_writable_fails_before_any_step(base, tmp_path, no_step):
    """A directory the process cannot write (read-only file system, or no permission)."""
    import os

    if Path("/sys").is_dir():  # read-only for every user, root included
        with pytest.raises(
            PermissionError,
            match=r"out_dir: expected a directory this process "
            r"can write, got '/sys/formulated_run' "
            r"\('/sys' cannot be written",
        ):
            train(None, "/sys/formulated_run", progress=False, step=no_step, **base)
    if os.geteuid() != 0:  # root writes whatever the mode says
        ro = tmp_path / "ro"
        ro.mkdir(mode=0o500)
        with pytest.raises(PermissionError, match=rf"out_dir: .* got '{ro / 'run'}'"):
            train(None, ro / "run", progress=False, step=no_step, **base)


def test_train_data_binary_or_a_directory_names_data(base, tmp_path, no_step):
    """Old code: a UnicodeDecodeError that did not name ``data``."""
    binary = tmp_path / "weights.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(
        ValueError,
        match=rf"data: expected a UTF-8 text file, got '{binary}', "
        r"which is not UTF-8 text \(byte 0x80 at offset 128\)",
    ):
        train(None, None, progress=False, step=no_step, **dict(base, data=str(binary)))
    with pytest.raises(
        FileNotFoundError,
        match=rf"data: expected a text file, got "
        rf"'{tmp_path}', a directory",
    ):
        train(
            None, None, progress=False, step=no_step, **dict(base, data=str(tmp_path))
        )


@pytest.mark.parametrize("damage", ["truncated", "empty", "NaN weight", "tokenizer V"])
def test_resume_from_a_checkpoint_that_cannot_be_loaded_fails_before_any_step(
    run, tmp_path, no_step, damage
):
    mutate = {
        "NaN weight": _nan_weight,
        "tokenizer V": _set("tokenizer", {"kind": "char", "itos": "abc"}),
    }.get(damage)
    dst, before = _copy_run(run, tmp_path, mutate)
    if damage == "truncated":
        (dst / "ckpt.pt").write_bytes(before[: len(before) // 2])
    elif damage == "empty":
        (dst / "ckpt.pt").write_bytes(b"")
    kept = (dst / "ckpt.pt").read_bytes()
    with pytest.raises(CheckpointError, match="checkpoint: "):
        train(None, dst, resume=True, progress=False, step=no_step, max_steps=5)
    assert (dst / "ckpt.pt").read_bytes() == kept
