"""formulated.training's configuration, optimizers and overrides: the training configuration
contains the model's (so every model field, ``eps`` included, can be set), version-1 checkpoints
(flat configuration) still resume, Muon takes the blocks' matrices and resumes exactly, and the
``key=value`` overrides of the benchmarks are typed like the command line's options.
"""

from __future__ import annotations

import dataclasses

import pytest
import torch
from _helpers import TINY

from formulated.models.trainable import GPT, GPTConfig
from formulated.training import PRESETS, TrainConfig, make_config, train, with_overrides
from formulated.training.cli import parse_overrides, parse_value
from formulated.training.config import MODEL_FIELDS
from formulated.training.optim import Muon, make_optimizers

TINY_EAGER = dict(TINY, compile="off")


def test_train_config_contains_the_model_config_and_eps_reaches_the_model():
    cfg = make_config("cpu")
    assert cfg.model == GPTConfig(**PRESETS["cpu"]["model"])  # one source: the preset
    assert not set(MODEL_FIELDS) & {f.name for f in dataclasses.fields(TrainConfig)}
    cfg = make_config("book", eps=1e-3, L=1, lr=1e-3)
    assert (cfg.model.eps, cfg.model.L, cfg.lr) == (1e-3, 1, 1e-3)
    assert cfg.model.H == PRESETS["book"]["model"]["H"]
    res = train("book", None, progress=False, **dict(TINY_EAGER, max_steps=1, eps=1e-3))
    # torch's own LayerNorm modules of the trained model carry the eps that was asked for
    norms = [m for m in res.model.modules() if isinstance(m, torch.nn.LayerNorm)]
    assert len(norms) == 3 and all(m.eps == 1e-3 for m in norms)
    with pytest.raises(TypeError, match=r"overrides: unknown field\(s\) \['V'\]"):
        make_config("book", V=3)  # the vocabulary comes from the data
    with pytest.raises(ValueError, match="eps: expected a finite number > 0"):
        make_config("book", eps=-1.0)
    with pytest.raises(TypeError, match="model: expected a GPTConfig"):
        TrainConfig(model=5)


def test_with_overrides_routes_each_name_to_its_configuration():
    cfg = make_config("book")
    new = with_overrides(cfg, {"L": 3, "lr": 1e-3, "gelu": "tanh"})
    assert (new.model.L, new.model.gelu, new.lr) == (3, "tanh", 1e-3)
    assert (
        dataclasses.replace(new, model=cfg.model, lr=cfg.lr) == cfg
    )  # nothing else moved
    whole = with_overrides(cfg, {"model": GPTConfig(L=1, A=1, H=8, n_ctx=8), "H": 16})
    assert (whole.model.L, whole.model.H, whole.model.n_ctx) == (1, 16, 8)
    assert TrainConfig.from_dict(dataclasses.asdict(new)) == new


def test_version_1_checkpoint_with_a_flat_config_still_resumes(tmp_path):
    cfg = dict(TINY_EAGER, max_steps=4, ckpt_interval=2)
    straight = train("book", None, progress=False, **cfg)
    train("book", tmp_path / "r", progress=False, stop_at_step=2, **cfg)
    ck = torch.load(tmp_path / "r" / "ckpt.pt", weights_only=True)
    # the layout of formulated/train.py: the model fields next to the training fields
    flat = {
        k: v
        for k, v in ck["config"].items()
        if k not in ("model", "optimizer", "muon_lr")
    }
    flat.update(
        {k: v for k, v in ck["config"]["model"].items() if k not in ("V", "eps")}
    )
    ck["config"], ck["version"] = flat, 1
    ck["history"].pop("eval_seconds")
    torch.save(ck, tmp_path / "r" / "ckpt.pt")
    resumed = train(None, tmp_path / "r", resume=True, progress=False)
    assert resumed.step == 4 and resumed.history["loss"] == straight.history["loss"]
    w1, w2 = straight.model.state_dict(), resumed.model.state_dict()
    assert all(torch.equal(w1[k], w2[k]) for k in w1)


