"""Chapter 18: the PyTorch GPT is the NumPy formula, and the training loop resumes exactly.

Every run here is tiny (one or two layers of width 16-32, a handful of steps) so that the file
stays well under a minute and a half on one core.
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from _chapters import ROOT
from _helpers import TINY

from formulated import models
from formulated.models.trainable import (
    GPT,
    GPTConfig,
    count_parameters,
    to_numpy_params,
)
from formulated.tokenizers import CharTokenizer
from formulated.training import (
    PRESETS,
    CheckpointError,
    TrainConfig,
    evaluate,
    load_checkpoint,
    load_data,
    main,
    make_config,
    plot_losses,
    resolve_device,
    train,
    train_step,
    val_windows,
)
from formulated.training.optim import lr_lambda


def _env() -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


# -- tokenizer and data ------------------------------------------------------------------------


def test_char_tokenizer_round_trip_and_errors():
    tok, train_ids, val_ids = load_data()
    text = (ROOT / "data" / "tinyshakespeare.txt").read_text(encoding="utf-8")
    assert tok.vocab_size == len(set(text)) == 65
    # 90 % / 10 % split of the characters, as nanoGPT's shakespeare_char.
    assert len(train_ids) == int(0.9 * len(text)) and len(val_ids) == 111_540
    assert (
        tok.decode(val_ids[:50].tolist()) == text[len(train_ids) : len(train_ids) + 50]
    )
    with pytest.raises(
        KeyError, match=r"unknown character\(s\) \['é'\], the first at position 3"
    ):
        tok.encode("abcé")
    with pytest.raises(ValueError, match="ids: expected token ids in 0..64"):
        tok.decode([3, 65])
    with pytest.raises(FileNotFoundError, match="data: expected a text file"):
        load_data("/nonexistent/shakespeare.txt")


# -- the model is the formula ------------------------------------------------------------------


@pytest.mark.parametrize("gelu", ["erf", "tanh"])
def test_torch_gpt_equals_numpy_gpt2(gelu):
    """Same weights -> same probabilities as the book's NumPy GPT-2, in float64."""
    torch.manual_seed(0)
    cfg = GPTConfig(V=13, n_ctx=10, L=2, A=3, H=12, gelu=gelu)
    model = GPT(cfg).double()
    with (
        torch.no_grad()
    ):  # leave GPT-2's init (LayerNorm gains 1, biases 0): test every weight
        for p in model.parameters():
            p.add_(0.3 * torch.randn_like(p))
    x = torch.randint(0, 13, (3, 10), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        p_torch = torch.softmax(model(x)[0], dim=-1).numpy()
    params = to_numpy_params(model)
    p_numpy = models.gpt2_probabilities(x.numpy(), params, gelu=gelu, eps=cfg.eps)
    assert p_numpy.shape == (3, 10, 13)
    assert np.abs(p_torch - p_numpy).max() <= 1e-6
    # a shorter sequence uses the first rows of W_p in both
    p7 = models.gpt2_probabilities(x[0, :7].numpy(), params, gelu=gelu)
    assert np.abs(p7 - p_torch[0, :7]).max() <= 1e-6
    assert models.num_parameters(params) == count_parameters(model)


def test_attention_module_matches_torch_multihead_attention():
    """Our masked multi-head attention against torch.nn.MultiheadAttention with the same weights."""
    torch.manual_seed(0)
    cfg = GPTConfig(V=5, n_ctx=8, L=1, A=4, H=16)
    attn = GPT(cfg).double().blocks[0].attn
    ref = torch.nn.MultiheadAttention(16, 4, batch_first=True).double()
    with torch.no_grad():
        ref.in_proj_weight.copy_(attn.qkv.weight)
        ref.in_proj_bias.copy_(torch.randn(48, dtype=torch.float64))
        attn.qkv.bias.copy_(ref.in_proj_bias)
        ref.out_proj.weight.copy_(attn.proj.weight)
        ref.out_proj.bias.copy_(attn.proj.bias)
    X = torch.randn(2, 8, 16, dtype=torch.float64)
    causal = torch.triu(torch.ones(8, 8, dtype=torch.bool), diagonal=1)  # True = masked
    want, _ = ref(X, X, X, attn_mask=causal, need_weights=False)
    assert torch.allclose(attn(X), want, atol=1e-12)


def test_initial_loss_is_log_V():
    """At GPT-2's initialization the logits are nearly equal, so the loss is about ln V."""
    _, train_ids, _ = load_data()
    torch.manual_seed(0)
    model = GPT(GPTConfig(V=65, n_ctx=64, L=2, A=4, H=64))
    x = train_ids[: 64 * 16].view(16, 64)
    y = train_ids[1 : 64 * 16 + 1].view(16, 64)
    with torch.no_grad():
        _, loss = model(x, y)
    assert abs(loss.item() - math.log(65)) < 0.05, loss.item()


def test_gpt_input_errors():
    model = GPT(GPTConfig(V=5, n_ctx=4, L=1, A=1, H=4))
    with pytest.raises(ValueError, match="at most n_ctx=4 positions, got 5"):
        model(torch.zeros(1, 5, dtype=torch.long))
    with pytest.raises(ValueError, match=r"idx: expected a \(B, n\) tensor"):
        model(torch.zeros(5, dtype=torch.long))
    with pytest.raises(ValueError, match="H: expected a multiple of A=3"):
        GPTConfig(H=16, A=3)
    with pytest.raises(ValueError, match="gelu: expected 'erf' or 'tanh'"):
        GPTConfig(gelu="relu")
    with pytest.raises(
        TypeError, match="model: expected a formulated.models.trainable.GPT"
    ):
        to_numpy_params(torch.nn.Linear(2, 2))


def test_parameter_count_of_the_gpu_preset_model():
    """(The FLOPs per token are checked against PyTorch's counter in test_train_accel.py.)"""
    cfg = GPTConfig(V=65, n_ctx=256, L=6, A=6, H=384)
    n_params = count_parameters(GPT(cfg))
    # 12 H^2 per layer (4 H^2 attention + 8 H^2 FFN) + biases, LayerNorms and embeddings
    assert n_params == 6 * (12 * 384**2 + 13 * 384) + 2 * 384 + (65 + 256) * 384


# -- configuration, schedule, evaluation, sampling ---------------------------------------------


def test_config_errors_name_the_field():
    with pytest.raises(ValueError, match="preset: expected one of"):
        make_config("huge")
    with pytest.raises(TypeError, match=r"unknown field\(s\) \['learning_rate'\]"):
        make_config("book", learning_rate=1.0)
    with pytest.raises(
        ValueError, match="max_steps: expected a positive integer, got 0"
    ):
        make_config("book", max_steps=0)
    with pytest.raises(ValueError, match="min_lr: expected at most lr"):
        make_config("book", lr=1e-3, min_lr=1e-2)
    with pytest.raises(ValueError, match="compile: expected"):
        make_config("book", compile="yes")
    with pytest.raises(ValueError, match="device: expected 'auto'"):
        resolve_device("gpu0")
    assert resolve_device("auto").type in ("cuda", "mps", "cpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="sees no CUDA GPU"):
            resolve_device("cuda")
    assert set(PRESETS) == {"book", "cpu", "gpu"}


def test_lr_schedule_warmup_then_cosine():
    cfg = TrainConfig(lr=1e-3, min_lr=1e-4, warmup_steps=10, max_steps=110)
    f = lr_lambda(cfg)
    lrs = [cfg.lr * f(s) for s in range(111)]
    assert lrs[0] == pytest.approx(1e-4) and lrs[9] == pytest.approx(
        1e-3
    )  # linear warm-up
    assert lrs[10] == pytest.approx(1e-3)
    # half-way through the decay the cosine is at the mean of lr and min_lr
    assert lrs[60] == pytest.approx(0.5 * (1e-3 + 1e-4))
    assert lrs[110] == pytest.approx(1e-4)
    assert all(a >= b for a, b in zip(lrs[10:], lrs[11:]))


def _torch_rates(cfg: TrainConfig, later: Any, milestones: list[int]) -> list[float]:
    """The rates of ``cfg.max_steps`` steps by torch's own schedulers: LinearLR for the
    warm-up, then those that ``later(optimizer)`` returns, switched by SequentialLR at
    ``milestones``."""
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=cfg.lr)
    warm = torch.optim.lr_scheduler.LinearLR(
        opt,
        start_factor=1 / cfg.warmup_steps,
        end_factor=1.0,
        total_iters=cfg.warmup_steps - 1,
    )
    sched = torch.optim.lr_scheduler.SequentialLR(opt, [warm, *later(opt)], milestones)
    rates = []
    for _ in range(cfg.max_steps):
        rates.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    return rates


def test_lr_schedule_matches_torch_schedulers():
    """def-18-schedule against torch's own schedulers: LinearLR for the warm-up, then
    CosineAnnealingLR to min_lr (SequentialLR switches at step T_w)."""
    cfg = TrainConfig(lr=1e-3, min_lr=1e-4, warmup_steps=10, max_steps=110)
    f = lr_lambda(cfg)
    theirs = _torch_rates(
        cfg,
        lambda opt: [
            torch.optim.lr_scheduler.CosineAnnealingLR(
                opt, T_max=100, eta_min=cfg.min_lr
            )
        ],
        [10],
    )
    ours = [cfg.lr * f(s) for s in range(110)]
    assert max(abs(a - b) for a, b in zip(ours, theirs)) < 1e-12


def test_lr_schedule_decay_frac_matches_torch_schedulers():
    """decay_frac < 1 (nanoGPT's lr_decay_iters): torch's LinearLR, then CosineAnnealingLR
    over d - T_w steps, then ConstantLR at min_lr for the rest (SequentialLR switches at T_w
    and d = decay_frac * max_steps)."""
    cfg = TrainConfig(
        lr=1e-3, min_lr=1e-4, warmup_steps=10, max_steps=140, decay_frac=0.75
    )
    f = lr_lambda(cfg)
    theirs = _torch_rates(
        cfg,
        lambda opt: [
            torch.optim.lr_scheduler.CosineAnnealingLR(
                opt, T_max=95, eta_min=cfg.min_lr
            ),
            torch.optim.lr_scheduler.ConstantLR(
                opt, factor=cfg.min_lr / cfg.lr, total_iters=10**6
            ),
        ],
        [10, 105],
    )
    ours = [cfg.lr * f(s) for s in range(140)]
    assert max(abs(a - b) for a, b in zip(ours, theirs)) < 1e-12
    assert ours[104] > cfg.min_lr and ours[105:] == [pytest.approx(cfg.min_lr)] * 35


@pytest.mark.parametrize(
    "kw, message",
    [
        (
            dict(decay_frac=0.0),
            r"decay_frac: expected a share of max_steps in \(0, 1\], got 0.0",
        ),
        (
            dict(decay_frac=1.5),
            r"decay_frac: expected a share of max_steps in \(0, 1\], got 1.5",
        ),
        (
            dict(decay_frac="0.8"),
            r"decay_frac: expected a share of max_steps in \(0, 1\], got ",
        ),
        (
            dict(decay_frac=0.02),
            r"decay_frac: expected the decay to end after the warm-up "
            r"\(decay_frac \* max_steps > warmup_steps=50\), "
            r"got 0.02 \* 1500 = 30",
        ),
    ],
)
def test_decay_frac_refused_naming_it(kw, message):
    with pytest.raises((TypeError, ValueError), match=message):
        make_config("book", **kw)


# -- the training step: one public function, the one the loop runs ---------------------------


def test_train_step_is_one_adamw_step_by_hand():
    """train_step with the loop's optimizer and schedule against def-18-step written out:
    g = grad L, clipped to norm c, then AdamW's first step, which is
    theta (1 - eta lambda) - eta m_hat / (sqrt(v_hat) + eps), m_hat = g, v_hat = g^2."""
    from formulated.training import train_step
    from formulated.training.optim import make_optimizers

    cfg = make_config("book", L=1, A=2, H=16, n_ctx=16, B=2, grad_clip=0.05)
    torch.manual_seed(0)
    model = GPT(
        GPTConfig(V=11, **{k: getattr(cfg.model, k) for k in ("n_ctx", "L", "A", "H")})
    ).double()
    opts = make_optimizers(model, cfg, torch.device("cpu"))
    scheds = [torch.optim.lr_scheduler.LambdaLR(o, lr_lambda(cfg)) for o in opts]
    x = torch.randint(0, 11, (2, 16), generator=torch.Generator().manual_seed(1))
    y = torch.randint(0, 11, (2, 16), generator=torch.Generator().manual_seed(2))

    theta = [p.detach().clone() for p in model.parameters()]
    g = torch.autograd.grad(model(x, y)[1], list(model.parameters()))
    norm = float(torch.sqrt(sum((gi**2).sum() for gi in g)))
    assert norm > cfg.grad_clip  # the clipping is exercised
    g = [gi * min(1.0, cfg.grad_clip / (norm + 1e-6)) for gi in g]
    eta = cfg.lr * lr_lambda(cfg)(0)
    b1, b2, eps = cfg.beta1, cfg.beta2, 1e-8  # torch's AdamW default eps
    want = []
    for th, gi in zip(theta, g):
        lam = cfg.weight_decay if th.dim() >= 2 else 0.0  # decay on the matrices only
        m_hat = (1 - b1) * gi / (1 - b1)
        v_hat = (1 - b2) * gi**2 / (1 - b2)
        want.append(th * (1 - eta * lam) - eta * m_hat / (v_hat.sqrt() + eps))

    loss = train_step(model, opts, scheds, x, y, cfg.grad_clip)
    assert loss.requires_grad is False and loss.shape == ()
    assert float(loss) == pytest.approx(
        math.log(11), abs=0.05
    )  # near ln V at the start
    assert (
        max(
            float((p.detach() - w).abs().max())
            for p, w in zip(model.parameters(), want)
        )
        < 1e-12
    )
    assert all(p.grad is None for p in model.parameters())  # ready for the next step
    assert opts[0].param_groups[0]["lr"] == pytest.approx(cfg.lr * lr_lambda(cfg)(1))


def test_train_step_argument_errors_name_the_argument():
    from formulated.training import train_step

    model = GPT(GPTConfig(V=5, n_ctx=4, L=1, A=1, H=4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda t: 1.0)
    x = torch.zeros(1, 4, dtype=torch.long)
    with pytest.raises(
        TypeError, match="optimizers: expected a list of torch.optim.Optimizer, got SGD"
    ):
        train_step(model, opt, [sched], x, x, 1.0)
    with pytest.raises(TypeError, match="schedulers: expected a list of 1 "):
        train_step(model, [opt], [], x, x, 1.0)
    with pytest.raises(
        TypeError, match="y: expected a .B, n. tensor of token ids, got list"
    ):
        train_step(model, [opt], [sched], x, [[0, 1, 2, 3]], 1.0)
    for bad in (-1.0, float("nan")):
        with pytest.raises(
            ValueError, match="grad_clip: expected a finite number >= 0"
        ):
            train_step(model, [opt], [sched], x, x, bad)
    with pytest.raises(TypeError, match="model: expected a torch.nn.Module"):
        train_step("gpt", [opt], [sched], x, x, 1.0)


def test_the_loop_calls_the_public_train_step():
    """train(step=...) runs the loop with that step: the loop has no step of its own, and
    the default is the public train_step (a spy around it reaches the same weights)."""
    shapes = []

    def spy(model, optimizers, schedulers, x, y, grad_clip, autocast):
        shapes.append(tuple(x.shape))
        train_step(model, optimizers, schedulers, x, y, grad_clip, autocast)
        return torch.tensor(7.0)  # a loss no real step returns

    plain = train("book", None, progress=False, **dict(TINY, max_steps=3))
    spied = train("book", None, progress=False, step=spy, **dict(TINY, max_steps=3))
    assert shapes == [(4, 16)] * 3
    assert spied.history["loss"] == [7.0, 7.0, 7.0]
    assert plain.history["loss"] != [7.0, 7.0, 7.0]
    w1, w2 = _weights(plain.model), _weights(spied.model)  # the spy ran the real step
    assert all(torch.equal(w1[k], w2[k]) for k in w1)
    with pytest.raises(TypeError, match="step: expected a function like train_step"):
        train("book", step="train_step")


def _attributes_set_outside_init(source: str) -> dict[str, set[str]]:
    """For each class of ``source``: the ``self.x`` that a method assigns although neither
    the constructor (``__init__``, a dataclass's fields and ``__post_init__``) does."""
    import ast

    def assigned(fn: ast.AST) -> set[str]:
        return {
            e.attr
            for node in ast.walk(fn)
            for e in ast.walk(node)
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
            and isinstance(e, ast.Attribute)
            and isinstance(e.ctx, ast.Store)
            and isinstance(e.value, ast.Name)
            and e.value.id == "self"
        }

    out = {}
    for cls in (n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ClassDef)):
        methods = [f for f in cls.body if isinstance(f, ast.FunctionDef)]
        ctor = ("__init__", "__post_init__")
        fields = {
            f.target.id
            for f in cls.body
            if isinstance(f, ast.AnnAssign) and isinstance(f.target, ast.Name)
        }
        init = fields.union(*(assigned(f) for f in methods if f.name in ctor))
        later = (
            set().union(*(assigned(f) for f in methods if f.name not in ctor)) - init
        )
        if later:
            out[cls.name] = later
    return out


def test_the_run_sets_all_its_state_in_its_constructor():
    """Everything a run object holds is set in __init__ (a reader finds it in one place)."""
    assert _attributes_set_outside_init(
        "class A:\n    def __init__(self):\n        self.a = 1\n"
        "    def f(self):\n        self.a, self.b = 2, 3\n        self.c: int = 4\n"
    ) == {"A": {"b", "c"}}
    for path in sorted((ROOT / "formulated" / "training").glob("*.py")):
        late = _attributes_set_outside_init(path.read_text(encoding="utf-8"))
        assert not late, f"{path.name}: attributes first set outside __init__: {late}"


def test_val_windows_cover_each_character_once_and_evaluate_matches_naive_loop():
    ids = torch.arange(23) % 7
    X, Y = val_windows(ids, 5)
    assert X.shape == (5, 5) and int((Y >= 0).sum()) == 22
    assert torch.equal(Y[Y >= 0], ids[1:]) and torch.equal(X.flatten()[:22], ids[:-1])
    torch.manual_seed(0)
    model = GPT(GPTConfig(V=7, n_ctx=5, L=1, A=1, H=8))
    total = 0.0
    with (
        torch.no_grad()
    ):  # independent: one window at a time, the last one really shorter
        for s in range(0, 22, 5):
            x = ids[s : min(s + 5, 22)][None]
            y = ids[s + 1 : min(s + 6, 23)][None]
            total += F.cross_entropy(model(x)[0][0], y[0], reduction="sum").item()
    assert evaluate(model, ids, 5, batch=2) == pytest.approx(total / 22, rel=1e-6)


def test_sampling_is_seeded_and_top_k_1_is_greedy():
    tok = CharTokenizer(list("abcdefgh"))
    torch.manual_seed(0)
    model = GPT(GPTConfig(V=8, n_ctx=6, L=1, A=2, H=8))
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p))
    a = model.sample(tok, "abc", 20, temperature=1.0, seed=3)
    assert len(a) == 20 and a == model.sample(tok, "abc", 20, temperature=1.0, seed=3)
    assert a != model.sample(tok, "abc", 20, temperature=1.0, seed=4)
    # independent greedy decoding: argmax of the logits, the context cut to n_ctx
    ids = tok.encode("abc")
    with torch.no_grad():
        for _ in range(20):
            ids.append(int(model(torch.tensor([ids[-6:]]))[0][0, -1].argmax()))
    greedy = tok.decode(ids[3:])
    assert model.sample(tok, "abc", 20, temperature=0) == greedy
    assert model.sample(tok, "abc", 20, temperature=1.5, top_k=1, seed=9) == greedy
    with pytest.raises(ValueError, match="temperature: expected a number >= 0"):
        model.sample(tok, "a", 3, temperature=-1)
    with pytest.raises(ValueError, match="top_k: expected None or an integer >= 1"):
        model.sample(tok, "a", 3, top_k=0)
    with pytest.raises(KeyError, match="unknown character"):
        model.sample(tok, "xyz", 3)


