"""Machine-learning basics, one small NumPy function per formula (chapters 1–4 and 17).

One module per chapter; every public name is re-exported here, so ``from formulated import
basics as fb`` and ``fb.entropy`` work as before the split.

- :mod:`~formulated.basics.regression`  — chapter 1, learning from data: linear regression,
  squared loss and its gradient, the closed form, gradient descent and the regimes of the
  learning rate;
- :mod:`~formulated.basics.information` — chapter 2, probabilities and information: softmax with
  a temperature, information content, entropy, cross-entropy and Kullback–Leibler divergence, in
  any logarithm base;
- :mod:`~formulated.basics.networks`    — chapter 3, neural networks: tanh, the derivatives of
  sigmoid, tanh and ReLU (sigmoid and ReLU are :mod:`formulated.formulas`'), a two-layer
  network with its backward pass written out by hand;
- :mod:`~formulated.basics.sequences`   — chapter 4, sequences before attention: cosine
  similarity, the RNN recurrence and backpropagation through time, the LSTM cell;
- :mod:`~formulated.basics.objectives`  — chapter 17, the training objective: log-likelihood of a
  sequence, a model given by an explicit joint table, a tiny attention model, and the GPT, BERT
  and XLNet objectives.

Vectors are rows, as everywhere in the book: a sequence of ``n`` inputs of width ``d`` is an
``(n, d)`` array, and a layer computes ``x @ W + b``.  Positions are 0-based in the code.
Everything is float64 so that the checks against PyTorch reach ``1e-10``.

**Definitions.** A function that implements a boxed definition of the book names it in its
docstring (``Definition: def-11-ffn``) together with the tests that check it against an
independent reference (``Checked by: tests/...::test_...``); the book shows the function's
source under that box (:mod:`booktools.sphinx.source`).
"""

from __future__ import annotations

from . import information, networks, objectives, regression, sequences
from .information import *  # noqa: F401,F403
from .networks import *  # noqa: F401,F403
from .objectives import *  # noqa: F401,F403
from .regression import *  # noqa: F401,F403
from .sequences import *  # noqa: F401,F403

__all__ = (
    regression.__all__
    + information.__all__
    + networks.__all__
    + sequences.__all__
    + objectives.__all__
)
