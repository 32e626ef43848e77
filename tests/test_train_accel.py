"""The GPU code path of chapter 18's training loop, exercised on the CPU.

CI has no GPU, so the pieces that a CUDA run switches on are run here on the CPU with the
same code: bf16 autocast (``amp="bf16"``), ``torch.compile`` of the transformer block
(``compile="blocks"``; without inductor's code generation, which a CUDA run has:
:data:`COMPILE_BACKEND`), the FLOP count behind the model-FLOPs utilization, and the GPU handed
to ``torch.cuda.set_device`` (with CUDA faked).  Each is compared with an independent reference:
the float32 eager run, PyTorch's own FLOP counter, and set_device's own check of the index.
"""

from __future__ import annotations

import math

import pytest
import torch
from _helpers import TINY
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils.flop_counter import FlopCounterMode

from formulated.models.trainable import (
    GPT,
    GPTConfig,
    count_parameters,
    flops_per_token,
)
from formulated.training import evaluate, load_data, make_config, train
from formulated.training.runtime import use_bf16

# torch.compile's own machinery calls a deprecated torch.jit helper; not ours to fix.
pytestmark = [
    pytest.mark.filterwarnings(
        "ignore:`torch.jit.script_method` is deprecated:DeprecationWarning"
    )
]


def test_amp_choice_and_errors():
    cpu = torch.device("cpu")
    assert (
        use_bf16("bf16", cpu) and not use_bf16("off", cpu) and not use_bf16("auto", cpu)
    )
    with pytest.raises(
        ValueError, match="amp: expected 'auto', 'bf16' or 'off', got 'fp8'"
    ):
        make_config("gpu", amp="fp8")


def test_bf16_autocast_trains_close_to_float32_and_resumes_exactly(tmp_path):
    """The autocast branch a CUDA run takes, on the CPU: the products really run in bf16 (the
    losses differ from float32's) yet follow the float32 run closely; resume stays exact."""
    cfg = dict(TINY, max_steps=8, dropout=0.1, ckpt_interval=3)
    bf16 = train("book", tmp_path / "a", progress=False, amp="bf16", **cfg)
    fp32 = train("book", None, progress=False, amp="off", **cfg)
    a, b = bf16.history["loss"], fp32.history["loss"]
    assert len(a) == len(b) == 8 and all(math.isfinite(x) for x in a)
    assert a != b  # bf16 rounding is visible, so autocast was on
    assert max(abs(x - y) for x, y in zip(a, b)) < 0.02
    assert abs(bf16.val_loss - fp32.val_loss) < 0.02
    assert a[-1] < a[0] - 0.1  # and it learns
    half = train(
        "book", tmp_path / "b", progress=False, amp="bf16", stop_at_step=4, **cfg
    )
    assert half.step == 4
    resumed = train(None, tmp_path / "b", resume=True, progress=False)
    assert resumed.config.amp == "bf16"
    assert resumed.history["loss"] == a and resumed.val_loss == bf16.val_loss
    w1, w2 = bf16.model.state_dict(), resumed.model.state_dict()
    assert all(torch.equal(w1[k], w2[k]) for k in w1)


#: The backend the compile test hands ``torch.compile``: TorchDynamo captures the block, AOT
#: autograd traces its forward and backward, and inductor's decompositions and partitioner split
#: them, as with the default backend (inductor), which would then generate C++ for the CPU and
#: compile it with g++: 30 CPU-seconds more on a cold cache (a new machine; here also each clone
#: in a new folder).  What the test checks is the loop's: which modules are compiled, how many
#: graphs, no recompiling, the same numbers as eager.  Inductor's code generation (the C++, or
#: the Triton of a CUDA run) is not run by make test.
COMPILE_BACKEND = "aot_eager_decomp_partition"


