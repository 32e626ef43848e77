"""The `book` preset's shipped run (data/checkpoints/book_run.pth), chapter 18's live path.

On a live page (`make live` sets FORMULATED_LIVE=1 for its kernels) chapter 18 loads the
shipped run instead of training it again, unless the reader sets RETRAIN = True; the static
build (no such variable) trains.  Checked here without a browser: the file is a run of the
current `book` preset whose recorded loss the model reproduces, the chapter's cell takes the
right branch for each setting, and `make live`'s server hands the variable to its kernels.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
from pathlib import Path

import pytest
import torch
from _chapters import ROOT

from formulated.training import (
    CheckpointError,
    evaluate,
    is_live,
    load_data,
    load_run,
    make_config,
)
from formulated.training.shipped import BOOK_RUN, LIVE_ENV

CHAPTER = ROOT / "chapters" / "18_train_tiny_gpt.md"


@pytest.fixture(scope="module")
def shipped():
    return load_run()


def test_shipped_run_is_the_current_book_preset(shipped) -> None:
    """A changed `book` preset makes the file stale: regenerate it (make_book_run.sh)."""
    want = make_config("book")
    got = shipped.config
    assert dataclasses.replace(got, data=want.data) == want, (
        "data/checkpoints/book_run.pth was trained with another `book` preset; run "
        "`sh data/checkpoints/make_book_run.sh`"
    )
    assert shipped.step == want.max_steps == shipped.history["val_step"][-1]
    assert len(shipped.history["loss"]) == want.max_steps


def test_shipped_model_reproduces_its_recorded_loss(shipped) -> None:
    """The recorded last validation loss, recomputed from the weights on the whole split."""
    _, _, val_ids = load_data()
    cfg = shipped.config
    loss = evaluate(shipped.model, val_ids, cfg.model.n_ctx, cfg.eval_batch)
    assert loss == pytest.approx(shipped.val_loss, abs=1e-4)
    assert shipped.n_params == sum(p.numel() for p in shipped.model.parameters())
    tokens = shipped.step * cfg.B * cfg.model.n_ctx
    assert shipped.tokens_per_s * shipped.seconds >= tokens  # evaluations are taken off


def test_load_run_refuses_an_unfinished_run(tmp_path) -> None:
    ck = torch.load(BOOK_RUN, map_location="cpu", weights_only=True)
    ck["history"]["val_step"] = ck["history"]["val_step"][:-1]
    torch.save(ck, tmp_path / "ckpt.pt")
    with pytest.raises(CheckpointError, match="not a finished run"):
        load_run(tmp_path)
    with pytest.raises(TypeError, match="path: expected"):
        load_run(3)  # type: ignore[arg-type]


def _run_cell() -> str:
    """The source of chapter 18's cell that trains (or, live, loads) the book preset."""
    cells = re.findall(r"```\{code-cell\} python3\n(.*?)```", CHAPTER.read_text(), re.S)
    found = [c for c in cells if "RETRAIN" in c and "load_run()" in c]
    assert len(found) == 1, "chapter 18 has no single cell with RETRAIN and load_run()"
    return found[0]


@pytest.mark.parametrize(
    "live, retrain, trains",
    [
        (None, "False", True),  # the static build: trains for real
        ("1", "False", False),  # a live page: loads the shipped run
        ("1", "True", True),  # a live page whose reader asks to retrain
        ("0", "False", True),  # anything but "1" is not live
    ],
)
def test_chapter_cell_trains_unless_live(
    monkeypatch, shipped, live, retrain, trains
) -> None:
    if live is None:
        monkeypatch.delenv(LIVE_ENV, raising=False)
    else:
        monkeypatch.setenv(LIVE_ENV, live)
    calls = []

    def fake_train(*args, **kwargs):
        calls.append((args, kwargs))
        return "trained"

    source = _run_cell().replace("RETRAIN = False", f"RETRAIN = {retrain}")
    ns = dict(
        pprint=__import__("pprint"),
        PRESETS={"book": {}},
        is_live=is_live,
        load_run=lambda: shipped,
        train=fake_train,
        run_dir=Path("unused"),
    )
    exec(compile(source, str(CHAPTER), "exec"), ns)
    assert (ns["result"] == "trained") is trains
    assert len(calls) == int(trains)
    if trains:
        assert calls[0][0][0] == "book"


def test_make_live_gives_its_kernels_the_variable(monkeypatch, tmp_path) -> None:
    """booktools.lab.live starts the Jupyter server (and so its kernels) with FORMULATED_LIVE=1;
    the book's build does not set it."""
    from booktools.lab import live

    monkeypatch.delenv(LIVE_ENV, raising=False)
    seen = {}

    def fake_popen(command, **kwargs):
        seen.update(kwargs)
        raise RuntimeError("not started")

    monkeypatch.setattr(subprocess, "Popen", fake_popen)
    with pytest.raises(RuntimeError, match="not started"):
        live.start_jupyter(1, "t", "http://127.0.0.1:2", ROOT, tmp_path / "log")
    assert seen["env"][LIVE_ENV] == "1"
    assert not is_live()
