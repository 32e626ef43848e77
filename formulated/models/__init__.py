"""The models of chapters 13–19, one module per implementation.

- :mod:`formulated.models.numpy` — GPT, GPT-2, GPT-3, BERT, RoBERTa in NumPy (chapters 13–16);
  its public names are re-exported here, so ``from formulated.models import gpt2`` works.
- :mod:`formulated.models.hf`    — loaders from Hugging Face ``transformers`` models.
- :mod:`formulated.models.torch` — the trainable PyTorch GPT (chapter 18); imported on demand,
  so that the NumPy models do not pay for importing PyTorch.
"""
from __future__ import annotations

from . import numpy
from .numpy import *  # noqa: F401,F403

__all__ = list(numpy.__all__)