@pytest.mark.slow  # torch.compile
def test_compiled_block_trains_like_eager_and_never_recompiles_for_eval_or_sampling(
    monkeypatch,
):
    """``compile="blocks"`` (the CUDA default) compiles one block that every layer reuses;
    evaluation (other batch shapes) and sampling (growing lengths) run eagerly, no new graphs.
    Compiled with :data:`COMPILE_BACKEND`."""
    from torch._dynamo.utils import counters

    compile_module, compiled_modules = torch.nn.Module.compile, []

    def compile_with_backend(self, *args, **kwargs):
        compiled_modules.append(self)
        kwargs.setdefault("backend", COMPILE_BACKEND)
        return compile_module(self, *args, **kwargs)

    monkeypatch.setattr(torch.nn.Module, "compile", compile_with_backend)
    torch._dynamo.reset()
    counters.clear()
    cfg = dict(TINY, L=2, max_steps=6, eval_interval=3)
    compiled = train("book", None, progress=False, compile="blocks", **cfg)
    assert compiled_modules == list(
        compiled.model.blocks
    )  # each block, with the backend
    graphs = counters["stats"]["unique_graphs"]
    assert graphs == 1  # one graph for both layers: the block is compiled once
    eager = train("book", None, progress=False, compile="off", **cfg)
    assert compiled.history["loss"] == pytest.approx(eager.history["loss"], rel=1e-5)
    assert compiled.history["val_loss"] == pytest.approx(
        eager.history["val_loss"], rel=1e-5
    )
    _, _, val_ids = load_data()
    v1 = evaluate(compiled.model, val_ids[:999], 16, batch=7)
    assert v1 == pytest.approx(
        evaluate(eager.model, val_ids[:999], 16, batch=7), rel=1e-5
    )
    s1 = compiled.model.sample(
        compiled.tokenizer, "ROMEO:", 40, temperature=0.8, seed=1
    )
    assert s1 == eager.model.sample(
        eager.tokenizer, "ROMEO:", 40, temperature=0.8, seed=1
    )
    assert counters["stats"]["unique_graphs"] == graphs
    torch._dynamo.reset()


def test_flops_per_token_agrees_with_torch_flop_counter():
    """MFU's numerator: ``6 N + 12 L H n`` per token against PyTorch's FLOP counter over one
    forward and backward pass.  The formula charges 6 FLOPs to every parameter; the counter sees
    only the products, so the two differ by exactly the parameters used without a product: the
    learned positions, LayerNorm gains and biases, and the linear layers' biases."""
    torch.manual_seed(0)
    cfg = GPTConfig(V=65, n_ctx=32, L=2, A=4, H=32)
    model = GPT(cfg)
    n_params = count_parameters(model)
    B = 3
    x = torch.randint(0, 65, (B, cfg.n_ctx))
    # The math backend spells attention as batched products, which the counter sees (the
    # fused CPU kernel is not counted); it computes the full n x n square, as the formula does.
    with sdpa_kernel(SDPBackend.MATH), FlopCounterMode(display=False) as counter:
        _, loss = model(x, x)
        loss.backward()
    counted = counter.get_total_flops() / (B * cfg.n_ctx)
    no_product = (
        sum(p.numel() for p in model.parameters() if p.dim() < 2) + cfg.n_ctx * cfg.H
    )
    assert counted == flops_per_token(cfg, n_params) - 6 * no_product
    assert (
        counted / flops_per_token(cfg, n_params) > 0.9
    )  # what MFU leaves out is small


@pytest.mark.parametrize("device, index", [("auto", 0), ("cuda", 0), ("cuda:1", 1)])
def test_cuda_run_gives_set_device_an_indexed_device(monkeypatch, device, index):
    """A run on a GPU starts with ``torch.cuda.set_device``, which refuses a bare
    ``torch.device("cuda")`` (what ``device="auto"`` resolves to) with a ValueError.  Here CUDA
    is faked on the CPU: ``set_device`` checks the index as the real one does, and the run is
    stopped right after, where it would build the model on the device it was handed."""
    import formulated.training.loop as loop

    class Reached(Exception):
        """The run got past set_device with the device below."""

    seen = []

    def set_device(d):
        if torch.device(d).index is None:
            raise ValueError(
                f"Expected a torch.device with a specified index or an integer, "
                f"but got:{d}"
            )
        seen.append(torch.device(d))

    def stop(cfg, ck, out, t_start, device, step):
        raise Reached(device)

    for name in ("WORLD_SIZE", "RANK", "LOCAL_RANK"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "set_device", set_device)
    monkeypatch.setattr(loop, "_Run", stop)
    # set_device's neighbors switch on TF32: put the flags back afterwards.
    tf32 = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    try:
        with pytest.raises(Reached) as stopped:
            train("book", None, progress=False, **dict(TINY, device=device))
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = tf32
    assert seen == [torch.device("cuda", index)]
    assert stopped.value.args[0] == torch.device("cuda", index)
