"""The PDF edition's figures (booktools/sphinx/pdf.py registers these for the LaTeX builder).

* **Figures as PDF.** The chapters' figures are SVG (:mod:`formulated.plotting`), which LaTeX
  cannot include: MyST-NB is told to pick ``image/svg+xml`` for LaTeX too
  (:data:`LATEX_SVG_PRIORITY`: after ``application/pdf``, before ``image/png``), and
  :class:`SvgToPdf` converts each SVG with ``rsvg-convert`` (Debian's ``librsvg2-bin``) after
  fixing its light colors in (:func:`formulated.plotting.light_svg`).
* **Widget snapshots as figures** (:class:`WidgetSnapshots`).  A widget output shows in the
  HTML book as its saved state; in LaTeX it would print its Python repr.  Instead, its figure
  panels (the SVG ``<img>`` of its ``HTML`` children, PNGs of its ``Output`` children) become
  one figure, whose caption is the widget's title and the settings of its controls
  (:func:`widget_snapshot`), followed by the text the widget printed.
* In the Korean edition both carry the Korean texts of the page's outputs catalogue
  (:func:`booktools.sphinx.i18n.output_table`), a snapshot's caption in Korean
  (:data:`WIDGET_CAPTIONS`).
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, Mapping

from docutils import nodes
from sphinx.errors import ExtensionError
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.transforms.post_transforms.images import ImageConverter

from booktools.sphinx.i18n import (
    docname_of,
    output_table,
    translate_svg,
    translate_widget_state,
)

__all__ = [
    "WIDGET_VIEW",
    "WIDGET_FIGURE_HEIGHT",
    "LATEX_SVG_PRIORITY",
    "SVG_TOOL",
    "svg_to_pdf",
    "SvgToPdf",
    "WIDGET_CAPTIONS",
    "widget_snapshot",
    "WidgetSnapshots",
]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
#: The part of a page's text height that the panels of a widget's figure may fill together.
WIDGET_FIGURE_HEIGHT = 0.8
_MODEL_REF = re.compile(r"IPY_MODEL_([0-9a-f]+)")
_TAG = re.compile(r"<[^>]+>")
_IMG_DATA = re.compile(
    r'<img\b[^>]*\bsrc="data:(image/(?:svg\+xml|png));base64,([^"]+)"'
)

#: MyST-NB's choice of output for LaTeX: SVG after PDF and before PNG (its default list has
#: no SVG: a figure would print its repr); :class:`SvgToPdf` converts it.
LATEX_SVG_PRIORITY = ("latex", "image/svg+xml", 15)
SVG_TOOL = "rsvg-convert"


def svg_to_pdf(svg: str, dest: Path, table: Mapping[str, str] | None = None) -> None:
    """Write the SVG document ``svg`` as a PDF to ``dest``, its themed colors fixed to the
    light ones (:func:`formulated.plotting.light_svg`), with ``rsvg-convert``; its texts
    translated by ``table`` first (:func:`booktools.sphinx.i18n.translate_svg`, the Korean
    edition)."""
    from formulated.plotting import light_svg

    if table is not None:
        svg = translate_svg(svg, table)

    tool = shutil.which(SVG_TOOL)
    if tool is None:
        raise ExtensionError(
            f"{SVG_TOOL} not found: the PDF's figures are SVG; apt-get install "
            "librsvg2-bin (make tex does this as root)"
        )
    done = subprocess.run(
        [tool, "--format=pdf", f"--output={dest}"],
        check=False,
        input=light_svg(svg).encode(),
        capture_output=True,
    )
    if done.returncode or not dest.is_file():
        raise ExtensionError(
            f"{SVG_TOOL} could not convert an SVG to {dest}: "
            f"{done.stderr.decode(errors='replace').strip()}"
        )


class SvgToPdf(ImageConverter):
    """The chapters' SVG figures as PDF for LaTeX (:func:`svg_to_pdf`), their texts in the
    edition's language (the outputs catalogue of the page the figure is on)."""

    conversion_rules = [("image/svg+xml", "application/pdf")]
    _table: Mapping[str, str] | None = None

    def is_available(self) -> bool:
        return True  # a missing tool is an error of its own (svg_to_pdf), not a lost figure

    def handle(self, node: nodes.image) -> None:
        self._table = output_table(self.app, docname_of(node, self.config.root_doc))
        super().handle(node)

    def convert(self, _from: str, _to: str) -> bool:
        svg_to_pdf(Path(_from).read_text(encoding="utf-8"), Path(_to), self._table)
        return True


def _plain(text: str) -> str:
    """HTML of a widget label or text as plain text (tags dropped, entities decoded)."""
    return html.unescape(_TAG.sub("", text.replace("<br>", "\n"))).strip()


def _walk(states: dict[str, Any], model_id: str) -> list[dict[str, Any]]:
    """The models under ``model_id`` (itself first), depth first in child order."""
    out, stack, seen = [], [model_id], set()
    while stack:
        mid = stack.pop()
        if mid in seen or mid not in states:
            continue
        seen.add(mid)
        model = states[mid]
        out.append(model)
        if model.get("model_name") == "LayoutModel":
            continue
        refs = _MODEL_REF.findall(
            json.dumps(model.get("state", {}).get("children", []))
        )
        stack.extend(reversed(refs))
    return out


