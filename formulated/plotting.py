"""The book's figure style: one look for chapter figures and widget panels, in light and dark.

A figure is saved as SVG with a transparent background.  Its colors come from two sources:

- **foreground** (text, axes, ticks, legend frame and background, grid): placeholders that the
  SVG resolves with CSS custom properties, light by default and dark under
  ``@media (prefers-color-scheme: dark)``.  A browser evaluates that query inside an SVG image
  against the ``color-scheme`` of the page that embeds it, and the book's theme sets
  ``color-scheme: dark`` in dark mode: the figure follows the theme's switch, and a notebook the
  reader's system setting.  Text reaches at least 12:1 on white and on the theme's dark
  background ``#121212``.
- **data colors** (the line cycle, :data:`CYCLE`): one palette, each color at least 3:1
  against white and against ``#121212`` (WCAG 2.1's 1.4.11 for graphics), so lines and bars
  need no second version.  Color maps of heat maps are drawn as they are.

:func:`use` applies the style and makes IPython show every figure as such an SVG;
:func:`svg` renders one figure; :func:`img_html` wraps it in an ``<img>`` with alt text (the
widgets' panels); :func:`light_svg` fixes the light colors in (print, the PDF edition).
:func:`describe` writes an alt text from what a figure shows (titles, axis
labels, legend), for panels whose code gives none (:func:`set_alt`).
"""

from __future__ import annotations

import base64
import html
import io
import re
import weakref
from typing import Any

import matplotlib as mpl
from matplotlib.figure import Figure

__all__ = [
    "FOREGROUND",
    "INK",
    "GRID",
    "CYCLE",
    "style",
    "use",
    "svg",
    "light_svg",
    "img_html",
    "set_alt",
    "alt_of",
    "describe",
    "contrast_ratio",
]

#: Light and dark values of each themed color.  The light value is also the placeholder that
#: the figure is drawn with (matplotlib needs a real color); :func:`svg` replaces it.  Light
#: text is the theme's own text color; dark text likewise.
FOREGROUND = {"light": "#222832", "dark": "#ced6dd"}
#: The color of text and axes for a line or marker drawn "in ink" (instead of ``"k"``, which
#: would stay black on the dark page): the light placeholder, themed by :func:`svg`.
INK = FOREGROUND["light"]
GRID = {"light": "#d5d9dd", "dark": "#3b4046"}
#: Legend boxes: opaque page color, so lines behind a legend do not show through its text.
BACKGROUND = {"light": "#fffffe", "dark": "#121212"}
_THEMED = {"fg": FOREGROUND, "grid": GRID, "bg": BACKGROUND}

#: The data colors: matplotlib's ``tab10`` hues, the light ones darkened and the dark ones
#: lightened until each is at least 3:1 against both white and ``#121212``
#: (tests/test_plotting.py measures it).  Orange stays orange, red stays red: the chapters'
#: captions name them.
CYCLE = (
    "#1f77b4",
    "#c65f00",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#a0665a",
    "#c2529f",
    "#7f7f7f",
    "#8f8f00",
    "#0e8a96",
)


def contrast_ratio(a: Any, b: Any) -> float:
    """WCAG 2.1 contrast ratio of two matplotlib colors: ``(L1 + 0.05) / (L2 + 0.05)`` with
    ``L`` the relative luminance, ``L1 ≥ L2``; from 1 (same) to 21 (black on white)."""

    def luminance(color: Any) -> float:
        lin = [
            x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4
            for x in mpl.colors.to_rgb(color)
        ]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def style() -> dict[str, Any]:
    """The rcParams of the book's figures (the light placeholders of the themed colors)."""
    fg, grid, bg = FOREGROUND["light"], GRID["light"], BACKGROUND["light"]
    return {
        "figure.facecolor": "none",
        "axes.facecolor": "none",
        "savefig.facecolor": "none",
        "savefig.transparent": True,
        "text.color": fg,
        "axes.labelcolor": fg,
        "axes.edgecolor": fg,
        "axes.titlecolor": fg,
        "xtick.color": fg,
        "ytick.color": fg,
        "xtick.labelcolor": fg,
        "ytick.labelcolor": fg,
        "grid.color": grid,
        "legend.edgecolor": grid,
        "legend.facecolor": bg,
        "legend.labelcolor": fg,
        "legend.framealpha": 0.85,
        "axes.prop_cycle": mpl.cycler(color=list(CYCLE)),
        # The same SVG for the same figure: stable ids, no date.
        "svg.hashsalt": "formulated",
        "svg.fonttype": "path",
    }


_STYLE_SHEET = "svg{%s}@media (prefers-color-scheme: dark){svg{%s}}" % (
    ";".join(f"--{k}:{v['light']}" for k, v in _THEMED.items()),
    ";".join(f"--{k}:{v['dark']}" for k, v in _THEMED.items()),
)


