"""The base class of every widget of the book, and the layout they share.

A widget is a formula under controls: ``compute(**values) -> dict`` turns the controls' values
into results, ``draw(result, values)`` turns the results into figures (and optionally a piece
of HTML under them).  :class:`FormulaWidget` wires the two to the controls and lays everything
out so that it reflows from a 1280 px screen down to a 390 px phone:

- the controls sit in a wrapping row: two per line on a wide page, one per line on a phone; each
  label is as wide as its text (never cut to "temperat…");
- every figure is its own panel of about 3.3 × 2.8 inches (330 px at the inline backend's 100
  dpi, narrower than a phone's column), the panels wrap like the controls, so their text stays at
  its natural size instead of being scaled down with one wide figure;
- text under the figures (a sample, a table, an error message) wraps instead of running off the
  right edge.

Accessibility: every control needs a ``description`` (its visible label and accessible name;
the constructor refuses one without).  Each panel is an ``<img>`` of the figure drawn in the
book's style (:mod:`formulated.plotting`: an SVG that follows the page's light or dark theme)
whose ``alt`` says what the panel shows now: the text :func:`formulated.plotting.set_alt` gave
the figure, else one written from its titles and labels, which carry the controls' values.
Both are redrawn on every change, so a screen reader hears the new state.
"""

from __future__ import annotations

import html
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import ipywidgets as W
import matplotlib as mpl
import matplotlib.pyplot as plt

from .. import plotting

__all__ = [
    "FormulaWidget",
    "PANEL",
    "panel",
    "pre",
    "wrap_box",
    "is_control",
    "controls_of",
]

#: The size of one figure panel in inches: 330 × 280 px at 100 dpi, so that a panel fits a
#: phone's column (about 358 px at 390 px) without being scaled down, and two fit side by side
#: in the book's 672 px column.
PANEL: tuple[float, float] = (3.3, 2.8)

#: Every control: at least 240 px and at most 360 px wide, growing to fill its line.
_CONTROL_LAYOUT = dict(
    flex="1 1 240px",
    min_width="0",
    max_width="360px",
    width="auto",
    margin="2px 12px 2px 0",
)


def panel(height: float = PANEL[1], width: float = PANEL[0], **subplots: Any):
    """A new figure of one panel's size: ``plt.subplots(figsize=(width, height), **subplots)``."""
    return plt.subplots(figsize=(width, height), **subplots)


def pre(text: str) -> str:
    """``text`` as preformatted HTML that wraps long lines (for samples and messages)."""
    # the widget's own line height (28 px, for one-line controls) would double-space the text
    return (
        '<pre style="white-space: pre-wrap; overflow-wrap: anywhere; margin: 0.3em 0; '
        f'font-size: 0.85rem; line-height: 1.35">{html.escape(text)}</pre>'
    )


def wrap_box(children: list[W.Widget]) -> W.Box:
    """A row of widgets that wraps onto new lines when the page is narrow."""
    # No width: 100% here, nor on the widget itself: every widget has a 2 px margin, and a
    # 100 % width plus margins would stick out of the page by 4 px.
    return W.Box(
        children,
        layout=W.Layout(display="flex", flex_flow="row wrap", align_items="flex-start"),
    )


def is_control(widget: W.Widget) -> bool:
    """True for a widget a reader operates (a slider, menu, text box, checkbox...), False for
    the boxes, labels, HTML, images and progress bars that only show something."""
    return isinstance(widget, W.ValueWidget) and not isinstance(
        widget,
        (W.HTML, W.HTMLMath, W.Label, W.Valid, W.Image, W.FloatProgress, W.IntProgress),
    )


def fit_control(control: W.Widget) -> W.Widget:
    """Give ``control`` the shared layout: a label as wide as its text, a width that shrinks to a
    phone's column, no fixed pixel widths.  Returns ``control``."""
    style = getattr(control, "style", None)
    if style is not None and hasattr(style, "description_width"):
        style.description_width = "initial"
    if isinstance(control, W.Checkbox):
        control.indent = False  # the indent is a blank label's width: wasted on a phone
    for key, value in _CONTROL_LAYOUT.items():
        setattr(control.layout, key, value)
    return control


def controls_of(widget: W.Widget) -> list[W.Widget]:
    """Every control (:func:`is_control`) inside ``widget``, walking boxes' children."""
    found = [widget] if is_control(widget) else []
    for child in getattr(widget, "children", ()):
        found += controls_of(child)
    return found