# -- checkpoints: exact resume, corruption, interruption ---------------------------------------


def _weights(model: torch.nn.Module) -> dict:
    return {k: v.clone() for k, v in model.state_dict().items()}


def test_resume_continues_exactly(tmp_path):
    """N steps straight == N/2 steps, a checkpoint, and N/2 more after resume (dropout on)."""
    cfg = dict(TINY, max_steps=8, dropout=0.1, ckpt_interval=3)
    straight = train("book", tmp_path / "a", progress=False, **cfg)
    half = train("book", tmp_path / "b", progress=False, stop_at_step=4, **cfg)
    assert half.step == 4 and math.isnan(half.val_loss)
    resumed = train(None, tmp_path / "b", resume=True, progress=False)
    assert resumed.step == 8 and resumed.config == straight.config
    w1, w2 = _weights(straight.model), _weights(resumed.model)
    assert all(torch.equal(w1[k], w2[k]) for k in w1)
    assert resumed.history["loss"] == straight.history["loss"]
    assert resumed.val_loss == straight.val_loss
    assert not list(
        (tmp_path / "b").glob("*.tmp")
    )  # atomic writes leave no temporary file
    model, tok, ck = load_checkpoint(tmp_path / "b")
    assert ck["step"] == 8 and tok.vocab_size == 65
    assert all(torch.equal(w1[k], v) for k, v in model.state_dict().items())