def svg(fig: Figure) -> str:
    """``fig`` as an SVG document whose foreground follows the light or dark theme.

    The figure is saved tightly cropped (as the notebook's inline backend shows it); every
    occurrence of a themed placeholder color becomes ``var(--<name>, <light value>)``, and a
    style sheet sets the variables for light and dark.
    """
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buffer.getvalue()
    for name, values in _THEMED.items():
        # Only style properties ("fill: #222832"): var() is not allowed in SVG attributes.
        text = re.sub(
            rf"(fill|stroke): {values['light']}\b",
            rf"\1: var(--{name}, {values['light']})",
            text,
            flags=re.IGNORECASE,
        )
    return re.sub(
        r"(<svg\b[^>]*>)",
        lambda m: f"{m.group(1)}\n<style>{_STYLE_SHEET}</style>",
        text,
        count=1,
    )


_THEMED_VAR = re.compile(r"var\(--(?:%s), (#[0-9a-fA-F]{6})\)" % "|".join(_THEMED))


def light_svg(text: str) -> str:
    """An SVG of :func:`svg` with its light colors fixed in: every ``var(--<name>, <light>)``
    becomes ``<light>`` and the theme's style sheet goes.  For renderers without CSS variables
    (``rsvg-convert``, which turns the figures into PDF for the book's PDF edition), and for
    paper, which is light.  Any other SVG comes back unchanged."""
    text = text.replace(f"\n<style>{_STYLE_SHEET}</style>", "", 1)
    return _THEMED_VAR.sub(r"\1", text)


_ALTS: weakref.WeakKeyDictionary[Figure, str] = weakref.WeakKeyDictionary()


def set_alt(fig: Figure, text: str) -> Figure:
    """Give ``fig`` the alt text ``text`` (what the figure shows, for a reader who cannot see
    it); :func:`img_html` uses it.  Returns ``fig``."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"text: expected a non-empty description, got {text!r}")
    _ALTS[fig] = text.strip()
    return fig


def alt_of(fig: Figure) -> str:
    """The alt text of ``fig``: the one set with :func:`set_alt`, else :func:`describe`."""
    return _ALTS.get(fig) or describe(fig)


def _clean(text: str) -> str:
    """Plot text for a screen reader: mathtext dollars and backslashes out, lines joined."""
    text = re.sub(r"\$([^$]*)\$", lambda m: m.group(1).replace("\\", ""), text)
    return " ".join(text.split())


def describe(fig: Figure) -> str:
    """An alt text from what ``fig`` shows: per axes its title, axis labels and legend entries,
    e.g. ``"Chart: loss over steps; x: step; y: loss; lines: train, validation."``."""
    parts = []
    if fig._suptitle is not None and fig._suptitle.get_text():  # no public getter
        parts.append(_clean(fig._suptitle.get_text()) + ".")
    for ax in fig.get_axes():
        if not ax.get_visible() or ax.get_label() == "<colorbar>":
            continue
        bits = [
            _clean(t)
            for t in (ax.get_title("left"), ax.get_title(), ax.get_title("right"))
            if t.strip()
        ]
        what = "; ".join(bits) if bits else "chart"
        axes = [
            f"{name}: {_clean(label)}"
            for name, label in (("x", ax.get_xlabel()), ("y", ax.get_ylabel()))
            if label.strip()
        ]
        legend = ax.get_legend()
        if legend is not None:
            axes.append(
                "legend: " + ", ".join(_clean(t.get_text()) for t in legend.get_texts())
            )
        parts.append(
            f"{what[0].upper()}{what[1:]}"
            + (f" ({'; '.join(axes)})" if axes else "")
            + "."
        )
    return " ".join(parts) or "An empty figure."


def img_html(fig: Figure, alt: str | None = None) -> str:
    """An ``<img>`` showing ``fig`` as a themed SVG (:func:`svg`), with ``alt`` (default:
    :func:`alt_of`) as its text alternative and its natural size as an upper bound."""
    data = base64.b64encode(svg(fig).encode()).decode()
    alt = alt if alt is not None else alt_of(fig)
    return (
        f'<img class="formulated-figure dark-light" alt="{html.escape(alt)}" '
        f'style="max-width: 100%; height: auto" src="data:image/svg+xml;base64,{data}">'
    )


def use() -> None:
    """Apply :func:`style` and, inside IPython, show figures as themed SVG instead of PNG.

    Called once at the top of a chapter; running it again changes nothing.
    """
    # Activate the backend now: in a notebook, the inline backend sets its own rcParams and
    # figure formats (PNG) when it is first used, which would undo ours.
    import matplotlib.pyplot as plt

    plt.switch_backend(mpl.get_backend())

    mpl.rcParams.update(style())
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with Jupyter
        return
    shell = get_ipython()
    if shell is None:
        return
    formatters = shell.display_formatter.formatters
    for mime in ("image/png", "image/jpeg", "application/pdf"):
        formatters[mime].pop(Figure, None)
    formatters["image/svg+xml"].for_type(Figure, svg)
