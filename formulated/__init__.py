"""The Formulated GPT: every boxed definition of the sources as a small, verified function.

Packages and modules, by the chapters that use them:

- :mod:`formulated.formulas`   — the NumPy formulas (chapters 2, 3, 7–12, 17, 18), one module
  per idea: ``embedding``, ``masking``, ``heads``, ``feedforward``, ``normalization``,
  ``losses``; its face exports them all, and so does this package
- :mod:`formulated.basics`     — ML basics: regression, information, networks, RNN/LSTM,
  objectives (chapters 1–4, 17)
- :mod:`formulated.notation`   — the book's notation (chapter 5, appendix A): the table of
  symbols (``symbols``), source 002's table (``source_002``) and the shape tracer (``shapes``)
- :mod:`formulated.tokenizers` — text to ids (chapters 5, 6, 18): the character tokenizer
  (``char``), byte-pair encoding (``bpe``) and its corpus (``corpus``)
- :mod:`formulated.examples`   — worked numbers of the sources (chapters 8, 9)
- :mod:`formulated.models`     — the models (chapters 12–19): NumPy (``models.params``,
  ``models.blocks``, ``models.reference``), the published sizes, Hugging Face loaders
  (``models.hf``, small random models in ``models.hf_tiny``), the trainable PyTorch GPT
  (``models.trainable``), its KV cache and pretrained weights
- :mod:`formulated.training`   — training: config and presets, data, step, loop, checkpoints,
  CLI (chapter 18)
- :mod:`formulated.sampling`   — from logits to the distribution a sampler draws from
  (chapter 19)
- :mod:`formulated.analysis`   — inside a trained GPT: attention weights (chapter 19)
- :mod:`formulated.widgets`    — every interactive widget of the book, one module per part
- :mod:`formulated.quizzes`    — the "check your understanding" quiz of every chapter
- :mod:`formulated.plotting`   — the book's figure style (light and dark)
- :mod:`formulated.data`       — where the book's data lives
- :mod:`formulated.errata`     — every source error the book found, by part (appendix B)
- :mod:`formulated.sources`    — the five sources, by id and title (errata and coverage)
- :mod:`formulated.coverage`   — which source section each chapter covers (appendix D)

The book's build, live-server, JupyterLab and assignment tooling is not part of this package:
it lives in the repository's ``booktools/`` folder.

Math in the book is 1-based (token :math:`x_1`); code is 0-based (``x[0]``).
"""

from __future__ import annotations

from . import errata, examples, formulas
from .formulas import *  # noqa: F401,F403  (the formulas are the package's main API)

__version__ = "0.2.0"
__all__ = list(formulas.__all__) + ["formulas", "examples", "errata"]
