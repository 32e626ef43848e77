"""Worked examples of the sources, as data, so that chapters and tests load them instead of retyping.

Everything here is *transcribed* from source 004 (the slides "Generative Pretrained Transformer:
Evolution and its Future"); nothing is computed with :mod:`formulated`.  Two kinds of arrays:

- the example's **inputs** (``QKV_*``, ``MASK_*``): the data a reader feeds to the formulas;
- the slides' **printed results** (``SLIDE_*``): what the slides claim the formulas give, kept
  verbatim -- including their rounding and their mistakes -- so that the book can compute the
  true values and compare (see :mod:`formulated.errata`).

Rows are vectors (the book's convention).  The arrays are ordinary float64 NumPy arrays: copy one
before editing it, since every importer shares it.

**The Q/K/V example** (slides "Attention: Q, K, V and weights"): three inputs of size 4 and
three 4x3 weight matrices; keys, values and queries are ``input @ W``; the scores of input 1 are
its query dotted with every key, *without* the ``1/sqrt(D)`` scaling; the output of input 1 is
the softmax-weighted sum of the values.

**The masked-softmax example** (slide "Decoder, Masked Attention"): a 4x4 matrix of scaled
scores, the look-ahead (autoregressive, additive) mask, their sum and its row softmax.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "QKV_INPUTS",
    "QKV_W_KEY",
    "QKV_W_QUERY",
    "QKV_W_VALUE",
    "SLIDE_KEYS",
    "SLIDE_VALUES",
    "SLIDE_QUERIES",
    "SLIDE_SCORES_1",
    "SLIDE_SOFTMAX_1",
    "SLIDE_WEIGHTED_VALUES_1",
    "SLIDE_OUTPUT_1",
    "MASK_SCALED_SCORES",
    "MASK_LOOKAHEAD",
    "SLIDE_MASKED_SCORES",
    "SLIDE_MASKED_SOFTMAX",
    "SLIDE_MASKED_INPUT",
]


def _a(rows) -> np.ndarray:
    return np.array(rows, dtype=np.float64)


# -- The Q/K/V example: inputs and weights ----------------------------------------------------

#: The three inputs (one per row), each of size 4: input 1 = ``QKV_INPUTS[0]``.  Shape (3, 4).
QKV_INPUTS = _a([[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]])

#: "Weights for key", shape (4, 3): keys are ``QKV_INPUTS @ QKV_W_KEY``.
QKV_W_KEY = _a([[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]])

#: "Weights for query", shape (4, 3): queries are ``QKV_INPUTS @ QKV_W_QUERY``.
QKV_W_QUERY = _a([[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]])

#: "Weights for value", shape (4, 3): values are ``QKV_INPUTS @ QKV_W_VALUE``.
QKV_W_VALUE = _a([[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]])

# -- The Q/K/V example: what the slides print ---------------------------------------------------

#: Key representations printed by the slides (rows: inputs 1-3).  Shape (3, 3).
SLIDE_KEYS = _a([[0, 1, 1], [4, 4, 0], [2, 3, 1]])

#: Value representations printed by the slides.  Shape (3, 3).
SLIDE_VALUES = _a([[1, 2, 3], [2, 8, 0], [2, 6, 3]])

#: Query representations printed by the slides.  Shape (3, 3).
SLIDE_QUERIES = _a([[1, 0, 2], [2, 2, 2], [2, 1, 3]])

#: Attention scores of input 1 (its query dotted with the three keys, unscaled).  Shape (3,).
SLIDE_SCORES_1 = _a([2, 4, 4])

#: The slides' ``softmax([2, 4, 4])`` as printed.  It is *not* the one-decimal rounding of the
#: true weights (that would start with 0.1); chapter 8 and the tests compute the truth.  Shape (3,).
SLIDE_SOFTMAX_1 = _a([0.0, 0.5, 0.5])

#: The slides' weighted values of input 1 (softmax weight times each value row).  Shape (3, 3).
SLIDE_WEIGHTED_VALUES_1 = _a([[0.0, 0.0, 0.0], [1.0, 4.0, 0.0], [1.0, 3.0, 1.5]])

#: The slides' "Output 1", the sum of the weighted values (computed by the slides from the
#: printed weights ``SLIDE_SOFTMAX_1``, so it inherits their error).  Shape (3,).
SLIDE_OUTPUT_1 = _a([2.0, 7.0, 1.5])

# -- The masked-softmax example -----------------------------------------------------------------

#: "Scaled Scores" (already divided by sqrt(D)); row i = query i.  Shape (4, 4).
MASK_SCALED_SCORES = _a(
    [
        [0.7, 0.1, 0.1, 0.1],
        [0.1, 0.6, 0.2, 0.1],
        [0.1, 0.3, 0.6, 0.1],
        [0.1, 0.3, 0.3, 0.3],
    ]
)

#: "Look-Ahead Mask": additive, 0 on and below the diagonal, -inf above.  Shape (4, 4).
MASK_LOOKAHEAD = _a(
    [
        [0, -np.inf, -np.inf, -np.inf],
        [0, 0, -np.inf, -np.inf],
        [0, 0, 0, -np.inf],
        [0, 0, 0, 0],
    ]
)

#: "Masked Scores" as printed (scores + mask).  Shape (4, 4).
SLIDE_MASKED_SCORES = _a(
    [
        [0.7, -np.inf, -np.inf, -np.inf],
        [0.1, 0.6, -np.inf, -np.inf],
        [0.1, 0.3, 0.6, -np.inf],
        [0.1, 0.3, 0.3, 0.3],
    ]
)

#: The printed row softmax of the masked scores, two decimals as on the slide.  Shape (4, 4).
#: (On the slide, the matrix inside "Softmax(...)" shows ``inf`` where ``-inf`` is meant.)
SLIDE_MASKED_SOFTMAX = _a(
    [[1, 0, 0, 0], [0.37, 0.62, 0, 0], [0.26, 0.31, 0.43, 0], [0.21, 0.26, 0.26, 0.26]]
)

#: The matrix captioned "Masked Input" on the same slide.  Its first row (0.7, 0.4, 0.3, 0.1)
#: does not match the scaled scores' first row (0.7, 0.1, 0.1, 0.1).  Shape (4, 4).
SLIDE_MASKED_INPUT = _a(
    [
        [0.7, 0.4, 0.3, 0.1],
        [0.1, 0.6, 0.2, 0.1],
        [0.1, 0.3, 0.6, 0.1],
        [0.1, 0.3, 0.3, 0.3],
    ]
)