def test_bad_checkpoints_give_clear_errors_and_are_never_overwritten(tmp_path):
    run = tmp_path / "run"
    train("book", run, progress=False, **dict(TINY, max_steps=2))
    ckpt = run / "ckpt.pt"
    good = ckpt.read_bytes()
    # starting afresh over it is refused
    with pytest.raises(FileExistsError, match="already holds a checkpoint"):
        train("book", run, progress=False, **dict(TINY, max_steps=2))
    # incompatible: another width
    with pytest.raises(
        CheckpointError, match=r"incompatible.*H: checkpoint 16, now 32"
    ):
        train("book", run, resume=True, progress=False, **dict(TINY, max_steps=4, H=32))
    assert ckpt.read_bytes() == good
    # missing
    with pytest.raises(CheckpointError, match="found none"):
        train(None, tmp_path / "empty", resume=True, progress=False)
    # truncated (a crash while copying it, a full disk...)
    ckpt.write_bytes(good[: len(good) // 2])
    with pytest.raises(CheckpointError, match="truncated or corrupt"):
        train(None, run, resume=True, progress=False)
    with pytest.raises(CheckpointError, match="truncated or corrupt"):
        load_checkpoint(ckpt)
    assert (
        ckpt.read_bytes() == good[: len(good) // 2]
    )  # left as found, nothing written over it
    # a valid torch file that is not ours
    torch.save({"weights": torch.zeros(2)}, ckpt)
    with pytest.raises(
        CheckpointError, match="not a checkpoint of formulated.training"
    ):
        train(None, run, resume=True, progress=False)


@pytest.mark.slow  # a training process of its own
def test_ctrl_c_saves_a_checkpoint_and_exits_cleanly(tmp_path):
    out = tmp_path / "run"
    cmd = [
        sys.executable,
        "-m",
        "formulated.training",
        "--out",
        str(out),
        "--no-progress",
        "--max_steps",
        "100000",
        "--ckpt_interval",
        "2",
        *sum(
            (
                [f"--{k}", str(v)]
                for k, v in TINY.items()
                if k not in ("ckpt_interval",)
            ),
            [],
        ),
    ]
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 60
    while (
        not (out / "ckpt.pt").exists()
        and time.time() < deadline
        and proc.poll() is None
    ):
        time.sleep(0.1)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "Interrupted at step" in stderr
    _, _, ck = load_checkpoint(out)
    assert ck["step"] >= 2 and ck["step"] == ck["history"]["step"][-1]


# -- command line and data parallelism ---------------------------------------------------------


def _cli_args(**kw) -> list[str]:
    return sum(([f"--{k}", str(v)] for k, v in kw.items()), [])


def test_cli_trains_resumes_and_reports_errors(tmp_path, capsys):
    out = tmp_path / "cli"
    args = ["--out", str(out), "--no-progress", "--sample", "40"]
    assert main(args + _cli_args(**dict(TINY, max_steps=3))) == 0
    text = capsys.readouterr().out
    assert "step 3  val loss" in text
    assert main(args + ["--resume", "--max_steps", "5"]) == 0
    assert "step 5  val loss" in capsys.readouterr().out
    assert main(args + _cli_args(**dict(TINY, max_steps=3))) == 2  # would overwrite
    assert "already holds a checkpoint" in capsys.readouterr().err
    assert main(args + ["--resume", "--H", "32"]) == 2  # incompatible
    assert "incompatible" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--out", str(out), "--preset", "huge"])


@pytest.mark.slow  # two torchrun processes
def test_torchrun_two_processes_gloo_equals_one_process(tmp_path):
    """DDP on 2 CPU processes (gloo) computes what one process computes with the same batch."""
    cfg = dict(TINY, max_steps=4, eval_interval=2)
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc_per_node=2",
        "-m",
        "formulated.training",
        "--out",
        str(tmp_path / "ddp"),
        "--no-progress",
        "--sample",
        "0",
        *_cli_args(**cfg),
    ]
    r = subprocess.run(
        cmd, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=180
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert "step 4  val loss" in r.stdout and "2 processes" in r.stdout
    ddp_model, _, ck = load_checkpoint(tmp_path / "ddp")
    assert ck["world_size"] == 2 and len(ck["rng"]["ranks"]) == 2
    one = train("book", None, progress=False, **cfg)
    for k, v in one.model.state_dict().items():
        assert torch.allclose(ddp_model.state_dict()[k], v, atol=1e-5), k
    assert ck["history"]["val_loss"] == pytest.approx(one.history["val_loss"], abs=1e-5)


def test_plot_losses_draws_train_and_val(tmp_path):
    import matplotlib.pyplot as plt

    res = train(
        "book", None, progress=False, **dict(TINY, max_steps=6, eval_interval=3)
    )
    assert res.history["val_step"] == [3, 6] and len(res.history["loss"]) == 6
    ax = plot_losses(res)
    assert len(ax.lines) >= 2
    plt.close("all")


def _two_group_adamw(model: torch.nn.Module, cls: type, **kw) -> torch.optim.Optimizer:
    return cls(
        [
            {"params": [model.weight], "weight_decay": 0.1},
            {"params": [model.bias], "weight_decay": 0.0},
        ],
        lr=1e-2,
        betas=(0.9, 0.99),
        **kw,
    )


def test_adamw_is_torch_fused_adamw_bit_for_bit():
    """The loop's AdamW (formulated.training.optim.AdamW, which spares a GPU run the import of
    torch._dynamo) against PyTorch's ``AdamW(fused=True)``, the reference: the same weights
    bit for bit after six scheduled steps with weight decay on one group only, and the state
    of each loads into the other and continues identically."""
    from formulated.training.optim import AdamW

    torch.manual_seed(0)
    ours, ref = torch.nn.Linear(6, 4), torch.nn.Linear(6, 4)
    ref.load_state_dict(ours.state_dict())
    opts = [
        _two_group_adamw(ours, AdamW),
        _two_group_adamw(ref, torch.optim.AdamW, fused=True),
    ]
    scheds = [
        torch.optim.lr_scheduler.LambdaLR(o, lambda s: 1.0 / (s + 1)) for o in opts
    ]
    for step in range(6):
        x = torch.randn(5, 6)
        for model, opt, sched in zip((ours, ref), opts, scheds):
            model(x).pow(2).sum().backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            sched.step()
        if step == 2:  # swap the states: each continues from the other's
            a, b = opts[0].state_dict(), opts[1].state_dict()
            opts[0].load_state_dict(b)
            opts[1].load_state_dict(a)
    for p, q in zip(ours.parameters(), ref.parameters()):
        assert torch.equal(p, q)
    assert not torch.equal(ours.weight, torch.nn.Linear(6, 4).weight)  # it did move


@pytest.mark.slow  # a Python process of its own
def test_a_training_run_never_imports_torch_dynamo(tmp_path):
    """torch.optim's methods import torch._dynamo (seconds at a GPU run's start); a whole run
    (steps, evaluations, a checkpoint, a resumed run, a run with Muon) does without it.  In a
    fresh process, since other tests import it."""
    code = (
        "import sys\n"
        "from formulated.training import train\n"
        f"kw = dict(L=1, A=2, H=16, n_ctx=16, B=4, eval_interval=3, device='cpu', "
        f"progress=False)\n"
        f"train('book', {str(tmp_path)!r}, max_steps=6, **kw)\n"
        f"train(None, {str(tmp_path)!r}, resume=True, max_steps=8, progress=False)\n"
        "train('book', None, optimizer='muon', max_steps=4, **kw)\n"
        "print(sorted(m for m in sys.modules if m.startswith('torch._dynamo'))[:3])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_adamw_steps_over_a_group_without_gradients_and_refuses_bad_hyper_parameters():
    """As torch's AdamW: a step before any backward pass changes nothing (the fused kernel
    itself refuses empty lists), and a negative rate, a beta of 1 or a NaN decay is refused
    with the argument's name."""
    from formulated.training.optim import AdamW

    model = torch.nn.Linear(3, 2)
    before = [p.clone() for p in model.parameters()]
    AdamW(model.parameters(), lr=1e-2, betas=(0.9, 0.99)).step()
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters()))
    for kw, name in (
        (dict(lr=-1.0), "lr"),
        (dict(betas=(0.9, 1.0)), "betas"),
        (dict(weight_decay=float("nan")), "weight_decay"),
        (dict(eps=-1e-8), "eps"),
    ):
        args = dict(dict(lr=1e-2, betas=(0.9, 0.99)), **kw)
        with pytest.raises(ValueError, match=f"^{name}: expected"):
            AdamW(model.parameters(), **args)
