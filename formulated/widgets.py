"""Every interactive widget of the book (ipywidgets).

Each widget is a function ``<name>_widget(...)`` that returns an ``ipywidgets`` container whose
controls are reachable as attributes of the returned object (``w.controls["temperature"]``) and
whose computed result is kept in ``w.result`` (a dict updated on every change), so that tests can
set a control and assert the output without a browser::

    w = attention_widget()
    w.controls["temperature"].value = 2.0
    assert w.result["weights"].shape == (3, 3)

The rendered book shows each widget's initial state (a static snapshot saved at execution time);
a live kernel (JupyterLab, Binder, Colab) makes it respond.  Figures are drawn into an
``ipywidgets.Output`` with matplotlib.
"""

from __future__ import annotations

from typing import Any, Callable

import ipywidgets as W
import matplotlib.pyplot as plt

__all__: list[str] = []


class FormulaWidget(W.VBox):
    """A VBox with named ``controls``, an ``Output`` for the figure/text and a ``result`` dict.

    ``compute(**values) -> dict`` turns the control values into results; ``draw(result, values)``
    renders them (called inside the Output).  Both run once at construction and again whenever a
    control changes.
    """

    def __init__(self, controls: dict[str, W.Widget], compute: Callable[..., dict],
                 draw: Callable[[dict, dict], None] | None = None, *, title: str = "",
                 layout_controls: W.Box | None = None):
        self.controls = controls
        self.out = W.Output()
        self.result: dict[str, Any] = {}
        self._compute = compute
        self._draw = draw
        box = layout_controls if layout_controls is not None else W.VBox(list(controls.values()))
        children = ([W.HTML(f"<b>{title}</b>")] if title else []) + [box, self.out]
        super().__init__(children)
        for c in controls.values():
            c.observe(self._update, names="value")
        self._update()

    def values(self) -> dict[str, Any]:
        return {k: c.value for k, c in self.controls.items()}

    def _update(self, *_: Any) -> None:
        vals = self.values()
        self.result = self._compute(**vals)
        if self._draw is None:
            return
        self.out.clear_output(wait=True)
        with self.out:
            self._draw(self.result, vals)
            plt.show()


# ---------------------------------------------------------------------------------------------
# One section per chapter; each chapter owner adds its widgets in its own section and lists them
# in ``__all__`` with ``__all__ += [...]`` right after the section's definitions.
# ---------------------------------------------------------------------------------------------

# == chapters 01-04 ============================================================================

# == chapters 05-06 ============================================================================

# == chapters 07-09 ============================================================================

# == chapters 10-12 ============================================================================

# == chapters 13-16 ============================================================================

# == chapter 17 ================================================================================

# == chapter 18 ================================================================================