#: A widget snapshot's caption, by language: what it is, and what comes before its settings.
WIDGET_CAPTIONS = {
    "en": ("Snapshot of the interactive widget", " at "),
    "ko": ("대화형 위젯의 스냅숏", ": "),
}


def widget_snapshot(
    states: dict[str, Any], model_id: str, language: str | None = "en"
) -> tuple[list[tuple[str, bytes]], str, str]:
    """A widget's figure panels in order, as (mime type, bytes): the ``<img>`` data of its
    ``HTML`` children (:func:`formulated.plotting.img_html`) and the images of its ``Output``
    children (SVG or PNG); its caption (in ``language``: :data:`WIDGET_CAPTIONS`); the text it
    shows under them."""
    images: list[tuple[str, bytes]] = []
    title, settings, texts = "", [], []
    for model in _walk(states, model_id):
        name, state = model.get("model_name", ""), model.get("state", {})
        if name == "OutputModel":
            for output in state.get("outputs", []):
                data = output.get("data", {})
                for mime in ("image/svg+xml", "image/png"):
                    if mime in data:
                        raw = data[mime]
                        images.append(
                            (
                                mime,
                                raw.encode()
                                if mime == "image/svg+xml"
                                else base64.b64decode(raw),
                            )
                        )
                        break
        elif name == "HTMLModel" and _IMG_DATA.search(state.get("value") or ""):
            images += [
                (mime, base64.b64decode(data))
                for mime, data in _IMG_DATA.findall(state["value"])
            ]
        elif name == "HTMLModel" and state.get("value"):
            text = _plain(state["value"])
            if not title and state["value"].lstrip().startswith("<b>"):
                title = text
            elif text:
                texts.append(text)
        elif (
            name not in ("HTMLModel", "LabelModel")
            and "description" in state
            and "value" in state
        ):
            value = state.get("value")
            labels = state.get("_options_labels")
            if labels and isinstance(state.get("index"), int):
                value = labels[state["index"]]
            shown = str(value)
            settings.append(
                f"{_plain(state['description']) or name[:-5]} = "
                f"{shown if len(shown) <= 40 else shown[:39] + '…'}"
            )
    what, before = WIDGET_CAPTIONS.get(language or "en", WIDGET_CAPTIONS["en"])
    caption = (title + ". " if title else "") + what
    caption += before + "; ".join(settings) + "." if settings else "."
    return images, caption, "\n".join(texts)


class WidgetSnapshots(SphinxPostTransform):
    """LaTeX only: a widget output becomes a figure of its panels (before myst-nb picks a mime
    type for each output, at priority 4, which would pick the widget's text repr)."""

    default_priority = 3
    formats = ("latex",)

    def run(self, **kwargs: Any) -> None:
        states: dict[str, Any] = {}
        for docname, meta in getattr(self.env, "nb_metadata", {}).items():
            body = (
                meta.get("js_files", {})
                .get("ipywidgets_state", (None, {}))[1]
                .get("body")
            )
            if body:
                state = json.loads(body)
                table = output_table(
                    self.app, docname
                )  # the Korean edition: its labels
                if table is not None:
                    translate_widget_state(state, table)
                states.update(state["state"])
        outdir = Path(self.app.outdir)
        for bundle in list(self.document.findall(nodes.container)):
            if bundle.get("nb_element") != "mime_bundle":
                continue
            views = [c for c in bundle.children if c.get("mime_type") == WIDGET_VIEW]
            if not views:
                continue
            found = re.search(r'"model_id":\s*"([0-9a-f]+)"', views[0].astext())
            images, caption, text = widget_snapshot(
                states, found.group(1) if found else "", self.config.language
            )
            if not images:  # a widget without a figure: keep what myst-nb shows
                continue
            figure = nodes.figure(align="center")
            # The panels stack: together, with the caption, they fit one page.
            figure += nodes.raw(
                "",
                "\\formulatedimagemaxheight{%.2f\\textheight}\n"
                % (WIDGET_FIGURE_HEIGHT / len(images)),
                format="latex",
            )
            for mime, data in images:
                stem = f"widget-{hashlib.sha1(data).hexdigest()[:16]}"
                if mime == "image/svg+xml":
                    name = stem + ".pdf"
                    if not (outdir / name).is_file():  # the same bytes, the same PDF
                        svg_to_pdf(data.decode("utf-8"), outdir / name)
                else:
                    name = stem + ".png"
                    (outdir / name).write_bytes(data)
                figure += nodes.image(uri=name, candidates={"*": name})
            figure += nodes.caption(caption, caption)
            new: list[nodes.Node] = [figure]
            if text:
                new.append(nodes.literal_block(text, text))
            # A float cannot sit in the framed box of a cell's output: the figure follows the
            # cell instead, and an output box left empty goes.
            cell, output = bundle, bundle.parent
            while cell.parent is not None and cell.get("nb_element") != "cell_code":
                cell = cell.parent
            bundle.parent.remove(bundle)
            if not output.children and output is not cell:
                output.parent.remove(output)
            if (
                cell.parent is None
            ):  # not in a code cell (never seen): in place of the output
                cell = output
            cell.parent.insert(cell.parent.index(cell) + 1, new)
