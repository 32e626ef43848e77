"""The Formulated GPT: every boxed definition of the sources as a small, verified function.

Modules, by the chapters that use them:

- :mod:`formulated.formulas`   — the NumPy formulas (chapters 2, 5, 7–12, 17), re-exported from
  their modules by idea: ``embedding``, ``masking``, ``heads``, ``feedforward``,
  ``normalization``, ``losses``
- :mod:`formulated.examples`   — worked numbers of the sources (chapters 8, 9)
- :mod:`formulated.basics`     — ML basics: regression, backprop, RNN/LSTM (chapters 1–4)
- :mod:`formulated.tokenizers` — character tokenizer and byte-pair encoding (chapters 5, 6, 18),
  on the word counts of :mod:`formulated.bpe_corpus`
- :mod:`formulated.shapes`     — a shape tracer through one block, and the notation table of
  :mod:`formulated.symbols` (chapter 5, appendix A)
- :mod:`formulated.models`     — the models: NumPy (``models.reference``), Hugging Face loaders
  (``models.hf``) and the trainable PyTorch GPT (``models.trainable``) (chapters 13–19)
- :mod:`formulated.training`   — training: config and presets, data, loop, checkpoints, CLI (chapter 18)
- :mod:`formulated.widgets`    — every interactive widget of the book
- :mod:`formulated.errata`     — every source error the book found (appendix B)
- :mod:`formulated.sources`    — the five sources, by id and title (errata and coverage)
- :mod:`formulated.coverage`   — which source section each chapter covers (appendix D)
- :mod:`formulated.notation`   — source 002's notation table, read from its text (appendix A)

The book's build, live-server, JupyterLab and assignment tooling is not part of this package:
it lives in the repository's ``booktools/`` folder.

Math in the book is 1-based (token :math:`x_1`); code is 0-based (``x[0]``).
"""

from __future__ import annotations

from . import errata, examples, formulas
from .formulas import *  # noqa: F401,F403  (the formulas are the package's main API)

__version__ = "0.1.0"
__all__ = list(formulas.__all__) + ["formulas", "examples", "errata"]