def test_muon_takes_the_block_matrices_and_resumes_exactly(tmp_path):
    model = GPT(GPTConfig(V=11, n_ctx=8, L=2, A=2, H=8))
    adamw, muon = make_optimizers(
        model, make_config(None, optimizer="muon"), torch.device("cpu")
    )
    assert isinstance(muon, Muon)
    in_adamw = [p for g in adamw.param_groups for p in g["params"]]
    in_muon = [p for g in muon.param_groups for p in g["params"]]
    names = {id(p): n for n, p in model.named_parameters()}
    assert sorted(names[id(p)] for p in in_muon) == sorted(
        n
        for n, p in model.named_parameters()
        if n.startswith("blocks.") and p.dim() == 2
    )
    assert len(in_adamw) + len(in_muon) == len(list(model.parameters()))
    assert not {id(p) for p in in_adamw} & {id(p) for p in in_muon}
    cfg = dict(TINY_EAGER, max_steps=6, ckpt_interval=3, optimizer="muon", muon_lr=0.05)
    straight = train("book", None, progress=False, **cfg)
    adam_only = train("book", None, progress=False, **dict(cfg, optimizer="adamw"))
    assert (
        straight.history["loss"][1:] != adam_only.history["loss"][1:]
    )  # Muon really steps
    train("book", tmp_path / "m", progress=False, stop_at_step=3, **cfg)
    assert "muon" in torch.load(tmp_path / "m" / "ckpt.pt", weights_only=True)
    resumed = train(None, tmp_path / "m", resume=True, progress=False)
    assert resumed.history["loss"] == straight.history["loss"]
    w1, w2 = straight.model.state_dict(), resumed.model.state_dict()
    assert all(torch.equal(w1[k], w2[k]) for k in w1)


def _muon_pair(seed: int = 0, **kw):
    """The same matrices (three of each shape of a 3-layer block: wide, tall, square) under
    torch's Muon and ours."""
    g = torch.Generator().manual_seed(seed)
    shapes = [(48, 16), (16, 16), (64, 16), (16, 64)] * 3
    ws = [torch.randn(s, generator=g) for s in shapes]
    theirs = [torch.nn.Parameter(w.clone()) for w in ws]
    ours = [torch.nn.Parameter(w.clone()) for w in ws]
    return (theirs, torch.optim.Muon(theirs, **kw)), (ours, Muon(ours, **kw)), g


@pytest.mark.parametrize(
    "kw",
    [
        dict(lr=0.05, weight_decay=0.1),
        dict(lr=0.02, weight_decay=0.0, nesterov=False, momentum=0.9),
        dict(lr=0.03, adjust_lr_fn="match_rms_adamw", ns_steps=3),
    ],
)
def test_muon_is_torch_muon_to_bfloat16_rounding(kw):
    """Four steps of the same gradients: the momentum (float32, before the iterations) is
    torch's exactly; each step moves every entry within one bfloat16 spacing of the
    orthogonalized update (2^-7 near 1, times the rate and its factor) of torch's step, far
    less than the update itself."""
    (theirs, t_opt), (ours, o_opt), g = _muon_pair(**kw)
    for step in range(1, 5):
        for a, b in zip(theirs, ours):
            a.grad = torch.randn(a.shape, generator=g)
            b.grad = a.grad.clone()
        before = [a.detach().clone() for a in theirs]
        t_opt.step()
        o_opt.step()
        for a, b, w in zip(theirs, ours, before):
            assert torch.equal(
                t_opt.state[a]["momentum_buffer"], o_opt.state[b]["momentum_buffer"]
            )
            r, c = a.shape
            scale = kw["lr"] * (
                0.2 * max(r, c) ** 0.5
                if kw.get("adjust_lr_fn")
                else max(1.0, r / c) ** 0.5
            )
            assert (a - b).abs().max() <= step * 2**-7 * scale
            assert (
                a - w
            ).abs().max() > 20 * 2**-7 * scale  # the update itself is larger
    groups = o_opt.state_dict()["param_groups"]
    assert [dict(g, split=1) for g in t_opt.state_dict()["param_groups"]] == groups
    t_opt.load_state_dict(o_opt.state_dict())  # either's checkpoint loads
    o_opt.load_state_dict(t_opt.state_dict())  # (torch's has no split: 1)
    for a in ours:
        a.grad = torch.ones_like(a)
    o_opt.step()


