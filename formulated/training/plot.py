"""The figure of a run: training loss per step and validation loss (chapter 18)."""

from __future__ import annotations

from typing import Any

import torch

from .loop import TrainResult

__all__ = ["plot_losses"]


def plot_losses(
    result: TrainResult | dict, ax: Any = None, title: str = "Training curve"
) -> Any:
    """Training loss per step (light) and its running mean, with the validation points."""
    import matplotlib.pyplot as plt

    h = result.history if isinstance(result, TrainResult) else result
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.5))
    steps, losses = h["step"], h["loss"]
    ax.plot(steps, losses, color="tab:blue", alpha=0.3, lw=0.8, label="train (batch)")
    k = max(1, len(losses) // 30)
    if len(losses) >= k > 1:
        kernel = torch.ones(k) / k
        smooth = (
            torch.conv1d(
                torch.tensor(losses, dtype=torch.float32)[None, None],
                kernel[None, None],
            )
            .flatten()
            .tolist()
        )
        ax.plot(
            steps[k - 1 :],
            smooth,
            color="tab:blue",
            lw=1.5,
            label=f"train (mean of {k})",
        )
    if h["val_step"]:
        ax.plot(
            h["val_step"],
            h["val_loss"],
            "o-",
            color="tab:red",
            label="val (whole split)",
        )
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy (nats per character)")
    ax.set_title(title)
    ax.legend()
    return ax
