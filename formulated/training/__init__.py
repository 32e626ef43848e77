"""Train the GPT of :mod:`formulated.models.trainable` on Tiny Shakespeare (chapter 18).

One loop for a notebook, a terminal and a cluster:

* notebook: ``result = train("book", out_dir="runs/book")`` returns the trained model, its
  tokenizer and the loss history (``plot_losses(result)``, ``result.model.sample(...)``);
* terminal: ``python -m formulated.training --preset cpu --out runs/cpu`` (``--resume``
  continues; ``--device``, ``--lr``, ``--L`` and every other field of :class:`TrainConfig` and of
  its model override the preset);
* several GPUs or nodes: ``torchrun --nproc_per_node=K -m formulated.training --preset gpu
  --out runs/g`` runs data-parallel (DDP).

Modules, one concern each:

* :mod:`.config` — :class:`TrainConfig` (containing the model's ``GPTConfig``), the presets,
  overrides;
* :mod:`.data` — reading and splitting the text, training batches, validation windows;
* :mod:`.optim` — AdamW (or Muon + AdamW) and the warm-up + cosine schedule;
* :mod:`.checkpoint` — atomic checkpoints, their checks, :func:`load_checkpoint`;
* :mod:`.runtime` — device, processes, precision, Ctrl-C;
* :mod:`.loop` — :func:`train`, the run (set-up, loop, checkpoints, progress);
* :mod:`.step` — its step :func:`train_step` (:func:`train`'s ``step`` argument), and
  :func:`evaluate`;
* :mod:`.plot` — :func:`plot_losses`;
* :mod:`.shipped` — the ``book`` preset's run shipped with the book (:func:`load_run`), read
  on the live pages of ``make live`` (:func:`is_live`);
* :mod:`.cli` — the command line and the ``key=value`` overrides of the benchmarks.

Sampling is a method of the model: ``model.sample(tokenizer, prompt, n, temperature, top_k)``.
"""

from .checkpoint import CheckpointError, load_checkpoint
from .cli import main, parse_overrides
from .config import DEFAULT_PRESET, PRESETS, TrainConfig, make_config, with_overrides
from .data import load_data, val_windows
from .loop import TrainResult, train
from .plot import plot_losses
from .runtime import resolve_device
from .shipped import is_live, load_run
from .step import evaluate, train_step

__all__ = [
    "TrainConfig",
    "PRESETS",
    "DEFAULT_PRESET",
    "TrainResult",
    "CheckpointError",
    "make_config",
    "with_overrides",
    "train",
    "train_step",
    "evaluate",
    "load_data",
    "val_windows",
    "load_checkpoint",
    "plot_losses",
    "resolve_device",
    "main",
    "parse_overrides",
    "is_live",
    "load_run",
]
