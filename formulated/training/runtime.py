"""Where and how a run computes: the device, the processes of data parallelism (torchrun), the
precision, the GPU's peak for the MFU, and Ctrl-C handling."""

from __future__ import annotations

import contextlib
import os
import signal
from typing import Any

import torch

__all__ = [
    "resolve_device",
    "dist_info",
    "use_bf16",
    "autocast_factory",
    "peak_flops",
    "StopFlag",
]


def resolve_device(device: str = "auto") -> torch.device:
    """``"auto"`` picks CUDA, then Apple's MPS, then the CPU; anything else is taken literally."""
    if device == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if (
            getattr(torch.backends, "mps", None) is not None
            and torch.backends.mps.is_available()
        ):
            return torch.device("mps")
        return torch.device("cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as e:
        raise ValueError(
            f"device: expected 'auto', 'cpu', 'cuda', 'cuda:K' or 'mps', got {device!r}"
        ) from e
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"device: {device!r} was asked for, but this PyTorch sees no CUDA GPU"
        )
    if dev.type == "mps" and not torch.backends.mps.is_available():
        raise ValueError(
            f"device: {device!r} was asked for, but MPS is not available here"
        )
    return dev


def dist_info() -> tuple[int, int, int]:
    """``(rank, local_rank, world_size)`` from torchrun's environment (``(0, 0, 1)`` alone)."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    return (
        int(os.environ.get("RANK", "0")),
        int(os.environ.get("LOCAL_RANK", "0")),
        world,
    )


def use_bf16(amp: str, device: torch.device) -> bool:
    """Whether to run under bf16 autocast: ``"auto"`` means on a CUDA GPU that supports bf16
    (on the CPU it is slower than float32); ``"bf16"`` forces it on any device."""
    if amp == "bf16":
        return True
    return amp == "auto" and device.type == "cuda" and torch.cuda.is_bf16_supported()


def autocast_factory(amp: str, device: torch.device) -> Any:
    """A function returning the context of one forward pass: matrix products in bf16 (weights,
    optimizer and loss stay float32) where :func:`use_bf16` says so, else a no-op."""
    if use_bf16(amp, device):
        return lambda: torch.autocast(device_type=device.type, dtype=torch.bfloat16)
    return contextlib.nullcontext


def peak_flops(device: torch.device) -> float | None:
    """Dense bf16 peak of known GPUs (FLOP/s), for the model-FLOPs utilization."""
    name = torch.cuda.get_device_name(device)
    table = {
        "H100": 989e12,
        "H200": 989e12,
        "A100": 312e12,
        "L4": 121e12,
        "A10": 125e12,
    }
    for k, v in table.items():
        if k in name:
            return v
    return None


class StopFlag:
    """SIGINT (Ctrl-C, or the notebook's interrupt button) and, in a single process, SIGTERM (a
    job scheduler's notice) set a flag that the loop reads between steps, so a checkpoint is
    never taken in the middle of an optimizer step.  A second Ctrl-C interrupts at once.
    (Under torchrun, SIGTERM stays fatal: the launcher sends it when another process failed.)"""

    def __init__(self, sigterm: bool = True) -> None:
        self.stop = False
        self._signals = (signal.SIGINT, signal.SIGTERM) if sigterm else (signal.SIGINT,)
        self._old: dict[int, Any] = {}

    def __enter__(self) -> "StopFlag":
        import threading

        if threading.current_thread() is threading.main_thread():
            for sig in self._signals:
                self._old[sig] = signal.signal(sig, self._handle)
        return self

    def _handle(self, signum: int, frame: Any) -> None:
        if self.stop and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.stop = True

    def __exit__(self, *exc: Any) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)