def test_muon_split_orthogonalizes_each_block_as_torch_muon_a_matrix():
    """``split=3`` on ``[W^Q; W^K; W^V]`` (48 x 16) is torch's Muon on the three 16 x 16
    matrices as separate parameters (same rounding bound as above); without the split the
    tall matrix moves differently."""
    g = torch.Generator().manual_seed(1)
    W = torch.randn(48, 16, generator=g)
    ours, whole = torch.nn.Parameter(W.clone()), torch.nn.Parameter(W.clone())
    parts = [torch.nn.Parameter(b.clone()) for b in W.chunk(3)]
    kw = dict(lr=0.05, weight_decay=0.1)
    opts = [
        Muon([ours], split=3, **kw),
        Muon([whole], **kw),
        torch.optim.Muon(parts, **kw),
    ]
    for step in range(1, 4):
        G = torch.randn(48, 16, generator=g)
        ours.grad, whole.grad = G.clone(), G.clone()
        for b, Gb in zip(parts, G.chunk(3)):
            b.grad = Gb.clone()
        for o in opts:
            o.step()
        assert (ours - torch.cat(parts)).abs().max() <= step * 2**-7 * kw["lr"]
    assert (ours - whole).abs().max() > 20 * 2**-7 * kw["lr"]
    with pytest.raises(
        ValueError, match=r"rows split into 5 equal blocks, got .* \(48, 16\)"
    ):
        Muon([ours], split=5)
    with pytest.raises(ValueError, match="split: expected an integer >= 1, got 0"):
        Muon([ours], split=0)


def test_muon_fails_where_torch_muon_is_changed():
    """The tolerance of the test above catches a wrong update: torch's Muon with another
    momentum, scale or number of iterations leaves ours by far more than bfloat16 rounding."""
    base = dict(lr=0.05, weight_decay=0.1)
    for change in (
        dict(momentum=0.9),
        dict(adjust_lr_fn="match_rms_adamw"),
        dict(ns_steps=4),
        dict(nesterov=False),
        dict(weight_decay=0.2),
    ):
        (theirs, _), (ours, o_opt), g = _muon_pair(**base)
        t_opt = torch.optim.Muon(theirs, **dict(base, **change))
        for _ in range(2):
            for a, b in zip(theirs, ours):
                a.grad = torch.randn(a.shape, generator=g)
                b.grad = a.grad.clone()
            t_opt.step()
            o_opt.step()
        worst = max(
            (
                (a - b).abs().max()
                / (base["lr"] * max(1.0, a.shape[0] / a.shape[1]) ** 0.5)
            ).item()
            for a, b in zip(theirs, ours)
        )
        assert worst > 8 * 2**-7, (change, worst)


def test_muon_refuses_bad_hyper_parameters_naming_them():
    w = [torch.nn.Parameter(torch.zeros(4, 4))]
    for kw, msg in (
        (dict(lr=-1.0), "lr: expected a finite number >= 0, got -1.0"),
        (dict(momentum=float("nan")), "momentum: expected a finite number >= 0"),
        (dict(ns_steps=2.5), r"ns_steps: expected an integer in \[0, 100\), got 2.5"),
        (dict(adjust_lr_fn="rms"), "adjust_lr_fn: expected None, 'original' or"),
    ):
        with pytest.raises(ValueError, match=msg):
            Muon(w, **kw)
    with pytest.raises(
        ValueError, match=r"params: Muon expects 2-D matrices .* got .* \(4,\)"
    ):
        Muon([torch.nn.Parameter(torch.zeros(4))])


def test_key_value_overrides_are_typed_like_the_fields():
    got = parse_overrides(
        ["lr=1e-3", "L=2", "F=None", "gelu=tanh", "eps=1e-6", "data=x.txt"]
    )
    assert got == {
        "lr": 1e-3,
        "L": 2,
        "F": None,
        "gelu": "tanh",
        "eps": 1e-6,
        "data": "x.txt",
    }
    assert [type(got[k]) for k in ("lr", "L", "eps")] == [float, int, float]
    with pytest.raises(ValueError, match="lr: expected float, got 'abc'"):
        parse_overrides(["lr=abc"])
    with pytest.raises(
        ValueError, match="argv: expected key=value with a key among .*'foo=1'"
    ):
        parse_overrides(["foo=1"])
    with pytest.raises(ValueError, match="name: expected a field .*; got 'foo'"):
        parse_value("foo", "1")
    with pytest.raises(ValueError, match="argv: expected key=value items"):
        parse_overrides(["lr"])
    with pytest.raises(TypeError, match="argv: expected a list of 'key=value' strings"):
        parse_overrides("lr=1e-3")  # a lone string, not read letter by letter
    make_config(
        "book", **parse_overrides(["eps=1e-6", "B=8"])
    )  # accepted by the config
