"""Every interactive widget of the book (ipywidgets), one module per group of chapters.

=======================  ==========================================================
module                   widgets (one module per part of the book, as in ``_toc.yml``)
=======================  ==========================================================
:mod:`.base`             :class:`FormulaWidget`, the base of all; the shared layout
:mod:`.foundations`      chapters 1–4: gradient descent, information, minima, gradients
:mod:`.text`             chapters 5–7: shapes, byte-pair encoding, positions
:mod:`.block`            chapters 8–12: attention, masks, multi-head attention, GELU,
                         LayerNorm
:mod:`.models`           chapters 13–16: parameter count and published presets
:mod:`.training`         chapters 17–19: XLNet orders, sampling from the trained GPT,
                         attention maps, the nucleus, the KV cache
=======================  ==========================================================

Each widget is a function ``<name>_widget(...)`` that returns a :class:`FormulaWidget`: its
controls are reachable by name (``w.controls["temperature"]``) and its computed result is kept
in ``w.result`` (a dict updated on every change), so that tests can set a control and assert
the output without a browser::

    w = attention_widget()
    w.controls["query"].value = 2
    assert w.result["weights"].shape == (3, 3)

The rendered book shows each widget's initial state (a static snapshot saved at execution time);
a live kernel (the page's live-code button, JupyterLab, Binder, Colab) makes it respond.
"""

from __future__ import annotations

from . import base, block, foundations, models, text, training
from .base import *  # noqa: F401,F403
from .block import *  # noqa: F401,F403
from .foundations import *  # noqa: F401,F403
from .models import *  # noqa: F401,F403
from .text import *  # noqa: F401,F403
from .training import *  # noqa: F401,F403

__all__ = (
    base.__all__
    + foundations.__all__
    + text.__all__
    + block.__all__
    + models.__all__
    + training.__all__
)