class FormulaWidget(W.VBox):
    """A title, a box of named ``controls``, figure panels and a ``result`` dict.

    ``compute(**values) -> dict`` runs at construction and whenever a control changes; its dict
    becomes :attr:`result`.  A result with a true ``"error"`` entry is shown as that message,
    without drawing.  ``draw(result, values)`` creates figures (see :func:`panel`); each becomes
    one panel, and a string it returns is shown under them as HTML (see :func:`pre`).

    Public API: :meth:`values`, :meth:`update` (recompute and redraw), :meth:`redraw`,
    :meth:`hold` (change several controls, recompute once), :attr:`holding`.
    """

    def __init__(
        self,
        controls: dict[str, W.Widget],
        compute: Callable[..., dict],
        draw: Callable[[dict, dict], str | None] | None = None,
        *,
        title: str = "",
        layout_controls: list[W.Widget] | None = None,
    ):
        self.controls = controls
        self.result: dict[str, Any] = {}
        self.compute = compute
        self.draw = draw
        self.title = title
        self.panels: list[W.HTML] = []
        self.figure_box = wrap_box([])
        self.text = W.HTML()
        self._holding = 0
        for name, control in controls.items():
            if (
                is_control(control)
                and not str(getattr(control, "description", "")).strip()
            ):
                raise ValueError(
                    f"controls[{name!r}]: expected a description (the control's "
                    f"label and accessible name), got none"
                )
            fit_control(control)
        rows = (
            layout_controls if layout_controls is not None else list(controls.values())
        )
        children = [W.HTML(f"<b>{html.escape(title)}</b>")] if title else []
        super().__init__(children + [wrap_box(rows), self.figure_box, self.text])
        for control in controls.values():
            control.observe(self.update, names="value")
        self.update()

    def values(self) -> dict[str, Any]:
        """The current value of every control, by name."""
        return {k: c.value for k, c in self.controls.items()}

    @property
    def holding(self) -> bool:
        """True inside :meth:`hold`: control changes are not computed one by one."""
        return self._holding > 0

    @contextmanager
    def hold(self) -> Iterator[FormulaWidget]:
        """Change several controls and compute and draw once, at the end::

        with w.hold():
            w.controls["H"].value, w.controls["A"].value = 1024, 16
        """
        self._holding += 1
        try:
            yield self
        finally:
            self._holding -= 1
        if not self._holding:
            self.update()

    def update(self, *_: Any) -> None:
        """Recompute :attr:`result` from the controls and redraw (an observer of every control)."""
        if self._holding:
            return
        self.result = self.compute(**self.values())
        self.redraw()

    #: Whether panels are rendered as images: ``None`` (default) only inside IPython, where
    #: someone sees them; tests set ``True`` to check the images and their alt text.
    render_panels: bool | None = None

    def redraw(self) -> None:
        """Draw :attr:`result` again: its figures as panels, its text (or error) under them."""
        if self.draw is None:
            return
        if self.result.get("error"):
            figures, text = [], pre(str(self.result["error"]))
        else:
            before = set(plt.get_fignums())
            # The book's style here, not the reader's defaults: panels follow the page's theme.
            with mpl.rc_context(plotting.style()):
                text = self.draw(self.result, self.values()) or ""
            figures = [plt.figure(k) for k in plt.get_fignums() if k not in before]
        self._show(figures)
        self.text.value = text

    def alt(self, fig: Any, index: int, count: int) -> str:
        """The alt text of panel ``index`` (0-based) of ``count``: the widget's title, the
        panel's number when there are several, and what the figure shows (see
        :func:`formulated.plotting.alt_of`)."""
        where = f", panel {index + 1} of {count}" if count > 1 else ""
        head = f"{self.title}{where}: " if self.title else ""
        return head + plotting.alt_of(fig)

    def _show(self, figures: list) -> None:
        render = self.render_panels
        if render is None:
            from IPython import get_ipython

            render = get_ipython() is not None  # None in tests: figures only closed
        while len(self.panels) < len(figures):
            self.panels.append(
                W.HTML(layout=W.Layout(max_width="100%", margin="0 8px 0 0"))
            )
        for k, (panel_, fig) in enumerate(zip(self.panels, figures)):
            if render:
                with mpl.rc_context(plotting.style()):
                    panel_.value = plotting.img_html(
                        fig, self.alt(fig, k, len(figures))
                    )
            # Shown, so closed: otherwise the inline backend would show it again under the cell,
            # and a headless backend (tests) would keep every figure of every slider move.
            plt.close(fig)
        self.figure_box.children = tuple(self.panels[: len(figures)])
