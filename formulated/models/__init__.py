"""The models of chapters 13–19, one module per implementation.

- :mod:`formulated.models.params` — the NumPy models' configuration, parameter containers,
  seeded initialization and parameter count λ (chapters 13–16);
- :mod:`formulated.models.blocks` — the building blocks: GPT-3's banded masks, the biased
  multi-head attention, the post-LN and pre-LN blocks (chapters 12, 14);
- :mod:`formulated.models.reference` — GPT, GPT-2, GPT-3, BERT, RoBERTa in NumPy (chapters 13–16),
  from those blocks; the public names of params, blocks and reference are exported here, so
  ``from formulated.models import gpt2`` works.
- :mod:`formulated.models.sizes` — the published sizes of GPT-1/2/3, BERT and RoBERTa: the one
  table of them.
- :mod:`formulated.models.hf`    — loaders from Hugging Face ``transformers`` models (small
  random ones from :mod:`formulated.models.hf_tiny`).
- :mod:`formulated.models.trainable` — the trainable PyTorch GPT (chapter 18); imported on demand,
  so that the NumPy models do not pay for importing PyTorch.
"""

from __future__ import annotations

from . import blocks, params, reference
from .blocks import *  # noqa: F401,F403
from .params import *  # noqa: F401,F403
from .reference import *  # noqa: F401,F403

__all__ = list(params.__all__) + list(blocks.__all__) + list(reference.__all__)
