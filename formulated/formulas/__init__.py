"""The NumPy formulas: one small function per boxed definition of the sources.

Every function states its formula and its shapes in the docstring, in the book's
notation: ``n`` sequence length, ``V`` vocabulary size, ``H`` model width, ``A`` heads,
``D`` width per head, ``F`` feed-forward width, ``B`` batch size.  Vectors are rows; a
sequence is an ``(n, H)`` matrix.

**Indexing.** The math in the book is 1-based (tokens :math:`x_1, \\dots, x_n`,
vocabulary ids :math:`1, \\dots, V`); the code is 0-based (``x[0]`` is :math:`x_1`,
token ids are ``0 .. V-1``).  A formula's index :math:`i` is the code's ``i - 1``.

**Dtypes.** Inputs may be any float dtype (integers are converted to float64); a float32
computation stays float32.  Functions that build arrays from nothing (masks, positional
encodings) return float64.

**Masks.** The book's masks are *additive*: ``0`` where a query may attend to a key,
``-inf`` where it may not, added to the scores before the softmax.  The sources write
the masks with ``1``/``-inf`` and *multiply* them into the scores;
``kind="multiplicative"`` builds and applies that literal version so a chapter can show
why it fails (a negative score times ``-inf`` is ``+inf``, and ``0 * -inf`` is NaN).

**Checks.** A formula's body is its computation; its arguments are checked by the function
named in its ``@checked(...)`` line (defined just above it), which raises an error naming
the argument, what was expected and what came.

**Modules.** The formulas live in this package's modules by idea, and this face exports
them all (``formulated.formulas.attention`` is defined in :mod:`formulated.formulas.heads`):
:mod:`~formulated.formulas.embedding` (diag, Stack, OneHot, embedding, positions; chapter 7),
:mod:`~formulated.formulas.masking` (softmax and masks; chapters 2, 9),
:mod:`~formulated.formulas.heads` (attention, Concat, heads, multi-head self-attention;
chapters 8-10), :mod:`~formulated.formulas.feedforward` (activations, GELU, FFNs; chapters
3, 11), :mod:`~formulated.formulas.normalization` (LayerNorm; chapter 12) and
:mod:`~formulated.formulas.losses` (cross entropy; chapters 17, 18).  The argument checks
shared between them are in ``formulated._checks``.

**Definitions.** A function that implements a boxed definition of the book names it in
its docstring (``Definition: def-11-ffn``) together with the tests that check it against
an independent reference (``Checked by: tests/...::test_...``); the book shows the
function's source under that box (:mod:`booktools.sphinx.source`).
"""

from __future__ import annotations

from .embedding import diag, embed, one_hot, positional_encoding_sinusoidal, stack
from .feedforward import GELU_APPROXIMATIONS, ffn_gelu, ffn_relu, gelu, relu, sigmoid
from .heads import (
    attention,
    concat,
    merge_heads,
    multi_head_self_attention,
    multi_head_self_attention_batched,
    split_heads,
)
from .losses import cross_entropy, cross_entropy_from_logits
from .masking import mask_autoregressive, mask_bidirectional, masked_softmax, softmax
from .normalization import layer_norm, layer_norm_std_eps

__all__ = [
    "diag",
    "stack",
    "one_hot",
    "embed",
    "softmax",
    "mask_bidirectional",
    "mask_autoregressive",
    "masked_softmax",
    "attention",
    "concat",
    "split_heads",
    "merge_heads",
    "multi_head_self_attention",
    "multi_head_self_attention_batched",
    "relu",
    "sigmoid",
    "gelu",
    "ffn_relu",
    "ffn_gelu",
    "layer_norm",
    "layer_norm_std_eps",
    "positional_encoding_sinusoidal",
    "cross_entropy",
    "cross_entropy_from_logits",
]
